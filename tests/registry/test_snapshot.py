"""Snapshot files and change-feed entries: every bad input has its own code."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from admission.registry.snapshot import (
    SCHEME_CLEAR,
    SCHEME_SHA256_SALTED,
    FeedAction,
    FeedPage,
    SnapshotError,
    feed_entry,
    identity_digest,
    parse_feed_lines,
    parse_snapshot,
    render_snapshot,
    validate_feed,
)

SALT = bytes(range(16))
LOCAL = b"L" * 16
T0 = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)
NUMBERS = ["12345678Z", "X1234567L", "PA1234567"]


def lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def code_of(data: bytes) -> str:
    with pytest.raises(SnapshotError) as err:
        parse_snapshot(lines(data), LOCAL)
    return err.value.code


def test_plain_list_with_comments_and_messy_numbers() -> None:
    data = b"# RIAJ export\n12345678-z\n\n x 1234567 l  # typed with spaces\npa1234567\n"
    snap = parse_snapshot(lines(data), LOCAL)
    assert snap.count == 3 and not snap.structured and snap.as_of is None
    assert set(snap.digests) == {identity_digest(LOCAL, n) for n in NUMBERS}
    assert snap.version.startswith("plain-")


def test_plain_list_accepts_bom_and_crlf() -> None:
    snap = parse_snapshot(lines(b"\xef\xbb\xbf12345678Z\r\nX1234567L\r\n"), LOCAL)
    assert snap.count == 2


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "SNAPSHOT_EMPTY"),
        (b"# only comments\n", "SNAPSHOT_EMPTY"),
        (b"12345678Z\nnot a number!\n", "SNAPSHOT_MALFORMED_LINE"),
        (b"12345678Z\n\xff\xfe\n", "SNAPSHOT_ENCODING"),
        (b"1234\x0178Z\n", "SNAPSHOT_MALFORMED_LINE"),
        (b"A" * 300 + b"\n", "SNAPSHOT_LINE_TOO_LONG"),
        (b"#RIAJ-SNAPSHOT 2\n", "SNAPSHOT_UNKNOWN_FORMAT"),
    ],
)
def test_plain_list_rejections(data: bytes, code: str) -> None:
    assert code_of(data) == code


@pytest.mark.parametrize("scheme", [SCHEME_CLEAR, SCHEME_SHA256_SALTED])
def test_structured_round_trip(scheme: str) -> None:
    data = render_snapshot(NUMBERS, version="v1", as_of=T0, scheme=scheme, salt=SALT)
    snap = parse_snapshot(lines(data), LOCAL)
    salt = LOCAL if scheme == SCHEME_CLEAR else SALT
    assert snap.salt == salt and snap.as_of == T0 and snap.version == "v1"
    assert set(snap.digests) == {identity_digest(salt, n) for n in NUMBERS}
    assert snap.signature is None and snap.structured


def good() -> bytes:
    return render_snapshot(NUMBERS, version="v1", as_of=T0, salt=SALT)


def test_truncated_file_is_rejected_wherever_it_is_cut() -> None:
    data = good()
    for cut in range(1, len(data) - 1, 7):
        with pytest.raises(SnapshotError) as err:
            parse_snapshot(lines(data[:cut]), LOCAL)
        assert err.value.code in {
            "SNAPSHOT_TRUNCATED",
            "SNAPSHOT_MALFORMED_LINE",
            "SNAPSHOT_HEADER_MISSING",
            "SNAPSHOT_BAD_HEADER",
            "SNAPSHOT_UNKNOWN_FORMAT",
            "SNAPSHOT_UNKNOWN_SCHEME",
            "SNAPSHOT_BAD_SALT",
            "SNAPSHOT_CHECKSUM_MISMATCH",
            "SNAPSHOT_EMPTY",
        }, cut


def test_flipped_identifier_breaks_the_checksum() -> None:
    data = bytearray(good())
    pos = data.index(b"#count")
    pos = data.index(b"\n", pos) + 5
    data[pos] = ord("0") if data[pos] != ord("0") else ord("1")
    assert code_of(bytes(data)) == "SNAPSHOT_CHECKSUM_MISMATCH"


def rebuild(data: bytes, old: bytes, new: bytes) -> bytes:
    """Edit the content and re-compute a valid checksum (a well-formed but wrong file)."""
    import hashlib

    body = data[: data.index(b"#end")].replace(old, new)
    return body + b"#end sha256:" + hashlib.sha256(body).hexdigest().encode() + b"\n"


def test_unknown_scheme_duplicate_count_and_scope() -> None:
    assert code_of(rebuild(good(), b"sha256-salted-v1", b"md5-salted")) == "SNAPSHOT_UNKNOWN_SCHEME"
    assert code_of(rebuild(good(), b"#count: 3", b"#count: 4")) == "SNAPSHOT_COUNT_MISMATCH"
    assert code_of(rebuild(good(), b"#scope: CASINOS", b"#scope: BINGOS")) == "SNAPSHOT_WRONG_SCOPE"
    assert code_of(rebuild(good(), b"#version: v1\n", b"")) == "SNAPSHOT_HEADER_MISSING"
    assert code_of(rebuild(good(), SALT.hex().encode(), b"abcd")) == "SNAPSHOT_BAD_SALT"
    dup = render_snapshot(["12345678Z", "12345678Z"], version="v", as_of=T0, salt=SALT)
    snap = parse_snapshot(lines(dup), LOCAL)  # kept once, the repeat counted
    assert (snap.count, snap.duplicates, snap.duplicate_lines) == (1, 1, (9,))
    first_hash = good().split(b"\n")[7]
    assert code_of(rebuild(good(), first_hash, b"zz" * 32)) == "SNAPSHOT_MALFORMED_LINE"


def test_data_after_end_and_bad_signature_lines() -> None:
    assert code_of(good() + b"12345678Z\n") == "SNAPSHOT_TRAILING_DATA"
    assert code_of(good() + b"#signature ed25519:AAAA\n") == "SNAPSHOT_BAD_SIGNATURE"
    sig = b"#signature ed25519:" + __import__("base64").b64encode(b"s" * 64) + b"\n"
    assert parse_snapshot(lines(good() + sig), LOCAL).signature == b"s" * 64
    assert code_of(good() + sig + b"more\n") == "SNAPSHOT_TRAILING_DATA"


@given(st.sets(st.from_regex(r"[0-9]{8}[A-Z]", fullmatch=True), min_size=1, max_size=30))
def test_any_set_of_numbers_round_trips(numbers: set[str]) -> None:
    data = render_snapshot(sorted(numbers), version="v", as_of=T0, salt=SALT)
    snap = parse_snapshot(lines(data), LOCAL)
    assert list(snap.digests) == sorted(identity_digest(SALT, n) for n in numbers)


# --- change feed ---------------------------------------------------------------------------


def test_feed_lines_parse_and_normalise() -> None:
    page = parse_feed_lines(
        ["# cambios", "A 12345678-z 2026-11-29T10:00:00Z", "B;X1234567L;2026-11-29T11:00:00+01:00"],
        since=T0,
        as_of=T0 + timedelta(hours=12),
    )
    assert [(e.action, e.number) for e in page.entries] == [
        (FeedAction.ADDED, "12345678Z"),
        (FeedAction.REMOVED, "X1234567L"),
    ]
    assert page.entries[1].at == datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("C 12345678Z 2026-11-29", "FEED_BAD_ACTION"),
        ("A ?? 2026-11-29", "FEED_BAD_IDENTITY"),
        ("A 12345678Z yesterday", "FEED_BAD_DATE"),
        ("A 12345678Z 2026-11-29T10:00:00", "FEED_BAD_DATE"),
        ("A 12345678Z", "FEED_MALFORMED_LINE"),
    ],
)
def test_feed_bad_lines(line: str, code: str) -> None:
    with pytest.raises(SnapshotError) as err:
        parse_feed_lines([line], since=None, as_of=T0 + timedelta(days=1))
    assert err.value.code == code


def test_feed_out_of_order_dates_are_rejected() -> None:
    a = feed_entry("A", "12345678Z", T0 + timedelta(hours=2))
    b = feed_entry("B", "12345678Z", T0 + timedelta(hours=1))
    for page in (
        FeedPage(T0, T0 + timedelta(hours=3), (a, b)),  # backwards
        FeedPage(T0 + timedelta(hours=3), T0 + timedelta(hours=4), (a,)),  # before since
        FeedPage(T0, T0 + timedelta(hours=1), (a,)),  # after as-of
    ):
        with pytest.raises(SnapshotError) as err:
            validate_feed(page)
        assert err.value.code == "FEED_OUT_OF_ORDER"

"""The code printed on entry cards (art. 22.4, R8): forged, mistyped or foreign codes fail."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from admission.cards.code import (
    CODE_MALFORMED,
    CODE_OTHER_CASINO,
    CODE_TAMPERED,
    CardCode,
    CardCodeError,
    encode_card_code,
    looks_like_card_code,
    parse_card_code,
)

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))


def _code(err: pytest.ExceptionInfo[CardCodeError]) -> str:
    return err.value.code


def test_round_trip() -> None:
    text = encode_card_code("MAD01", 1234567, KEY)
    assert text.startswith("ADM1-MAD01-1234567-")
    assert len(text) <= 32
    assert parse_card_code(text, KEY, casino_id="MAD01") == CardCode("MAD01", 1234567, text)


def test_alphabet_is_qr_alphanumeric_and_code128_safe() -> None:
    for n in (1, 42, 9_999_999_999):
        text = encode_card_code("Z9", n, KEY)
        assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
        assert text == text.upper()


def test_encoding_is_deterministic_and_key_dependent() -> None:
    assert encode_card_code("MAD01", 7, KEY) == encode_card_code("MAD01", 7, KEY)
    assert encode_card_code("MAD01", 7, KEY) != encode_card_code("MAD01", 7, OTHER_KEY)


def test_forged_number_is_tampered() -> None:
    text = encode_card_code("MAD01", 1000, KEY)
    mac = text.rsplit("-", 1)[1]
    with pytest.raises(CardCodeError) as err:
        parse_card_code(f"ADM1-MAD01-1001-{mac}", KEY)
    assert _code(err) == CODE_TAMPERED


def test_other_key_is_tampered() -> None:
    with pytest.raises(CardCodeError) as err:
        parse_card_code(encode_card_code("MAD01", 5, OTHER_KEY), KEY)
    assert _code(err) == CODE_TAMPERED


def test_other_casino() -> None:
    with pytest.raises(CardCodeError) as err:
        parse_card_code(encode_card_code("BCN02", 5, KEY), KEY, casino_id="MAD01")
    assert _code(err) == CODE_OTHER_CASINO


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ADM1",
        "ADM2-MAD01-5-ABCDEFGH",
        "ADM1-MAD01-05-ABCDEFGH",  # leading zero: not canonical
        "ADM1-MAD01-0-ABCDEFGH",
        "ADM1-MAD01-12345678901-ABCDEFGH",  # 11 digits
        "ADM1-MAD01-5-ABCDEFG",
        "ADM1-MAD01-5-ABCDEFGHJ",
        "ADM1-MAD001234-5-ABCDEFGH",
        "ADM1-MAD01-5-ABCDEFGH-X",
        "ADM1-MAD 01-5-ABCDEFGH",
        "ADM1-MAD01-5-ABCD\x00FGH",
        "ADM1-MAD01-5-ABCDÉFGH",
        "<b>ADM1-MAD01-5-ABCDEFGH</b>",
        "A" * 10_000,
    ],
)
def test_malformed(text: str) -> None:
    with pytest.raises(CardCodeError) as err:
        parse_card_code(text, KEY)
    assert _code(err) == CODE_MALFORMED
    assert not looks_like_card_code(text)


def test_reader_noise_is_tolerated() -> None:
    text = encode_card_code("MAD01", 77, KEY)
    assert parse_card_code(f"  {text.lower()}\r\n", KEY).text == text
    # US-configured reader on a Spanish keyboard layout types ' for -
    assert parse_card_code(text.replace("-", "'"), KEY).number == 77
    assert looks_like_card_code(text.replace("-", "'"))


def test_crockford_lookalikes_are_read_as_digits() -> None:
    for n in range(1, 400):
        text = encode_card_code("MAD01", n, KEY)
        mac = text.rsplit("-", 1)[1]
        if "0" in mac or "1" in mac:
            typed = text[: -len(mac)] + mac.replace("0", "O").replace("1", "I")
            assert parse_card_code(typed, KEY).number == n
            return
    pytest.fail("no MAC with 0 or 1 in 400 samples")


def test_every_single_character_mistype_is_detected() -> None:
    text = encode_card_code("MAD01", 123456, KEY)
    alphabet = "ABCDEFGHJKMNPQRSTVWXYZ0123456789"
    for i, original in enumerate(text):
        if original == "-":
            continue
        for c in alphabet:
            if c == original or {c, original} <= set("01IL") or {c, original} <= set("0O"):
                continue
            typed = text[:i] + c + text[i + 1 :]
            with pytest.raises(CardCodeError):
                parse_card_code(typed, KEY, casino_id="MAD01")


def test_adjacent_transpositions_are_detected() -> None:
    text = encode_card_code("MAD01", 987654, KEY)
    for i in range(len(text) - 1):
        if text[i] == text[i + 1] or "-" in text[i : i + 2]:
            continue
        typed = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        with pytest.raises(CardCodeError):
            parse_card_code(typed, KEY, casino_id="MAD01")


def test_bad_arguments_to_encode() -> None:
    with pytest.raises(ValueError):
        encode_card_code("MAD01", 1, b"short")
    with pytest.raises(ValueError):
        encode_card_code("mad01", 1, KEY)
    with pytest.raises(ValueError):
        encode_card_code("MAD01", 0, KEY)
    with pytest.raises(TypeError):
        encode_card_code("MAD01", True, KEY)


@given(st.text(max_size=80))
def test_arbitrary_text_never_crashes(text: str) -> None:
    try:
        parse_card_code(text, KEY)
    except CardCodeError as err:
        assert err.code in {CODE_MALFORMED, CODE_TAMPERED}


@given(st.from_regex(r"[A-Z0-9]{1,8}", fullmatch=True), st.integers(1, 9_999_999_999))
def test_round_trip_property(casino: str, number: int) -> None:
    text = encode_card_code(casino, number, KEY)
    assert parse_card_code(text, KEY, casino_id=casino).number == number


@pytest.mark.parametrize("symbology", ["QRCode", "Code128"])
def test_both_decoders_read_the_printed_code(symbology: str) -> None:
    zxingcpp = pytest.importorskip("zxingcpp")
    np = pytest.importorskip("numpy")
    pyzbar = pytest.importorskip("pyzbar.pyzbar")
    text = encode_card_code("MAD01", 1234567, KEY)
    barcode = zxingcpp.create_barcode(text, getattr(zxingcpp.BarcodeFormat, symbology))
    img = np.ascontiguousarray(np.array(zxingcpp.write_barcode_to_image(barcode, size_hint=400)))
    assert [r.text for r in zxingcpp.read_barcodes(img)] == [text]
    zbar = pyzbar.decode((img.tobytes(), img.shape[1], img.shape[0]))
    assert [d.data.decode("ascii") for d in zbar] == [text]
    assert parse_card_code(zbar[0].data.decode("ascii"), KEY).number == 1234567


# --- verification (R8, art. 22.4) and the verify-card CLI handler ----------------------

from datetime import UTC, datetime, timedelta  # noqa: E402

from admission.cards.verification import CardCheckStatus, mask_number, verify_card  # noqa: E402
from admission.clock import FixedClock  # noqa: E402
from admission.errors import StoreError  # noqa: E402

T0 = datetime(2026, 1, 10, 21, 30, tzinfo=UTC)


def _store_with_cards(clock: FixedClock):  # type: ignore[no-untyped-def]
    from tests.db.factories import card_for, entry
    from tests.fake_store import FakeStore

    store = FakeStore(clock)
    one_day = store.record_admission(entry(1, T0))
    three_days = store.record_admission(entry(2, T0, card=card_for(T0, days=3)))
    voided = store.record_admission(entry(3, T0))
    store.void_card(voided.card_number, "lost", "director-1", T0)
    return store, one_day.card_number, three_days.card_number, voided.card_number


def _check(store, clock, text: str, casino: str = "MAD01"):  # type: ignore[no-untyped-def]
    return verify_card(
        text,
        key=store.secret("card_code"),
        casino_id=casino,
        store=store,
        clock=clock,
        actor="inspector-3",
        channel="scanner",
    )


def test_verification_statuses_and_audit() -> None:
    clock = FixedClock(T0)
    store, one, three, voided = _store_with_cards(clock)
    key = store.secret("card_code")
    ok = _check(store, clock, encode_card_code("MAD01", one, key))
    assert ok.status is CardCheckStatus.VALID and ok.ok
    assert (ok.surname, ok.given_names, ok.file_number) == ("Peña Núñez", "José María", 1)
    assert ok.identity_hint.endswith("001R") and ok.identity_hint.startswith("*****")
    assert (
        _check(store, clock, encode_card_code("MAD01", voided, key)).status
        is CardCheckStatus.VOIDED
    )
    clock.advance(timedelta(days=1))
    assert (
        _check(store, clock, encode_card_code("MAD01", one, key)).status is CardCheckStatus.EXPIRED
    )
    assert (
        _check(store, clock, encode_card_code("MAD01", three, key)).status is CardCheckStatus.VALID
    )
    assert (
        _check(store, clock, encode_card_code("MAD01", 999, key)).status
        is CardCheckStatus.UNKNOWN_NUMBER
    )
    assert (
        _check(store, clock, encode_card_code("MAD01", one, OTHER_KEY)).status
        is CardCheckStatus.CODE_TAMPERED
    )
    assert (
        _check(store, clock, encode_card_code("BCN02", one, key)).status
        is CardCheckStatus.OTHER_CASINO
    )
    bad = _check(store, clock, "<script>" * 2000)
    assert bad.status is CardCheckStatus.CODE_MALFORMED and bad.file_number is None
    entries = [e for e in store.audit_entries() if e.action == "CARD_CHECK"]
    assert [e.details["result"] for e in entries] == [
        "VALID",
        "VOIDED",
        "EXPIRED",
        "VALID",
        "UNKNOWN_NUMBER",
        "CODE_TAMPERED",
        "OTHER_CASINO",
        "CODE_MALFORMED",
    ]
    assert all(e.actor == "inspector-3" and e.details["channel"] == "scanner" for e in entries)
    assert entries[-1].subject == "card:-"
    assert not any("Peña" in str(e) or "00000001" in str(e) for e in entries)
    assert store.verify().ok


def test_not_yet_valid() -> None:
    from tests.db.factories import card_for, entry
    from tests.fake_store import FakeStore

    clock = FixedClock(T0)
    store = FakeStore(clock)
    later = card_for(T0 + timedelta(days=2))
    number = store.record_admission(entry(1, T0, card=later)).card_number
    result = _check(store, clock, encode_card_code("MAD01", number, store.secret("card_code")))
    assert result.status is CardCheckStatus.NOT_YET_VALID


def test_cli_handler_payload_and_exit_codes() -> None:
    from ui.cli.verify_card import check as verify_card_command

    clock = FixedClock(T0)
    store, one, _three, voided = _store_with_cards(clock)
    key = store.secret("card_code")
    code, payload = verify_card_command(store, clock, "MAD01", encode_card_code("MAD01", one, key))
    assert code == 0
    assert payload["status"] == "VALID" and payload["valid"] is True
    assert payload["holder"]["surname"] == "Peña Núñez"
    assert payload["valid_until"] == "2026-01-10"
    import json

    json.dumps(payload)  # printable as JSON
    code, payload = verify_card_command(
        store, clock, "MAD01", encode_card_code("MAD01", voided, key)
    )
    assert (code, payload["status"]) == (1, "VOIDED")
    code, payload = verify_card_command(store, clock, "MAD01", "nonsense")
    assert (code, payload["status"], payload["holder"]) == (1, "CODE_MALFORMED", None)


def test_cli_handler_store_failure_is_exit_3() -> None:
    from tests.fake_store import FakeStore
    from ui.cli.verify_card import check as verify_card_command

    clock = FixedClock(T0)
    store = FakeStore(clock)
    store.fail_next("append", StoreError("disk full"))
    code, payload = verify_card_command(store, clock, "MAD01", "ADM1-MAD01-1-ABCDEFGH")
    assert (code, payload["error"]) == (3, "STORE_ERROR")  # the file could not be used


def test_verification_on_the_encrypted_store(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("sqlcipher3")
    from db.keys import DbKey
    from db.store import SqlCipherStore
    from tests.db.factories import entry
    from ui.cli.verify_card import check as verify_card_command

    clock = FixedClock(T0)
    with SqlCipherStore.open(
        tmp_path / "v.db", DbKey.from_raw(bytes(32), source="test"), clock=clock
    ) as store:
        number = store.record_admission(entry(1, T0)).card_number
        text = encode_card_code("MAD01", number, store.secret("card_code"))
        code, payload = verify_card_command(store, clock, "MAD01", text)
        assert (code, payload["status"], payload["card_number"]) == (0, "VALID", number)
        assert store.audit_entries()[-1].action == "CARD_CHECK"


def test_mask_number() -> None:
    assert mask_number("12345678Z") == "*****678Z"
    assert mask_number("AB") == "AB"

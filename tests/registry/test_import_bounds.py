"""A snapshot file is untrusted input (art. 20.2; STYLE.md rule 14): whatever it is, the
import answers with a code quickly, in bounded memory, and the snapshot in force stays
in force unless the new one is complete."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from admission.clock import FixedClock
from admission.identity import IdentityKey, IdKind
from admission.registry import digests as digests_module
from admission.registry import snapshot as snapshot_module
from admission.registry.digests import REPORTED_DUPLICATES, DigestCollector, SortedDigests
from admission.registry.port import RegistryStatus
from admission.registry.snapshot import (
    SCHEME_CLEAR,
    SnapshotError,
    identity_digest,
    parse_snapshot,
    read_lines,
    render_snapshot,
)
from db.registry_replica import ReplicaRegistry
from tests.registry.conftest import T0

ROOT = Path(__file__).resolve().parents[2]
SALT = b"s" * 16
LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni(n: int) -> str:
    return f"{n:08d}{LETTERS[n % 23]}"


def listed(replica: ReplicaRegistry, number: str) -> bool:
    answer = replica.check(IdentityKey.of(IdKind.DNI, "ESP", number))
    return answer.status is RegistryStatus.LISTED


@pytest.fixture
def in_force(replica: ReplicaRegistry, clock: FixedClock, tmp_path: Path) -> ReplicaRegistry:
    """A replica with a snapshot (v1, 12345678Z) already in force."""
    clock.advance(timedelta(hours=1))
    path = tmp_path / "v1.txt"
    path.write_bytes(render_snapshot(["12345678Z"], version="v1", as_of=T0, salt=SALT))
    replica.import_file(path)
    return replica


def refused(replica: ReplicaRegistry, path: Path) -> SnapshotError:
    with pytest.raises(SnapshotError) as err:
        replica.import_file(path)
    state = replica.state()
    assert state is not None and state.version == "v1" and listed(replica, "12345678Z")
    return err.value


def test_a_device_is_refused_before_it_is_read(in_force: ReplicaRegistry) -> None:
    start = time.perf_counter()
    assert refused(in_force, Path("/dev/zero")).code == "SNAPSHOT_NOT_A_FILE"
    assert time.perf_counter() - start < 1.0


def test_a_folder_is_refused(in_force: ReplicaRegistry, tmp_path: Path) -> None:
    assert refused(in_force, tmp_path).code == "SNAPSHOT_NOT_A_FILE"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_without_a_writer_does_not_block(in_force: ReplicaRegistry, tmp_path: Path) -> None:
    fifo = tmp_path / "riaj.fifo"
    os.mkfifo(fifo)
    errors: list[SnapshotError] = []

    def attempt() -> None:
        try:
            in_force.import_file(fifo)
        except SnapshotError as exc:
            errors.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(5.0)
    if worker.is_alive():  # release the blocked open() so the test run can end
        with open(fifo, "wb"):
            pass
        pytest.fail("importing a pipe blocked")
    assert [e.code for e in errors] == ["SNAPSHOT_NOT_A_FILE"]


def test_a_file_without_newlines_is_refused_at_line_one_in_little_memory(
    in_force: ReplicaRegistry, tmp_path: Path
) -> None:
    path = tmp_path / "zeros.bin"
    with path.open("wb") as out:
        out.truncate(64 * 1024 * 1024)  # 64 MB of NUL bytes, sparse on disk
    tracemalloc.start()
    try:
        err = refused(in_force, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (err.code, err.line) == ("SNAPSHOT_LINE_TOO_LONG", 1)
    assert peak < 1024 * 1024


def test_a_long_line_is_refused_with_its_number(in_force: ReplicaRegistry, tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_bytes(b"# lista\n12345678Z\n" + b"9" * 100_000 + b"\n99999999R\n")
    err = refused(in_force, path)
    assert (err.code, err.line) == ("SNAPSHOT_LINE_TOO_LONG", 3)
    assert not listed(in_force, "99999999R")


def test_the_line_limit_is_on_the_text_not_the_line_end() -> None:
    ok = b"#" + b"x" * 255  # 256 bytes: the limit
    assert parse_snapshot([b"12345678Z\r\n", ok + b"\r\n"], SALT).count == 1
    with pytest.raises(SnapshotError) as err:
        parse_snapshot([b"12345678Z\n", ok + b"x\n"], SALT)
    assert (err.value.code, err.value.line) == ("SNAPSHOT_LINE_TOO_LONG", 2)


def test_read_lines_never_reads_more_than_a_line_at_once(tmp_path: Path) -> None:
    path = tmp_path / "x"
    path.write_bytes(b"a\n" + b"b" * 10_000 + b"\nc")
    with path.open("rb") as handle:
        pieces = list(read_lines(handle))
    assert pieces[0] == b"a\n" and pieces[-1] == b"c"
    assert max(len(p) for p in pieces) <= snapshot_module.MAX_LINE_BYTES + 3
    with path.open("rb") as handle, pytest.raises(SnapshotError) as err:
        list(read_lines(handle, max_bytes=5000))
    assert err.value.code == "SNAPSHOT_TOO_LARGE"


def test_too_many_identifiers_are_refused_with_the_line(
    in_force: ReplicaRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot_module, "MAX_ENTRIES", 3)
    path = tmp_path / "many.txt"
    path.write_text("# lista\n" + "".join(dni(n) + "\n" for n in range(10, 15)))
    err = refused(in_force, path)
    assert (err.code, err.line) == ("SNAPSHOT_TOO_LARGE", 5)
    declared = render_snapshot([dni(n) for n in range(10, 15)], version="v2", as_of=T0, salt=SALT)
    path.write_bytes(declared)  # "#count: 5" is refused before any entry is read
    assert refused(in_force, path).code == "SNAPSHOT_TOO_LARGE"


def test_more_entries_than_declared_stop_at_the_first_extra_line(tmp_path: Path) -> None:
    data = render_snapshot([dni(n) for n in range(10, 15)], version="v2", as_of=T0, salt=SALT)
    data = data.replace(b"#count: 5", b"#count: 2")
    with pytest.raises(SnapshotError) as err:
        parse_snapshot(data.splitlines(keepends=True), SALT)
    assert (err.value.code, err.value.line) == ("SNAPSHOT_COUNT_MISMATCH", 10)


def test_an_unknown_header_is_refused_at_once() -> None:
    data = render_snapshot(["12345678Z"], version="v2", as_of=T0, salt=SALT)
    data = data.replace(b"#count", b"#colour: blue\n#count")
    with pytest.raises(SnapshotError) as err:
        parse_snapshot(data.splitlines(keepends=True), SALT)
    assert (err.value.code, err.value.line) == ("SNAPSHOT_BAD_HEADER", 7)


@pytest.mark.parametrize("as_of", [b"0001-01-01T00:00:00+05:00", b"9999-12-31T23:00:00-05:00"])
def test_a_date_out_of_any_range_is_a_bad_header(as_of: bytes) -> None:
    data = render_snapshot(["12345678Z"], version="v2", as_of=T0, salt=SALT)
    body = data[: data.index(b"#end")]
    body = body.replace(b"2026-11-29T06:00:00Z", as_of)
    data = body + b"#end sha256:" + hashlib.sha256(body).hexdigest().encode() + b"\n"
    with pytest.raises(SnapshotError) as err:
        parse_snapshot(data.splitlines(keepends=True), SALT)
    assert err.value.code == "SNAPSHOT_BAD_HEADER"


def test_repeats_are_counted_with_their_first_lines(
    in_force: ReplicaRegistry, clock: FixedClock, tmp_path: Path
) -> None:
    numbers = [dni(n) for n in range(100, 120)]
    lines = numbers + numbers[:15] + ["99999999R"]  # lines 21-35 repeat lines 1-15
    path = tmp_path / "v2.txt"
    path.write_bytes(
        render_snapshot(lines, version="v2", as_of=T0 + timedelta(minutes=30), salt=SALT)
    )
    result = in_force.import_file(path)
    assert result.entries == 21 and result.duplicates == 15
    header_lines = 7  # magic, scheme, salt, version, as-of, scope, count
    first = list(range(21 + header_lines, 21 + header_lines + REPORTED_DUPLICATES))
    assert list(result.duplicate_lines) == first
    assert listed(in_force, "99999999R") and not listed(in_force, "12345678Z")


def test_clear_structured_snapshot_counts_repeats_too() -> None:
    data = render_snapshot(["12345678Z"] * 3, version="v", as_of=T0, scheme=SCHEME_CLEAR)
    snap = parse_snapshot(data.splitlines(keepends=True), SALT)
    assert (snap.count, snap.duplicates, snap.duplicate_lines) == (1, 2, (8, 9))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=200), st.integers(1, 4))
def test_the_collector_sorts_dedupes_and_finds_repeats(picks: list[int], run: int) -> None:
    """Against a plain set, also when runs are tiny and every bucket is split again."""
    digests = [hashlib.sha256(b"%d" % p).digest()[:15] + bytes([p % 3]) for p in picks]
    digests = [b"\x00\x00" + d[2:] for d in digests]  # a shared prefix: buckets split
    collector = DigestCollector()
    for line, digest in enumerate(digests, start=1):
        collector.add(digest, line)
    with mock.patch.object(digests_module, "_SORT_RUN", run):
        found, repeats = collector.finish()
    assert list(found) == sorted(set(digests))
    seen: set[bytes] = set()
    repeat_lines = []
    for line, digest in enumerate(digests, start=1):
        if digest in seen:
            repeat_lines.append(line)
        seen.add(digest)
    assert repeats.count == len(repeat_lines)
    assert list(repeats.lines) == repeat_lines[:REPORTED_DUPLICATES]


def test_sorted_digests_is_a_sequence_of_bytes() -> None:
    packed = b"".join(bytes([i]) * 16 for i in range(3))
    seq = SortedDigests(bytearray(packed))
    assert len(seq) == 3 and seq[1] == b"\x01" * 16 and seq[-1] == b"\x02" * 16
    assert seq[0:2] == [b"\x00" * 16, b"\x01" * 16] and isinstance(seq[0], bytes)
    assert seq == SortedDigests(packed) and list(seq) == [seq[0], seq[1], seq[2]]
    with pytest.raises(IndexError):
        seq[3]
    with pytest.raises(ValueError, match="multiple"):
        SortedDigests(b"x")


def test_identity_digest_matches_the_hot_path() -> None:
    snap = parse_snapshot([b"12345678Z\n", b"  12345678-z  \n"], SALT)
    assert list(snap.digests) == [identity_digest(SALT, "12345678Z")]
    assert snap.duplicates == 1 and snap.duplicate_lines == (2,)


_MEASURE = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from datetime import UTC, datetime
from admission.clock import FixedClock
from db.keys import DbKey
from db.registry_replica import ReplicaRegistry
from db.store import SqlCipherStore

def hwm():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) // 1024

clock = FixedClock(datetime(2026, 11, 29, 8, tzinfo=UTC))
store = SqlCipherStore.open(Path(sys.argv[3]), DbKey.from_raw(b"k" * 32), clock=clock)
replica = ReplicaRegistry(store, clock)
before = hwm()
start = time.perf_counter()
result = replica.import_file(Path(sys.argv[2]))
print(result.entries, result.duplicates, before, hwm(), round(time.perf_counter() - start, 2))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
def test_memory_of_a_large_import_is_about_twenty_bytes_an_identifier(tmp_path: Path) -> None:
    """A 200,000-line register with repeats, imported into the real encrypted store in a
    fresh process: the peak grows by well under 100 bytes an identifier (one Python
    bytes object each would be about 70, plus the list)."""
    size = 200_000
    path = tmp_path / "riaj.txt"
    with path.open("w", encoding="ascii") as out:
        out.write("# lista\n")
        out.writelines(dni(n) + "\n" for n in range(10_000_000, 10_000_000 + size))
        out.writelines(dni(n) + "\n" for n in range(10_000_000, 10_000_100))  # 100 repeats
    run = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(ROOT), str(path), str(tmp_path / "v.db")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    entries, duplicates, before, after, _seconds = run.stdout.split()
    assert (int(entries), int(duplicates)) == (size, 100)
    assert (int(after) - int(before)) * 1024 * 1024 < 100 * size

"""Provisional vouchers given while the server is unreachable (art. 23.4), kept in the
desk's encrypted queue and formalised on a voucher book (here the SQLCipher one): in
order, exactly once even when formalisation is interrupted or killed, numbers gapless,
the queue's file encrypted and refused to a wrong key.

Run as ``python -m tests.db.test_offline_queue enqueue|formalise ...`` it is the child
process the kill tests SIGKILL (key in ADMISSION_DB_KEY)."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.errors import StoreError, StoreErrorCode, WrongKeyError
from admission.vouchers.model import NewVoucher, Voucher
from admission.vouchers.offline import QueuedVoucher, QueueState
from db.keys import ENV_VAR, DbKey, key_from_env
from db.offline_queue import OfflineQueueCode, OfflineVoucherQueue, formalise, queue_key
from db.pg.codes import PgStoreCode
from db.store import SqlCipherStore
from db.voucher_book import StoreVoucherBook

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 12, 5, 22, 0, tzinfo=UTC)
DESK = "desk1"


def all_entries(queue: OfflineVoucherQueue) -> list[QueuedVoucher]:
    """Every entry, formalised or not, in local order (the desk itself lists the pending)."""
    return queue._select("1 = 1", ())


def new_voucher(n: int, at: datetime | None = None, desk: str = DESK) -> NewVoucher:
    return NewVoucher(
        issued_at=at or T0 + timedelta(seconds=n),
        desk_id=desk,
        operator="op-7",
        holder_name=f"Secretina Oculta {n}",
        document_type="DNI",
        document_number=f"HIDDEN{n:05d}Z",
        card_type="DAY",
        price_cents=500,
    )


def fingerprint(v: Voucher | NewVoucher) -> tuple[object, ...]:
    return (v.desk_id, v.issued_at, v.operator, v.holder_name, v.document_number)


class LinkLost:
    """The server's voucher book reached through a link that fails: ``after_commit``
    (the voucher is issued, the answer lost) or before it, on the ``nth`` issue."""

    def __init__(self, book: StoreVoucherBook, nth: int, *, after_commit: bool) -> None:
        self.book, self.nth, self.after_commit, self.calls = book, nth, after_commit, 0

    def issue_voucher(self, new: NewVoucher) -> Voucher:
        self.calls += 1
        if self.calls == self.nth:
            if self.after_commit:
                self.book.issue_voucher(new)
            raise StoreError("link lost", code=PgStoreCode.BUSY)
        return self.book.issue_voucher(new)

    def voucher(self, number: int) -> Voucher | None:
        return self.book.voucher(number)

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]:
        return self.book.open_vouchers(issued_before)

    def cancel_voucher(self, number: int, reason: str, at: datetime) -> Voucher:
        return self.book.cancel_voucher(number, reason, at)


class SeenLate(LinkLost):
    """A book whose ``hidden`` vouchers are not seen until the next issue: a send whose
    commit was still under way while the rerun looked for it."""

    def __init__(self, book: StoreVoucherBook, hidden: set[int]) -> None:
        super().__init__(book, 0, after_commit=False)
        self.hidden = hidden

    def issue_voucher(self, new: NewVoucher) -> Voucher:
        self.hidden.clear()
        return self.book.issue_voucher(new)

    def voucher(self, number: int) -> Voucher | None:
        return None if number in self.hidden else self.book.voucher(number)

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]:
        return [v for v in self.book.open_vouchers(issued_before) if v.number not in self.hidden]


@pytest.fixture
def desk_key() -> DbKey:
    return DbKey.generate(source="test")


@pytest.fixture
def queue(tmp_path: Path, desk_key: DbKey) -> Iterator[OfflineVoucherQueue]:
    path = tmp_path / "offline-vouchers.db"
    with OfflineVoucherQueue.open(path, queue_key(desk_key), desk_id=DESK, create=True) as q:
        yield q


@pytest.fixture
def server(tmp_path: Path, desk_key: DbKey) -> Iterator[SqlCipherStore]:
    with SqlCipherStore.open(tmp_path / "visitors.db", desk_key, clock=FixedClock(T0)) as store:
        yield store


def check_book(book: StoreVoucherBook, queue: OfflineVoucherQueue) -> None:
    """Every queued voucher is on the server once, under the number the queue holds;
    the server's numbers are gapless and follow the queue's order."""
    entries = all_entries(queue)
    on_server = [book.voucher(n) for n in range(1, len(entries) + 2)]
    assert on_server[-1] is None  # nothing beyond: no duplicate was issued
    assert [fingerprint(v) for v in on_server[:-1] if v] == [
        fingerprint(e.voucher) for e in entries
    ]
    assert [e.server_number for e in entries] == list(range(1, len(entries) + 1))
    assert all(e.state is QueueState.FORMALISED for e in entries)


def test_vouchers_are_queued_with_local_references_and_kept(
    tmp_path: Path, desk_key: DbKey, queue: OfflineVoucherQueue
) -> None:
    made = [queue.enqueue(new_voucher(n)) for n in (1, 2, 3)]
    assert [m.local_ref for m in made] == ["desk1-P000001", "desk1-P000002", "desk1-P000003"]
    assert all(m.state is QueueState.QUEUED and m.server_number is None for m in made)
    assert "Secretina" not in repr(made[0]) and "HIDDEN" not in repr(made[0])
    queue.close()
    with OfflineVoucherQueue.open(
        tmp_path / "offline-vouchers.db", queue_key(desk_key), desk_id=DESK
    ) as again:
        assert again.pending() == made
        assert again.entry("desk1-P000002") == made[1]
        assert again.entry("2") is None


def test_a_repeated_instant_is_moved_on_so_each_voucher_is_told_apart(
    queue: OfflineVoucherQueue,
) -> None:
    first = queue.enqueue(new_voucher(1, T0))
    second = queue.enqueue(new_voucher(2, T0))  # the same clock reading
    third = queue.enqueue(new_voucher(3, T0 - timedelta(seconds=5)))  # the clock went back
    assert first.voucher.issued_at == T0
    assert second.voucher.issued_at == T0 + timedelta(microseconds=1)
    assert third.voucher.issued_at == T0 + timedelta(microseconds=2)


def test_formalise_issues_in_order_once_and_a_rerun_does_nothing(
    queue: OfflineVoucherQueue, server: SqlCipherStore
) -> None:
    book = StoreVoucherBook(server)
    for n in range(1, 6):
        queue.enqueue(new_voucher(n))
    report = formalise(queue, book, FixedClock(T0 + timedelta(hours=1)))
    assert report.complete and report.already_formalised == ()
    assert report.formalised == tuple((f"desk1-P{n:06d}", n) for n in range(1, 6))
    check_book(book, queue)
    assert queue.entry("desk1-P000004").server_number == 4  # type: ignore[union-attr]
    again = formalise(queue, book, FixedClock(T0 + timedelta(hours=2)))
    assert again.complete and again.formalised == () and again.already_formalised == ()
    check_book(book, queue)
    assert queue.pending() == []


def test_answer_lost_after_the_server_committed_is_found_not_issued_again(
    queue: OfflineVoucherQueue, server: SqlCipherStore
) -> None:
    book = StoreVoucherBook(server)
    for n in range(1, 6):
        queue.enqueue(new_voucher(n))
    report = formalise(queue, LinkLost(book, 3, after_commit=True), FixedClock(T0))
    assert report.formalised == (("desk1-P000001", 1), ("desk1-P000002", 2))
    assert report.failed == (("desk1-P000003", PgStoreCode.BUSY),)
    assert report.waiting == ("desk1-P000004", "desk1-P000005")  # order kept
    assert queue.entry("desk1-P000003").state is QueueState.SENDING  # type: ignore[union-attr]
    assert book.voucher(3) is not None and book.voucher(4) is None  # the server has it
    rerun = formalise(queue, book, FixedClock(T0))
    assert rerun.already_formalised == (("desk1-P000003", 3),)
    assert rerun.formalised == (("desk1-P000004", 4), ("desk1-P000005", 5))
    check_book(book, queue)


def test_link_lost_before_the_server_committed_issues_it_on_the_rerun(
    queue: OfflineVoucherQueue, server: SqlCipherStore
) -> None:
    book = StoreVoucherBook(server)
    for n in range(1, 4):
        queue.enqueue(new_voucher(n))
    report = formalise(queue, LinkLost(book, 2, after_commit=False), FixedClock(T0))
    assert report.failed == (("desk1-P000002", PgStoreCode.BUSY),)
    assert book.voucher(2) is None
    rerun = formalise(queue, book, FixedClock(T0))
    assert rerun.formalised == (("desk1-P000002", 2), ("desk1-P000003", 3))
    assert rerun.already_formalised == ()
    check_book(book, queue)


def test_a_send_committed_after_the_lookup_is_cancelled_as_a_duplicate(
    queue: OfflineVoucherQueue, server: SqlCipherStore
) -> None:
    book = StoreVoucherBook(server)
    for n in (1, 2, 3):
        queue.enqueue(new_voucher(n))
    formalise(queue, LinkLost(book, 2, after_commit=True), FixedClock(T0))
    rerun = formalise(queue, SeenLate(book, {2}), FixedClock(T0))
    assert rerun.already_formalised == (("desk1-P000002", 2),)  # the first copy kept
    assert rerun.duplicates_cancelled == (3,)
    assert rerun.formalised == (("desk1-P000003", 4),)
    copy = book.voucher(3)
    assert copy is not None and copy.status.value == "CANCELLED"
    assert "Duplicado del volante nº 2" in copy.close_reason
    assert [e.server_number for e in all_entries(queue)] == [1, 2, 4]
    assert [v.number for v in book.open_vouchers()] == [1, 2, 4]


def test_online_vouchers_between_do_not_confuse_the_lookup(
    queue: OfflineVoucherQueue, server: SqlCipherStore
) -> None:
    book = StoreVoucherBook(server)
    book.issue_voucher(new_voucher(100, desk="desk2"))  # another desk's voucher
    for n in (1, 2):
        queue.enqueue(new_voucher(n))
    formalise(queue, LinkLost(book, 1, after_commit=True), FixedClock(T0))
    book.issue_voucher(new_voucher(1, T0 + timedelta(seconds=1), desk="desk2"))  # lookalike
    rerun = formalise(queue, book, FixedClock(T0))
    assert rerun.already_formalised == (("desk1-P000001", 2),)
    assert rerun.formalised == (("desk1-P000002", 4),)
    numbers = [v.number for v in book.open_vouchers()]
    assert numbers == [1, 2, 3, 4]


def test_the_queue_file_is_encrypted(tmp_path: Path, queue: OfflineVoucherQueue) -> None:
    for n in range(1, 20):
        queue.enqueue(new_voucher(n))
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("offline-vouchers.db*"))
    assert not raw.startswith(b"SQLite format 3")
    for needle in (b"Secretina", b"HIDDEN", b"op-7", b"desk1-P", b"offline_vouchers"):
        assert needle not in raw
    queue.close()
    raw = (tmp_path / "offline-vouchers.db").read_bytes()
    assert b"Secretina" not in raw and b"HIDDEN" not in raw


def test_a_wrong_key_is_refused_and_the_file_left_untouched(
    tmp_path: Path, desk_key: DbKey, queue: OfflineVoucherQueue
) -> None:
    queue.enqueue(new_voucher(1))
    queue.close()
    path = tmp_path / "offline-vouchers.db"
    before = hashlib.sha256(path.read_bytes()).digest()
    for wrong in (DbKey.generate(), desk_key, DbKey.from_passphrase("guess")):
        with pytest.raises(WrongKeyError):  # the desk key itself is not the queue's key
            OfflineVoucherQueue.open(path, wrong, desk_id=DESK)
    assert hashlib.sha256(path.read_bytes()).digest() == before
    with OfflineVoucherQueue.open(path, queue_key(desk_key), desk_id=DESK) as again:
        assert len(again.pending()) == 1


def test_the_queue_key_is_derived_and_a_passphrase_kept(desk_key: DbKey) -> None:
    derived = queue_key(desk_key)
    assert derived.is_raw and derived.hex() != desk_key.hex()
    assert queue_key(desk_key).hex() == derived.hex()  # stable across starts
    phrase = DbKey.from_passphrase("a long operator phrase")
    assert queue_key(phrase) is phrase  # stretched with the queue file's own salt


def test_another_desk_another_process_and_another_desks_voucher_are_refused(
    tmp_path: Path, desk_key: DbKey, queue: OfflineVoucherQueue
) -> None:
    path, key = tmp_path / "offline-vouchers.db", queue_key(desk_key)
    with pytest.raises(StoreError) as err:
        OfflineVoucherQueue.open(path, key, desk_id="desk2")
    assert err.value.code is OfflineQueueCode.OFFLINE_QUEUE_IN_USE  # held by `queue`
    with pytest.raises(StoreError) as err:
        queue.enqueue(new_voucher(1, desk="desk2"))
    assert err.value.code is OfflineQueueCode.OFFLINE_QUEUE_WRONG_VOUCHER_DESK
    queue.close()
    with pytest.raises(StoreError) as err:
        OfflineVoucherQueue.open(path, key, desk_id="desk2")
    assert err.value.code is OfflineQueueCode.OFFLINE_QUEUE_OTHER_DESK
    with pytest.raises(StoreError) as err:
        OfflineVoucherQueue.open(tmp_path / "none.db", key, desk_id=DESK)
    assert err.value.code is StoreErrorCode.NO_FILE
    with pytest.raises(StoreError) as err:
        OfflineVoucherQueue.open(tmp_path / "x.db", key, desk_id="", create=True)
    assert err.value.code is OfflineQueueCode.OFFLINE_QUEUE_BAD_DESK


def test_the_purge_erases_formalised_vouchers_only(
    queue: OfflineVoucherQueue, server: SqlCipherStore
) -> None:
    for n in (1, 2, 3):
        queue.enqueue(new_voucher(n))
    formalise(queue, LinkLost(StoreVoucherBook(server), 3, after_commit=False), FixedClock(T0))
    assert queue.purge_formalised(T0 + timedelta(days=200)) == 2
    assert [e.local_ref for e in all_entries(queue)] == ["desk1-P000003"]
    assert queue.enqueue(new_voucher(4)).local_ref == "desk1-P000004"  # never reused


# -- killed processes ------------------------------------------------------------------------


def spawn(mode: str, folder: Path, key: DbKey, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, ENV_VAR: key.hex(), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.db.test_offline_queue", mode, str(folder), str(count)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )


def kill_after(child: subprocess.Popen[str], lines: int, rng: random.Random) -> list[str]:
    """Read ``lines`` acknowledgements (after ``ready``), wait a little, SIGKILL."""
    assert child.stdout is not None
    seen: list[str] = []
    assert child.stdout.readline().strip() == "ready"
    while len(seen) < lines:
        line = child.stdout.readline()
        if not line:
            break
        seen.append(line.strip())
    time.sleep(rng.random() * 0.02)
    child.send_signal(signal.SIGKILL)
    rest, _ = child.communicate()
    return seen + rest.split()


def kill_held(child: subprocess.Popen[str]) -> None:
    """SIGKILL once the child says it is held (see :class:`HeldBook`)."""
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    for line in child.stdout:  # ends when the child does (it never held: the test fails)
        if line.strip() == "held":
            break
    child.send_signal(signal.SIGKILL)
    child.communicate()


class HeldBook(StoreVoucherBook):
    """The book that stops a child at its ``hold``-th issue: after the commit (hold > 0)
    or before the server is asked (hold < 0); it says "held" and waits to be killed."""

    def __init__(self, store: SqlCipherStore, hold: int) -> None:
        super().__init__(store)
        self._hold = hold
        self._issued = 0

    def issue_voucher(self, new: NewVoucher) -> Voucher:
        self._issued += 1
        if self._issued == -self._hold:
            self._stop()
        issued = super().issue_voucher(new)
        if self._issued == self._hold:
            self._stop()
        return issued

    @staticmethod
    def _stop() -> None:
        print("held", flush=True)
        time.sleep(60)  # killed here


def test_a_process_killed_while_queueing_leaves_the_queue_readable(
    tmp_path: Path, desk_key: DbKey
) -> None:
    rng = random.Random(20261204)
    path, key = tmp_path / "offline-vouchers.db", queue_key(desk_key)
    OfflineVoucherQueue.open(path, key, desk_id=DESK, create=True).close()
    acknowledged: list[str] = []
    for _ in range(4):
        acknowledged += kill_after(spawn("enqueue", tmp_path, desk_key, 10_000), 5, rng)
        with OfflineVoucherQueue.open(path, key, desk_id=DESK) as q:
            refs = [e.local_ref for e in all_entries(q)]
            assert refs == [f"desk1-P{n:06d}" for n in range(1, len(refs) + 1)]
            assert set(acknowledged) <= set(refs)  # nothing acknowledged was lost
            assert len(refs) <= len(acknowledged) + 1  # at most the unacknowledged one
            acknowledged = refs
            assert q._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_process_killed_while_formalising_is_finished_by_a_rerun(
    tmp_path: Path, desk_key: DbKey
) -> None:
    """Killed at random, then once held just after the server's commit and before the
    queue's record of it (the case the lookup exists for), and once held after the
    entry is marked as being sent but before the server is asked."""
    rng = random.Random(5806)
    path, key = tmp_path / "offline-vouchers.db", queue_key(desk_key)
    with OfflineVoucherQueue.open(path, key, desk_id=DESK, create=True) as q:
        for n in range(1, 301):
            q.enqueue(new_voucher(n))
    SqlCipherStore.open(tmp_path / "visitors.db", desk_key).close()
    windows: set[str] = set()
    for hold in (0, 0, 0, rng.randint(1, 3), -rng.randint(1, 3)):  # 0: a kill at random
        child = spawn("formalise", tmp_path, desk_key, hold)
        if hold:
            kill_held(child)
        else:
            kill_after(child, rng.randint(1, 5), rng)
        with (
            OfflineVoucherQueue.open(path, key, desk_id=DESK) as q,
            SqlCipherStore.open(tmp_path / "visitors.db", desk_key) as store,
        ):
            sent = [e for e in q.pending() if e.state is QueueState.SENDING]
            on_server = {fingerprint(v) for v in StoreVoucherBook(store).open_vouchers()}
            for entry in sent:  # at most one: sent one at a time
                windows.add("committed" if fingerprint(entry.voucher) in on_server else "not")
    assert windows == {"committed", "not"}
    with (
        OfflineVoucherQueue.open(path, key, desk_id=DESK) as q,
        SqlCipherStore.open(tmp_path / "visitors.db", desk_key) as store,
    ):
        book = StoreVoucherBook(store)
        done_before = len(all_entries(q)) - len(q.pending())
        assert done_before >= 2  # the children did formalise some
        report = formalise(q, book, FixedClock(T0))
        assert report.complete and report.duplicates_cancelled == ()
        assert len(report.formalised) + len(report.already_formalised) == 300 - done_before
        check_book(book, q)


def _child(mode: str, folder: Path, count: int) -> None:
    desk_key = key_from_env()
    assert desk_key is not None
    path = folder / "offline-vouchers.db"
    with OfflineVoucherQueue.open(path, queue_key(desk_key), desk_id=DESK) as q:
        if mode == "enqueue":
            print("ready", flush=True)
            start = len(all_entries(q))
            for n in range(start + 1, start + count):
                made = q.enqueue(new_voucher(n))
                print(made.local_ref, flush=True)  # committed: acknowledged
            return
        with SqlCipherStore.open(folder / "visitors.db", desk_key) as store:
            print("ready", flush=True)
            formalise(
                q,
                HeldBook(store, count) if count else StoreVoucherBook(store),
                FixedClock(T0),
                on_progress=lambda e: print(e.local_ref, flush=True),
            )


if __name__ == "__main__":
    _child(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]))

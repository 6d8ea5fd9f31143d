"""Provisional vouchers (art. 23.4) a desk of the shared server (arts. 154-155) gives
while it cannot reach the server, kept in its encrypted queue (db/offline_queue.py) and
formalised on the server's voucher book once it answers again: each exactly once, in
the desk's order, the one voucher sequence of every desk still gapless, even when the
answer of a commit is lost, the formalising process is killed, or two desks formalise
while a third issues vouchers online.

Run as ``python -m tests.pg.test_offline_queue_pg FOLDER CONNINFO AUDIT_HEX`` it is the
formalising desk process the kill test SIGKILLs (the desk's key in ADMISSION_DB_KEY)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from admission.clock import FixedClock
from admission.errors import StoreError
from admission.vouchers.model import NewVoucher, Voucher
from admission.vouchers.offline import QueueState
from db.audit_key import AuditKey
from db.keys import ENV_VAR, DbKey, key_from_env
from db.offline_queue import OfflineVoucherQueue, formalise, queue_key
from db.pg.latency import PgLinkCode
from db.pg.store import PgLinkError, PgStore, PgTimeouts
from db.voucher_book import StoreVoucherBook
from tests.db.test_offline_queue import all_entries
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo
from tests.pg.test_tcp_proxy import load_proxy, through

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 12, 5, 23, 0, tzinfo=UTC)
QUICK = replace(PgTimeouts(), connect_s=2, pool_wait_s=2.0, transaction_s=10.0)


def new_voucher(n: int, desk: str, at: datetime | None = None) -> NewVoucher:
    return NewVoucher(
        issued_at=at or T0 + timedelta(seconds=n),
        desk_id=desk,
        operator="op-3",
        holder_name=f"Clandestina Reservada {n}",
        document_type="PASSPORT",
        document_number=f"SECRETDOC{n:05d}",
        card_type="DAY",
        price_cents=1000,
    )


class Server:
    """One schema of the cluster shared by desk1 and desk2 (one desk key, as at a casino)."""

    def __init__(self, cluster: Any, folder: Path) -> None:
        self.cluster = cluster
        self.folder = folder
        self.schema = fresh_schema(cluster, others=("desk2",))
        self.key = DbKey.generate("test")
        self.audit = AuditKey.generate("test")
        self.stores: list[PgStore] = []
        self.queues: list[OfflineVoucherQueue] = []

    def conninfo(self, desk: str = "desk1") -> str:
        return schema_conninfo(self.cluster, self.schema, desk)

    def desk(self, desk: str = "desk1", conninfo: str | None = None) -> PgStore:
        store = PgStore.open(
            conninfo or self.conninfo(desk),
            self.key,
            audit_key=self.audit,
            create=True,
            clock=FixedClock(T0),
            timeouts=QUICK,
        )
        self.stores.append(store)
        return store

    def queue(self, desk: str = "desk1") -> OfflineVoucherQueue:
        path = self.folder / f"{desk}-offline-vouchers.db"
        made = OfflineVoucherQueue.open(path, queue_key(self.key), desk_id=desk, create=True)
        self.queues.append(made)
        return made

    def rows(self, statement: str) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.cluster.superuser_conninfo(), autocommit=True) as conn:
            conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(self.schema)))
            return conn.execute(statement.encode()).fetchall()


@pytest.fixture
def server(pg_cluster: Any, tmp_path: Path) -> Iterator[Server]:
    made = Server(pg_cluster, tmp_path)
    try:
        yield made
    finally:
        for queue in made.queues:
            queue.close()
        for store in made.stores:
            store.close()


class AnswerLost:
    """The server's book behind a link whose answer is lost on the ``nth`` issue: the
    server committed, the desk is told the outcome is unknown (as db/pg/store.py says)."""

    def __init__(self, book: StoreVoucherBook, nth: int) -> None:
        self.book, self.nth, self.calls = book, nth, 0

    def issue_voucher(self, new: NewVoucher) -> Voucher:
        self.calls += 1
        made = self.book.issue_voucher(new)
        if self.calls == self.nth:
            raise PgLinkError("lost", code=PgLinkCode.CONNECTION_LOST, outcome_unknown=True)
        return made

    def voucher(self, number: int) -> Voucher | None:
        return self.book.voucher(number)

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]:
        return self.book.open_vouchers(issued_before)

    def last_voucher_number(self) -> int:
        return self.book.last_voucher_number()

    def cancel_voucher(self, number: int, reason: str, at: datetime) -> Voucher:
        return self.book.cancel_voucher(number, reason, at)


def check_server(server: Server, queues: Sequence[OfflineVoucherQueue], total: int) -> None:
    """Gapless numbers 1..total, each queued voucher on the server once under the number
    its queue holds, each queue's vouchers numbered in its own order."""
    numbers = [int(r[0]) for r in server.rows("SELECT number FROM vouchers ORDER BY number")]
    assert numbers == list(range(1, total + 1))
    assert server.rows("SELECT next - 1 FROM counters WHERE name = 'voucher'") == [(total,)]
    twice = server.rows("SELECT desk_id, issued_at FROM vouchers GROUP BY 1, 2 HAVING count(*) > 1")
    assert twice == []  # no voucher issued twice
    book = StoreVoucherBook(server.desk("desk2"))  # another desk reads them back
    for queue in queues:
        entries = all_entries(queue)
        assert all(e.state is QueueState.FORMALISED for e in entries)
        held = [e.server_number or 0 for e in entries]
        assert held == sorted(held)
        for entry in entries:
            assert entry.server_number is not None
            found = book.voucher(entry.server_number)
            assert found is not None
            assert (found.desk_id, found.issued_at, found.holder_name) == (
                entry.voucher.desk_id,
                entry.voucher.issued_at,
                entry.voucher.holder_name,
            )


def test_a_desk_cut_off_queues_vouchers_and_formalises_them_when_back(
    server: Server,
) -> None:
    with load_proxy().TcpProxy(server.cluster.hostaddr, server.cluster.port) as proxy:
        desk = server.desk("desk1", through(server.conninfo(), server.cluster.port, proxy.port))
        other = StoreVoucherBook(server.desk("desk2"))
        book, queue = StoreVoucherBook(desk), server.queue("desk1")
        assert book.issue_voucher(new_voucher(1, "desk1")).number == 1  # online
        proxy.pause(refuse=True)
        proxy.cut()
        for n in (2, 3, 4):  # the server cannot be reached: art. 23.4 voucher, queued
            with pytest.raises(StoreError):
                book.issue_voucher(new_voucher(n, "desk1"))
            queue.enqueue(new_voucher(n, "desk1"))
        assert other.issue_voucher(new_voucher(50, "desk2")).number == 2  # desk2 goes on
        proxy.resume()
        report = formalise(queue, book, FixedClock(T0 + timedelta(hours=1)))
    assert report.complete
    assert report.formalised == (("desk1-P000001", 3), ("desk1-P000002", 4), ("desk1-P000003", 5))
    check_server(server, [queue], 5)
    opened = other.voucher(4)  # another desk reads the formalised voucher
    assert opened is not None and opened.holder_name == "Clandestina Reservada 3"
    clear = "\n".join(r[0] for r in server.rows("SELECT t::text FROM vouchers AS t"))
    assert "Clandestina" not in clear and "SECRETDOC" not in clear  # sealed by the desk


def test_an_answer_lost_after_the_commit_is_found_not_issued_again(server: Server) -> None:
    book, other = StoreVoucherBook(server.desk("desk1")), StoreVoucherBook(server.desk("desk2"))
    queue = server.queue("desk1")
    for n in range(1, 6):
        queue.enqueue(new_voucher(n, "desk1"))
    report = formalise(queue, AnswerLost(book, 3), FixedClock(T0))
    assert report.formalised == (("desk1-P000001", 1), ("desk1-P000002", 2))
    assert report.failed == (("desk1-P000003", PgLinkCode.CONNECTION_LOST),)
    assert report.waiting == ("desk1-P000004", "desk1-P000005")
    for n in (60, 61):  # other desks go on meanwhile: numbers 4 and 5
        other.issue_voucher(new_voucher(n, "desk2"))
    # the lookalike of another desk at the same instant is not taken for ours
    other.issue_voucher(replace(new_voucher(3, "desk2"), issued_at=T0 + timedelta(seconds=3)))
    rerun = formalise(queue, book, FixedClock(T0))
    assert rerun.already_formalised == (("desk1-P000003", 3),)
    assert rerun.formalised == (("desk1-P000004", 7), ("desk1-P000005", 8))
    check_server(server, [queue], 8)
    assert formalise(queue, book, FixedClock(T0)).formalised == ()


def test_two_desks_formalise_while_a_third_issues_online(server: Server) -> None:
    stores = [server.desk("desk1"), server.desk("desk2"), server.desk("desk1")]
    queues = [server.queue("desk1"), server.queue("desk2")]
    per_queue = 25
    for q in queues:
        for n in range(1, per_queue + 1):
            q.enqueue(new_voucher(n, q.desk_id))
    start, errors = threading.Barrier(3), []

    def run(work: Any) -> None:
        try:
            start.wait()
            work()
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    def online() -> None:
        book = StoreVoucherBook(stores[2])
        for n in range(per_queue):
            book.issue_voucher(new_voucher(1000 + n, "desk3"))

    works = [
        lambda: formalise(queues[0], StoreVoucherBook(stores[0]), FixedClock(T0)),
        lambda: formalise(queues[1], StoreVoucherBook(stores[1]), FixedClock(T0)),
        online,
    ]
    threads = [threading.Thread(target=run, args=(w,)) for w in works]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    check_server(server, queues, 3 * per_queue)


def test_a_desk_killed_while_formalising_is_finished_by_the_next_run(server: Server) -> None:
    """Killed at random until at least once the kill fell between the server's commit
    and the queue's record of it; each next process finds that voucher, not issues it."""
    rng = random.Random(23_4)
    queue = server.queue("desk1")
    total = 150
    for n in range(1, total + 1):
        queue.enqueue(new_voucher(n, "desk1"))
    book = StoreVoucherBook(server.desk("desk1"))  # the visitor file exists before the children
    queue.close()
    server.queues.remove(queue)
    env = {**os.environ, ENV_VAR: server.key.hex(), "PYTHONPATH": str(ROOT)}
    windows: set[str] = set()
    # a few kills at random, then one held just after a server commit, before the
    # queue records it (the child stops there: the window is hit every run)
    for attempt in range(5):
        held = attempt == 4
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.pg.test_offline_queue_pg",
                str(server.folder),
                server.conninfo(),
                server.audit.hex(),
                str(rng.randint(1, 3)) if held else "0",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        if held:
            for line in child.stdout:  # ends with the child if it never held
                if line.strip() == "committed":
                    break
        else:
            for _ in range(rng.randint(1, 5)):
                child.stdout.readline()
            time.sleep(rng.random() * 0.01)
        child.send_signal(signal.SIGKILL)
        child.communicate()
        with OfflineVoucherQueue.open(
            server.folder / "desk1-offline-vouchers.db", queue_key(server.key), desk_id="desk1"
        ) as q:
            sent = [e for e in q.pending() if e.state is QueueState.SENDING]
        on_server = {(v.desk_id, v.issued_at) for v in book.open_vouchers()}
        for entry in sent:
            key = (entry.voucher.desk_id, entry.voucher.issued_at)
            windows.add("committed" if key in on_server else "not")
        if "committed" in windows:
            break
    assert "committed" in windows
    queue = server.queue("desk1")
    done_before = total - len(queue.pending())
    assert done_before >= 1
    report = formalise(queue, book, FixedClock(T0))
    assert report.complete and report.duplicates_cancelled == ()
    assert len(report.formalised) + len(report.already_formalised) == total - done_before
    check_server(server, [queue], total)


class _HeldBook(StoreVoucherBook):
    """The server's book that, after its ``hold``-th issue has committed, says so and
    stops before returning: the process is killed between the server's commit and the
    queue's record of it."""

    def __init__(self, store: PgStore, hold: int) -> None:
        super().__init__(store)
        self._left = hold

    def issue_voucher(self, new: NewVoucher) -> Voucher:
        issued = super().issue_voucher(new)
        self._left -= 1
        if self._left == 0:
            print("committed", flush=True)
            time.sleep(60)  # killed here
        return issued


def _child(folder: Path, conninfo: str, audit_hex: str, hold: int) -> None:
    key = key_from_env()
    assert key is not None
    path = folder / "desk1-offline-vouchers.db"
    with (
        OfflineVoucherQueue.open(path, queue_key(key), desk_id="desk1") as queue,
        PgStore.open(conninfo, key, audit_key=AuditKey.from_hex(audit_hex)) as store,
    ):
        print("ready", flush=True)
        formalise(
            queue,
            _HeldBook(store, hold) if hold else StoreVoucherBook(store),
            FixedClock(T0),
            on_progress=lambda e: print(e.local_ref, flush=True),
        )


if __name__ == "__main__":
    _child(Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]))

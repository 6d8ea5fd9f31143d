"""Faults on the real server (Decreto 58/2006, arts. 20, 22, 154-155): the server killed
and restarted under desks that are admitting, the network cut or frozen in the middle of
a transaction (tools/tcp_proxy.py), a commit whose answer never comes back.

What must hold after each: nothing half-written (a visit with its card and its audit
entry, or none of them), one gapless card sequence with no number twice (art. 22.1), a
chain that verifies (art. 20.4); the desk told at once with a code, never held forever;
an admission whose commit outcome is unknown never recorded twice, and found again by
its admission id.

These tests run on their own throwaway cluster (they kill it and change its settings),
never on the session's.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from admission.clock import FixedClock
from admission.errors import InvalidStateError, StoreError
from admission.records import RecordedAdmission
from db.audit_key import AuditKey
from db.pg.connect import PgConnectCode
from db.pg.crypto import InstallationKey
from db.pg.latency import PgLinkCode
from db.pg.store import PgAdmissionCode, PgLinkError, PgStore, PgTimeouts
from tests.db.factories import T0, entry, new_admission_id
from tests.pg import fault_child
from tests.pg.cluster_fixture import DESKS, fresh_schema, load_tool, schema_conninfo
from tests.pg.test_tcp_proxy import load_proxy, through

WATCHDOG_S = 1.5  # the store's bound on one transaction, in these tests
# Short bounds, so that every fault ends in a second or two (production: PgTimeouts()).
FAST = PgTimeouts(
    connect_s=2,
    keepalives_idle_s=1,
    keepalives_interval_s=1,
    keepalives_count=2,
    tcp_user_timeout_ms=3000,
    transaction_s=WATCHDOG_S,
    pool_wait_s=1.0,
    statement_ms=5000,
    idle_in_transaction_ms=1000,
    client_check_ms=500,
    server_keepalives_idle_s=1,
)
WAIT_S = 10.0  # the longest any condition below may take to come true


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A cluster of this module's own: killed, restarted and reconfigured here."""
    tool = load_tool()
    if tool.find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    own = tool.PgCluster(Path(tempfile.mkdtemp(prefix="admission-pg-faults-")), desks=DESKS)
    try:
        own.start()
        yield own
    finally:
        own.stop()


def pg_ctl(cluster: Any, *args: str) -> None:
    """``pg_ctl`` on the cluster's data folder, as the server's own user (the cluster's
    runner switches user when the tests run as root)."""
    command = [str(cluster.bin_dir / "pg_ctl"), "-D", str(cluster.data_dir), *args]
    cluster._run(command, "pg_ctl " + " ".join(args))


def kill_server(cluster: Any) -> None:
    """Every server process ends at once, nothing flushed on the way out (as a power
    cut of the server's processes: ``immediate`` mode, SIGQUIT to the postmaster)."""
    pg_ctl(cluster, "-m", "immediate", "-w", "stop")


def start_server(cluster: Any) -> None:
    """Start again on the same port: crash recovery replays the write-ahead log."""
    log = str(cluster.server_dir / "server.log")
    pg_ctl(cluster, "-l", log, "-w", "-t", "30", "start")


def superuser(cluster: Any, schema: str, statement: str, params: tuple[Any, ...] = ()) -> Any:
    with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(schema)))
        cur = conn.execute(statement.encode(), params)
        return cur.fetchall() if cur.description else None


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"not reached in {timeout} s: {what}"
        time.sleep(0.02)


@dataclass
class VisitorFile:
    """One casino's visitor file in a fresh schema of the module's cluster."""

    cluster: Any
    schema: str
    raw_key: bytes
    audit: AuditKey
    database_id: str

    def conninfo(self, desk: str = "desk1") -> str:
        return schema_conninfo(self.cluster, self.schema, desk)

    def open(
        self, conninfo: str | None = None, timeouts: PgTimeouts = FAST, **kwargs: Any
    ) -> PgStore:
        return PgStore.open(
            conninfo or self.conninfo(),
            InstallationKey(self.raw_key, "test"),
            audit_key=AuditKey.from_hex(self.audit.hex(), "test"),
            database_id=self.database_id,
            clock=FixedClock(T0),
            timeouts=timeouts,
            **kwargs,
        )

    def sql(self, statement: str, params: tuple[Any, ...] = ()) -> Any:
        return superuser(self.cluster, self.schema, statement, params)

    def sessions(self, desk: str = "desk1") -> list[tuple[int, str, str | None]]:
        """(pid, state, wait_event_type) of the desk's sessions on the server."""
        rows = self.sql(
            "SELECT pid, state, wait_event_type FROM pg_stat_activity WHERE usename = %s",
            (desk,),
        )
        return [(int(p), str(s), w) for p, s, w in rows]


@pytest.fixture
def visitor_file(cluster: Any) -> VisitorFile:
    schema = fresh_schema(cluster, others=("desk2",))
    raw, audit = os.urandom(32), AuditKey.generate("test")
    with PgStore.open(
        schema_conninfo(cluster, schema),
        InstallationKey(raw, "test"),
        audit_key=audit,
        create=True,
    ) as first:
        database_id = first.database_id
    return VisitorFile(cluster, schema, raw, audit, database_id)


def admit(store: PgStore, n: int) -> RecordedAdmission:
    """Visitor ``n`` admitted with a one-day card under a fresh admission id."""
    return store.record_admission(entry(n), admission_id=new_admission_id())


def check_whole(file: VisitorFile, expected_admissions: int) -> None:
    """Nothing half-written: every visit has its card, its admission id and its audit
    entry; the card numbers are 1..N with no gap and none twice (art. 22.1); the chain
    verifies (art. 20.4)."""
    visits = file.sql(
        "SELECT v.visit_id, c.number, a.admission_id FROM visits AS v "
        "LEFT JOIN cards AS c ON c.visit_id = v.visit_id "
        "LEFT JOIN admissions AS a ON a.visit_id = v.visit_id ORDER BY v.visit_id"
    )
    assert len(visits) == expected_admissions
    assert all(card is not None and key is not None for _v, card, key in visits)
    numbers = sorted(int(card) for _v, card, _k in visits)
    assert numbers == list(range(1, expected_admissions + 1))
    assert file.sql("SELECT count(*) FROM cards") == [(expected_admissions,)]
    assert file.sql("SELECT next - 1 FROM counters WHERE name = 'card'") == [(expected_admissions,)]
    entries = file.sql("SELECT details FROM audit WHERE action = 'VISIT'")
    audited = sorted(int(json.loads(d)["visit"]) for (d,) in entries)
    assert audited == [int(v) for v, _c, _k in visits]
    with file.open() as store:
        check = store.verify()
    assert check.ok, check
    assert check.entries == expected_admissions


HOLD_KEY = 0x6661756C74  # advisory lock key of the commit hold ("fault")


def install_commit_hold(file: VisitorFile) -> None:
    """A deferred constraint trigger on ``admissions``: at COMMIT, after every statement
    of the admission ran, it takes a shared advisory lock. While the test holds that
    lock exclusively, an admission stops inside its COMMIT - the instant at which a
    lost link leaves the desk not knowing whether it committed."""
    schema = sql.Identifier(file.schema)
    with psycopg.connect(file.cluster.superuser_conninfo(), autocommit=True) as conn:
        conn.execute(
            sql.SQL(
                "CREATE FUNCTION {}.hold_commit() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN PERFORM pg_advisory_xact_lock_shared({}); RETURN NULL; END $$"
            ).format(schema, sql.Literal(HOLD_KEY))
        )
        conn.execute(
            sql.SQL(
                "CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON {}.admissions "
                "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {}.hold_commit()"
            ).format(schema, schema)
        )


def hold_commits(file: VisitorFile) -> psycopg.Connection[Any]:
    """The test's session holding the lock every admission's COMMIT waits for (the
    commits go on when it is closed)."""
    conn = psycopg.connect(file.cluster.superuser_conninfo(), autocommit=True)
    conn.execute("SELECT pg_advisory_lock(%s)", (HOLD_KEY,))
    return conn


def committing(file: VisitorFile) -> list[int]:
    """The desks' sessions stopped inside their COMMIT by the hold."""
    rows = file.sql(
        "SELECT pid FROM pg_stat_activity WHERE usename IN ('desk1', 'desk2') "
        "AND wait_event = 'advisory'"
    )
    return [int(pid) for (pid,) in rows]


# -- 1. the server killed under two desk processes --------------------------------------
def _read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    lines = path.read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.endswith("}")]


def test_the_server_killed_and_restarted_under_two_desks(
    visitor_file: VisitorFile, tmp_path: Path
) -> None:
    """Two desk processes admit while the server is killed (immediate stop) - one of
    them inside its COMMIT - and, 1.5 s later, started again. Each desk is told (a lost
    link or an unreachable server), its pool replaces the dead connections, and it
    finishes its admissions; the admission whose commit outcome was unknown is asked
    after by its id, and recorded once."""
    count = 40
    install_commit_hold(visitor_file)
    logs = [tmp_path / f"desk{n}.jsonl" for n in (1, 2)]
    # down longer than the pool's wait (a desk is told, not held); no watchdog short
    # enough to fire on a slow but live admission of this busy machine
    bounds = {"connect_s": FAST.connect_s, "pool_wait_s": FAST.pool_wait_s, "transaction_s": 5.0}
    context = multiprocessing.get_context("spawn")
    start_at = time.time() + 3.0  # both desks open their stores first
    desks = [
        context.Process(
            target=fault_child.run_desk,
            args=(
                visitor_file.conninfo(DESKS[n - 1]),
                visitor_file.raw_key,
                visitor_file.audit.hex(),
                visitor_file.database_id,
                n,
                count,
                str(logs[n - 1]),
                bounds,
                start_at,
            ),
        )
        for n in (1, 2)
    ]
    for process in desks:
        process.start()
    try:
        wait_for(
            lambda: all(len(_read_log(log)) >= 5 for log in logs),
            "both desks admitting",
            timeout=30.0,
        )
        # the next admission stops inside its COMMIT (the other desk waits behind it on
        # the chain's head): the server is killed right then
        hold = hold_commits(visitor_file)
        wait_for(lambda: bool(committing(visitor_file)), "a desk committing", timeout=5.0)
        kill_server(visitor_file.cluster)
        with contextlib.suppress(psycopg.Error):
            hold.close()
        before = [len(_read_log(log)) for log in logs]
        time.sleep(1.5)  # down longer than the pool's wait: a desk is told, not held
        start_server(visitor_file.cluster)
        for process in desks:
            process.join(timeout=40.0)
            assert process.exitcode == 0
    finally:
        for process in desks:
            if process.is_alive():
                process.kill()
                process.join()

    done = [_read_log(log) for log in logs]
    assert [len(lines) for lines in done] == [count, count]
    assert all(b < count for b in before), "the kill came after a desk had finished"
    # every desk met the fault and got over it with a code, never a hang
    for lines in done:
        codes = {code for line in lines for code, _unknown in line["failures"]}
        assert codes, "a desk never noticed the server was killed"
        assert codes <= {
            PgLinkCode.CONNECTION_LOST.value,
            PgLinkCode.SERVER_TIMEOUT.value,
            PgConnectCode.UNREACHABLE.value,
        }, codes
        assert all(
            how in ("committed", "not committed") for ln in lines for how in ln["resolutions"]
        )
    records = [line for lines in done for line in lines]
    # the admission killed inside its COMMIT: the desk did not know, asked the server
    # by its id once it was back, learnt it was not recorded, and recorded it once
    unknown = [line for line in records if any(u for _c, u in line["failures"])]
    assert len(unknown) == 1, unknown
    assert unknown[0]["resolutions"] == ["not committed"]
    # what each desk was told is what the server holds, once each
    cards = sorted(line["card"] for line in records)
    assert cards == list(range(1, 2 * count + 1))
    held = {
        str(key): (int(visit), int(card))
        for key, visit, card in visitor_file.sql(
            "SELECT a.admission_id, a.visit_id, c.number FROM admissions AS a "
            "JOIN cards AS c ON c.visit_id = a.visit_id"
        )
    }
    assert held == {line["admission_id"]: (line["visit"], line["card"]) for line in records}
    check_whole(visitor_file, 2 * count)


# -- 2. a commit whose answer is lost: outcome unknown, resolved by the admission id ------
def test_a_commit_whose_answer_is_lost_is_found_by_its_id_and_never_taken_twice(
    visitor_file: VisitorFile,
) -> None:
    """The server commits but its answer never reaches the desk: here the commit waits
    for a synchronous standby that is not there (the transaction is committed locally
    and waits for the standby's acknowledgement), the store's watchdog gives up, and the
    desk is told PG_CONNECTION_LOST with an unknown outcome. Once the server finishes,
    the admission id finds the admission, and asking again with it returns the same
    card number instead of taking the next one."""
    cluster = visitor_file.cluster
    with visitor_file.open() as store:
        assert admit(store, 1).card_number == 1
        lost_id = new_admission_id()
        admission = entry(2)
        superuser(cluster, "public", "ALTER SYSTEM SET synchronous_standby_names = 'absent'")
        superuser(cluster, "public", "SELECT pg_reload_conf()")
        try:
            wait_for(
                lambda: superuser(cluster, "public", "SHOW synchronous_standby_names")
                == [("absent",)],
                "the setting reloaded",
            )
            started = time.monotonic()
            with pytest.raises(PgLinkError) as lost:
                store.record_admission(admission, admission_id=lost_id)
            assert time.monotonic() - started < WATCHDOG_S + 1.0
            assert lost.value.code is PgLinkCode.CONNECTION_LOST
            assert lost.value.outcome_unknown
        finally:
            superuser(cluster, "public", "ALTER SYSTEM RESET synchronous_standby_names")
            superuser(cluster, "public", "SELECT pg_reload_conf()")
        # the desk resolves it: the server says the admission was recorded...
        found = store.recorded_admission(lost_id)
        assert found is not None and found.card_number == 2
        # ...and asking again with the same id gives it back, no number taken
        again = store.record_admission(admission, admission_id=lost_id)
        assert again == found
        assert store.last_card_number() == 2
        # the id names this admission only: another person or time is refused
        with pytest.raises(InvalidStateError) as reused:
            store.record_admission(entry(3), admission_id=lost_id)
        assert reused.value.code is PgAdmissionCode.ADMISSION_ID_REUSED
        with pytest.raises(InvalidStateError):
            store.record_admission(
                replace(admission, at=T0.replace(minute=45)), admission_id=lost_id
            )
        assert store.recorded_admission(new_admission_id()) is None
        assert admit(store, 3).card_number == 3
    check_whole(visitor_file, 3)


# -- 3. the network cut or frozen in the middle of a transaction ---------------------------
@pytest.fixture
def proxy(cluster: Any) -> Iterator[Any]:
    with load_proxy().TcpProxy(cluster.hostaddr, cluster.port) as running:
        yield running


def proxied(file: VisitorFile, proxy: Any, desk: str = "desk1") -> str:
    return through(file.conninfo(desk), file.cluster.port, proxy.port)


class Call:
    """A store call on its own thread: its result or its error, and how long it took."""

    def __init__(self, call: Callable[[], RecordedAdmission]) -> None:
        self.result: RecordedAdmission | None = None
        self.error: BaseException | None = None
        self.seconds = 0.0
        self._call = call
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        started = time.monotonic()
        try:
            self.result = self._call()
        except BaseException as exc:  # handed to the test
            self.error = exc
        finally:
            self.seconds = time.monotonic() - started

    def join(self, timeout: float = WAIT_S) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the call hangs"


def _hold_at_last_statement(file: VisitorFile, conn: psycopg.Connection[Any]) -> None:
    """Lock ``audit_refs`` (the admission's last statement before COMMIT inserts there),
    so that a desk's admission blocks there with everything else written, uncommitted."""
    conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(file.schema)))
    conn.execute("BEGIN")
    conn.execute("LOCK TABLE audit_refs IN SHARE MODE")


def _hold_at_the_head(file: VisitorFile, conn: psycopg.Connection[Any]) -> None:
    """Hold the chain's head, so that a desk's admission blocks in its first round trip
    (BEGIN, the head's lock and its reads travel together), before any write is sent:
    its writes travel with its COMMIT (PgTx.fetch)."""
    conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(file.schema)))
    conn.execute("BEGIN")
    conn.execute("SELECT 1 FROM counters WHERE name = 'audit' FOR UPDATE")


def _blocked(file: VisitorFile, desk: str = "desk1") -> bool:
    return any(w == "Lock" for _p, _s, w in file.sessions(desk))


def test_a_cut_before_commit_writes_nothing_and_the_next_admission_takes_the_next_number(
    visitor_file: VisitorFile, proxy: Any
) -> None:
    """A desk behind the proxy: its admission waits for the chain's head when the link
    freezes; the server then takes the head and reads, and the link is cut (RST both
    ways). The server rolls the transaction back - no visit, no card, no number, no
    audit entry - the desk is told PG_CONNECTION_LOST (its writes, which travel with its
    COMMIT, were never sent: the outcome is known), and the next admission through the
    proxy takes the next number."""
    # the cut ends it, not the watchdog nor the server's idle-in-transaction timeout
    bounds = replace(FAST, transaction_s=WAIT_S, idle_in_transaction_ms=int(WAIT_S * 1000))
    with visitor_file.open(proxied(visitor_file, proxy), timeouts=bounds) as store:
        assert admit(store, 1).card_number == 1
        admission, key = entry(2), new_admission_id()
        with psycopg.connect(visitor_file.cluster.superuser_conninfo(), autocommit=True) as lock:
            _hold_at_the_head(visitor_file, lock)
            call = Call(lambda: store.record_admission(admission, admission_id=key))
            wait_for(lambda: _blocked(visitor_file), "the admission at the head")
            proxy.freeze()
            lock.execute("ROLLBACK")  # the head is taken; the answers are held
        wait_for(
            lambda: any(s == "idle in transaction" for _p, s, _w in visitor_file.sessions()),
            "the server waiting for the desk's COMMIT",
        )
        held = {p for p, s, _w in visitor_file.sessions() if s == "idle in transaction"}
        assert visitor_file.sql("SELECT next - 1 FROM counters WHERE name = 'card'") == [(1,)]
        assert proxy.cut() >= 1
        proxy.thaw()  # new connections carry again
        call.join()
        assert isinstance(call.error, PgLinkError), call.error
        assert call.error.code is PgLinkCode.CONNECTION_LOST
        assert not call.error.outcome_unknown
        wait_for(
            lambda: not held & {p for p, _s, _w in visitor_file.sessions()},
            "the server ended the desk's session",
        )
        check_whole(visitor_file, 1)  # rolled back: nothing of the second admission
        assert store.recorded_admission(key) is None
        # the pool replaced the dead connection: the same admission, the next number
        again = store.record_admission(admission, admission_id=key)
        assert again.card_number == 2
    check_whole(visitor_file, 2)


def test_a_cut_while_committing_is_an_unknown_outcome_resolved_by_the_admission_id(
    visitor_file: VisitorFile, proxy: Any
) -> None:
    """The link is cut while the desk's COMMIT is on the server, unfinished: the desk
    cannot know the outcome and is told so (PG_CONNECTION_LOST, outcome unknown). The
    server notices its client gone, rolls back; asked by the admission id, it says
    nothing was recorded, and asking again with that id records the admission once,
    with the next number."""
    install_commit_hold(visitor_file)
    bounds = replace(FAST, transaction_s=WAIT_S)  # the cut ends it, not the watchdog
    with visitor_file.open(proxied(visitor_file, proxy), timeouts=bounds) as store:
        assert admit(store, 1).card_number == 1
        admission, key = entry(2), new_admission_id()
        hold = hold_commits(visitor_file)
        try:
            call = Call(lambda: store.record_admission(admission, admission_id=key))
            wait_for(lambda: bool(committing(visitor_file)), "the admission committing")
            stopped = set(committing(visitor_file))
            assert proxy.cut() >= 1
            call.join()
            assert isinstance(call.error, PgLinkError), call.error
            assert call.error.code is PgLinkCode.CONNECTION_LOST
            assert call.error.outcome_unknown
            # the server checks its client while the commit waits, and ends the session
            wait_for(
                lambda: not stopped & {p for p, _s, _w in visitor_file.sessions()},
                "the server ended the session of the lost commit",
            )
        finally:
            hold.close()
        assert store.recorded_admission(key) is None
        check_whole(visitor_file, 1)
        again = store.record_admission(admission, admission_id=key)
        assert again.card_number == 2
        assert store.record_admission(admission, admission_id=key) == again
    check_whole(visitor_file, 2)


def test_a_frozen_link_fails_the_call_in_bounded_time_and_frees_the_other_desks(
    visitor_file: VisitorFile, proxy: Any
) -> None:
    """The link goes silent (frozen: open, carrying nothing) in the middle of desk 1's
    admission, the server past the head's lock and the reads that came with it (their
    answers held by the link). Its watchdog fails the call (PG_SERVER_TIMEOUT, nothing
    written); the server ends the session left idle inside its transaction (its round
    trip ended with a Sync, which arms that timeout), so desk 2, which waited on the
    chain's head behind it, admits with the next number. A call made on the
    frozen link is told within the bounds too (the pool's check, then no connection)."""
    with (
        visitor_file.open(proxied(visitor_file, proxy)) as frozen_desk,
        visitor_file.open(  # its own watchdog out of the way: the server frees it
            visitor_file.conninfo("desk2"), timeouts=replace(FAST, transaction_s=WAIT_S)
        ) as other_desk,
    ):
        assert admit(frozen_desk, 1).card_number == 1
        with psycopg.connect(visitor_file.cluster.superuser_conninfo(), autocommit=True) as lock:
            _hold_at_the_head(visitor_file, lock)
            call = Call(lambda: admit(frozen_desk, 2))
            wait_for(lambda: _blocked(visitor_file), "the admission at the head")
            proxy.freeze()
            lock.execute("ROLLBACK")
        other = Call(lambda: admit(other_desk, 3))
        call.join()
        assert isinstance(call.error, PgLinkError), call.error
        assert call.error.code is PgLinkCode.SERVER_TIMEOUT
        assert not call.error.outcome_unknown
        assert call.seconds < WATCHDOG_S + 1.0
        other.join()
        assert other.error is None, other.error
        assert other.result is not None and other.result.card_number == 2
        # held behind the frozen session at most until the server ended it
        assert other.seconds < FAST.idle_in_transaction_ms / 1000 + 1.5
        # a new call on the frozen link: told within the check's and the pool's bounds
        started = time.monotonic()
        with pytest.raises(StoreError) as told:
            admit(frozen_desk, 4)
        # the pool's connection died with the watchdog and its replacement cannot be
        # made: no connection within the pool's wait (a frozen idle connection would
        # fail its check under the watchdog, and end the same way)
        assert time.monotonic() - started < WATCHDOG_S + FAST.pool_wait_s + 0.5
        assert told.value.code is PgConnectCode.UNREACHABLE
        proxy.thaw()
        assert admit(frozen_desk, 4).card_number == 3
        # the link goes silent between two calls: the pooled connection has nothing to
        # read, so it is not asked (a round trip per call over a WAN); the call's first
        # round trip meets the silence and the watchdog ends it, nothing written
        proxy.freeze()
        started = time.monotonic()
        with pytest.raises(PgLinkError) as lost:
            admit(frozen_desk, 5)
        assert time.monotonic() - started < WATCHDOG_S + 0.5
        assert lost.value.code is PgLinkCode.SERVER_TIMEOUT
        assert not lost.value.outcome_unknown
        proxy.thaw()
        assert admit(frozen_desk, 5).card_number == 4
    check_whole(visitor_file, 4)


# -- 4. the server's own bounds -----------------------------------------------------------
def test_a_statement_held_past_the_servers_timeout_is_rolled_back_and_told(
    visitor_file: VisitorFile,
) -> None:
    """A desk's statement waits on a lock longer than its ``statement_timeout``: the
    server cancels it and rolls the transaction back (PG_SERVER_TIMEOUT, a live
    connection: no unknown outcome), and the next admission takes the next number."""
    bounds = replace(FAST, statement_ms=500, transaction_s=WAIT_S)
    with visitor_file.open(timeouts=bounds) as store:
        assert admit(store, 1).card_number == 1
        with psycopg.connect(visitor_file.cluster.superuser_conninfo(), autocommit=True) as lock:
            _hold_at_last_statement(visitor_file, lock)
            started = time.monotonic()
            with pytest.raises(StoreError) as told:
                admit(store, 2)
            assert 0.5 <= time.monotonic() - started < 2.0
            assert told.value.code is PgLinkCode.SERVER_TIMEOUT
            assert not isinstance(told.value, PgLinkError)
            lock.execute("ROLLBACK")
        check_whole(visitor_file, 1)
        assert admit(store, 2).card_number == 2
    check_whole(visitor_file, 2)


def test_an_admission_id_goes_with_its_visit_when_retention_erases_it(
    visitor_file: VisitorFile,
) -> None:
    """Six months on (art. 20.4) the visit is erased, and the id that named it with it;
    the chain still verifies."""
    with visitor_file.open() as store:
        key = new_admission_id()
        store.record_admission(entry(1), admission_id=key)
        assert store.recorded_admission(key) is not None
        report = store.purge(T0 + timedelta(days=200))
        assert report.visits == 1
        assert store.recorded_admission(key) is None
        assert visitor_file.sql("SELECT count(*) FROM admissions") == [(0,)]
        check = store.verify()
        assert check.ok, check

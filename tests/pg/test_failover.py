"""The server is not the single point of failure (Decreto 58/2006, arts. 20, 22, 154-155):
a primary and a synchronous streaming standby (tools/pg_replication.py), four desk
processes admitting on both through one multi-host conninfo (tests/pg/failover_child.py),
the primary killed (``pg_ctl stop -m immediate``) in the middle and the standby promoted.

Afterwards, on the new primary: every admission a desk reported done is in the file, by
its admission id, with the card number the desk was told; the card numbers are 1..N with
none twice (art. 22.1); nobody holds two valid cards (art. 22); nothing is half-written;
the audit chain verifies end to end across the failover (art. 20.4). The kill comes at
each point of one admission's transaction in turn, and once with the old primary back as
it was, read-write on the old timeline: desks that saw the promotion never write to it.

The pair is this module's own (PostgreSQL 15 docs, section 27.2: ``pg_basebackup -R``,
``synchronous_standby_names``): each test leaves a primary, and the next one makes it a
new standby.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from admission.clock import FixedClock
from db.audit_key import AuditKey
from db.pg.crypto import InstallationKey
from db.pg.store import PgStore, PgTimeouts
from tests.factories import SATURDAY_NIGHT
from tests.pg import failover_child
from tests.pg.cluster_fixture import load_replication, load_tool

DESKS = ("desk1", "desk2", "desk3", "desk4")
# the desks' bounds: a failover ends in a second or two, a paused desk is not timed out
CHILD_TIMEOUTS: dict[str, Any] = {
    "connect_s": 2,
    "keepalives_idle_s": 1,
    "keepalives_interval_s": 1,
    "keepalives_count": 2,
    "tcp_user_timeout_ms": 3000,
    "transaction_s": 10.0,
    "pool_wait_s": 3.0,
}
PAUSED_AT = 3  # desk 1 stops in its fourth admission
AFTER = 3  # admissions each desk reports after the release before the run ends
WAIT_S = 60.0  # the longest a desk process may take to start, stop or go on


@pytest.fixture(scope="module")
def pair() -> Iterator[Any]:
    tool = load_replication()
    if load_tool().find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    own = tool.PgReplication(Path(tempfile.mkdtemp(prefix="admission-pg-failover-")), desks=DESKS)
    try:
        own.start()
        yield own
    finally:
        own.stop()


@pytest.fixture
def synced(pair: Any) -> Any:
    """The pair with a synchronous standby (the test before may have promoted it)."""
    if pair.standby is None:
        pair.new_standby()
    assert pair.replication_state() == [(pair.standby.name, "streaming", "sync")]
    return pair


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"not reached in {timeout} s: {what}"
        time.sleep(0.01)


@dataclass
class FailoverFile:
    """A visitor file in a fresh schema of the pair, the four desks' conninfos on both
    servers."""

    pair: Any
    schema: str
    raw_key: bytes
    audit: AuditKey
    database_id: str = ""

    def conninfo(self, desk: str = "desk1") -> str:
        options = f"-c search_path={self.schema}"
        return str(make_conninfo(self.pair.desk_conninfo(desk), options=options))

    def open(self) -> PgStore:
        return PgStore.open(
            self.conninfo(),
            InstallationKey(self.raw_key, "test"),
            audit_key=AuditKey.from_hex(self.audit.hex(), "test"),
            database_id=self.database_id or None,
            create=not self.database_id,
            clock=FixedClock(SATURDAY_NIGHT),
            timeouts=PgTimeouts(**CHILD_TIMEOUTS),
        )

    def sql(self, statement: str, node: Any = None) -> list[Any]:
        target = node or self.pair.primary
        with psycopg.connect(self.pair.superuser_conninfo(target), autocommit=True) as conn:
            conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(self.schema)))
            return conn.execute(statement.encode()).fetchall()


def new_file(pair: Any) -> FailoverFile:
    """A new schema on the primary, owned by desk1, the other desks allowed in it."""
    schema = f"f_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pair.superuser_conninfo(pair.primary), autocommit=True) as conn:
        name, owner = sql.Identifier(schema), sql.Identifier(DESKS[0])
        conn.execute(sql.SQL("CREATE SCHEMA {} AUTHORIZATION {}").format(name, owner))
        for desk in DESKS[1:]:
            other = sql.Identifier(desk)
            conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(name, other))
            for kind in ("TABLES", "SEQUENCES"):
                conn.execute(
                    sql.SQL(
                        "ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {} "
                        f"GRANT ALL ON {kind} TO {{}}"
                    ).format(owner, name, other)
                )
    file = FailoverFile(pair, schema, os.urandom(32), AuditKey.generate("test"))
    with file.open() as first:
        file.database_id = first.database_id
    return file


def read_reports(folder: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for log in sorted(folder.glob("desk*.jsonl")):
        text = log.read_text("utf-8")
        lines += [json.loads(line) for line in text.splitlines() if line.endswith("}")]
    return lines


class Desks:
    """Four desk processes on ``file``; desk 1 stops at ``point`` when one is given."""

    def __init__(self, file: FailoverFile, folder: Path, point: str | None) -> None:
        self.folder = folder
        self.stop_path = folder / "stop"
        self.pause = (
            None
            if point is None
            else failover_child.Pause(point, PAUSED_AT, folder / "signal", folder / "release")
        )
        context = multiprocessing.get_context("spawn")
        self.processes = [
            context.Process(
                target=failover_child.run_desk,
                args=(
                    file.conninfo(desk),
                    file.raw_key,
                    file.audit.hex(),
                    file.database_id,
                    n,
                    str(folder / f"desk{n}.jsonl"),
                    str(self.stop_path),
                    CHILD_TIMEOUTS,
                    self.pause if n == 1 else None,
                ),
            )
            for n, desk in enumerate(DESKS, start=1)
        ]

    def __enter__(self) -> Desks:
        for process in self.processes:
            process.start()
        ready = [self.folder / f"desk{n}.jsonl.ready" for n in range(1, len(DESKS) + 1)]
        wait_for(lambda: all(path.exists() for path in ready), "every desk's store open")
        (self.folder / "go").touch()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_path.touch()
        for process in self.processes:
            process.join(timeout=WAIT_S)
        for process in self.processes:
            if process.is_alive():
                process.kill()
                process.join()

    def reports(self) -> list[dict[str, Any]]:
        return read_reports(self.folder)

    def each_reported(self, since: float, count: int) -> bool:
        """Every desk reported ``count`` admissions begun after ``since``."""
        seen: dict[int, int] = defaultdict(int)
        for line in self.reports():
            if line["started"] >= since:
                seen[line["desk"]] += 1
        return all(seen[n] >= count for n in range(1, len(DESKS) + 1))

    def stop(self) -> None:
        self.__exit__()
        assert [p.exitcode for p in self.processes] == [0] * len(DESKS)


def check_file(file: FailoverFile, reports: list[dict[str, Any]]) -> None:
    """Everything reported is in the file as reported; one gapless card sequence; one
    valid card a person; nothing half-written; the chain verifies end to end."""
    assert reports and not [line for line in reports if line.get("gave_up")]
    ids = [line["admission_id"] for line in reports]
    assert len(set(ids)) == len(ids)
    with file.open() as store:
        for line in reports:
            found = store.recorded_admission(line["admission_id"])
            assert found is not None, f"reported done, not in the file: {line}"
            assert (found.visit_id, found.card_number, found.file_number) == (
                line["visit"],
                line["card"],
                line["file"],
            )
        check = store.verify()
    assert check.ok, check
    visits = file.sql("SELECT count(*) FROM visits")[0][0]
    assert file.sql("SELECT count(*) FROM admissions")[0][0] == visits
    assert check.entries >= visits
    numbers = [int(n) for (n,) in file.sql("SELECT number FROM cards ORDER BY number")]
    assert numbers == list(range(1, len(numbers) + 1))
    assert file.sql("SELECT next - 1 FROM counters WHERE name = 'card'") == [(len(numbers),)]
    unvisited = "SELECT 1 FROM cards AS c LEFT JOIN visits AS v USING (visit_id) WHERE v.at IS NULL"
    assert file.sql(unvisited) == []
    two_cards = (
        "SELECT file_number FROM cards WHERE status <> 'VOIDED' "
        "GROUP BY file_number HAVING count(*) > 1"
    )
    assert file.sql(two_cards) == []
    cards = [line["card"] for line in reports if line["card"] is not None]
    assert len(set(cards)) == len(cards)
    files: dict[int, set[int]] = defaultdict(set)
    for line in reports:
        files[line["person"]].add(line["file"])
    assert all(len(found) == 1 for found in files.values())  # one file a person
    # regulars came back: their later visits are on the card they hold
    assert any(line["existing_card"] is not None for line in reports)


HOLD_KEY = 0x686F6C64  # the advisory lock every admission's COMMIT waits on while held


def install_commit_hold(file: FailoverFile) -> None:
    """A deferred constraint trigger on ``admissions``: at COMMIT, every statement of the
    admission run, it takes a shared advisory lock. While the test holds that lock, an
    admission stops inside its COMMIT on the server (tests/pg/test_faults.py does the
    same on one server)."""
    name = sql.Identifier(file.schema)
    with psycopg.connect(file.pair.superuser_conninfo(file.pair.primary), autocommit=True) as conn:
        conn.execute(
            sql.SQL(
                "CREATE FUNCTION {}.hold_commit() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN PERFORM pg_advisory_xact_lock_shared({}); RETURN NULL; END $$"
            ).format(name, sql.Literal(HOLD_KEY))
        )
        conn.execute(
            sql.SQL(
                "CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON {}.admissions "
                "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {}.hold_commit()"
            ).format(name, name)
        )


def fail_over(desks: Desks, file: FailoverFile) -> float:
    """When desk 1 signals (it stopped at its point), kill the primary, promote the
    standby, release desk 1 (at ``committing``: release it first, holding every COMMIT,
    and kill once its COMMIT waits on the server); the time of the kill."""
    pause, pair = desks.pause, file.pair
    assert pause is not None
    wait_for(pause.signal.exists, f"desk 1 stopped at {pause.point}")
    if pause.point == "committing":
        hold = psycopg.connect(pair.superuser_conninfo(pair.primary), autocommit=True)
        hold.execute("SELECT pg_advisory_lock(%s)", (HOLD_KEY,))
        pause.release.touch()
        waiting = (
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE usename = 'desk1' AND wait_event = 'advisory'"
        )
        wait_for(lambda: file.sql(waiting)[0][0] == 1, "desk 1's COMMIT on the server")
    killed = time.time()
    pair.kill_primary()
    if pause.point == "committing":
        hold.close()
    pair.promote()
    pause.release.touch()
    return killed


@pytest.mark.parametrize("point", failover_child.POINTS)
def test_the_primary_killed_at_each_point_of_an_admission_loses_nothing(
    synced: Any, tmp_path: Path, point: str
) -> None:
    """Desk 1 stops at ``point`` of an admission, the other three admit (or wait on the
    chain's head behind it); the primary is killed, the standby promoted, and all four go
    on, pressing again with the same admission whenever a press fails."""
    file = new_file(synced)
    if point == "committing":
        install_commit_hold(file)
    old = synced.primary
    with Desks(file, tmp_path, point) as desks:
        killed = fail_over(desks, file)
        wait_for(lambda: desks.each_reported(killed, AFTER), "every desk admitting again")
        desks.stop()
    assert synced.primary is not old and synced.timeline(synced.primary) > 1
    reports = desks.reports()
    paused = next(line for line in reports if line["desk"] == 1 and line["index"] == PAUSED_AT)
    # done after the kill, on the new primary; at ``answered``, before it
    assert (paused["done"] > killed) is (point != "answered")
    check_file(file, reports)


def test_a_commit_waits_for_the_synchronous_standby(synced: Any) -> None:
    """Synchronous replication is real: with the standby stopped, a commit on the primary
    does not return (it waits in SyncRep); started again, the commit returns."""
    primary, standby = synced.primary, synced.standby
    table = f"sync_{uuid.uuid4().hex[:8]}"
    synced.query(primary, f"CREATE TABLE public.{table} (x int)")
    synced._pg_ctl(standby, "-m", "fast", "-w", "stop")
    standby.running = False
    outcome: list[BaseException | None] = []

    def insert() -> None:
        try:
            synced.query(primary, f"INSERT INTO public.{table} VALUES (1)")
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    writer = threading.Thread(target=insert, daemon=True)
    writer.start()
    try:
        waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"
        wait_for(lambda: synced.query(primary, waiting)[0][0] == 1, "the commit waiting")
        time.sleep(0.3)
        assert writer.is_alive() and not outcome
    finally:
        synced._start(standby)
    writer.join(timeout=WAIT_S)
    assert outcome == [None]
    assert synced.query(standby, f"SELECT count(*) FROM public.{table}") == [(1,)]


def test_the_old_primary_back_as_it_was_is_never_written_to(synced: Any, tmp_path: Path) -> None:
    """After the promotion the old primary starts again as it was: read-write, on the old
    timeline, the first host of the desks' conninfo. The desks saw the promotion: their
    new connections (their old ones are ended) never go back to it, and its file gets no
    row; everything reported is on the new primary."""
    file = new_file(synced)
    with Desks(file, tmp_path, "inserted") as desks:
        killed = fail_over(desks, file)
        wait_for(lambda: desks.each_reported(killed, AFTER), "every desk on the new primary")
        old = synced.restart_old_primary()
        assert synced.query(old, "SELECT pg_is_in_recovery()") == [(False,)]
        assert synced.timeline(old) < synced.timeline(synced.primary)
        before = file.sql("SELECT count(*), coalesce(max(visit_id), 0) FROM visits", old)
        # every desk connection to the new primary ends: the pools connect again
        synced.query(
            synced.primary,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE starts_with(usename, 'desk')",
        )
        back = time.time()
        wait_for(lambda: desks.each_reported(back, AFTER), "every desk admitting after")
        desks.stop()
    assert file.sql("SELECT count(*), coalesce(max(visit_id), 0) FROM visits", old) == before
    with contextlib.suppress(Exception):
        synced._pg_ctl(old, "-m", "immediate", "-w", "stop")
    old.running = False
    check_file(file, desks.reports())

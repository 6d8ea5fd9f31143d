"""The RIAJ replica on the shared server (Decreto 58/2006, art. 20.2; arts. 154-155).

The behaviour tests of the replica (tests/registry/test_replica.py, test_signature.py,
test_sync.py) run here on both dialects of the one replica (db/registry_replica.py): the
encrypted file (``sqlite``) and the PostgreSQL server (``pg``). Then what only the shared
server has: two desks, one replica - a feed page two desks apply at once is applied once,
a file two desks import at once is imported once, a check during another desk's import
sees the snapshot in force, a desk that waits too long is told REPLICA_BUSY, no
identifier is held in a form the server's administrator could test, and a check is one
index probe.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import psycopg
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from psycopg import sql

from admission.clock import FixedClock
from admission.errors import StoreError
from admission.identity import IdentityKey, IdKind
from admission.registry.policy import RegistryPolicy, RegistryPolicySettings
from admission.registry.port import (
    RegistryErrorCode,
    RegistrySource,
    RegistryStatus,
)
from admission.registry.replica import FeedResult, ImportResult, SyncStatus
from admission.registry.replica import RegistryReplica as Replica
from admission.registry.snapshot import (
    FeedPage,
    SignatureVerifier,
    SnapshotError,
    feed_entry,
    identity_digest,
    render_snapshot,
)
from db.audit_key import AuditKey
from db.pg.crypto import InstallationKey
from db.pg.store import PgStore
from db.registry_replica import PROBE, SECRET_NAME, ReplicaRegistry, keyed_digest
from db.store import SqlCipherStore
from hardware.registry.fake import FakeRegistry
from hardware.registry.signature import Ed25519Verifier
from hardware.registry.soap_messages import RegistryClientError
from hardware.registry.sync import RegistrySync
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo
from tests.registry.conftest import T0, open_store

SALT = b"s" * 16
L, N, U = RegistryStatus.LISTED, RegistryStatus.NOT_LISTED, RegistryStatus.UNVERIFIABLE


class Backend(Protocol):
    name: str

    def replica(self, clock: FixedClock, verifier: SignatureVerifier | None = None) -> Replica: ...
    def second_desk(self, clock: FixedClock) -> Replica: ...
    def count(self, table: str) -> int: ...
    def fail_on_update_of(self, column: str) -> AbstractContextManager[None]: ...
    def holds(self, needle: bytes) -> bool: ...


# --- the encrypted file ----------------------------------------------------------------


class SqliteBackend:
    name = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.store = open_store(path, FixedClock(T0))
        self.conn = self.store.connection
        self.others: list[SqlCipherStore] = []

    def replica(self, clock: FixedClock, verifier: SignatureVerifier | None = None) -> Replica:
        return ReplicaRegistry(self.store, clock, verifier=verifier)

    def second_desk(self, clock: FixedClock) -> Replica:
        store = open_store(self.path, FixedClock(T0))
        self.others.append(store)
        return ReplicaRegistry(store, clock)

    def count(self, table: str) -> int:
        return int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    @contextmanager
    def fail_on_update_of(self, column: str) -> Iterator[None]:
        self.conn.execute(
            f"CREATE TRIGGER boom BEFORE UPDATE OF {column} ON registry_snapshot "
            "BEGIN SELECT RAISE(ABORT, 'disk full'); END"
        )
        try:
            yield
        finally:
            self.conn.execute("DROP TRIGGER boom")

    def holds(self, needle: bytes) -> bool:
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return needle in self.path.read_bytes()

    def close(self) -> None:
        for store in [self.store, *self.others]:
            store.close()


# --- the shared server -----------------------------------------------------------------


class PgBackend:
    name = "pg"

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.schema = fresh_schema(cluster, others=("desk2",))
        self.raw = os.urandom(32)
        self.audit = AuditKey.generate("test")
        self.stores: list[PgStore] = []
        self.first = self.open_store("desk1", create=True)

    def open_store(self, desk: str, *, create: bool = False) -> PgStore:
        store = PgStore.open(
            schema_conninfo(self.cluster, self.schema, desk),
            InstallationKey(self.raw, "test"),
            audit_key=self.audit,
            database_id=None if create else self.first.database_id,
            create=create,
            clock=FixedClock(T0),
        )
        self.stores.append(store)
        return store

    def replica(self, clock: FixedClock, verifier: SignatureVerifier | None = None) -> Replica:
        return ReplicaRegistry(self.first, clock, verifier=verifier)

    def second_desk(self, clock: FixedClock, lock_timeout_s: float = 60.0) -> ReplicaRegistry:
        return ReplicaRegistry(self.open_store("desk2"), clock, lock_timeout_s=lock_timeout_s)

    def superuser(self) -> psycopg.Connection[Any]:
        conn = psycopg.connect(self.cluster.superuser_conninfo(), autocommit=True)
        conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(self.schema)))
        return conn

    def query(self, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.superuser() as conn:
            cur = conn.execute(statement.encode(), params)
            return cur.fetchall() if cur.description else []

    def count(self, table: str) -> int:
        return int(self.query(f"SELECT count(*) FROM {table}")[0][0])

    @contextmanager
    def fail_on_update_of(self, column: str) -> Iterator[None]:
        self.query(
            "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'disk full'; END $$"
        )
        self.query(
            f"CREATE TRIGGER boom BEFORE UPDATE OF {column} ON registry_snapshot "
            "FOR EACH ROW EXECUTE FUNCTION boom()"
        )
        try:
            yield
        finally:
            self.query("DROP TRIGGER boom ON registry_snapshot")
            self.query("DROP FUNCTION boom()")

    def dump(self) -> bytes:
        """Every row of every table of the schema, as the server's administrator sees it."""
        out = b""
        tables = self.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (self.schema,),
        )
        for (table,) in tables:
            for (text,) in self.query(f'SELECT t::text FROM "{table}" AS t'):
                out += text.encode("utf-8") + b"\n"
        return out

    def holds(self, needle: bytes) -> bool:
        dump = self.dump()
        return needle in dump or needle.hex().encode() in dump

    def close(self) -> None:
        for store in self.stores:
            store.close()


@pytest.fixture(params=["sqlite", "pg"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    made: SqliteBackend | PgBackend
    if request.param == "sqlite":
        made = SqliteBackend(tmp_path / "visitors.db")
    else:
        made = PgBackend(request.getfixturevalue("pg_cluster"))
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def pg(pg_cluster: Any) -> Iterator[PgBackend]:
    made = PgBackend(pg_cluster)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def replica(backend: Backend, clock: FixedClock) -> Replica:
    return backend.replica(clock)


def dni(number: str) -> IdentityKey:
    return IdentityKey.of(IdKind.DNI, "ESP", number)


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def snapshot(numbers: list[str], version: str = "v1", hours: int = 0, **kw: Any) -> bytes:
    at = T0 + timedelta(hours=hours)
    return render_snapshot(numbers, version=version, as_of=at, salt=SALT, **kw)


def four_changes(since: datetime | None) -> FeedPage:
    return FeedPage(
        since,
        T0 + timedelta(hours=4),
        (
            feed_entry("A", "99999999R", T0 + timedelta(hours=1)),
            feed_entry("B", "11111111H", T0 + timedelta(hours=2)),
            feed_entry("A", "22222222J", T0 + timedelta(hours=3)),
            feed_entry("B", "22222222J", T0 + timedelta(hours=3)),
        ),
    )


# --- the SQLCipher replica's behaviour, on both ----------------------------------------


def test_empty_replica_is_unverifiable(replica: Replica) -> None:
    answer = replica.check(dni("12345678Z"))
    assert answer.status is U and answer.error == "REPLICA_EMPTY"
    assert answer.source is RegistrySource.REPLICA
    assert replica.state() is None and replica.feed_since() is None


def test_plain_list_import_and_check(replica: Replica, clock: FixedClock, tmp_path: Path) -> None:
    path = write(tmp_path, "riaj.txt", b"# lista\n12345678Z\nX-1234567-L\n")
    result = replica.import_file(path)
    assert result.entries == 2 and result.as_of == T0 and not result.unchanged
    clock.advance(timedelta(minutes=10))
    listed = replica.check(dni("12345678z"))
    assert listed.status is L
    assert listed.age_seconds == 600 and listed.version == result.version
    assert replica.check(IdentityKey.of("NIE", "ESP", "X1234567L")).status is L
    assert replica.check(dni("00000000T")).status is N


def test_lines_import_and_a_repeat_is_kept_once(replica: Replica, clock: FixedClock) -> None:
    clock.advance(timedelta(hours=1))
    result = replica.import_lines([b"12345678Z\n", b"99999999R\n", b"12345678Z\n"])
    assert (result.entries, result.duplicates, result.duplicate_lines) == (2, 1, (3,))
    assert result.as_of == T0 + timedelta(hours=1) and result.version.startswith("plain-")
    assert replica.check(dni("99999999R")).status is L
    with pytest.raises(SnapshotError) as err:
        replica.import_lines([])
    assert err.value.code == "SNAPSHOT_EMPTY"
    assert ("IMPORT_REJECTED", "SNAPSHOT_EMPTY") in {(e[1], e[2]) for e in replica.last_events()}
    state = replica.state()
    assert state is not None and state.entries == 2 and not state.signed


def test_a_bad_file_leaves_the_previous_snapshot_in_force(
    replica: Replica, clock: FixedClock, tmp_path: Path
) -> None:
    clock.advance(timedelta(hours=1))
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    bad = snapshot(["99999999R", "11111111H"], "v2", hours=1)
    for name, data in [
        ("trunc", bad[:-30]),
        ("long", b"1\n" + b"1" * 5000),
        ("junk", b"#RIAJ-SNAPSHOT 1\n"),
    ]:
        with pytest.raises(SnapshotError):
            replica.import_file(write(tmp_path, name, data))
    with pytest.raises(SnapshotError) as err:
        replica.import_file(tmp_path / "missing")
    assert err.value.code == "SNAPSHOT_UNREADABLE"
    for path in (Path("/dev/zero"), tmp_path):
        with pytest.raises(SnapshotError) as err:
            replica.import_file(path)
        assert err.value.code == "SNAPSHOT_NOT_A_FILE"
    state = replica.state()
    assert state is not None and state.version == "v1" and state.entries == 1
    assert replica.check(dni("12345678Z")).status is L
    assert replica.check(dni("99999999R")).status is N
    codes = [e[2] for e in replica.last_events(10)]
    assert "SNAPSHOT_TRUNCATED" in codes and "SNAPSHOT_UNREADABLE" in codes


def test_swap_replaces_everything_and_rejects_older_or_conflicting(
    replica: Replica, backend: Backend, clock: FixedClock, tmp_path: Path
) -> None:
    clock.advance(timedelta(hours=3))
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"], "v1")))
    result = replica.import_file(write(tmp_path, "b", snapshot(["99999999R"], "v2", hours=2)))
    assert result.replaced == "v1"
    assert replica.check(dni("12345678Z")).status is N
    assert replica.check(dni("99999999R")).status is L
    assert backend.count("registry_entry") == 1
    assert backend.count("registry_snapshot") == 1
    again = replica.import_file(write(tmp_path, "b2", snapshot(["99999999R"], "v2", hours=2)))
    assert again.unchanged
    for data, code in [
        (snapshot(["11111111H"], "v0", hours=1), "SNAPSHOT_OLDER_THAN_ACTIVE"),
        (snapshot(["11111111H"], "v2", hours=3), "SNAPSHOT_VERSION_CONFLICT"),
        (snapshot(["11111111H"], "v9", hours=48), "SNAPSHOT_FROM_THE_FUTURE"),
    ]:
        with pytest.raises(SnapshotError) as err:
            replica.import_file(write(tmp_path, "c", data))
        assert err.value.code == code
    assert replica.check(dni("99999999R")).status is L


def test_failure_inside_the_swap_transaction_rolls_back(
    replica: Replica, backend: Backend, tmp_path: Path
) -> None:
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"], "v1")))
    with backend.fail_on_update_of("active"), pytest.raises(SnapshotError) as err:
        replica.import_file(write(tmp_path, "b", snapshot(["99999999R"], "v2", hours=1)))
    assert err.value.code == "REPLICA_WRITE_FAILED"
    assert replica.check(dni("12345678Z")).status is L
    assert replica.check(dni("99999999R")).status is N
    assert backend.count("registry_entry") == 1


def test_change_feed_is_idempotent_and_moves_the_age(
    replica: Replica, backend: Backend, clock: FixedClock, tmp_path: Path
) -> None:
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z", "11111111H"])))
    since = replica.feed_since()
    assert since == T0
    page = four_changes(since)
    first = replica.apply_feed(page)
    assert (first.added, first.removed) == (2, 2)
    second = replica.apply_feed(page)  # the same page again: same final state
    if backend.name == "sqlite":  # the file applies it again, to the same end
        assert (second.added, second.removed, second.unchanged) == (1, 1, 2)
    else:  # the server knows the page is applied (another desk may just have done so)
        assert (second.added, second.removed, second.unchanged) == (0, 0, 4)
    assert second.feed_as_of == page.as_of
    clock.set(T0 + timedelta(hours=5))
    answer = replica.check(dni("99999999R"))
    assert answer.status is L and answer.age_seconds == 3600
    assert "@" in answer.version
    assert replica.check(dni("11111111H")).status is N
    assert replica.check(dni("22222222J")).status is N
    state = replica.state()
    assert state is not None and state.entries == 2 and replica.feed_since() == page.as_of


def test_feed_gaps_and_stale_pages_are_rejected(replica: Replica, tmp_path: Path) -> None:
    with pytest.raises(SnapshotError) as err:
        replica.apply_feed(FeedPage(None, T0, ()))
    assert err.value.code == "FEED_WITHOUT_SNAPSHOT"
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    later = T0 + timedelta(hours=2)
    with pytest.raises(SnapshotError) as err:
        replica.apply_feed(FeedPage(later, later, ()))
    assert err.value.code == "FEED_GAP"
    replica.apply_feed(FeedPage(T0, later, ()))
    with pytest.raises(SnapshotError) as err:
        replica.apply_feed(
            FeedPage(
                T0,
                T0 + timedelta(hours=1),
                (feed_entry("B", "12345678Z", T0 + timedelta(hours=1)),),
            )
        )
    assert err.value.code == "FEED_OUT_OF_ORDER"
    assert replica.check(dni("12345678Z")).status is L
    kinds = {(e[1], e[2]) for e in replica.last_events(10)}
    assert ("FEED_REJECTED", "FEED_GAP") in kinds and ("FEED", "OK") in kinds


def test_feed_resumes_after_an_interrupted_apply(
    replica: Replica, backend: Backend, tmp_path: Path
) -> None:
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    page = FeedPage(
        T0,
        T0 + timedelta(hours=2),
        (
            feed_entry("A", "99999999R", T0 + timedelta(hours=1)),
            feed_entry("A", "11111111H", T0 + timedelta(hours=1)),
        ),
    )
    with backend.fail_on_update_of("feed_as_of"), pytest.raises(SnapshotError):
        replica.apply_feed(page)
    assert replica.check(dni("99999999R")).status is N  # all or nothing
    assert replica.feed_since() == T0
    result = replica.apply_feed(page)
    assert (result.added, result.removed) == (2, 0)
    assert replica.check(dni("11111111H")).status is L


def test_a_second_desk_sees_a_new_snapshot(
    backend: Backend, clock: FixedClock, tmp_path: Path
) -> None:
    desk = backend.replica(clock)
    other = backend.second_desk(clock)
    other.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    assert desk.check(dni("12345678Z")).status is L
    other.import_file(write(tmp_path, "b", snapshot(["99999999R"], "v2", hours=1)))
    assert desk.check(dni("12345678Z")).status is N  # v2 has its own salt
    assert desk.check(dni("99999999R")).status is L
    other.apply_feed(FeedPage(T0 + timedelta(hours=1), T0 + timedelta(hours=2), ()))
    state = desk.state()
    assert state is not None and state.feed_as_of == T0 + timedelta(hours=2)


def test_no_identifier_is_held_in_clear(
    backend: Backend, clock: FixedClock, tmp_path: Path
) -> None:
    replica = backend.replica(clock)
    replica.import_file(write(tmp_path, "a", b"12345678Z\n"))
    replica.apply_feed(FeedPage(T0, T0 + timedelta(minutes=5), (feed_entry("A", "99999999R", T0),)))
    assert replica.check(dni("99999999R")).status is L
    assert not backend.holds(b"12345678Z") and not backend.holds(b"99999999R")


# --- signatures (tests/registry/test_signature.py) -------------------------------------


@pytest.fixture
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def verifier_of(key: Ed25519PrivateKey) -> Ed25519Verifier:
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return Ed25519Verifier.from_text(raw.hex())


def test_signed_snapshot_imports(
    key: Ed25519PrivateKey, backend: Backend, clock: FixedClock, tmp_path: Path
) -> None:
    replica = backend.replica(clock, verifier_of(key))
    path = write(tmp_path, "s", snapshot(["12345678Z"], sign=key.sign))
    assert replica.import_file(path).signed
    state = replica.state()
    assert state is not None and state.signed


@pytest.mark.parametrize("case", ["unsigned", "other-key", "plain-list", "tampered"])
def test_bad_or_missing_signatures_are_refused(
    key: Ed25519PrivateKey, backend: Backend, clock: FixedClock, tmp_path: Path, case: str
) -> None:
    replica = backend.replica(clock, verifier_of(key))
    sign = {"unsigned": None, "other-key": Ed25519PrivateKey.generate().sign}.get(case, key.sign)
    data = snapshot(["12345678Z"], sign=sign)
    if case == "plain-list":
        data = b"12345678Z\n"
    if case == "tampered":  # valid checksum for other content, the signature of the original
        data = snapshot(["99999999R"]) + data.splitlines(keepends=True)[-1]
    with pytest.raises(SnapshotError) as err:
        replica.import_file(write(tmp_path, "s", data))
    unsigned = case in ("unsigned", "plain-list")
    assert err.value.code == ("SNAPSHOT_UNSIGNED" if unsigned else "SNAPSHOT_BAD_SIGNATURE")
    assert replica.state() is None
    assert backend.count("registry_entry") == 0


# --- the sync and the policy (tests/registry/test_sync.py, test_policy.py) -------------


def test_sync_once_reports_success_and_failure(
    replica: Replica, clock: FixedClock, tmp_path: Path
) -> None:
    replica.import_file(write(tmp_path, "snap", snapshot(["12345678Z"], version="2026-11-29")))
    fake = FakeRegistry(clock)
    seen: list[SyncStatus] = []
    sync = RegistrySync(fake, replica, clock, on_status=seen.append)
    assert sync.status().age_seconds == 0 and sync.status().replica_version == "2026-11-29"
    clock.advance(timedelta(hours=3))
    fake.add("99999999R")
    status = sync.sync_once()
    assert status.last_error == "" and status.last_success == clock.now() and status.added == 1
    assert status.age_seconds == 0 and "@" in status.replica_version
    assert fake.feed_requests == [T0]
    assert replica.check(dni("99999999R")).status is L
    clock.advance(timedelta(minutes=20))
    fake.script.append(RegistryClientError("down", code=RegistryErrorCode.REGISTRY_TIMEOUT))
    failed = sync.sync_once()
    assert failed.last_error == "REGISTRY_TIMEOUT" and failed.age_seconds == 1200
    assert failed.last_success == T0 + timedelta(hours=3)
    assert [s.last_error for s in seen] == ["", "REGISTRY_TIMEOUT"]


def test_the_policy_turns_a_stale_not_listed_into_unverifiable(
    replica: Replica, clock: FixedClock, tmp_path: Path
) -> None:
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    settings = RegistryPolicySettings(max_replica_age=timedelta(hours=26))
    policy = RegistryPolicy(clock, replica=replica, settings=settings)
    assert policy.check(dni("99999999R")).status is N
    clock.advance(timedelta(hours=27))
    stale = policy.check(dni("99999999R"))
    assert (stale.status, stale.error) == (U, "REPLICA_STALE")
    assert policy.check(dni("12345678Z")).status is L  # listed in the last register known


# --- the shared server only ------------------------------------------------------------


@contextmanager
def holding(pg: PgBackend, statement: str) -> Iterator[psycopg.Connection[Any]]:
    """A superuser transaction holding a lock until the block ends."""
    conn = pg.superuser()
    try:
        conn.execute("BEGIN")
        conn.execute(statement.encode())
        yield conn
        conn.execute("COMMIT")
    finally:
        conn.close()


def wait_for_waiters(conn: psycopg.Connection[Any], n: int, timeout: float = 10.0) -> None:
    """Until ``n`` other backends wait for a lock (they are inside their transaction)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        ).fetchone()
        if row is not None and int(row[0]) >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"{n} desks never waited for the lock")


def in_threads(*calls: Callable[[], Any]) -> tuple[list[threading.Thread], list[Any]]:
    """Start each call in its own thread; the threads and the list their results fill."""
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            results[i] = call()
        except BaseException as exc:  # handed to the test
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    return threads, results


def test_two_desks_applying_the_same_page_at_once_apply_it_once(
    pg: PgBackend, clock: FixedClock, tmp_path: Path
) -> None:
    desk1 = ReplicaRegistry(pg.first, clock)
    desk2 = pg.second_desk(clock)
    desk1.import_file(write(tmp_path, "a", snapshot(["12345678Z", "11111111H"])))
    page = four_changes(T0)
    lock = "LOCK TABLE registry_snapshot IN SHARE ROW EXCLUSIVE MODE"
    with holding(pg, lock) as admin:  # both desks start their pull, then wait here
        threads, results = in_threads(
            lambda: desk1.apply_feed(page), lambda: desk2.apply_feed(page)
        )
        wait_for_waiters(admin, 2)
    for thread in threads:
        thread.join(10)
    assert all(isinstance(r, FeedResult) for r in results), results
    counts = sorted((r.added, r.removed, r.unchanged) for r in results)
    assert counts == [(0, 0, 4), (2, 2, 0)]  # one applied it, the other found it applied
    state = desk2.state()
    assert state is not None and state.feed_applied == 4 and state.entries == 2
    assert [e[1] for e in desk1.last_events(10)].count("FEED") == 1
    assert pg.count("registry_entry") == 2
    assert desk1.check(dni("99999999R")).status is L
    assert desk2.check(dni("11111111H")).status is N


def test_two_desks_importing_one_file_at_once_import_it_once(
    pg: PgBackend, clock: FixedClock, tmp_path: Path
) -> None:
    desk1 = ReplicaRegistry(pg.first, clock)
    desk2 = pg.second_desk(clock)
    path = write(tmp_path, "a", b"12345678Z\n99999999R\n")  # each desk hashes with its salt
    lock = "LOCK TABLE registry_snapshot IN SHARE ROW EXCLUSIVE MODE"
    with holding(pg, lock) as admin:
        threads, results = in_threads(
            lambda: desk1.import_file(path), lambda: desk2.import_file(path)
        )
        wait_for_waiters(admin, 2)
    for thread in threads:
        thread.join(10)
    assert all(isinstance(r, ImportResult) for r in results), results
    assert sorted(r.unchanged for r in results) == [False, True]
    assert pg.count("registry_snapshot") == 1 and pg.count("registry_entry") == 2
    assert desk1.check(dni("99999999R")).status is L and desk2.check(dni("12345678Z")).status is L


def test_a_check_during_another_desks_import_sees_the_snapshot_in_force(
    pg: PgBackend, clock: FixedClock, tmp_path: Path
) -> None:
    desk1 = ReplicaRegistry(pg.first, clock)
    desk2 = pg.second_desk(clock)
    clock.advance(timedelta(hours=2))
    desk1.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    assert desk2.check(dni("12345678Z")).status is L  # desk2 knows v1's salt
    new = write(tmp_path, "b", snapshot(["99999999R"], "v2", hours=1))
    # the import stops at its log line, after the swap, before its commit
    with holding(pg, "LOCK TABLE registry_event IN ACCESS EXCLUSIVE MODE") as admin:
        threads, results = in_threads(lambda: desk1.import_file(new))
        wait_for_waiters(admin, 1)
        during = desk2.check(dni("12345678Z"))
        assert (during.status, during.version) == (L, "v1")
        assert desk2.check(dni("99999999R")).status is N
    for thread in threads:
        thread.join(10)
    assert isinstance(results[0], ImportResult) and results[0].replaced == "v1"
    assert desk2.check(dni("12345678Z")).status is N  # the new salt, asked again
    after = desk2.check(dni("99999999R"))
    assert (after.status, after.version) == (L, "v2")


def test_a_desk_that_waits_too_long_is_told_busy_and_nothing_changes(
    pg: PgBackend, clock: FixedClock, tmp_path: Path
) -> None:
    desk1 = ReplicaRegistry(pg.first, clock)
    desk1.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    desk2 = pg.second_desk(clock, lock_timeout_s=0.2)
    lock = "LOCK TABLE registry_snapshot IN SHARE ROW EXCLUSIVE MODE"
    with holding(pg, lock):
        with pytest.raises(SnapshotError) as err:
            desk2.apply_feed(four_changes(T0))
        assert err.value.code == "REPLICA_BUSY"
        assert desk2.check(dni("12345678Z")).status is L  # a check does not wait
    assert desk2.feed_since() == T0 and desk2.check(dni("99999999R")).status is N
    assert ("FEED_REJECTED", "REPLICA_BUSY") in {(e[1], e[2]) for e in desk2.last_events()}
    assert desk2.apply_feed(four_changes(T0)).added == 2  # once the other desk is done


def test_the_server_cannot_test_a_guessed_number(
    pg: PgBackend, clock: FixedClock, tmp_path: Path
) -> None:
    """Salt and entries are on the server; the register's own digest of a guess is not
    among the entries, only its HMAC under the visitor file's sealed secret."""
    replica = ReplicaRegistry(pg.first, clock)
    replica.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    ((salt, digest),) = pg.query(
        "SELECT s.salt, e.digest FROM registry_snapshot s JOIN registry_entry e USING (snapshot_id)"
    )
    assert bytes(salt) == SALT
    guess = identity_digest(SALT, "12345678Z")
    assert bytes(digest) != guess and not pg.holds(guess)
    assert bytes(digest) == keyed_digest(pg.first.secret(SECRET_NAME), guess)
    assert not pg.holds(pg.first.secret(SECRET_NAME))


def test_a_check_is_one_probe_of_the_entries_index(
    pg: PgBackend, clock: FixedClock, tmp_path: Path
) -> None:
    replica = ReplicaRegistry(pg.first, clock)
    numbers = [f"{n:08d}{'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}" for n in range(20_000)]
    replica.import_file(write(tmp_path, "a", snapshot(numbers)))
    assert replica.check(dni(numbers[12_345])).status is L
    probe = PROBE.replace("?", "{}").format(1, "'\\x00'::bytea")
    plan = "\n".join(r[0] for r in pg.query("EXPLAIN " + probe))
    assert "registry_entry_pkey" in plan and "Seq Scan on registry_entry" not in plan, plan


def test_the_migration_is_recorded(pg: PgBackend) -> None:
    assert pg.query("SELECT name FROM schema_migrations WHERE version = 50") == [
        ("registry_replica",)
    ]


def test_a_server_out_of_reach_is_unverifiable_never_not_listed(
    pg: PgBackend, clock: FixedClock, tmp_path: Path
) -> None:
    desk2 = pg.second_desk(clock)
    desk2.import_file(write(tmp_path, "a", snapshot(["12345678Z"])))
    pg.stores[-1].close()  # the desk's connections are gone
    answer = desk2.check(dni("99999999R"))
    assert (answer.status, answer.error) == (U, "REPLICA_READ_FAILED")
    with pytest.raises(StoreError) as err:
        desk2.state()
    assert err.value.code == "REPLICA_READ_FAILED"
    with pytest.raises(SnapshotError) as failed:
        desk2.apply_feed(four_changes(T0))
    assert failed.value.code == "REPLICA_WRITE_FAILED"
    status = RegistrySync(FakeRegistry(clock), desk2, clock).sync_once()
    assert status.last_error == "REPLICA_READ_FAILED"
    policy = RegistryPolicy(clock, replica=desk2)
    assert policy.check(dni("12345678Z")).status is U
    assert ReplicaRegistry(pg.first, clock).check(dni("12345678Z")).status is L

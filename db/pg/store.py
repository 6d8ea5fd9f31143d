"""``PgStore``: the visitor file (arts. 20.3, 22.1, 21, 18, 20.4) that the desks of one
operating unit share (arts. 154-155), on a PostgreSQL server. Every write first locks the
chain's head, so a card number is never lost nor repeated and two desks admitting one
person issue one card (art. 22); conflicts are retried; every call is bounded."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import itertools
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql as pg_sql
from psycopg_pool import ConnectionPool, PoolTimeout

from admission.clock import SystemClock
from admission.errors import ConfigError, StoreError, StoreErrorCode
from admission.inspection import SearchCriteria
from admission.ports import Clock
from admission.records import (
    AdmissionEntry,
    AuditAnchor,
    AuditCheck,
    AuditHead,
    IntegrityReport,
    PurgeReport,
    RecordedAdmission,
    Visitor,
)
from db import chain, inspection, retention, visitors
from db.audit_chain import chain_row
from db.audit_key import AuditKey
from db.file_ports import FilePorts
from db.keys import DbKey
from db.pg import roles as pg_roles
from db.pg.codes import PgStoreCode
from db.pg.connect import PgConnectCode, connect
from db.pg.crypto import InstallationKey, KeyRing
from db.pg.inspection import find_visitors as find_sealed
from db.pg.link import (
    PgLinkError,
    PgTimeouts,
    Watchdog,
    link_error,
    link_readable,
    store_error,
)
from db.pg.opening import prepare
from db.pg.primary import PrimaryFollower
from db.pg.tx import LOCK_HEAD, Conn, PgTx
from db.visitors import PgAdmissionCode

__all__ = ["PgAdmissionCode", "PgLinkError", "PgStore", "PgTimeouts"]

log = logging.getLogger("admission.db.pg")
T = TypeVar("T")
Work = Callable[[PgTx], T]  # what one transaction does

MAX_ATTEMPTS = 12  # tries of one transaction that meets serialisation failures/deadlocks
BACKOFF_S = 0.005  # first backoff; doubles per attempt, jittered, capped
BACKOFF_CAP_S = 0.25
_RETRYABLE = (pg_errors.SerializationFailure, pg_errors.DeadlockDetected)
_PURGE_LOCK_LABEL = b"admission-desk/pg/purge-lock/v1"
_ACT_LOCK_LABEL = b"admission-desk/pg/account-lock/v1"  # PgStore.act_locks


@contextlib.contextmanager
def _rolled_back_on_error(conn: Conn) -> Iterator[None]:
    """A pipelined transaction that failed on a live connection is rolled back at once,
    before the connection goes back to the pool or the transaction is tried again."""
    try:
        yield
    except BaseException:
        _roll_back(conn)
        raise


def _roll_back(conn: Conn) -> None:
    """ROLLBACK on a live connection left inside a transaction (else nothing). psycopg's
    own, which also forgets what it prepared there: in a pipeline the statements after
    a failed one are skipped, their preparation too (26000 on the next use)."""
    status = psycopg.pq.TransactionStatus
    if conn.closed or conn.broken or conn.info.transaction_status == status.IDLE:
        return
    with contextlib.suppress(psycopg.Error):
        conn.rollback()


class PgStore(FilePorts):
    """Thread-safe (a connection pool); each process opens its own."""

    dialect = "pg"  # of its transactions (db/tx.py)
    damaged = False  # a desk never judges the server's pages (see integrity_check)

    def __init__(
        self,
        pool: ConnectionPool[Conn],
        ring: KeyRing,
        audit_key: AuditKey,
        database_id: str,
        clock: Clock | None = None,
        timeouts: PgTimeouts | None = None,
        watchdog: Watchdog | None = None,
        purge_role: str | None = None,
    ) -> None:
        self._pool = pool
        self.purge_role = purge_role  # db/pg/roles.py: SET LOCAL ROLE in purge transactions
        self._timeouts = timeouts or PgTimeouts()
        self._watchdog = watchdog or Watchdog()
        self._calls_lock = threading.Lock()
        self._in_use = 0  # calls holding a pooled connection now
        self.ring = ring  # a rotation adopts its new one (adopt_ring)
        self._audit_key = audit_key
        self.audit_key_source = audit_key.source
        self.database_id = database_id  # a desk keeps it and refuses any other database
        self.clock: Clock = clock or SystemClock()
        self._secrets: dict[str, bytes] = {}
        self._closed = False
        self.purge_lock_key = self._lock_key(_PURGE_LOCK_LABEL)
        self.retries = 0  # transactions retried after a serialisation failure/deadlock
        self.primary: PrimaryFollower | None = None  # the host it follows (open's primary)
        # the newest audit entry this store committed (a desk keeps it outside the file:
        # a server restored to an earlier minute is then noticed, art. 22.1)
        self.committed_head: AuditHead | None = None
        # asked before every write: raises to refuse it (a file that went back, until an
        # operator confirms: cards issued after that minute exist on paper)
        self.write_gate: Callable[[], None] | None = None

    @classmethod
    def open(
        cls,
        conninfo: str,
        key: InstallationKey | DbKey,
        *,
        audit_key: AuditKey,
        database_id: str | None = None,
        create: bool = False,
        clock: Clock | None = None,
        min_connections: int = 1,
        max_connections: int = 4,
        timeouts: PgTimeouts | None = None,
        primary: PrimaryFollower | None = None,
    ) -> PgStore:
        """Connect, check the database (db/pg/opening.py: refused before anything is written;
        ``database_id`` None on a first start), migrate, and open a pool under ``timeouts``.
        With ``primary`` every connection, the pool's new ones too, goes to the writable
        host of ``conninfo``'s list on the newest timeline (db/pg/primary.py): after a
        failover the pool discards its broken connections (``check``) and makes new ones
        on the promoted standby."""
        bounds = timeouts or PgTimeouts()
        conninfo = bounds.conninfo(conninfo)
        if primary is None:
            conn = connect(conninfo, autocommit=True)
        else:  # at opening, no wait: a desk starting while nothing is writable says so
            conn = primary.connect(conninfo, wait_s=0, autocommit=True)
        try:
            ring, found_id = prepare(conn, key, database_id, create, audit_key)
            purge_role = pg_roles.purge_role(conn)
        except psycopg.Error as exc:
            raise store_error(exc, write=True) from exc
        finally:
            conn.close()

        watchdog = Watchdog()

        def check(pooled: Conn) -> None:
            # An idle connection the server ended (a restart, a failover, the
            # idle-in-transaction timeout) has something to read: its FATAL and the end.
            # Only then is it asked, at a round trip's cost an annex room's desk over a WAN
            # would pay on every call; one that went silent is ended by the watchdog.
            if link_readable(pooled):
                with watchdog.guarding(pooled, bounds.transaction_s):
                    pooled.execute("")

        pool: ConnectionPool[Conn] = ConnectionPool(
            conninfo,
            min_size=min_connections,
            max_size=max(min_connections, max_connections),
            kwargs={"autocommit": True},
            configure=bounds.session,
            check=check,
            timeout=bounds.pool_wait_s,
            open=False,
            connection_class=psycopg.Connection if primary is None else primary.connection_class(),
        )
        try:
            pool.open(wait=True, timeout=max(30.0, bounds.pool_wait_s))
        except PoolTimeout as exc:
            pool.close()
            raise StoreError("the server did not give a connection", code=PgStoreCode.BUSY) from exc
        store = cls(pool, ring, audit_key, found_id, clock, bounds, watchdog, purge_role)
        store.primary = primary
        try:
            store._adopt_coverage()
        except BaseException:
            store.close()
            raise
        return store

    def _adopt_coverage(self) -> None:
        """Once, for a chain begun before covering vouchers and RIAJ snapshots (migration 0070):
        one entry committing to those present. A login that may not write leaves it."""
        pending = "SELECT 1 FROM counters WHERE name = 'audit_coverage' AND next = 1"
        if self.read(lambda tx: tx.one(pending)) is None:
            return

        def work(tx: PgTx) -> None:
            if tx.one(pending) is None:  # another desk adopted them meanwhile
                return
            chain.adopt_coverage(tx, self._audit_key, self.clock.now())
            tx.execute("UPDATE counters SET next = 2 WHERE name = 'audit_coverage'")

        try:
            self.write(work)
        except StoreError as exc:
            log.warning("the vouchers and snapshots were not adopted yet: %s", exc.code)

    def _lock_key(self, label: bytes) -> int:
        """An advisory lock's key: ``label`` under the database's id."""
        digest = hmac.new(self.database_id.encode("utf-8"), label, hashlib.sha256)
        return int.from_bytes(digest.digest()[:8], "big", signed=True)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.close()
            self._watchdog.close()

    def __repr__(self) -> str:
        return f"<PgStore {'closed' if self._closed else 'open'}>"

    @contextlib.contextmanager
    def _counted(self) -> Iterator[Conn]:
        """A pooled connection, counted while a call holds it (:meth:`_no_connection`)."""
        if self._closed:
            raise StoreError("the store is closed", code=StoreErrorCode.STORE_CLOSED)
        with self._pool.connection() as conn:
            with self._calls_lock:
                self._in_use += 1
            try:
                yield conn
            finally:
                with self._calls_lock:
                    self._in_use -= 1

    @contextlib.contextmanager
    def _mapped(self, *, counted: bool = True) -> Iterator[None]:
        """The server's errors as the store's codes, for calls outside :meth:`_run`."""
        try:
            yield
        except PoolTimeout as exc:
            if counted:
                raise self._no_connection() from exc
            raise StoreError("no connection to the server", code=PgStoreCode.BUSY) from exc
        except psycopg.Error as exc:
            raise store_error(exc, write=True) from exc

    def _run(
        self,
        work: Work[T],
        *,
        write: bool,
        snapshot: bool = False,
        conn: Conn | None = None,
        bounded: bool = True,
        role: str | None = None,
        head: bool = True,
        pipelined: bool = False,
    ) -> T:
        """Run ``work`` in one transaction, again after a serialisation failure or deadlock
        (bounded, jittered backoff); a write first locks the chain's head (without ``head``,
        its first entry does). A failed link raises :class:`PgLinkError`, never retried: a
        write may have committed (art. 20: nobody admitted unrecorded). A plain read runs
        without BEGIN and COMMIT (each statement its own snapshot, as READ COMMITTED gives
        anyway): two round trips fewer for an annex room's desk over a WAN (arts. 154-155).
        ``pipelined``: BEGIN and the setup go with ``work``'s first reads, its writes with
        the next reads or with COMMIT (db/pg/tx.py, PgTx.fetch)."""
        if write and self.write_gate is not None:
            self.write_gate()
        deadline = self._timeouts.transaction_s if bounded else None
        setup: list[Any] = []  # statements that open the transaction
        if role is not None:  # ends with the transaction (art. 20.4: the purge's)
            setup.append(pg_sql.SQL("SET LOCAL ROLE {}").format(pg_sql.Identifier(role)))
        if snapshot:
            setup.append("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        if not bounded:  # a walk of whole tables: no statement bound either
            setup.append("SET LOCAL statement_timeout = 0")
        if write and head:
            setup.append(LOCK_HEAD)
        for attempt in itertools.count(1):
            try:
                with contextlib.nullcontext(conn) if conn is not None else self._counted() as held:
                    return self._attempt(held, work, write, deadline, setup, pipelined)
            except _RETRYABLE as exc:
                self.retries += 1
                if attempt >= MAX_ATTEMPTS:
                    raise StoreError(
                        f"conflicting desks: gave up after {attempt} attempts",
                        code=PgStoreCode.BUSY,
                    ) from exc
                time.sleep(random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_S * 2**attempt)))
            except PoolTimeout as exc:
                raise self._no_connection() from exc
            except psycopg.Error as exc:
                raise store_error(exc, write=write) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _no_connection(self) -> StoreError:
        """The pool gave no connection in time: every one is in use by this desk's other
        calls (``PG_BUSY``), or fewer are because the server cannot be reached."""
        with self._calls_lock:
            in_use = self._in_use
        if in_use < self._pool.max_size:
            return StoreError("no connection to the server", code=PgConnectCode.UNREACHABLE)
        return StoreError("every connection to the server is in use", code=PgStoreCode.BUSY)

    def _attempt(
        self,
        conn: Conn,
        work: Work[T],
        write: bool,
        bound: float | None,
        setup: list[Any],
        pipelined: bool = False,
    ) -> T:
        committing = False
        plain_read = not write and not setup
        with self._watchdog.guarding(conn, bound) as guard:
            try:
                tx = PgTx(conn, self.ring, self._audit_key, self.clock.now, self._secrets)
                if pipelined:
                    # BEGIN and COMMIT are this store's own statements, not psycopg's
                    # transaction block, which in a pipeline waits for a Sync before
                    # COMMIT and another after it: two round trips more
                    # rolled back after the pipeline's end, whatever failed: a statement
                    # in it (skipped from there, its COMMIT too), the work, or the end
                    with _rolled_back_on_error(conn), conn.pipeline() as pipeline:
                        tx.pipelined(pipeline, ["BEGIN", *setup])
                        result = work(tx)
                        if write:
                            chain.account_erasures(tx, self._audit_key, self.clock.now)
                        tx.send("COMMIT")
                        committing = True  # leaving the pipeline sends the writes and COMMIT
                        tx.flush()
                else:
                    with contextlib.nullcontext() if plain_read else conn.transaction():
                        for statement in setup:
                            conn.execute(statement)
                        result = work(tx)
                        if write:
                            chain.account_erasures(tx, self._audit_key, self.clock.now)
                        committing = True  # leaving the block sends COMMIT
            except _RETRYABLE:
                raise
            except psycopg.Error as exc:
                # The link is gone when the watchdog ended it or the connection broke (a
                # reset, the server's end or its FATAL such as the idle-in-transaction
                # timeout, 25P03). Anything else, the statement timeout (57014) included,
                # came on a live connection: rolled back.
                fired = guard is not None and guard.fired
                if fired or conn.broken or conn.closed:
                    raise link_error(exc, write=write, fired=fired, committing=committing) from exc
                raise
        self._secrets.update(tx.secrets)  # committed: another desk reads the same ones
        newest = self.committed_head
        if tx.head is not None and (newest is None or tx.head.seq > newest.seq):
            self.committed_head = tx.head
        return result

    @contextlib.contextmanager
    def session_lock(self, label: bytes, busy: StoreError) -> Iterator[None]:
        """A session advisory lock named by ``label``, on a connection of its own: ``busy``
        at once when another desk holds it; a killed process's session ends and frees it."""
        if self._pool.max_size < 2:
            raise ConfigError("the server store's pool needs two connections for this act")
        key = self._lock_key(label)
        with self._mapped(counted=False), self._pool.connection() as conn:
            got = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if not got or not got[0]:
                raise busy
            try:
                yield
            finally:  # a broken connection: its session, and the lock, end with it
                with contextlib.suppress(psycopg.Error):
                    conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def chained_under_key(self, entry: Sequence[Any]) -> bool:
        """Whether an entry (``seq, at, actor, action, subject, details, prev_digest,
        digest, refs``, e.g. a desk file's head) was chained under this store's key."""
        return chain.signed_by(self._audit_key, chain_row([*entry, True]))

    def act_locks(self) -> Callable[[Sequence[str]], AbstractContextManager[None]]:
        """Locks by name held across one act's transactions on a connection of their own:
        the accounts' (db/accounts.py), so that a lockout counts every desk's failures."""
        if self._pool.max_size < 2:
            raise ConfigError("the store's pool needs two connections for the accounts")
        return self._act_locked

    @contextlib.contextmanager
    def _act_locked(self, names: Sequence[str]) -> Iterator[None]:
        """Transaction-level advisory locks, taken in the order given (everywhere the same:
        no deadlock)."""
        with self._mapped(counted=False), self._pool.connection() as conn, conn.transaction():
            for name in names:
                label = _ACT_LOCK_LABEL + b"/" + name.encode("utf-8")
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key(label),))
            yield

    def write(self, work: Work[T]) -> T:
        """``work`` in one write transaction (retried whole on a serialisation failure)."""
        return self._run(work, write=True)

    def read(self, work: Work[T]) -> T:
        return self._run(work, write=False)

    def bulk_write(self, work: Work[T]) -> T:
        """A write locking the chain's head at its entry, not before the load (the register's
        pages, art. 20.2), with no watchdog or statement bound: admissions do not wait."""
        return self._run(work, write=True, bounded=False, head=False)

    def adopt_ring(self, ring: KeyRing) -> None:
        """Seal, open and look up with ``ring`` from now on (a rotation's)."""
        self.ring = ring

    def record_admission(
        self, entry: AdmissionEntry, *, admission_id: str | None = None
    ) -> RecordedAdmission:
        """Idempotent by ``admission_id``: after ``outcome_unknown`` the desk asks again with
        the same id and gets the admission as recorded (``PG_ADMISSION_ID_REUSED``: another's)."""
        return self._run(
            lambda tx: visitors.record_admission(tx, entry, admission_id or ""),
            write=True,
            pipelined=True,
        )

    def recorded_admission(self, admission_id: str) -> RecordedAdmission | None:
        """The admission recorded under ``admission_id`` (unique: a lost call reaching the
        server later cannot record it twice), or None."""
        return self.read(lambda tx: visitors.recorded_admission(tx, admission_id))

    def inspect_visitors(self, criteria: SearchCriteria, limit: int) -> list[Visitor]:
        """The inspectors' search (art. 20.4) over sealed names (db/pg/inspection.py)."""
        return self.read(lambda tx: inspection.listed(tx, criteria, limit, find_sealed))

    def verify(
        self, anchors: Sequence[AuditAnchor] = (), *, settings: Mapping[str, str] | None = None
    ) -> AuditCheck:
        """Walk the chain in one snapshot, check it against ``anchors`` (heads kept outside
        the database), then every row present."""
        # the staff rows are named by a keyed hash: its secret is read (or made) before
        # the read-only snapshot, where it could not be written
        self.secret(chain.SUBJECT_SECRET)
        return self._run(
            lambda tx: chain.verify_in(tx, self._audit_key, anchors, settings),
            write=False,
            snapshot=True,
            bounded=False,
        )

    def secret(self, name: str) -> bytes:
        """A secret once read is kept (it never changes): no transaction for it again."""
        return self._secrets.get(name) or super().secret(name)  # 32 random bytes, never empty

    def ping(self) -> float:
        """Seconds the server took to answer a trivial read (the status bar's light)."""
        started = time.perf_counter()
        self.read(lambda tx: tx.one("SELECT 1"))
        return time.perf_counter() - started

    def integrity_check(self, *, structure: bool = False) -> IntegrityReport:
        """No page checked: the server's pages are its own (its data checksums); every
        personal value is authenticated when opened; ``verify`` checks every row (art. 20.4)."""
        self.ping()
        return IntegrityReport(pages=0)

    def purge(self, cutoff: datetime, *, batch: int = retention.BATCH) -> PurgeReport:
        """Erase what the six-month rule says (art. 20.4) in short transactions, as the purge
        group, under a session advisory lock: a second desk waits, then finds nothing left."""
        with self._mapped(), self._counted() as conn:
            self._check_purge(conn)
            # another desk's purge may run long: wait for it without a bound
            conn.execute("SET statement_timeout = 0")
            conn.execute("SELECT pg_advisory_lock(%s)", (self.purge_lock_key,))

            def run(work: Work[T]) -> T:
                return self._run(work, write=True, conn=conn, bounded=False, role=self.purge_role)

            try:
                return retention.purge(run, cutoff, self.clock.now, batch)
            finally:
                with contextlib.suppress(psycopg.Error):
                    conn.execute("SELECT pg_advisory_unlock(%s)", (self.purge_lock_key,))
                    conn.execute(f"SET statement_timeout = {self._timeouts.statement_ms:d}")

    def may_purge(self) -> bool:
        """This desk's login may purge: it owns the schema, there are no groups or it is in."""
        role = self.purge_role
        return role is None or bool(self.read(lambda tx: pg_roles.may_purge(tx.conn, role)))

    def _check_purge(self, conn: Conn) -> None:
        """Refuse a login not admitted to the purge group (art. 20.4), before any lock."""
        if self.purge_role is not None and not pg_roles.may_purge(conn, self.purge_role):
            raise StoreError(
                "this desk's login is not admitted to the purge",
                code=pg_roles.PgRoleCode.PURGE_NOT_ALLOWED,
            )

    def purge_write(self, work: Work[T]) -> T:
        """A write of the purge (the closed vouchers', db/voucher_book.py), as its group."""
        if self.purge_role is not None:
            with self._mapped(), self._pool.connection() as conn:
                self._check_purge(conn)
        return self._run(work, write=True, role=self.purge_role)

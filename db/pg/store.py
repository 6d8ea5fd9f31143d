"""``PgStore``: the visitor file on a PostgreSQL server, behind the same ports as the
SQLCipher store (VisitorFile, CardBook, BanList, StaffList, PeopleListings, AuditTrail,
Retention; admission/ports.py).

Several desks and the annex rooms of one operating unit (Decreto 58/2006, arts. 154-155)
share ONE visitor file (art. 20.3), ONE gapless card sequence (art. 22.1), one ban list
(art. 21), one staff list (art. 18) and one audit trail (art. 20.4):

* Personal values are sealed by the desk (db/pg/crypto.py, bound to table, column and
  row); identities are found by their blind index, names by blind-index tokens.
* Every write transaction first locks the head of the audit chain (the ``audit`` row of
  ``counters``, ``SELECT ... FOR UPDATE``): the writes of all desks are serialised there,
  the chain stays one chain, and a card number taken from the ``card`` counter row
  (``UPDATE ... RETURNING next - 1``) in the admission transaction is never lost nor
  repeated. The check for the visitor's other valid card (art. 22) runs after the lock,
  so two desks admitting one person at one instant issue one card.
* Serialisation failures (40001) and deadlocks (40P01) are retried here a bounded number
  of times with jittered backoff; the caller never sees them (``PG_BUSY`` only when
  every attempt failed).
* The purge (art. 20.4) runs under a session advisory lock: one desk purges at a time.
* Every call is bounded (:class:`PgTimeouts`): a server or a network that dies or goes
  silent ends the call with a code (``PG_CONNECTION_LOST``, ``PG_SERVER_TIMEOUT``,
  ``PG_UNREACHABLE``), never a hang, and the server rolls back what the lost desk left
  open, so the chain's head is not held. A link lost while committing is reported with
  ``outcome_unknown`` (:class:`PgLinkError`); an admission id (:func:`new_admission_id`)
  lets the desk ask again without taking a second card number.

    with PgStore.open(conninfo, installation_key, audit_key=key, create=True) as store:
        store.record_admission(entry, admission_id=new_admission_id())
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import itertools
import logging
import random
import threading
import time
import uuid
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
from admission.ports import Clock
from admission.records import (
    AdmissionEntry,
    AuditAnchor,
    AuditCheck,
    IntegrityReport,
    PurgeReport,
    RecordedAdmission,
)
from db import chain, retention, visitors
from db.audit_chain import chain_row
from db.audit_key import AuditKey
from db.file_ports import FilePorts
from db.keys import DbKey
from db.pg import roles as pg_roles
from db.pg.codes import PgStoreCode
from db.pg.connect import PgConnectCode, connect
from db.pg.crypto import InstallationKey, KeyRing
from db.pg.link import PgLinkError, PgTimeouts, Watchdog, link_error, store_error
from db.pg.opening import prepare
from db.pg.tx import LOCK_HEAD, PgTx
from db.visitors import PgAdmissionCode

__all__ = [
    "MAX_ATTEMPTS",
    "PgAdmissionCode",
    "PgLinkError",
    "PgStore",
    "PgTimeouts",
    "new_admission_id",
]

log = logging.getLogger("admission.db.pg")
T = TypeVar("T")
Conn = psycopg.Connection[Any]

MAX_ATTEMPTS = 12  # tries of one transaction that meets serialisation failures/deadlocks
BACKOFF_S = 0.005  # first backoff; doubles per attempt, jittered, capped
BACKOFF_CAP_S = 0.25
_RETRYABLE = (pg_errors.SerializationFailure, pg_errors.DeadlockDetected)
_PURGE_LOCK_LABEL = b"admission-desk/pg/purge-lock/v1"
_ACT_LOCK_LABEL = b"admission-desk/pg/account-lock/v1"  # PgStore.act_locks


def new_admission_id() -> str:
    """A fresh admission id (a random UUID, RFC 9562 version 4), made by the desk before
    its first attempt and kept until the admission's outcome is known."""
    return str(uuid.uuid4())


class PgStore(FilePorts):
    """The shared visitor file on a PostgreSQL server. Thread-safe (a connection pool);
    each process opens its own."""

    dialect = "pg"  # of its transactions (db/tx.py)

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
        self._purge_role = purge_role  # db/pg/roles.py: SET LOCAL ROLE in purge transactions
        self._timeouts = timeouts or PgTimeouts()
        self._watchdog = watchdog or Watchdog()
        self._calls_lock = threading.Lock()
        self._in_use = 0  # calls holding a pooled connection now
        self._ring = ring
        self._audit_key = audit_key
        self._database_id = database_id
        self._clock: Clock = clock or SystemClock()
        self._secrets: dict[str, bytes] = {}
        self._closed = False
        self._purge_lock = self._lock_key(_PURGE_LOCK_LABEL)
        self.retries = 0  # transactions retried after a serialisation failure/deadlock

    # -- opening ---------------------------------------------------------------------------

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
    ) -> PgStore:
        """Connect, check the database, apply pending migrations and open a pool.

        ``key`` is the installation key (or the desk's key, from which it is derived
        with the database's id). ``database_id``: the database this desk is configured
        for (None: whichever this is, e.g. the first start). ``create``: make the visitor
        file in an empty database. Refused before anything is written: a schema of a
        newer program (``PG_SCHEMA_NEWER``), another database (``PG_DATABASE_OTHER``), a
        wrong installation key (``PG_INSTALLATION_KEY_WRONG``), data keys from another
        database (``PG_WRAPPED_KEY_TAMPERED``), a wrong audit key (``AUDIT_KEY_WRONG``),
        no visitor file (``PG_NO_VISITOR_FILE``), pending migrations this login may not
        run (``PG_SCHEMA_OLDER``: only the schema's owner or a member of its owner group
        migrates, db/pg/roles.py); connection refusals keep their ``PgConnectCode``.

        ``timeouts`` (:class:`PgTimeouts`; its defaults when None) bound every call:
        the pool's connections carry them, and a pooled connection is checked, within
        the watchdog's bound, before each use (a connection the server or the network
        ended since is replaced, not handed to the call).
        """
        bounds = timeouts or PgTimeouts()
        conninfo = bounds.conninfo(conninfo)
        conn = connect(conninfo, autocommit=True)
        try:
            ring, found_id = prepare(conn, key, database_id, create, audit_key)
            purge_role = pg_roles.purge_role(conn)
        except psycopg.Error as exc:
            raise store_error(exc, write=True) from exc
        finally:
            conn.close()

        watchdog = Watchdog()

        def check(pooled: Conn) -> None:
            guard = watchdog.arm(pooled, bounds.transaction_s) if bounds.transaction_s else None
            try:
                pooled.execute("")
            finally:
                if guard is not None:
                    watchdog.disarm(guard)

        pool: ConnectionPool[Conn] = ConnectionPool(
            conninfo,
            min_size=min_connections,
            max_size=max(min_connections, max_connections),
            kwargs={"autocommit": True},
            configure=bounds.session,
            check=check,
            timeout=bounds.pool_wait_s,
            open=False,
        )
        try:
            pool.open(wait=True, timeout=max(30.0, bounds.pool_wait_s))
        except PoolTimeout as exc:
            pool.close()
            raise StoreError("the server did not give a connection", code=PgStoreCode.BUSY) from exc
        store = cls(pool, ring, audit_key, found_id, clock, bounds, watchdog, purge_role)
        try:
            store._adopt_coverage()
        except BaseException:
            store.close()
            raise
        return store

    def _adopt_coverage(self) -> None:
        """Once, for a server file whose chain began before it covered vouchers and RIAJ
        snapshots (migration 0070): one entry committing to those present and saying
        where the counters stand. A login that may not write leaves it to the next."""
        pending = "SELECT 1 FROM counters WHERE name = 'audit_coverage' AND next = 1"
        if self.read(lambda tx: tx.one(pending)) is None:
            return

        def work(tx: PgTx) -> None:
            if tx.one(pending) is None:  # another desk adopted them meanwhile
                return
            chain.adopt_coverage(tx, self._audit_key, self._now())
            tx.execute("UPDATE counters SET next = 2 WHERE name = 'audit_coverage'")

        try:
            self.write(work)
        except StoreError as exc:
            log.warning("the vouchers and snapshots were not adopted yet: %s", exc.code)

    def _lock_key(self, label: bytes) -> int:
        """An advisory lock's key: ``label`` under the database's id."""
        digest = hmac.new(self._database_id.encode("utf-8"), label, hashlib.sha256)
        return int.from_bytes(digest.digest()[:8], "big", signed=True)

    @property
    def timeouts(self) -> PgTimeouts:
        """The bounds this store's calls run under."""
        return self._timeouts

    @property
    def database_id(self) -> str:
        """The database's random id: a desk keeps it and refuses any other database."""
        return self._database_id

    @property
    def ring(self) -> KeyRing:
        return self._ring

    @property
    def purge_role(self) -> str | None:
        """The group the purge acts as (``SET LOCAL ROLE``, db/pg/roles.py), None when
        this login owns the schema or the schema has no groups."""
        return self._purge_role

    @property
    def purge_lock_key(self) -> int:
        """The advisory lock key a purge holds (derived from the database's id)."""
        return self._purge_lock

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.close()
            self._watchdog.close()

    def __repr__(self) -> str:
        return f"<PgStore {'closed' if self._closed else 'open'}>"

    def _now(self) -> datetime:
        return self._clock.now()

    # -- transactions ------------------------------------------------------------------------

    def _run(
        self,
        work: Callable[[PgTx], T],
        *,
        write: bool,
        snapshot: bool = False,
        conn: Conn | None = None,
        bounded: bool = True,
        role: str | None = None,
        head: bool = True,
    ) -> T:
        """Run ``work`` in one transaction, again after a serialisation failure or a
        deadlock (bounded, jittered backoff). A write first locks the chain's head
        (without ``head``, its first entry does). ``bounded``: under the watchdog of
        :attr:`PgTimeouts.transaction_s`. ``role``: the transaction acts as that group
        (``SET LOCAL ROLE``: the purge's).

        A link that fails raises :class:`PgLinkError` and is never retried here: a
        write may have committed (``outcome_unknown``), and a server that went away
        is the desk's to report at once (art. 20: nobody is admitted unrecorded)."""
        if self._closed:
            raise StoreError("the store is closed", code=StoreErrorCode.STORE_CLOSED)
        deadline = self._timeouts.transaction_s if bounded else None
        for attempt in itertools.count(1):
            try:
                if conn is not None:
                    return self._attempt(
                        conn, work, write, snapshot, deadline, not bounded, role, head
                    )
                with self._pool.connection() as pooled:
                    with self._calls_lock:
                        self._in_use += 1
                    try:
                        return self._attempt(
                            pooled, work, write, snapshot, deadline, not bounded, role, head
                        )
                    finally:
                        with self._calls_lock:
                            self._in_use -= 1
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
        work: Callable[[PgTx], T],
        write: bool,
        snapshot: bool,
        deadline: float | None = None,
        walk: bool = False,
        role: str | None = None,
        head: bool = True,
    ) -> T:
        guard = self._watchdog.arm(conn, deadline) if deadline else None
        committing = False
        try:
            with conn.transaction():
                if role is not None:  # ends with the transaction (art. 20.4: the purge's)
                    conn.execute(pg_sql.SQL("SET LOCAL ROLE {}").format(pg_sql.Identifier(role)))
                if snapshot:
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                if walk:  # a walk of whole tables: no statement bound either
                    conn.execute("SET LOCAL statement_timeout = 0")
                if write and head:
                    conn.execute(LOCK_HEAD)
                tx = PgTx(conn, self._ring, self._audit_key, self._now, self._secrets)
                result = work(tx)
                if write:
                    chain.account_erasures(tx, self._audit_key, self._now)
                committing = True  # leaving the block sends COMMIT
        except _RETRYABLE:
            raise
        except psycopg.Error as exc:
            # The link is gone when the watchdog ended it or the connection broke: a
            # reset, the server's end (killed, restarted, or the session's FATAL such as
            # its idle-in-transaction timeout, 25P03). Anything else, the statement
            # timeout (57014) included, came on a live connection: rolled back.
            fired = guard is not None and guard.fired
            if fired or conn.broken or conn.closed:
                raise link_error(exc, write=write, fired=fired, committing=committing) from exc
            raise
        finally:
            if guard is not None:
                self._watchdog.disarm(guard)
        self._secrets.update(tx.secrets)  # committed: another desk reads the same ones
        return result

    @contextlib.contextmanager
    def session_lock(self, label: bytes, busy: StoreError) -> Iterator[None]:
        """A session advisory lock named by ``label`` (derived from the database's id) on
        a pooled connection of its own for the block: one holder at a time across desks,
        ``busy`` raised at once when another holds it; a killed process's session ends
        and frees it. The block's transactions need another connection of the pool."""
        if self._pool.max_size < 2:
            raise ConfigError("the server store's pool needs two connections for this act")
        key = self._lock_key(label)
        try:
            with self._pool.connection() as conn:
                got = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
                if not got or not got[0]:
                    raise busy
                try:
                    yield
                finally:  # a broken connection: its session, and the lock, end with it
                    with contextlib.suppress(psycopg.Error):
                        conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        except PoolTimeout as exc:
            raise StoreError("no connection to the server", code=PgStoreCode.BUSY) from exc
        except psycopg.Error as exc:
            raise store_error(exc, write=True) from exc

    @property
    def clock(self) -> Clock:
        """The clock the store's own entries are stamped by."""
        return self._clock

    def chained_under_key(self, entry: Sequence[Any]) -> bool:
        """Whether an entry (``seq, at, actor, action, subject, details, prev_digest,
        digest, refs``, e.g. a desk file's head before it is copied here) was chained
        under this store's audit key."""
        return chain.signed_by(self._audit_key, chain_row([*entry, True]))

    def act_locks(self) -> Callable[[Sequence[str]], AbstractContextManager[None]]:
        """Locks by name held across the transactions of one act, on one pooled
        connection: the accounts' (db/accounts.py), so that a lockout counts every
        failure of every desk. The pool needs two connections: the lock's and the act's."""
        if self._pool.max_size < 2:
            raise ConfigError("the store's pool needs two connections for the accounts")
        return self._act_locked

    @contextlib.contextmanager
    def _act_locked(self, names: Sequence[str]) -> Iterator[None]:
        """Transaction-level advisory locks, taken in the order given (the caller's
        order is the same everywhere: no deadlock), released when the act ends."""
        try:
            with self._pool.connection() as conn, conn.transaction():
                for name in names:
                    label = _ACT_LOCK_LABEL + b"/" + name.encode("utf-8")
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key(label),))
                yield
        except PoolTimeout as exc:
            raise StoreError("no connection to the server", code=PgStoreCode.BUSY) from exc
        except psycopg.Error as exc:
            raise store_error(exc, write=True) from exc

    # -- for the adapters beside the store (db/pg: accounts, vouchers, reads, rotation...):
    # their SQL in the store's transactions, under its watchdog, retries and codes

    def write(self, work: Callable[[PgTx], T]) -> T:
        """``work`` in one write transaction (retried whole on a serialisation failure)."""
        return self._run(work, write=True)

    def read(self, work: Callable[[PgTx], T]) -> T:
        """``work`` in one read-only transaction."""
        return self._run(work, write=False)

    def bulk_write(self, work: Callable[[PgTx], T]) -> T:
        """``work`` in one write transaction that takes its own lock first (the
        register's swap and feed pages, art. 20.2, db/registry_replica.py): the chain's
        head is locked by its entry, not before the load, so the desks' admissions do
        not wait for it, and no watchdog or statement bound cuts a bulk load short."""
        return self._run(work, write=True, bounded=False, head=False)

    def adopt_ring(self, ring: KeyRing) -> None:
        """Seal, open and look up with ``ring`` from now on (a rotation's new version
        current; the old ones still held while rows use them)."""
        self._ring = ring

    # -- VisitorFile (db/visitors.py, through db/file_ports.py): the server's admission ids

    def record_admission(
        self, entry: AdmissionEntry, *, admission_id: str | None = None
    ) -> RecordedAdmission:
        """The admission of db/visitors.py, after the chain's head lock. ``admission_id``
        (:func:`new_admission_id`, made by the desk before its first attempt; else the
        entry's) makes the call idempotent: a desk told ``PG_CONNECTION_LOST`` with
        ``outcome_unknown`` calls again with the same id and gets the admission as it was
        recorded (``PG_ADMISSION_ID_REUSED`` for an id used for another)."""
        return self.write(lambda tx: visitors.record_admission(tx, entry, admission_id or ""))

    def recorded_admission(self, admission_id: str) -> RecordedAdmission | None:
        """The admission recorded under ``admission_id``, or None when none is (it waits
        for a write still running first). The safe way to finish an admission whose
        outcome is unknown stays :meth:`record_admission` with the same id: the id is
        unique, so even a lost call that reaches the server later cannot record the
        admission a second time (its insert fails and it rolls back, number included)."""
        return self.read(lambda tx: visitors.recorded_admission(tx, admission_id))

    # -- AuditTrail (db/chain.py, through db/file_ports.py): the server's key and snapshot --

    def verify(
        self, anchors: Sequence[AuditAnchor] = (), *, settings: Mapping[str, str] | None = None
    ) -> AuditCheck:
        """Walk the whole chain with the key in one snapshot, check it against
        ``anchors`` (heads kept outside the database), then every row present."""
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
        cached = self._secrets.get(name)
        return cached if cached is not None else super().secret(name)

    # -- the desk's health checks ---------------------------------------------------------

    def ping(self) -> float:
        """The server answers a trivial read; how long it took, in seconds (the status
        bar's database light). A server that does not answer raises ``PgLinkError``."""
        started = time.perf_counter()
        self.read(lambda tx: tx.one("SELECT 1"))
        return time.perf_counter() - started

    def integrity_check(self, *, structure: bool = False) -> IntegrityReport:
        """The pages of a server are the server's to check (PostgreSQL's data checksums
        and its administrators' tools), not a desk's: no page is checked here
        (``pages`` 0). Every personal value is authenticated when it is opened
        (AES-GCM bound to its table, column and row) and ``verify`` checks every row
        the audit chain commits to (art. 20.4)."""
        self.read(lambda tx: tx.one("SELECT 1"))
        return IntegrityReport(pages=0)

    @property
    def damaged(self) -> bool:
        """Never: a desk does not judge the server's pages (see :meth:`integrity_check`);
        a refused value or row raises where it is read."""
        return False

    @property
    def audit_key_source(self) -> str:
        """Where the audit key in use came from ("env", "keyring"...)."""
        return self._audit_key.source

    # -- Retention (db/retention.py: the rules; here the purge's lock and role) -------------

    def purge(self, cutoff: datetime, *, batch: int = retention.BATCH) -> PurgeReport:
        """Erase what the six-month rule says (art. 20.4, R3; db/retention.py), in short
        transactions, under a session advisory lock: one desk purges at a time, a second
        waits and then finds nothing left to erase.

        With roles (db/pg/roles.py) each transaction acts as the purge group (``SET LOCAL
        ROLE``); a login not admitted to the purge is refused before anything is
        erased (``PG_PURGE_NOT_ALLOWED``), and its ordinary session cannot delete."""
        if self._closed:
            raise StoreError("the store is closed", code=StoreErrorCode.STORE_CLOSED)
        try:
            with self._pool.connection() as conn:
                with self._calls_lock:
                    self._in_use += 1
                try:
                    self._check_purge(conn)
                    # another desk's purge may run long: wait for it without a bound
                    conn.execute("SET statement_timeout = 0")
                    conn.execute("SELECT pg_advisory_lock(%s)", (self._purge_lock,))
                    try:
                        return retention.purge(
                            lambda work: self._run(
                                work, write=True, conn=conn, bounded=False, role=self._purge_role
                            ),
                            cutoff,
                            self._now,
                            batch,
                        )
                    finally:
                        with contextlib.suppress(psycopg.Error):
                            conn.execute("SELECT pg_advisory_unlock(%s)", (self._purge_lock,))
                            conn.execute(
                                "SELECT set_config('statement_timeout', %s, false)",
                                (str(self._timeouts.statement_ms),),
                            )
                finally:
                    with self._calls_lock:
                        self._in_use -= 1
        except PoolTimeout as exc:
            raise self._no_connection() from exc
        except psycopg.Error as exc:
            raise store_error(exc, write=True) from exc

    def may_purge(self) -> bool:
        """This desk's login may run the purge (it owns the schema, or the schema has no
        groups, or it is admitted to the purge group): a desk that may not leaves the
        daily purge to the one that may (art. 20.4)."""
        if self._purge_role is None:
            return True
        role = self._purge_role
        return bool(self.read(lambda tx: pg_roles.may_purge(tx.conn, role)))

    def _check_purge(self, conn: Conn) -> None:
        """Refuse a login not admitted to the purge group (art. 20.4: only the purge
        erases), before any lock is taken or anything erased."""
        if self._purge_role is not None and not pg_roles.may_purge(conn, self._purge_role):
            raise StoreError(
                "this desk's login is not admitted to the purge",
                code=pg_roles.PgRoleCode.PURGE_NOT_ALLOWED,
            )

    def purge_write(self, work: Callable[[PgTx], T]) -> T:
        """``work`` as one write transaction of the purge (the closed vouchers' purge,
        db/voucher_book.py): as the purge group when roles are in use."""
        if self._purge_role is None:
            return self.write(work)
        try:
            with self._pool.connection() as conn:
                self._check_purge(conn)
        except PoolTimeout as exc:
            raise self._no_connection() from exc
        except psycopg.Error as exc:
            raise store_error(exc, write=True) from exc
        return self._run(work, write=True, role=self._purge_role)

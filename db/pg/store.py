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
import functools
import hashlib
import hmac
import itertools
import logging
import os
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import date, datetime
from types import TracebackType
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql as pg_sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool, PoolTimeout

from admission.clock import SystemClock
from admission.codes import Code
from admission.errors import (
    ConfigError,
    StoreError,
    StoreErrorCode,
)
from admission.identity import IdentityKey
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
from db.audit_chain import AuditChainCode, IndexMismatch, chain_row
from db.audit_key import AuditKey
from db.file_ports import FilePorts
from db.keys import DbKey
from db.pg import migrate as pg_migrate
from db.pg import roles as pg_roles
from db.pg.codes import PgStoreCode
from db.pg.connect import PgConnectCode, connect
from db.pg.crypto import InstallationKey, KeyRing, WrappedKey
from db.pg.latency import PgLinkCode
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
Commits = dict[str, tuple[str, bool]]

MAX_ATTEMPTS = 12  # tries of one transaction that meets serialisation failures/deadlocks
BACKOFF_S = 0.005  # first backoff; doubles per attempt, jittered, capped
BACKOFF_CAP_S = 0.25
_RETRYABLE = (pg_errors.SerializationFailure, pg_errors.DeadlockDetected)
_LOCK_HEAD = "SELECT next FROM counters WHERE name = 'audit' FOR UPDATE"
STREAM_BATCH = 2000  # rows per fetch of a whole-table read (_Tx.batches)
_CURSORS = itertools.count()  # names of the server-side cursors of those reads
_PURGE_LOCK_LABEL = b"admission-desk/pg/purge-lock/v1"
_ACT_LOCK_LABEL = b"admission-desk/pg/account-lock/v1"  # PgStore.act_locks


@dataclass(frozen=True, slots=True)
class PgTimeouts:
    """Every bound a desk puts on the server, so that a dead or silent network ends a call
    with a code instead of holding the desk (and, through the chain's head lock, every
    other desk) forever. The defaults are the production values; tests shorten them.

    Client side (libpq connection parameters, added unless the connection string sets
    them; TCP ones are ignored on a Unix socket):

    * ``connect_s``: libpq ``connect_timeout``, the whole connection set-up, TLS included
      (libpq counts anything under 2 as 2).
    * ``keepalives_*``: TCP keepalives (RFC 1122 section 4.2.3.6) on an idle connection:
      a peer that vanished is noticed after idle + interval x count seconds.
    * ``tcp_user_timeout_ms``: Linux ``TCP_USER_TIMEOUT`` (RFC 5482): data sent and not
      acknowledged for that long ends the connection (a cable pulled mid-call).
    * ``transaction_s``: the store's own watchdog over one attempt of one transaction
      of a desk call (None: none). A network that stays up but carries nothing (a
      frozen middlebox, which still acknowledges) is seen by no TCP timer: the watchdog
      shuts the connection's socket down and the call fails ``PG_SERVER_TIMEOUT``
      (``PG_CONNECTION_LOST`` when it was committing). Verification and the purge walk
      whole tables and have no watchdog.
    * ``pool_wait_s``: how long a call waits for a connection from the pool (a server
      that is down answers ``PG_UNREACHABLE`` after it).

    Server side (``set_config`` on each new session; a desk may set them for itself):

    * ``statement_ms``: ``statement_timeout``, one statement (a lock wait included).
    * ``idle_in_transaction_ms``: ``idle_in_transaction_session_timeout``. A desk's
      transaction never waits on a person; a session idle inside one is a desk whose
      network died while it held the chain's head lock: the server ends it, rolls it
      back (nothing half-written) and the other desks go on.
    * ``client_check_ms``: ``client_connection_check_interval`` (PostgreSQL 14+): a
      statement of a desk that went away is cancelled instead of run to its end.
    * ``server_keepalives_idle_s``: the server's TCP keepalives towards the desk.
    """

    connect_s: int = 5
    keepalives_idle_s: int = 10
    keepalives_interval_s: int = 3
    keepalives_count: int = 3
    tcp_user_timeout_ms: int = 15_000
    transaction_s: float | None = 20.0
    pool_wait_s: float = 10.0
    statement_ms: int = 30_000
    idle_in_transaction_ms: int = 5_000
    client_check_ms: int = 1_000
    server_keepalives_idle_s: int = 10

    def conninfo(self, conninfo: str) -> str:
        """``conninfo`` with the client-side bounds it does not set itself."""
        given = conninfo_to_dict(conninfo)
        extra: dict[str, Any] = {
            "connect_timeout": self.connect_s,
            "keepalives": 1,
            "keepalives_idle": self.keepalives_idle_s,
            "keepalives_interval": self.keepalives_interval_s,
            "keepalives_count": self.keepalives_count,
            "tcp_user_timeout": self.tcp_user_timeout_ms,
        }
        return make_conninfo(conninfo, **{k: v for k, v in extra.items() if k not in given})

    def session(self, conn: Conn) -> None:
        """The server-side bounds of a new session, in one round trip. An acknowledged
        admission must survive a server crash (art. 22.1: a card number handed out is
        never handed out again): a server whose default is ``synchronous_commit = off``
        would lose the last commits in a crash, so the session asks ``on`` then."""
        settings = [
            ("statement_timeout", str(self.statement_ms)),
            ("idle_in_transaction_session_timeout", str(self.idle_in_transaction_ms)),
            ("tcp_keepalives_idle", str(self.server_keepalives_idle_s)),
            ("tcp_keepalives_interval", str(self.keepalives_interval_s)),
            ("tcp_keepalives_count", str(self.keepalives_count)),
        ]
        if conn.info.server_version >= 140000:
            settings.append(("client_connection_check_interval", str(self.client_check_ms)))
        calls = ", ".join("set_config(%s, %s, false)" for _ in settings)
        params = [value for pair in settings for value in pair]
        conn.execute(
            f"SELECT {calls}, CASE WHEN current_setting('synchronous_commit') = 'off' "
            "THEN set_config('synchronous_commit', 'on', false) END",
            params,
        )


class PgLinkError(StoreError):
    """The link to the server failed during a call (``PG_CONNECTION_LOST``, or
    ``PG_SERVER_TIMEOUT`` when the store's watchdog gave up on a silent link).

    ``outcome_unknown``: the failure came while the transaction was committing, so it
    may or may not have committed. A write whose outcome is unknown is never retried
    by the store: the desk asks again with the same admission id
    (:meth:`PgStore.recorded_admission`, or :meth:`PgStore.record_admission` again),
    which returns the admission if it was recorded and records it once if it was not.
    Otherwise nothing of the call was written (the server rolls back a transaction
    whose connection ends)."""

    def __init__(self, detail: str, *, code: Code, outcome_unknown: bool) -> None:
        super().__init__(detail, code=code)
        self.outcome_unknown = outcome_unknown


class _Guard:
    """One armed deadline: the connection it ends, and whether it did."""

    __slots__ = ("conn", "deadline", "fired")

    def __init__(self, conn: Conn, deadline: float) -> None:
        self.conn = conn
        self.deadline = deadline
        self.fired = False


class _Watchdog:
    """Bounds transaction attempts (one thread per store, started on first use): at an
    attempt's deadline its connection's socket is shut down (both ways; the descriptor
    stays libpq's), so the call blocked on it fails at once and the pool discards the
    connection. A guard is fired and disarmed under the same lock, and disarmed before
    its connection goes back to the pool: the watchdog never touches a connection that
    another call holds."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: set[_Guard] = set()
        self._thread: threading.Thread | None = None
        self._closed = False

    def arm(self, conn: Conn, seconds: float) -> _Guard:
        guard = _Guard(conn, time.monotonic() + seconds)
        with self._cond:
            earliest = min((g.deadline for g in self._armed), default=None)
            self._armed.add(guard)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="pg-store-watchdog", daemon=True
                )
                self._thread.start()
            elif earliest is None or guard.deadline < earliest:
                self._cond.notify()  # the thread sleeps past this deadline: wake it
        return guard

    def disarm(self, guard: _Guard) -> None:
        with self._cond:
            self._armed.discard(guard)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._armed.clear()
            self._cond.notify()

    def _watch(self) -> None:
        with self._cond:
            while not self._closed:
                now = time.monotonic()
                for guard in [g for g in self._armed if g.deadline <= now]:
                    self._armed.discard(guard)
                    guard.fired = True
                    _shut_down(guard.conn)
                earliest = min((g.deadline for g in self._armed), default=None)
                self._cond.wait(None if earliest is None else max(0.0, earliest - now))


def _shut_down(conn: Conn) -> None:
    """Shut the connection's socket down: libpq's blocked read or write fails now."""
    try:
        fd = conn.pgconn.socket
    except psycopg.Error:
        return
    with contextlib.suppress(OSError):
        sock = socket.socket(fileno=os.dup(fd))
        try:
            sock.shutdown(socket.SHUT_RDWR)
        finally:
            sock.close()


def new_admission_id() -> str:
    """A fresh admission id (a random UUID, RFC 9562 version 4), made by the desk before
    its first attempt and kept until the admission's outcome is known."""
    return str(uuid.uuid4())


@functools.lru_cache(maxsize=1024)
def _pg_sql(sql: str) -> str:
    """The rules' ``?`` placeholders as psycopg's ``%s``; the server's own statements,
    already written with ``%s``, pass unchanged (no statement holds a literal ``?``)."""
    return sql.replace("?", "%s")


class _Tx:
    """One attempt of one transaction (the server's :class:`db.tx.Tx`): its connection
    and the rows it erased (counted by an ``ERASED`` entry before it commits, as
    db/audit.py does). Statements given to :meth:`one`/:meth:`all`/:meth:`execute` are
    the rules' own, with ``?`` placeholders; ``conn`` takes psycopg's."""

    __slots__ = ("changed", "conn", "erased", "secrets", "store")
    dialect = "pg"
    lock_rows = " FOR UPDATE"

    def __init__(self, conn: Conn, store: PgStore | None = None) -> None:
        self.conn = conn
        self.store = store
        self.erased: set[str] = set()
        self.changed: set[str] = set()  # cards that lost the link to an erased visit
        self.secrets: dict[str, bytes] = {}  # read or made here: kept once committed

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        return self.conn.execute(_pg_sql(sql), params).fetchone()

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(_pg_sql(sql), params).fetchall()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self.conn.execute(_pg_sql(sql), params).rowcount

    def many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.conn.cursor() as cur:
            cur.executemany(_pg_sql(sql), list(rows))

    def load(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        names = pg_sql.SQL(", ").join(pg_sql.Identifier(c) for c in columns)
        statement = pg_sql.SQL("COPY {} ({}) FROM STDIN").format(pg_sql.Identifier(table), names)
        with self.conn.cursor() as cur, cur.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)

    def next_number(self, counter: str) -> int:
        found = self.conn.execute(
            "UPDATE counters SET next = next + 1 WHERE name = %s RETURNING next - 1", (counter,)
        ).fetchone()
        assert found is not None
        return int(found[0])

    @staticmethod
    def ts(at: datetime) -> datetime:
        return at

    @staticmethod
    def day(value: date) -> date:
        return value

    @staticmethod
    def flag(value: bool) -> bool:
        return value

    def _ring(self) -> KeyRing:
        assert self.store is not None
        return self.store.ring

    @property
    def ring(self) -> KeyRing:
        """The key ring this transaction seals with (db/visitors.py: the name tokens)."""
        return self._ring()

    def seal(self, text: str, table: str, column: str, row: int | str) -> bytes:
        return self._ring().seal_text(text, table=table, column=column, row=row)

    def open(self, value: Any, table: str, column: str, row: int | str) -> str:
        return self._ring().open_text(bytes(value), table=table, column=column, row=row)

    def identity_match(self, column: str, identity: IdentityKey) -> tuple[str, list[Any]]:
        index = column.rsplit(".", 1)
        index[-1] = "id_index"
        return f"{'.'.join(index)} = ANY(?::bytea[])", [
            list(self._ring().identity_indexes(identity))
        ]

    def new_id(self, table: str, column: str) -> int:
        return _next_id(self, f"{table}_{column}_seq")

    def index_columns(
        self, *, identity: IdentityKey | None = None, number: str | None = None
    ) -> dict[str, Any]:
        ring = self._ring()
        columns: dict[str, Any] = {}
        if identity is not None:
            columns["id_index"] = ring.identity_index(identity)
        if number is not None:
            columns["number_index"] = ring.number_index(number)
        columns["key_version"] = ring.current_version
        return columns

    def keyed_hash(self, text: str) -> str:
        return chain.keyed_hash_in(self, text)

    @staticmethod
    def listed(values: Sequence[int] | Sequence[str]) -> tuple[str, list[Any]]:
        kind = "bigint" if all(isinstance(v, int) for v in values) else "text"
        return f"SELECT unnest(?::{kind}[]) AS value", [list(values)]

    def batches(self, sql: str, params: Sequence[Any] = ()) -> Iterator[list[tuple[Any, ...]]]:
        with self.conn.cursor(name=f"walk_{next(_CURSORS)}") as cur:
            cur.execute(_pg_sql(sql), params)
            while rows := cur.fetchmany(STREAM_BATCH):
                yield rows

    def erasures(self) -> tuple[list[str], list[str]]:
        erased, changed = sorted(self.erased), sorted(self.changed - self.erased)
        self.erased, self.changed = set(), set()
        return erased, changed

    def setting(self, key: str) -> str | bytes | None:
        name = key.removeprefix("secret:")
        secret = name != key
        cached = (self.store._secrets.get(name) if self.store else None) or self.secrets.get(name)
        if secret and cached is not None:
            return cached  # a secret never changes once made
        row = self.one("SELECT value FROM settings WHERE key = ?", (key,))
        if row is None:
            return None
        if not secret:
            return self.open(row[0], "settings", "value", key)
        value = self._ring().open(bytes(row[0]), table="settings", column="value", row=key)
        self.secrets[name] = value  # kept by the store once committed
        return value

    def put_setting(self, key: str, value: str | bytes, *, replace: bool = True) -> None:
        ring = self._ring()
        sealed = (
            ring.seal(value, table="settings", column="value", row=key)
            if isinstance(value, bytes)
            else ring.seal_text(value, table="settings", column="value", row=key)
        )
        self.execute(
            "INSERT INTO settings (key, value, key_version) VALUES (?, ?, ?) ON CONFLICT (key) "
            + (
                "DO UPDATE SET value = excluded.value, key_version = excluded.key_version"
                if replace
                else "DO NOTHING"
            ),
            (key, sealed, ring.current_version),
        )

    def check_index(
        self, ref: str, stored: Sequence[Any], *, identity: str = "", number: str = ""
    ) -> None:
        index, version = stored
        ring, held = self._ring(), int(version)
        if held not in ring.versions:
            return  # a version this desk no longer holds: its value did not open either
        expected = (
            ring.identity_index(IdentityKey.parse(identity), version=held)
            if identity
            else ring.number_index(number, version=held)
        )
        if bytes(index) != expected:
            raise IndexMismatch(ref)

    def note_erased(self, erased: Iterable[str], changed: Iterable[str] = ()) -> None:
        self.erased.update(erased)
        self.changed.update(changed)

    def index_name(
        self, file_number: int, surname: str, given_names: str, *, new: bool = False
    ) -> None:
        if not new:  # a new visitor has none: no round trip
            self.conn.execute("DELETE FROM name_tokens WHERE file_number = %s", (file_number,))
        tokens = self._ring().name_tokens(surname, given_names)
        if tokens:
            self.conn.execute(  # one statement: no pipeline left open in the transaction
                "INSERT INTO name_tokens (token, file_number) "
                "SELECT t, %s FROM unnest(%s::bytea[]) AS t",
                (file_number, list(tokens)),
            )

    def audit(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
        rows: Sequence[tuple[str, bool]] = (),
    ) -> int:
        assert self.store is not None
        return self.store._audit(self, actor, action, subject, at, details, rows)


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
        watchdog: _Watchdog | None = None,
        purge_role: str | None = None,
    ) -> None:
        self._pool = pool
        self._purge_role = purge_role  # db/pg/roles.py: SET LOCAL ROLE in purge transactions
        self._timeouts = timeouts or PgTimeouts()
        self._watchdog = watchdog or _Watchdog()
        self._calls_lock = threading.Lock()
        self._in_use = 0  # calls holding a pooled connection now
        self._ring = ring
        self._audit_key = audit_key
        self._database_id = database_id
        self._clock: Clock = clock or SystemClock()
        self._secrets: dict[str, bytes] = {}
        self._closed = False
        digest = hmac.new(database_id.encode("utf-8"), _PURGE_LOCK_LABEL, hashlib.sha256)
        self._purge_lock = int.from_bytes(digest.digest()[:8], "big", signed=True)
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
            ring, found_id = _prepare(conn, key, database_id, create, audit_key)
            purge_role = pg_roles.purge_role(conn)
        except psycopg.Error as exc:
            raise _store_error(exc, write=True) from exc
        finally:
            conn.close()

        watchdog = _Watchdog()

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
        if self._read(lambda tx: tx.one(pending)) is None:
            return

        def work(tx: _Tx) -> None:
            if tx.one(pending) is None:  # another desk adopted them meanwhile
                return
            chain.adopt_coverage(tx, self._audit_key, self._now())
            tx.execute("UPDATE counters SET next = 2 WHERE name = 'audit_coverage'")

        try:
            self._write(work)
        except StoreError as exc:
            log.warning("the vouchers and snapshots were not adopted yet: %s", exc.code)

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

    def __enter__(self) -> PgStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<PgStore {'closed' if self._closed else 'open'}>"

    def _now(self) -> datetime:
        return self._clock.now()

    # -- transactions ------------------------------------------------------------------------

    def _run(
        self,
        work: Callable[[_Tx], T],
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
                raise _store_error(exc, write=write) from exc
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
        work: Callable[[_Tx], T],
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
                    conn.execute(_LOCK_HEAD)
                tx = _Tx(conn, self)
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
                raise _link_error(exc, write=write, fired=fired, committing=committing) from exc
            raise
        finally:
            if guard is not None:
                self._watchdog.disarm(guard)
        self._secrets.update(tx.secrets)  # committed: another desk reads the same ones
        return result

    def _write(self, work: Callable[[_Tx], T]) -> T:
        return self._run(work, write=True)

    def _read(self, work: Callable[[_Tx], T]) -> T:
        return self._run(work, write=False)

    @contextlib.contextmanager
    def session_lock(self, label: bytes, busy: StoreError) -> Iterator[None]:
        """A session advisory lock named by ``label`` (derived from the database's id) on
        a pooled connection of its own for the block: one holder at a time across desks,
        ``busy`` raised at once when another holds it; a killed process's session ends
        and frees it. The block's transactions need another connection of the pool."""
        if self._pool.max_size < 2:
            raise ConfigError("the server store's pool needs two connections for this act")
        digest = hmac.new(self._database_id.encode("utf-8"), label, hashlib.sha256)
        key = int.from_bytes(digest.digest()[:8], "big", signed=True)
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
            raise _store_error(exc, write=True) from exc

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
                    digest = hmac.new(self._database_id.encode("utf-8"), label, hashlib.sha256)
                    key = int.from_bytes(digest.digest()[:8], "big", signed=True)
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
                yield
        except PoolTimeout as exc:
            raise StoreError("no connection to the server", code=PgStoreCode.BUSY) from exc
        except psycopg.Error as exc:
            raise _store_error(exc, write=True) from exc

    # -- for the adapters beside the store (db/pg: accounts, vouchers, reads, rotation...):
    # their SQL in the store's transactions, under its watchdog, retries and codes

    def write(self, work: Callable[[_Tx], T]) -> T:
        """``work`` in one write transaction (retried whole on a serialisation failure)."""
        return self._write(work)

    def read(self, work: Callable[[_Tx], T]) -> T:
        """``work`` in one read-only transaction."""
        return self._read(work)

    def bulk_write(self, work: Callable[[_Tx], T]) -> T:
        """``work`` in one write transaction that takes its own lock first (the
        register's swap and feed pages, art. 20.2, db/registry_replica.py): the chain's
        head is locked by its entry, not before the load, so the desks' admissions do
        not wait for it, and no watchdog or statement bound cuts a bulk load short."""
        return self._run(work, write=True, bounded=False, head=False)

    def adopt_ring(self, ring: KeyRing) -> None:
        """Seal, open and look up with ``ring`` from now on (a rotation's new version
        current; the old ones still held while rows use them)."""
        self._ring = ring

    # -- sealing -----------------------------------------------------------------------------

    def _seal(self, text: str, table: str, column: str, row: int | str) -> bytes:
        return self._ring.seal_text(text, table=table, column=column, row=row)

    # -- VisitorFile (db/visitors.py, through db/file_ports.py): the server's admission ids

    def record_admission(
        self, entry: AdmissionEntry, *, admission_id: str | None = None
    ) -> RecordedAdmission:
        """The admission of db/visitors.py, after the chain's head lock. ``admission_id``
        (:func:`new_admission_id`, made by the desk before its first attempt; else the
        entry's) makes the call idempotent: a desk told ``PG_CONNECTION_LOST`` with
        ``outcome_unknown`` calls again with the same id and gets the admission as it was
        recorded (``PG_ADMISSION_ID_REUSED`` for an id used for another)."""
        return self._write(lambda tx: visitors.record_admission(tx, entry, admission_id or ""))

    def recorded_admission(self, admission_id: str) -> RecordedAdmission | None:
        """The admission recorded under ``admission_id``, or None when none is (it waits
        for a write still running first). The safe way to finish an admission whose
        outcome is unknown stays :meth:`record_admission` with the same id: the id is
        unique, so even a lost call that reaches the server later cannot record the
        admission a second time (its insert fails and it rolls back, number included)."""
        return self._read(lambda tx: visitors.recorded_admission(tx, admission_id))

    # -- AuditTrail (db/chain.py, through db/file_ports.py): the server's key and snapshot --

    def _audit(
        self,
        tx: _Tx,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
        rows: Sequence[tuple[str, bool]] = (),
    ) -> int:
        """Append inside the caller's transaction (which holds the head lock), committing
        to ``rows`` as they are now: the entry and the act commit together."""
        key, now = self._audit_key, self._now
        return chain.append(tx, key, now, actor, action, subject, at, details, rows)

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
        self._read(lambda tx: tx.one("SELECT 1"))
        return time.perf_counter() - started

    def integrity_check(self, *, structure: bool = False) -> IntegrityReport:
        """The pages of a server are the server's to check (PostgreSQL's data checksums
        and its administrators' tools), not a desk's: no page is checked here
        (``pages`` 0). Every personal value is authenticated when it is opened
        (AES-GCM bound to its table, column and row) and ``verify`` checks every row
        the audit chain commits to (art. 20.4)."""
        self._read(lambda tx: tx.one("SELECT 1"))
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
            raise _store_error(exc, write=True) from exc

    def may_purge(self) -> bool:
        """This desk's login may run the purge (it owns the schema, or the schema has no
        groups, or it is admitted to the purge group): a desk that may not leaves the
        daily purge to the one that may (art. 20.4)."""
        if self._purge_role is None:
            return True
        role = self._purge_role
        return bool(self._read(lambda tx: pg_roles.may_purge(tx.conn, role)))

    def _check_purge(self, conn: Conn) -> None:
        """Refuse a login not admitted to the purge group (art. 20.4: only the purge
        erases), before any lock is taken or anything erased."""
        if self._purge_role is not None and not pg_roles.may_purge(conn, self._purge_role):
            raise StoreError(
                "this desk's login is not admitted to the purge",
                code=pg_roles.PgRoleCode.PURGE_NOT_ALLOWED,
            )

    def purge_write(self, work: Callable[[_Tx], T]) -> T:
        """``work`` as one write transaction of the purge (the closed vouchers' purge,
        db/voucher_book.py): as the purge group when roles are in use."""
        if self._purge_role is None:
            return self._write(work)
        try:
            with self._pool.connection() as conn:
                self._check_purge(conn)
        except PoolTimeout as exc:
            raise self._no_connection() from exc
        except psycopg.Error as exc:
            raise _store_error(exc, write=True) from exc
        return self._run(work, write=True, role=self._purge_role)


# -- helpers -----------------------------------------------------------------------------


def _prepare(
    conn: Conn,
    key: InstallationKey | DbKey,
    expected_id: str | None,
    create: bool,
    audit_key: AuditKey,
) -> tuple[KeyRing, str]:
    """Every check of :meth:`PgStore.open`, in the order that writes nothing before the
    database is known to be ours and readable; then the pending migrations."""
    migrations = pg_migrate.known()
    done = pg_migrate.applied(conn)
    pg_migrate.check_known(done, migrations)
    meta = _meta(conn) if done else None
    if meta is None:
        if not create:
            raise StoreError("the database holds no visitor file", code=PgStoreCode.NO_VISITOR_FILE)
        _migrate(conn, migrations, done)
        return _initialise(conn, key, expected_id, audit_key)
    database_id = meta
    if expected_id is not None and expected_id != database_id:
        raise StoreError(
            "the server's database is not the visitor file this desk is configured for",
            code=PgStoreCode.DATABASE_OTHER,
        )
    ring = KeyRing.load(_installation(key, database_id), database_id, _wrapped_keys(conn))
    _check_audit_key(conn, audit_key)
    _migrate(conn, migrations, done)
    return ring, database_id


def _migrate(conn: Conn, migrations: list[Any], done: dict[int, str]) -> None:
    """The pending migrations, by a login that may run them (db/pg/roles.py: the
    schema's owner, or a member of its owner group acting as it); any other login is
    refused (``PG_SCHEMA_OLDER``) before anything is written. New tables get their
    groups' rights in the same connection."""
    if all(m.version in done for m in migrations):
        return
    names = pg_roles.take_owner(conn)
    newly = pg_migrate.migrate(conn, migrations)
    if newly and names is not None:
        schema = conn.execute("SELECT current_schema()").fetchone()
        assert schema is not None
        pg_roles.apply_grants(conn, str(schema[0]), names)


def _meta(conn: Conn) -> str | None:
    """The database's id, None when the schema exists but the file was never made."""
    exists = conn.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
        "AND table_name = 'database_meta'"
    ).fetchone()
    if exists is None:
        return None
    row = conn.execute("SELECT database_id FROM database_meta").fetchone()
    return None if row is None else str(row[0])


def _installation(key: InstallationKey | DbKey, database_id: str) -> InstallationKey:
    if isinstance(key, InstallationKey):
        return key
    return InstallationKey.from_db_key(key, database_id=database_id)


def _wrapped_keys(conn: Conn) -> list[WrappedKey]:
    rows = conn.execute(
        "SELECT version, key_tag, wrapping_key_id, blob FROM data_keys ORDER BY version"
    ).fetchall()
    return [WrappedKey(int(v), int(t), str(w), bytes(b)) for v, t, w, b in rows]


def _initialise(
    conn: Conn, key: InstallationKey | DbKey, expected_id: str | None, audit_key: AuditKey
) -> tuple[KeyRing, str]:
    """The file's identity and first data key, once (another desk may race us: the head
    lock orders us, and the second loads what the first made)."""
    with conn.transaction():
        conn.execute(_LOCK_HEAD)
        existing = _meta(conn)
        if existing is not None:
            if expected_id is not None and expected_id != existing:
                raise StoreError(
                    "the server's database is not the visitor file this desk is configured for",
                    code=PgStoreCode.DATABASE_OTHER,
                )
            ring = KeyRing.load(_installation(key, existing), existing, _wrapped_keys(conn))
            _check_audit_key(conn, audit_key)
            return ring, existing
        database_id = expected_id or uuid.uuid4().hex
        ring, record = KeyRing.create(_installation(key, database_id), database_id)
        conn.execute("INSERT INTO database_meta (database_id) VALUES (%s)", (database_id,))
        conn.execute(
            "INSERT INTO data_keys (version, key_tag, wrapping_key_id, blob) "
            "VALUES (%s, %s, %s, %s)",
            (record.version, record.key_tag, record.wrapping_key_id, record.blob),
        )
    log.info("visitor file created on the server (database %s)", database_id[:8])
    return ring, database_id


def _check_audit_key(conn: Conn, key: AuditKey) -> None:
    """The first and the newest entries must verify under ``key`` (db/chain.py)."""
    ends = chain.keyed_ends(_Tx(conn))
    if ends and not any(chain.signed_by(key, row) for row in ends):
        raise StoreError(
            "the audit key does not match this file's chain", code=AuditChainCode.AUDIT_KEY_WRONG
        )


def _link_error(exc: psycopg.Error, *, write: bool, fired: bool, committing: bool) -> PgLinkError:
    """A link that failed during a transaction: lost while committing a write is an
    unknown outcome (``PG_CONNECTION_LOST``, ``outcome_unknown``); before, nothing was
    written (the server rolls back a transaction whose session ends)."""
    sqlstate = getattr(exc, "sqlstate", None) or ""
    verb = "write" if write else "read"
    # The server ended a session idle inside its transaction before it read the COMMIT
    # (25P03): rolled back. Any other failure while committing may have come after the
    # commit was durable - even the server's own FATAL of a crash (57P02) - so unknown.
    idle_ended = isinstance(exc, pg_errors.IdleInTransactionSessionTimeout)
    unknown = write and committing and not idle_ended
    if unknown:
        detail = f"{verb} lost while committing: the outcome is unknown ({type(exc).__name__})"
    else:
        detail = f"{verb} lost before commit: nothing written ({type(exc).__name__} {sqlstate})"
    code = PgLinkCode.SERVER_TIMEOUT if fired and not unknown else PgLinkCode.CONNECTION_LOST
    return PgLinkError(detail, code=code, outcome_unknown=unknown)


def _store_error(exc: psycopg.Error, *, write: bool) -> StoreError:
    """A server error as a StoreError (never the statement's values: no names in logs):
    a broken link is ``PG_CONNECTION_LOST``, a statement the server cancelled for its
    ``statement_timeout`` ``PG_SERVER_TIMEOUT``, a lock not granted within the
    transaction's ``lock_timeout`` ``PG_BUSY``, any other refusal ``PG_QUERY_FAILED``."""
    if isinstance(exc, pg_errors.QueryCanceled):
        code: Any = PgLinkCode.SERVER_TIMEOUT
    elif isinstance(exc, pg_errors.LockNotAvailable):  # waited its lock_timeout for a lock
        code = PgStoreCode.BUSY
    elif isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        code = PgLinkCode.CONNECTION_LOST
    else:
        code = PgStoreCode.QUERY_FAILED
    sqlstate = getattr(exc, "sqlstate", None) or ""
    verb = "write" if write else "read"
    return StoreError(f"{verb} failed on the server ({type(exc).__name__} {sqlstate})", code=code)


def _next_id(tx: _Tx, sequence: str) -> int:
    """The next id of a row whose sealed values are bound to it (known before sealing)."""
    found = tx.one(f"SELECT nextval('{sequence}')")
    assert found is not None
    return int(found[0])

"""The server's link, bounded: :class:`PgTimeouts`, the watchdog that ends a transaction
attempt on a silent link, and a failed call's codes (:class:`PgLinkError`, :func:`store_error`)."""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from admission.codes import Code
from admission.errors import StoreError
from db.pg.codes import PgStoreCode
from db.pg.latency import PgLinkCode

Conn = psycopg.Connection[Any]


@dataclass(frozen=True, slots=True)
class PgTimeouts:
    """Every bound a desk puts on the server: a dead or silent network ends a call with a
    code instead of holding every desk through the chain's head lock. Client side: libpq
    parameters the connection string does not set; server side: ``set_config`` per session."""

    connect_s: int = 5  # connect_timeout, TLS included (libpq counts under 2 as 2)
    keepalives_idle_s: int = 10  # TCP keepalives (RFC 1122 section 4.2.3.6)
    keepalives_interval_s: int = 3
    keepalives_count: int = 3
    tcp_user_timeout_ms: int = 15_000  # Linux TCP_USER_TIMEOUT (RFC 5482): a cable pulled
    # the watchdog over one attempt (None: none): a link up but silent, which no TCP timer
    # sees (PG_SERVER_TIMEOUT); verification and the purge walk whole tables without it
    transaction_s: float | None = 20.0
    pool_wait_s: float = 10.0  # the wait for a pooled connection
    statement_ms: int = 30_000  # statement_timeout, a lock wait included
    # idle_in_transaction_session_timeout: a desk's transaction never waits on a person; one
    # idle in it lost its network holding the head lock, so the server rolls it back
    idle_in_transaction_ms: int = 5_000
    client_check_ms: int = 1_000  # client_connection_check_interval (PostgreSQL 14+)
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
        """The server-side bounds of a new session, in one round trip; ``synchronous_commit``
        ``on`` when the server's is off: an acknowledged admission survives a crash
        (art. 22.1: a card number handed out is never handed out again)."""
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
    """The link failed during a call (``PG_CONNECTION_LOST``, ``PG_SERVER_TIMEOUT``).
    ``outcome_unknown``: while committing, so the desk asks again with the same admission
    id; otherwise nothing was written (the server rolls back when the connection ends)."""

    def __init__(self, detail: str, *, code: Code, outcome_unknown: bool) -> None:
        super().__init__(detail, code=code)
        self.outcome_unknown = outcome_unknown


@dataclass(eq=False, slots=True)  # by identity, in the watchdog's set
class _Guard:
    """One armed deadline: the connection it ends, and whether it did."""

    conn: Conn
    deadline: float
    fired: bool = False


class Watchdog:
    """Bounds transaction attempts (one thread per store): at a deadline the connection's
    socket is shut down, so the blocked call fails at once. A guard is fired and disarmed
    under one lock, before its connection goes back to the pool: the watchdog never
    touches a connection that another call holds."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: set[_Guard] = set()
        self._thread: threading.Thread | None = None
        self._closed = False

    @contextlib.contextmanager
    def guarding(self, conn: Conn, seconds: float | None) -> Iterator[_Guard | None]:
        """The block under a deadline ``seconds`` away (None or 0: none)."""
        if not seconds:
            yield None
            return
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
        try:
            yield guard
        finally:
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


def link_readable(conn: Conn) -> bool:
    """Whether an idle connection has something to read (or is closed): the server
    spoke unasked, which on an idle desk connection means it ended the session."""
    try:
        fd = conn.pgconn.socket
    except psycopg.Error:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _shut_down(conn: Conn) -> None:
    """Shut the connection's socket down: libpq's blocked read or write fails now."""
    try:
        fd = conn.pgconn.socket
    except psycopg.Error:
        return
    with contextlib.suppress(OSError), socket.socket(fileno=os.dup(fd)) as sock:
        sock.shutdown(socket.SHUT_RDWR)


def link_error(exc: psycopg.Error, *, write: bool, fired: bool, committing: bool) -> PgLinkError:
    """A link that failed during a transaction: while committing a write, an unknown
    outcome; before, nothing was written."""
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


# What the schema's own triggers say when they refuse (db/pg/migrations: the audit trail is
# append-only, art. 20.4; accounts are disabled, never deleted, art. 20.3). Only these
# fixed texts are passed on: any other server message may quote a value.
OWN_REFUSALS = frozenset({"audit trail is append-only", "accounts are disabled, never deleted"})


def store_error(exc: psycopg.Error, *, write: bool) -> StoreError:
    """A server error as a StoreError, never with the statement's values (no names in
    logs): a broken link, a cancelled statement, a lock not granted, or another refusal."""
    if isinstance(exc, pg_errors.QueryCanceled):
        code: Any = PgLinkCode.SERVER_TIMEOUT
    elif isinstance(exc, pg_errors.LockNotAvailable):  # waited its lock_timeout for a lock
        code = PgStoreCode.BUSY
    elif isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        code = PgLinkCode.CONNECTION_LOST
    else:
        code = PgStoreCode.QUERY_FAILED
    sqlstate = getattr(exc, "sqlstate", None) or ""
    text = f"{'write' if write else 'read'} failed on the server ({type(exc).__name__} {sqlstate})"
    refused = getattr(getattr(exc, "diag", None), "message_primary", None)
    if refused in OWN_REFUSALS:  # the schema's own fixed words, never a value
        text += f": {refused}"
    return StoreError(text, code=code)

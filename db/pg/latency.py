"""How far the visitor file's server is: a timed ``SELECT 1`` for the status bar. A desk
that cannot reach the server must say so at once and admit nobody on its own (Decreto
58/2006, art. 20: every admission is in the one visitor file), so a probe answers within
its timeout, never hangs. One connection is kept between probes: a TLS handshake per
probe would time the handshake, not the server.
"""

from __future__ import annotations

import contextlib
import os
import socket
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import unique
from typing import Any

import psycopg

from admission.codes import Code
from admission.errors import StoreError
from db.pg.connect import PgConnectCode, classify

_GRACE_S = 1.0  # after a timeout, how long the abandoned attempt may take to unwind


@unique
class PgLinkCode(Code):
    """Why an established link to the server failed (or its connection never finished)."""

    SERVER_TIMEOUT = "PG_SERVER_TIMEOUT"  # no answer within the probe's timeout
    CONNECTION_LOST = "PG_CONNECTION_LOST"  # reset or closed while in use


FailureCode = PgConnectCode | PgLinkCode

# libpq / OpenSSL / psycopg texts of a connection that broke after it was made
_LOST_MARKERS = (
    "server closed the connection unexpectedly",
    "connection reset by peer",
    "ssl syscall error",
    "ssl error: unexpected eof",
    "eof detected",
    "consuming input failed",
    "could not receive data from server",
    "could not send data to server",
    "the connection is lost",
    "the connection is closed",
    "connection timed out",
    "broken pipe",
)


def classify_failure(error: BaseException | str, *, established: bool = False) -> FailureCode:
    """``PG_CONNECTION_LOST`` for a connection that broke in use, else the code of
    :func:`db.pg.connect.classify` (a ``StoreError`` of ``connect`` keeps its own)."""
    if isinstance(error, StoreError) and isinstance(error.code, PgConnectCode):
        return error.code
    code = classify(error)
    if code is PgConnectCode.CONNECT_FAILED or established:
        message = str(error).lower()
        if any(marker in message for marker in _LOST_MARKERS):
            return PgLinkCode.CONNECTION_LOST
    return code


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """One probe: ``ok`` with the round trip in milliseconds, or a failure ``code``."""

    ok: bool
    ms: float | None  # the SELECT 1 round trip; None when it failed
    code: FailureCode | None  # None when ok
    connected: bool  # this probe opened a new connection (first, or after a failure)


@dataclass(frozen=True, slots=True)
class LatencySummary:
    """What the status bar shows: the last probe and the median of the recent ones."""

    last: ProbeResult | None  # None before the first probe
    p50_ms: float | None  # median of the successful probes among the last ``window``
    samples: int  # how many successful probes the median is over

    @property
    def reachable(self) -> bool:
        return self.last is not None and self.last.ok


class _Attempt:
    """One probe's work, run on its own thread so the caller's wait is bounded."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.fileno: int | None = None  # the connection's socket while it may be in use
        self.abandoned = False
        self.conn: psycopg.Connection[Any] | None = None
        self.connected = False
        self.ms: float | None = None
        self.error: BaseException | None = None
        self.established = False  # the failure came after the connection was made
        self.done = threading.Event()

    def discard(self, conn: psycopg.Connection[Any] | None) -> None:
        with self.lock:
            self.fileno = None
            self.conn = None
        _close(conn)

    def abandon(self) -> bool:
        """Wake a query blocked on a silent server: shut its socket down (a duplicate, under
        the lock so it cannot be another socket's by then); libpq fails the query. False
        while connecting: the factory's connect timeout ends that, and the worker closes it."""
        with self.lock:
            self.abandoned = True
            if self.fileno is None:
                return False
            with contextlib.suppress(OSError), socket.socket(fileno=os.dup(self.fileno)) as dup:
                dup.shutdown(socket.SHUT_RDWR)
            return True


class LatencyProbe(contextlib.AbstractContextManager["LatencyProbe"]):
    """Times ``SELECT 1`` on connections from ``connect`` (such as ``PgTarget.connect``,
    which bounds its own connect time). One worker thread calls :meth:`probe`."""

    def __init__(
        self,
        connect: Callable[[], psycopg.Connection[Any]],
        *,
        timeout_s: float = 2.0,
        window: int = 20,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if timeout_s <= 0 or window < 1:
            raise ValueError("timeout_s must be positive and window at least 1")
        self._connect = connect
        self._timeout_s = timeout_s
        self._clock = clock
        self._conn: psycopg.Connection[Any] | None = None
        self._recent: deque[ProbeResult] = deque(maxlen=window)

    def probe(self) -> ProbeResult:
        """One round trip, within ``timeout_s`` (and a second for a cut query to unwind)."""
        attempt = _Attempt()
        attempt.conn, self._conn = self._conn, None
        worker = threading.Thread(
            target=self._run, args=(attempt,), name="pg-latency-probe", daemon=True
        )
        worker.start()
        if not attempt.done.wait(self._timeout_s):
            if attempt.abandon():
                worker.join(_GRACE_S)  # the query fails at once: let it close its connection
            code: FailureCode | None = PgLinkCode.SERVER_TIMEOUT
        elif attempt.error is not None:
            code = classify_failure(attempt.error, established=attempt.established)
        else:
            self._conn, code = attempt.conn, None
        ms = attempt.ms if code is None else None
        result = ProbeResult(code is None, ms, code, attempt.connected)
        self._recent.append(result)
        return result

    def _run(self, attempt: _Attempt) -> None:
        conn = attempt.conn
        try:
            if conn is None or conn.closed or conn.broken:
                if conn is not None:
                    conn.close()
                conn = self._connect()
                attempt.connected = True
            attempt.established = True
            with attempt.lock:
                attempt.conn = conn
                attempt.fileno = None if attempt.abandoned else conn.fileno()
            if attempt.abandoned:
                raise TimeoutError("abandoned before the query")
            start = self._clock()
            conn.execute("SELECT 1").fetchone()
            attempt.ms = (self._clock() - start) * 1000.0
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()  # not autocommit: leave no transaction open between probes
        except BaseException as exc:  # every failure is a result, never a dead thread
            attempt.error = exc
            attempt.discard(conn)
        else:
            with attempt.lock:
                abandoned = attempt.abandoned
            if abandoned:  # answered after the caller gave up: nobody keeps it
                attempt.discard(conn)
        finally:
            attempt.done.set()

    def summary(self) -> LatencySummary:
        times = [r.ms for r in self._recent if r.ok and r.ms is not None]
        last = self._recent[-1] if self._recent else None
        return LatencySummary(last, statistics.median(times) if times else None, len(times))

    def p50_ms(self) -> float | None:
        return self.summary().p50_ms

    def close(self) -> None:
        conn, self._conn = self._conn, None
        _close(conn)

    def __exit__(self, *exc: object) -> None:
        self.close()


def _close(conn: psycopg.Connection[Any] | None) -> None:
    if conn is not None:
        with contextlib.suppress(Exception):
            conn.close()

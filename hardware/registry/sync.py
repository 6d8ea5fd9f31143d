"""Background change-feed sync of the RIAJ replica that the GUI can start (art. 20.2).

:class:`RegistrySync` pulls ``verificarCambiosRGIAJ`` periodically from a
:class:`FeedSource` (the SOAP client or the fake) and applies it to a
:class:`FeedSink` (the replica). ``status()`` is what the status bar shows: last
success, age of the replica, last error code. ``on_status`` is called from the
sync thread after every attempt: the GUI must hop to its own thread (a queued Qt
signal), never touch widgets from the callback.

The thread is abortable: ``stop()`` wakes it and joins it within a timeout.
Failures never raise out of the thread; they become ``last_error`` codes and the
next attempt comes after ``retry_s`` (shorter than the period, so a 5-30 minute
registry outage is caught up quickly).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from admission.ports import Clock
from admission.registry.port import RegistryErrorCode
from admission.registry.replica import SyncStatus
from admission.registry.snapshot import FeedPage

log = logging.getLogger(__name__)


class FeedSource(Protocol):
    def changes_since(self, since: datetime | None) -> FeedPage: ...


class FeedApplied(Protocol):
    @property
    def added(self) -> int: ...
    @property
    def removed(self) -> int: ...


class FeedSink(Protocol):
    def feed_since(self) -> datetime | None: ...

    def apply_feed(self, page: FeedPage) -> FeedApplied: ...


class RegistrySync:
    def __init__(
        self,
        source: FeedSource,
        sink: FeedSink,
        clock: Clock,
        *,
        interval_s: float = 900.0,
        retry_s: float = 60.0,
        on_status: Callable[[SyncStatus], None] | None = None,
    ) -> None:
        self._source = source
        self._sink = sink
        self._clock = clock
        self._interval = interval_s
        self._retry = min(retry_s, interval_s)
        self._on_status = on_status
        self._status = SyncStatus()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._refresh_replica()

    # --- one pull -------------------------------------------------------------------------

    def sync_once(self) -> SyncStatus:
        """Pull and apply once (also what ``registry sync`` runs). Never raises."""
        now = self._clock.now()
        try:
            page = self._source.changes_since(self._sink.feed_since())
            result = self._sink.apply_feed(page)
        except Exception as exc:  # the thread must survive any adapter failure
            code = str(getattr(exc, "code", "") or RegistryErrorCode.SYNC_FAILED)
            log.warning("registry sync failed: %s", code)
            with self._lock:
                self._status = replace(self._status, last_attempt=now, last_error=code)
        else:
            with self._lock:
                self._status = replace(
                    self._status,
                    last_attempt=now,
                    last_success=now,
                    last_error="",
                    added=self._status.added + result.added,
                    removed=self._status.removed + result.removed,
                )
        self._refresh_replica()
        status = self.status()
        if self._on_status is not None:
            try:
                self._on_status(status)
            except Exception:  # a GUI callback bug must not stop the sync
                log.exception("registry sync status callback failed")
        return status

    def _refresh_replica(self) -> None:
        state_of = getattr(self._sink, "state", None)
        if state_of is None:
            return
        try:
            state = state_of()
        except Exception:
            return
        with self._lock:
            self._status = replace(
                self._status,
                replica_as_of=state.as_of if state is not None else None,
                replica_version=state.label if state is not None else "",
            )

    def status(self) -> SyncStatus:
        with self._lock:
            status = self._status
        running = self._thread is not None and self._thread.is_alive()
        age = None
        if status.replica_as_of is not None:
            age = max(0, int((self._clock.now() - status.replica_as_of).total_seconds()))
        return replace(status, running=running, age_seconds=age)

    # --- the thread -----------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="registry-sync", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Ask the thread to end and wait; ``False`` if it is still in a network call."""
        self._stop.set()
        self._wake.set()
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def trigger(self) -> None:
        """Pull now (e.g. the operator pressed "sync")."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            status = self.sync_once()
            wait = self._retry if status.last_error else self._interval
            self._wake.wait(wait)
            self._wake.clear()

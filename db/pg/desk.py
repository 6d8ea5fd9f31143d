"""A desk working on the casino's PostgreSQL server (arts. 154-155). Beside its TLS files
the desk keeps ``database-id``, the database it first opened (any other is refused,
``PG_DATABASE_OTHER``: a desk re-pointed by mistake writes nothing there), and
``offline-vouchers.db``, the vouchers of art. 23.4 given while the server was away, and
``audit-head``, the newest audit entry it saw: a server restored to an earlier minute is
refused until an operator confirms (db/pg/rewound.py, art. 22.1)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar, cast

import psycopg

from admission.errors import StoreError
from admission.ports import Clock
from admission.vouchers.model import NewVoucher
from admission.vouchers.offline import FormaliseReport, QueuedVoucher
from db.audit_chain import AuditChainCode
from db.audit_key import ENV_VAR, KEYRING_USERNAME, AuditKey, resolve_audit_key
from db.file_guard import keep, read_kept
from db.keys import KEYRING_SERVICE, DbKey, KeyringBackend
from db.offline_queue import OfflineVoucherQueue, ServerVoucherBook, formalise, queue_key
from db.pg.codes import PgDeskCode
from db.pg.latency import LatencyProbe
from db.pg.primary import Failover, PgPrimaryCode, PrimaryFollower
from db.pg.rewound import GuardedPgStore, RewoundCode
from db.pg.store import PgStore
from db.pg.target import PgTarget

DATABASE_ID_FILE = "database-id"
OFFLINE_QUEUE_FILE = "offline-vouchers.db"
DEMO_AUDIT_KEY_BASE = "demo"  # the demo's audit key file: demo + the key file suffix
_MAX_ID = 64
T = TypeVar("T")


def remembered_database(folder: Path) -> str | None:
    """The database id this desk is configured for (None before its first start)."""
    return read_kept(
        folder / DATABASE_ID_FILE,
        PgDeskCode.DATABASE_ID_UNREADABLE,
        "database id",
        lambda text: bool(text) and len(text) <= _MAX_ID and text.isprintable(),
    )


def remember_database(folder: Path, database_id: str) -> None:
    """Write ``database-id`` whole (a temporary file renamed over it)."""
    keep(folder / DATABASE_ID_FILE, database_id)


def desk_audit_key(
    folder: Path, *, demo: bool, keyring: KeyringBackend | None, create: bool
) -> AuditKey:
    """The audit chain's key on the server: ``ADMISSION_AUDIT_KEY``, else the OS keyring
    (made there only by ``create``), else - the demo only - a key file in the folder: for
    real data the key must not sit beside the TLS key it would be stolen with."""
    if demo:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = resolve_audit_key(
        folder / DEMO_AUDIT_KEY_BASE if demo else None,
        create=create or demo,
        keyring_backend=keyring,
        allow_file=demo,
    )
    if key is None and not create:  # the server's file exists, and its chain is keyed
        raise StoreError(
            "the audit key of the server's visitor file is missing: restore it from the "
            f"casino's key backup into the keyring ({KEYRING_SERVICE}/{KEYRING_USERNAME}) "
            f"or {ENV_VAR}; a file that has a key never gets a new one",
            code=AuditChainCode.AUDIT_KEY_LOST,
        )
    if key is None:
        raise StoreError(
            "no audit key for the server: set ADMISSION_AUDIT_KEY or put it in the keyring",
            code=AuditChainCode.AUDIT_KEY_MISSING,
        )
    return key


def open_desk_store(
    target: PgTarget,
    key: DbKey,
    *,
    folder: Path,
    audit_key: AuditKey,
    clock: Clock,
    create: bool = False,
    require_sync_standby: bool = False,
) -> GuardedPgStore:
    """Open the server's visitor file for this desk (``create``: the act of ``init``);
    the first start remembers the database's id, later starts refuse any other. The store
    follows the primary of the URL's hosts and never goes back to an older timeline
    (db/pg/primary.py: the newest seen is kept in ``folder``). With
    ``require_sync_standby`` a server whose commits do not wait for a standby is refused
    (the setting ``database.require_sync_standby``); otherwise it is a warning."""
    expected = remembered_database(folder)
    opened = GuardedPgStore.open(
        target.conninfo(),
        key,
        audit_key=audit_key,
        database_id=expected,
        create=create,
        clock=clock,
        # the registry's check runs beside the desk's reads: two connections kept open,
        # so an admission never waits for a TLS handshake (an annex room over a WAN)
        min_connections=2,
        primary=PrimaryFollower(folder=folder, clock=clock.now),
    )
    store = cast(GuardedPgStore, opened)  # PgStore.open builds its cls
    try:
        refuse_without_sync_standby(store, require_sync_standby)
        if expected is None:
            remember_database(folder, store.database_id)
        # a file restored to an earlier minute: no write until an operator confirms
        store.watch(folder)
    except BaseException:
        store.close()
        raise
    return store


def refuse_without_sync_standby(store: PgStore, required: bool) -> None:
    """``PG_NO_SYNC_STANDBY`` (or ``PG_SYNC_STANDBY_UNSEEN``) when ``required`` and the
    primary's commits do not visibly wait for a standby (art. 22.1)."""
    sync = store.primary.sync if store.primary is not None else None
    if required and (sync is None or sync.warning is not None):
        code = PgPrimaryCode.NO_SYNC_STANDBY if sync is None else sync.warning
        detail = "unchecked" if sync is None else sync.describe()
        raise StoreError(f"the server commits without a synchronous standby: {detail}", code=code)


class ServerLink:
    """Where the desk's server is and how far (a :class:`LatencyProbe` of its own). With
    ``primary`` (the store's) the probe follows the primary too: the status bar names the
    host the desk writes on and learns of a failover even while the desk is idle."""

    def __init__(
        self,
        target: PgTarget,
        *,
        timeout_s: float = 2.0,
        refresh: Callable[[], object] | None = None,
        primary: PrimaryFollower | None = None,
        went_back: Callable[[], bool] | None = None,
    ) -> None:
        self._target = target
        self._primary = primary
        self._went_back = went_back  # the store refuses to write: the file went back
        if primary is None:
            connect: Callable[[], psycopg.Connection[Any]] = target.connect
        else:  # no wait: an unanswered probe is the status bar's red light
            conninfo = target.conninfo()
            connect = lambda: primary.connect(conninfo, wait_s=0)  # noqa: E731
        self._probe = LatencyProbe(connect, timeout_s=timeout_s)
        self._lock = threading.Lock()
        self._refresh = refresh  # run after each answered probe (e.g. new data keys)

    def describe(self) -> str:
        """``host:port/db`` of the host the desk writes on (every host before the first
        connection)."""
        current = self._primary.current if self._primary is not None else None
        return self._target.describe() if current is None else f"{current}/{self._target.dbname}"

    def failover(self) -> Failover | None:
        """The last change of primary since the desk started (None: none)."""
        return self._primary.failover if self._primary is not None else None

    def failover_at(self) -> datetime | None:
        found = self.failover()
        return found.at if found is not None else None

    def warning(self) -> str:
        """``PG_FILE_WENT_BACK`` while the desk refuses to write until an operator confirms
        a restore (art. 22.1: cards issued since exist on paper); else
        ``PG_NO_SYNC_STANDBY`` or ``PG_SYNC_STANDBY_UNSEEN`` when the primary's commits
        do not (visibly) wait for a standby (checked at each new connection); else ""."""
        if self._went_back is not None and self._went_back():
            return RewoundCode.WENT_BACK.value
        sync = self._primary.sync if self._primary is not None else None
        code = sync.warning if sync is not None else None
        return code.value if code is not None else ""

    def measure(self) -> float:
        with self._lock:
            result = self._probe.probe()
        if not result.ok or result.ms is None:
            raise StoreError("the server does not answer", code=result.code)
        if self._refresh is not None:
            self._refresh()
        return result.ms / 1000.0

    def median_ms(self) -> float | None:
        with self._lock:
            return self._probe.p50_ms()

    def close(self) -> None:
        with self._lock:
            self._probe.close()


class OfflineVouchers:
    """The provisional vouchers of art. 23.4 given while the server is away: queued in the
    desk's encrypted file as ``<desk>-P000001`` and formalised on the server, in order and
    once, when it answers. The queue is opened per operation: a command finds it free."""

    def __init__(
        self,
        path: Path,
        key: DbKey,
        desk_id: str,
        book: Callable[[], ServerVoucherBook],
        clock: Clock,
    ) -> None:
        self._path = path
        self._key = queue_key(key)
        self._desk_id = desk_id
        self._book = book
        self._clock = clock
        self._lock = threading.Lock()

    def _open(self, *, create: bool) -> OfflineVoucherQueue:
        return OfflineVoucherQueue.open(self._path, self._key, desk_id=self._desk_id, create=create)

    def issue(self, new: NewVoucher) -> QueuedVoucher:
        """Record a provisional voucher (committed and fsync'd when this returns)."""
        with self._lock, self._open(create=True) as queue:
            return queue.enqueue(new)

    def _queued(self, none: T, act: Callable[[OfflineVoucherQueue], T]) -> T:
        """``act`` on the queue, ``none`` when no voucher was ever queued."""
        if not self._path.exists():
            return none
        with self._lock, self._open(create=False) as queue:
            return act(queue)

    def pending(self) -> list[QueuedVoucher]:
        """The vouchers not yet on the server, oldest first."""
        return self._queued([], lambda queue: queue.pending())

    def formalise(self) -> FormaliseReport:
        """Issue the pending vouchers on the server (see :func:`formalise`)."""
        return self._queued(FormaliseReport(), lambda q: formalise(q, self._book(), self._clock))

    def purge(self, cutoff: datetime) -> int:
        """Forget the formalised vouchers issued before ``cutoff`` (art. 20.4)."""
        return self._queued(0, lambda queue: queue.purge_formalised(cutoff))

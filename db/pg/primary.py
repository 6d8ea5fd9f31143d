"""A desk follows the casino's primary server and never goes back (Decreto 58/2006,
art. 22.1: a card number handed out is never handed out again, so the visitor file is
written on one server only). The URL lists a primary and its standbys (db/pg/target.py);
:class:`PrimaryFollower` connects host by host and takes the first that is writable
(``pg_is_in_recovery()`` false and ``transaction_read_only`` off: PostgreSQL
documentation, 27.4 "Hot Standby", and libpq's ``target_session_attrs=read-write``).

It FENCES: after a standby's promotion the cluster goes on on a new timeline (27.3
"Failover"), and an old primary that comes back as it was is still writable on the older
one. Whatever it wrote there is lost to the new primary, so the desk refuses any host on a
timeline older than the newest it has seen. That newest timeline is kept in memory and in
the desk's folder beside ``database-id`` (written whole: a restarted desk does not go back
either). The timeline is read from the current WAL file's name, which a role without any
privilege may call on PostgreSQL 15 (9.27.3 "Backup Control Functions").

The host it uses is sticky: a new connection tries the host in use first, then the others
in the URL's order; a change of host is a failover, said to whoever asks (the status bar).

In the same round trip it reads whether the server commits synchronously with a standby
attached (:class:`SyncCommit`, PostgreSQL documentation 27.2.8 "Synchronous
Replication"): an admission acknowledged to the desk must be on two servers, or a
failover could give its card number again. ``synchronous_commit`` must be ``on`` (the
standby has flushed the commit to disk) or ``remote_apply`` (and applied it);
``remote_write`` is refused too: the standby only handed it to its operating system, and a
power cut of both servers loses it. A role sees a standby's ``sync_state`` only as a member
of ``pg_read_all_stats`` (or ``pg_monitor``, which includes it): without it the standby is
unseen and the desk says so (``PG_SYNC_STANDBY_UNSEEN``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import unique
from pathlib import Path
from typing import Any, Self

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.pq import TransactionStatus

from admission.codes import Code
from admission.errors import StoreError
from db.file_guard import keep, read_kept
from db.pg.connect import classify

log = logging.getLogger("admission.db.pg.primary")

TIMELINE_FILE = "timeline"  # beside database-id in the desk's certificate folder
DEFAULT_WAIT_S = 15.0  # a new connection's wait for a writable host (a promotion's time)
RETRY_S = 0.25  # between two rounds over the hosts
_MAX_TIMELINE = 0xFFFFFFFF  # a timeline id is 32 bits (the first 8 hex digits of a WAL file)

# One round trip: a standby (in recovery) or a server set read-only is not writable; on a
# writable one the timeline it writes on (pg_walfile_name refuses during recovery, hence
# the CASE, which PostgreSQL evaluates lazily).
PROBE = (
    "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only')::bool, "
    "CASE WHEN pg_is_in_recovery() THEN NULL "
    "ELSE substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) END, "
    "current_setting('synchronous_commit'), current_setting('synchronous_standby_names'), "
    "(SELECT count(*) FILTER (WHERE sync_state IN ('sync', 'quorum')) FROM pg_stat_replication), "
    "(SELECT count(*) FILTER (WHERE sync_state IS NULL) FROM pg_stat_replication)"
)
# what a commit waits for: the standby flushed it (on) or applied it (remote_apply)
SYNC_SETTINGS = ("on", "remote_apply")


@unique
class PgPrimaryCode(Code):
    """Why no server of the URL was taken as the desk's primary."""

    NO_PRIMARY = "PG_NO_PRIMARY"  # the hosts that answered are standbys (read-only)
    FENCED = "PG_TIMELINE_FENCED"  # the only writable host is on an older timeline
    TIMELINE_UNREADABLE = "PG_DESK_TIMELINE_UNREADABLE"  # the folder's timeline file
    NO_SYNC_STANDBY = "PG_NO_SYNC_STANDBY"  # commits do not wait for a standby's disk
    SYNC_STANDBY_UNSEEN = "PG_SYNC_STANDBY_UNSEEN"  # the role may not see pg_stat_replication


@dataclass(frozen=True, slots=True)
class SyncCommit:
    """How the primary the desk writes on commits, as this desk's role sees it."""

    setting: str  # synchronous_commit of the desk's session
    standby_names: str  # synchronous_standby_names
    attached: int  # standbys streaming as sync or quorum
    unseen: int  # standbys whose state this role may not read

    @property
    def warning(self) -> PgPrimaryCode | None:
        """None: an acknowledged commit is on a standby's disk too."""
        if self.setting not in SYNC_SETTINGS or not self.standby_names.strip():
            return PgPrimaryCode.NO_SYNC_STANDBY
        if self.attached > 0:
            return None
        return PgPrimaryCode.SYNC_STANDBY_UNSEEN if self.unseen else PgPrimaryCode.NO_SYNC_STANDBY

    def describe(self) -> str:
        names = "set" if self.standby_names.strip() else "empty"
        return (
            f"synchronous_commit={self.setting}, synchronous_standby_names {names}, "
            f"{self.attached} synchronous standby(s) attached, {self.unseen} unseen"
        )


@dataclass(frozen=True, slots=True)
class Failover:
    """The desk's primary changed: from ``previous`` to ``current`` (``host:port``) at
    ``at``, on ``timeline``."""

    previous: str
    current: str
    at: datetime
    timeline: int


@dataclass(frozen=True, slots=True)
class Host:
    """One server of a multi-host connection string: its label and its own string."""

    label: str  # host:port, log-safe
    conninfo: str


def split_hosts(conninfo: str) -> list[Host]:
    """Each host of a libpq connection string as a string of its own (libpq's lists:
    one port for all or one per host; hostaddr one per host, empty for none)."""
    params = {name: str(value) for name, value in conninfo_to_dict(conninfo).items()}
    params.pop("target_session_attrs", None)  # checked here, with the timeline
    names = (params.pop("host", "") or "").split(",")
    ports = (params.pop("port", "") or "").split(",")
    addresses = (params.pop("hostaddr", "") or "").split(",")
    if len(ports) == 1:
        ports *= len(names)
    if len(addresses) == 1:
        addresses *= len(names)
    if len(ports) != len(names) or len(addresses) != len(names):
        raise ValueError("host, port and hostaddr lists of different lengths")
    hosts = []
    for name, port, address in zip(names, ports, addresses, strict=True):
        where = {"host": name, "port": port, "hostaddr": address}
        single = make_conninfo(**params, **{k: v for k, v in where.items() if v})
        shown = f"[{name}]" if ":" in name and not name.startswith(("/", "@")) else name
        hosts.append(Host(f"{shown or 'localhost'}:{port or 5432}", single))
    return hosts


def remembered_timeline(folder: Path) -> int | None:
    """The newest timeline this desk has written on (None: none yet)."""
    text = read_kept(
        folder / TIMELINE_FILE,
        PgPrimaryCode.TIMELINE_UNREADABLE,
        "timeline",
        lambda text: text.isascii() and text.isdigit() and 1 <= int(text) <= _MAX_TIMELINE,
    )
    return None if text is None else int(text)


def remember_timeline(folder: Path, timeline: int) -> None:
    """Write ``timeline`` whole (a temporary file renamed over it)."""
    keep(folder / TIMELINE_FILE, str(timeline))


Connector = Callable[..., psycopg.Connection[Any]]


class PrimaryFollower:
    """The desk's connection factory: the first writable host, never one on a timeline
    older than the newest seen. Thread-safe (the pool's workers connect through it)."""

    def __init__(
        self,
        *,
        folder: Path | None = None,
        clock: Callable[[], datetime] = datetime.now,
        wait_s: float = DEFAULT_WAIT_S,
        retry_s: float = RETRY_S,
    ) -> None:
        self._folder = folder  # None: the timeline is kept in memory only
        self._clock = clock
        self.wait_s = wait_s
        self._retry_s = retry_s
        self._lock = threading.Lock()
        self._timeline = remembered_timeline(folder) if folder is not None else None
        self._current: str | None = None
        self._failover: Failover | None = None
        self._sync: SyncCommit | None = None
        self.fenced = 0  # connections refused on an older timeline

    @property
    def timeline(self) -> int | None:
        """The newest timeline this desk has seen (None: none yet)."""
        with self._lock:
            return self._timeline

    @property
    def current(self) -> str | None:
        """``host:port`` of the primary the desk uses (None: not connected yet)."""
        with self._lock:
            return self._current

    @property
    def failover(self) -> Failover | None:
        """The last change of primary since this desk started (None: none)."""
        with self._lock:
            return self._failover

    @property
    def sync(self) -> SyncCommit | None:
        """How the current primary commits (None: not connected yet)."""
        with self._lock:
            return self._sync

    def connect(
        self, conninfo: str, *, wait_s: float | None = None, **kwargs: Any
    ) -> psycopg.Connection[Any]:
        """A connection to the primary of ``conninfo``'s hosts; a refusal is a
        ``StoreError`` (a ``PgPrimaryCode``, or the ``PgConnectCode`` of the first host
        that failed when none answered). Waits up to ``wait_s`` (the follower's by
        default) for a standby's promotion, trying every host each round."""
        return self._follow(psycopg.Connection.connect, conninfo, wait_s, kwargs)

    def connection_class(self) -> type[psycopg.Connection[Any]]:
        """A connection class whose ``connect`` goes through this follower, for
        ``psycopg_pool.ConnectionPool(connection_class=...)``."""
        follower = self

        class FollowingConnection(psycopg.Connection[Any]):
            @classmethod
            def connect(cls, conninfo: str = "", **kwargs: Any) -> Self:
                base = super().connect
                found = follower._follow(base, conninfo, None, kwargs)
                assert isinstance(found, cls)
                return found

        return FollowingConnection

    def _follow(
        self, connector: Connector, conninfo: str, wait_s: float | None, kwargs: dict[str, Any]
    ) -> psycopg.Connection[Any]:
        try:
            hosts = split_hosts(conninfo)
        except (psycopg.Error, ValueError) as exc:
            detail = "the connection string lists no usable host"
            raise StoreError(detail, code=classify(exc)) from exc
        deadline = time.monotonic() + (self.wait_s if wait_s is None else wait_s)
        while True:
            conn, error = self._round(connector, hosts, kwargs)
            if conn is not None:
                return conn
            if time.monotonic() + self._retry_s > deadline:
                raise error
            time.sleep(self._retry_s)

    def _ordered(self, hosts: Sequence[Host]) -> list[Host]:
        current = self.current
        return sorted(hosts, key=lambda host: host.label != current)  # stable: URL's order

    def _round(
        self, connector: Connector, hosts: Sequence[Host], kwargs: dict[str, Any]
    ) -> tuple[psycopg.Connection[Any] | None, StoreError]:
        """One try of every host; the connection taken, or the refusal to raise."""
        first_error: StoreError | None = None
        standby = fenced = False
        for host in self._ordered(hosts):
            try:
                conn = connector(host.conninfo, **kwargs)
            except psycopg.Error as exc:
                if first_error is None:
                    first_line = next(iter(str(exc).strip().splitlines()), "")
                    first_error = StoreError(first_line[:300], code=classify(exc))
                continue
            try:
                read_only, timeline, sync = self._probe(conn)
            except psycopg.Error as exc:
                conn.close()
                if first_error is None:
                    first_error = StoreError(f"{host.label}: {exc.sqlstate}", code=classify(exc))
                continue
            if read_only or timeline is None:
                standby = True
                conn.close()
                continue
            if not self._adopt(host.label, timeline, sync):
                fenced = True
                conn.close()
                continue
            return conn, StoreError("", code=PgPrimaryCode.NO_PRIMARY)
        if fenced:
            error = StoreError(
                f"the writable server is on a timeline older than {self.timeline}",
                code=PgPrimaryCode.FENCED,
            )
        elif standby:
            error = StoreError("no server of the URL is writable", code=PgPrimaryCode.NO_PRIMARY)
        else:
            error = first_error or StoreError("no host", code=PgPrimaryCode.NO_PRIMARY)
        return None, error

    @staticmethod
    def _probe(conn: psycopg.Connection[Any]) -> tuple[bool, int | None, SyncCommit]:
        row = conn.execute(PROBE).fetchone()
        if conn.info.transaction_status != TransactionStatus.IDLE:
            conn.rollback()  # not autocommit: leave the connection as it came
        assert row is not None  # one row, always
        read_only, name, setting, names, attached, unseen = row
        timeline = int(name, 16) if isinstance(name, str) and name else None
        sync = SyncCommit(str(setting), str(names), int(attached), int(unseen))
        return bool(read_only), timeline, sync

    def _adopt(self, label: str, timeline: int, sync: SyncCommit) -> bool:
        """Take ``label`` on ``timeline`` (False: fenced, an older timeline)."""
        with self._lock:
            if self._timeline is not None and timeline < self._timeline:
                self.fenced += 1
                log.warning(
                    "server %s refused: timeline %d is older than %d (a former primary)",
                    label,
                    timeline,
                    self._timeline,
                )
                return False
            if self._timeline is None or timeline > self._timeline:
                if self._folder is not None:  # on disk first: a crash never goes back
                    remember_timeline(self._folder, timeline)
                self._timeline = timeline
            if self._current is not None and self._current != label:
                self._failover = Failover(self._current, label, self._clock(), timeline)
                log.warning("failover: the desk now writes on %s (timeline %d)", label, timeline)
            self._current = label
            if sync.warning is not None and sync != self._sync:
                log.warning("server %s: %s (%s)", label, sync.warning, sync.describe())
            self._sync = sync
            return True

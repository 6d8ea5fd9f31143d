"""The RIAJ replica as the desk uses it (art. 20.2, R1): the port and what it answers.

The replica is held by the visitor file (the desk's SQLCipher file, or the casino's
server of arts. 154-155); both holders implement :class:`RegistryReplica`. The window
and the commands import a snapshot, show its state and the newest events, and the sync
pulls the change feed into it; the policy asks it as an ``InterdictionRegistry``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from admission.registry.port import InterdictionRegistry
from admission.registry.snapshot import FeedPage, Snapshot

__all__ = [
    "FeedResult",
    "ImportResult",
    "RegistryReplica",
    "ReplicaState",
    "ReplicaSync",
    "SyncStatus",
    "iso_instant",
]


def iso_instant(at: datetime) -> str:
    """``at`` in UTC as the replica records it: ``2026-01-31T09:00:00.000000Z``."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, slots=True)
class ReplicaState:
    """What ``registry status`` and the status bar show."""

    version: str
    scheme: str
    entries: int
    snapshot_as_of: datetime
    feed_as_of: datetime | None
    feed_applied: int
    imported_at: datetime
    signed: bool

    @property
    def as_of(self) -> datetime:
        """When the replica was last known complete (snapshot or change feed)."""
        if self.feed_as_of is not None and self.feed_as_of > self.snapshot_as_of:
            return self.feed_as_of
        return self.snapshot_as_of

    @property
    def label(self) -> str:
        """Recorded on the visit: the snapshot version plus the feed position."""
        if self.feed_as_of is None:
            return self.version
        return f"{self.version}@{iso_instant(self.feed_as_of)}"


@dataclass(frozen=True, slots=True)
class ImportResult:
    version: str
    entries: int
    as_of: datetime
    signed: bool
    replaced: str  # version of the snapshot it replaced, "" when none
    unchanged: bool  # the same content was already active
    duplicates: int = 0  # identifier lines that repeated an earlier one (kept once)
    duplicate_lines: tuple[int, ...] = ()  # the first few of them


@dataclass(frozen=True, slots=True)
class FeedResult:
    added: int
    removed: int
    unchanged: int
    feed_as_of: datetime


class RegistryReplica(InterdictionRegistry, Protocol):
    """The replica: checked whole before anything is written, the signature verified,
    the feed validated, every refusal logged with its code (``SnapshotError``)."""

    def state(self) -> ReplicaState | None:
        """The active snapshot and feed position; None before the first import."""
        ...

    def last_events(self, limit: int = 5) -> list[tuple[datetime, str, str, str]]:
        """(at, kind, code, version) of the newest imports, syncs and refusals."""
        ...

    def import_file(self, path: Path) -> ImportResult:
        """A snapshot file validated completely, then swapped in."""
        ...

    def import_lines(self, lines: Iterable[bytes]) -> ImportResult: ...

    def import_snapshot(self, snapshot: Snapshot) -> ImportResult: ...

    def feed_since(self) -> datetime | None:
        """Where the next change-feed pull starts (``None``: no snapshot yet)."""
        ...

    def apply_feed(self, page: FeedPage) -> FeedResult:
        """Additions and removals in order; idempotent; the position moves atomically."""
        ...


@dataclass(frozen=True, slots=True)
class SyncStatus:
    """The change-feed sync as the status bar and ``registry sync`` show it."""

    running: bool = False
    last_attempt: datetime | None = None
    last_success: datetime | None = None
    last_error: str = ""  # code, "" when the last attempt succeeded
    replica_as_of: datetime | None = None
    replica_version: str = ""
    age_seconds: int | None = None  # of the replica, at ``status()`` time
    added: int = 0  # totals since start
    removed: int = 0


class ReplicaSync(Protocol):
    """The background pull of the online register's change feed into the replica
    (hardware/registry/sync.py): one pull now, and where it stands."""

    def sync_once(self) -> SyncStatus: ...

    def status(self) -> SyncStatus: ...

"""Local replica of the RIAJ in the encrypted store (art. 20.2, R1).

:class:`ReplicaRegistry` implements :class:`admission.registry.port.InterdictionRegistry`
with source REPLICA. Snapshots are parsed and validated completely (checksum,
signature when a verifier is configured, format; an identifier repeated on several
lines is kept once and the repeats counted) *before* the store is touched, then
swapped in inside one transaction: a bad file leaves the previous snapshot in force
and raises :class:`SnapshotError` with the reason.

The change feed (verificarCambiosRGIAJ) is applied on top of the active snapshot:
additions are ``INSERT OR IGNORE`` and removals ``DELETE``, so applying a page
twice is harmless (idempotent); the feed position (``feed_as_of``) moves in the
same transaction as the changes, so an interrupted pull resumes from the last
committed position (resumable).

Threading: every method takes ``lock`` (pass the store's lock when the
connection is shared with other threads). Schema: ``db/migrations/0002_registry.sql``.

Given ``audit`` (the store whose connection this is), each import and each feed page
writes its audit entry in its own transaction, committing to the snapshot with the
digest of its identifiers (db/audit_cover.py): a register swapped or edited with the
file key alone fails ``audit verify``.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import stat
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import repeat
from pathlib import Path
from typing import BinaryIO

from admission.identity import IdentityKey
from admission.ports import Clock
from admission.registry.port import (
    CASINO_SCOPE,
    PersonDetails,
    RegistryAnswer,
    RegistryErrorCode,
    RegistrySource,
    RegistryStatus,
)
from admission.registry.replica import FeedResult, ImportResult, ReplicaState, iso_instant
from admission.registry.snapshot import (
    MAX_FILE_BYTES,
    FeedAction,
    FeedPage,
    SignatureVerifier,
    Snapshot,
    SnapshotError,
    SnapshotErrorCode,
    identity_digest,
    parse_snapshot,
    read_lines,
    signed_message,
    validate_feed,
)
from db.audit_rows import AppendsIn
from db.connection import DB_ERRORS, immediate_transaction

_FUTURE_SLACK = timedelta(hours=1)  # clock skew tolerated on a snapshot's as-of
REGISTRY_ACTOR = "registry"  # actor of the register's entries (the port names none)


RegistryAudit = AppendsIn[sqlite3.Connection]  # the store's entries in the register's transactions


@dataclass(frozen=True, slots=True)
class _Active:
    snapshot_id: int
    salt: bytes
    state: ReplicaState


def _parseiso_instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def open_regular_file(path: Path) -> BinaryIO:
    """Open ``path`` for reading when it is a regular file; ``SNAPSHOT_NOT_A_FILE`` for a
    folder, a device (``/dev/zero``) or a pipe, ``SNAPSHOT_TOO_LARGE`` beyond
    ``MAX_FILE_BYTES``. Raises OSError when it cannot be opened.

    A pipe would block ``open()`` until a writer comes: it is refused from ``stat()``
    first, then opened non-blocking and checked again on the open descriptor, so a path
    swapped in between is refused as well.
    """
    _check_regular(os.stat(path))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        _check_regular(os.fstat(fd))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _check_regular(st: os.stat_result) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_NOT_A_FILE, "not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_TOO_LARGE, f"over {MAX_FILE_BYTES} bytes")


class ReplicaFront(ABC):
    """What every replica does the same way, whatever holds it (the visitor file, or the
    shared server of arts. 154-155): a file or lines checked whole before anything is
    written, the signature verified, the feed validated, every refusal logged with its
    code. The holder swaps a snapshot in and applies a feed page, each whole or not at
    all (``_swap_whole``, ``_apply_whole``)."""

    _verifier: SignatureVerifier | None

    @abstractmethod
    def state(self) -> ReplicaState | None: ...

    @abstractmethod
    def check(self, identity: IdentityKey, person: PersonDetails | None = None) -> RegistryAnswer:
        """The register's answer for one identity from the replica (art. 20.2)."""

    @abstractmethod
    def last_events(self, limit: int = 5) -> list[tuple[datetime, str, str, str]]:
        """(at, kind, code, version) of the newest imports, syncs and refusals."""

    @abstractmethod
    def _swap_whole(self, snapshot: Snapshot) -> ImportResult: ...

    @abstractmethod
    def _apply_whole(self, page: FeedPage) -> FeedResult: ...

    @abstractmethod
    def _log_rejection(
        self, code: str, version: str = "", kind: str = "IMPORT_REJECTED"
    ) -> None: ...

    @staticmethod
    def _as_of(snapshot: Snapshot, now: datetime) -> datetime:
        """The snapshot's date (now when it carries none); one from the future refused."""
        as_of = snapshot.as_of or now
        if as_of > now + _FUTURE_SLACK:
            raise SnapshotError(
                SnapshotErrorCode.SNAPSHOT_FROM_THE_FUTURE, "as-of is later than now"
            )
        return as_of

    @staticmethod
    def _check_position(page: FeedPage, since: datetime) -> None:
        """A page that starts after the replica's position leaves a gap; an older one
        with entries could undo newer changes: both refused."""
        if page.since is not None and page.since > since:
            raise SnapshotError(
                SnapshotErrorCode.FEED_GAP, "the page starts after the replica's position"
            )
        if page.as_of < since and page.entries:
            raise SnapshotError(
                SnapshotErrorCode.FEED_OUT_OF_ORDER, "the page is older than the replica"
            )

    @staticmethod
    def _against(
        old: ReplicaState, held_sha256: str | None, snapshot: Snapshot, as_of: datetime
    ) -> ImportResult | None:
        """The active snapshot again: nothing to do (its result); older than the active
        one, or its version with other content: refused; else None (swap it in)."""
        if held_sha256 == snapshot.content_sha256.hex():
            return ImportResult(
                old.version,
                old.entries,
                old.snapshot_as_of,
                old.signed,
                old.version,
                unchanged=True,
                duplicates=snapshot.duplicates,
                duplicate_lines=snapshot.duplicate_lines,
            )
        if old.snapshot_as_of > as_of:
            raise SnapshotError(SnapshotErrorCode.SNAPSHOT_OLDER_THAN_ACTIVE, "an older snapshot")
        if old.version == snapshot.version and snapshot.structured:
            raise SnapshotError(
                SnapshotErrorCode.SNAPSHOT_VERSION_CONFLICT, "same version, other content"
            )
        return None

    def import_file(self, path: Path) -> ImportResult:
        """Validate ``path`` completely, then swap it in; raise SnapshotError on any problem.

        Only a regular file is read (a folder, a device or a pipe is refused before it is
        opened for reading), as a stream of bounded lines: memory depends on the number
        of identifiers, never on the file's line lengths.
        """
        try:
            with open_regular_file(path) as handle:
                snapshot = parse_snapshot(read_lines(handle), secrets.token_bytes(16))
        except (OSError, ValueError) as exc:  # ValueError: a path with a NUL character
            self._log_rejection(SnapshotErrorCode.SNAPSHOT_UNREADABLE)
            raise SnapshotError(SnapshotErrorCode.SNAPSHOT_UNREADABLE, type(exc).__name__) from None
        except SnapshotError as exc:
            self._log_rejection(exc.code)
            raise
        return self.import_snapshot(snapshot)

    def import_lines(self, lines: Iterable[bytes]) -> ImportResult:
        try:
            snapshot = parse_snapshot(lines, secrets.token_bytes(16))
        except SnapshotError as exc:
            self._log_rejection(exc.code)
            raise
        return self.import_snapshot(snapshot)

    def import_snapshot(self, snapshot: Snapshot) -> ImportResult:
        try:
            self._verify_signature(snapshot)
            return self._swap_whole(snapshot)
        except SnapshotError as exc:
            self._log_rejection(exc.code, snapshot.version)
            raise

    def _verify_signature(self, snapshot: Snapshot) -> None:
        if self._verifier is None:
            return
        if snapshot.signature is None:
            raise SnapshotError(SnapshotErrorCode.SNAPSHOT_UNSIGNED, "a public key is configured")
        if not self._verifier.verify(signed_message(snapshot.content_sha256), snapshot.signature):
            raise SnapshotError(
                SnapshotErrorCode.SNAPSHOT_BAD_SIGNATURE, "signature does not verify"
            )

    def feed_since(self) -> datetime | None:
        """Where the next change-feed pull starts (``None``: no snapshot yet)."""
        state = self.state()
        if state is None:
            return None
        return state.feed_as_of or state.snapshot_as_of

    def apply_feed(self, page: FeedPage) -> FeedResult:
        """Apply additions and removals in order; idempotent; position moves atomically."""
        try:
            validate_feed(page)
            return self._apply_whole(page)
        except SnapshotError as exc:
            self._log_rejection(exc.code, kind="FEED_REJECTED")
            raise


class ReplicaRegistry(ReplicaFront):
    """The RIAJ replica in the visitor file; an ``InterdictionRegistry`` (source REPLICA)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        clock: Clock,
        *,
        verifier: SignatureVerifier | None = None,
        lock: threading.RLock | None = None,
        audit: RegistryAudit | None = None,
    ) -> None:
        self._conn = conn
        self._clock = clock
        self._verifier = verifier
        self._audit = audit
        self._lock = lock or threading.RLock()
        self._active: _Active | None = None
        self._data_version = -1

    # --- checks --------------------------------------------------------------------------

    def check(self, identity: IdentityKey, person: PersonDetails | None = None) -> RegistryAnswer:
        del person  # the replica holds numbers only
        with self._lock:
            try:
                active = self._current()
                if active is None:
                    return RegistryAnswer(
                        RegistryStatus.UNVERIFIABLE,
                        RegistrySource.REPLICA,
                        error=RegistryErrorCode.REPLICA_EMPTY,
                    )
                digest = identity_digest(active.salt, identity.number)
                row = self._conn.execute(
                    "SELECT 1 FROM registry_entry WHERE snapshot_id = ? AND digest = ?",
                    (active.snapshot_id, digest),
                ).fetchone()
            except DB_ERRORS:
                return RegistryAnswer(
                    RegistryStatus.UNVERIFIABLE,
                    RegistrySource.REPLICA,
                    error=RegistryErrorCode.REPLICA_READ_FAILED,
                )
        state = active.state
        age = self._clock.now() - state.as_of
        return RegistryAnswer(
            RegistryStatus.LISTED if row else RegistryStatus.NOT_LISTED,
            RegistrySource.REPLICA,
            scope=CASINO_SCOPE,
            version=state.label,
            as_of=state.as_of,
            age_seconds=max(0, int(age.total_seconds())),
        )

    def state(self) -> ReplicaState | None:
        with self._lock:
            active = self._current()
        return None if active is None else active.state

    def _current(self) -> _Active | None:
        data_version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        if data_version != self._data_version or self._active is None:
            self._active = self._load_active()
            self._data_version = data_version
        return self._active

    def _load_active(self) -> _Active | None:
        row = self._conn.execute(
            "SELECT snapshot_id, salt, version, scheme, entry_count, as_of, feed_as_of,"
            " feed_applied, imported_at, signed FROM registry_snapshot WHERE active = 1"
        ).fetchone()
        if row is None:
            return None
        state = ReplicaState(
            version=row[2],
            scheme=row[3],
            entries=row[4],
            snapshot_as_of=_parseiso_instant(row[5]),
            feed_as_of=_parseiso_instant(row[6]) if row[6] else None,
            feed_applied=row[7],
            imported_at=_parseiso_instant(row[8]),
            signed=bool(row[9]),
        )
        return _Active(row[0], bytes(row[1]), state)

    # --- snapshot import -----------------------------------------------------------------

    def _swap_whole(self, snapshot: Snapshot) -> ImportResult:
        with self._lock:
            return self._swap(snapshot)

    def _apply_whole(self, page: FeedPage) -> FeedResult:
        with self._lock:
            return self._apply(page)

    def _swap(self, snapshot: Snapshot) -> ImportResult:
        now = self._clock.now()
        as_of = self._as_of(snapshot, now)
        previous = self._current()
        if previous is not None:
            held = self._conn.execute(
                "SELECT content_sha256 FROM registry_snapshot WHERE snapshot_id = ?",
                (previous.snapshot_id,),
            ).fetchone()[0]
            unchanged = self._against(previous.state, held, snapshot, as_of)
            if unchanged is not None:
                return unchanged
        signed = snapshot.signature is not None and self._verifier is not None
        with self._tx() as conn:
            cur = conn.execute(
                "INSERT INTO registry_snapshot (version, scheme, salt, scope, as_of, imported_at,"
                " entry_count, content_sha256, signed, active) VALUES (?,?,?,?,?,?,?,?,?,0)",
                (
                    snapshot.version,
                    snapshot.scheme,
                    snapshot.salt,
                    snapshot.scope,
                    iso_instant(as_of),
                    iso_instant(now),
                    snapshot.count,
                    snapshot.content_sha256.hex(),
                    int(signed),
                ),
            )
            new_id = cur.lastrowid
            conn.executemany(  # digests are sorted: appends to the B-tree
                "INSERT INTO registry_entry (snapshot_id, digest) VALUES (?, ?)",
                zip(repeat(new_id), snapshot.digests),
            )
            conn.execute("DELETE FROM registry_entry WHERE snapshot_id <> ?", (new_id,))
            conn.execute("DELETE FROM registry_snapshot WHERE snapshot_id <> ?", (new_id,))
            conn.execute("UPDATE registry_snapshot SET active = 1 WHERE snapshot_id = ?", (new_id,))
            self._event(conn, "IMPORT", "OK", snapshot.version)
            details = {"version": snapshot.version[:64], "entries": str(snapshot.count)}
            self._audited(conn, "REGISTRY_IMPORTED", int(new_id or 0), details, created=True)
        self._active = None
        return ImportResult(
            snapshot.version,
            snapshot.count,
            as_of,
            signed,
            previous.state.version if previous else "",
            unchanged=False,
            duplicates=snapshot.duplicates,
            duplicate_lines=snapshot.duplicate_lines,
        )

    # --- change feed ---------------------------------------------------------------------

    def _apply(self, page: FeedPage) -> FeedResult:
        active = self._current()
        if active is None:
            raise SnapshotError(SnapshotErrorCode.FEED_WITHOUT_SNAPSHOT, "import a snapshot first")
        since = active.state.feed_as_of or active.state.snapshot_as_of
        self._check_position(page, since)
        added = removed = unchanged = 0
        sid = active.snapshot_id
        with self._tx() as conn:
            for entry in page.entries:
                digest = identity_digest(active.salt, entry.number)
                if entry.action is FeedAction.ADDED:
                    n = conn.execute(
                        "INSERT OR IGNORE INTO registry_entry (snapshot_id, digest) VALUES (?, ?)",
                        (sid, digest),
                    ).rowcount
                    added += n
                else:
                    n = conn.execute(
                        "DELETE FROM registry_entry WHERE snapshot_id = ? AND digest = ?",
                        (sid, digest),
                    ).rowcount
                    removed += n
                unchanged += 1 - n
            position = max(page.as_of, since)
            conn.execute(
                "UPDATE registry_snapshot SET feed_as_of = ?, feed_applied = feed_applied + ?,"
                " entry_count = entry_count + ? WHERE snapshot_id = ?",
                (iso_instant(position), added + removed, added - removed, sid),
            )
            self._event(conn, "FEED", "OK", active.state.version)
            details = {"added": str(added), "removed": str(removed)}
            self._audited(conn, "REGISTRY_FEED", sid, details, created=False)
        self._active = None
        return FeedResult(added, removed, unchanged, position)

    # --- events and transactions ---------------------------------------------------------

    def last_events(self, limit: int = 5) -> list[tuple[datetime, str, str, str]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT at, kind, code, version FROM registry_event ORDER BY event_id DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [(_parseiso_instant(r[0]), r[1], r[2], r[3]) for r in rows]

    def _log_rejection(self, code: str, version: str = "", kind: str = "IMPORT_REJECTED") -> None:
        try:
            with self._lock, self._tx() as conn:
                self._event(conn, kind, code, version)
        except Exception:  # logging the rejection must never hide the rejection itself
            pass

    def _audited(
        self,
        conn: sqlite3.Connection,
        action: str,
        snapshot_id: int,
        details: dict[str, str],
        *,
        created: bool,
    ) -> None:
        """The chain's entry of an import or a feed page, in its transaction (art. 20.2)."""
        if self._audit is None:
            return
        ref = f"registry:{snapshot_id}"
        now = self._clock.now()
        self._audit.append_in(conn, REGISTRY_ACTOR, action, ref, now, details, [(ref, created)])

    def _event(self, conn: sqlite3.Connection, kind: str, code: str, version: str) -> None:
        conn.execute(
            "INSERT INTO registry_event (at, kind, code, version) VALUES (?, ?, ?, ?)",
            (iso_instant(self._clock.now()), kind, code, version[:64]),
        )
        conn.execute(
            "DELETE FROM registry_event WHERE event_id <= (SELECT max(event_id) FROM"
            " registry_event) - 1000"
        )

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        if conn.in_transaction:
            raise SnapshotError(SnapshotErrorCode.REPLICA_BUSY, "a transaction is already open")
        with immediate_transaction(
            conn,
            busy=lambda exc: SnapshotError(SnapshotErrorCode.REPLICA_BUSY, type(exc).__name__),
            failed=lambda exc: SnapshotError(
                SnapshotErrorCode.REPLICA_WRITE_FAILED, type(exc).__name__
            ),
        ):
            yield conn

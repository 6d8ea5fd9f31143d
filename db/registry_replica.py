"""The replica of the RIAJ kept in the visitor file (Decreto 58/2006, art. 20.2, R1),
written once over both dialects (db/tx.py): the desk's SQLCipher file, and the casino's
server, where one replica serves every desk of the operating unit (arts. 154-155).

:class:`ReplicaRegistry` is an :class:`admission.registry.replica.RegistryReplica` (an
``InterdictionRegistry`` of source REPLICA):

* A snapshot is parsed and validated completely (checksum, Ed25519 signature when a
  verifier is configured, format; an identifier repeated on several lines is kept once
  and the repeats counted) *before* the store is touched, then swapped in in one
  transaction: a bad file leaves the previous snapshot in force (``SnapshotError``).
* A change-feed page is validated, then applied whole or not at all (additions insert,
  removals delete: a page given twice ends in the same state), and the feed position
  moves in the same transaction: an interrupted pull resumes from the last committed
  position. Gaps, stale pages and older or conflicting snapshots are refused.
* Each import and each feed page is an entry of the audit chain in its transaction,
  committing to the snapshot with the digest of its identifiers (db/audit_cover.py): a
  register swapped or edited outside the desks fails ``audit verify``. Imports and
  pulls, accepted or refused, are logged with codes only (``registry_event``).
* A check is one statement: the active snapshot's row and one probe of the entries'
  primary key, so a snapshot swapped between two statements can never turn a listed
  person into NOT_LISTED. A replica that cannot be read answers UNVERIFIABLE
  (REPLICA_READ_FAILED), one never imported UNVERIFIABLE (REPLICA_EMPTY): never
  NOT_LISTED. The salt of the active snapshot is kept; when the snapshot changed
  (another desk, another connection), the check is asked again with the new salt.

What the server adds (``store.dialect == "pg"``, migrations ``db/pg/migrations/0050_*``):

* **Keyed digests.** An entry is the register's ``sha256(salt || number)[:16]``; with the
  salt beside it the server's administrator could test every document number. There it
  is stored as HMAC-SHA256 of that digest under a secret of the visitor file
  (``store.secret(SECRET_NAME)``, sealed by the desks' data key; GDPR art. 32),
  truncated to 16 bytes. The secret never changes once made (a data-key rotation
  reseals it), so the entries stay valid.
* **One writer at a time.** An import or a pull takes ``LOCK TABLE registry_snapshot IN
  SHARE ROW EXCLUSIVE MODE`` first and reads the replica's position under it (the
  chain's head is locked later, by the entry, so the desks' admissions do not wait for
  a bulk load); a check never waits for it. A writer waits at most ``lock_timeout_s``,
  then REPLICA_BUSY. Two desks importing the same file at once: the second finds it in
  force (``unchanged``). Two desks applying the same feed page: the second finds the
  page's digest (``feed_page``) and changes nothing (``FeedResult(0, 0, n, position)``,
  no event); the file, one desk's, applies a page given twice again, to the same end.

On the file a swap is one ``BEGIN IMMEDIATE`` transaction of the store (it holds the
file). Schema: ``db/migrations/0002_registry.sql``.

    replica = ReplicaRegistry(store, clock, verifier=verifier)
    replica.import_file(path); replica.apply_feed(page); replica.check(identity)
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar

from admission.errors import StoreError, StoreErrorCode
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
from db.pg.codes import PgStoreCode
from db.tx import Tx, opt_when, when

__all__ = ["REGISTRY_ACTOR", "SECRET_NAME", "ReplicaRegistry", "keyed_digest", "open_regular_file"]

T = TypeVar("T")

REGISTRY_ACTOR = "registry"  # actor of the register's entries (the port names none)
SECRET_NAME = "riaj_replica"  # the server's key of the stored digests (store.secret)
DIGEST_SIZE = 16  # bytes of a stored entry
EVENTS_KEPT = 1000  # the newest registry events kept
_FUTURE_SLACK = timedelta(hours=1)  # clock skew tolerated on a snapshot's as-of
_BUSY = frozenset({StoreErrorCode.STORE_BUSY, PgStoreCode.BUSY})  # another writer holds it
_LOCK = "LOCK TABLE registry_snapshot IN SHARE ROW EXCLUSIVE MODE"
_STATE = (
    "snapshot_id, salt, version, scheme, entry_count, as_of, feed_as_of, feed_applied,"
    " imported_at, signed"
)
# One statement: the probe (an InitPlan on the entries' primary key on the server) and
# the active snapshot's row are read from one snapshot of the database.
PROBE = (
    f"SELECT {_STATE}, EXISTS (SELECT 1 FROM registry_entry"
    " WHERE snapshot_id = ? AND digest = ?) FROM registry_snapshot WHERE active"
)


class ReplicaStore(Protocol):
    """What the replica needs of a store (``SqlCipherStore``, ``PgStore``)."""

    @property
    def dialect(self) -> str: ...

    def read(self, work: Callable[[Any], T]) -> T: ...

    def write(self, work: Callable[[Any], T]) -> T: ...

    def bulk_write(self, work: Callable[[Any], T]) -> T: ...

    def secret(self, name: str) -> bytes: ...


def keyed_digest(key: bytes, digest: bytes) -> bytes:
    """The server's stored form of a register digest: HMAC-SHA256 under the file's secret."""
    return hmac.digest(key, digest, "sha256")[:DIGEST_SIZE]


def page_digest(page: FeedPage) -> bytes:
    """What identifies a feed page: its bounds and its entries, in order."""
    sha = hashlib.sha256(b"RIAJ-FEED-PAGE-1\x00")
    sha.update((iso_instant(page.since) if page.since else "-").encode("ascii") + b"\x00")
    sha.update(iso_instant(page.as_of).encode("ascii") + b"\x00")
    for entry in page.entries:
        line = f"{entry.action.value}\x1f{entry.number}\x1f{iso_instant(entry.at)}\x00"
        sha.update(line.encode("ascii"))
    return sha.digest()


def _keyed_in_order(key: bytes, digests: Iterable[bytes]) -> Iterator[bytes]:
    """The keyed digests in ascending order (a load in key order appends to the primary
    key's B-tree): kept as 16-byte records in 256 buckets by first byte (16 MB for
    1,000,000), each bucket sorted only when it is given - never a list of the whole
    register as objects."""
    buckets = [bytearray() for _ in range(256)]
    for digest in digests:
        mac = hmac.digest(key, digest, "sha256")
        buckets[mac[0]] += mac[:DIGEST_SIZE]
    for i, bucket in enumerate(buckets):
        records = sorted(bytes(bucket[j : j + DIGEST_SIZE]) for j in range(0, len(bucket), 16))
        buckets[i] = bytearray()
        yield from records


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


# -- the register's rules, whatever holds it ------------------------------------------------


def _as_of(snapshot: Snapshot, now: datetime) -> datetime:
    """The snapshot's date (now when it carries none); one from the future refused."""
    as_of = snapshot.as_of or now
    if as_of > now + _FUTURE_SLACK:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_FROM_THE_FUTURE, "as-of is later than now")
    return as_of


def _against(
    old: ReplicaState, held_sha256: str, snapshot: Snapshot, as_of: datetime
) -> ImportResult | None:
    """The active snapshot again: nothing to do (its result); older than the active one,
    or its version with other content: refused; else None (swap it in)."""
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


def _check_position(page: FeedPage, since: datetime) -> None:
    """A page that starts after the replica's position leaves a gap; an older one with
    entries could undo newer changes: both refused."""
    if page.since is not None and page.since > since:
        raise SnapshotError(
            SnapshotErrorCode.FEED_GAP, "the page starts after the replica's position"
        )
    if page.as_of < since and page.entries:
        raise SnapshotError(
            SnapshotErrorCode.FEED_OUT_OF_ORDER, "the page is older than the replica"
        )


def _state_of(row: tuple[Any, ...]) -> ReplicaState:
    return ReplicaState(
        version=str(row[2]),
        scheme=str(row[3]),
        entries=int(row[4]),
        snapshot_as_of=when(row[5]),
        feed_as_of=opt_when(row[6]),
        feed_applied=int(row[7]),
        imported_at=when(row[8]),
        signed=bool(row[9]),
    )


def _active(tx: Tx) -> tuple[int, bytes, ReplicaState] | None:
    """The snapshot in force: its id, its salt and its state."""
    row = tx.one(f"SELECT {_STATE} FROM registry_snapshot WHERE active")
    return None if row is None else (int(row[0]), bytes(row[1]), _state_of(row))


def _probe(sid: int, digest: bytes, tx: Tx) -> tuple[Any, ...] | None:
    return tx.one(PROBE, (sid, digest))


def _event(tx: Tx, at: datetime, kind: str, code: str, version: str) -> None:
    tx.execute(
        "INSERT INTO registry_event (at, kind, code, version) VALUES (?, ?, ?, ?)",
        (tx.ts(at), kind, str(code), version[:64]),
    )
    tx.execute(
        "DELETE FROM registry_event WHERE event_id <= (SELECT max(event_id) FROM"
        " registry_event) - ?",
        (EVENTS_KEPT,),
    )


class ReplicaRegistry:
    """The RIAJ replica in the visitor file of either dialect (see the module's text).

    ``store``: an open ``SqlCipherStore`` or ``PgStore``; thread-safe as it is.
    ``lock_timeout_s``: on the server, how long a write waits for another desk's import
    or pull (the file's writer waits for the file's own busy timeout).
    """

    def __init__(
        self,
        store: ReplicaStore,
        clock: Clock,
        *,
        verifier: SignatureVerifier | None = None,
        lock_timeout_s: float = 60.0,
    ) -> None:
        self._store = store
        self._clock = clock
        self._verifier = verifier
        self._keyed = store.dialect == "pg"
        self._lock_timeout_ms = max(1, int(lock_timeout_s * 1000))
        self._key: bytes | None = None
        self._salt: tuple[int, bytes] | None = None  # (snapshot_id, salt) of the last check
        self._seen: tuple[tuple[Any, ...], ReplicaState] | None = None  # its row and state

    # --- checks ----------------------------------------------------------------------------

    def check(self, identity: IdentityKey, person: PersonDetails | None = None) -> RegistryAnswer:
        """The register's answer for one identity from the replica (art. 20.2)."""
        del person  # the replica holds numbers only
        try:
            found = self._probe(identity.number)
        except StoreError:
            return RegistryAnswer(
                RegistryStatus.UNVERIFIABLE,
                RegistrySource.REPLICA,
                error=RegistryErrorCode.REPLICA_READ_FAILED,
            )
        if found is None:
            return RegistryAnswer(
                RegistryStatus.UNVERIFIABLE,
                RegistrySource.REPLICA,
                error=RegistryErrorCode.REPLICA_EMPTY,
            )
        state, listed = found
        age = self._clock.now() - state.as_of
        return RegistryAnswer(
            RegistryStatus.LISTED if listed else RegistryStatus.NOT_LISTED,
            RegistrySource.REPLICA,
            scope=CASINO_SCOPE,
            version=state.label,
            as_of=state.as_of,
            age_seconds=max(0, int(age.total_seconds())),
        )

    def _probe(self, number: str) -> tuple[ReplicaState, bool] | None:
        """The active snapshot's state and whether ``number`` is in it, read by one
        statement; again when the snapshot in force has another salt than the last one."""
        key = self._entry_key()
        for _ in range(3):
            known = self._salt
            sid, digest = (known[0], self._stored(key, known[1], number)) if known else (0, b"")
            row = self._store.read(partial(_probe, sid, digest))
            if row is None:
                return None
            if int(row[0]) == sid:
                return self._state(row[:10]), bool(row[10])
            self._salt = (int(row[0]), bytes(row[1]))
        raise StoreError("the active snapshot keeps changing", code=SnapshotErrorCode.REPLICA_BUSY)

    def _state(self, row: tuple[Any, ...]) -> ReplicaState:
        seen = self._seen
        if seen is not None and seen[0] == row:
            return seen[1]
        state = _state_of(row)
        self._seen = (row, state)
        return state

    def state(self) -> ReplicaState | None:
        """The snapshot in force, ``None`` when none was imported. A replica that cannot
        be read raises ``StoreError`` (REPLICA_READ_FAILED): never taken for "none"."""
        found = self._read(_active)
        return None if found is None else found[2]

    def last_events(self, limit: int = 5) -> list[tuple[datetime, str, str, str]]:
        """(at, kind, code, version) of the newest imports, syncs and refusals."""
        rows = self._read(
            lambda tx: tx.all(
                "SELECT at, kind, code, version FROM registry_event ORDER BY event_id DESC LIMIT ?",
                (limit,),
            )
        )
        return [(when(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def feed_since(self) -> datetime | None:
        """Where the next change-feed pull starts (``None``: no snapshot yet)."""
        state = self.state()
        if state is None:
            return None
        return state.feed_as_of or state.snapshot_as_of

    # --- snapshot import -------------------------------------------------------------------

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
        """Verify the signature, then swap the snapshot in, whole or not at all."""
        try:
            self._verify_signature(snapshot)
            return self._write(lambda tx, key: self._swap(tx, key, snapshot))
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

    def _swap(self, tx: Tx, key: bytes | None, snapshot: Snapshot) -> ImportResult:
        now = self._clock.now()
        as_of = _as_of(snapshot, now)
        previous = self._writer(tx)
        if previous is not None:
            held = tx.one(
                "SELECT content_sha256 FROM registry_snapshot WHERE snapshot_id = ?",
                (previous[0],),
            )
            unchanged = _against(previous[2], "" if held is None else str(held[0]), snapshot, as_of)
            if unchanged is not None:
                return unchanged
        signed = snapshot.signature is not None and self._verifier is not None
        (found,) = tx.all(
            "INSERT INTO registry_snapshot (version, scheme, salt, scope, as_of, imported_at,"
            " entry_count, content_sha256, signed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING snapshot_id",
            (
                snapshot.version,
                snapshot.scheme,
                snapshot.salt,
                snapshot.scope,
                tx.ts(as_of),
                tx.ts(now),
                snapshot.count,
                snapshot.content_sha256.hex(),
                tx.flag(signed),
            ),
        )
        new_id = int(found[0])
        digests = snapshot.digests if key is None else _keyed_in_order(key, snapshot.digests)
        tx.load("registry_entry", ("snapshot_id", "digest"), zip(repeat(new_id), digests))
        tx.execute("DELETE FROM registry_entry WHERE snapshot_id <> ?", (new_id,))
        gone = tx.all(
            "DELETE FROM registry_snapshot WHERE snapshot_id <> ? RETURNING snapshot_id",
            (new_id,),
        )
        tx.note_erased(f"registry:{int(r[0])}" for r in gone)
        tx.execute(
            "UPDATE registry_snapshot SET active = ? WHERE snapshot_id = ?",
            (tx.flag(True), new_id),
        )
        _event(tx, now, "IMPORT", "OK", snapshot.version)
        details = {"version": snapshot.version[:64], "entries": str(snapshot.count)}
        self._audited(tx, "REGISTRY_IMPORTED", new_id, details, created=True)
        return ImportResult(
            snapshot.version,
            snapshot.count,
            as_of,
            signed,
            previous[2].version if previous else "",
            unchanged=False,
            duplicates=snapshot.duplicates,
            duplicate_lines=snapshot.duplicate_lines,
        )

    # --- change feed -----------------------------------------------------------------------

    def apply_feed(self, page: FeedPage) -> FeedResult:
        """Apply additions and removals in order, whole or not at all; the position moves
        in the same transaction."""
        try:
            validate_feed(page)
            return self._write(lambda tx, key: self._apply(tx, key, page))
        except SnapshotError as exc:
            self._log_rejection(exc.code, kind="FEED_REJECTED")
            raise

    def _apply(self, tx: Tx, key: bytes | None, page: FeedPage) -> FeedResult:
        active = self._writer(tx)
        if active is None:
            raise SnapshotError(SnapshotErrorCode.FEED_WITHOUT_SNAPSHOT, "import a snapshot first")
        sid, salt, state = active
        since = state.feed_as_of or state.snapshot_as_of
        recorded = ""
        params: list[Any] = []
        if tx.dialect == "pg":  # the desks share it: a page another desk has just applied
            fingerprint = page_digest(page)
            row = tx.one("SELECT feed_page FROM registry_snapshot WHERE snapshot_id = ?", (sid,))
            if row is not None and row[0] is not None and bytes(row[0]) == fingerprint:
                return FeedResult(0, 0, len(page.entries), since)
            recorded, params = ", feed_page = ?", [fingerprint]
        _check_position(page, since)
        added = removed = unchanged = 0
        for entry in page.entries:
            digest = self._stored(key, salt, entry.number)
            if entry.action is FeedAction.ADDED:
                n = tx.execute(
                    "INSERT INTO registry_entry (snapshot_id, digest) VALUES (?, ?)"
                    " ON CONFLICT DO NOTHING",
                    (sid, digest),
                )
                added += n
            else:
                n = tx.execute(
                    "DELETE FROM registry_entry WHERE snapshot_id = ? AND digest = ?",
                    (sid, digest),
                )
                removed += n
            unchanged += 1 - n
        position = max(page.as_of, since)
        tx.execute(
            "UPDATE registry_snapshot SET feed_as_of = ?, feed_applied = feed_applied + ?,"
            f" entry_count = entry_count + ?{recorded} WHERE snapshot_id = ?",
            (tx.ts(position), added + removed, added - removed, *params, sid),
        )
        _event(tx, self._clock.now(), "FEED", "OK", state.version)
        details = {"added": str(added), "removed": str(removed)}
        self._audited(tx, "REGISTRY_FEED", sid, details, created=False)
        return FeedResult(added, removed, unchanged, position)

    # --- what the dialects do differently ----------------------------------------------------

    def _entry_key(self) -> bytes | None:
        """The server's key of the stored digests, made (or read) before any transaction
        of the replica; None on the file, which stores the register's digests."""
        if not self._keyed:
            return None
        if self._key is None:
            self._key = bytes(self._store.secret(SECRET_NAME))
        return self._key

    @staticmethod
    def _stored(key: bytes | None, salt: bytes, number: str) -> bytes:
        digest = identity_digest(salt, number)
        return digest if key is None else keyed_digest(key, digest)

    def _writer(self, tx: Tx) -> tuple[int, bytes, ReplicaState] | None:
        """The snapshot in force, read by the one writer: on the server, after taking the
        replica's lock (waiting at most ``lock_timeout_s``); the file's write transaction
        holds the whole file."""
        if tx.dialect == "pg":
            tx.execute(f"SET LOCAL lock_timeout = {self._lock_timeout_ms}")
            tx.execute(_LOCK)
        return _active(tx)

    def _audited(
        self, tx: Tx, action: str, snapshot_id: int, details: dict[str, str], *, created: bool
    ) -> None:
        """The chain's entry of an import or a feed page, in its transaction (art. 20.2),
        committing to the snapshot with the digest of its identifiers."""
        ref = f"registry:{snapshot_id}"
        tx.audit(REGISTRY_ACTOR, action, ref, self._clock.now(), details, [(ref, created)])

    def _read(self, work: Callable[[Tx], T]) -> T:
        try:
            return self._store.read(work)
        except StoreError as exc:
            raise StoreError(
                f"the replica cannot be read: {exc.code}",
                code=RegistryErrorCode.REPLICA_READ_FAILED,
            ) from exc

    def _write(self, work: Callable[[Tx, bytes | None], T]) -> T:
        """``work`` in one write transaction of the store, all or nothing (the server's
        takes the replica's lock before the chain's head, :meth:`_writer`, and has no
        watchdog: a snapshot is a bulk load). SnapshotError from ``work`` passes through,
        rolled back; the store's failures become REPLICA_BUSY or REPLICA_WRITE_FAILED."""
        try:
            key = self._entry_key()
            return self._store.bulk_write(lambda tx: work(tx, key))
        except StoreError as exc:
            busy = exc.code in _BUSY
            code = (
                SnapshotErrorCode.REPLICA_BUSY if busy else SnapshotErrorCode.REPLICA_WRITE_FAILED
            )
            raise SnapshotError(code, str(exc.code)) from None

    def _log_rejection(self, code: str, version: str = "", kind: str = "IMPORT_REJECTED") -> None:
        try:
            now = self._clock.now()
            self._store.write(lambda tx: _event(tx, now, kind, code, version))
        except Exception:  # logging the rejection must never hide the rejection itself
            pass

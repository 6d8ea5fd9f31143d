"""The RIAJ's replica in the visitor file (art. 20.2, R1; on the server one for every desk,
arts. 154-155). A snapshot is validated whole, then swapped in; a feed page applied whole
with its position; each audited in its transaction. A check is one statement, so a swap can
never turn a listed person into NOT_LISTED. The server stores each digest HMAC'd under the
file's secret (GDPR art. 32: its administrator cannot test document numbers) and has one
writer at a time (``LOCK TABLE``, before the chain's head: admissions never wait a load)."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta
from itertools import repeat
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

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
from db.file_ports import FilePorts
from db.pg.codes import PgStoreCode
from db.tx import Tx, opt_when, when

T = TypeVar("T")

REGISTRY_ACTOR = "registry"  # actor of the register's entries (the port names none)
SECRET_NAME = "riaj_replica"  # the server's key of the stored digests (store.secret)
DIGEST_SIZE = 16  # bytes of a stored entry
EVENTS_KEPT = 1000  # the newest registry events kept
_FUTURE_SLACK = timedelta(hours=1)  # clock skew tolerated on a snapshot's as-of
_BUSY = frozenset({StoreErrorCode.STORE_BUSY, PgStoreCode.BUSY})  # another writer holds it
_FEED = {  # a page given twice ends in the same state
    FeedAction.ADDED: "INSERT INTO registry_entry (snapshot_id, digest) VALUES (?, ?)"
    " ON CONFLICT DO NOTHING",
    FeedAction.REMOVED: "DELETE FROM registry_entry WHERE snapshot_id = ? AND digest = ?",
}
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


def keyed_digest(key: bytes, digest: bytes) -> bytes:
    """The server's stored form of a register digest."""
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
    key's B-tree), as 16-byte records in 256 buckets by first byte (16 MB for 1,000,000):
    never a list of the whole register as objects."""
    buckets = [bytearray() for _ in range(256)]
    for digest in digests:
        mac = keyed_digest(key, digest)
        buckets[mac[0]] += mac
    for i, bucket in enumerate(buckets):
        records = sorted(bytes(bucket[j : j + DIGEST_SIZE]) for j in range(0, len(bucket), 16))
        buckets[i] = bytearray()
        yield from records


def open_regular_file(path: Path) -> BinaryIO:
    """``path`` opened when it is a regular file of at most ``MAX_FILE_BYTES``. A pipe
    would block ``open()`` until a writer comes: it is refused from ``stat()``, then the
    file is opened non-blocking and checked again, so a path swapped in between is too."""
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


def _against(
    old: ReplicaState, held_sha256: str, snapshot: Snapshot, as_of: datetime
) -> ImportResult | None:
    """The active snapshot again: its result; an older one or its version with other
    content: refused; else None (swap it in)."""
    if held_sha256 == snapshot.content_sha256.hex():
        held = (old.version, old.entries, old.snapshot_as_of, old.signed, old.version, True)
        return ImportResult(*held, snapshot.duplicates, snapshot.duplicate_lines)
    if old.snapshot_as_of > as_of:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_OLDER_THAN_ACTIVE, "an older snapshot")
    if old.version == snapshot.version and snapshot.structured:
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_VERSION_CONFLICT, "same version, other content"
        )
    return None


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
    row = tx.one(f"SELECT {_STATE} FROM registry_snapshot WHERE active")
    return None if row is None else (int(row[0]), bytes(row[1]), _state_of(row))


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
    """The RIAJ replica over an open store; thread-safe as it is. ``lock_timeout_s``: how
    long the server's writer waits for another desk's import or pull."""

    def __init__(
        self,
        store: FilePorts,
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

    def check(self, identity: IdentityKey, person: PersonDetails | None = None) -> RegistryAnswer:
        """The register's answer for one identity from the replica (art. 20.2)."""
        del person  # the replica holds numbers only
        try:
            found = self._probe(identity.number)
            error = RegistryErrorCode.REPLICA_EMPTY
        except StoreError:
            found, error = None, RegistryErrorCode.REPLICA_READ_FAILED
        if found is None:
            return RegistryAnswer(RegistryStatus.UNVERIFIABLE, RegistrySource.REPLICA, error=error)
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
            row = self._store.read(lambda tx: tx.one(PROBE, (sid, digest)))  # noqa: B023
            if row is None:
                return None
            if int(row[0]) == sid:  # the state parsed again only when its row changed
                seen = self._seen
                if seen is None or seen[0] != row[:10]:
                    seen = self._seen = (row[:10], _state_of(row))
                return seen[1], bool(row[10])
            self._salt = (int(row[0]), bytes(row[1]))
        raise StoreError("the active snapshot keeps changing", code=SnapshotErrorCode.REPLICA_BUSY)

    def state(self) -> ReplicaState | None:
        """The snapshot in force, ``None`` when none was imported; StoreError
        (REPLICA_READ_FAILED) when unreadable: never taken for "none"."""
        found = self._read(_active)
        return None if found is None else found[2]

    def last_events(self, limit: int = 5) -> list[tuple[datetime, str, str, str]]:
        """(at, kind, code, version) of the newest imports, syncs and refusals."""
        sql = "SELECT at, kind, code, version FROM registry_event ORDER BY event_id DESC LIMIT ?"
        rows = self._read(lambda tx: tx.all(sql, (limit,)))
        return [(when(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def feed_since(self) -> datetime | None:
        """Where the next change-feed pull starts (``None``: no snapshot yet)."""
        state = self.state()
        return None if state is None else state.feed_as_of or state.snapshot_as_of

    def import_file(self, path: Path) -> ImportResult:
        """Validate the regular file ``path`` completely, read as a stream of bounded
        lines, then swap it in; SnapshotError on any problem."""

        def parse() -> Snapshot:
            try:
                with open_regular_file(path) as handle:
                    return parse_snapshot(read_lines(handle), secrets.token_bytes(16))
            except (OSError, ValueError) as exc:  # ValueError: a path with a NUL character
                code = SnapshotErrorCode.SNAPSHOT_UNREADABLE
                raise SnapshotError(code, type(exc).__name__) from None

        return self.import_snapshot(self._logged(parse))

    def import_lines(self, lines: Iterable[bytes]) -> ImportResult:
        snapshot = self._logged(lambda: parse_snapshot(lines, secrets.token_bytes(16)))
        return self.import_snapshot(snapshot)

    def import_snapshot(self, snapshot: Snapshot) -> ImportResult:
        """Verify the signature, then swap the snapshot in, whole or not at all."""

        def swap() -> ImportResult:
            self._verify_signature(snapshot)
            return self._write(lambda tx, key: self._swap(tx, key, snapshot))

        return self._logged(swap, snapshot.version)

    def _swap(self, tx: Tx, key: bytes | None, snapshot: Snapshot) -> ImportResult:
        now = self._clock.now()
        as_of = snapshot.as_of or now  # a snapshot without a date is as of its import
        if as_of > now + _FUTURE_SLACK:
            code = SnapshotErrorCode.SNAPSHOT_FROM_THE_FUTURE
            raise SnapshotError(code, "as-of is later than now")
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
        described = (snapshot.version, snapshot.scheme, snapshot.salt, snapshot.scope)
        sha256 = snapshot.content_sha256.hex()
        (found,) = tx.all(
            "INSERT INTO registry_snapshot (version, scheme, salt, scope, as_of, imported_at,"
            " entry_count, content_sha256, signed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING snapshot_id",
            (*described, tx.ts(as_of), tx.ts(now), snapshot.count, sha256, tx.flag(signed)),
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
        replaced = previous[2].version if previous else ""
        result = (snapshot.version, snapshot.count, as_of, signed, replaced, False)
        return ImportResult(*result, snapshot.duplicates, snapshot.duplicate_lines)

    def _verify_signature(self, snapshot: Snapshot) -> None:
        if self._verifier is None:
            return
        if snapshot.signature is None:
            raise SnapshotError(SnapshotErrorCode.SNAPSHOT_UNSIGNED, "a public key is configured")
        if not self._verifier.verify(signed_message(snapshot.content_sha256), snapshot.signature):
            code = SnapshotErrorCode.SNAPSHOT_BAD_SIGNATURE
            raise SnapshotError(code, "signature does not verify")

    def apply_feed(self, page: FeedPage) -> FeedResult:
        """Apply additions and removals in order, whole or not at all; the position moves
        in the same transaction."""

        def apply() -> FeedResult:
            validate_feed(page)
            return self._write(lambda tx, key: self._apply(tx, key, page))

        return self._logged(apply, kind="FEED_REJECTED")

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
        # a page starting after the position leaves a gap; an older one with entries
        # could undo newer changes: both refused
        if page.since is not None and page.since > since:
            code = SnapshotErrorCode.FEED_GAP
            raise SnapshotError(code, "the page starts after the replica's position")
        if page.as_of < since and page.entries:
            code = SnapshotErrorCode.FEED_OUT_OF_ORDER
            raise SnapshotError(code, "the page is older than the replica")
        changed = dict.fromkeys(FeedAction, 0)
        for entry in page.entries:
            digest = self._stored(key, salt, entry.number)
            changed[entry.action] += tx.execute(_FEED[entry.action], (sid, digest))
        added, removed = changed[FeedAction.ADDED], changed[FeedAction.REMOVED]
        unchanged = len(page.entries) - added - removed
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

    def _entry_key(self) -> bytes | None:
        """The server's key of the stored digests, made or read before any transaction;
        None on the file, which stores the register's digests."""
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
        """The snapshot in force, read by the one writer: on the server under the
        replica's lock; the file's write transaction holds the whole file."""
        if tx.dialect == "pg":
            tx.execute(f"SET LOCAL lock_timeout = {self._lock_timeout_ms}")
            tx.execute(_LOCK)
        return _active(tx)

    def _audited(
        self, tx: Tx, action: str, snapshot_id: int, details: dict[str, str], *, created: bool
    ) -> None:
        """The chain's entry of an import or a feed page (art. 20.2), in its transaction."""
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
        """``work`` in one bulk write transaction (no watchdog), all or nothing; the
        store's failures become REPLICA_BUSY or REPLICA_WRITE_FAILED."""
        try:
            key = self._entry_key()
            return self._store.bulk_write(lambda tx: work(tx, key))
        except StoreError as exc:
            failed = SnapshotErrorCode.REPLICA_WRITE_FAILED
            code = SnapshotErrorCode.REPLICA_BUSY if exc.code in _BUSY else failed
            raise SnapshotError(code, str(exc.code)) from None

    def _logged(self, work: Callable[[], T], version: str = "", kind: str = "IMPORT_REJECTED") -> T:
        """``work``'s answer; its refusal (SnapshotError) recorded as an event, then raised."""
        try:
            return work()
        except SnapshotError as exc:
            with contextlib.suppress(Exception):  # recording it never hides the refusal
                now, code = self._clock.now(), exc.code
                self._store.write(lambda tx: _event(tx, now, kind, code, version))
            raise

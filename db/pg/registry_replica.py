"""The RIAJ replica on the shared PostgreSQL server (Decreto 58/2006, art. 20.2; art. 23).

:class:`PgReplicaRegistry` behaves as :class:`db.registry_replica.ReplicaRegistry` (an
:class:`admission.registry.port.InterdictionRegistry`, source REPLICA) but keeps ONE
replica for every desk of the operating unit (arts. 154-155): one import or one
change-feed pull updates it for all of them. Tables: ``db/pg/migrations/0050_*.sql``.

The same rules as the SQLCipher replica:

* A snapshot is parsed and validated completely (checksum, Ed25519 signature when a
  verifier is configured, format) before the server is touched, then swapped in in one
  transaction: a bad file leaves the previous snapshot in force (``SnapshotError``).
* A change-feed page is applied whole or not at all, and the feed position moves in the
  same transaction: an interrupted pull resumes from the last committed position.
* Gaps, stale pages and older or conflicting snapshots are refused with the same codes;
  imports and pulls, accepted or refused, are logged with codes only.

What the shared server adds:

* **Keyed digests.** The register's entries are ``sha256(salt || number)[:16]``
  (:func:`admission.registry.snapshot.identity_digest`); with the salt beside them the
  server's administrator could test every document number. Each entry is stored as
  HMAC-SHA256 of that digest under a secret of the visitor file
  (``PgStore.secret(SECRET_NAME)``, sealed by the desks' data key; GDPR art. 32),
  truncated to 16 bytes. No identity number reaches the server in clear; the secret
  never changes once made (a data-key rotation reseals it), so the entries stay valid.
* **One writer at a time.** Imports and feed pulls take ``LOCK TABLE registry_snapshot
  IN SHARE ROW EXCLUSIVE MODE`` first and read the replica's position under it; a check
  never waits for them (it reads the last committed snapshot). Two desks applying the
  same feed page at once: the second sees the page's digest recorded by the first
  (``feed_page``) and changes nothing: ``FeedResult(0, 0, len(entries), position)``,
  no event. (The SQLCipher replica applies a page given twice again, to the same end;
  here the second desk cannot tell "again" from "at once".) Two desks importing the
  same file: the second finds the same content in force (``unchanged``). A writer waits
  at most ``lock_timeout_s`` for another, then ``REPLICA_BUSY``.
* **A check is one statement**: the active snapshot's row and one probe of the entry
  primary key, so a snapshot swapped by another desk between two statements can never
  turn a listed person into NOT_LISTED. The salt of the active snapshot is cached; when
  another desk swapped the snapshot, the check is asked again with the new salt.

Thread-safe: every call takes a connection of the store's pool.

    replica = PgReplicaRegistry(store, clock, verifier=verifier)
    replica.import_file(path); replica.apply_feed(page); replica.check(identity)
"""

from __future__ import annotations

import hashlib
import hmac
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import PoolTimeout

from admission.errors import StoreError
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
from admission.registry.replica import FeedResult, ImportResult, ReplicaState
from admission.registry.snapshot import (
    FeedAction,
    FeedPage,
    SignatureVerifier,
    Snapshot,
    SnapshotError,
    SnapshotErrorCode,
    identity_digest,
)
from db.pg.store import PgStore
from db.registry_replica import REGISTRY_ACTOR, ReplicaFront

__all__ = ["SECRET_NAME", "PgReplicaRegistry", "keyed_digest"]

Conn = psycopg.Connection[Any]
ConnectionSource = Callable[[], AbstractContextManager[Conn]]
T = TypeVar("T")

SECRET_NAME = "riaj_replica"  # PgStore.secret: the key of the stored digests
DIGEST_SIZE = 16  # bytes of a stored entry (as the SQLCipher replica's digests)
EVENTS_KEPT = 1000  # the newest registry events kept (as the SQLCipher replica)
_FUTURE_SLACK = timedelta(hours=1)  # clock skew tolerated on a snapshot's as-of
_ATTEMPTS = 4  # tries of a write that meets a deadlock or a serialisation failure
_RETRYABLE = (pg_errors.SerializationFailure, pg_errors.DeadlockDetected)
_BUSY = (pg_errors.LockNotAvailable, pg_errors.QueryCanceled)
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags, extension length
_COPY_TRAILER = b"\xff\xff"  # a field count of -1
_ROW = struct.Struct(">hiqi")  # field count; length and value of the id; length of the digest
_LOCK = "LOCK TABLE registry_snapshot IN SHARE ROW EXCLUSIVE MODE"
_STATE = (
    "snapshot_id, salt, version, scheme, entry_count, as_of, feed_as_of, feed_applied,"
    " imported_at, signed"
)

# One statement: the probe (an InitPlan on the entries' primary key, whatever the
# tables' statistics) and the active snapshot's row are read from one server snapshot.
_PROBE = (
    f"SELECT {_STATE}, EXISTS (SELECT 1 FROM registry_entry"
    " WHERE snapshot_id = %s AND digest = %s) FROM registry_snapshot WHERE active"
)


def keyed_digest(key: bytes, digest: bytes) -> bytes:
    """The stored form of a register digest: HMAC-SHA256 under the file's secret, 16 bytes."""
    return hmac.digest(key, digest, "sha256")[:DIGEST_SIZE]


def page_digest(page: FeedPage) -> bytes:
    """What identifies a feed page: its bounds and its entries, in order."""
    sha = hashlib.sha256(b"RIAJ-FEED-PAGE-1\x00")
    sha.update((_iso(page.since) if page.since else "-").encode("ascii") + b"\x00")
    sha.update(_iso(page.as_of).encode("ascii") + b"\x00")
    for entry in page.entries:
        line = f"{entry.action.value}\x1f{entry.number}\x1f{_iso(entry.at)}\x00"
        sha.update(line.encode("ascii"))
    return sha.digest()


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True, slots=True)
class _Active:
    snapshot_id: int
    salt: bytes
    state: ReplicaState


def _active_from(row: tuple[Any, ...]) -> _Active:
    state = ReplicaState(
        version=str(row[2]),
        scheme=str(row[3]),
        entries=int(row[4]),
        snapshot_as_of=row[5].astimezone(UTC),
        feed_as_of=row[6].astimezone(UTC) if row[6] is not None else None,
        feed_applied=int(row[7]),
        imported_at=row[8].astimezone(UTC),
        signed=bool(row[9]),
    )
    return _Active(int(row[0]), bytes(row[1]), state)


class PgReplicaRegistry(ReplicaFront):
    """The RIAJ replica on the shared server; an ``InterdictionRegistry`` (source REPLICA).

    ``store``: an open :class:`db.pg.store.PgStore`; the replica takes connections from
    its pool and keys its digests with its secret :data:`SECRET_NAME`.
    ``lock_timeout_s``: how long a write waits for another desk's import or pull.
    """

    def __init__(
        self,
        store: PgStore,
        clock: Clock,
        *,
        verifier: SignatureVerifier | None = None,
        lock_timeout_s: float = 60.0,
    ) -> None:
        self._connections: ConnectionSource = store._pool.connection
        self._store = store  # its chain records each import and feed page (art. 20.2)
        self._key_source: Callable[[], bytes] = lambda: bytes(store.secret(SECRET_NAME))
        self._clock = clock
        self._verifier = verifier
        self._lock_timeout_ms = max(1, int(lock_timeout_s * 1000))
        self._key: bytes | None = None
        self._salt: tuple[int, bytes] | None = None  # (snapshot_id, salt) of the last check
        self._mutex = threading.Lock()

    def _secret(self) -> bytes:
        key = self._key
        if key is None:
            key = self._key_source()
            self._key = key
        return key

    def _stored(self, salt: bytes, number: str) -> bytes:
        return keyed_digest(self._secret(), identity_digest(salt, number))

    # --- checks --------------------------------------------------------------------------

    def check(self, identity: IdentityKey, person: PersonDetails | None = None) -> RegistryAnswer:
        del person  # the replica holds numbers only
        try:
            found = self._probe(identity.number)
        except (psycopg.Error, PoolTimeout, StoreError):
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
        statement (one snapshot of the server); again when another desk swapped in a
        snapshot with another salt since the last check."""
        for _ in range(3):
            with self._mutex:
                cached = self._salt
            sid, digest = (cached[0], self._stored(cached[1], number)) if cached else (0, b"")
            with self._connections() as conn:
                row = conn.execute(_PROBE, (sid, digest)).fetchone()
            if row is None:
                return None
            active = _active_from(row)
            if active.snapshot_id == sid:
                return active.state, bool(row[10])
            with self._mutex:
                self._salt = (active.snapshot_id, active.salt)
        raise StoreError("the active snapshot keeps changing", code=SnapshotErrorCode.REPLICA_BUSY)

    def state(self) -> ReplicaState | None:
        """The snapshot in force, ``None`` when none was imported. A server that cannot
        be read raises ``StoreError`` (REPLICA_READ_FAILED): never taken for "no snapshot"."""
        with self._reading() as conn:
            active = self._load_active(conn)
        return None if active is None else active.state

    @contextmanager
    def _reading(self) -> Iterator[Conn]:
        try:
            with self._connections() as conn:
                yield conn
        except (psycopg.Error, PoolTimeout) as exc:
            raise StoreError(
                f"the replica cannot be read: {type(exc).__name__}",
                code=RegistryErrorCode.REPLICA_READ_FAILED,
            ) from exc

    @staticmethod
    def _load_active(conn: Conn) -> _Active | None:
        row = conn.execute(f"SELECT {_STATE} FROM registry_snapshot WHERE active").fetchone()
        return None if row is None else _active_from(row)

    # --- snapshot import -----------------------------------------------------------------

    def _swap_whole(self, snapshot: Snapshot) -> ImportResult:
        return self._write(lambda conn: self._swap(conn, snapshot))

    def _swap(self, conn: Conn, snapshot: Snapshot) -> ImportResult:
        now = self._clock.now()
        as_of = self._as_of(snapshot, now)
        key = self._secret()
        conn.execute(_LOCK)  # one writer at a time; checks go on reading the last commit
        previous = self._load_active(conn)
        if previous is not None:
            row = conn.execute(
                "SELECT content_sha256 FROM registry_snapshot WHERE snapshot_id = %s",
                (previous.snapshot_id,),
            ).fetchone()
            unchanged = self._against(
                previous.state, None if row is None else str(row[0]), snapshot, as_of
            )
            if unchanged is not None:
                return unchanged
        signed = snapshot.signature is not None and self._verifier is not None
        found = conn.execute(
            "INSERT INTO registry_snapshot (version, scheme, salt, scope, as_of, imported_at,"
            " entry_count, content_sha256, signed, active)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, false) RETURNING snapshot_id",
            (
                snapshot.version,
                snapshot.scheme,
                snapshot.salt,
                snapshot.scope,
                as_of,
                now,
                snapshot.count,
                snapshot.content_sha256.hex(),
                signed,
            ),
        ).fetchone()
        assert found is not None
        new_id = int(found[0])
        self._copy_entries(conn, new_id, key, snapshot.digests)
        conn.execute("DELETE FROM registry_entry WHERE snapshot_id <> %s", (new_id,))
        gone = conn.execute(
            "DELETE FROM registry_snapshot WHERE snapshot_id <> %s RETURNING snapshot_id",
            (new_id,),
        ).fetchall()
        conn.execute("UPDATE registry_snapshot SET active = true WHERE snapshot_id = %s", (new_id,))
        self._event(conn, "IMPORT", "OK", snapshot.version)
        details = {"version": snapshot.version[:64], "entries": str(snapshot.count)}
        erased = [f"registry:{int(r[0])}" for r in gone]
        self._audited(conn, "REGISTRY_IMPORTED", new_id, details, created=True, erased=erased)
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

    @staticmethod
    def _copy_entries(conn: Conn, snapshot_id: int, key: bytes, digests: Iterable[bytes]) -> None:
        """COPY the keyed digests in ascending order (appends to the primary key's B-tree,
        several times faster than random inserts) in PostgreSQL's binary copy format: a
        header, then per row 2 fields (int8 snapshot id, 16-byte bytea), a trailer.

        The keyed digests are kept as 16-byte records in 256 buckets by first byte (16 MB
        for 1,000,000), each bucket sorted only when it is written: never a list of the
        whole register as objects."""
        buckets = [bytearray() for _ in range(256)]
        for digest in digests:
            mac = hmac.digest(key, digest, "sha256")
            buckets[mac[0]] += mac[:DIGEST_SIZE]
        row = _ROW.pack(2, 8, snapshot_id, DIGEST_SIZE)
        with conn.cursor().copy(
            "COPY registry_entry (snapshot_id, digest) FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.write(_COPY_SIGNATURE)
            for i, bucket in enumerate(buckets):
                records = sorted(bucket[j : j + DIGEST_SIZE] for j in range(0, len(bucket), 16))
                buckets[i] = bytearray()
                copy.write(b"".join(row + record for record in records))
            copy.write(_COPY_TRAILER)

    # --- change feed ---------------------------------------------------------------------

    def _apply_whole(self, page: FeedPage) -> FeedResult:
        """Additions and removals in order, whole or not at all; the position moves in
        the same transaction. A page another desk has just applied changes nothing."""
        return self._write(lambda conn: self._apply(conn, page))

    def _apply(self, conn: Conn, page: FeedPage) -> FeedResult:
        key = self._secret()
        conn.execute(_LOCK)  # the position below is read under the lock (arts. 154-155)
        active = self._load_active(conn)
        if active is None:
            raise SnapshotError(SnapshotErrorCode.FEED_WITHOUT_SNAPSHOT, "import a snapshot first")
        since = active.state.feed_as_of or active.state.snapshot_as_of
        fingerprint = page_digest(page)
        row = conn.execute(
            "SELECT feed_page FROM registry_snapshot WHERE snapshot_id = %s",
            (active.snapshot_id,),
        ).fetchone()
        if row is not None and row[0] is not None and bytes(row[0]) == fingerprint:
            # another desk applied this very page: applied once, nothing to change
            return FeedResult(0, 0, len(page.entries), since)
        self._check_position(page, since)
        added = removed = unchanged = 0
        sid = active.snapshot_id
        for entry in page.entries:
            digest = keyed_digest(key, identity_digest(active.salt, entry.number))
            if entry.action is FeedAction.ADDED:
                n = conn.execute(
                    "INSERT INTO registry_entry (snapshot_id, digest) VALUES (%s, %s)"
                    " ON CONFLICT DO NOTHING",
                    (sid, digest),
                ).rowcount
                added += n
            else:
                n = conn.execute(
                    "DELETE FROM registry_entry WHERE snapshot_id = %s AND digest = %s",
                    (sid, digest),
                ).rowcount
                removed += n
            unchanged += 1 - n
        position = max(page.as_of, since)
        conn.execute(
            "UPDATE registry_snapshot SET feed_as_of = %s, feed_applied = feed_applied + %s,"
            " entry_count = entry_count + %s, feed_page = %s WHERE snapshot_id = %s",
            (position, added + removed, added - removed, fingerprint, sid),
        )
        self._event(conn, "FEED", "OK", active.state.version)
        details = {"added": str(added), "removed": str(removed)}
        self._audited(conn, "REGISTRY_FEED", sid, details, created=False)
        return FeedResult(added, removed, unchanged, position)

    def _audited(
        self,
        conn: Conn,
        action: str,
        snapshot_id: int,
        details: dict[str, str],
        *,
        created: bool,
        erased: Sequence[str] = (),
    ) -> None:
        """The chain's entry of an import or a feed page, in its transaction (art. 20.2),
        committing to the snapshot with the digest of its identifiers."""
        ref = f"registry:{snapshot_id}"
        now = self._clock.now()
        self._store.append_on(
            conn, REGISTRY_ACTOR, action, ref, now, details, [(ref, created)], erased
        )

    # --- events and transactions ---------------------------------------------------------

    def last_events(self, limit: int = 5) -> list[tuple[datetime, str, str, str]]:
        """(at, kind, code, version) of the newest imports and pulls, newest first."""
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT at, kind, code, version FROM registry_event"
                " ORDER BY event_id DESC LIMIT %s",
                (limit,),
            ).fetchall()
        return [(r[0].astimezone(UTC), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def _log_rejection(self, code: str, version: str = "", kind: str = "IMPORT_REJECTED") -> None:
        try:
            with self._connections() as conn, conn.transaction():
                self._event(conn, kind, code, version)
        except Exception:  # logging the rejection must never hide the rejection itself
            pass

    def _event(self, conn: Conn, kind: str, code: str, version: str) -> None:
        conn.execute(
            "INSERT INTO registry_event (at, kind, code, version) VALUES (%s, %s, %s, %s)",
            (self._clock.now(), kind, str(code), version[:64]),
        )
        conn.execute(
            "DELETE FROM registry_event WHERE event_id <= (SELECT max(event_id) FROM"
            " registry_event) - %s",
            (EVENTS_KEPT,),
        )

    def _write(self, work: Callable[[Conn], T]) -> T:
        """``work`` in one transaction (all or nothing); a deadlock or serialisation
        failure is tried again a few times. SnapshotError from ``work`` passes through
        (rolled back); the server's failures become REPLICA_BUSY / REPLICA_WRITE_FAILED."""
        for attempt in range(1, _ATTEMPTS + 1):
            try:
                with self._transaction() as conn:
                    return work(conn)
            except _RETRYABLE as exc:
                if attempt == _ATTEMPTS:
                    raise SnapshotError(
                        SnapshotErrorCode.REPLICA_BUSY, type(exc).__name__
                    ) from None
                time.sleep(0.01 * attempt)
            except _BUSY as exc:
                raise SnapshotError(SnapshotErrorCode.REPLICA_BUSY, type(exc).__name__) from None
            except PoolTimeout:
                raise SnapshotError(SnapshotErrorCode.REPLICA_BUSY, "PoolTimeout") from None
            except (psycopg.Error, StoreError) as exc:
                raise SnapshotError(
                    SnapshotErrorCode.REPLICA_WRITE_FAILED, type(exc).__name__
                ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    @contextmanager
    def _transaction(self) -> Iterator[Conn]:
        self._secret()  # made (or read) before the replica's lock is taken
        with self._connections() as conn, conn.transaction():
            conn.execute(f"SET LOCAL lock_timeout = {self._lock_timeout_ms}")
            yield conn

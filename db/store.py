"""``SqlCipherStore``: the encrypted visitor file behind every storage port.

Implements VisitorFile, CardBook, BanList, StaffList, AuditTrail and Retention
(``admission/ports.py``) over ONE SQLCipher connection kept open for the life of the
app (key derivation costs ~0.1 s per connection). The rules are db/file_ports.py's over
db/tx.py, the same for the server; here is what is the file's own. Calls are serialised
by a lock; the app drives the store from one worker thread.

The file never starts over on its own (art. 20.4): :meth:`SqlCipherStore.create` is the
explicit, audited act that makes one and writes the folder's marker (db/file_guard.py);
:meth:`SqlCipherStore.open` refuses a file that is missing, emptied or replaced, and
checks the pages (db/integrity.py). A damaged file opens for reading only.

The audit trail's (art. 20.4, art. 14.1.b) own on the file:

* The key: given by the composition root, else ADMISSION_AUDIT_KEY or the key file
  beside the visitor file (db/audit_key.py). A new one is made only for a chain that
  never had one; a keyed file whose key is gone is AUDIT_KEY_LOST and never gets a new
  key; the folder's marker records the key's id, so the chain cannot be laundered with
  the file key alone.
* Erasures: temporary triggers on this connection note the rows any transaction of
  this store erases (db/audit_rows.py), counted by an ``ERASED`` entry before the
  commit, so the accounting does not depend on the purge's own code.
* Older files: a chain written before migration 0030 is keyed once, in a file older
  than the keyed chain (db/audit_upgrade.py); a file whose chain began before it covered
  vouchers and snapshots (migration 0060) adopts them once (``AUDIT_COVERAGE``).

    with SqlCipherStore.open(path, resolve_key(database_exists=True), create=False) as store:
        store.record_admission(entry)
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from admission.clock import SystemClock
from admission.errors import StoreError, StoreErrorCode
from admission.ports import Clock
from admission.records import AuditAnchor, AuditCheck, AuditHead, PurgeReport
from db import chain, codec, retention
from db.audit_chain import AuditChainCode
from db.audit_cover import COVERED
from db.audit_key import ENV_VAR, KEYRING_USERNAME, AuditKey, key_file_path, resolve_audit_key
from db.audit_rows import ERASURE_TRIGGERS
from db.audit_upgrade import needs_upgrade, upgrade
from db.connection import (
    DB_ERRORS,
    SqliteTx,
    StoreBase,
    configure,
    connect_encrypted,
    connect_plain,
    error_code,
    store_error,
)
from db.file_guard import (
    FILE_ID_SETTING,
    Marker,
    disk_is_read_only,
    file_present,
    new_file_id,
    preflight,
    read_marker,
    refuse_existing,
    salt_of,
    write_marker,
)
from db.integrity import hmac_check, open_check
from db.issued import Highs, IssuedRecord, highs_of, read_issued, write_issued
from db.keys import KEYRING_SERVICE, DbKey, KeyringBackend

log = logging.getLogger("admission.db")
T = TypeVar("T")
INIT_ACTOR = "init"  # the audit trail's actor of the file's creation and adoption
COVERAGE_PENDING = "audit.coverage_pending"  # set by migration 0060 in a file with entries


class SqlCipherStore(StoreBase):
    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path | None,
        *,
        encrypted: bool,
        clock: Clock | None = None,
        damaged_pages: tuple[int, ...] = (),
        marker: Marker | None = None,
        audit_keyring: KeyringBackend | None = None,
    ) -> None:
        """``audit_keyring``: the OS keyring, where a new chain's key is then made (from
        the composition root, known before the store's first write). Without it:
        ADMISSION_AUDIT_KEY, else the key file beside the visitor file
        (:func:`db.audit_key.resolve_audit_key`); :meth:`use_audit_key` gives one."""
        super().__init__(conn, path, encrypted=encrypted, damaged_pages=damaged_pages)
        self._audit_key_given: AuditKey | None = None
        self._audit_keyring = audit_keyring
        self._audit_key: AuditKey | None = None
        self._chain_ready = False  # an older chain was keyed (or there was none)
        self._rekey_refused = False  # a keyed file's chain holds no keyed entry any more
        self._counting_erasures = False
        # A file opened read-only (damaged) takes no writes: nothing to count then.
        with contextlib.suppress(*DB_ERRORS):
            for sql in ERASURE_TRIGGERS:
                conn.execute(sql)
            self._counting_erasures = True
        self._clock: Clock = clock or SystemClock()
        self._marker = marker
        self._had_marker = marker is not None  # adopt: the folder held one before
        self._issued: Highs | None = None  # the marks last written beside the file

    @property
    def file_id(self) -> str:
        """The file's random id (in the file and in the folder's marker); "" if none."""
        return self._marker.file_id if self._marker is not None else ""

    @classmethod
    def open(
        cls,
        path: Path,
        key: DbKey,
        *,
        create: bool = True,
        clock: Clock | None = None,
        audit_keyring: KeyringBackend | None = None,
    ) -> SqlCipherStore:
        """Open the encrypted file, check it and apply migrations.

        With ``create``, a folder that never held a file (no marker, no file) gets one
        with its marker, but no FILE_CREATED entry in the audit trail: the shortcut of
        the tests and of the demo's own folder. The command line creates a real file
        only through ``init`` (:meth:`create`). Never creates where a file was.

        Raises StoreError: NO_FILE, FILE_MISSING, FILE_EMPTIED, FILE_REPLACED,
        MARKER_MISSING, READ_ONLY_DISK, DAMAGED_FILE (the first page; other damaged
        pages open the file for reading only), CORRUPT_FILE (not a visitor file);
        WrongKeyError. A refused file is left untouched. ``clock`` stamps the store's
        own audit entries; ``audit_keyring`` (the OS keyring) holds the audit chain's key.
        """
        path = Path(path)
        marker = preflight(path, create=create)
        if marker is None and not file_present(path):
            return cls._create(path, key, clock, audited=False, audit_keyring=audit_keyring)
        return cls._open_existing(
            path, key, marker, clock, adopt=False, audit_keyring=audit_keyring
        )

    @classmethod
    def create(
        cls,
        path: Path,
        key: DbKey,
        *,
        clock: Clock | None = None,
        audit_keyring: KeyringBackend | None = None,
    ) -> SqlCipherStore:
        """Create a new, empty visitor file and its marker: an explicit act, audited as
        FILE_CREATED. Refused (FILE_EXISTS) where a file or a marker already is."""
        path = Path(path)
        refuse_existing(path)
        return cls._create(path, key, clock, audited=True, audit_keyring=audit_keyring)

    @classmethod
    def adopt(
        cls,
        path: Path,
        key: DbKey,
        *,
        clock: Clock | None = None,
        audit_keyring: KeyringBackend | None = None,
    ) -> SqlCipherStore:
        """Write the marker of the file already at ``path``, after a full check: the way
        back from MARKER_MISSING, or to accept a file put there on purpose. Audited as
        FILE_ADOPTED with the previous marker's id; a damaged file is refused."""
        path = Path(path)
        if not file_present(path):
            raise StoreError("no visitor file to adopt here", code=StoreErrorCode.NO_FILE)
        previous: Marker | None = None
        with contextlib.suppress(StoreError):  # an unreadable marker is being replaced
            previous = read_marker(path)
        if disk_is_read_only(path):
            raise StoreError("the visitor file is read-only", code=StoreErrorCode.READ_ONLY_DISK)
        store = cls._open_existing(path, key, None, clock, adopt=True, audit_keyring=audit_keyring)
        store._had_marker = previous is not None
        try:
            store._adopt(key, previous)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _create(
        cls,
        path: Path,
        key: DbKey,
        clock: Clock | None,
        *,
        audited: bool,
        audit_keyring: KeyringBackend | None = None,
    ) -> SqlCipherStore:
        conn = connect_encrypted(path, key, create=True)
        store: SqlCipherStore | None = None
        try:
            configure(conn)
            store = cls(conn, path, encrypted=True, clock=clock, audit_keyring=audit_keyring)
            store._mark(key, new_file_id(), "FILE_CREATED" if audited else None, {})
        except BaseException:
            if store is not None:
                with contextlib.suppress(StoreError):
                    store.close()
            else:
                conn.close()
            _remove_unfinished(path)  # it holds nothing but this failed creation
            raise
        return store

    @classmethod
    def _open_existing(
        cls,
        path: Path,
        key: DbKey,
        marker: Marker | None,
        clock: Clock | None,
        *,
        adopt: bool,
        audit_keyring: KeyringBackend | None = None,
    ) -> SqlCipherStore:
        conn = connect_encrypted(path, key, create=False, marker=marker)
        try:
            file_id, pages = identify(conn, path, marker, adopt=adopt)
            if not pages:
                pages = open_check(
                    conn, path, full=adopt or (marker is not None and marker.damaged)
                )
            configure(conn, writable=not pages)
        except BaseException:
            conn.close()
            raise
        store = cls(
            conn,
            path,
            encrypted=True,
            clock=clock,
            damaged_pages=pages,
            marker=marker,
            audit_keyring=audit_keyring,
        )
        try:
            store._settle(key, file_id, adopt=adopt)
        except BaseException:
            store.close()
            raise
        store.note_issued()  # a record that lags (a killed process) catches up here
        return store

    def _settle(self, key: DbKey, file_id: str | None, *, adopt: bool) -> None:
        """After the checks: record damage in the marker, clear it when a whole copy was
        put back, or mark a file created before markers existed."""
        marker = self._marker
        if self._damage:
            log.warning(
                "the visitor file is damaged (%d page(s)): it opens for reading only",
                len(self._damage),
            )
            if adopt:
                self._check_whole()
            self._record_damage(self._damage)
        elif marker is not None and marker.damaged:
            log.warning("the visitor file is whole again (a copy was put back)")
            assert self.path is not None
            write_marker(self.path, marker.without_damage())
            self._marker = marker.without_damage()
        elif marker is None and not adopt:
            # A file from before markers (no id inside, identify() checked): this is the
            # file the folder has always used; mark it so it is never replaced unseen.
            self._mark(key, new_file_id(), "FILE_ADOPTED", {"reason": "created before markers"})

    def _adopt(self, key: DbKey, previous: Marker | None) -> None:
        file_id = self._setting(FILE_ID_SETTING) or new_file_id()
        details = {
            "reason": "init --adopt",
            "previous_file_id": previous.file_id if previous else "",
        }
        self._mark(key, file_id, "FILE_ADOPTED", details)

    def _mark(self, key: DbKey, file_id: str, action: str | None, details: dict[str, str]) -> None:
        """Store the id in the file and audit the act (``action``), then write the
        folder's marker."""
        assert self.path is not None
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (FILE_ID_SETTING, file_id),
            )
            if action is not None:
                details = {"file_id": file_id, **details}
                tx = self._sqlite_tx(conn)
                tx.audit(INIT_ACTOR, action, "visitor-file", self._now(), details)
        self.checkpoint()  # page 1, with SQLCipher's salt, reaches the main file
        marker = Marker(
            file_id,
            salt_of(self.path),
            key.check_value(file_id),
            codec.ts(self._now()),
            audit_key_id="" if self._audit_key is None else self._audit_key.key_id,
        )
        write_marker(self.path, marker)
        self._marker = marker
        self.note_issued()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """The write transaction (db/connection.py). An older chain is keyed first
        (once); the rows the transaction erased are counted in an ``ERASED`` entry before
        it commits. Once committed, the marker records the chain's key id and the
        folder's record of the highest numbers issued follows the file (db/issued.py)."""
        with self._lock:
            with super().transaction() as conn:
                if not self._chain_ready:
                    self._ensure_keyed(conn)
                if self._counting_erasures:
                    conn.execute("DELETE FROM temp.audit_erased")  # only this transaction's
                yield conn
                if self._counting_erasures:
                    tx = self._sqlite_tx(conn)
                    erased, changed = tx.erasures()
                    if erased or changed:
                        key = self._key(conn, create=True)
                        chain.count_erasures(tx, key, self._now, erased, changed)
            self._chain_committed()
            self.note_issued()

    def write(self, work: Callable[[SqliteTx], T]) -> T:
        """``work`` in one write transaction (db/tx.py)."""
        with self.transaction() as conn:
            return work(self._sqlite_tx(conn))

    def _sqlite_tx(self, conn: sqlite3.Connection) -> SqliteTx:
        return SqliteTx(conn, lambda: self._key(conn, create=True), self._now)

    def note_issued(self) -> None:
        """Raise the folder's ``issued.json`` to the file's marks (db/issued.py), only
        when a mark rose; a record that cannot be written is logged and never fails the
        write that came before it. (A restore writes the record of its file itself.)"""
        if not self.encrypted or self.path is None or not self.file_id or self._damage:
            return
        try:  # a failing read here is left to the checks that look for damage
            with self._lock:
                self._check_open()
                highs = highs_of(self._conn)
        except DB_ERRORS:
            return
        if self._issued is None:
            known = read_issued(self.path.parent)
            if known is not None and known.file_id == self.file_id:
                highs = known.highs.merged(highs)
                if highs == known.highs:
                    self._issued = highs
                    return
        else:
            highs = self._issued.merged(highs)
            if highs == self._issued:
                return
        try:
            write_issued(self.path.parent, IssuedRecord(self.file_id, highs, codec.ts(self._now())))
        except OSError as exc:
            log.warning("the highest numbers issued could not be noted: %s", type(exc).__name__)
            return
        self._issued = highs

    # -- the chain's key, recorded by the marker (art. 20.4: never re-keyed unseen) -------

    def use_audit_key(self, key: AuditKey) -> None:
        """Use ``key`` from now on (tests; the composition root passes ``audit_key`` to
        the constructor instead, so that the store's first write already has it)."""
        with self._lock:
            self._audit_key_given, self._audit_key = key, None

    @property
    def audit_key_source(self) -> str:
        """Where the audit key in use came from ("env", "keyring", "file"...), "" when
        none was needed yet: a desk on the key file fallback shows it."""
        return "" if self._audit_key is None else self._audit_key.source

    def chain_key(self) -> AuditKey:
        """The key of this file's chain, as resolved (given, environment, OS keyring or
        key file); never made here: AUDIT_KEY_LOST or AUDIT_KEY_MISSING when absent."""
        with self.reading() as conn:
            return self._key(conn, create=False)

    def _key(self, conn: sqlite3.Connection, *, create: bool) -> AuditKey:
        """The chain's key. A new one is made only for a chain that never had one: no
        keyed entry, and no key id in the folder's marker (db/file_guard.py)."""
        if self._audit_key is not None:
            return self._audit_key
        keyed = chain.keyed_ends(SqliteTx(conn))
        recorded = "" if self._marker is None else self._marker.audit_key_id
        key = self._audit_key_given or resolve_audit_key(
            self.path,
            create=create and not keyed and not recorded,
            keyring_backend=self._audit_keyring,
        )
        if key is None:
            if keyed or recorded:
                raise StoreError(self._lost_key_text(), code=AuditChainCode.AUDIT_KEY_LOST)
            raise StoreError(
                "the audit chain's key is not available", code=AuditChainCode.AUDIT_KEY_MISSING
            )
        if (recorded and key.key_id != recorded) or (
            keyed and not any(chain.signed_by(key, row) for row in keyed)
        ):
            raise StoreError(
                "the audit key does not match this file's chain",
                code=AuditChainCode.AUDIT_KEY_WRONG,
            )
        self._audit_key = key
        return key

    def _lost_key_text(self) -> str:
        held = key_file_path(self.path).name if self.path is not None else "the key file"
        return (
            "this file's audit chain is keyed and its key is missing: restore the key file "
            f"{held} from the backup made with the file, or the system keyring's entry "
            f"{KEYRING_SERVICE}/{KEYRING_USERNAME} (or set {ENV_VAR}); a keyed file never "
            "gets a new key"
        )

    def _chain_committed(self) -> None:
        """The first commit with the chain's key records its id in the marker (markers
        written before the id was kept get it here too)."""
        marker, key = self._marker, self._audit_key
        if marker is None or key is None or marker.audit_key_id or self.path is None:
            return
        try:
            write_marker(self.path, marker.with_audit_key(key.key_id))
        except StoreError as exc:  # the next commit tries again
            log.warning("the audit key's id could not be noted in the marker: %s", exc.code)
            return
        self._marker = marker.with_audit_key(key.key_id)

    # -- keying an older chain (migration 0030) -------------------------------------------

    def _ensure_keyed(self, conn: sqlite3.Connection) -> None:
        tx = self._sqlite_tx(conn)
        if needs_upgrade(tx):
            if not self._may_key_older_chain(conn):
                self._rekey_refused = True
                unkeyed = conn.execute("SELECT 1 FROM audit WHERE keyed = 0 LIMIT 1").fetchone()
                raise StoreError(
                    "this file's chain was keyed when its id and marker were made, and now it "
                    "holds no keyed entry: it is not keyed again; restore it from the backup",
                    code=AuditChainCode.UNKEYED_ENTRY if unkeyed else AuditChainCode.ROW_UNRECORDED,
                )
            key = self._key(conn, create=True)
            now = self._now()

            def append(
                action: str, subject: str, details: dict[str, str], c: chain.Commits
            ) -> None:
                chain.append_entry(tx, key, chain.UPGRADE_ACTOR, action, subject, now, details, c)

            upgrade(tx, key, append, lambda kind: COVERED[kind].every(tx), chain.counters(tx))
            conn.execute("DELETE FROM settings WHERE key = ?", (COVERAGE_PENDING,))
        elif tx.setting(COVERAGE_PENDING) is not None:
            chain.adopt_coverage(tx, self._key(conn, create=False), self._now())
            conn.execute("DELETE FROM settings WHERE key = ?", (COVERAGE_PENDING,))
        self._chain_ready = True

    def _may_key_older_chain(self, conn: sqlite3.Connection) -> bool:
        """Only a file from before the keyed chain: no folder's marker (written only once
        the chain is keyed; nor one before, for ``init --adopt``) and no file id (ids,
        markers and the keyed chain came together)."""
        if self._marker is not None or self._had_marker:
            return False
        found = conn.execute("SELECT 1 FROM settings WHERE key = ?", (FILE_ID_SETTING,))
        return found.fetchone() is None

    def _key_older_chain(self) -> None:
        """Key a chain written before migration 0030 before reading it (a damaged file
        takes no writes: its chain is read as it is)."""
        if not self._chain_ready and not self.damaged:
            try:
                with self.transaction():
                    pass
            except StoreError:
                if not self._rekey_refused:
                    raise  # a laundered chain is read as it is: verification names it

    def head(self) -> AuditHead:
        """The newest entry: its seq and digest, to be printed outside the file."""
        self._key_older_chain()
        return super().head()

    def verify(
        self, anchors: Sequence[AuditAnchor] = (), *, settings: Mapping[str, str] | None = None
    ) -> AuditCheck:
        """Walk the whole chain (streamed) with the key, check it against ``anchors``
        (heads kept outside the file), then every row present against the chain."""
        self._key_older_chain()
        with self.reading() as conn:
            conn.execute("BEGIN")  # one snapshot for the chain and the rows
            try:
                # An empty chain needs no key; a row present is then unrecorded.
                try:
                    found = conn.execute("SELECT next - 1 FROM counters WHERE name = 'audit'")
                    expected = int(found.fetchone()[0])
                    key = self._key(conn, create=False) if expected else AuditKey.generate()
                except StoreError:
                    unkeyed = conn.execute("SELECT min(seq) FROM audit WHERE keyed = 0")
                    first = unkeyed.fetchone()[0]
                    if first is None:
                        raise
                    problem = AuditChainCode.UNKEYED_ENTRY
                    return AuditCheck(False, int(first) - 1, int(first), problem)
                return chain.verify_in(self._sqlite_tx(conn), key, anchors, settings)
            finally:
                conn.execute("ROLLBACK")

    def _setting(self, name: str) -> str | None:
        with self.reading() as conn:
            row = conn.execute("SELECT value FROM settings WHERE key = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def _record_damage(self, pages: tuple[int, ...]) -> None:
        """Keep the damage in the marker, so the next process refuses writes too."""
        marker = self._marker
        if marker is None or self.path is None or marker.damaged_pages == pages:
            return
        updated = marker.with_damage(pages, marker.damage_found_at or codec.ts(self._now()))
        try:
            write_marker(self.path, updated)
        except StoreError as exc:
            log.warning("the damage could not be noted in the marker: %s", exc.code)
            return
        self._marker = updated

    def secret(self, name: str) -> bytes:
        """A damaged file creates no secret but still gives those it holds (the card-code
        key: cards stay verifiable while the file is read for extraction)."""
        if not self._damage:
            return super().secret(name)
        with self.reading() as conn:
            row = conn.execute(
                "SELECT value FROM settings WHERE key = ?", (f"secret:{name}",)
            ).fetchone()
        if row is None:
            raise self._damaged_error()
        return bytes(row[0])

    # -- retention (art. 20.4, R3: db/retention.py) ---------------------------------------

    def purge(self, cutoff: datetime, *, batch: int = retention.BATCH) -> PurgeReport:
        """The six-month purge, after the daily check of every page's HMAC (a damaged
        file erases nothing and takes no more writes: DAMAGED_FILE); ``secure_delete``
        zeroes the erased rows, and the WAL is checkpointed and truncated after."""
        self._check_whole()
        if not self.integrity_check().ok:  # the daily full check (art. 20.4)
            self._check_whole()
        report = retention.purge(self.write, cutoff, self._now, batch)
        self.checkpoint()
        return report

    def checkpoint(self) -> None:
        """Copy the WAL into the file and truncate it (erased rows leave the WAL too)."""
        with self._lock:
            self._check_open()
            # Busy readers: SQLite checkpoints again later and at close.
            with contextlib.suppress(*DB_ERRORS):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    @classmethod
    def open_plain(cls, path: Path, *, clock: Clock | None = None) -> SqlCipherStore:
        """BENCHMARKS AND WIPE TESTS ONLY: the same schema on unencrypted stdlib SQLite."""
        conn = connect_plain(Path(path))
        try:
            configure(conn)
        except BaseException:
            conn.close()
            raise
        return cls(conn, Path(path), encrypted=False, clock=clock)

    @property
    def connection(self) -> sqlite3.Connection:
        """The one open connection, for adapters stored in the same file (the RIAJ
        replica). Hold :attr:`lock` around every use; never change its pragmas."""
        self._check_open()
        return self._conn

    @property
    def lock(self) -> threading.RLock:
        return self._lock

    def _now(self) -> datetime:
        return self._clock.now()

    def close(self) -> None:
        """Checkpoint and close; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._conn.close()
            except DB_ERRORS as exc:
                raise StoreError(f"close failed: {exc}", code=StoreErrorCode.CLOSE_FAILED) from exc

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        kind = "encrypted" if self.encrypted else "PLAIN"
        return f"<SqlCipherStore {kind} {state}>"


def _remove_unfinished(path: Path) -> None:
    """Remove a file whose creation failed (and its sidecars): it holds no record."""
    for leftover in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()


def identify(
    conn: sqlite3.Connection, path: Path, marker: Marker | None, *, adopt: bool
) -> tuple[str | None, tuple[int, ...]]:
    """The file id stored inside, checked against the folder's marker; or, when the
    pages holding it are damaged, None and the damaged pages.

    FILE_REPLACED: the marker names another file (or a file without an id);
    MARKER_MISSING: the file has an id but the folder lost its marker (unless adopting).
    """
    try:
        has_settings = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'"
        ).fetchone()
        row = None
        if has_settings:
            row = conn.execute(
                "SELECT value FROM settings WHERE key = ?", (FILE_ID_SETTING,)
            ).fetchone()
    except DB_ERRORS as exc:
        if error_code(exc, StoreErrorCode.READ_FAILED, path) is not StoreErrorCode.DAMAGED_FILE:
            raise store_error(
                exc, StoreErrorCode.READ_FAILED, "cannot read the file id", path
            ) from exc
        return None, hmac_check(conn) or (0,)
    file_id = None if row is None else str(row[0])
    if marker is not None and file_id != marker.file_id:
        raise StoreError(
            "the visitor file is not the one this folder created (its id differs): "
            "restore it (and its marker) from the backup",
            code=StoreErrorCode.FILE_REPLACED,
        )
    if marker is None and file_id is not None and not adopt:
        raise StoreError(
            "the visitor file's marker is missing: restore it from the backup with the "
            "file, or adopt the file with init --adopt",
            code=StoreErrorCode.MARKER_MISSING,
        )
    return file_id, ()

"""``SqlCipherStore``: the encrypted visitor file behind every storage port, over ONE
connection kept open (key derivation costs ~0.1 s); the rules are db/file_ports.py's over
db/tx.py. It never starts over on its own (art. 20.4): :meth:`~SqlCipherStore.create` is
audited and writes the folder's marker (db/file_guard.py), :meth:`~SqlCipherStore.open`
refuses a missing, emptied or replaced file; the chain's key is never made twice for a file.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import TypeVar, cast

from admission.clock import SystemClock
from admission.errors import StoreError, StoreErrorCode
from admission.ports import Clock
from admission.records import AuditAnchor, AuditCheck, AuditHead, IntegrityReport, PurgeReport
from db import chain, codec, retention
from db.audit_chain import (
    BASELINE,
    GENESIS,
    KINDS,
    UPGRADE,
    AuditChainCode,
    ChainRow,
    chain_row,
    counters_details,
    digest,
    entry_mac,
    row_mac,
)
from db.audit_key import ENV_VAR, KEYRING_USERNAME, AuditKey, key_file_path, resolve_audit_key
from db.connection import (
    DB_ERRORS,
    SqliteTx,
    configure,
    connect_encrypted,
    damaged_error,
    error_code,
    find_damage,
    immediate_transaction,
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
from db.file_ports import FilePorts
from db.integrity import check, hmac_check, open_check
from db.issued import Highs, IssuedRecord, highs_of, read_issued, write_issued
from db.keys import KEYRING_SERVICE, DbKey, KeyringBackend

log = logging.getLogger("admission.db")
T = TypeVar("T")
Keyring = KeyringBackend | None
INIT_ACTOR = "init"  # the audit trail's actor of the file's creation and adoption
COVERAGE_PENDING = "audit.coverage_pending"  # set by migration 0060 in a file with entries
# Rows erased (1) or changed without an entry of their own (0: a card losing its erased
# visit) by this connection, noted until the commit (SqliteTx.erasures). Staff rows are
# named by identity here and by its keyed hash in the chain (db/chain.py converts).
ERASURE_TRIGGERS = (
    "CREATE TEMP TABLE IF NOT EXISTS audit_erased (ref TEXT PRIMARY KEY, erased INTEGER)",
    *(
        f"CREATE TEMP TRIGGER IF NOT EXISTS audit_erase_{c.table} AFTER DELETE ON main.{c.table} "
        f"BEGIN INSERT INTO audit_erased VALUES ('{'staffid' if c.named else c.kind}:' || "
        f"OLD.{c.key}, 1) ON CONFLICT (ref) DO UPDATE SET erased = 1; END"
        for c in chain.COVERED.values()
        if c.kind != "account"  # no trigger: desk accounts are not erased here
    ),
    "CREATE TEMP TRIGGER IF NOT EXISTS audit_unlink_card AFTER UPDATE OF visit_id ON main.cards "
    "WHEN NEW.visit_id IS NOT OLD.visit_id BEGIN INSERT OR IGNORE INTO audit_erased "
    "VALUES ('card:' || NEW.number, 0); END",
)


class SqlCipherStore(FilePorts):
    """The one connection, its lock and the damage found: damage found at opening, by
    :meth:`integrity_check` or by any read stops the writes (DAMAGED_FILE, ``PRAGMA
    query_only``); the file stays readable for extraction."""

    dialect = "sqlite"  # of its transactions (db/tx.py)

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path | None,
        *,
        encrypted: bool = True,
        clock: Clock | None = None,
        damaged_pages: tuple[int, ...] = (),
        marker: Marker | None = None,
        audit_keyring: Keyring = None,
    ) -> None:
        """``audit_keyring``: the OS keyring, where a new chain's key is then made; else
        ADMISSION_AUDIT_KEY or the key file beside the visitor file (db/audit_key.py)."""
        self._conn = conn
        self.lock = threading.RLock()  # held around every use of :attr:`connection`
        self.path = path
        self.encrypted = encrypted
        self._closed = False
        self._damage = tuple(damaged_pages)
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
        """The file's random id (also in the folder's marker); "" if none."""
        return self._marker.file_id if self._marker is not None else ""

    @classmethod
    def open(
        cls,
        path: Path,
        key: DbKey,
        *,
        create: bool = True,
        clock: Clock | None = None,
        audit_keyring: Keyring = None,
    ) -> SqlCipherStore:
        """Open the encrypted file, check it and apply migrations. With ``create``, a
        folder that never held a file gets one with its marker but no FILE_CREATED entry
        (the tests' and the demo's shortcut; ``init`` is :meth:`create`).

        Raises StoreError: NO_FILE, FILE_MISSING, FILE_EMPTIED, FILE_REPLACED,
        MARKER_MISSING, READ_ONLY_DISK, DAMAGED_FILE (the first page; other damaged
        pages open for reading only), CORRUPT_FILE; WrongKeyError. A refused file is
        left untouched."""
        path = Path(path)
        marker = preflight(path, create=create)
        if marker is None and not file_present(path):
            return cls._create(path, key, clock, audited=False, audit_keyring=audit_keyring)
        return cls._open_existing(
            path, key, marker, clock, adopt=False, audit_keyring=audit_keyring
        )

    @classmethod
    def create(
        cls, path: Path, key: DbKey, *, clock: Clock | None = None, audit_keyring: Keyring = None
    ) -> SqlCipherStore:
        """Create a new, empty visitor file and its marker, audited as FILE_CREATED;
        refused (FILE_EXISTS) where a file or a marker already is."""
        path = Path(path)
        refuse_existing(path)
        return cls._create(path, key, clock, audited=True, audit_keyring=audit_keyring)

    @classmethod
    def adopt(
        cls, path: Path, key: DbKey, *, clock: Clock | None = None, audit_keyring: Keyring = None
    ) -> SqlCipherStore:
        """Write the marker of the file already at ``path``, after a full check (the way
        back from MARKER_MISSING), audited as FILE_ADOPTED; a damaged file is refused."""
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
            found = store.read(lambda tx: tx.setting(FILE_ID_SETTING))
            was = previous.file_id if previous else ""
            details = {"reason": "init --adopt", "previous_file_id": was}
            store._mark(key, str(found) if found else new_file_id(), "FILE_ADOPTED", details)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _create(
        cls, path: Path, key: DbKey, clock: Clock | None, *, audited: bool, audit_keyring: Keyring
    ) -> SqlCipherStore:
        conn = connect_encrypted(path, key, create=True)
        try:
            configure(conn)
            store = cls(conn, path, clock=clock, audit_keyring=audit_keyring)
            store._mark(key, new_file_id(), "FILE_CREATED" if audited else None, {})
        except BaseException:
            with contextlib.suppress(*DB_ERRORS):
                conn.close()
            for suffix in ("", "-wal", "-shm", "-journal"):  # nothing but this failed creation
                path.with_name(path.name + suffix).unlink(missing_ok=True)
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
        audit_keyring: Keyring,
    ) -> SqlCipherStore:
        conn = connect_encrypted(path, key, create=False, marker=marker)
        try:
            pages = identify(conn, path, marker, adopt=adopt) or open_check(
                conn, path, full=adopt or (marker is not None and marker.damaged)
            )
            migrated = configure(conn, writable=not pages)
        except BaseException:
            conn.close()
            raise
        store = cls(
            conn, path, clock=clock, damaged_pages=pages, marker=marker, audit_keyring=audit_keyring
        )
        try:
            store._settle(key, adopt=adopt)
            if migrated:
                store._record_migration(migrated)
        except BaseException:
            store.close()
            raise
        store.note_issued()  # a record that lags (a killed process) catches up here
        return store

    def _settle(self, key: DbKey, *, adopt: bool) -> None:
        """After the checks: record damage in the marker, clear it when a whole copy was
        put back, or mark a file created before markers existed."""
        marker = self._marker
        if self._damage:
            damaged = "the visitor file is damaged (%d page(s)): it opens for reading only"
            log.warning(damaged, len(self._damage))
            if adopt:
                self._check_whole()
            self._record_damage(self._damage)
        elif marker is not None and marker.damaged:
            log.warning("the visitor file is whole again (a copy was put back)")
            assert self.path is not None
            write_marker(self.path, marker.without_damage())
            self._marker = marker.without_damage()
        elif marker is None and not adopt:
            # A file from before markers (no id inside): mark it, never to be replaced unseen
            self._mark(key, new_file_id(), "FILE_ADOPTED", {"reason": "created before markers"})

    def _record_migration(self, versions: list[int]) -> None:
        """An existing file whose schema this version of the desk upgraded on opening
        (an installed upgrade's first start): who changed the file's structure, and when,
        is in its audit trail like any other change (art. 20.4)."""
        details = {
            "migrations": ",".join(f"{v:04d}" for v in versions),
            "schema": f"{max(versions):04d}",
        }
        with self.transaction() as conn:
            tx = self._sqlite_tx(conn)
            tx.audit(INIT_ACTOR, "SCHEMA_MIGRATED", "visitor-file", self._now(), details)

    def _mark(self, key: DbKey, file_id: str, action: str | None, details: dict[str, str]) -> None:
        """Store the id in the file, audit ``action``, then write the folder's marker."""
        assert self.path is not None
        with self.transaction() as conn:
            tx = self._sqlite_tx(conn)
            tx.put_setting(FILE_ID_SETTING, file_id)
            if action is not None:
                details = {"file_id": file_id, **details}
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
        """``BEGIN IMMEDIATE``: the write lock is taken up front, so two desks never both
        read the same next card number (also for adapters stored in the same file). An older
        chain is keyed first (once), the rows it erased are counted in an ``ERASED`` entry
        before it commits; then the marker records the chain's key id and the record of the
        highest numbers issued follows (db/issued.py)."""
        with self.lock:
            self._check_open()
            self._check_whole()
            with immediate_transaction(
                self._conn,
                busy=lambda exc: self._mapped(exc, StoreErrorCode.STORE_BUSY, "cannot write"),
                failed=lambda exc: self._mapped(exc, StoreErrorCode.WRITE_FAILED, "write failed"),
            ) as conn:
                if not self._chain_ready:
                    self._ensure_keyed(conn)
                if self._counting_erasures:
                    conn.execute("DELETE FROM temp.audit_erased")  # only this transaction's
                yield conn
                if self._counting_erasures:
                    tx = self._sqlite_tx(conn)
                    erased, changed = tx.erasures()
                    if erased or changed:
                        chain.count_erasures(tx, tx.chain_key(), self._now, erased, changed)
            marker, key = self._marker, self._audit_key
            if marker is not None and key is not None and not marker.audit_key_id and self.path:
                # the first commit with the chain's key records its id in the marker
                self._remark(replace(marker, audit_key_id=key.key_id), "the audit key's id")
            self.note_issued()

    def write(self, work: Callable[[SqliteTx], T]) -> T:
        with self.transaction() as conn:
            return work(self._sqlite_tx(conn))

    def _sqlite_tx(self, conn: sqlite3.Connection) -> SqliteTx:
        return SqliteTx(conn, lambda: self._key(conn, create=True), self._now)

    @property
    def damaged(self) -> bool:
        return bool(self._damage)

    @property
    def damaged_pages(self) -> tuple[int, ...]:
        """The damaged pages found so far (0: the file as a whole); () when none."""
        return self._damage

    def read(self, work: Callable[[SqliteTx], T]) -> T:
        """``work`` under the store's lock, errors mapped as :meth:`reading` (written out:
        a register check is this call, tens of us)."""
        with self.lock:
            self._check_open()
            try:
                return work(SqliteTx(self._conn))
            except DB_ERRORS as exc:
                raise self._mapped(exc, StoreErrorCode.READ_FAILED, "read failed") from exc

    # A bulk load (the register's swap) or the purge: a write, whose writer holds the file
    # whole (the server's differ: art. 20.4's purge group).
    bulk_write = purge_write = write

    def act_locks(self) -> Callable[[Sequence[str]], AbstractContextManager[None]]:
        """Locks by name across the transactions of one act (db/accounts.py): none here."""
        return lambda names: contextlib.nullcontext()

    def ping(self) -> float:
        """Seconds a trivial read took (the status bar's database light)."""
        started = time.perf_counter()
        self.read(lambda tx: tx.one("SELECT 1"))
        return time.perf_counter() - started

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """Reads under the store's lock, errors mapped to READ_FAILED (or what SQLite says)."""
        with self.lock:
            self._check_open()
            try:
                yield self._conn
            except DB_ERRORS as exc:
                raise self._mapped(exc, StoreErrorCode.READ_FAILED, "read failed") from exc

    def integrity_check(self, *, structure: bool = False) -> IntegrityReport:
        """Every page's HMAC and, with ``structure``, the b-trees (``quick_check``): daily
        at the purge and for ``audit verify``. Damage found stops the writes."""
        with self.lock:
            self._check_open()
            try:
                report = check(self._conn, self.path, structure=structure)
            except DB_ERRORS as exc:
                raise self._mapped(exc, StoreErrorCode.READ_FAILED, "check failed") from exc
            if not report.ok:
                self._found_damage(report.bad_pages or (0,))
        return report

    def _mapped(self, exc: BaseException, default: StoreErrorCode, what: str) -> StoreError:
        error = store_error(exc, default, what, self.path)
        if error.code is StoreErrorCode.DAMAGED_FILE:
            self._found_damage()
        return error

    def _found_damage(self, pages: tuple[int, ...] = ()) -> None:
        """Remember the damage (finding the pages when not given) and stop writes."""
        pages = pages or find_damage(self._conn)
        known = tuple(sorted(set(self._damage) | set(pages or (0,))))
        if known == self._damage:
            return
        self._damage = known
        with contextlib.suppress(*DB_ERRORS):
            self._conn.execute("PRAGMA query_only = ON")
        damaged = "the visitor file is damaged (%d page(s), first %d): it takes no more writes"
        log.warning(damaged, len(known), known[0])
        self._record_damage(known)

    def _check_whole(self) -> None:
        if self._damage:
            raise damaged_error(self._damage)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the visitor file is closed", code=StoreErrorCode.STORE_CLOSED)

    def note_issued(self) -> None:
        """Raise the folder's ``issued.json`` to the file's marks (db/issued.py) when one
        rose; a record that cannot be written is logged, never failing the write before."""
        if not self.encrypted or self.path is None or not self.file_id or self._damage:
            return
        try:  # a failing read here is left to the checks that look for damage
            with self.lock:
                self._check_open()
                highs = highs_of(self._conn)
        except DB_ERRORS:
            return
        known = self._issued
        if known is None:
            record = read_issued(self.path.parent)
            known = record.highs if record is not None and record.file_id == self.file_id else None
        if known is not None:
            highs = known.merged(highs)
            if highs == known:
                self._issued = known
                return
        try:
            write_issued(self.path.parent, IssuedRecord(self.file_id, highs, codec.ts(self._now())))
        except OSError as exc:
            log.warning("the highest numbers issued could not be noted: %s", type(exc).__name__)
            return
        self._issued = highs

    # -- the chain's key, recorded by the marker (art. 20.4: never re-keyed unseen) -------

    def use_audit_key(self, key: AuditKey) -> None:
        """Use ``key`` from now on (tests, the in-memory store)."""
        with self.lock:
            self._audit_key_given, self._audit_key = key, None

    @property
    def audit_key_source(self) -> str:
        """Where the audit key in use came from ("env", "keyring", "file"...), "" if none yet."""
        return "" if self._audit_key is None else self._audit_key.source

    def chain_key(self) -> AuditKey:
        """The key of this file's chain, never made here: AUDIT_KEY_LOST or _MISSING."""
        with self.reading() as conn:
            return self._key(conn, create=False)

    def _key(self, conn: sqlite3.Connection, *, create: bool) -> AuditKey:
        """The chain's key, made only for a chain that never had one: no keyed entry and
        no key id in the folder's marker."""
        if self._audit_key is not None:
            return self._audit_key
        keyed = chain.keyed_ends(SqliteTx(conn))
        recorded = "" if self._marker is None else self._marker.audit_key_id
        new = create and not keyed and not recorded
        key = self._audit_key_given or resolve_audit_key(
            self.path, create=new, keyring_backend=self._audit_keyring
        )
        if key is None and (keyed or recorded):
            held = key_file_path(self.path).name if self.path is not None else "the key file"
            lost = (
                "this file's audit chain is keyed and its key is missing: restore the key file "
                f"{held} from the backup made with the file, or the system keyring's entry "
                f"{KEYRING_SERVICE}/{KEYRING_USERNAME} (or set {ENV_VAR}); a keyed file never "
                "gets a new key"
            )
            raise StoreError(lost, code=AuditChainCode.AUDIT_KEY_LOST)
        if key is None:
            missing = "the audit chain's key is not available"
            raise StoreError(missing, code=AuditChainCode.AUDIT_KEY_MISSING)
        if (recorded and key.key_id != recorded) or (
            keyed and not any(chain.signed_by(key, row) for row in keyed)
        ):
            wrong = "the audit key does not match this file's chain"
            raise StoreError(wrong, code=AuditChainCode.AUDIT_KEY_WRONG)
        self._audit_key = key
        return key

    def _remark(self, updated: Marker, what: str) -> None:
        """Write the folder's marker anew; a failure is logged (the next write tries again)."""
        assert self.path is not None
        try:
            write_marker(self.path, updated)
        except StoreError as exc:
            log.warning("%s could not be noted in the marker: %s", what, exc.code)
            return
        self._marker = updated

    # -- keying an older chain (migration 0030) -------------------------------------------

    def _ensure_keyed(self, conn: sqlite3.Connection) -> None:
        tx = self._sqlite_tx(conn)
        if needs_upgrade(tx):
            # Only a file from before the keyed chain may be keyed: no folder's marker (now
            # or before ``init --adopt``) and no file id (they came with the keyed chain).
            marked = self._marker is not None or self._had_marker
            if marked or tx.setting(FILE_ID_SETTING) is not None:
                self._rekey_refused = True
                unkeyed = tx.one("SELECT 1 FROM audit WHERE keyed = 0 LIMIT 1")
                laundered = (
                    "this file's chain was keyed when its id and marker were made, and now it "
                    "holds no keyed entry: it is not keyed again; restore it from the backup"
                )
                code = AuditChainCode.UNKEYED_ENTRY if unkeyed else AuditChainCode.ROW_UNRECORDED
                raise StoreError(laundered, code=code)
            upgrade(tx, self._key(conn, create=True), self._now())
        elif tx.setting(COVERAGE_PENDING) is not None:
            chain.adopt_coverage(tx, self._key(conn, create=False), self._now())
        conn.execute("DELETE FROM settings WHERE key = ?", (COVERAGE_PENDING,))
        self._chain_ready = True

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
                    first = conn.execute("SELECT min(seq) FROM audit WHERE keyed = 0").fetchone()[0]
                    if first is None:
                        raise
                    problem = AuditChainCode.UNKEYED_ENTRY
                    return AuditCheck(False, int(first) - 1, int(first), problem)
                return chain.verify_in(self._sqlite_tx(conn), key, anchors, settings)
            finally:
                conn.execute("ROLLBACK")

    def _record_damage(self, pages: tuple[int, ...]) -> None:
        """Keep the damage in the marker, so the next process refuses writes too."""
        marker = self._marker
        if marker is None or self.path is None or marker.damaged_pages == pages:
            return
        found_at = marker.damage_found_at or codec.ts(self._now())
        self._remark(marker.with_damage(pages, found_at), "the damage")

    def secret(self, name: str) -> bytes:
        """A damaged file creates no secret but still gives those it holds (the card-code
        key: cards stay verifiable while the file is read for extraction)."""
        if not self._damage:
            return super().secret(name)
        found = self.read(lambda tx: tx.setting(f"secret:{name}"))
        if found is None:
            raise damaged_error(self._damage)
        return bytes(cast(bytes, found))

    # -- retention (art. 20.4, R3: db/retention.py) ---------------------------------------

    def purge(self, cutoff: datetime, *, batch: int = retention.BATCH) -> PurgeReport:
        """The six-month purge, after the daily check of every page's HMAC (a damaged file
        erases nothing: DAMAGED_FILE); the WAL is checkpointed and truncated after."""
        self._check_whole()
        if not self.integrity_check().ok:  # the daily full check (art. 20.4)
            self._check_whole()
        report = retention.purge(self.write, cutoff, self._now, batch)
        self.checkpoint()
        return report

    def checkpoint(self) -> None:
        """Copy the WAL into the file and truncate it (erased rows leave the WAL too)."""
        with self.lock:
            self._check_open()
            # Busy readers: SQLite checkpoints again later and at close.
            with contextlib.suppress(*DB_ERRORS):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    @property
    def connection(self) -> sqlite3.Connection:
        """The one open connection, for adapters stored in the same file (the RIAJ
        replica). Hold :attr:`lock` around every use; never change its pragmas."""
        self._check_open()
        return self._conn

    def _now(self) -> datetime:
        return self._clock.now()

    def close(self) -> None:
        """Checkpoint and close; idempotent."""
        with self.lock:
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


def identify(
    conn: sqlite3.Connection, path: Path, marker: Marker | None, *, adopt: bool
) -> tuple[int, ...]:
    """Check the file id stored inside against the folder's marker (FILE_REPLACED;
    MARKER_MISSING unless adopting); the damaged pages when they hold it."""
    tx = SqliteTx(conn)
    try:
        listed = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'"
        row = tx.setting(FILE_ID_SETTING) if tx.one(listed) else None
    except DB_ERRORS as exc:
        if error_code(exc, StoreErrorCode.READ_FAILED, path) is not StoreErrorCode.DAMAGED_FILE:
            what = "cannot read the file id"
            raise store_error(exc, StoreErrorCode.READ_FAILED, what, path) from exc
        return hmac_check(conn) or (0,)
    file_id = None if row is None else str(row)
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
    return ()


# -- keying a chain written before migration 0030 (art. 20.4, art. 14.1.b) -----------------
# SQL cannot compute the HMAC: the first write with the key, in one transaction, checks the
# old chain as it was (a broken one is not laundered: LEGACY_CHAIN_BROKEN), re-chains it from
# genesis with the key, records that by an AUDIT_UPGRADE entry and commits to every row
# present by AUDIT_BASELINE ones.
BASELINE_ROWS = 500  # rows committed per baseline entry
TO_KEY = ("audit", "visitors", "visits", "cards", "bans", "staff", "observations")


def needs_upgrade(tx: SqliteTx) -> bool:
    """No keyed entry yet, and something to key: old entries or rows."""
    if tx.one("SELECT 1 FROM audit WHERE keyed = 1 LIMIT 1") is not None:
        return False  # keyed already (an unkeyed entry after that is verification's case)
    return any(tx.one(f"SELECT 1 FROM {table} LIMIT 1") is not None for table in TO_KEY)


def legacy_check(rows: list[ChainRow], expected_count: int) -> AuditCheck:
    """The pre-0030 verification: SHA-256 links, contiguous seqs, the counter."""
    prev = GENESIS
    for count, row in enumerate(rows, start=1):
        if row.seq != count:
            return AuditCheck(False, count - 1, row.seq, AuditChainCode.SEQUENCE_GAP)
        if row.prev_digest != prev:
            return AuditCheck(False, count - 1, row.seq, AuditChainCode.CHAIN_BROKEN)
        if row.digest != digest(prev, *row.fields[:6]):
            return AuditCheck(False, count - 1, row.seq, AuditChainCode.DIGEST_MISMATCH)
        prev = row.digest
    if len(rows) != expected_count:
        return AuditCheck(False, len(rows), len(rows) + 1, AuditChainCode.TAIL_MISSING)
    return AuditCheck(True, len(rows), None, "")


def upgrade(tx: SqliteTx, key: AuditKey, at: datetime) -> None:
    """Inside the caller's write transaction: re-chain, record (with where the numbered
    counters stand: cards erased before the key are not in the baseline), commit to
    every row."""
    counters = chain.counters(tx)
    rows = [
        chain_row(r) for r in tx.all(f"SELECT {chain.CHAIN_COLUMNS}, keyed FROM audit ORDER BY seq")
    ]
    found = tx.one("SELECT next - 1 FROM counters WHERE name = 'audit'")
    expected = 0 if found is None else int(found[0])
    check = legacy_check(rows, expected)
    prev = GENESIS
    for row in rows:
        mac = entry_mac(key, prev, *row.fields)
        tx.execute(
            "UPDATE audit SET prev_digest = ?, digest = ?, keyed = 1 WHERE seq = ?",
            (prev, mac, row.seq),
        )
        prev = mac
    if len(rows) != expected:  # the counter runs ahead of the rows: the chain goes on
        tx.execute("UPDATE counters SET next = ? WHERE name = 'audit'", (len(rows) + 1,))
    details = {
        "legacy_entries": str(len(rows)),
        "legacy_head": rows[-1].digest if rows else GENESIS,
        "legacy_ok": "1" if check.ok else "0",
        "key_id": key.key_id,
        **counters_details(counters),
    }
    if not check.ok:
        details["legacy_problem"] = str(check.problem)
        details["legacy_first_bad_seq"] = str(check.first_bad_seq)
    chain.append_entry(tx, key, chain.UPGRADE_ACTOR, UPGRADE, "audit", at, details, {})
    for kind in KINDS:
        every = chain.COVERED[kind].every(tx)
        while batch := {r: (row_mac(key, r, c), True) for r, c in islice(every, BASELINE_ROWS)}:
            chain.append_entry(tx, key, chain.UPGRADE_ACTOR, BASELINE, kind, at, {}, batch)

"""The SQLCipher file's side of the audit trail (art. 20.4, art. 14.1.b): its key and its
history. The chain's rules are db/chain.py's, the same for the server.

* The key: given by the composition root, else ADMISSION_AUDIT_KEY or the key file
  beside the visitor file (db/audit_key.py). A new one is made only for a chain that
  never had one; a keyed file whose key is gone is AUDIT_KEY_LOST and never gets a new
  key; the folder's marker records the key's id (db/store.py), so the chain cannot be
  laundered with the file key alone.
* Erasures: temporary triggers on this connection note the rows any transaction of
  this store erases (db/audit_rows.py), counted by an ``ERASED`` entry before the
  commit, so the accounting does not depend on the purge's own code.
* Older files: a chain written before migration 0030 is keyed once, in a file older
  than the keyed chain (db/audit_upgrade.py); a file whose chain began before it covered
  vouchers and snapshots (migration 0060) adopts them once (``AUDIT_COVERAGE``).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from admission.errors import StoreError
from admission.records import AuditAnchor, AuditCheck, AuditHead
from db import chain
from db.audit_chain import AuditChainCode
from db.audit_cover import COVERED
from db.audit_key import ENV_VAR, KEYRING_USERNAME, AuditKey, key_file_path, resolve_audit_key
from db.audit_rows import ERASURE_TRIGGERS
from db.audit_upgrade import needs_upgrade, upgrade
from db.connection import DB_ERRORS, AuditAppend, KeyedHash, SqliteTx, StoreBase
from db.file_guard import FILE_ID_SETTING
from db.keys import KEYRING_SERVICE, KeyringBackend
from db.tx import AuditRows

COVERAGE_PENDING = "audit.coverage_pending"  # set by migration 0060 in a file with entries


class AuditMixin(StoreBase):
    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path | None,
        *,
        audit_key: AuditKey | None = None,
        audit_keyring: KeyringBackend | None = None,
        **options: Any,
    ) -> None:
        """``audit_key`` or ``audit_keyring`` (the OS keyring, where a new chain's key is
        then made): from the composition root, known before the store's first write.
        Without either: ADMISSION_AUDIT_KEY, else the key file beside the visitor file
        (:func:`db.audit_key.resolve_audit_key`)."""
        super().__init__(conn, path, **options)
        self._audit_key_given: AuditKey | None = audit_key
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

    # -- the audit key -------------------------------------------------------------------

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
        with self._read() as conn:
            return self._key(conn, create=False)

    def _key(self, conn: sqlite3.Connection, *, create: bool) -> AuditKey:
        """The chain's key. A new one is made only for a chain that never had one: no
        keyed entry, and no key id in the folder's marker (db/file_guard.py)."""
        if self._audit_key is not None:
            return self._audit_key
        keyed = chain.keyed_ends(SqliteTx(conn, None))
        recorded = self._recorded_key_id()
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

    def _recorded_key_id(self) -> str:
        """The key id the folder's marker recorded for this chain ("" when none)."""
        return ""

    def _chain_committed(self) -> None:
        """After each commit of :meth:`_tx` (the store records the key id in the marker)."""

    # -- writing -------------------------------------------------------------------------

    def _sqlite_tx(self, conn: sqlite3.Connection) -> SqliteTx:
        return SqliteTx(conn, self._audit, self._keyed_hash_in)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """The store's write transaction: keys an older chain first (once), then counts
        the rows the transaction erased in an ``ERASED`` entry before it commits."""
        with super()._tx() as conn:
            if not self._chain_ready:
                self._ensure_keyed(conn)
            if self._counting_erasures:
                conn.execute("DELETE FROM temp.audit_erased")  # only this transaction's
            yield conn
            if self._counting_erasures:
                tx = self._sqlite_tx(conn)
                erased, changed = tx.erasures()
                if erased or changed:
                    chain.count_erasures(
                        tx, self._key(conn, create=True), self._now, erased, changed
                    )
        self._chain_committed()

    def _tx_audit(self) -> AuditAppend:
        return self._audit

    def _tx_keyed(self) -> KeyedHash:
        return self._keyed_hash_in

    def _audit(
        self,
        conn: sqlite3.Connection,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
        rows: AuditRows = (),
    ) -> int:
        """Append inside the caller's transaction (db/chain.py: ``append``)."""
        key = self._key(conn, create=True)
        tx = self._sqlite_tx(conn)
        return chain.append(tx, key, self._now, actor, action, subject, at, details, rows)

    def _keyed_hash_in(self, conn: sqlite3.Connection, text: str) -> str:
        return chain.keyed_hash_in(SqliteTx(conn, None), text)

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
        """Only a file from before the keyed chain: it has no file id (ids, markers and
        the keyed chain came together; the store also asks for no marker)."""
        found = conn.execute("SELECT 1 FROM settings WHERE key = ?", (FILE_ID_SETTING,))
        return found.fetchone() is None

    def _key_older_chain(self) -> None:
        """Key a chain written before migration 0030 before reading it (a damaged file
        takes no writes: its chain is read as it is)."""
        if not self._chain_ready and not self.damaged:
            try:
                with self._tx():
                    pass
            except StoreError:
                if not self._rekey_refused:
                    raise  # a laundered chain is read as it is: verification names it

    # -- reading and verifying ------------------------------------------------------------

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
        with self._read() as conn:
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

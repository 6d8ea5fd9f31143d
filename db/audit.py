"""Append-only, keyed audit chain over the visitor file (art. 20.4, art. 14.1.b), and the
keyed hash used for audit subjects.

Every visit, card issue, print, reprint and void, ban, staff change, observation and
erasure writes an entry in the same transaction, committing to the rows it wrote
(db/audit_chain.py). Rows erased by any transaction of this store (the six-month purge)
are counted by an ``ERASED`` entry of that same transaction: temporary triggers on this
connection note them, so the accounting does not depend on the purge's own code.

Audit subjects are file/card/ban numbers or keyed hashes, never names or document
numbers in clear (DESIGN.md, "Logs never contain names").
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import sqlite3
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from admission.errors import StoreError
from admission.records import AuditAnchor, AuditCheck, AuditEntry, AuditHead
from db import codec
from db.audit_chain import (
    COVERAGE,
    ERASED,
    GENESIS,
    KINDS,
    AuditChainCode,
    ChainRow,
    CoveredRow,
    canonical_details,
    canonical_refs,
    chain_row,
    check_rows,
    counters_details,
    entry_mac,
    kind_of,
    parse_refs,
    row_mac,
    walk_chain,
)
from db.audit_key import ENV_VAR, KEYRING_USERNAME, AuditKey, key_file_path, resolve_audit_key
from db.audit_rows import ERASURE_TRIGGERS, CoveredTable, pointed
from db.audit_upgrade import ACTOR as UPGRADE_ACTOR
from db.audit_upgrade import needs_upgrade, upgrade
from db.connection import DB_ERRORS, AuditAppend, StoreBase
from db.file_guard import FILE_ID_SETTING
from db.keys import KEYRING_SERVICE, KeyringBackend

SUBJECT_SECRET = "audit_subject"
COVERAGE_PENDING = "audit.coverage_pending"  # set by migration 0060 in a file with entries
ADOPTED_KINDS = ("voucher", "registry")  # what the chain began to cover with migration 0060
Commits = dict[str, tuple[str, bool]]  # ref -> (row mac, created)
_CHAIN_COLUMNS = "seq, at, actor, action, subject, details, prev_digest, digest, refs, keyed"


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

    def _key(self, conn: sqlite3.Connection, *, create: bool) -> AuditKey:
        """The chain's key. A new one is made only for a chain that never had one: no
        keyed entry, and no key id in the folder's marker (db/file_guard.py)."""
        if self._audit_key is not None:
            return self._audit_key
        keyed = self._keyed_rows(conn)
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
            keyed and not any(self._verifies(row, key) for row in keyed)
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

    @staticmethod
    def _keyed_rows(conn: sqlite3.Connection) -> list[ChainRow]:
        """The first and the newest keyed entries (a key that verifies neither is wrong;
        one changed entry alone is left to verification to report)."""
        rows = conn.execute(
            f"SELECT {_CHAIN_COLUMNS} FROM (SELECT * FROM audit WHERE keyed = 1 "
            "ORDER BY seq LIMIT 1) UNION "
            f"SELECT {_CHAIN_COLUMNS} FROM (SELECT * FROM audit WHERE keyed = 1 "
            "ORDER BY seq DESC LIMIT 1)"
        ).fetchall()
        return [chain_row(r) for r in rows]

    @staticmethod
    def _verifies(row: ChainRow, key: AuditKey) -> bool:
        fields = (row.seq, row.at, row.actor, row.action, row.subject, row.details, row.refs)
        return row.digest == entry_mac(key, row.prev_digest, *fields)

    # -- writing -------------------------------------------------------------------------

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
            self._account_erasures(conn)
        self._chain_committed()

    def _tx_audit(self) -> AuditAppend:
        return self._audit

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int:
        """Append one entry in its own transaction; returns its ``seq``."""
        with self._tx() as conn:
            return self._audit(conn, actor, action, subject, at, details)

    def _audit(
        self,
        conn: sqlite3.Connection,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
        rows: Sequence[tuple[str, bool]] = (),
    ) -> int:
        """Append inside the caller's transaction, committing to ``rows`` as they are now
        (``(ref, created)``, e.g. ``("card:17", True)``): the entry and the act commit
        together. Erasures of the transaction so far are counted first."""
        self._account_erasures(conn)
        key = self._key(conn, create=True)
        commits = {ref: (self._row_mac(conn, key, ref), created) for ref, created in rows}
        return self._append_entry(conn, key, actor, action, subject, at, details, commits)

    def _append_entry(
        self,
        conn: sqlite3.Connection,
        key: AuditKey,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None,
        commits: Commits,
    ) -> int:
        seq = int(
            conn.execute(
                "UPDATE counters SET next = next + 1 WHERE name = 'audit' RETURNING next - 1"
            ).fetchall()[0][0]
        )
        row = conn.execute("SELECT digest FROM audit WHERE seq = ?", (seq - 1,)).fetchone()
        prev = row[0] if row else GENESIS
        stamp, text, refs = codec.ts(at), canonical_details(details), canonical_refs(commits)
        conn.execute(
            "INSERT INTO audit (seq, at, actor, action, subject, details, prev_digest, digest, "
            "refs, keyed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)",
            (
                seq,
                stamp,
                actor,
                action,
                subject,
                text,
                prev,
                entry_mac(key, prev, seq, stamp, actor, action, subject, text, refs),
                refs,
            ),
        )
        conn.executemany(
            "INSERT INTO audit_refs (ref, seq) VALUES (?, ?) "
            "ON CONFLICT (ref) DO UPDATE SET seq = excluded.seq",
            [(ref, seq) for ref in commits],
        )
        return seq

    def _account_erasures(self, conn: sqlite3.Connection) -> None:
        """One ``ERASED`` entry: per kind, how many rows and which ids (art. 20.4); it
        commits to the cards that only lost the link to an erased visit."""
        if not self._counting_erasures:
            return
        found = conn.execute("SELECT ref, erased FROM temp.audit_erased").fetchall()
        if not found:
            return
        conn.execute("DELETE FROM temp.audit_erased")
        erased = [self._staff_ref(conn, r) for r, e in found if e]
        changed = [(r, False) for r, e in found if not e]
        details: dict[str, str] = {}
        for kind in KINDS:
            ids = sorted(int(r.split(":", 1)[1]) for r in erased if kind_of(r) == kind != "staff")
            count = sum(1 for r in erased if kind_of(r) == kind)
            if count:
                details[kind] = str(count)
            if ids:
                details[f"{kind}_first"], details[f"{kind}_last"] = str(ids[0]), str(ids[-1])
        conn.execute(
            "DELETE FROM audit_refs WHERE ref IN (SELECT value FROM json_each(?))",
            (json.dumps(erased),),
        )
        self._audit(conn, "retention", ERASED, "visitor-file", self._now(), details, changed)

    def _staff_ref(self, conn: sqlite3.Connection, ref: str) -> str:
        if kind_of(ref) != "staffid":
            return ref
        return "staff:" + self._keyed_hash_in(conn, ref.split(":", 1)[1])

    # -- the rows the chain covers --------------------------------------------------------

    def _covered(self) -> dict[str, CoveredTable]:
        """Kind -> how to read its rows; each mixin adds the tables it writes."""
        return {}

    def _row_content(self, conn: sqlite3.Connection, ref: str) -> list[object] | None:
        kind, ident = ref.split(":", 1)
        if kind == "staff":
            return self._staff_content(conn, ref)
        return self._covered()[kind].one(conn, int(ident))

    def _row_mac(self, conn: sqlite3.Connection, key: AuditKey, ref: str) -> str:
        content = self._row_content(conn, ref)
        if content is None:
            raise StoreError(f"no row {ref} to record", code=AuditChainCode.ROW_UNRECORDED)
        return row_mac(key, ref, content)

    def _staff_content(self, conn: sqlite3.Connection, ref: str) -> list[object] | None:
        """Staff rows are named by the keyed hash of the identity (never in clear)."""
        for found, content in self._staff_rows(conn):
            if found == ref:
                return content
        return None

    def _staff_rows(self, conn: sqlite3.Connection) -> Iterator[tuple[str, list[object]]]:
        yield from ()

    def _covered_rows(self, conn: sqlite3.Connection) -> Iterator[CoveredRow]:
        """Every row present, with the newest entry committing to it, kind by kind."""
        covered = self._covered()
        for kind in KINDS:
            if kind == "staff":
                yield from pointed(conn, self._staff_rows(conn))
            else:
                yield from covered[kind].pointed(conn)

    # -- keying an older chain (migration 0030) -------------------------------------------

    def _ensure_keyed(self, conn: sqlite3.Connection) -> None:
        if needs_upgrade(conn):
            if not self._may_key_older_chain(conn):
                self._rekey_refused = True
                unkeyed = conn.execute("SELECT 1 FROM audit WHERE keyed = 0 LIMIT 1").fetchone()
                raise StoreError(
                    "this file's chain was keyed when its id and marker were made, and now it "
                    "holds no keyed entry: it is not keyed again; restore it from the backup",
                    code=AuditChainCode.UNKEYED_ENTRY if unkeyed else AuditChainCode.ROW_UNRECORDED,
                )
            key = self._key(conn, create=True)

            def append(action: str, subject: str, details: dict[str, str], c: Commits) -> None:
                self._append_entry(conn, key, UPGRADE_ACTOR, action, subject, now, details, c)

            now = self._now()
            upgrade(
                conn,
                key,
                append,
                lambda kind: self._plain_rows(conn, kind),
                self._counters(conn),
            )
            conn.execute("DELETE FROM settings WHERE key = ?", (COVERAGE_PENDING,))
        elif conn.execute("SELECT 1 FROM settings WHERE key = ?", (COVERAGE_PENDING,)).fetchone():
            self._adopt_coverage(conn)
        self._chain_ready = True

    def _adopt_coverage(self, conn: sqlite3.Connection) -> None:
        """Once, for a file whose chain began before it covered vouchers and snapshots
        (migration 0060): one entry committing to those present and saying where the
        counters stand (db/audit_chain.py refuses a second one, or one after a voucher
        or snapshot was committed)."""
        key = self._key(conn, create=False)
        commits = {
            ref: (row_mac(key, ref, content), True)
            for kind in ADOPTED_KINDS
            for ref, content in self._plain_rows(conn, kind)
        }
        details = counters_details(self._counters(conn))
        self._append_entry(
            conn, key, UPGRADE_ACTOR, COVERAGE, "audit", self._now(), details, commits
        )
        conn.execute("DELETE FROM settings WHERE key = ?", (COVERAGE_PENDING,))

    @staticmethod
    def _counters(conn: sqlite3.Connection) -> dict[str, int]:
        """The numbered counters the chain checks (``{"card": next, "voucher": next}``)."""
        rows = conn.execute(
            "SELECT name, next FROM counters WHERE name IN ('card', 'voucher')"
        ).fetchall()
        return {str(name): int(value) for name, value in rows}

    def _may_key_older_chain(self, conn: sqlite3.Connection) -> bool:
        """Only a file from before the keyed chain: it has no file id (ids, markers and
        the keyed chain came together; the store also asks for no marker)."""
        found = conn.execute("SELECT 1 FROM settings WHERE key = ?", (FILE_ID_SETTING,))
        return found.fetchone() is None

    def _plain_rows(
        self, conn: sqlite3.Connection, kind: str
    ) -> Iterator[tuple[str, list[object]]]:
        if kind == "staff":
            return iter(list(self._staff_rows(conn)))
        return self._covered()[kind].every(conn)

    # -- reading and verifying ------------------------------------------------------------

    def head(self) -> AuditHead:
        """The newest entry: its seq and digest, to be printed outside the file."""
        self._key_older_chain()
        with self._read() as conn:
            row = conn.execute("SELECT seq, digest, at FROM audit ORDER BY seq DESC LIMIT 1")
            found = row.fetchone()
        if found is None:
            return AuditHead(0, GENESIS, None)
        return AuditHead(int(found[0]), str(found[1]), codec.parse_ts(str(found[2])))

    def verify(
        self, anchors: Sequence[AuditAnchor] = (), *, settings: Mapping[str, str] | None = None
    ) -> AuditCheck:
        """Walk the whole chain (streamed) with the key, check it against ``anchors``
        (heads kept outside the file), then every row present against the chain."""
        self._key_older_chain()
        with self._read() as conn:
            conn.execute("BEGIN")  # one snapshot for the chain and the rows
            try:
                return self._verify_in(conn, anchors, settings)
            finally:
                conn.execute("ROLLBACK")

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

    def _verify_in(
        self,
        conn: sqlite3.Connection,
        anchors: Sequence[AuditAnchor],
        settings: Mapping[str, str] | None = None,
    ) -> AuditCheck:
        expected = int(
            conn.execute("SELECT next - 1 FROM counters WHERE name = 'audit'").fetchone()[0]
        )
        # An empty chain needs no key; a row present is then unrecorded (the key is unused).
        try:
            key = self._key(conn, create=False) if expected else AuditKey.generate()
        except StoreError:
            unkeyed = conn.execute("SELECT min(seq) FROM audit WHERE keyed = 0").fetchone()[0]
            if unkeyed is None:
                raise
            return AuditCheck(False, int(unkeyed) - 1, int(unkeyed), AuditChainCode.UNKEYED_ENTRY)
        walk = walk_chain(
            self._chain_rows(conn),
            key,
            expected_count=expected,
            anchors=anchors,
            counters=self._counters(conn),
            settings=settings,
        )
        if not walk.check.ok:
            return walk.check
        rolled = conn.execute(
            "SELECT a.seq, j.key FROM audit AS a, json_each(a.refs) AS j "
            "JOIN audit_refs AS r ON r.ref = j.key WHERE r.seq < a.seq ORDER BY a.seq LIMIT 1"
        ).fetchone()
        if rolled is not None:
            return AuditCheck(
                False,
                walk.check.entries,
                int(rolled[0]),
                AuditChainCode.ROW_ROLLED_BACK,
                row=str(rolled[1]),
            )
        return check_rows(key, self._covered_rows(conn), walk, Counter())

    @staticmethod
    def _chain_rows(conn: sqlite3.Connection) -> Iterator[ChainRow]:
        cursor = conn.execute(f"SELECT {_CHAIN_COLUMNS} FROM audit ORDER BY seq")
        for row in cursor:
            yield chain_row(row)

    def audit_entries(self, since_seq: int = 0, limit: int = 1000) -> list[AuditEntry]:
        """Entries after ``since_seq``, oldest first (inspector reports)."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT seq, at, actor, action, subject, details, digest, refs FROM audit "
                "WHERE seq > ? ORDER BY seq LIMIT ?",
                (since_seq, limit),
            ).fetchall()
        return [
            AuditEntry(
                seq,
                codec.parse_ts(at),
                actor,
                action,
                subject,
                json.loads(details),
                dig,
                {ref: mac for ref, (mac, _) in parse_refs(refs).items()},
            )
            for seq, at, actor, action, subject, details, dig, refs in rows
        ]

    # -- settings and secrets (inside the encrypted file) ---------------------------------

    def secret(self, name: str) -> bytes:
        """A random 32-byte secret created on first use (e.g. ``secret("card_code")``)."""
        with self._tx() as conn:
            return self._secret_in(conn, name)

    @staticmethod
    def _secret_in(conn: sqlite3.Connection, name: str) -> bytes:
        """Inside the caller's transaction: read the secret, creating it if absent."""
        key = f"secret:{name}"
        conn.execute(
            "INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)", (key, os.urandom(32))
        )
        value = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return bytes(value[0])

    def get_setting(self, key: str) -> str | None:
        if key.startswith("secret:"):
            raise ValueError("secrets are read with secret()")
        with self._read() as conn:
            row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        if key.startswith("secret:"):
            raise ValueError("secrets are created by secret()")
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def keyed_hash(self, text: str) -> str:
        """``hmac:`` + 16 hex of HMAC-SHA256 under a per-file secret: lets the audit name a
        query or identity without showing it, and link repeated ones."""
        with self._tx() as conn:
            return self._keyed_hash_in(conn, text)

    def _keyed_hash_in(self, conn: sqlite3.Connection, text: str) -> str:
        mac = hmac.new(self._secret_in(conn, SUBJECT_SECRET), text.encode("utf-8"), hashlib.sha256)
        return "hmac:" + mac.hexdigest()[:16]

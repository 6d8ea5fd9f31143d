"""Append-only, hash-chained audit trail and the keyed hash used for audit subjects.

Audit subjects are file/card/ban numbers or keyed hashes, never names or document
numbers in clear (DESIGN.md, "Logs never contain names").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
from collections.abc import Iterator
from datetime import datetime

from admission.records import AuditCheck, AuditEntry
from db import codec
from db.audit_chain import GENESIS, ChainRow, canonical_details, digest, verify_chain
from db.connection import StoreBase

SUBJECT_SECRET = "audit_subject"


class AuditMixin(StoreBase):
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
    ) -> int:
        """Append inside the caller's transaction (so the entry and the act commit together)."""
        seq = conn.execute(
            "UPDATE counters SET next = next + 1 WHERE name = 'audit' RETURNING next - 1"
        ).fetchall()[0][0]
        row = conn.execute("SELECT digest FROM audit WHERE seq = ?", (seq - 1,)).fetchone()
        prev = row[0] if row else GENESIS
        stamp = codec.ts(at)
        text = canonical_details(details)
        conn.execute(
            "INSERT INTO audit (seq, at, actor, action, subject, details, prev_digest, digest) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                seq,
                stamp,
                actor,
                action,
                subject,
                text,
                prev,
                digest(prev, seq, stamp, actor, action, subject, text),
            ),
        )
        return int(seq)

    def verify(self) -> AuditCheck:
        """Walk the whole chain (streamed) and compare its length with the counter."""
        with self._read() as conn:
            expected = conn.execute(
                "SELECT next - 1 FROM counters WHERE name = 'audit'"
            ).fetchone()[0]
            return verify_chain(self._chain_rows(conn), expected_count=int(expected))

    @staticmethod
    def _chain_rows(conn: sqlite3.Connection) -> Iterator[ChainRow]:
        cursor = conn.execute(
            "SELECT seq, at, actor, action, subject, details, prev_digest, digest "
            "FROM audit ORDER BY seq"
        )
        for row in cursor:
            yield ChainRow(*row)

    def audit_entries(self, since_seq: int = 0, limit: int = 1000) -> list[AuditEntry]:
        """Entries after ``since_seq``, oldest first (inspector reports)."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT seq, at, actor, action, subject, details, digest FROM audit "
                "WHERE seq > ? ORDER BY seq LIMIT ?",
                (since_seq, limit),
            ).fetchall()
        return [
            AuditEntry(seq, codec.parse_ts(at), actor, action, subject, json.loads(details), dig)
            for seq, at, actor, action, subject, details, dig in rows
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

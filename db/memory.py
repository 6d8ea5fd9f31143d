"""``MemoryStore``: the visitor file's rules on an in-memory SQLite database - the same code,
schema, migrations and keyed audit chain as the SQLCipher file. The fake of the store's
ports (tests/fake_store.py scripts it): a test of the desk exercises the real rules
(gapless card numbers, art. 22.1; one valid card per person, art. 22; the purge, art. 20.4)."""

from __future__ import annotations

import sqlite3

from admission.ports import Clock
from db.audit_key import AuditKey
from db.connection import configure
from db.store import SqlCipherStore


class MemoryStore(SqlCipherStore):
    """A visitor file in memory, gone when closed. Not encrypted: never for real data."""

    def __init__(self, clock: Clock | None = None, audit_key: AuditKey | None = None) -> None:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        configure(conn)  # nothing on a disk to leave open if it fails
        super().__init__(conn, None, encrypted=False, clock=clock)
        self.use_audit_key(audit_key or AuditKey.generate("memory"))

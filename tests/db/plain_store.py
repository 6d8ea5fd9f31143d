"""BENCHMARKS AND WIPE TESTS ONLY: the visitor file's schema on unencrypted stdlib SQLite."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from admission.ports import Clock
from db.connection import configure
from db.store import SqlCipherStore


def open_plain(path: Path, *, clock: Clock | None = None) -> SqlCipherStore:
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    try:
        configure(conn)
    except BaseException:
        conn.close()
        raise
    return SqlCipherStore(conn, Path(path), encrypted=False, clock=clock)

"""Finding damage in the visitor file and naming the pages (art. 20.4: a legal record).

``PRAGMA cipher_integrity_check`` (SQLCipher 4.2+) recomputes every page's HMAC and names
the failing pages; ``quick_check`` sees a broken structure with valid HMACs but after a
bad one reports only a cascade. Measured (SQLCipher 4.19, tests/bench): 34 MiB ~100 ms vs
~280 ms, 171 MiB ~0.6 s vs ~1.5 s. Main file only (SQLite checksums ``-wal`` frames).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from admission.records import IntegrityReport

# Checked at every open up to here (~0.45 s; ~1.7 GiB would take ~6 s), daily beyond.
OPEN_CHECK_MAX_BYTES = 128 * 1024 * 1024
STRUCTURE_LINES = 100  # quick_check stops after this many complaints
_PAGE = re.compile(r"\bpage (\d+)", re.IGNORECASE)
PAGE_SIZE = 4096  # SQLCipher 4 default


def hmac_check(conn: sqlite3.Connection) -> tuple[int, ...]:
    """The pages whose HMAC fails (``PRAGMA cipher_integrity_check``); () when whole.
    On unencrypted stdlib SQLite the pragma is unknown and returns nothing."""
    rows = conn.execute("PRAGMA cipher_integrity_check").fetchall()
    matches = (_PAGE.search(str(line)) for (line,) in rows)
    return tuple(sorted({int(m[1]) if m else 0 for m in matches}))


def check(conn: sqlite3.Connection, path: Path | None, *, structure: bool) -> IntegrityReport:
    """Every page's HMAC; with ``structure``, then the b-trees (``PRAGMA quick_check``'s
    complaints; only when the HMACs hold: after a bad page quick_check reports noise)."""
    pages = path.stat().st_size // PAGE_SIZE if path is not None and path.exists() else 0
    bad = hmac_check(conn)
    if bad or not structure:
        return IntegrityReport(pages, bad)
    rows = conn.execute(f"PRAGMA quick_check({STRUCTURE_LINES})").fetchall()
    lines = [str(line) for (text,) in rows for line in str(text).splitlines()]
    return IntegrityReport(pages, (), () if lines == ["ok"] else tuple(lines[:STRUCTURE_LINES]))


def open_check(conn: sqlite3.Connection, path: Path, *, full: bool) -> tuple[int, ...]:
    """The check when the file opens: the damaged pages, () when whole or when the file
    is bigger than :data:`OPEN_CHECK_MAX_BYTES` and not ``full`` (checked daily then).
    ``full`` (a file known damaged, or being adopted) checks the structure too."""
    if not full and path.stat().st_size > OPEN_CHECK_MAX_BYTES:
        return ()
    report = check(conn, path, structure=full)
    return report.bad_pages or ((0,) if report.structure else ())

"""Finding damage in the visitor file, and naming the pages (art. 20.4: a legal record).

SQLCipher 4 authenticates every page with an HMAC (SHA-512 by default) computed over
the page's ciphertext, IV and page number; a page whose bytes changed on the disk fails
it. ``PRAGMA cipher_integrity_check`` (SQLCipher 4.2+) recomputes the HMAC of every page
of the main file and names each page that fails, without parsing the b-trees.
``PRAGMA quick_check`` parses every b-tree page instead: it sees a broken structure
that still carries valid HMACs, but after the first bad HMAC it reports a cascade of
follow-up errors, not the damaged pages.

Measured with SQLCipher 4.19 on this project's benchmark data set (tests/bench):

=================  =========  ======================  ===================
visitors           file       cipher_integrity_check  quick_check
=================  =========  ======================  ===================
20,000             34 MiB     ~100 ms                 ~280 ms
100,000            171 MiB    ~0.6 s                  ~1.5 s
=================  =========  ======================  ===================

So the check when the file opens is ``cipher_integrity_check`` (the cheaper of the two,
and it names the pages), for files up to :data:`OPEN_CHECK_MAX_BYTES`; a bigger file is
checked in full daily at the purge, and every page any query reads is HMAC-checked by
SQLCipher anyway. The check reads the main file only: pages committed since the last
checkpoint live in the ``-wal`` file, whose frames SQLite checksums on recovery.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from admission.records import IntegrityReport

__all__ = ["OPEN_CHECK_MAX_BYTES", "check", "hmac_check", "open_check"]

# ~0.45 s with the figures above; a 1,000,000-visitor file (~1.7 GiB) would take ~6 s.
OPEN_CHECK_MAX_BYTES = 128 * 1024 * 1024
STRUCTURE_LINES = 100  # quick_check stops after this many complaints
_PAGE = re.compile(r"\bpage (\d+)", re.IGNORECASE)
PAGE_SIZE = 4096  # SQLCipher 4 default


def hmac_check(conn: sqlite3.Connection) -> tuple[int, ...]:
    """The pages whose HMAC fails (``PRAGMA cipher_integrity_check``); () when whole.
    On unencrypted stdlib SQLite the pragma is unknown and returns nothing."""
    found: set[int] = set()
    for (line,) in conn.execute("PRAGMA cipher_integrity_check").fetchall():
        match = _PAGE.search(str(line))
        found.add(int(match[1]) if match else 0)
    return tuple(sorted(found))


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

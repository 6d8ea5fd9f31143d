"""The rows of the adapters stored in the visitor file that the audit chain commits to
beside the store's own (art. 20.4): provisional vouchers (art. 23.4, db/voucher_book.py)
and the RIAJ snapshots the desk checks against (art. 20.2, db/registry_replica.py).

A snapshot is one row of the chain (``registry:<snapshot_id>``) whose content ends with
the SHA-256 of its identifier digests in ascending order: an identifier added to or
removed from the register outside an import or a feed page changes it, and
``audit verify`` answers ROW_CHANGED; a snapshot put in or taken out, ROW_UNRECORDED or
ROWS_MISSING. The digest is recomputed only when an import or a feed page commits to
the snapshot, and at verification: an admission never reads the register whole.
"""

from __future__ import annotations

import sqlite3

from db.audit_chain import entries_digest, registry_content, voucher_content
from db.audit_rows import CoveredTable, OptionalTable, aliased
from db.voucher_book import VOUCHER_COLUMNS, voucher_from_row

__all__ = ["REGISTRY_TABLE", "VOUCHER_TABLE", "registry_digest"]

_REGISTRY_COLUMNS = (
    "t.snapshot_id, t.version, t.scheme, t.salt, t.scope, t.as_of, t.imported_at, "
    "t.entry_count, t.content_sha256, t.signed, t.feed_as_of, t.feed_applied, t.active"
)


def _voucher(conn: sqlite3.Connection, row: tuple[object, ...]) -> list[object]:
    del conn
    return voucher_content(voucher_from_row(row))


def registry_digest(conn: sqlite3.Connection, snapshot_id: int) -> str:
    """The digest of one snapshot's identifiers, read in key order (no sort)."""
    cursor = conn.execute(
        "SELECT digest FROM registry_entry WHERE snapshot_id = ? ORDER BY digest", (snapshot_id,)
    )
    return entries_digest(bytes(d) for (d,) in cursor)


def _registry(conn: sqlite3.Connection, row: tuple[object, ...]) -> list[object]:
    snapshot_id = int(str(row[0]))
    return registry_content(row[1:], registry_digest(conn, snapshot_id))


VOUCHER_TABLE: CoveredTable = OptionalTable(
    "voucher", "vouchers", "number", aliased(VOUCHER_COLUMNS), _voucher
)
REGISTRY_TABLE: CoveredTable = OptionalTable(
    "registry", "registry_snapshot", "snapshot_id", _REGISTRY_COLUMNS, _registry
)

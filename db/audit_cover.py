"""The kinds of row the audit chain commits to (art. 20.4), in the order it verifies them,
each registered once for both dialects (db/audit_rows.py): the visitor file (art. 20.3),
cards (art. 22), bans and staff (arts. 21, 18), vouchers (art. 23.4), desk accounts, and
here the RIAJ snapshots (art. 20.2): one row each, whose content ends with the SHA-256 of
its identifier digests in order, recomputed only at an import, a feed page or verification.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from db import accounts, cards, codec, people, visitors, voucher_book
from db.audit_chain import KINDS, entries_digest, registry_content
from db.audit_rows import Content, Covered
from db.tx import Tx

__all__ = ["COVERED", "registry_digest"]

Rows = Sequence[tuple[Any, ...]]


def registry_digest(tx: Tx, snapshot_id: int) -> str:
    """The digest of one snapshot's identifiers, read in key order (no sort)."""
    sql = "SELECT digest FROM registry_entry WHERE snapshot_id = ? ORDER BY digest"
    return entries_digest(bytes(d) for rows in tx.batches(sql, (snapshot_id,)) for (d,) in rows)


def _registry(tx: Tx, rows: Rows) -> list[Content]:
    found: list[Content] = []
    for snapshot_id, *row in rows:
        values = [
            codec.ts(v) if isinstance(v, datetime) else int(v) if isinstance(v, bool) else v
            for v in row
        ]
        content = registry_content(values, registry_digest(tx, int(snapshot_id)))
        found.append((f"registry:{int(snapshot_id)}", content))
    return found


_SNAPSHOT = (
    "t.snapshot_id, t.version, t.scheme, t.salt, t.scope, t.as_of, t.imported_at, "
    "t.entry_count, t.content_sha256, t.signed, t.feed_as_of, t.feed_applied, {page}t.active"
)

_KINDS = (
    visitors.VISITOR_COVERED,
    visitors.VISIT_COVERED,
    cards.COVERED,
    people.COVERED,
    people.STAFF_COVERED,
    visitors.OBSERVATION_COVERED,
    accounts.COVERED,
    voucher_book.COVERED,
    Covered(  # the server keeps the feed's page too
        "registry",
        "registry_snapshot",
        "snapshot_id",
        _SNAPSHOT.format(page=""),
        _registry,
        _SNAPSHOT.format(page="t.feed_page, "),
        optional=True,
    ),
)
COVERED: dict[str, Covered] = {c.kind: c for c in _KINDS}  # in the order of KINDS
assert tuple(COVERED) == KINDS

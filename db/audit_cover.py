"""The kinds of row the audit chain commits to (art. 20.4), in the order it verifies
them, each registered once for both dialects (db/audit_rows.py: :class:`Covered`): the
visitor file, its visits and observations (art. 20.3, db/visitors.py), cards (art. 22,
db/cards.py), bans and staff (arts. 21, 18, db/people.py), provisional vouchers (art.
23.4, db/voucher_book.py), desk accounts (db/accounts.py), and here the RIAJ snapshots
the desk checked against (art. 20.2).

A reader opens the sealed values with ``tx.open`` (the text as it is on SQLCipher) and
gives the content db/audit_chain.py defines, so a row moved from a desk's file to the
server keeps its mac. On the server the blind index stored beside an identity or a
document number is checked against the opened value (``tx.check_index``).

A snapshot is one row (``registry:<snapshot_id>``) whose content ends with the SHA-256 of
its identifier digests in ascending order: an identifier added to or removed from the
register outside an import or a feed page changes it (ROW_CHANGED). The digest is
recomputed only when an import or a feed page commits to the snapshot, and at
verification: an admission never reads the register whole.
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
    for row in rows:
        snapshot_id = int(row[0])
        values = [
            codec.ts(v) if isinstance(v, datetime) else int(v) if isinstance(v, bool) else v
            for v in row[1:]
        ]
        content = registry_content(values, registry_digest(tx, snapshot_id))
        found.append((f"registry:{snapshot_id}", content))
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

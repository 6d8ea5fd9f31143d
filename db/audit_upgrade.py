"""Keying an audit chain written before migration 0030 (art. 20.4, art. 14.1.b).

A file of one desk only (the server's chain was keyed from its start). SQL cannot
compute the HMAC and the audit key is not in the file, so migration 0030
only adds the columns; the store finishes the upgrade the first time it writes with
the key, in one transaction:

1. the old unkeyed chain is checked as it was (SHA-256) — a chain already broken is
   not laundered: the upgrade entry says where it was broken, and verification keeps
   reporting it (LEGACY_CHAIN_BROKEN);
2. its entries are re-chained from genesis with the key (the only update the trigger
   allows, once per entry);
3. an ``AUDIT_UPGRADE`` entry records the old head, its check and the key's id;
4. ``AUDIT_BASELINE`` entries commit to every row already in the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from admission.records import AuditCheck
from db.audit_chain import (
    BASELINE,
    GENESIS,
    KINDS,
    UPGRADE,
    AuditChainCode,
    ChainRow,
    chain_row,
    counters_details,
    digest,
    entry_mac,
    row_mac,
)
from db.audit_key import AuditKey
from db.tx import Tx

BASELINE_ROWS = 500  # rows committed per baseline entry
COVERED_TABLES = ("visitors", "visits", "cards", "bans", "staff", "observations")
# (action, subject, details, commits ref -> (row mac, created)): appends a keyed entry
Append = Callable[[str, str, dict[str, str], dict[str, tuple[str, bool]]], None]
RowsOf = Callable[[str], Iterator[tuple[str, list[object]]]]  # kind -> (ref, content)


def needs_upgrade(tx: Tx) -> bool:
    """No keyed entry yet, and something to key: old entries or rows."""
    if tx.one("SELECT 1 FROM audit WHERE keyed = 1 LIMIT 1") is not None:
        return False  # keyed already (an unkeyed entry after that is verification's case)
    if tx.one("SELECT 1 FROM audit LIMIT 1") is not None:
        return True
    return any(tx.one(f"SELECT 1 FROM {table} LIMIT 1") is not None for table in COVERED_TABLES)


def legacy_check(rows: list[ChainRow], expected_count: int) -> AuditCheck:
    """The pre-0030 verification: SHA-256 links, contiguous seqs, the counter."""
    prev = GENESIS
    for count, row in enumerate(rows, start=1):
        if row.seq != count:
            return AuditCheck(False, count - 1, row.seq, AuditChainCode.SEQUENCE_GAP)
        if row.prev_digest != prev:
            return AuditCheck(False, count - 1, row.seq, AuditChainCode.CHAIN_BROKEN)
        if row.digest != digest(prev, *row.fields[:6]):
            return AuditCheck(False, count - 1, row.seq, AuditChainCode.DIGEST_MISMATCH)
        prev = row.digest
    if len(rows) != expected_count:
        return AuditCheck(False, len(rows), len(rows) + 1, AuditChainCode.TAIL_MISSING)
    return AuditCheck(True, len(rows), None, "")


def upgrade(
    tx: Tx,
    key: AuditKey,
    append: Append,
    rows_of: RowsOf,
    counters: dict[str, int],
) -> None:
    """Inside the caller's write transaction: re-chain, record (with where the numbered
    counters stand: cards erased before the key are not in the baseline), commit to
    every row."""
    rows = [
        chain_row(r)
        for r in tx.all(
            "SELECT seq, at, actor, action, subject, details, prev_digest, digest, refs, "
            "keyed FROM audit ORDER BY seq"
        )
    ]
    found = tx.one("SELECT next - 1 FROM counters WHERE name = 'audit'")
    expected = 0 if found is None else int(found[0])
    check = legacy_check(rows, expected)
    prev = GENESIS
    for row in rows:
        mac = entry_mac(key, prev, *row.fields)
        tx.execute(
            "UPDATE audit SET prev_digest = ?, digest = ?, keyed = 1 WHERE seq = ?",
            (prev, mac, row.seq),
        )
        prev = mac
    if len(rows) != expected:  # the counter runs ahead of the rows: the chain goes on
        tx.execute("UPDATE counters SET next = ? WHERE name = 'audit'", (len(rows) + 1,))
    details = {
        "legacy_entries": str(len(rows)),
        "legacy_head": rows[-1].digest if rows else GENESIS,
        "legacy_ok": "1" if check.ok else "0",
        "key_id": key.key_id,
        **counters_details(counters),
    }
    if not check.ok:
        details["legacy_problem"] = str(check.problem)
        details["legacy_first_bad_seq"] = str(check.first_bad_seq)
    append(UPGRADE, "audit", details, {})
    for kind in KINDS:
        batch: dict[str, tuple[str, bool]] = {}
        for ref, content in rows_of(kind):
            batch[ref] = (row_mac(key, ref, content), True)
            if len(batch) == BASELINE_ROWS:
                append(BASELINE, kind, {}, batch)
                batch = {}
        if batch:
            append(BASELINE, kind, {}, batch)

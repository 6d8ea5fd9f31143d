"""Keying an audit chain written before migration 0030 (art. 20.4, art. 14.1.b), a desk's
file only: SQL cannot compute the HMAC, so the store finishes the upgrade the first time it
writes with the key, in one transaction: the old chain is checked as it was (a broken one
is not laundered: LEGACY_CHAIN_BROKEN), re-chained from genesis with the key, recorded by
an ``AUDIT_UPGRADE`` entry, and every row present is committed by ``AUDIT_BASELINE`` ones.
"""

from __future__ import annotations

from datetime import datetime

from admission.records import AuditCheck
from db import chain
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
from db.audit_cover import COVERED
from db.audit_key import AuditKey
from db.tx import Tx

BASELINE_ROWS = 500  # rows committed per baseline entry
COVERED_TABLES = ("visitors", "visits", "cards", "bans", "staff", "observations")


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


def upgrade(tx: Tx, key: AuditKey, at: datetime) -> None:
    """Inside the caller's write transaction: re-chain, record (with where the numbered
    counters stand: cards erased before the key are not in the baseline), commit to
    every row."""
    counters = chain.counters(tx)
    rows = [
        chain_row(r) for r in tx.all(f"SELECT {chain.CHAIN_COLUMNS}, keyed FROM audit ORDER BY seq")
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
    chain.append_entry(tx, key, chain.UPGRADE_ACTOR, UPGRADE, "audit", at, details, {})
    for kind in KINDS:
        batch: chain.Commits = {}
        for ref, content in COVERED[kind].every(tx):
            batch[ref] = (row_mac(key, ref, content), True)
            if len(batch) == BASELINE_ROWS:
                chain.append_entry(tx, key, chain.UPGRADE_ACTOR, BASELINE, kind, at, {}, batch)
                batch = {}
        if batch:
            chain.append_entry(tx, key, chain.UPGRADE_ACTOR, BASELINE, kind, at, {}, batch)

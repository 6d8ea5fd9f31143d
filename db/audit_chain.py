"""The audit trail's hash chain (pure functions shared by the store and the fake).

digest(n) = SHA-256(canonical JSON of [digest(n-1), seq, at, actor, action, subject,
details]); the first row chains from 64 zeros. Editing, removing or reordering a row
breaks every later digest; removing the newest rows is caught by the ``audit``
counter kept in the same transaction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from enum import unique

from admission.codes import Code
from admission.records import AuditCheck

GENESIS = "0" * 64


@unique
class AuditChainCode(Code):
    """Why the audit trail does not verify: the first problem found, walking in order."""

    SEQUENCE_GAP = "SEQUENCE_GAP"  # a row is missing or out of order
    CHAIN_BROKEN = "CHAIN_BROKEN"  # a row does not follow from the one before it
    DIGEST_MISMATCH = "DIGEST_MISMATCH"  # a row was changed after it was written
    TAIL_MISSING = "TAIL_MISSING"  # the newest rows were removed (the counter says more)


@dataclass(frozen=True, slots=True)
class ChainRow:
    seq: int
    at: str
    actor: str
    action: str
    subject: str
    details: str  # canonical JSON object
    prev_digest: str
    digest: str


def canonical_details(details: dict[str, str] | None) -> str:
    clean = {str(k): str(v) for k, v in (details or {}).items()}
    return json.dumps(clean, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def digest(
    prev: str, seq: int, at: str, actor: str, action: str, subject: str, details: str
) -> str:
    content = json.dumps(
        [prev, seq, at, actor, action, subject, details], ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def verify_chain(rows: Iterable[ChainRow], expected_count: int | None = None) -> AuditCheck:
    """Walk the rows in ``seq`` order; ``expected_count`` is the store's own counter."""
    prev = GENESIS
    count = 0
    for row in rows:
        count += 1
        if row.seq != count:
            return AuditCheck(False, count - 1, row.seq, AuditChainCode.SEQUENCE_GAP)
        if row.prev_digest != prev:
            return AuditCheck(False, count - 1, row.seq, AuditChainCode.CHAIN_BROKEN)
        expected = digest(prev, row.seq, row.at, row.actor, row.action, row.subject, row.details)
        if row.digest != expected:
            return AuditCheck(False, count - 1, row.seq, AuditChainCode.DIGEST_MISMATCH)
        prev = row.digest
    if expected_count is not None and count != expected_count:
        return AuditCheck(False, count, count + 1, AuditChainCode.TAIL_MISSING)
    return AuditCheck(True, count, None, "")

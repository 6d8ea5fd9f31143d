"""What a copy of a desk's visitor file onto the server says of itself (db/pg/copy_file.py):
its codes, its progress, its report, and the names it leaves on the server."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import unique
from typing import Any

from admission.codes import Code
from admission.records import AuditCheck
from db.audit_chain import GENESIS

COPY_ACTION = "FILE_MIGRATED"  # the server's audit entry recording the move
COPY_MARKER = "copy.source"  # the server's setting naming the source being copied
COPY_ACTOR = "migration"
DEFAULT_BATCH = 2000
# Tables compared row for row (counts); the audit trail is compared apart (+1 entry).
TABLES = (
    "visitors",
    "visits",
    "observations",
    "cards",
    "card_events",
    "bans",
    "staff",
    "accounts",
    "vouchers",
    "audit_refs",
)


@unique
class CopyCode(Code):
    """Why a copy of the visitor file onto the server was refused or did not verify."""

    TARGET_NOT_EMPTY = "PG_COPY_TARGET_NOT_EMPTY"  # the server holds another file already
    SOURCE_CHANGED = "PG_COPY_SOURCE_CHANGED"  # the source was written since the copy began
    SOURCE_UNVERIFIED = "PG_COPY_SOURCE_UNVERIFIED"  # the source's own chain does not verify
    AUDIT_KEY_DIFFERS = "PG_COPY_AUDIT_KEY_DIFFERS"  # the server store has another audit key
    RUNNING = "PG_COPY_RUNNING"  # another copy into this database is running
    MISMATCH = "PG_COPY_MISMATCH"  # the copy does not verify against the source


@dataclass(frozen=True, slots=True)
class CopyProgress:
    """After each committed batch: the step (a table), rows copied in it by this run,
    and batches committed by this run in all."""

    step: str
    rows: int
    batches: int


@dataclass
class CopyReport:
    """What the copy did and what its verification found (``ok`` and ``code`` "" when
    every check held; else ``code`` is ``PG_COPY_MISMATCH`` and ``differences`` says
    what differs)."""

    ok: bool = False
    code: str = ""
    source_file_id: str = ""
    source_head_seq: int = 0
    source_head_digest: str = GENESIS
    resumed: bool = False  # a previous run had begun this copy
    already_copied: bool = False  # a previous run had finished it: only verified now
    batches: int = 0
    copied: dict[str, int] = field(default_factory=dict)  # rows written by this run
    source_counts: dict[str, int] = field(default_factory=dict)
    target_counts: dict[str, int] = field(default_factory=dict)
    last_card_number: int = 0  # the highest number ever issued (the counter), on the server
    card_numbers_equal: bool = False
    card_gaps: int = 0  # numbers up to the last that no card holds (erased by retention)
    last_voucher_number: int = 0
    migrated_seq: int = 0  # the server's FILE_MIGRATED entry
    # entries the source holds after the head copied (none records a row: sign-ins)
    source_entries_after: int = 0
    audit: AuditCheck | None = None  # the whole chain on the server, accounts included
    differences: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

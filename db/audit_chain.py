"""The audit chain's pure functions (art. 20.4, 14.1.b). Entry n carries ``HMAC-SHA256(
audit key, canonical JSON of [label, digest(n-1), seq, at, actor, action, subject,
details, refs])``, the first chaining from 64 zeros; ``refs`` commits to the rows the act
wrote (``{"card:17": [row mac, created]}``). Verification recomputes the macs of the rows
present against the newest entry committing to each, and per kind checks rows created =
present + erased (``ERASED`` entries); heads printed outside bind the key holder."""

from __future__ import annotations

import functools
import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import unique
from typing import Any, Protocol

from admission.codes import Code
from admission.errors import StoreError
from admission.records import (
    AuditAnchor,
    AuditCheck,
    Ban,
    CardRecord,
    Observation,
    StaffMember,
    VisitRecord,
)
from admission.vouchers.model import Voucher
from db import codec

GENESIS = "0" * 64
ENTRY_LABEL = "admission-desk/audit-entry/v1"
ROW_LABEL = "admission-desk/audit-row/v1"
ROW_MAC_HEX = 32  # HMAC-SHA256 truncated to 128 bits per row
# The rows the chain commits to, in the order verification reads them (arts. 20.3, 22,
# 21, 18, desk accounts, 23.4 vouchers, 20.2 RIAJ snapshots).
KINDS = (
    "visitor",
    "visit",
    "card",
    "ban",
    "staff",
    "observation",
    "account",
    "voucher",
    "registry",
)
# Counters whose numbers the chain records (arts. 22.1, 23.4): one past the highest
# number created, or where an entry's ``card_next``/``card_resumes_at``... says, if higher.
COUNTED = ("card", "voucher")
COVERAGE = "AUDIT_COVERAGE"  # action of the entry that committed an older file's vouchers
SETTINGS_CHANGED = "SETTINGS_CHANGED"  # details: "digests" and one ``setting:<key>`` each
NOT_CARRIED = "not_carried_"  # details ``not_carried_<kind>: n``: rows a move left behind
SETTING_PREFIX = "setting:"
ERASED = "ERASED"  # action of the entry counting the rows erased in its transaction
UPGRADE = "AUDIT_UPGRADE"  # action of the entry that keyed an older chain (migration 0030)
_PARSED_ENTRIES = 16  # entries whose parsed refs verification keeps at hand
_NOTED = ('_next"', '_resumes_at"', f'"{NOT_CARRIED}', '"digests"')  # details that declare
BASELINE = "AUDIT_BASELINE"  # action of the entries committing to rows older than the key


@unique
class AuditChainCode(Code):
    """Why the audit trail does not verify (the first problem found), or cannot be used."""

    SEQUENCE_GAP = "SEQUENCE_GAP"  # a row is missing or out of order
    CHAIN_BROKEN = "CHAIN_BROKEN"  # a row does not follow from the one before it
    DIGEST_MISMATCH = "DIGEST_MISMATCH"  # a row was changed, or written without the key
    TAIL_MISSING = "TAIL_MISSING"  # the newest rows were removed (the counter says more)
    UNKEYED_ENTRY = "UNKEYED_ENTRY"  # an entry claims the old unkeyed algorithm
    LEGACY_CHAIN_BROKEN = "LEGACY_CHAIN_BROKEN"  # the chain was broken before it was keyed
    ANCHOR_MISMATCH = "ANCHOR_MISMATCH"  # the entry differs from the head printed outside
    ANCHOR_NOT_FOUND = "ANCHOR_NOT_FOUND"  # the chain is shorter than the printed head
    ROW_CHANGED = "ROW_CHANGED"  # a visit, card, ban... differs from what the chain recorded
    ROW_UNRECORDED = "ROW_UNRECORDED"  # a row the chain never recorded
    ROW_ROLLED_BACK = "ROW_ROLLED_BACK"  # a row was put back to an older recorded state
    ROWS_MISSING = "ROWS_MISSING"  # rows were erased outside an audited erasure
    AUDIT_KEY_MISSING = "AUDIT_KEY_MISSING"  # the chain is keyed and its key is not here
    AUDIT_KEY_WRONG = "AUDIT_KEY_WRONG"  # the key given is not the key of this chain
    AUDIT_KEY_BAD = "AUDIT_KEY_BAD"  # ADMISSION_AUDIT_KEY or the key file is not 64 hex
    AUDIT_KEY_LOST = "AUDIT_KEY_LOST"  # a keyed file's key is gone: restore it, never a new one
    CARD_NUMBER_GAP = "CARD_NUMBER_GAP"  # the card counter is not past the last card recorded
    VOUCHER_NUMBER_GAP = "VOUCHER_NUMBER_GAP"  # the same for the voucher counter
    BLIND_INDEX_MISMATCH = "BLIND_INDEX_MISMATCH"  # an identity's index is another's (server)
    SETTINGS_UNRECORDED = "SETTINGS_UNRECORDED"  # settings.json is not as last recorded


class IndexMismatch(StoreError):
    """A row's blind index is not the one its sealed value gives (the server)."""

    def __init__(self, ref: str) -> None:
        super().__init__(
            f"the blind index of {ref} is not its own: the database was changed outside "
            "the desks; restore it from a backup",
            code=AuditChainCode.BLIND_INDEX_MISMATCH,
        )
        self.ref = ref


class ChainKey(Protocol):
    """The audit key (db/audit_key.py): HMAC-SHA256 as hex."""

    def mac(self, data: bytes) -> str: ...


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
    refs: str = "{}"  # canonical JSON object: ref -> [row mac, created 0/1]
    keyed: bool = True  # False: written by the pre-0030 unkeyed algorithm

    @property
    def fields(self) -> tuple[int, str, str, str, str, str, str]:
        """What its mac covers after ``prev_digest`` (:func:`entry_mac`)."""
        return (self.seq, self.at, self.actor, self.action, self.subject, self.details, self.refs)


def chain_row(row: Sequence[Any]) -> ChainRow:
    """From ``seq, at, actor, action, subject, details, prev_digest, digest, refs, keyed``."""
    seq, at, actor, action, subject, details, prev, dig, refs, keyed = row
    return ChainRow(
        int(seq), at, actor, action, subject, details, prev, dig, refs, keyed=bool(keyed)
    )


def _json(value: object, *, sort: bool = False) -> str:
    return json.dumps(value, sort_keys=sort, ensure_ascii=False, separators=(",", ":"))


def canonical_details(details: Mapping[str, str] | None) -> str:
    return _json({str(k): str(v) for k, v in (details or {}).items()}, sort=True)


def canonical_refs(refs: Mapping[str, tuple[str, bool]]) -> str:  # ASCII: refs and hex macs
    return _json({ref: [mac, int(created)] for ref, (mac, created) in refs.items()}, sort=True)


def parse_refs(text: str) -> dict[str, tuple[str, bool]]:
    return {str(ref): (str(v[0]), bool(v[1])) for ref, v in json.loads(text or "{}").items()}


def kind_of(ref: str) -> str:
    return ref.split(":", 1)[0]


def digest(prev: str, *fields: str | int) -> str:
    """The pre-0030 unkeyed SHA-256 of ``seq, at, actor, action, subject, details``."""
    return hashlib.sha256(_json([prev, *fields]).encode("utf-8")).hexdigest()


def entry_mac(key: ChainKey, prev: str, *fields: str | int) -> str:
    """The mac of ``seq, at, actor, action, subject, details, refs`` chained to ``prev``."""
    return key.mac(_json([ENTRY_LABEL, prev, *fields]).encode("utf-8"))


def visit_entry(
    file_number: int,
    visit_id: int,
    verdict: str,
    card: int | None,
    existing: int | None,
    new_visitor: bool,
) -> tuple[dict[str, str], list[tuple[str, bool]]]:
    """The details of an admission's ``VISIT`` entry (art. 20.3) and the rows it commits
    to - the visitor (created, or changed by a newer document), the visit, the card it
    gave - the same in every store."""
    details = {"visit": str(visit_id), "verdict": verdict}
    rows = [(f"visitor:{file_number}", new_visitor), (f"visit:{visit_id}", True)]
    if card is not None:
        details["card"] = str(card)
        rows.append((f"card:{card}", True))
    if existing is not None:
        details["existing_card"] = str(existing)
    return details, rows


def row_mac(key: ChainKey, ref: str, content: Sequence[object]) -> str:
    return key.mac(_json([ROW_LABEL, ref, list(content)]).encode("utf-8"))[:ROW_MAC_HEX]


# -- what each kind of row commits to (the same values from both stores) -------------------


def _opt_ts(at: datetime | None) -> str | None:
    return None if at is None else codec.ts(at)


def visit_content(v: VisitRecord) -> list[object]:
    r = v.registry  # the card links itself to the visit (card_content)
    who = [v.file_number, codec.ts(v.at), v.desk_id, v.operator, v.verdict, list(v.reasons)]
    document, registry = [v.document_type, v.document_number], [r.status, r.source, r.version]
    return [*who, *document, [*registry, r.age_seconds], v.official_capacity]


def visitor_content(
    identity: str, surname: str, given_names: str, birth: str | None, nationality: str
) -> list[object]:
    return [identity, surname, given_names, birth, nationality]  # seen dates are derived


CardEvent = tuple[datetime, str, str, str]  # at, kind, reason, actor


def card_content(c: CardRecord, events: Sequence[CardEvent]) -> list[object]:
    # visit None once retention erased the visit (recorded by ERASED)
    issued = [c.file_number, c.visit_id or None, c.card_type, c.price_cents, codec.ts(c.issued_at)]
    valid = [codec.day(c.valid_from), codec.day(c.valid_until), c.status.value, c.exceptional]
    printed = [c.private_rooms, c.authorised_by, c.print_count, c.void_reason]
    return [*issued, *valid, *printed, [[codec.ts(e[0]), *e[1:]] for e in events]]


def ban_content(b: Ban) -> list[object]:
    stamps = [codec.ts(b.created_at), _opt_ts(b.expires_at), _opt_ts(b.lifted_at)]
    return [b.identity.text, b.reason, b.decided_by, *stamps, b.lift_reason]


def staff_content(m: StaffMember) -> list[object]:
    return [m.identity.text, m.name, m.role.value, m.active]


def observation_content(o: Observation) -> list[object]:
    return [o.file_number, codec.ts(o.at), o.author, o.text]


# -- verification --------------------------------------------------------------------------


@dataclass
class ChainWalk:
    """The walk of the entries: the first problem, and what the rows are checked against."""

    check: AuditCheck
    created: Counter[str] = field(default_factory=Counter)
    erased: Counter[str] = field(default_factory=Counter)
    highest: Counter[str] = field(default_factory=Counter)  # counted kind -> highest created
    declared: dict[str, int] = field(default_factory=dict)  # counter -> resumes at (floor)
    covered: bool = False  # the AUDIT_COVERAGE entry was seen
    settings: dict[str, str] | None = None  # the newest settings digests recorded


def _fail(entries: int, seq: int | None, problem: Code, row: str = "") -> AuditCheck:
    return AuditCheck(False, entries, seq, problem, row=row)


def walk_chain(
    rows: Iterable[ChainRow],
    key: ChainKey,
    *,
    expected_count: int,
    counters: Mapping[str, int],
    anchors: Sequence[AuditAnchor] = (),
    settings: Mapping[str, str] | None = None,
) -> ChainWalk:
    """Walk the entries in ``seq`` order. ``expected_count`` is the store's own counter;
    ``counters`` (``{"card": next, ...}``) are checked against the numbers the chain
    created (:data:`COUNTED`); ``settings`` (the desk's settings digests,
    admission/settings_record.py) against the newest recorded."""
    wanted = {a.seq: a.digest for a in anchors}
    walk = ChainWalk(AuditCheck(True, 0, None, ""))
    prev, count, legacy = GENESIS, 0, None
    for row in rows:
        count += 1
        problem = (
            AuditChainCode.SEQUENCE_GAP
            if row.seq != count
            else AuditChainCode.UNKEYED_ENTRY
            if not row.keyed
            else AuditChainCode.CHAIN_BROKEN
            if row.prev_digest != prev
            else AuditChainCode.DIGEST_MISMATCH
            if row.digest != entry_mac(key, prev, *row.fields)
            else AuditChainCode.ANCHOR_MISMATCH
            if wanted.get(row.seq, row.digest) != row.digest
            else None
        )
        if problem is None and row.action == COVERAGE:
            # adopted once, by a file that committed to no voucher or snapshot before
            if walk.covered or walk.created["voucher"] + walk.created["registry"]:
                problem = AuditChainCode.ROW_UNRECORDED
            walk.covered = True
        if problem is not None:
            walk.check = _fail(count - 1, row.seq, problem)
            return walk
        for ref, (_, created) in parse_refs(row.refs).items():
            if created:
                kind = kind_of(ref)
                walk.created[kind] += 1
                if kind in COUNTED:
                    walk.highest[kind] = max(walk.highest[kind], int(ref.split(":", 1)[1]))
        prev = row.digest
        if row.action not in (ERASED, UPGRADE) and not any(n in row.details for n in _NOTED):
            continue  # nothing declared: the details are not parsed
        details = json.loads(row.details)
        for name in COUNTED:
            # where a counter resumes: ``card_next`` (an upgrade, an adoption) or
            # ``card_resumes_at`` (FILE_RESTORED after a restore that lost numbers)
            value = details.get(f"{name}_next", details.get(f"{name}_resumes_at"))
            if value is not None and str(value).isdigit():
                walk.declared[name] = int(value)
        if row.action == SETTINGS_CHANGED and '"digests"' in row.details:  # a record
            walk.settings = {k: str(v) for k, v in details.items() if k.startswith(SETTING_PREFIX)}
        # rows a move left behind (copy to server)
        carried = {k: int(details[NOT_CARRIED + k]) for k in KINDS if NOT_CARRIED + k in details}
        walk.erased.update(carried)
        if row.action == ERASED:
            walk.erased.update({k: int(details.get(k, 0)) for k in KINDS})
        elif row.action == UPGRADE and details.get("legacy_ok") == "0" and legacy is None:
            legacy = int(details.get("legacy_first_bad_seq") or row.seq)
    gap = _counter_gap(walk, counters)
    if count != expected_count:
        walk.check = _fail(count, count + 1, AuditChainCode.TAIL_MISSING)
    elif gap is not None:
        walk.check = _fail(count, None, *gap)
    elif settings is not None and walk.settings is not None and walk.settings != settings:
        recorded = walk.settings
        first = min(k for k in {*recorded, *settings} if recorded.get(k) != settings.get(k))
        walk.check = _fail(count, None, AuditChainCode.SETTINGS_UNRECORDED, first)
    elif any(seq > count for seq in wanted):
        beyond = min(s for s in wanted if s > count)
        walk.check = _fail(count, beyond, AuditChainCode.ANCHOR_NOT_FOUND)
    elif legacy is not None:
        walk.check = _fail(count, legacy, AuditChainCode.LEGACY_CHAIN_BROKEN)
    else:
        walk.check = AuditCheck(True, count, None, "", anchors=len(wanted))
    return walk


def _counter_gap(walk: ChainWalk, counters: Mapping[str, int]) -> tuple[Code, str] | None:
    """A counter that is not one past the highest number the chain created (nor where a
    declaring entry said it resumes): a jump (numbers skipped, art. 22.1) or a step back
    (numbers to be given twice)."""
    for name in COUNTED:
        expected = max(walk.declared.get(name, 1), walk.highest[name] + 1)
        if name in counters and counters[name] != expected:
            return AuditChainCode[f"{name.upper()}_NUMBER_GAP"], f"{name}:{counters[name]}"
    return None


def counters_details(counters: Mapping[str, int]) -> dict[str, str]:
    """The details of a declaring entry: where each counter resumes."""
    return {f"{name}_next": str(counters[name]) for name in COUNTED if name in counters}


def voucher_content(v: Voucher) -> list[object]:
    """A provisional voucher (art. 23.4) with its closing (exchange or cancellation)."""
    issued = [v.number, codec.ts(v.issued_at), v.desk_id, v.operator, v.holder_name]
    held = [v.document_type, v.document_number, v.card_type, v.price_cents, v.status.value]
    return [*issued, *held, v.card_number, _opt_ts(v.closed_at), v.close_reason]


def entries_digest(digests: Iterable[bytes]) -> str:
    """SHA-256 of a snapshot's identifier digests in ascending order (art. 20.2)."""
    h = hashlib.sha256()
    for d in digests:
        h.update(bytes(d))
    return h.hexdigest()


def registry_content(row: Sequence[object], digest_of_entries: str) -> list[object]:
    """A RIAJ snapshot row (version, scheme, salt, scope, as_of, imported_at, entry_count,
    content_sha256, signed, feed_as_of, feed_applied, active) and its entries' digest."""
    return [*[v.hex() if isinstance(v, bytes | memoryview) else v for v in row], digest_of_entries]


@dataclass(frozen=True, slots=True)
class CoveredRow:
    """A row present in the file, with the newest entry that says it committed to it."""

    ref: str
    content: Sequence[object]
    pointer: int | None  # audit_refs.seq
    entry_refs: str | None  # that entry's refs (None: no such entry)


def check_rows(key: ChainKey, rows: Iterable[CoveredRow], walk: ChainWalk) -> AuditCheck:
    """Every row present matches the newest entry committing to it; per kind, rows
    created = present + erased."""
    entries, checked, present = walk.check.entries, 0, Counter[str]()
    # One entry may commit to thousands of rows (a baseline, a purge, the adoption of
    # rows written before the key): its refs are parsed once, not once per row - rows
    # come table by table, so the entries they point to repeat in runs.
    parse = functools.lru_cache(maxsize=_PARSED_ENTRIES)(parse_refs)
    for row in rows:
        checked += 1
        present[kind_of(row.ref)] += 1
        if row.pointer is None or row.entry_refs is None:
            return _fail(entries, None, AuditChainCode.ROW_UNRECORDED, row.ref)
        recorded = parse(row.entry_refs).get(row.ref)
        if recorded is None:
            return _fail(entries, row.pointer, AuditChainCode.ROW_UNRECORDED, row.ref)
        if recorded[0] != row_mac(key, row.ref, row.content):
            return _fail(entries, row.pointer, AuditChainCode.ROW_CHANGED, row.ref)
    for kind in KINDS:
        accounted = present[kind] + walk.erased[kind]
        if walk.created[kind] != accounted:
            more = walk.created[kind] > accounted
            problem = AuditChainCode.ROWS_MISSING if more else AuditChainCode.ROW_UNRECORDED
            return AuditCheck(False, entries, None, problem, rows=checked, row=kind)
    return AuditCheck(True, entries, None, "", rows=checked, anchors=walk.check.anchors)

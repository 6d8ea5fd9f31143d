"""The audit trail as the game director and the inspectors read it (arts. 14.1.b, 20.4).

* :meth:`AuditTrailService.browse` - the entries of a span of Madrid days, narrowed by
  who wrote them and what kind of act they record, newest first. The chain is ordered
  by ``seq`` and written with the clock, so the first entry of a day is found by a
  binary search over ``seq`` (a few point reads) and the span is then read forward in
  pages: a six-month trail of millions of entries answers as fast as a small one. At
  most ``scan`` entries are read per query; the answer says when it stopped short.
* :meth:`AuditTrailService.verify` - the whole chain and the rows against it, and an
  anchor (a head kept outside the file, ``SEQ:DIGEST``) typed or pasted.
* :meth:`AuditTrailService.export_csv` - the entries browsed, as a CSV written to an
  export target, then recorded (AUDIT_EXPORT) with its purpose, rows and digest.

Every browse and export states a purpose and is itself recorded (art. 20.4: every
query of the file is recorded); verifying reads no personal data and records nothing.
Entries hold numbers, keyed hashes and codes, never a name in clear.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import unique
from typing import Protocol

from admission.accounts import Operator
from admission.catalogue import text as catalogue_text
from admission.codes import Code
from admission.errors import AdmissionError
from admission.inspection import allowed_role, checked_purpose
from admission.ports import Clock, madrid_day_start
from admission.records import AuditAnchor, AuditCheck, AuditEntry, AuditHead
from admission.reports import (
    ExportFormat,
    ExportTarget,
    RenderedExport,
    csv_bytes,
    deliver_export,
)

__all__ = [
    "AuditAct",
    "AuditPage",
    "AuditQuery",
    "AuditTrailCode",
    "AuditTrailError",
    "AuditTrailService",
    "act_label",
    "audit_rows",
    "checked_query",
    "details_text",
    "parse_anchor",
]

MAX_SPAN_DAYS = 366
MAX_FILTER = 60
PAGE = 2_000  # entries read at a time
_ANCHOR = re.compile(r"^\s*(\d{1,18})\s*:\s*([0-9a-fA-F]{64})\s*$")
_WORD = re.compile(r"^[A-Za-z0-9_.@\-]{1,60}$")


@unique
class AuditTrailCode(Code):
    """Why a look at the audit trail is refused."""

    AUDIT_ANCHOR_INVALID = "AUDIT_ANCHOR_INVALID"  # not SEQ:DIGEST (a number, 64 hex)
    AUDIT_FILTER_INVALID = "AUDIT_FILTER_INVALID"  # an actor or kind that is not a word
    AUDIT_DATE_RANGE = "AUDIT_DATE_RANGE"  # from after to, or more than a year


@unique
class AuditAct(Code):
    """The acts the trail records most, named for the people who read it (the CSV's
    label beside the code; the screen's "Acto" column). Others show their code."""

    VISIT = "VISIT"
    CARD_PRINTED = "CARD_PRINTED"
    CARD_REPRINT = "CARD_REPRINT"
    CARD_VOID = "CARD_VOID"
    CARD_CHECK = "CARD_CHECK"
    BAN_ADD = "BAN_ADD"
    BAN_LIFT = "BAN_LIFT"
    BAN_LIST = "BAN_LIST"
    BAN_QUERY = "BAN_QUERY"
    STAFF_SET = "STAFF_SET"
    INSPECT_SEARCH = "INSPECT_SEARCH"
    INSPECT_TIMELINE = "INSPECT_TIMELINE"
    INSPECT_EXPORT = "INSPECT_EXPORT"
    REPORT_DAY = "REPORT_DAY"
    REPORT_FIGURES = "REPORT_FIGURES"
    ACCESS_REPORT = "ACCESS_REPORT"
    AUDIT_BROWSE = "AUDIT_BROWSE"
    AUDIT_EXPORT = "AUDIT_EXPORT"
    REGISTRY_IMPORTED = "REGISTRY_IMPORTED"
    ERASED = "ERASED"
    PURGE = "PURGE"
    VOUCHER_ISSUED = "VOUCHER_ISSUED"
    VOUCHER_CANCELLED = "VOUCHER_CANCELLED"
    VOUCHER_EXCHANGED = "VOUCHER_EXCHANGED"
    SETTINGS_CHANGED = "SETTINGS_CHANGED"
    OVERRIDE = "OVERRIDE"
    RECTIFIED = "RECTIFIED"
    LEAFLET_PRINTED = "LEAFLET_PRINTED"
    VISITOR_QUERY = "VISITOR_QUERY"


ACTS = frozenset(act.value for act in AuditAct)


class AuditTrailError(AdmissionError):
    code: Code = AuditTrailCode.AUDIT_FILTER_INVALID


class AuditReader(Protocol):
    """What the service reads and writes: the audit port of the visitor file."""

    def audit_entries(self, since_seq: int = 0, limit: int = 1000) -> list[AuditEntry]: ...

    def head(self) -> AuditHead: ...

    def verify(self, anchors: Sequence[AuditAnchor] = ()) -> AuditCheck: ...

    def append(
        self, actor: str, action: str, subject: str, at: datetime, details: dict[str, str]
    ) -> object: ...


@dataclass(frozen=True, slots=True)
class AuditQuery:
    """A checked query: Madrid days ``day_from``..``day_to``, an actor and an action
    (exact, upper case for actions), or None for any."""

    day_from: date
    day_to: date
    actor: str | None = None
    action: str | None = None


@dataclass(frozen=True, slots=True)
class AuditPage:
    """The entries found, newest first; ``complete`` False when ``scan`` entries were
    read before the span ended (narrow the dates to see the rest)."""

    query: AuditQuery
    entries: tuple[AuditEntry, ...]
    scanned: int
    complete: bool


def parse_anchor(text: str) -> AuditAnchor:
    """A head kept outside the file, typed or pasted as ``SEQ:DIGEST``."""
    match = _ANCHOR.match(text or "")
    if match is None or int(match[1]) < 1:
        raise AuditTrailError("anchor", code=AuditTrailCode.AUDIT_ANCHOR_INVALID)
    return AuditAnchor(int(match[1]), match[2].lower())


def _word(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    cleaned = value.strip()
    if len(cleaned) > MAX_FILTER or _WORD.match(cleaned) is None:
        raise AuditTrailError("filter", code=AuditTrailCode.AUDIT_FILTER_INVALID)
    return cleaned


def checked_query(
    day_from: date, day_to: date, actor: str | None = None, action: str | None = None
) -> AuditQuery:
    if day_from > day_to or (day_to - day_from).days >= MAX_SPAN_DAYS:
        raise AuditTrailError("dates", code=AuditTrailCode.AUDIT_DATE_RANGE)
    kind = _word(action)
    return AuditQuery(day_from, day_to, _word(actor), None if kind is None else kind.upper())


AUDIT_HEADER = ("Nº", "Fecha y hora", "Usuario", "Acto", "Acto (texto)", "Asunto", "Detalles")
_AUDIT_HEADER_EN = ("No.", "Date and time", "User", "Act", "Act (text)", "Subject", "Details")


def audit_rows(entries: Sequence[AuditEntry], lang: str = "es") -> list[tuple[str, ...]]:
    """The header (in ``lang``) and one row per entry: the act's code with its label
    beside it, the details as ``key=value`` pairs in key order."""
    rows: list[tuple[str, ...]] = [_AUDIT_HEADER_EN if lang == "en" else AUDIT_HEADER]
    for entry in entries:
        rows.append(
            (
                str(entry.seq),
                entry.at.isoformat(timespec="seconds"),
                entry.actor,
                entry.action,
                act_label(entry.action, lang),
                entry.subject,
                details_text(entry),
            )
        )
    return rows


def details_text(entry: AuditEntry) -> str:
    """An entry's details as ``key=value`` pairs in key order (the screen and the CSV)."""
    return "; ".join(f"{k}={v}" for k, v in sorted(entry.details.items()))


def act_label(action: str, lang: str = "es") -> str:
    """What the act is, in ``lang`` ("" for an act the catalogue does not name)."""
    return catalogue_text(action, lang) if action in ACTS else ""


class AuditTrailService:
    def __init__(self, store: AuditReader, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    # -- reading -----------------------------------------------------------------------
    def browse(
        self,
        operator: Operator,
        purpose: str,
        query: AuditQuery,
        *,
        limit: int = 500,
        scan: int = 200_000,
    ) -> AuditPage:
        """The entries of ``query``, newest first (at most ``limit``); recorded."""
        role = allowed_role(operator)
        why = checked_purpose(purpose)
        start = madrid_day_start(query.day_from)
        until = madrid_day_start(query.day_to + timedelta(days=1))
        # the newest ``limit`` matches only: entries come oldest first, so a bounded deque
        # keeps them without holding every match of a long span in memory
        found: deque[AuditEntry] = deque(maxlen=limit)
        matched = 0
        scanned = 0
        complete = True
        seq = self._first_at_or_after(start) - 1
        ended = False
        while not ended:
            if scanned >= scan:
                complete = False
                break
            page = self._store.audit_entries(seq, min(PAGE, scan - scanned))
            if not page:
                break
            for entry in page:
                if entry.at >= until:
                    ended = True
                    break
                seq = entry.seq
                scanned += 1
                if query.actor not in (None, entry.actor):
                    continue
                if query.action not in (None, entry.action):
                    continue
                found.append(entry)
                matched += 1
        self._store.append(
            operator.username,
            "AUDIT_BROWSE",
            "audit:trail",
            self._clock.now(),
            {
                "purpose": why,
                "role": role.value,
                "from": query.day_from.isoformat(),
                "to": query.day_to.isoformat(),
                "actor": query.actor or "",
                "action": query.action or "",
                "found": str(matched),
            },
        )
        return AuditPage(query, tuple(reversed(found)), scanned, complete)

    def _first_at_or_after(self, start: datetime) -> int:
        """The seq of the first entry written at or after ``start`` (head + 1 if none):
        a binary search over seq, as the chain is written in time order."""
        high = self._store.head().seq
        low = 1
        answer = high + 1
        while low <= high:
            middle = (low + high) // 2
            page = self._store.audit_entries(middle - 1, 1)
            if not page:  # a gap in seq: look further on
                low = middle + 1
                continue
            entry = page[0]
            if entry.at >= start:
                answer = entry.seq
                high = middle - 1
            else:
                low = entry.seq + 1
        return answer

    # -- verifying ---------------------------------------------------------------------
    def verify(self, operator: Operator, anchor_text: str = "") -> AuditCheck:
        """The whole chain, the rows against it, and the anchor typed (if any)."""
        allowed_role(operator)
        anchors = [parse_anchor(anchor_text)] if anchor_text.strip() else []
        return self._store.verify(anchors)

    def head(self) -> AuditHead:
        return self._store.head()

    # -- exporting ---------------------------------------------------------------------
    def export_csv(
        self, operator: Operator, purpose: str, page: AuditPage, target: ExportTarget, lang: str
    ) -> RenderedExport:
        """The entries of ``page`` as a CSV written to ``target``, then recorded; a
        failed record removes the file (no export unrecorded)."""
        role = allowed_role(operator)
        why = checked_purpose(purpose)
        rows = audit_rows(page.entries, "en" if lang == "en" else "es")
        details = {
            "purpose": why,
            "role": role.value,
            "from": page.query.day_from.isoformat(),
            "to": page.query.day_to.isoformat(),
        }
        return deliver_export(
            self._store,
            self._clock,
            operator,
            target,
            csv_bytes(rows),
            ExportFormat.CSV,
            rows,
            "AUDIT_EXPORT",
            "audit:trail",
            details,
        )

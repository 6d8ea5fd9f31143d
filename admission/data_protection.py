"""Data protection on the visitor file: rectification and the retention view.

Art. 20.4 of Decreto 58/2006 keeps the visitor file confidential and for six months;
the GDPR gives the person the right to have inaccurate data corrected (art. 16). The
game director keeps the files in custody and answers for them (arts. 14.1.b and 20.3),
so a rectification is the director's act (``RECTIFY_ROLE_REQUIRED`` for anyone else,
an inspector, a clerk or an administrator included: roles are separate duties), with a
stated reason, and it is recorded in the audit trail in the same transaction as the
change: the fields changed, the reason, the role used and the OLD value as a keyed
hash only (the trail can prove what was there without showing it).

What can be rectified:

* the visitor's surname and given names (the name search follows at once). Names are
  checked as a typed document's are (:func:`admission.documents.manual_document`):
  1-60 characters of letters, spaces and ``' - . ’``, with a letter; whitespace is
  collapsed and the name upper-cased, as identity documents print it. Given names may
  be empty (a document may have none); the surname may not.
* an observation's text: 1-500 characters of plain text (no control characters,
  whitespace collapsed), the author and date kept.

Identity numbers, birth dates, visits and cards are not rectified here: they come from
the document presented and the acts of the desk (a wrong document is a new visit).

The retention view (DIRECTOR, ADMIN or INSPECTOR) counts what the file holds, month by
month (Madrid months), and when the oldest record passes the six months: it shows no
personal data.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import unique
from typing import Protocol

from admission.accounts import Operator, Role
from admission.codes import Code
from admission.errors import AdmissionError
from admission.hours import MADRID
from admission.ports import Clock
from admission.records import Observation, Visitor
from admission.retention import RETENTION_MONTHS, months_before, retention_cutoff

__all__ = [
    "MAX_NAME",
    "MAX_OBSERVATION",
    "MAX_REASON",
    "MIN_REASON",
    "RECTIFY_ROLES",
    "RETENTION_ROLES",
    "DataProtectionCode",
    "DataProtectionError",
    "DataProtectionService",
    "DataProtectionStore",
    "MonthCount",
    "MonthSpan",
    "RetentionOverview",
    "RetentionTotals",
    "clean_name",
    "clean_observation",
    "clean_reason",
    "month_spans",
    "passes_retention",
]

MIN_REASON = 3
MAX_REASON = 200
MAX_NAME = 60  # as a typed document's names (admission.documents.MAX_NAME)
MAX_OBSERVATION = 500
MAX_MONTHS = 240  # months listed at most (a file never purged for twenty years)
RECTIFY_ROLES = frozenset({Role.DIRECTOR})  # GDPR art. 16; arts. 14.1.b and 20.3
RETENTION_ROLES = (Role.DIRECTOR, Role.ADMIN, Role.INSPECTOR)  # counts only, art. 20.4
_NAME_PUNCTUATION = frozenset(" '-.’")
_CONTROL = ("Cc", "Cf", "Cs", "Co")


@unique
class DataProtectionCode(Code):
    """Why a rectification or the retention view is refused."""

    RECTIFY_ROLE_REQUIRED = "RECTIFY_ROLE_REQUIRED"  # the game director only
    RECTIFY_REASON_INVALID = "RECTIFY_REASON_INVALID"  # 3-200 characters, plain text
    RECTIFY_VALUE_INVALID = "RECTIFY_VALUE_INVALID"  # a name or text that cannot be kept
    RECTIFY_UNCHANGED = "RECTIFY_UNCHANGED"  # the new value is the one already kept
    RECTIFY_NOT_FOUND = "RECTIFY_NOT_FOUND"  # no such file, or no such observation in it
    RETENTION_ROLE_REQUIRED = "RETENTION_ROLE_REQUIRED"  # DIRECTOR, ADMIN or INSPECTOR


class DataProtectionError(AdmissionError):
    code: Code = DataProtectionCode.RECTIFY_VALUE_INVALID


@dataclass(frozen=True, slots=True)
class MonthCount:
    """What the file holds of one Madrid month (``YYYY-MM``): visits (admitted and
    refused), cards issued, and visitors whose first visit held falls in it."""

    month: str
    visits: int
    admissions: int
    refusals: int
    cards: int
    new_visitors: int


@dataclass(frozen=True, slots=True)
class MonthSpan:
    """One Madrid month as UTC instants: ``start`` inclusive, ``end`` exclusive."""

    month: str
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True)
class RetentionTotals:
    """The store's totals (a few aggregate reads)."""

    visitors: int
    visits: int
    observations: int
    cards: int
    overdue: int  # visits older than the cutoff asked
    oldest_visit: datetime | None
    oldest_observation: datetime | None
    oldest_card: datetime | None


@dataclass(frozen=True, slots=True)
class RetentionOverview:
    """The retention view (art. 20.4: six months): counts only, no personal data.

    ``next_purge`` is when the oldest record held passes the six months (the daily
    purge erases it at its first run after that instant); in the past when ``overdue``
    visits show a purge is due now."""

    now: datetime
    cutoff: datetime
    oldest_visit: datetime | None
    oldest_observation: datetime | None
    next_purge: datetime | None
    overdue: int
    visitors: int
    visits: int
    observations: int
    cards: int
    months: tuple[MonthCount, ...]


class DataProtectionStore(Protocol):
    """The visitor file's store (``db/data_protection.py``, one for every dialect).

    The rectifications write the change and its audit entry in ONE transaction and raise
    :class:`DataProtectionError` with ``RECTIFY_NOT_FOUND`` or ``RECTIFY_UNCHANGED``."""

    def visitor(self, file_number: int) -> Visitor | None: ...

    def rectify_visitor_name(
        self,
        file_number: int,
        surname: str,
        given_names: str,
        *,
        actor: str,
        role: str,
        reason: str,
        at: datetime,
    ) -> Visitor: ...

    def rectify_observation_text(
        self,
        file_number: int,
        observation_id: int,
        text: str,
        *,
        actor: str,
        role: str,
        reason: str,
        at: datetime,
    ) -> Observation: ...

    def retention_totals(self, cutoff: datetime) -> RetentionTotals: ...

    def retention_months(self, months: Sequence[MonthSpan]) -> tuple[MonthCount, ...]:
        """One count per span, in the order given."""
        ...


def _refuse(detail: str, code: DataProtectionCode) -> DataProtectionError:
    return DataProtectionError(detail, code=code)


def _plain(value: object, limit: int, code: DataProtectionCode) -> str:
    """``value`` with its whitespace collapsed; anything but bounded plain text refused
    (checked before any other work: 10,000 characters are refused at once)."""
    if not isinstance(value, str) or len(value) > 4 * limit:
        raise _refuse("not text, or far too long", code)
    if any(unicodedata.category(c) in _CONTROL for c in value if c not in "\t\n\r"):
        raise _refuse("control characters", code)
    text = " ".join(unicodedata.normalize("NFC", value).split())
    if len(text) > limit:
        raise _refuse(f"over {limit} characters", code)
    return text


def clean_reason(reason: object) -> str:
    """The stated reason of a rectification: 3-200 characters of plain text."""
    text = _plain(reason, MAX_REASON, DataProtectionCode.RECTIFY_REASON_INVALID)
    if len(text) < MIN_REASON:
        raise _refuse("reason: 3-200 characters", DataProtectionCode.RECTIFY_REASON_INVALID)
    return text


def clean_name(value: object, *, required: bool) -> str:
    """A surname or given names as the file keeps them: 1-60 letters, spaces and
    ``' - . ’`` with at least one letter, upper case (as identity documents print)."""
    code = DataProtectionCode.RECTIFY_VALUE_INVALID
    text = _plain(value, MAX_NAME, code)
    if not text:
        if required:
            raise _refuse("name: 1-60 characters", code)
        return ""
    if not all(c.isalpha() or c in _NAME_PUNCTUATION for c in text):
        raise _refuse("name: letters, spaces and ' - . only", code)
    if not any(c.isalpha() for c in text):
        raise _refuse("name: at least one letter", code)
    upper = unicodedata.normalize("NFC", text.upper())
    if len(upper) > MAX_NAME:  # "ß" upper-cases to "SS"
        raise _refuse(f"name: over {MAX_NAME} characters", code)
    return upper


def clean_observation(value: object) -> str:
    """An observation's text: 1-500 characters of plain text."""
    text = _plain(value, MAX_OBSERVATION, DataProtectionCode.RECTIFY_VALUE_INVALID)
    if not text:
        raise _refuse("text: 1-500 characters", DataProtectionCode.RECTIFY_VALUE_INVALID)
    return text


def _number(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**62:
        raise _refuse(f"{what}: a positive number", DataProtectionCode.RECTIFY_NOT_FOUND)
    return value


def month_spans(first: datetime, now: datetime) -> tuple[MonthSpan, ...]:
    """The Madrid months from the one holding ``first`` to the one holding ``now``."""
    local_first, local_now = first.astimezone(MADRID), now.astimezone(MADRID)
    index = local_first.year * 12 + local_first.month - 1
    last = local_now.year * 12 + local_now.month - 1
    index = max(index, last - MAX_MONTHS + 1)
    spans: list[MonthSpan] = []
    while index <= last:
        year, month = divmod(index, 12)
        start = datetime(year, month + 1, 1, tzinfo=MADRID)
        ny, nm = divmod(index + 1, 12)
        end = datetime(ny, nm + 1, 1, tzinfo=MADRID)
        spans.append(MonthSpan(f"{year:04d}-{month + 1:02d}", _utc(start), _utc(end)))
        index += 1
    return tuple(spans)


def _utc(at: datetime) -> datetime:
    return at.astimezone(UTC)


def passes_retention(at: datetime, months: int = RETENTION_MONTHS) -> datetime:
    """The instant the cutoff (:func:`admission.retention.retention_cutoff`) reaches a
    record made at ``at``: the first purge after it erases the record. ``at`` plus six
    Madrid calendar months; when that day does not exist (31 August + 6 months), the
    first of the next month at midnight."""
    later = months_before(at, -months)
    if months_before(later, months) >= at:
        return later
    local = later.astimezone(MADRID)  # clamped to the month's last day
    index = local.year * 12 + local.month  # the first of the next month
    year, month = divmod(index, 12)
    return _utc(datetime(year, month + 1, 1, tzinfo=MADRID))


class DataProtectionService:
    """Rectification (the game director) and the retention view (art. 20.4; GDPR
    arts. 5.1.e and 16). The role checks are here, so every front end gets them."""

    def __init__(self, store: DataProtectionStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def rectify_name(
        self, operator: Operator, file_number: int, surname: str, given_names: str, reason: str
    ) -> Visitor:
        """Correct the visitor's surname and given names (GDPR art. 16)."""
        role = self._director(operator)
        why = clean_reason(reason)
        number = _number(file_number, "file")
        new_surname = clean_name(surname, required=True)
        new_given = clean_name(given_names, required=False)
        return self._store.rectify_visitor_name(
            number,
            new_surname,
            new_given,
            actor=operator.username,
            role=role.value,
            reason=why,
            at=self._clock.now(),
        )

    def rectify_observation(
        self, operator: Operator, file_number: int, observation_id: int, text: str, reason: str
    ) -> Observation:
        """Correct the text of one observation of the file (GDPR art. 16)."""
        role = self._director(operator)
        why = clean_reason(reason)
        number = _number(file_number, "file")
        ident = _number(observation_id, "observation")
        return self._store.rectify_observation_text(
            number,
            ident,
            clean_observation(text),
            actor=operator.username,
            role=role.value,
            reason=why,
            at=self._clock.now(),
        )

    def retention(self, operator: Operator) -> RetentionOverview:
        """What the file holds and when the oldest record passes the six months."""
        if not any(operator.has(r) for r in RETENTION_ROLES):
            raise _refuse(
                "DIRECTOR, ADMIN or INSPECTOR", DataProtectionCode.RETENTION_ROLE_REQUIRED
            )
        now = self._clock.now()
        cutoff = retention_cutoff(now)
        totals = self._store.retention_totals(cutoff)
        held = [
            t
            for t in (totals.oldest_visit, totals.oldest_observation, totals.oldest_card)
            if t is not None
        ]
        oldest = min(held, default=None)
        months: tuple[MonthCount, ...] = ()
        if oldest is not None:
            months = self._store.retention_months(month_spans(min(oldest, now), now))
        records = [t for t in (totals.oldest_visit, totals.oldest_observation) if t is not None]
        first = min(records, default=None)
        return RetentionOverview(
            now=now,
            cutoff=cutoff,
            oldest_visit=totals.oldest_visit,
            oldest_observation=totals.oldest_observation,
            next_purge=None if first is None else passes_retention(first),
            overdue=totals.overdue,
            visitors=totals.visitors,
            visits=totals.visits,
            observations=totals.observations,
            cards=totals.cards,
            months=months,
        )

    @staticmethod
    def _director(operator: Operator) -> Role:
        if not operator.has(Role.DIRECTOR):
            raise _refuse("the game director rectifies", DataProtectionCode.RECTIFY_ROLE_REQUIRED)
        return Role.DIRECTOR

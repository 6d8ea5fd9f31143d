"""The gaming inspectors' read-only access to the visitor file (art. 20.4).

Art. 20.4 keeps the visitor file confidential and open to the gaming inspectors of the
Comunidad. :class:`InspectionService` is that door: it searches the file and shows one
person's visits, and it can do nothing else (it has no method that changes anything).
Every query states what it is for (``purpose``, 3-200 characters of plain text) and is
recorded in the audit trail under the inspector's user name, with its criteria - a
searched name, identity number or observation text as a keyed hash, never in clear,
as ``visitor search`` records its query.

Who may ask: an account with the INSPECTOR role, or the game director, who keeps the
files in custody and answers for them (arts. 14.1.b and 20.3); the director's queries
are recorded the same way, with the role used. A clerk or an administrator is refused
(``INSPECTOR_ROLE_REQUIRED``): roles are separate duties. The check is here, in the
service, so every front end (command line, window) gets it.

Hostile input is refused with a code or taken as literal text: the reader binds every
value as a parameter, never as SQL text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import unique
from typing import Protocol

from admission.accounts import Operator, Role
from admission.codes import Code
from admission.errors import AdmissionError
from admission.ports import Clock, madrid_day_start
from admission.records import CardRecord, Visitor, VisitRecord

__all__ = [
    "ALLOWED_ROLES",
    "MAX_LIMIT",
    "MAX_QUERY",
    "CheckedSearch",
    "InspectionAudit",
    "InspectionCode",
    "InspectionError",
    "InspectionReader",
    "InspectionService",
    "SearchCriteria",
    "Timeline",
    "TimelineEntry",
    "allowed_role",
    "check_search",
    "checked_purpose",
    "file_number_checked",
    "id_number_checked",
    "read_timeline",
    "search_details",
]

MIN_PURPOSE = 3
MAX_PURPOSE = 200
MAX_QUERY = 200  # longer criteria text is refused (QUERY_TOO_LONG), before any read
MAX_LIMIT = 500
MAX_ID = 20  # an identity number: 1-20 letters or digits (admission.identity)
ALLOWED_ROLES = frozenset({Role.INSPECTOR, Role.DIRECTOR})  # art. 20.4; arts. 14.1.b, 20.3
_ID = re.compile(r"[A-Z0-9]{1,20}")


@unique
class InspectionCode(Code):
    """Why an inspection query is refused."""

    INSPECTOR_ROLE_REQUIRED = "INSPECTOR_ROLE_REQUIRED"  # INSPECTOR or DIRECTOR only
    INSPECT_PURPOSE_INVALID = "INSPECT_PURPOSE_INVALID"  # 3-200 characters, plain text
    QUERY_TOO_LONG = "QUERY_TOO_LONG"  # a criterion longer than 200 characters
    INSPECT_QUERY_INVALID = "INSPECT_QUERY_INVALID"  # control characters, bad number...
    INSPECT_NO_CRITERIA = "INSPECT_NO_CRITERIA"  # a search names at least one criterion
    INSPECT_DATE_RANGE = "INSPECT_DATE_RANGE"  # --from after --to
    INSPECT_FILE_UNKNOWN = "INSPECT_FILE_UNKNOWN"  # no such file number


class InspectionError(AdmissionError):
    code: Code = InspectionCode.INSPECT_QUERY_INVALID


@dataclass(frozen=True, slots=True)
class SearchCriteria:
    """A checked query. ``name`` and ``observation`` are free text; ``id_number`` is
    normalised (upper case, letters and digits); the instants are UTC bounds of the
    Madrid days asked (``visits_from`` inclusive, ``visits_until`` exclusive)."""

    name: str | None = None
    id_number: str | None = None
    card: int | None = None
    file_number: int | None = None
    visits_from: datetime | None = None
    visits_until: datetime | None = None
    observation: str | None = None


@dataclass(frozen=True, slots=True)
class CheckedSearch:
    """A search whose operator, purpose and criteria passed every check; ``details``
    is what the audit trail keeps of it (names and numbers as keyed hashes)."""

    role: Role
    purpose: str
    criteria: SearchCriteria
    limit: int
    details: dict[str, str]


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One visit: when, where, the verdict and its reasons, and the card it gave."""

    visit: VisitRecord
    card: CardRecord | None


@dataclass(frozen=True, slots=True)
class Timeline:
    visitor: Visitor
    entries: tuple[TimelineEntry, ...]


class InspectionReader(Protocol):
    """Reads only: the visitor file's store (``db/visitors.py``, ``db/inspection.py``)."""

    def inspect_visitors(self, criteria: SearchCriteria, limit: int) -> Sequence[Visitor]:
        """Visitors matching every criterion given, by name then file number."""
        ...

    def visitor(self, file_number: int) -> Visitor | None: ...

    def visits(self, file_number: int) -> Sequence[VisitRecord]:
        """The person's visits, oldest first."""
        ...

    def card(self, number: int) -> CardRecord | None: ...


class InspectionAudit(Protocol):
    """The audit trail and its keyed hash (the store: ``db/chain.py``)."""

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int: ...

    def keyed_hash(self, text: str) -> str: ...


def _plain(value: str, what: str) -> str:
    """``value`` with its whitespace collapsed; control and format characters refused."""
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co") for c in value if c not in "\t"):
        raise InspectionError(
            f"{what}: control characters", code=InspectionCode.INSPECT_QUERY_INVALID
        )
    return " ".join(value.split())


def _purpose(purpose: str) -> str:
    if not isinstance(purpose, str) or len(purpose) > 4 * MAX_PURPOSE:
        raise InspectionError("purpose", code=InspectionCode.INSPECT_PURPOSE_INVALID)
    try:
        text = _plain(purpose, "purpose")
    except InspectionError:
        raise InspectionError("purpose", code=InspectionCode.INSPECT_PURPOSE_INVALID) from None
    if not MIN_PURPOSE <= len(text) <= MAX_PURPOSE:
        raise InspectionError(
            "purpose: 3-200 characters", code=InspectionCode.INSPECT_PURPOSE_INVALID
        )
    return text


def checked_purpose(purpose: str) -> str:
    """The stated purpose of a query, checked (3-200 characters of plain text) and with
    its whitespace collapsed; INSPECT_PURPOSE_INVALID otherwise."""
    return _purpose(purpose)


def id_number_checked(value: str) -> str:
    """An identity number as searched: upper case, without spaces, dashes or dots, 1-20
    letters or digits; QUERY_TOO_LONG or INSPECT_QUERY_INVALID otherwise."""
    number = _id_number(value)
    assert number is not None
    return number


def file_number_checked(value: int) -> int:
    """A file number (1 to 2**62 - 1); INSPECT_QUERY_INVALID otherwise."""
    number = _positive(value, "file")
    assert number is not None
    return number


def _text(value: str | None, what: str) -> str | None:
    if value is None:
        return None
    if len(value) > MAX_QUERY:
        raise InspectionError(
            f"{what}: over {MAX_QUERY} characters", code=InspectionCode.QUERY_TOO_LONG
        )
    text = _plain(value, what)
    if not text:
        return None
    if len(text) < 2:
        raise InspectionError(
            f"{what}: at least 2 characters", code=InspectionCode.INSPECT_QUERY_INVALID
        )
    return text


def _id_number(value: str | None) -> str | None:
    if value is None:
        return None
    if len(value) > MAX_QUERY:
        raise InspectionError("id: too long", code=InspectionCode.QUERY_TOO_LONG)
    number = "".join(c for c in value.upper() if c not in " -.")
    if not _ID.fullmatch(number):
        raise InspectionError(
            "id: 1-20 letters or digits", code=InspectionCode.INSPECT_QUERY_INVALID
        )
    return number


def _positive(value: int | None, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**62:
        raise InspectionError(
            f"{what}: a positive number", code=InspectionCode.INSPECT_QUERY_INVALID
        )
    return value


class InspectionService:
    """Searches and timelines of the visitor file for the gaming inspectors (art. 20.4).
    Read-only by design: no method here changes the file; each call appends one audit
    entry (INSPECT_SEARCH, INSPECT_TIMELINE) and nothing else."""

    def __init__(self, reader: InspectionReader, audit: InspectionAudit, clock: Clock) -> None:
        self._reader = reader
        self._audit = audit
        self._clock = clock

    def search(
        self,
        operator: Operator,
        purpose: str,
        *,
        name: str | None = None,
        id_number: str | None = None,
        card: int | None = None,
        file_number: int | None = None,
        date_from: date | None = None,
        date_to: date | None = None,
        observation: str | None = None,
        limit: int = 200,
    ) -> Sequence[Visitor]:
        """Visitors matching every criterion given (at least one): ``name`` accent- and
        case-insensitive word prefixes; ``id_number`` the document's number; ``card``
        a card number; ``date_from``/``date_to`` Madrid days with a visit; ``observation``
        text found in an observation."""
        checked = check_search(
            self._audit,
            operator,
            purpose,
            name=name,
            id_number=id_number,
            card=card,
            file_number=file_number,
            date_from=date_from,
            date_to=date_to,
            observation=observation,
            limit=limit,
        )
        found = self._reader.inspect_visitors(checked.criteria, checked.limit)
        details = dict(checked.details)
        details["results"] = str(len(found))
        self._audit.append(
            operator.username, "INSPECT_SEARCH", "file:search", self._clock.now(), details
        )
        return found

    def timeline(self, operator: Operator, purpose: str, file_number: int) -> Timeline:
        """One person's visits, oldest first, each with its verdict, reasons and card."""
        role = allowed_role(operator)
        why = _purpose(purpose)
        number = _positive(file_number, "file")
        assert number is not None
        found = read_timeline(self._reader, number)
        # recorded before answering, found or not: every query is recorded (art. 20.4)
        self._audit.append(
            operator.username,
            "INSPECT_TIMELINE",
            f"file:{number}",
            self._clock.now(),
            {"purpose": why, "role": role.value, "found": "yes" if found else "no"},
        )
        if found is None:
            raise InspectionError("no such file", code=InspectionCode.INSPECT_FILE_UNKNOWN)
        return found


def allowed_role(operator: Operator) -> Role:
    """The role the operator queries with: INSPECTOR, else DIRECTOR (art. 20.4);
    INSPECTOR_ROLE_REQUIRED for anyone else."""
    for role in (Role.INSPECTOR, Role.DIRECTOR):
        if operator.has(role):
            return role
    raise InspectionError(
        "the INSPECTOR role (or the director's) is needed",
        code=InspectionCode.INSPECTOR_ROLE_REQUIRED,
    )


def check_search(
    audit: InspectionAudit,
    operator: Operator,
    purpose: str,
    *,
    name: str | None = None,
    id_number: str | None = None,
    card: int | None = None,
    file_number: int | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
    observation: str | None = None,
    limit: int = 200,
) -> CheckedSearch:
    """The role, the purpose and the criteria of a search checked, before any read,
    with the audit details that name the query without showing it (``audit`` gives the
    keyed hash). :meth:`InspectionService.search` and an export of the same search
    (``admission.reports``) both use it."""
    role = allowed_role(operator)
    why = _purpose(purpose)
    criteria = SearchCriteria(
        name=_text(name, "name"),
        id_number=_id_number(id_number),
        card=_positive(card, "card"),
        file_number=_positive(file_number, "file"),
        visits_from=None if date_from is None else madrid_day_start(date_from),
        visits_until=None if date_to is None else madrid_day_start(date_to + timedelta(days=1)),
        observation=_text(observation, "observation"),
    )
    if date_from is not None and date_to is not None and date_from > date_to:
        raise InspectionError("from after to", code=InspectionCode.INSPECT_DATE_RANGE)
    if criteria == SearchCriteria():
        raise InspectionError("no criterion", code=InspectionCode.INSPECT_NO_CRITERIA)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InspectionError("limit: 1-500", code=InspectionCode.INSPECT_QUERY_INVALID)
    details = search_details(audit, why, role, criteria, date_from, date_to)
    return CheckedSearch(role, why, criteria, limit, details)


def read_timeline(reader: InspectionReader, file_number: int) -> Timeline | None:
    """The timeline of ``file_number`` (None when there is no such file), read without
    a check or an audit entry: the caller has done both (:meth:`InspectionService.
    timeline`, or an export in ``admission.reports``)."""
    visitor = reader.visitor(file_number)
    if visitor is None:
        return None
    entries = tuple(
        TimelineEntry(v, None if v.card_number is None else reader.card(v.card_number))
        for v in reader.visits(file_number)
    )
    return Timeline(visitor, entries)


def search_details(
    audit: InspectionAudit,
    purpose: str,
    role: Role,
    criteria: SearchCriteria,
    date_from: date | None,
    date_to: date | None,
) -> dict[str, str]:
    """The criteria as the trail keeps them: names, numbers and free text as keyed
    hashes (the trail names a query without showing it, as ``visitor search``)."""
    out = {"purpose": purpose, "role": role.value}
    if criteria.name is not None:
        out["name"] = audit.keyed_hash(criteria.name.lower())
    if criteria.id_number is not None:
        out["id"] = audit.keyed_hash(criteria.id_number)
    if criteria.observation is not None:
        out["observation"] = audit.keyed_hash(criteria.observation.lower())
    if criteria.card is not None:
        out["card"] = str(criteria.card)
    if criteria.file_number is not None:
        out["file"] = str(criteria.file_number)
    if date_from is not None:
        out["from"] = date_from.isoformat()
    if date_to is not None:
        out["to"] = date_to.isoformat()
    return out

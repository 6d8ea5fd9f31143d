"""Ports (STYLE.md rule 6): small Protocols that db/ and hardware/ implement.

Every port has a fake beside its real adapter. Methods raise
:class:`admission.errors.AdmissionError` subclasses, never library exceptions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Protocol

from admission.identity import IdentityKey
from admission.records import (
    AdmissionEntry,
    AuditAnchor,
    AuditCheck,
    AuditHead,
    Ban,
    CardRecord,
    Observation,
    PurgeReport,
    RecordedAdmission,
    StaffMember,
    Visitor,
    VisitRecord,
)
from admission.registry.port import InterdictionRegistry

__all__ = [
    "AuditTrail",
    "BanList",
    "CardBook",
    "Clock",
    "InterdictionRegistry",
    "PeopleListings",
    "Retention",
    "StaffList",
    "VisitorFile",
]


class Clock(Protocol):
    """Injected clock: returns an aware UTC datetime. Tests never patch time."""

    def now(self) -> datetime: ...


class VisitorFile(Protocol):
    """The visitor file (art. 20.3, R2)."""

    def find_visitor(self, identity: IdentityKey) -> Visitor | None: ...

    def visitor(self, file_number: int) -> Visitor | None: ...

    def search_visitors(self, text: str, limit: int = 50) -> Sequence[Visitor]:
        """Accent- and case-insensitive search on names, prefix match per word."""
        ...

    def visits(self, file_number: int) -> Sequence[VisitRecord]: ...

    def observations(self, file_number: int) -> Sequence[Observation]: ...

    def add_observation(
        self, file_number: int, text: str, author: str, at: datetime
    ) -> Observation:
        """A free-text observation (art. 20.3), audited with its row; NotFoundError for a
        file number the file does not hold."""
        ...

    def record_admission(self, entry: AdmissionEntry) -> RecordedAdmission:
        """Upsert the visitor, insert the visit and, when given, the card with the next
        gapless number — all in ONE transaction (art. 22.1)."""
        ...


class CardBook(Protocol):
    """Entry cards (tarjetas de entrada, art. 22)."""

    def card(self, number: int) -> CardRecord | None: ...

    def open_card(
        self, identity: IdentityKey, on: date, since: date | None = None
    ) -> CardRecord | None:
        """The newest card of this identity, not voided, valid on a day from ``since``
        (the first day of the session running, past midnight) to Madrid date ``on``
        (art. 22: the card is nominative and personal, one valid card per person)."""
        ...

    def mark_printed(self, number: int, at: datetime) -> None: ...

    def void_card(self, number: int, reason: str, actor: str, at: datetime) -> None: ...

    def record_reprint(self, number: int, reason: str, actor: str, at: datetime) -> None: ...


@dataclass(frozen=True, slots=True)
class DeskFacts:
    """What the file says of one identity at the desk, read at once: its bans in force,
    whether it is staff, its open card and its file (arts. 20-22)."""

    bans: tuple[Ban, ...]
    staff: StaffMember | None
    open_card: CardRecord | None
    visitor: Visitor | None


class FactsReader(Protocol):
    """The desk's reads of one presentation together: one round trip on the server."""

    def desk_facts(
        self, identity: IdentityKey, at: datetime, on: date, since: date | None = None
    ) -> DeskFacts:
        """:meth:`BanList.active_bans` at ``at``, :meth:`StaffList.staff_member`,
        :meth:`CardBook.open_card` on ``on`` from ``since`` and
        :meth:`VisitorFile.find_visitor`."""
        ...


class BanList(Protocol):
    """Internal bans (art. 21.2-3, R5)."""

    def active_bans(self, identity: IdentityKey, at: datetime) -> Sequence[Ban]: ...

    def add_ban(
        self,
        identity: IdentityKey,
        reason: str,
        decided_by: str,
        at: datetime,
        expires_at: datetime | None = None,
    ) -> Ban: ...

    def lift_ban(self, ban_id: int, reason: str, actor: str, at: datetime) -> None: ...


class StaffList(Protocol):
    """Casino staff and game directors (art. 18, R15)."""

    def staff_member(self, identity: IdentityKey) -> StaffMember | None: ...

    def add_staff(self, member: StaffMember, actor: str, at: datetime) -> None: ...


class PeopleListings(Protocol):
    """The lists beyond one person the director reads: the staff (art. 18, R15) and
    every ban in force (art. 21.2-3, R5). Both show personal data: the caller audits
    the reading (art. 20.4)."""

    def staff_members(self, limit: int = 500) -> Sequence[StaffMember]:
        """Staff members, active or not, by name; at most ``limit``."""
        ...

    def bans_in_force(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        """Bans neither lifted nor expired at ``at``, newest first; at most ``limit``."""
        ...

    def bans_ended(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        """The history: bans lifted or expired by ``at`` (kept, art. 21.3: dated and
        reasoned), newest first; at most ``limit``."""
        ...


class AuditTrail(Protocol):
    """Append-only audit trail, keyed and chained, committing to the rows it records
    (art. 20.4; the game director answers for the files, art. 14.1.b)."""

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int: ...

    def verify(
        self, anchors: Sequence[AuditAnchor] = (), *, settings: Mapping[str, str] | None = None
    ) -> AuditCheck:
        """The whole chain, the rows against it, and the heads kept outside the file;
        ``settings`` (admission/settings_record.py) against the newest recorded."""
        ...

    def head(self) -> AuditHead:
        """The newest entry, to be kept outside the file (AuditAnchor)."""
        ...


class Retention(Protocol):
    """Six-month retention (art. 20.4, R3)."""

    def purge(self, cutoff: datetime) -> PurgeReport: ...

    def newest_event(self) -> datetime | None:
        """The latest instant the file records (a visit, a card event, an audit entry):
        the clock must not be behind it, a purge must not run far ahead of it."""
        ...


def madrid_date(at: datetime) -> date:
    """The Madrid calendar date of an aware datetime (ages, validity, closing hours)."""
    from zoneinfo import ZoneInfo  # stdlib; tzdata package on Windows

    return at.astimezone(ZoneInfo("Europe/Madrid")).date()


def madrid_day_start(day: date) -> datetime:
    """The first instant of a Madrid calendar day, in UTC (the file stores UTC): the
    bounds of a day's visits for the counters, the inspectors and the day book."""
    from zoneinfo import ZoneInfo  # stdlib; tzdata package on Windows

    return datetime.combine(day, time(), tzinfo=ZoneInfo("Europe/Madrid")).astimezone(UTC)

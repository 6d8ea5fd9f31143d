"""The visitor file's ports (admission/ports.py: VisitorFile, CardBook, BanList...),
written once for both stores: each method runs one rule of db/cards.py, db/visitors.py...
in one transaction of the store's dialect (db/tx.py). ``SqlCipherStore`` and ``PgStore``
add only how they open, lock, retry and seal."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any, TypeVar

from admission.data_protection import MonthCount, MonthSpan, RetentionTotals
from admission.identity import IdentityKey
from admission.inspection import SearchCriteria
from admission.records import (
    AdmissionEntry,
    AuditEntry,
    AuditHead,
    Ban,
    CardRecord,
    Observation,
    RecordedAdmission,
    StaffMember,
    Visitor,
    VisitRecord,
    check_new_ban,
)
from admission.reports import AccessReport, DayBookLine, FigureCounts
from db import cards, chain, data_protection, inspection, people, reports, retention, visitors

T = TypeVar("T")


class FilePorts:
    """The ports over :meth:`read` and :meth:`write`, which each store provides."""

    def read(self, work: Callable[[Any], T]) -> T:  # pragma: no cover - each store's own
        raise NotImplementedError

    def write(self, work: Callable[[Any], T]) -> T:  # pragma: no cover - each store's own
        raise NotImplementedError

    # -- AuditTrail (art. 20.4; db/chain.py) and the file's settings -------------------------
    # verify() is each store's: the snapshot it reads in and where its key comes from

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int:
        """Append one entry in its own transaction; its ``seq``."""
        return int(self.write(lambda tx: tx.audit(actor, action, subject, at, details)))

    def head(self) -> AuditHead:
        """The newest entry: its seq and digest, to be printed outside the file."""
        return self.read(chain.head)

    def audit_entries(self, since_seq: int = 0, limit: int = 1000) -> list[AuditEntry]:
        """Entries after ``since_seq``, oldest first (inspector reports)."""
        return self.read(lambda tx: chain.entries(tx, since_seq, limit))

    def secret(self, name: str) -> bytes:
        """A random 32-byte secret created on first use (e.g. ``secret("card_code")``)."""
        return self.write(lambda tx: chain.secret_in(tx, name))

    def keyed_hash(self, text: str) -> str:
        """``hmac:`` + 16 hex under the file's subject secret (db/chain.py)."""
        return chain.keyed_hash(self.secret(chain.SUBJECT_SECRET), text)

    def get_setting(self, key: str) -> str | None:
        return self.read(lambda tx: chain.get_setting(tx, key))

    def set_setting(self, key: str, value: str) -> None:
        self.write(lambda tx: chain.set_setting(tx, key, value))

    # -- VisitorFile (art. 20.3, R2) ---------------------------------------------------------

    def find_visitor(self, identity: IdentityKey) -> Visitor | None:
        return self.read(lambda tx: visitors.find(tx, identity))

    def visitor(self, file_number: int) -> Visitor | None:
        return self.read(lambda tx: visitors.by_number(tx, file_number))

    def search_visitors(self, text: str, limit: int = 50) -> Sequence[Visitor]:
        """Accent- and case-insensitive search on names, prefix match per word."""
        return self.read(lambda tx: visitors.search(tx, text, limit))

    def visits(self, file_number: int) -> Sequence[VisitRecord]:
        return self.read(lambda tx: visitors.visits(tx, file_number))

    def observations(self, file_number: int) -> Sequence[Observation]:
        return self.read(lambda tx: visitors.observations(tx, file_number))

    def add_observation(
        self, file_number: int, text: str, author: str, at: datetime
    ) -> Observation:
        """A free-text observation (art. 20.3), audited with its row."""
        return self.write(lambda tx: visitors.add_observation(tx, file_number, text, author, at))

    def record_admission(self, entry: AdmissionEntry) -> RecordedAdmission:
        """The visitor, the visit and its card in ONE transaction (art. 22.1), one valid
        card per person (art. 22): db/visitors.py."""
        return self.write(lambda tx: visitors.record_admission(tx, entry))

    # -- CardBook (art. 22) ------------------------------------------------------------------

    def open_card(
        self, identity: IdentityKey, on: date, since: date | None = None
    ) -> CardRecord | None:
        """The newest card of this identity, not voided, valid on Madrid date ``on`` or
        on a day from ``since`` (the session's first day) to ``on`` (art. 22)."""
        return self.read(lambda tx: cards.open_card(tx, identity, on, since))

    def card(self, number: int) -> CardRecord | None:
        return self.read(lambda tx: cards.card(tx, number))

    def card_events(self, number: int) -> list[tuple[datetime, str, str, str]]:
        """(at, kind, reason, actor) of one card, oldest first."""
        return self.read(lambda tx: cards.card_events(tx, number))

    def last_card_number(self) -> int:
        """The highest number ever issued (0 when none), even if retention erased it."""
        return self.read(cards.last_card_number)

    def mark_printed(self, number: int, at: datetime) -> None:
        """A successful print: ISSUED/PRINTED -> PRINTED, print_count + 1."""
        self.write(lambda tx: cards.mark_printed(tx, number, at))

    def void_card(self, number: int, reason: str, actor: str, at: datetime) -> None:
        cards.require_reason(reason)
        self.write(lambda tx: cards.void_card(tx, number, reason, actor, at))

    def record_reprint(self, number: int, reason: str, actor: str, at: datetime) -> None:
        """A reprint of the same number is requested (print_count grows on mark_printed)."""
        cards.require_reason(reason)
        self.write(lambda tx: cards.record_reprint(tx, number, reason, actor, at))

    # -- BanList (art. 21.2-3), StaffList (art. 18), PeopleListings --------------------------

    def bans(self, identity: IdentityKey) -> Sequence[Ban]:
        """Every ban of this identity, lifted and expired ones included."""
        return self.read(lambda tx: people.bans(tx, identity))

    def active_bans(self, identity: IdentityKey, at: datetime) -> Sequence[Ban]:
        return self.read(lambda tx: people.active_bans(tx, identity, at))

    def bans_in_force(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        """Bans neither lifted nor expired at ``at``, newest first. Personal data: the
        caller audits the reading (art. 20.4)."""
        return self.read(lambda tx: people.bans_in_force(tx, at, limit))

    def bans_ended(self, at: datetime, limit: int = 500) -> Sequence[Ban]:
        """Bans lifted or expired by ``at``, newest first. Personal data: the caller
        audits the reading (art. 20.4)."""
        return self.read(lambda tx: people.bans_ended(tx, at, limit))

    def add_ban(
        self,
        identity: IdentityKey,
        reason: str,
        decided_by: str,
        at: datetime,
        expires_at: datetime | None = None,
    ) -> Ban:
        check_new_ban(reason, at, expires_at)
        return self.write(
            lambda tx: people.add_ban(tx, identity, reason, decided_by, at, expires_at)
        )

    def lift_ban(self, ban_id: int, reason: str, actor: str, at: datetime) -> None:
        people.require_lift_reason(reason)
        self.write(lambda tx: people.lift_ban(tx, ban_id, reason, actor, at))

    def staff_member(self, identity: IdentityKey) -> StaffMember | None:
        return self.read(lambda tx: people.staff_member(tx, identity))

    def staff_members(self, limit: int = 500) -> Sequence[StaffMember]:
        """Staff members, active or not, by name."""
        return self.read(lambda tx: people.staff_members(tx, limit))

    def add_staff(self, member: StaffMember, actor: str, at: datetime) -> None:
        """Add or update (e.g. deactivate) a staff member."""
        self.write(lambda tx: people.add_staff(tx, member, actor, at))

    # -- the reports, data protection and retention (arts. 14.1.b, 20.4; GDPR) -------------

    def day_book_lines(self, start: datetime, until: datetime) -> Sequence[DayBookLine]:
        """The visits with ``start <= at < until`` (UTC), by time, each with its visitor
        and the card it gave (personal data: the caller audits the reading)."""
        return self.read(lambda tx: reports.day_book_lines(tx, start, until))

    def figure_counts(self, start: datetime, until: datetime) -> FigureCounts:
        return self.read(lambda tx: reports.figure_counts(tx, start, until))

    def access_report_data(self, file_number: int) -> AccessReport | None:
        """Everything held about one person (GDPR art. 15), None when no such file."""
        return self.read(lambda tx: reports.access_report(tx, file_number))

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
    ) -> Visitor:
        """Set the visitor's name (checked by the service) and audit it: one transaction."""
        return self.write(
            lambda tx: data_protection.rectify_visitor_name(
                tx, file_number, surname, given_names, actor=actor, role=role, reason=reason, at=at
            )
        )

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
    ) -> Observation:
        """Set an observation's text (author and date kept) and audit it: one transaction."""
        return self.write(
            lambda tx: data_protection.rectify_observation_text(
                tx, file_number, observation_id, text, actor=actor, role=role, reason=reason, at=at
            )
        )

    def retention_totals(self, cutoff: datetime) -> RetentionTotals:
        return self.read(lambda tx: data_protection.retention_totals(tx, cutoff))

    def retention_months(self, months: Sequence[MonthSpan]) -> tuple[MonthCount, ...]:
        """One count per span, in the order given."""
        return self.read(lambda tx: data_protection.retention_months(tx, months))

    def newest_event(self) -> datetime | None:
        """The latest instant the file records (a visit, a card event, an audit entry)."""
        return self.read(retention.newest_event)

    def inspect_visitors(self, criteria: SearchCriteria, limit: int) -> Sequence[Visitor]:
        """The gaming inspectors' search (art. 20.4), read only: see db/inspection.py."""
        return self.read(lambda tx: inspection.inspect_visitors(tx, criteria, limit))

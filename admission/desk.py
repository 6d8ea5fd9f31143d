"""The AdmissionDesk service: the one flow that the GUI, the CLI and the readers drive.

identify -> check (RIAJ, internal bans, staff, age, document, hours, a card already
held) -> verdict -> record the visit and, when admitted, the numbered card in one
transaction. Every attempt is recorded with the registry check it used (R1); refusals
get no card, and nobody gets a second card while one is valid (art. 22: the card is
nominative and personal). The clock is injected; nothing here touches Qt, SQL or devices.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from enum import unique
from typing import Protocol

from admission.cards.catalogue import CardCatalogue
from admission.chip import ChipCheck
from admission.clock import FUTURE_TOLERANCE, ClockCode
from admission.codes import Code
from admission.errors import InvalidStateError, NotFoundError, StoreError
from admission.hours import ALWAYS_OPEN, OpeningHours
from admission.identity import IdentityKey
from admission.ports import (
    AuditTrail,
    BanList,
    CardBook,
    Clock,
    FactsReader,
    Retention,
    StaffList,
    VisitorFile,
    madrid_date,
)
from admission.records import (
    AdmissionEntry,
    Ban,
    CardRecord,
    NewCard,
    PurgeReport,
    RecordedAdmission,
    RecordErrorCode,
    StaffMember,
    StaffRole,
    Visitor,
)
from admission.registry.port import InterdictionRegistry, PersonDetails, RegistryAnswer
from admission.retention import RETENTION_MONTHS, retention_cutoff
from admission.verdict import (
    AdmissionFacts,
    AdmissionPolicy,
    DocumentFacts,
    Outcome,
    Reason,
    Verdict,
    decide,
)

# Reasons a director may take responsibility for (art. 23.5 exceptional card, staff
# with the director's leave, a registry or a chip that cannot answer when so
# configured). Minors, RIAJ listings, internal bans and a forged chip can never be
# overridden.
OVERRIDABLE = frozenset(
    {
        Reason.BIRTH_DATE_UNKNOWN,
        Reason.CASINO_STAFF,
        Reason.REGISTRY_UNVERIFIABLE,
        Reason.CHIP_UNVERIFIABLE,
    }
)
CHIP_AUDIT = "CHIP_CHECKED"  # the audit entry of a visit whose document's chip was read
EVALUATION_MAX_AGE_SECONDS = 120  # a verdict older than this is evaluated again
OUTCOME_ATTEMPTS = 3  # asks of one admission whose answer was lost, before the clerk is told
OFFICIAL = "OFFICIAL"  # verdict recorded for officials on duty (art. 24, R13)


@unique
class DeskErrorCode(Code):
    """What the desk refuses to record (the verdict's reasons are :class:`Reason`)."""

    # art. 23.5: an exceptional card is issued under the game director's named responsibility
    EXCEPTIONAL_NEEDS_DIRECTOR = "EXCEPTIONAL_NEEDS_DIRECTOR"
    DIRECTOR_REQUIRED = "DIRECTOR_REQUIRED"  # an override names the director who decides
    EVALUATION_STALE = "EVALUATION_STALE"  # older than EVALUATION_MAX_AGE_SECONDS: read again
    OFFICIAL_NEEDS_CAPACITY = "OFFICIAL_NEEDS_CAPACITY"  # art. 24.2: identity and capacity
    CARD_NOT_FOUND = "CARD_NOT_FOUND"
    NOT_DISMISSIBLE = "NOT_DISMISSIBLE"  # only an ADMIT on screen is dismissed by the clerk
    # the server's answer was lost while it committed and it could not be asked again:
    # the clerk presses again, and the admission is recorded once under its id
    OUTCOME_UNKNOWN = "ADMISSION_OUTCOME_UNKNOWN"


class DeskDocument(DocumentFacts, Protocol):
    """What the desk needs from an identity document (admission.documents.IdentityDocument):
    the facts the rules read, plus what the visitor file records."""

    @property
    def identity(self) -> IdentityKey: ...
    @property
    def surname(self) -> str: ...
    @property
    def given_names(self) -> str: ...
    @property
    def nationality(self) -> str: ...
    @property
    def document_number(self) -> str: ...
    @property
    def id_number(self) -> str: ...


# the registry's checks, run beside the file's reads (a few desks of one process at once)
_BESIDE = ThreadPoolExecutor(max_workers=4, thread_name_prefix="registry-check")


class DeskStore(
    VisitorFile, CardBook, BanList, StaffList, FactsReader, AuditTrail, Retention, Protocol
):
    """Everything the desk needs from the visitor file."""


@dataclass(frozen=True, slots=True)
class DeskConfig:
    casino_id: str
    desk_id: str
    catalogue: CardCatalogue
    policy: AdmissionPolicy = field(default_factory=AdmissionPolicy)
    hours: OpeningHours = ALWAYS_OPEN
    retention_months: int = RETENTION_MONTHS


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The verdict before anything is recorded (shown on screen)."""

    document: DeskDocument
    verdict: Verdict
    registry: RegistryAnswer
    visitor: Visitor | None
    bans: Sequence[Ban]
    staff: StaffMember | None
    at: datetime
    exceptional: bool = False
    held_card: CardRecord | None = None  # a card of this person valid today (art. 22)
    # the id its recording is made under, every attempt alike (AdmissionEntry)
    admission_id: str = field(default_factory=lambda: str(uuid.uuid4()))


@dataclass(frozen=True, slots=True)
class AdmissionResult:
    evaluation: Evaluation
    verdict: Verdict  # final: an authorised SUPERVISOR case is recorded as ADMIT
    recorded: RecordedAdmission
    card: CardRecord | None  # the card issued now (to print), None when none was
    authorised_by: str = ""
    # The card the visitor already held (art. 22): the visit was a re-entry on it
    # (ALREADY_ADMITTED: reprint it if lost), or admitted on it (a pass, several_entries).
    existing_card: CardRecord | None = None

    @property
    def admitted(self) -> bool:
        if self.card is not None:
            return True
        return self.existing_card is not None and self.verdict.outcome is Outcome.ADMIT

    @property
    def reentry(self) -> bool:
        """A re-entry on the card already held (art. 22): neither a refusal nor a visit."""
        return self.verdict.outcome is Outcome.ALREADY_ADMITTED


class AdmissionDesk:
    def __init__(
        self,
        *,
        store: DeskStore,
        registry: InterdictionRegistry,
        clock: Clock,
        config: DeskConfig,
        clock_guard: bool = True,
    ) -> None:
        self._store = store
        self._registry = registry
        self._clock = clock
        self.config = config
        # off only for a replay on a clock set by hand (ADMISSION_CLOCK_OVERRIDE)
        self._clock_guard = clock_guard
        self._unknown: set[str] = set()  # admission ids whose outcome was not learnt

    # -- the flow -------------------------------------------------------------------
    def evaluate(self, document: DeskDocument, *, exceptional: bool = False) -> Evaluation:
        at = self._clock.now()
        identity = document.identity
        person = PersonDetails(
            document.given_names,
            document.surname,
            document.birth_date,
            support_number=_support_number(document),
        )
        # every visitor, every time (R1), asked while the file is read: on the casino's
        # server each is one round trip, and an annex room's desk is across town
        asked = _BESIDE.submit(self._registry.check, identity, person)
        found = self._store.desk_facts(identity, at, madrid_date(at), self._session_day(at))
        registry = asked.result()
        bans, staff = found.bans, found.staff
        facts = AdmissionFacts(
            document=document,
            registry=registry,
            bans=bans,
            staff=staff,
            session=self.config.hours.state_at(at),
            exceptional=exceptional,
            chip=chip_of(document),
        )
        verdict = decide(facts, self.config.policy, at, madrid_date(at))
        held = found.open_card
        if held is not None and held.card_type not in self.config.catalogue.reentry_types:
            verdict = _already_admitted(verdict)
        return Evaluation(
            document,
            verdict,
            registry,
            found.visitor,
            bans,
            staff,
            at,
            exceptional,
            held,
        )

    def admit(
        self,
        document: DeskDocument,
        *,
        operator: str,
        card_type: str | None = None,
        authorised_by: str = "",
        exceptional: bool = False,
    ) -> AdmissionResult:
        """Evaluate and record. ADMIT issues a card; SUPERVISOR issues one only when a
        director named in ``authorised_by`` takes responsibility for overridable reasons."""
        if exceptional and not authorised_by:
            raise InvalidStateError(
                "an exceptional card needs the director's name",
                code=DeskErrorCode.EXCEPTIONAL_NEEDS_DIRECTOR,
            )
        evaluation = self.evaluate(document, exceptional=exceptional)
        return self.record(
            evaluation, operator=operator, card_type=card_type, authorised_by=authorised_by
        )

    def record(
        self,
        evaluation: Evaluation,
        *,
        operator: str,
        card_type: str | None = None,
        authorised_by: str = "",
    ) -> AdmissionResult:
        """Record an evaluation shown on screen (the clerk's key press), without asking
        the registry again. A stale evaluation is refused: the verdict must be current."""
        exceptional = evaluation.exceptional
        if exceptional and not authorised_by:
            raise InvalidStateError(
                "an exceptional card needs the director's name",
                code=DeskErrorCode.EXCEPTIONAL_NEEDS_DIRECTOR,
            )
        self._check_clock()
        age = (self._clock.now() - evaluation.at).total_seconds()
        # pressed again after a lost answer: the same admission, whatever its age
        again = evaluation.admission_id in self._unknown
        if not again and not 0 <= age <= EVALUATION_MAX_AGE_SECONDS:
            raise InvalidStateError(
                "the verdict on screen is too old; read the document again",
                code=DeskErrorCode.EVALUATION_STALE,
            )
        verdict = evaluation.verdict
        catalogue_type = self.config.catalogue.get(card_type)
        issue = verdict.outcome is Outcome.ADMIT
        overridden = False
        if verdict.outcome is Outcome.SUPERVISOR and authorised_by:
            self._require_director(authorised_by)
            if all(r in OVERRIDABLE for r in verdict.reasons):
                issue = overridden = True
        card = None
        if issue:
            card = catalogue_type.new_card(
                madrid_date(evaluation.at),
                exceptional=exceptional,
                authorised_by=authorised_by if (exceptional or overridden) else "",
            )
        final = Verdict(Outcome.ADMIT, verdict.reasons) if overridden else verdict
        recorded = self._record(self._entry(evaluation, final, operator, card))
        self._audit_chip(evaluation, recorded, operator)
        held = self._held(evaluation, recorded)
        if card is not None and recorded.card_number is None and held is not None:
            # Another desk issued this person's card meanwhile: the store kept it to one
            # card in its transaction (art. 22) and recorded the visit as a re-entry
            # (admission.entry_rules.second_card), or as admitted on a pass.
            if held.card_type not in self.config.catalogue.reentry_types:
                final = Verdict(Outcome.ALREADY_ADMITTED, _with_held(final.reasons))
            overridden = False
        if overridden:  # (the store audits exceptional cards itself, in the same txn)
            self._store.append(
                authorised_by,
                "OVERRIDE",
                f"file:{recorded.file_number}",
                evaluation.at,
                {"reasons": ",".join(verdict.codes), "card": str(recorded.card_number or "")},
            )
        issued = recorded.card  # as recorded in the admission's own transaction
        if issued is None and recorded.card_number is not None:  # asked again: read it
            issued = self._store.card(recorded.card_number)
        return AdmissionResult(
            evaluation, final, recorded, issued, authorised_by if issued else "", held
        )

    def dismiss(self, evaluation: Evaluation, *, operator: str) -> AdmissionResult:
        """An ADMIT on screen the clerk dismissed (Esc) instead of confirming: recorded
        as NOT_ADMITTED with DISMISSED_BY_CLERK, no card (art. 20.3: the presentation
        is in the file; nobody was admitted). However old the verdict: nothing is
        granted by it."""
        if evaluation.verdict.outcome is not Outcome.ADMIT:
            raise InvalidStateError(
                "only an admission on screen is dismissed", code=DeskErrorCode.NOT_DISMISSIBLE
            )
        self._check_clock()
        final = Verdict(Outcome.NOT_ADMITTED, (Reason.DISMISSED_BY_CLERK,))
        recorded = self._record(self._entry(evaluation, final, operator, None))
        self._audit_chip(evaluation, recorded, operator)
        return AdmissionResult(evaluation, final, recorded, None, "", evaluation.held_card)

    def _record(self, entry: AdmissionEntry) -> RecordedAdmission:
        """``record_admission``, asked again under the same admission id when a server's
        answer was lost while it committed: the store records the admission once and
        answers it as recorded (art. 22.1: one number, never two). When the server
        cannot be asked, the id is kept: the clerk's next press is the same admission."""
        unknown = False
        for _attempt in range(OUTCOME_ATTEMPTS):
            try:
                recorded = self._store.record_admission(entry)
            except StoreError as err:
                unknown = unknown or (err.outcome_unknown and bool(entry.admission_id))
                if not unknown:
                    raise
                self._unknown.add(entry.admission_id)
                last = err
                continue
            self._unknown.discard(entry.admission_id)
            return recorded
        raise StoreError(
            "the admission may or may not be recorded; press again: it is recorded once",
            code=DeskErrorCode.OUTCOME_UNKNOWN,
        ) from last

    def _audit_chip(
        self, evaluation: Evaluation, recorded: RecordedAdmission, operator: str
    ) -> None:
        """What the document's chip proved, in the audit beside the visit whose verdict
        it weighed on (art. 20.3): its status, code, access, clone check and issuer -
        never a data group or the photo."""
        chip = chip_of(evaluation.document)
        if chip is not None:
            subject = f"visit:{recorded.visit_id}"
            self._store.append(operator, CHIP_AUDIT, subject, evaluation.at, chip_details(chip))

    def _held(self, evaluation: Evaluation, recorded: RecordedAdmission) -> CardRecord | None:
        """The card the visitor already held, as it is now (art. 22)."""
        number = recorded.existing_card
        if number is None and evaluation.held_card is not None:
            number = evaluation.held_card.number
        return None if number is None else self._store.card(number)

    def register_official(
        self, document: DeskDocument, *, capacity: str, operator: str
    ) -> RecordedAdmission:
        """Officials on duty (art. 24, R13): identity and capacity recorded, no card, no
        charge, never admitted to play."""
        capacity = capacity.strip()
        if not capacity or len(capacity) > 120:
            raise InvalidStateError(
                "capacity of the official is required", code=DeskErrorCode.OFFICIAL_NEEDS_CAPACITY
            )
        evaluation = self.evaluate(document)
        entry = replace(
            self._entry(evaluation, evaluation.verdict, operator, None),
            verdict=OFFICIAL,
            official_capacity=capacity,
        )
        return self._store.record_admission(entry)

    # -- cards ----------------------------------------------------------------------
    def void_card(self, number: int, reason: str, actor: str) -> CardRecord:
        self._store.void_card(number, _reason(reason), actor, self._clock.now())
        return self._card(number)

    def reprint_card(self, number: int, reason: str, actor: str) -> CardRecord:
        self._store.record_reprint(number, _reason(reason), actor, self._clock.now())
        return self._card(number)

    def card_printed(self, number: int) -> None:
        self._store.mark_printed(number, self._clock.now())

    # -- bans, staff, retention -----------------------------------------------------
    def add_ban(
        self,
        identity: IdentityKey,
        reason: str,
        decided_by: str,
        expires_at: datetime | None = None,
    ) -> Ban:
        return self._store.add_ban(
            identity, _reason(reason), decided_by, self._clock.now(), expires_at
        )

    def lift_ban(self, ban_id: int, reason: str, actor: str) -> None:
        self._store.lift_ban(ban_id, _reason(reason), actor, self._clock.now())

    def purge(self) -> PurgeReport:
        return self._store.purge(retention_cutoff(self._clock.now(), self.config.retention_months))

    # -- helpers --------------------------------------------------------------------
    def _check_clock(self) -> None:
        """Visit dates and card numbers must stay in order (art. 22.1): a clock gone back
        past the newest record (beyond the seconds desks' clocks differ) stops
        admissions until it is corrected."""
        if not self._clock_guard:
            return
        newest = self._store.newest_event()
        if newest is not None and self._clock.now() < newest - FUTURE_TOLERANCE:
            raise InvalidStateError(
                f"the clock is {newest - self._clock.now()} behind the newest record",
                code=ClockCode.CLOCK_BEHIND_FILE,
            )

    def _card(self, number: int) -> CardRecord:
        card = self._store.card(number)
        if card is None:
            raise NotFoundError("no such card", code=DeskErrorCode.CARD_NOT_FOUND)
        return card

    def _require_director(self, name: str) -> None:
        if not name.strip():
            raise InvalidStateError("director required", code=DeskErrorCode.DIRECTOR_REQUIRED)

    def _entry(
        self, evaluation: Evaluation, verdict: Verdict, operator: str, card: NewCard | None
    ) -> AdmissionEntry:
        doc = evaluation.document
        return AdmissionEntry(
            identity=doc.identity,
            surname=doc.surname,
            given_names=doc.given_names,
            birth_date=doc.birth_date,
            nationality=doc.nationality,
            document_type=str(doc.doc_type),
            # The number the casino records (R2, R7): the DNI/NIE for Spanish documents
            # (not the support number of a DNI card), otherwise the document number.
            document_number=doc.id_number or doc.document_number,
            at=evaluation.at,
            desk_id=self.config.desk_id,
            operator=operator,
            verdict=verdict.outcome.value,
            reasons=verdict.codes,
            registry=evaluation.registry.as_check(),
            card=card,
            reentry_types=self.config.catalogue.reentry_types,
            session_day=self._session_day(evaluation.at),
            admission_id=evaluation.admission_id,
        )

    def _session_day(self, at: datetime) -> date:
        """The Madrid day the session running at ``at`` opened: a one-day card bought
        before midnight covers the rest of that session (art. 22, R7)."""
        today = madrid_date(at)
        for day in (today - timedelta(days=1), today):
            session = self.config.hours.session_for(day)
            if session is not None:
                start, end = session.bounds(day)
                if start <= at < end:
                    return day
        return today


def chip_of(document: DocumentFacts) -> ChipCheck | None:
    """The chip's result the document carries (admission.documents.IdentityDocument.chip);
    None for a document read without its chip."""
    chip = getattr(document, "chip", None)
    return chip if isinstance(chip, ChipCheck) else None


def chip_details(chip: ChipCheck) -> dict[str, str]:
    """The chip's result as the audit and the command line show it: no personal data."""
    return {
        "status": chip.status.value,
        "code": chip.code.value if chip.code is not None else "",
        "access": chip.access,
        "authentication": chip.authentication.value,
        "issuer": chip.issuer,
    }


def _with_held(reasons: Sequence[Reason]) -> tuple[Reason, ...]:
    order = list(Reason)
    return tuple(sorted({*reasons, Reason.ALREADY_ADMITTED}, key=order.index))


def _already_admitted(verdict: Verdict) -> Verdict:
    """The person holds a valid card already (art. 22): no second card, never
    overridable. A re-entry on it (ALREADY_ADMITTED) when nothing else stands in the
    way; still refused (DENY) for a reason of the person found since; not admitted when
    the RIAJ cannot be checked (art. 20.1-2: every visitor, every time)."""
    reasons = _with_held(verdict.reasons)
    if verdict.outcome is Outcome.DENY:
        return Verdict(Outcome.DENY, reasons)
    # (and a chip the policy will not admit unproven: NOT_ADMITTED stays so)
    if Reason.REGISTRY_UNVERIFIABLE in reasons or verdict.outcome is Outcome.NOT_ADMITTED:
        return Verdict(Outcome.NOT_ADMITTED, reasons)
    return Verdict(Outcome.ALREADY_ADMITTED, reasons)


def _support_number(document: DeskDocument) -> str:
    """A Spanish DNI card's support number: its document number when the DNI itself
    travels in the optional data (DNI 3.0/4.0)."""
    if document.id_number and document.id_number != document.document_number:
        return document.document_number
    return ""


def _reason(text: str) -> str:
    cleaned = " ".join(text.split())
    if not cleaned:
        raise InvalidStateError("a reason is required", code=RecordErrorCode.REASON_REQUIRED)
    if len(cleaned) > 500:
        raise InvalidStateError("reason too long", code=RecordErrorCode.REASON_TOO_LONG)
    return cleaned


__all__ = [
    "AdmissionDesk",
    "AdmissionResult",
    "DeskConfig",
    "DeskErrorCode",
    "DeskStore",
    "Evaluation",
    "StaffRole",
    "chip_details",
    "chip_of",
]

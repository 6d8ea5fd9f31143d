"""Admission verdicts: pure rules returning ADMIT, DENY, SUPERVISOR or NOT_ADMITTED with
reason codes.

Sources: art. 21.1 (persons under art. 24.1-2 of Ley 6/2001: minors, persons in
the RIAJ), art. 21.2-3 (internal bans), art. 18 (staff may not play), art. 23.1
(accepted documents), art. 21.4 / 27 (last hour before closing). The most
severe outcome wins; every reason that applies is reported, in a stable order.

A register that cannot be checked is not a refusal of the person: it is NOT_ADMITTED
(the check fails closed, art. 20.1-2) unless the policy lets the director decide. The
document's chip (ICAO 9303, admission.chip) proves the document or not: a FORGED chip is
a refusal nothing waives; a chip that could not be verified is the policy's
``chip_unverifiable_outcome`` (a note beside ADMIT by default). The desk adds
ALREADY_ADMITTED for a person who holds a valid card (art. 22), and NOT_ADMITTED with
DISMISSED_BY_CLERK for an admission the clerk dismissed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import unique
from typing import Protocol

from admission.chip import ChipCheck, ChipStatus
from admission.codes import Code
from admission.hours import SessionState
from admission.records import Ban, StaffMember, StaffRole
from admission.registry.port import RegistryAnswer, RegistryStatus

ADULT_AGE = 18


@unique
class Outcome(Code):
    """The verdict on screen and as recorded (green, amber, red, blue, grey)."""

    ADMIT = "ADMIT"
    SUPERVISOR = "SUPERVISOR"  # the game director decides (amber)
    DENY = "DENY"  # refused for a reason of the person (arts. 21, 23.1)
    # art. 22: the person holds a valid card already - a re-entry on it, neither a
    # refusal nor a new visit; no second card (the one held is reprinted if lost)
    ALREADY_ADMITTED = "ALREADY_ADMITTED"
    # nobody refused the person, yet they were not admitted: the RIAJ could not be
    # checked (art. 20.1-2, fail closed) or the clerk dismissed the admission
    NOT_ADMITTED = "NOT_ADMITTED"


@unique
class Reason(Code):
    """Why a verdict is not a plain ADMIT; the member order is the order reasons are shown."""

    MINOR = "MINOR"  # art. 21.1 and art. 24.1 of Ley 6/2001
    BIRTH_DATE_UNKNOWN = "BIRTH_DATE_UNKNOWN"  # age cannot be checked: the director decides
    REGISTRY_LISTED = "REGISTRY_LISTED"  # in the RIAJ (art. 21.1)
    REGISTRY_UNVERIFIABLE = "REGISTRY_UNVERIFIABLE"  # the RIAJ check got no answer (art. 20.2)
    INTERNAL_BAN = "INTERNAL_BAN"  # the casino's own ban (art. 21.2-3)
    CASINO_STAFF = "CASINO_STAFF"  # off duty: only with the director's leave (art. 18.1.a)
    GAME_DIRECTOR = "GAME_DIRECTOR"  # staff may not play (art. 18.1.b)
    # art. 22: the card is nominative and personal - one valid card per person; the one
    # held is reprinted if lost, never doubled
    ALREADY_ADMITTED = "ALREADY_ADMITTED"
    DOCUMENT_EXPIRED = "DOCUMENT_EXPIRED"
    DOCUMENT_INVALID = "DOCUMENT_INVALID"  # it failed its checks (check digits, letter...)
    DOCUMENT_NOT_ACCEPTED = "DOCUMENT_NOT_ACCEPTED"  # not one of art. 23.1's documents
    # a published specimen or an ICAO 9303 example (UTO): it identifies nobody (art. 23.1);
    # never waived, not even for an exceptional card (art. 23.5)
    SPECIMEN = "SPECIMEN"
    # the chip's signature, chain or hashes fail, or its MRZ is not the printed one: the
    # document is forged or altered (art. 23.1). Never waived: not by the director, not
    # for an exceptional card (art. 23.5), not by any policy. Its value is the chip's
    # own status code: one code, one meaning (admission.catalogue).
    CHIP_FORGED = "CHIP_FORGED"
    LAST_HOUR = "LAST_HOUR"  # admissions stopped in the last hour (art. 21.4)
    CLOSED = "CLOSED"  # outside the opening hours (art. 27)
    # the chip proves nothing either way (no chip, no master list, it would not answer):
    # the policy's chip_unverifiable_outcome; the chip status's own code
    CHIP_UNVERIFIABLE = "CHIP_NOT_VERIFIABLE"
    # an ADMIT on screen the clerk dismissed (Esc) instead of confirming: nobody admitted
    DISMISSED_BY_CLERK = "DISMISSED_BY_CLERK"


class DocumentFacts(Protocol):
    """What the rules need from an identity document (see admission.documents)."""

    @property
    def doc_type(self) -> str: ...
    @property
    def valid(self) -> bool: ...
    @property
    def birth_date(self) -> date | None: ...
    @property
    def expiry_date(self) -> date | None: ...
    @property
    def specimen(self) -> bool: ...


# art. 23.1 (R9): the documents that identify a visitor. A policy may accept fewer of
# them, never another kind: a visa (V, Doc 9303 part 7), a crew member certificate (AC,
# part 5) or any other document is refused whatever ``accepted_types`` lists.
IDENTITY_DOCUMENTS: frozenset[str] = frozenset(
    {"ID_CARD", "PASSPORT", "DRIVING_LICENCE", "RESIDENCE_CARD"}
)


# the outcomes the rules give (and a policy may name); the desk adds the other two
DECIDED = frozenset({Outcome.ADMIT, Outcome.SUPERVISOR, Outcome.DENY})
# a visit recorded with this verdict is a re-entry on a card held (art. 22): not a visit
REENTRY = Outcome.ALREADY_ADMITTED.value
_SEVERITY = {
    Outcome.ADMIT: 0,
    Outcome.SUPERVISOR: 1,
    Outcome.ALREADY_ADMITTED: 2,
    Outcome.NOT_ADMITTED: 3,
    Outcome.DENY: 4,
}


def counts_as_visit(verdict: str) -> bool:
    """A recorded verdict that is a presentation of its own (art. 20.3: the dates of
    successive visits): every one but a re-entry on the card already held."""
    return verdict != REENTRY


@dataclass(frozen=True, slots=True)
class AdmissionPolicy:
    # art. 23.1, R9; only its intersection with IDENTITY_DOCUMENTS is ever accepted
    accepted_types: frozenset[str] = IDENTITY_DOCUMENTS
    unverifiable_outcome: Outcome = Outcome.DENY  # fail closed; SUPERVISOR if configured
    stop_last_hour: bool = False  # art. 21.4: the casino may stop admissions in the last hour
    staff_outcome: Outcome = Outcome.SUPERVISOR  # off-duty staff need the director's leave
    director_outcome: Outcome = Outcome.DENY
    # A chip that proves nothing either way. ADMIT (shown as a note beside the verdict) by
    # default: most documents presented carry no chip (driving licences, older cards) and
    # a casino may have no reader. DENY is shown and recorded as NOT_ADMITTED, as an
    # unverifiable registry: nothing was found against the person, the proof is missing.
    chip_unverifiable_outcome: Outcome = Outcome.ADMIT

    def __post_init__(self) -> None:
        if self.unverifiable_outcome is Outcome.ADMIT:
            raise ValueError("an unverifiable registry check can never admit")
        for outcome in (
            self.unverifiable_outcome,
            self.staff_outcome,
            self.director_outcome,
            self.chip_unverifiable_outcome,
        ):
            if outcome not in DECIDED:
                raise ValueError(f"a policy outcome is one of {sorted(DECIDED)}")


@dataclass(frozen=True, slots=True)
class AdmissionFacts:
    document: DocumentFacts
    registry: RegistryAnswer
    bans: Sequence[Ban] = ()
    staff: StaffMember | None = None
    session: SessionState = SessionState.OPEN
    # art. 23.5: exceptional card without the documents, under the game director's
    # named responsibility — document rules are waived, every other rule applies.
    exceptional: bool = False
    # what the document's chip proved; None: no reader, or the chip was not read
    chip: ChipCheck | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    reasons: tuple[Reason, ...] = field(default=())

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(r.value for r in self.reasons)


def age_on(birth: date, day: date) -> int:
    """Completed years on ``day``. A 29 February birthday is reached on 1 March in
    common years (the later reading, so nobody is admitted a day early)."""
    years = day.year - birth.year
    if (day.month, day.day) < (birth.month, birth.day):
        years -= 1
    return years


def _not_admitted(outcome: Outcome) -> Outcome:
    """A check that could not be made refuses nobody: DENY becomes NOT_ADMITTED."""
    return Outcome.NOT_ADMITTED if outcome is Outcome.DENY else outcome


def _chip_findings(facts: AdmissionFacts, policy: AdmissionPolicy) -> list[tuple[Outcome, Reason]]:
    """The chip's say (art. 23.1: a document that identifies). A forged chip is refused
    outside the exceptional-card waiver (art. 23.5) and whatever the policy; a chip that
    proves nothing is a document rule, waived for an exceptional card like the others."""
    chip = facts.chip
    if chip is None:
        return []
    if chip.status is ChipStatus.FORGED:
        return [(Outcome.DENY, Reason.CHIP_FORGED)]
    if chip.status is ChipStatus.NOT_VERIFIABLE and not facts.exceptional:
        return [(_not_admitted(policy.chip_unverifiable_outcome), Reason.CHIP_UNVERIFIABLE)]
    return []


def decide(facts: AdmissionFacts, policy: AdmissionPolicy, at: datetime, today: date) -> Verdict:
    """The verdict at instant ``at`` whose Madrid calendar date is ``today``."""
    found: list[tuple[Outcome, Reason]] = []
    doc = facts.document

    if facts.session is SessionState.CLOSED:
        found.append((Outcome.DENY, Reason.CLOSED))
    elif facts.session is SessionState.LAST_HOUR and policy.stop_last_hour:
        found.append((Outcome.DENY, Reason.LAST_HOUR))

    if not facts.exceptional:
        if doc.doc_type not in policy.accepted_types & IDENTITY_DOCUMENTS:
            found.append((Outcome.DENY, Reason.DOCUMENT_NOT_ACCEPTED))
        if not doc.valid:
            found.append((Outcome.DENY, Reason.DOCUMENT_INVALID))
        if doc.expiry_date is not None and doc.expiry_date < today:
            found.append((Outcome.DENY, Reason.DOCUMENT_EXPIRED))
    # art. 23.1: a specimen identifies nobody. Outside the exceptional-card waiver
    # (art. 23.5) and independent of the policy: no flag turns it into an admission.
    if doc.specimen:
        found.append((Outcome.DENY, Reason.SPECIMEN))
    found.extend(_chip_findings(facts, policy))

    if doc.birth_date is None:
        found.append((Outcome.SUPERVISOR, Reason.BIRTH_DATE_UNKNOWN))
    elif age_on(doc.birth_date, today) < ADULT_AGE:
        found.append((Outcome.DENY, Reason.MINOR))

    status = facts.registry.status
    if status is RegistryStatus.LISTED:
        found.append((Outcome.DENY, Reason.REGISTRY_LISTED))
    elif status is not RegistryStatus.NOT_LISTED:
        # fail closed (art. 20.1-2): not admitted, yet not a refusal of the person
        found.append((_not_admitted(policy.unverifiable_outcome), Reason.REGISTRY_UNVERIFIABLE))

    if any(ban.active_at(at) for ban in facts.bans):
        found.append((Outcome.DENY, Reason.INTERNAL_BAN))

    if facts.staff is not None and facts.staff.active:
        if facts.staff.role is StaffRole.DIRECTOR:
            found.append((policy.director_outcome, Reason.GAME_DIRECTOR))
        else:
            found.append((policy.staff_outcome, Reason.CASINO_STAFF))

    if not found:
        return Verdict(Outcome.ADMIT)
    outcome = max((o for o, _ in found), key=_SEVERITY.__getitem__)
    order = list(Reason)
    reasons = tuple(sorted({r for _, r in found}, key=order.index))
    return Verdict(outcome, reasons)

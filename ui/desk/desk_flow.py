"""The desk window's flow without Qt: what the controller asks the services, as plain
functions run on the store worker's thread.

The window shows the verdict of :meth:`AdmissionDesk.evaluate` (arts. 20-23) together
with the visitor's file (art. 20.3: file number, visits, observations) and a few
warnings for the clerk; it records with :meth:`AdmissionDesk.record` on the clerk's key,
prints with :class:`CardPrintService` (as ``print-card``) and checks a card with
:func:`verify_card` (as ``verify-card``, R8, art. 22.4). Nothing here decides an
admission: the desk does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import unique
from typing import TYPE_CHECKING, Protocol

from admission.accounts import Operator
from admission.cards.verification import CardVerification, verify_card
from admission.codes import Code
from admission.desk import DeskErrorCode
from admission.documents import IdentityDocument, document_from_mrz
from admission.errors import InvalidStateError
from admission.hours import MADRID
from admission.identity import IdentityKey
from admission.mrz.parse import MrzError, parse_mrz
from admission.ports import Clock, madrid_date
from admission.records import Ban, Observation
from admission.verdict import Outcome, age_on, counts_as_visit

if TYPE_CHECKING:
    from admission.desk import AdmissionDesk, AdmissionResult, Evaluation
    from admission.desk_ports import CardPrinting, DeskFile, PrintedCard

__all__ = [
    "MAX_WAITING",
    "RECENT_SCAN_SECONDS",
    "RECORDED_WHEN_SHOWN",
    "DeskFlowCode",
    "DeskVerdict",
    "RecentScans",
    "SessionView",
    "check_card",
    "describe",
    "document_from_lines",
    "evaluate_and_describe",
    "past_bans",
    "print_issued_card",
    "record_admission",
    "record_as_shown",
    "record_dismissal",
]

RECENT_SCAN_SECONDS = 300  # the same document read again within 5 minutes: say so
MAX_OBSERVATIONS = 5  # shown on the identity panel, newest first
CARD_CODE_SECRET = "card_code"  # the file's secret that signs card codes (art. 22.4)
MAX_WAITING = 5  # documents read while a verdict is on screen, shown one after another
# verdicts that admit nobody and need no key: recorded the moment they are shown (arts.
# 20, 22) - a refusal, a re-entry on the card held, not admitted (the RIAJ unavailable)
RECORDED_WHEN_SHOWN = frozenset({Outcome.DENY, Outcome.ALREADY_ADMITTED, Outcome.NOT_ADMITTED})


@unique
class DeskFlowCode(Code):
    """What the desk window tells the clerk beside the verdict (its own refusals of a
    key, and the identity panel's warnings)."""

    NO_OPERATOR = "NO_OPERATOR"  # nobody is signed in: nothing is recorded (art. 20.3)
    SESSION_LOCKED = "SESSION_LOCKED"  # the session is locked: unlock first
    NOTHING_TO_RECORD = "NOTHING_TO_RECORD"  # no verdict on screen, or recorded already
    NOT_A_CARD_CODE = "NOT_A_CARD_CODE"  # a code read that is not one of our card codes
    NOT_OVERRIDABLE = "NOT_OVERRIDABLE"  # the director cannot take these reasons
    AUTHORISATION_CANCELLED = "AUTHORISATION_CANCELLED"  # no director confirmed
    JOB_FAILED = "JOB_FAILED"  # an unexpected fault in a background task
    SCANNED_RECENTLY = "SCANNED_RECENTLY"  # the same document minutes ago
    PAST_BAN = "PAST_BAN"  # a ban of the casino that has ended (art. 21.2-3)
    DOCUMENT_EXPIRES_TODAY = "DOCUMENT_EXPIRES_TODAY"
    DEVICE_GARBAGE = "DEVICE_GARBAGE"  # a device answered something not understood
    # the casino's server does not answer: nobody is admitted on this desk alone (art.
    # 22.1: one card sequence); the provisional voucher of art. 23.4 is offered
    SERVER_AWAY = "DESK_SERVER_AWAY"
    # more documents read while a verdict is on screen than wait behind it: read it again
    # once the verdict on screen is confirmed (Enter) or dismissed (Esc)
    TOO_MANY_WAITING = "TOO_MANY_WAITING"


class SessionView(Protocol):
    """What the controller reads of the signed-in session (ui.desk.session.DeskSession)."""

    @property
    def operator(self) -> Operator | None: ...

    @property
    def is_locked(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class DeskVerdict:
    """The verdict on screen and what the identity panel shows beside it."""

    evaluation: Evaluation
    age: int | None  # completed years today (art. 21.1)
    file_number: int | None  # ficha personal (art. 22.3); None on a first visit
    visits: int  # visits in the file (six months, art. 20.4)
    last_visit: datetime | None
    observations: tuple[str, ...] = ()
    warnings: tuple[DeskFlowCode, ...] = ()
    # the casino's bans of this person that have ended (lifted or expired): the past
    # offence the clerk is told of (art. 21.2-3); the bans in force are the evaluation's
    ended_bans: tuple[Ban, ...] = ()

    @property
    def document(self) -> IdentityDocument:
        doc = self.evaluation.document
        assert isinstance(doc, IdentityDocument)
        return doc


@dataclass
class RecentScans:
    """Hashes of the identities read lately, with when (memory only, never logged)."""

    window: timedelta = timedelta(seconds=RECENT_SCAN_SECONDS)
    _seen: dict[str, datetime] = field(default_factory=dict)

    def seen(self, identity: IdentityKey, at: datetime) -> bool:
        """True when ``identity`` was read within the window; remembers this read."""
        key = hashlib.sha256(identity.text.encode()).hexdigest()
        for old, when in list(self._seen.items()):
            if at - when > self.window or when > at:
                del self._seen[old]
        before = key in self._seen
        self._seen[key] = at
        return before


def document_from_lines(
    lines: Sequence[str], today: date
) -> tuple[IdentityDocument | None, Code | None]:
    """The document of a scanned MRZ, or the first reason it cannot identify anybody
    (as ``admit --mrz``: a garbled MRZ is refused and nothing is recorded)."""
    try:
        result = parse_mrz(list(lines), today=today)
    except ValueError:
        return None, MrzError.MRZ_UNKNOWN_FORMAT
    if not result.valid:
        first = result.errors[0] if result.errors else MrzError.MRZ_UNKNOWN_FORMAT
        return None, first
    return document_from_mrz(result), None


def past_bans(bans: Sequence[Ban], at: datetime) -> list[Ban]:
    """The casino's bans of a person that have ended: lifted or expired (art. 21.2-3)."""
    return [b for b in bans if b.created_at <= at and not b.active_at(at)]


def describe(store: DeskFile, evaluation: Evaluation, *, seen_recently: bool) -> DeskVerdict:
    """The evaluation with the visitor's file, for the identity panel."""
    doc = evaluation.document
    today = madrid_date(evaluation.at)
    warnings: list[DeskFlowCode] = []
    if seen_recently:
        warnings.append(DeskFlowCode.SCANNED_RECENTLY)
    ended = tuple(past_bans(store.bans(doc.identity), evaluation.at))
    if ended:
        warnings.append(DeskFlowCode.PAST_BAN)
    if doc.expiry_date is not None and doc.expiry_date == today:
        warnings.append(DeskFlowCode.DOCUMENT_EXPIRES_TODAY)
    visitor = evaluation.visitor
    file_number = visits = None
    last: datetime | None = None
    notes: tuple[str, ...] = ()
    if visitor is not None:
        file_number = visitor.file_number
        # re-entries on a card held are not visits (art. 20.3: successive visits)
        history = [v for v in store.visits(visitor.file_number) if counts_as_visit(v.verdict)]
        visits = len(history)
        last = max((v.at for v in history), default=None)
        observations = sorted(store.observations(visitor.file_number), key=lambda o: o.at)
        notes = tuple(_note(o) for o in reversed(observations[-MAX_OBSERVATIONS:]))
    birth = doc.birth_date
    return DeskVerdict(
        evaluation,
        age_on(birth, today) if birth is not None else None,
        file_number,
        visits or 0,
        last,
        notes,
        tuple(warnings),
        ended,
    )


def _note(observation: Observation) -> str:
    """An observation as the identity panel shows it: its Madrid date and author first
    (art. 20.3: who wrote it, and when), then the text."""
    day = observation.at.astimezone(MADRID).strftime("%d/%m/%Y")
    return f"{day} · {observation.author}: {observation.text}"


def evaluate_and_describe(
    desk: AdmissionDesk, store: DeskFile, document: IdentityDocument, *, seen_recently: bool
) -> DeskVerdict:
    return describe(store, desk.evaluate(document), seen_recently=seen_recently)


def record_admission(
    desk: AdmissionDesk,
    evaluation: Evaluation,
    *,
    operator: str,
    card_type: str | None,
    authorised_by: str = "",
) -> AdmissionResult:
    """The clerk's key: the evaluation on screen recorded once (art. 20.3, 22)."""
    return desk.record(
        evaluation, operator=operator, card_type=card_type, authorised_by=authorised_by
    )


def record_as_shown(
    desk: AdmissionDesk, evaluation: Evaluation, *, operator: str
) -> AdmissionResult | None:
    """A verdict that admitted nobody (DENY, a re-entry on the card held, not admitted,
    or SUPERVISOR without a director),
    recorded as it was shown: the visitor file keeps refusals too (art. 20, 22), no card
    is issued. A verdict gone stale (over 120 s) is evaluated again and the fresh one
    recorded; None when it now admits - nobody was admitted, so nothing is recorded
    (an admission is recorded only on the clerk's Enter)."""
    if evaluation.verdict.outcome is Outcome.ADMIT:
        return None
    try:
        return desk.record(evaluation, operator=operator, card_type=None)
    except InvalidStateError as err:
        if err.code != DeskErrorCode.EVALUATION_STALE:
            raise
    fresh = desk.evaluate(evaluation.document)
    if fresh.verdict.outcome is Outcome.ADMIT:
        return None
    return desk.record(fresh, operator=operator, card_type=None)


def record_dismissal(
    desk: AdmissionDesk, evaluation: Evaluation, *, operator: str
) -> AdmissionResult:
    """An ADMIT on screen the clerk dismissed (Esc, or the session locking, signing out,
    the window closing) instead of confirming: recorded as not admitted, dismissed by
    the clerk (art. 20.3: the presentation stays in the file), no card."""
    return desk.dismiss(evaluation, operator=operator)


def print_issued_card(printing: CardPrinting, number: int, *, actor: str) -> PrintedCard:
    """Print card ``number`` as ``print-card`` does; a failure leaves it in the reprint
    queue (issued, not printed: art. 22.3, no number is burnt)."""
    return printing.print_card(printing.view_for(number), actor=actor)


def check_card(
    store: DeskFile, clock: Clock, casino_id: str, code: str, *, actor: str
) -> CardVerification:
    """A card check as ``verify-card`` makes it (R8, art. 22.4), recorded in the audit."""
    return verify_card(
        code,
        key=store.secret(CARD_CODE_SECRET),
        casino_id=casino_id,
        store=store,
        clock=clock,
        actor=actor,
        channel="scanner",
        public_keys=store.card_public_keys(),  # the signed codes (art. 22.4)
    )

"""What the desk does with whatever a reader sends: one router for the keyboard wedge,
the serial reader and the camera, so every visitor is identified the same way (art. 20.1).

* a complete MRZ -> the domain parser -> an identity document -> the desk's verdict;
* a code burst -> our entry-card code (verification, art. 22.4, R8) or an AAMVA
  driving licence (PDF417, art. 23.1) -> the desk's verdict;
* a discarded burst -> its hint code for the screen ("scan again").

Nothing that was not scanned becomes an MRZ: only the assembler's MrzScanned events
reach the parser. Evaluating records nothing; the clerk's key press admits.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum, unique

from admission.aamva import looks_like_aamva, parse_aamva
from admission.cards.code import looks_like_card_code
from admission.cards.verification import CardVerification, VerificationStore, verify_card
from admission.codes import Code
from admission.desk import AdmissionDesk, DeskDocument, Evaluation
from admission.documents import DocumentError, document_from_mrz
from admission.mrz.burst import BurstDiscarded, CodeScanned, MrzScanned
from admission.mrz.parse import parse_mrz
from admission.ports import Clock, madrid_date


class IntakeKind(StrEnum):
    DOCUMENT = "DOCUMENT"  # an identity document was read and evaluated
    CARD = "CARD"  # an entry card was verified
    UNREADABLE = "UNREADABLE"  # read, but not usable: ``code`` says why
    HINT = "HINT"  # a burst was discarded: ask for a new scan


@unique
class IntakeCode(Code):
    """Why something read is UNREADABLE (besides the AAMVA codes of a driving licence)."""

    MRZ_INVALID = "MRZ_INVALID"  # the zone fails its checks: ``errors`` says which
    CODE_NOT_RECOGNISED = "CODE_NOT_RECOGNISED"  # neither our card code nor an AAMVA licence


@dataclass(frozen=True, slots=True)
class IntakeResult:
    kind: IntakeKind
    # DOCUMENT: the verdict's Outcome; CARD: the CardCheckStatus; UNREADABLE: an IntakeCode
    # or an AamvaError; HINT: the BurstHint. Never scanned content.
    code: str = ""
    document: DeskDocument | None = None
    evaluation: Evaluation | None = None
    card: CardVerification | None = None
    errors: tuple[str, ...] = ()


class ScanIntake:
    def __init__(
        self,
        desk: AdmissionDesk,
        *,
        store: VerificationStore,
        clock: Clock,
        card_key: bytes,
        casino_id: str,
        actor: str,
    ) -> None:
        self._desk = desk
        self._store = store
        self._clock = clock
        self._key = card_key
        self._casino_id = casino_id
        self._actor = actor

    def handle(
        self, event: MrzScanned | CodeScanned | BurstDiscarded, channel: str = "scanner"
    ) -> IntakeResult:
        if isinstance(event, BurstDiscarded):
            return IntakeResult(IntakeKind.HINT, event.code)
        if isinstance(event, MrzScanned):
            return self.document_lines(event.lines)
        return self.code(event.text, channel)

    def document_lines(self, lines: tuple[str, ...] | list[str]) -> IntakeResult:
        today = madrid_date(self._clock.now())
        result = parse_mrz(list(lines), today=today)
        if not result.valid:
            # A zone that fails its check digits identifies nobody: ask for a new read.
            return IntakeResult(IntakeKind.UNREADABLE, IntakeCode.MRZ_INVALID, errors=result.errors)
        return self._evaluate(document_from_mrz(result))

    def code(self, text: str, channel: str = "scanner") -> IntakeResult:
        if looks_like_card_code(text):
            check = verify_card(
                text,
                key=self._key,
                casino_id=self._casino_id,
                store=self._store,
                clock=self._clock,
                actor=self._actor,
                channel=channel,
            )
            return IntakeResult(IntakeKind.CARD, check.status, card=check)
        if looks_like_aamva(text):
            try:
                document = parse_aamva(text, today=madrid_date(self._clock.now()))
            except DocumentError as exc:
                return IntakeResult(IntakeKind.UNREADABLE, exc.code)
            return self._evaluate(document)
        return IntakeResult(IntakeKind.UNREADABLE, IntakeCode.CODE_NOT_RECOGNISED)

    def _evaluate(self, document: DeskDocument) -> IntakeResult:
        evaluation = self._desk.evaluate(document)
        return IntakeResult(
            IntakeKind.DOCUMENT,
            evaluation.verdict.outcome,
            document=document,
            evaluation=evaluation,
        )

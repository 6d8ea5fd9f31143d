"""``DeskController``: the desk flow between the clerk's keys, the readers and the services.

A scan is parsed here (``parse_mrz``: a garbled MRZ identifies nobody and records
nothing), evaluated by ``AdmissionDesk.evaluate`` on the store worker and shown; the
clerk's Enter records that evaluation once with ``AdmissionDesk.record`` under the
signed-in operator (art. 20.3: every admission names who made it), then the card is
printed by the card print service (art. 22). A second Enter finds nothing to record.

Every verdict shown ends up in the visitor file (arts. 20, 22: inspectors see refusals
too), with the operator who had it on screen:

* DENY, ALREADY_ADMITTED (a re-entry on the card held, art. 22) and NOT_ADMITTED (the
  RIAJ unavailable) are recorded at once, when shown (no card is ever issued for them);
* SUPERVISOR not authorised by a director is recorded as shown when the clerk
  dismisses it: Esc, the session locking or signing out, the window closing;
* ADMIT is recorded on Enter; dismissed instead, it is recorded as not admitted,
  dismissed by the clerk (a dialog that issued a voucher or a card records nothing).

One presentation, one record: a verdict on screen is never replaced silently. The same
document read again while its verdict is on screen (or being checked, or waiting) is
the same presentation and is ignored (``presentation_repeated``); one left under the
camera is not read again until the camera sees no document. Another document read
while a verdict awaits the clerk's Enter or Esc, or while a check or a record is under
way, waits behind it (``document_waiting``) and is checked once the verdict is settled.
The card type chosen with the F-keys returns to the default once its verdict is settled.

A verdict gone stale meanwhile is evaluated again and recorded (``record_as_shown``).
A scan with nobody signed in is refused (``NO_OPERATOR``) and shows no verdict; reader
input while the session is locked is dropped, never queued.

Signals are past tense (STYLE.md rule 12); messages are the catalogue's Spanish.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from datetime import date
from enum import Enum, auto
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import QImage

from admission.accounts import AccountErrorCode, Operator, Role, may_admit
from admission.cards.code import looks_like_card_code
from admission.chip import carries_chip
from admission.codes import Code
from admission.counters import DeskCounters
from admission.desk import OVERRIDABLE, AdmissionResult, DeskErrorCode
from admission.devices import DeviceStatus
from admission.documents import IdentityDocument
from admission.errors import AdmissionError
from admission.identity import IdentityKey
from admission.ports import madrid_date
from admission.registry.port import RegistryErrorCode
from admission.verdict import Outcome
from ui.desk.changes import DeskOperations, OpChanges
from ui.desk.chip_reading import DeskChip
from ui.desk.desk_flow import (
    MAX_WAITING,
    RECORDED_WHEN_SHOWN,
    DeskFlowCode,
    DeskVerdict,
    RecentScans,
    SessionView,
    check_card,
    document_from_lines,
    evaluate_and_describe,
    print_issued_card,
    record_admission,
    record_as_shown,
    record_dismissal,
)
from ui.desk.jobs import JobRunner
from ui.desk.text import message
from ui.desk.workers import CameraWorker

if TYPE_CHECKING:
    from admission.desk_ports import PrintedCard
    from ui.context import AppContext

__all__ = ["DeskController", "DeskState"]

log = logging.getLogger(__name__)
COUNTERS_INTERVAL_MS = 30_000
FILE_POLL_MS = 1_000  # the visitor file and the register copy, through the store worker
MAX_CODE_SHOWN = 80  # a scanned code is shown bounded, as plain text
NO_DOCUMENT = "NO_DOCUMENT"  # hardware.mrz.live.Quality: nothing in the camera's view
VISIT = OpChanges(admissions=True)  # a presentation recorded without a card
ADMITTED = OpChanges(admissions=True, cards=True)  # an admission and its card (art. 22)
QUEUE_SENT = OpChanges(queue=True)  # provisional vouchers numbered on the server (art. 23.4)


class DeskState(Enum):
    IDLE = auto()  # nothing on screen
    EVALUATING = auto()  # a document is being checked
    SHOWN = auto()  # a verdict is on screen, not recorded
    RECORDING = auto()  # Enter pressed: recording
    RECORDED = auto()  # recorded: a new scan or Esc starts again


def _message(code: str) -> str:
    """The catalogue's text in the window's language (``ui.desk.i18n`` sets it)."""
    return message(code)


class DeskController(QObject):
    verdict_ready = Signal(object)  # DeskVerdict
    admission_recorded = Signal(object)  # AdmissionResult (Enter, or a DENY when shown)
    # AdmissionResult: a SUPERVISOR recorded as shown, an ADMIT dismissed by the clerk
    dismissal_recorded = Signal(object)
    verdict_confirmed = Signal()  # Enter on a verdict recorded when shown: seen
    document_waiting = Signal(int)  # documents waiting behind the verdict on screen
    presentation_repeated = Signal()  # the document on screen read again: ignored
    card_printed = Signal(int)
    card_print_failed = Signal(int, str)  # card number, code
    card_checked = Signal(object)  # CardVerification
    scan_rejected = Signal(str, str)  # code, message in the window's language
    camera_hint_changed = Signal(str)  # hardware.mrz.live.Quality value
    frame_ready = Signal(QImage)
    device_status_changed = Signal(str, str, str)  # device, status, detail
    device_lost = Signal(str)
    device_found = Signal(str)
    counters_changed = Signal(object)  # DeskCounters
    operation_failed = Signal(str, str)  # code, message in the window's language
    card_type_chosen = Signal(str)  # card type code
    register_checked = Signal(object, str)  # age of the RIAJ copy in seconds or None, error
    # the casino's server (arts. 154-155): its description and median round trip in ms
    # (None while it does not answer); never emitted on a desk of its own file
    server_checked = Signal(str, object)
    server_followed = Signal(object, str)  # after a probe: last failover, warning code
    server_changed = Signal(bool)  # the server answers again (True) / stopped (False)
    vouchers_formalised = Signal(object)  # FormaliseReport: provisional vouchers sent
    evaluation_started = Signal()
    cleared = Signal()
    settings_applied = Signal(list)  # the saved keys, now in force on the desk

    def __init__(
        self,
        ctx: AppContext,
        session: SessionView,
        runner: JobRunner,
        *,
        authorise: Callable[[str], Operator | None] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._session = session
        self._runner = runner
        # the desk's store writes, and the one broadcast after each (the counters read
        # again on every visit recorded, by this desk's window or a dialog)
        self.operations = DeskOperations(runner, parent=self)
        self.operations.operation_did_execute.connect(self._on_operation)
        self._authorise = authorise
        self._recent = RecentScans()
        self._state = DeskState.IDLE
        self._current: DeskVerdict | None = None
        self._shown_to: Operator | None = None  # who had the verdict on screen
        self._generation = 0  # an answer for a cleared scan is dropped
        self._last_lines: tuple[str, ...] | None = None  # the MRZ on screen
        # the camera's last reading taken: the same document left under the camera is
        # not read again (nor a second refusal recorded) until it leaves the view
        self._camera_lines: tuple[str, ...] | None = None
        self._camera_identity: IdentityKey | None = None  # the same, once parsed
        self._confirmed = False  # the clerk settled the verdict on screen (Enter)
        self._checking: IdentityKey | None = None  # the document being evaluated
        self._waiting: deque[IdentityDocument] = deque()  # read behind the verdict
        # the chip reader (None: none configured); the printed MRZ of each document read
        # and not yet checked, for the chip's DG1 to be compared with (memory only)
        self.chip: DeskChip | None = None
        self._printed: dict[IdentityKey, str] = {}
        self._card_type: str = ctx.desk.config.catalogue.default
        self._devices: dict[str, str] = {}
        self._server_reachable = True
        self._server_answered = False  # the first answer sends vouchers of an earlier run
        self.failed_prints: list[int] = []  # cards issued and not printed this session
        self._counters_timer = QTimer(self)
        self._counters_timer.setInterval(COUNTERS_INTERVAL_MS)
        self._counters_timer.timeout.connect(self.refresh_counters)
        self._file_timer = QTimer(self)
        self._file_timer.setInterval(FILE_POLL_MS)
        self._file_timer.timeout.connect(self.poll_file)

    # -- state --------------------------------------------------------------------
    @property
    def state(self) -> DeskState:
        return self._state

    @property
    def current(self) -> DeskVerdict | None:
        return self._current

    @property
    def card_type(self) -> str:
        return self._card_type

    def start(self) -> None:
        """Counters now and every 30 s; the file and the register every second."""
        self.refresh_counters()
        self.poll_file()
        self._counters_timer.start()
        self._file_timer.start()

    def stop(self) -> None:
        """The window closes: a verdict still on screen is dismissed (and recorded when
        it must be) before the store worker is stopped; the documents waiting go."""
        self._dismiss()
        self._drop_waiting()
        self._counters_timer.stop()
        self._file_timer.stop()

    def _accepting_input(self) -> bool:
        return self._session.operator is not None and not self._session.is_locked

    def _refusal(self) -> Code | None:
        if self._session.operator is None:
            return DeskFlowCode.NO_OPERATOR
        if self._session.is_locked:
            return DeskFlowCode.SESSION_LOCKED
        return None

    def _fail(self, code: str) -> None:
        self.operation_failed.emit(code, _message(code))

    def _reject(self, code: str) -> None:
        """A scan refused; a verdict on screen stays (never replaced silently)."""
        self.scan_rejected.emit(code, _message(code))

    def _admit_input(self) -> bool:
        """Reader input is taken when a clerk is signed in and the session unlocked;
        with nobody signed in it is refused aloud, while locked it is dropped."""
        if self._session.operator is None:
            self._reject(DeskFlowCode.NO_OPERATOR)
            return False
        if self._session.is_locked:
            return False
        if not may_admit(self._session.operator):  # an inspector or an administrator
            self._reject(AccountErrorCode.ROLE_REQUIRED)  # only a clerk or the director
            return False
        if self._ctx.offline_vouchers is not None and not self._server_reachable:
            self._reject(DeskFlowCode.SERVER_AWAY)  # nothing evaluated, nothing recorded
            return False
        return True

    def _dismiss(self, *, record: bool = True) -> None:
        """The verdict on screen goes away. A SUPERVISOR no director authorised is
        recorded as shown (art. 20, 22); an ADMIT never confirmed is recorded as not
        admitted, dismissed by the clerk; the others were recorded when shown. With
        ``record`` False (a dialog dealt with the person) nothing is recorded."""
        current, operator = self._current, self._shown_to
        shown = self._state is DeskState.SHOWN
        self._generation += 1
        self._current = None
        self._shown_to = None
        self._last_lines = None
        self._confirmed = False
        self._checking = None
        if self.chip is not None:
            self.chip.cancel()  # a chip read under way answers nobody
        if self._state is not DeskState.RECORDING:
            self._state = DeskState.IDLE
        if not record or not shown or current is None or operator is None:
            return
        evaluation = current.evaluation
        outcome = evaluation.verdict.outcome
        if outcome not in (Outcome.SUPERVISOR, Outcome.ADMIT):
            return
        desk = self._ctx.desk

        def dismissed() -> AdmissionResult | None:
            if outcome is Outcome.ADMIT:
                return record_dismissal(desk, evaluation, operator=operator.username)
            return record_as_shown(desk, evaluation, operator=operator.username)

        def recorded(result: AdmissionResult | None) -> None:
            if result is not None:
                self.dismissal_recorded.emit(result)

        self.operations.write(
            VISIT, dismissed, recorded, lambda err: self._fail(str(err.code)), origin=self
        )

    # -- one presentation, one record ------------------------------------------------
    @property
    def waiting(self) -> int:
        """Documents read behind the verdict on screen, checked once it is settled."""
        return len(self._waiting)

    def _holding(self) -> bool:
        """The next document waits: a check or a record is under way, or a verdict on
        screen awaits the clerk's Enter or Esc."""
        if self._state in (DeskState.EVALUATING, DeskState.RECORDING):
            return True
        return self._current is not None and not self._confirmed

    def _same_presentation(self, identity: IdentityKey) -> bool:
        """The document on screen, being checked or waiting, read again."""
        shown = None if self._current is None else self._current.evaluation.document.identity
        return identity in (shown, self._checking) or any(
            d.identity == identity for d in self._waiting
        )

    def _advance(self) -> None:
        """The verdict on screen is settled: the first document waiting is checked."""
        if not self._accepting_input():
            self._drop_waiting()  # locked or signed out: nothing is queued for later
            return
        if self._holding() or not self._waiting:
            return
        document = self._waiting.popleft()
        self.document_waiting.emit(len(self._waiting))
        self._evaluate(document)

    def _drop_waiting(self) -> None:
        self._printed.clear()
        if self._waiting:
            self._waiting.clear()
            self.document_waiting.emit(0)

    def _settled(self) -> None:
        """The verdict the card type was chosen for is settled: back to the default
        (a pass chosen for one visitor is never charged to the next)."""
        default = self._ctx.desk.config.catalogue.default
        self._card_type = default
        self.card_type_chosen.emit(default)

    # -- input --------------------------------------------------------------------
    @Slot(object)
    def submit_mrz(self, lines: object) -> None:
        """MRZ lines from a wedge or serial reader (a ``MrzScanned`` too). Lines sent by
        a ``CameraWorker`` signal are taken as the camera's (``submit_camera_mrz``)."""
        self._submit_lines(lines, camera=isinstance(self.sender(), CameraWorker))

    @Slot(object)
    def submit_camera_mrz(self, lines: object) -> None:
        """MRZ lines the camera agreed on. A reading identical to the camera's last one
        is ignored until the camera reports no document in view (``report_hint``) or
        reads another document: a refused document left on the counter is not
        refused (and recorded) again after Esc. A reader's re-scan is a deliberate act
        of the clerk and is always evaluated."""
        self._submit_lines(lines, camera=True)

    def _submit_lines(self, lines: object, *, camera: bool) -> None:
        if not self._admit_input():
            return  # locked: dropped, not queued
        raw = getattr(lines, "lines", lines)
        if isinstance(raw, str) or not isinstance(raw, Sequence):
            self._reject(DeskFlowCode.DEVICE_GARBAGE)
            return
        lines = tuple(str(x) for x in raw)
        if camera:
            if lines == self._camera_lines:
                return  # still under the camera since it was taken
            self._camera_lines = lines
        if lines == self._last_lines and self._state is not DeskState.IDLE:
            self.presentation_repeated.emit()  # the same document read twice: said, once
            return
        document, problem = document_from_lines(list(lines), self._today())
        if document is None:
            self._reject(str(problem or DeskFlowCode.DEVICE_GARBAGE))
            return
        if camera:
            if document.identity == self._camera_identity:
                return  # another reading of the document still under the camera
            self._camera_identity = document.identity
        if self.chip is not None:
            self._printed[document.identity] = "".join(lines)
            while len(self._printed) > MAX_WAITING + 1:  # the oldest, read and dropped
                del self._printed[next(iter(self._printed))]
        self.submit_manual(document)
        self._last_lines = lines

    @Slot(object)
    def submit_manual(self, document: IdentityDocument) -> None:
        """A document read or typed (manual entry, art. 23.1): evaluated and shown, or,
        while a verdict awaits the clerk, waiting behind it; the same presentation read
        again is ignored."""
        if not self._admit_input():
            return
        if self._same_presentation(document.identity):
            self.presentation_repeated.emit()  # recorded once
            return
        if self._holding():
            if len(self._waiting) >= MAX_WAITING:
                self._reject(DeskFlowCode.TOO_MANY_WAITING)
                return
            self._waiting.append(document)
            self.document_waiting.emit(len(self._waiting))
            return
        self._evaluate(document)

    def _evaluate(self, document: IdentityDocument) -> None:
        self._dismiss()  # a verdict settled gives way (nothing left to record)
        generation = self._generation
        self._state = DeskState.EVALUATING
        self._checking = document.identity
        seen = self._recent.seen(document.identity, self._ctx.clock.now())
        self.evaluation_started.emit()
        printed = self._printed.pop(document.identity, None)
        if self.chip is not None and document.chip is None and carries_chip(document.doc_type):
            # the chip first (art. 23.1): its result travels with the document
            def chip_read(checked: IdentityDocument) -> None:
                if generation == self._generation:
                    self._evaluate_checked(checked, generation, seen)

            self.chip.read(document, printed, chip_read)
            return
        self._evaluate_checked(document, generation, seen)

    def _evaluate_checked(self, document: IdentityDocument, generation: int, seen: bool) -> None:
        desk, store = self._ctx.desk, self._ctx.store

        def shown(verdict: DeskVerdict) -> None:
            if generation != self._generation:
                return  # cleared or superseded meanwhile
            self._checking = None
            operator = self._session.operator
            if operator is None:  # signed out meanwhile: no verdict without a clerk
                self._state = DeskState.IDLE
                self._reject(DeskFlowCode.NO_OPERATOR)
                return
            self._current = verdict
            self._shown_to = operator
            self._confirmed = False
            self._state = DeskState.SHOWN
            self.verdict_ready.emit(verdict)
            if verdict.evaluation.verdict.outcome in RECORDED_WHEN_SHOWN:
                self._record_refusal(verdict, operator)

        def failed(err: AdmissionError) -> None:
            if generation == self._generation:
                self._checking = None
                self._state = DeskState.IDLE
                self._fail(str(err.code))

        self._runner.submit(
            lambda: evaluate_and_describe(desk, store, document, seen_recently=seen),
            shown,
            failed,
        )

    @Slot(str)
    def submit_code(self, code: str) -> None:
        """A code read: an entry card's code is checked (R8, art. 22.4); anything else
        is refused, shown bounded as plain text by the window."""
        if not self._admit_input():
            return
        if not looks_like_card_code(code):
            self._reject(DeskFlowCode.NOT_A_CARD_CODE)
            return
        self.check_card(code)

    def check_card(self, code: str) -> None:
        """Check a card code (scanned or typed in the card-check dialog)."""
        operator = self._session.operator
        if operator is None or self._session.is_locked:
            return
        if not (may_admit(operator) or operator.has(Role.INSPECTOR)):  # art. 22.4: staff
            self._fail(AccountErrorCode.ROLE_REQUIRED)  # and inspectors, not an administrator
            return
        ctx = self._ctx
        casino = ctx.settings["casino.id"]
        self._runner.submit(
            lambda: check_card(ctx.store, ctx.clock, casino, code, actor=operator.username),
            self.card_checked.emit,
            lambda err: self._fail(str(err.code)),
        )

    @Slot(list)
    def apply_settings(self, keys: list[str]) -> None:
        """Settings saved on the settings screen take effect now (hours and the last
        hour, arts. 21.4 and 27; card types and prices, art. 23.2-3): the services are
        reconfigured on the store worker, so an evaluation under way finishes under the
        old rules and the next one is judged by the new. The card type goes back to the
        default when the types or the default changed."""
        ctx = self._ctx

        def applied(_answer: object) -> None:
            catalogue = ctx.desk.config.catalogue
            if self._card_type not in catalogue.types or {"cards.types", "cards.default"} & set(
                keys
            ):
                self._card_type = catalogue.default
            self.card_type_chosen.emit(self._card_type)
            self.settings_applied.emit(list(keys))

        self._runner.submit(ctx.reconfigure, applied, lambda err: self._fail(str(err.code)))

    @Slot(str)
    def choose_card_type(self, code: str) -> None:
        if code not in self._ctx.desk.config.catalogue.types:
            self._fail("UNKNOWN_CARD_TYPE")
            return
        self._card_type = code
        self.card_type_chosen.emit(code)

    @Slot()
    def clear(self) -> None:
        """Esc (also the session locking or signing out): the screen is emptied; a
        SUPERVISOR not authorised is recorded as shown, an ADMIT as dismissed by the
        clerk; a record under way completes. The next document waiting is checked."""
        self._dismiss()
        self._settled()
        self.cleared.emit()
        self._advance()

    @Slot()
    def clear_handled(self) -> None:
        """The person on screen was dealt with by a dialog (a voucher, a card issued
        there): the screen is emptied and nothing is recorded for the verdict."""
        self._dismiss(record=False)
        self._settled()
        self.cleared.emit()
        self._advance()

    # -- recording ----------------------------------------------------------------
    @Slot()
    def admit(self, card_type: str | None = None) -> None:
        """Enter: record the verdict on screen once, then print its card (of
        ``card_type`` when given, else the one chosen with the F-keys)."""
        if card_type is not None:
            if card_type not in self._ctx.desk.config.catalogue.types:
                self._fail("UNKNOWN_CARD_TYPE")
                return
            self.choose_card_type(card_type)
        refusal = self._refusal()
        if refusal is not None:
            self._fail(str(refusal))
            return
        if self._state is not DeskState.SHOWN or self._current is None:
            self._confirm()
            return
        verdict = self._current.evaluation.verdict
        if verdict.outcome in RECORDED_WHEN_SHOWN:  # its record failed: recorded now
            operator = self._session.operator
            if operator is not None:
                self._confirmed = True
                self._record_refusal(self._current, operator)
            return
        overridable = all(r in OVERRIDABLE for r in verdict.reasons)
        if verdict.outcome is Outcome.SUPERVISOR and self._authorise is not None and overridable:
            self.authorise_override()
            return
        self._record("")

    @Slot()
    def authorise_override(self) -> None:
        """SUPERVISOR with overridable reasons: the director takes responsibility with
        their own credentials (art. 23.5); recorded with their name."""
        refusal = self._refusal()
        if refusal is not None:
            self._fail(str(refusal))
            return
        if self._state is not DeskState.SHOWN or self._current is None:
            return
        verdict = self._current.evaluation.verdict
        if verdict.outcome is not Outcome.SUPERVISOR or not all(
            r in OVERRIDABLE for r in verdict.reasons
        ):
            self._fail(DeskFlowCode.NOT_OVERRIDABLE)
            return
        if self._authorise is None:
            self._fail(DeskErrorCode.DIRECTOR_REQUIRED)
            return
        purpose = ",".join(verdict.codes)
        director = self._authorise(purpose)
        if director is None:
            self._fail(DeskFlowCode.AUTHORISATION_CANCELLED)
            return
        self._record(director.username)

    def _confirm(self) -> None:
        """Enter on a verdict recorded when shown: the clerk has seen it, the next
        document waiting is checked. Nothing on screen: a second Enter records nothing."""
        if self._current is not None and not self._confirmed:
            self._confirmed = True
            self._settled()
            self.verdict_confirmed.emit()
        self._advance()

    def _record_refusal(self, current: DeskVerdict, operator: Operator) -> None:
        """A verdict of RECORDED_WHEN_SHOWN (a refusal, a re-entry, not admitted),
        recorded the moment it is shown (arts. 20, 22): no card, no key."""
        self._state = DeskState.RECORDING
        generation = self._generation
        desk = self._ctx.desk
        evaluation = current.evaluation

        def recorded(result: AdmissionResult | None) -> None:
            if self._state is DeskState.RECORDING:
                self._state = DeskState.RECORDED if result is not None else DeskState.IDLE
            if result is None:  # stale, and it admits now: read the document again
                if generation == self._generation:
                    self._current = None
                self._fail(DeskErrorCode.EVALUATION_STALE)
                self._advance()
                return
            self.admission_recorded.emit(result)
            self._advance()  # Enter pressed meanwhile, or Esc: the next one waiting

        def failed(err: AdmissionError) -> None:
            if self._state is DeskState.RECORDING:
                # still on screen, not recorded: Enter records it, Esc lets it go
                keep = generation == self._generation
                self._state = DeskState.SHOWN if keep else DeskState.IDLE
                self._confirmed = False
            self._fail(str(err.code))

        self.operations.write(
            VISIT,
            lambda: record_as_shown(desk, evaluation, operator=operator.username),
            recorded,
            failed,
            origin=self,
        )

    def _record(self, authorised_by: str) -> None:
        operator = self._session.operator
        current = self._current
        if operator is None or current is None:
            return
        if not may_admit(operator):  # art. 20.3: the clerk or the director admits
            self._fail(AccountErrorCode.ROLE_REQUIRED)
            return
        self._state = DeskState.RECORDING
        generation = self._generation
        desk = self._ctx.desk
        card_type = self._card_type
        evaluation = current.evaluation

        def recorded(result: AdmissionResult) -> None:
            if self._state is DeskState.RECORDING:
                self._state = DeskState.RECORDED
            if generation == self._generation:
                self._confirmed = True  # Enter settled it
            self.admission_recorded.emit(result)
            if result.card is not None:
                self.print_card(result.card.number)
            self._settled()  # the next visitor starts from the default card type
            self._advance()

        def failed(err: AdmissionError) -> None:
            stale = err.code == DeskErrorCode.EVALUATION_STALE
            if self._state is DeskState.RECORDING:
                keep = generation == self._generation and not stale
                self._state = DeskState.SHOWN if keep else DeskState.IDLE
                if not keep:
                    self._current = None
            self._fail(str(err.code))
            self._advance()  # a verdict kept on screen still holds the next one

        self.operations.write(
            ADMITTED,
            lambda: record_admission(
                desk,
                evaluation,
                operator=operator.username,
                card_type=card_type,
                authorised_by=authorised_by,
            ),
            recorded,
            failed,
            origin=self,
        )

    def print_card(self, number: int) -> None:
        """Print (or, after a printer failure, print again) an issued card."""
        operator = self._session.operator
        actor = operator.username if operator is not None else "desk"
        printing = self._ctx.card_printing

        def done(outcome: PrintedCard) -> None:
            if outcome.printed:
                if number in self.failed_prints:
                    self.failed_prints.remove(number)
                self.card_printed.emit(number)
            else:
                if number not in self.failed_prints:
                    self.failed_prints.append(number)
                self.card_print_failed.emit(number, outcome.code)

        def failed(err: AdmissionError) -> None:
            if number not in self.failed_prints:
                self.failed_prints.append(number)
            self.card_print_failed.emit(number, str(err.code))

        self._runner.submit(lambda: print_issued_card(printing, number, actor=actor), done, failed)

    @Slot()
    def retry_print(self) -> None:
        """Print again the cards of this session the printer failed (still ISSUED)."""
        for number in list(self.failed_prints):
            self.print_card(number)

    # -- counters and devices -----------------------------------------------------
    @Slot()
    def _on_operation(self, changes: OpChanges, _origin: object) -> None:
        if changes.admissions:
            self.refresh_counters()
        if changes.settings:
            self.apply_settings(list(changes.settings))

    def refresh_counters(self) -> None:
        ctx = self._ctx

        def count() -> DeskCounters:
            return ctx.counters(ctx.clock.now())

        self._runner.submit(count, self.counters_changed.emit, lambda err: None)

    @property
    def server_reachable(self) -> bool:
        """The visitor file answers: always on a desk of its own file; on a desk of the
        server, as the last probe found it. A desk without its server admits nobody on
        its own (art. 22.1: one card sequence); it offers the voucher of art. 23.4."""
        return self._server_reachable

    @Slot()
    def poll_file(self) -> None:
        """The visitor file answers (the server: its round trip), and how fresh the
        register copy is (art. 20.2)."""
        ctx = self._ctx
        server = ctx.server

        def probe() -> tuple[int | None, str, float | None]:
            if server is None:
                ctx.store.ping()
            else:  # its own connection, timed; an answer is the server's
                server.measure()
            median = None if server is None else server.median_ms()
            if ctx.registry_sync is not None:
                status = ctx.registry_sync.status()
                if status.age_seconds is not None:
                    return status.age_seconds, status.last_error, median
            state = ctx.replica.state()
            if state is None:
                return None, "", median
            age = max(0, int((ctx.clock.now() - state.as_of).total_seconds()))
            # past its limit the copy answers nobody (art. 20.2): said, not only its age
            limit = int(ctx.settings["registry.max_replica_age_hours"]) * 3600
            return age, RegistryErrorCode.REPLICA_STALE.value if age > limit else "", median

        def answered(answer: tuple[int | None, str, float | None]) -> None:
            self.report_device("database", DeviceStatus.READY.value, "")
            if server is not None:
                self.server_checked.emit(server.describe(), answer[2])
                self.server_followed.emit(server.failover_at(), server.warning())
                self.report_server(True)
            self.register_checked.emit(answer[0], answer[1])

        def failed(err: AdmissionError) -> None:
            self.report_device("database", DeviceStatus.ERROR.value, str(err.code))
            if server is not None:
                self.server_checked.emit(server.describe(), None)
                self.server_followed.emit(server.failover_at(), server.warning())
                self.report_server(False)

        self._runner.submit(probe, answered, failed)

    @Slot(bool)
    def report_server(self, reachable: bool) -> None:
        """The server stopped answering, or answers again: said at once; on its return
        the provisional vouchers given meanwhile are formalised on it (art. 23.4)."""
        before, self._server_reachable = self._server_reachable, reachable
        first = reachable and not self._server_answered
        self._server_answered = self._server_answered or reachable
        if before != reachable:
            self.server_changed.emit(reachable)
        if reachable and (first or before != reachable):
            self.formalise_vouchers()

    @Slot()
    def formalise_vouchers(self) -> None:
        """Send the provisional vouchers of the desk's queue to the server, in order and
        once (db.offline_queue.formalise); the report is told to the window."""
        offline = self._ctx.offline_vouchers
        if offline is None:
            return

        def send() -> object:
            return offline.formalise() if offline.pending() else None

        def sent(report: object) -> None:
            if report is not None:
                self.vouchers_formalised.emit(report)

        self.operations.write(
            QUEUE_SENT, send, sent, lambda err: self._fail(str(err.code)), origin=self
        )

    @Slot(str, str, str)
    def report_device(self, device: str, status: str, detail: str) -> None:
        """A worker's device report: passed on, with lost/found on a change."""
        before = self._devices.get(device)
        self._devices[device] = status
        self.device_status_changed.emit(device, status, detail)
        ready = status == DeviceStatus.READY.value
        if before is not None and before == DeviceStatus.READY.value and not ready:
            self.device_lost.emit(device)
        elif before is not None and before != DeviceStatus.READY.value and ready:
            self.device_found.emit(device)

    @Slot(str)
    def report_hint(self, hint: str) -> None:
        """The camera's live hint; NO_DOCUMENT means the document left the view, so
        the next reading of it is a new presentation."""
        if hint == NO_DOCUMENT:
            self._camera_lines = None
            self._camera_identity = None
        self.camera_hint_changed.emit(hint)

    @Slot(QImage)
    def report_frame(self, image: QImage) -> None:
        self.frame_ready.emit(image)

    @Slot(str)
    def report_burst_discarded(self, code: str) -> None:
        if self._accepting_input():
            self._reject(code)

    def _today(self) -> date:
        return madrid_date(self._ctx.clock.now())

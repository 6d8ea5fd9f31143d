"""One presentation, one record, through the controller on the real demo file (arts.
20.3, 22): a re-entry on the card held is neither a refusal nor a visit, a verdict on
screen is never replaced silently, the same document read again is recorded once, an
admission dismissed is recorded as not admitted, a register that cannot be checked is
not a refusal, and the card type returns to the default after every card."""

from __future__ import annotations

from datetime import timedelta

from pytestqt.qtbot import QtBot

from admission.clock import FixedClock
from admission.desk import AdmissionResult
from admission.ports import madrid_date
from admission.reports import figures_from_counts
from admission.verdict import Outcome
from tests.ui.conftest import FakeSession
from tests.ui.test_controller import WAIT, _denials, _minor_lines, controller, people, show, worker
from ui.context import AppContext
from ui.desk.controller import DeskController, DeskState
from ui.desk.desk_flow import DeskVerdict, document_from_lines
from ui.desk.workers import StoreWorker

__all__ = ["controller", "worker"]  # fixtures: the controller on the demo file, its worker


def lines_of(ctx: AppContext, index: int) -> list[str]:
    return people(ctx)[index].mrz(madrid_date(ctx.clock.now()))


def verdicts(ctx: AppContext, lines: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    document, _ = document_from_lines(lines, madrid_date(ctx.clock.now()))
    assert document is not None
    visitor = ctx.store.find_visitor(document.identity)
    if visitor is None:
        return []
    return [(v.verdict, v.reasons) for v in ctx.store.visits(visitor.file_number)]


def admit_with_enter(qtbot: QtBot, controller: DeskController, lines: list[str]) -> AdmissionResult:
    show(qtbot, controller, lines)
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as recorded:
        controller.admit()
    result = recorded.args[0]
    assert isinstance(result, AdmissionResult)
    return result


def test_a_holder_of_a_valid_card_is_a_reentry_recorded_once_never_a_refusal(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    lines = lines_of(demo_ctx, 0)
    first = admit_with_enter(qtbot, controller, lines)
    assert first.card is not None
    controller.clear()
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as recorded:
        verdict = show(qtbot, controller, lines)  # back from a smoke, the card in the pocket
    shown = verdict.evaluation
    assert shown.verdict.outcome is Outcome.ALREADY_ADMITTED
    assert shown.held_card is not None and shown.held_card.number == first.card.number
    assert verdict.visits == 1  # "Visitas": the re-entry is no new visit
    result = recorded.args[0]  # recorded as shown, no key: no card, no number taken
    assert result.reentry and result.card is None and not result.admitted
    assert demo_ctx.store.last_card_number() == first.card.number
    with qtbot.assertNotEmitted(controller.admission_recorded, wait=300):
        controller.submit_mrz(lines)  # read again while on screen: the same presentation
        controller.admit()  # Enter: seen
    worker.wait_idle()
    assert verdicts(demo_ctx, lines) == [("ADMIT", ()), ("ALREADY_ADMITTED", ("ALREADY_ADMITTED",))]
    now = demo_ctx.clock.now()
    counts = demo_ctx.reads.figure_counts(now - timedelta(hours=1), now + timedelta(hours=1))
    figures = figures_from_counts(madrid_date(now), madrid_date(now), counts)
    counted = (figures.admissions, figures.refused, figures.reentries, figures.visitors)
    assert counted == (1, 0, 1, 1)
    assert demo_ctx.counters(now).admitted_today == 1


def test_a_document_read_behind_a_verdict_waits_until_enter_or_esc(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    first, second, third = lines_of(demo_ctx, 1), lines_of(demo_ctx, 2), lines_of(demo_ctx, 3)
    show(qtbot, controller, first)
    waiting: list[int] = []
    controller.document_waiting.connect(waiting.append)
    with qtbot.assertNotEmitted(controller.verdict_ready, wait=300):
        controller.submit_mrz(second)  # the next visitor's document: it waits
        controller.submit_mrz(second)  # read twice while waiting: still one
    assert waiting == [1] and controller.waiting == 1
    current = controller.current
    assert current is not None and current.document.identity != _identity(demo_ctx, second)
    # Esc: the admission on screen is dismissed - recorded as not admitted, no card -
    # and the document waiting is checked
    with (
        qtbot.waitSignal(controller.dismissal_recorded, timeout=WAIT) as dismissed,
        qtbot.waitSignal(controller.verdict_ready, timeout=WAIT) as next_shown,
    ):
        controller.clear()
    assert dismissed.args[0].verdict.codes == ("DISMISSED_BY_CLERK",)
    assert isinstance(next_shown.args[0], DeskVerdict)
    assert next_shown.args[0].document.identity == _identity(demo_ctx, second)
    assert waiting == [1, 0]
    # Enter on the second: recorded with its card, then the third waiting is shown
    controller.submit_mrz(third)
    with (
        qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as recorded,
        qtbot.waitSignal(controller.verdict_ready, timeout=WAIT) as third_shown,
    ):
        controller.admit()
    assert recorded.args[0].card is not None
    assert third_shown.args[0].document.identity == _identity(demo_ctx, third)
    worker.wait_idle()
    assert verdicts(demo_ctx, first) == [("NOT_ADMITTED", ("DISMISSED_BY_CLERK",))]
    assert verdicts(demo_ctx, second) == [("ADMIT", ())]
    assert verdicts(demo_ctx, third) == []  # on screen, not confirmed
    assert demo_ctx.store.last_card_number() == 1


def _identity(ctx: AppContext, lines: list[str]) -> object:
    document, _ = document_from_lines(lines, madrid_date(ctx.clock.now()))
    assert document is not None
    return document.identity


def test_a_refusal_holds_the_next_document_until_enter(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    minor, adult = _minor_lines(demo_ctx), lines_of(demo_ctx, 4)
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT):
        show(qtbot, controller, minor)  # recorded when shown
    with qtbot.assertNotEmitted(controller.verdict_ready, wait=300):
        controller.submit_mrz(adult)
        controller.submit_mrz(minor)  # the refused one read again: the same presentation
    assert controller.waiting == 1
    with (
        qtbot.waitSignal(controller.verdict_confirmed, timeout=WAIT),
        qtbot.waitSignal(controller.verdict_ready, timeout=WAIT) as shown,
    ):
        controller.admit()  # Enter: seen; the adult waiting is checked
    assert shown.args[0].evaluation.verdict.outcome is Outcome.ADMIT
    worker.wait_idle()
    assert _denials(demo_ctx, minor) == ["DENY"]


def test_a_document_left_under_the_camera_is_recorded_once(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    lines = lines_of(demo_ctx, 5)
    show(qtbot, controller, lines)
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT):
        controller.admit()
    with qtbot.assertNotEmitted(controller.verdict_ready, wait=300):
        for _ in range(3):  # the camera keeps seeing it after the card is printed
            controller.submit_camera_mrz(lines)
    controller.clear()  # Esc: the card handed over, the document still in view
    with qtbot.assertNotEmitted(controller.verdict_ready, wait=300):
        controller.submit_camera_mrz(lines)
    worker.wait_idle()
    assert verdicts(demo_ctx, lines) == [("ADMIT", ())]  # one presentation, one record
    controller.report_hint("NO_DOCUMENT")  # taken away; presented again: a new one
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as again:
        controller.submit_camera_mrz(lines)
    assert again.args[0].reentry


def test_the_card_type_returns_to_the_default_after_every_card_and_every_esc(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext
) -> None:
    catalogue = demo_ctx.desk.config.catalogue
    other = next(code for code in catalogue.types if code != catalogue.default)
    controller.choose_card_type(other)  # F2: a pass for this visitor
    result = admit_with_enter(qtbot, controller, lines_of(demo_ctx, 0))
    assert result.card is not None and result.card.card_type == other
    assert controller.card_type == catalogue.default  # the next one is not charged for it
    controller.clear()
    show(qtbot, controller, lines_of(demo_ctx, 1))
    controller.choose_card_type(other)
    with qtbot.waitSignal(controller.card_type_chosen, timeout=WAIT) as chosen:
        controller.clear()  # changed their mind: Esc
    assert chosen.args[0] == catalogue.default and controller.card_type == catalogue.default


def test_a_register_that_cannot_be_checked_is_not_admitted_and_not_a_refusal(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    desk_clock.advance(timedelta(hours=25))  # the RIAJ copy is older than its limit
    lines = lines_of(demo_ctx, 2)
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as recorded:
        verdict = show(qtbot, controller, lines)
    assert verdict.evaluation.verdict.outcome is Outcome.NOT_ADMITTED  # fail closed
    result = recorded.args[0]
    assert result.card is None and result.verdict.codes == ("REGISTRY_UNVERIFIABLE",)
    assert controller.state is DeskState.RECORDED
    now = demo_ctx.clock.now()
    counts = demo_ctx.reads.figure_counts(now - timedelta(hours=1), now + timedelta(hours=1))
    figures = figures_from_counts(madrid_date(now), madrid_date(now), counts)
    assert (figures.refused, figures.not_admitted) == (0, 1)
    assert dict(figures.not_admitted_reasons) == {"REGISTRY_UNVERIFIABLE": 1}
    assert demo_ctx.store.last_card_number() == 0


def test_a_document_under_the_camera_read_differently_is_still_one_presentation(
    qtbot: QtBot, controller: DeskController, demo_ctx: AppContext, worker: StoreWorker
) -> None:
    """The camera's readings of one document can differ (a glare, another frame): the
    same identity still in view is the same presentation."""
    from tests.test_cli import spanish_dni_mrz

    first, glare = spanish_dni_mrz(45454545), spanish_dni_mrz(45454545, expiry="360101")
    assert first != glare
    with qtbot.waitSignal(controller.verdict_ready, timeout=WAIT):
        controller.submit_camera_mrz(first)
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT):
        controller.admit()
    controller.clear()  # the card handed over; the document is still under the camera
    with qtbot.assertNotEmitted(controller.verdict_ready, wait=300):
        controller.submit_camera_mrz(glare)
    worker.wait_idle()
    assert verdicts(demo_ctx, first) == [("ADMIT", ())]
    controller.report_hint("NO_DOCUMENT")
    with qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as again:
        controller.submit_camera_mrz(glare)  # taken away and laid down again: new
    assert again.args[0].reentry


def test_documents_waiting_are_dropped_when_the_session_locks(
    qtbot: QtBot,
    controller: DeskController,
    demo_ctx: AppContext,
    session: FakeSession,
    worker: StoreWorker,
) -> None:
    first, second = lines_of(demo_ctx, 0), lines_of(demo_ctx, 1)
    show(qtbot, controller, first)
    controller.submit_mrz(second)
    assert controller.waiting == 1
    session.is_locked = True  # the idle lock: the screen is cleared, nothing is queued
    with (
        qtbot.assertNotEmitted(controller.verdict_ready, wait=300),
        qtbot.waitSignal(controller.document_waiting, timeout=WAIT) as waiting,
    ):
        controller.clear()
    assert waiting.args == [0] and controller.waiting == 0
    worker.wait_idle()
    assert verdicts(demo_ctx, first) == [("NOT_ADMITTED", ("DISMISSED_BY_CLERK",))]
    assert verdicts(demo_ctx, second) == []

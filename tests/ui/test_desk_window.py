"""Whole admissions through the desk window on the real demo file (arts. 20-23): a scan
paints the verdict, Enter records it once and prints the card (the demo's PDF-folder
printer), and the visit is read back from the visitor file."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from admission.accounts import Operator
from admission.cards.verification import CardCheckStatus
from admission.clock import FixedClock
from admission.mrz.burst import MrzScanned
from admission.ports import madrid_date
from hardware.printer.fake import FakePrinter
from hardware.sound import Sound, TonePlayer
from tests.ui.conftest import CLERK, DIRECTOR, FakeSession
from ui.context import AppContext
from ui.desk.demo_scenario import DemoCase, demo_cases, seed_demo_file
from ui.desk.desk_window import MENU_DIRECTION, DeskWindow
from ui.desk.wedge_filter import WedgeFilter
from ui.desk.window_build import build_desk_window
from ui.desk.workers import StoreWorker

WAIT = 10_000


def screenshot(widget: QWidget, name: str) -> None:
    if importlib.util.find_spec("ui.desk.screens") is None:
        return
    from ui.desk.screens import save_screenshot

    save_screenshot(widget, name)


@pytest.fixture
def window(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> Iterator[tuple[DeskWindow, WedgeFilter]]:
    seed_demo_file(demo_ctx)
    win = build_desk_window(
        demo_ctx,
        session,
        authorise=lambda purpose: DIRECTOR,
        demo=True,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    wedge = WedgeFilter(parent=win)
    win.connect_wedge(wedge)
    win.resize(1200, 760)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    win.start()
    yield win, wedge
    win.stop()


def case(ctx: AppContext, kind: str) -> DemoCase:
    return next(c for c in demo_cases(madrid_date(ctx.clock.now())) if c.kind == kind)


def scan(qtbot: QtBot, win: DeskWindow, wedge: WedgeFilter, lines: tuple[str, ...]) -> None:
    now = time.monotonic()
    with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
        wedge.mrz_scanned.emit(MrzScanned(f"TD{1 if len(lines) == 3 else 3}", lines, now, now))


def visits_of(ctx: AppContext, lines: tuple[str, ...]) -> list[tuple[str, str, int | None]]:
    """(verdict, operator, card) of the visits in the file of the person of ``lines``."""
    from ui.desk.desk_flow import document_from_lines

    document, _ = document_from_lines(list(lines), madrid_date(ctx.clock.now()))
    assert document is not None
    visitor = ctx.store.find_visitor(document.identity)
    if visitor is None:
        return []
    return [(v.verdict, v.operator, v.card_number) for v in ctx.store.visits(visitor.file_number)]


def win_worker_idle(qtbot: QtBot, win: DeskWindow) -> None:
    """Every job the window gave its store worker so far has run (and answered)."""
    for worker in win._workers:
        if isinstance(worker, StoreWorker):
            assert worker.wait_idle()
    qtbot.wait(50)


def key(qtbot: QtBot, win: DeskWindow, which: Qt.Key) -> None:
    """A real key press on the window (pytest-qt's keyClick is untyped)."""
    qtbot.keyClick(win, which)  # type: ignore[no-untyped-call]


def enter(qtbot: QtBot, win: DeskWindow) -> None:
    key(qtbot, win, Qt.Key.Key_Return)


def test_admit_paints_records_once_and_prints_the_card(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    win, wedge = window
    scan(qtbot, win, wedge, case(demo_ctx, "admitted").lines)
    assert win.verdict.outcome == "ADMIT" and "ADMITIR" in win.verdict.headline.text()
    assert "✔" in win.verdict.headline.text()
    assert win.identity.age.text().isdigit()
    screenshot(win, "desk-verdict-admit")
    with qtbot.waitSignal(win.controller.card_printed, timeout=WAIT) as printed:
        enter(qtbot, win)  # the one key press after the scan
    number = printed.args[0]
    pdfs = list(demo_ctx.card_files.folder.glob("*.pdf"))
    assert pdfs, "the PDF-folder printer wrote the card"
    card = demo_ctx.store.card(number)
    assert card is not None and card.status.value == "PRINTED"
    visits = demo_ctx.store.visits(card.file_number)
    assert [(v.verdict, v.operator, v.card_number) for v in visits] == [("ADMIT", "clerk1", number)]
    assert "impresa" in win.verdict.progress.text()
    screenshot(win, "desk-admit")
    # a second Enter gives no second card and no second visit
    with qtbot.assertNotEmitted(win.controller.admission_recorded, wait=400):
        enter(qtbot, win)
    assert demo_ctx.store.last_card_number() == number
    assert len(demo_ctx.store.visits(card.file_number)) == 1


@pytest.mark.parametrize(
    ("kind", "reason", "shot"),
    [
        ("minor", "MINOR", "desk-deny-minor"),
        ("listed", "REGISTRY_LISTED", "desk-deny-listed"),
        ("banned", "INTERNAL_BAN", "desk-deny-ban"),
        ("expired", "DOCUMENT_EXPIRED", "desk-deny-expired"),
    ],
)
def test_refusals_are_painted_and_recorded_without_a_card(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    kind: str,
    reason: str,
    shot: str,
) -> None:
    from admission.catalogue import text

    win, wedge = window
    scan(qtbot, win, wedge, case(demo_ctx, kind).lines)
    assert win.verdict.outcome == "DENY"
    assert "DENEGAR" in win.verdict.headline.text() and "✖" in win.verdict.headline.text()
    assert text(reason, "es") in win.verdict.reasons.text()
    screenshot(win, shot)
    # recorded when shown, with the clerk signed in: no key is needed (arts. 20, 22)
    with qtbot.waitSignal(win.controller.admission_recorded, timeout=WAIT) as recorded:
        pass
    result = recorded.args[0]
    assert result.card is None and reason in result.verdict.codes
    assert "Denegación registrada" in win.verdict.progress.text()
    visits = demo_ctx.store.visits(result.recorded.file_number)
    assert [(v.verdict, v.operator) for v in visits] == [("DENY", "clerk1")]
    assert visits[0].card_number is None
    # Enter and Esc afterwards record nothing more
    with qtbot.assertNotEmitted(win.controller.admission_recorded, wait=300):
        enter(qtbot, win)
    key(qtbot, win, Qt.Key.Key_Escape)
    win_worker_idle(qtbot, win)
    assert len(demo_ctx.store.visits(result.recorded.file_number)) == 1
    assert demo_ctx.store.last_card_number() == 0


def test_staff_needs_the_director_and_is_recorded_with_their_name(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    win, wedge = window
    scan(qtbot, win, wedge, case(demo_ctx, "staff").lines)
    assert win.verdict.outcome == "SUPERVISOR" and "⚠" in win.verdict.headline.text()
    screenshot(win, "desk-supervisor-staff")
    with qtbot.waitSignal(win.controller.card_printed, timeout=WAIT) as printed:
        enter(qtbot, win)
    card = demo_ctx.store.card(printed.args[0])
    assert card is not None and card.authorised_by == "director1"


def test_reader_bursts_while_locked_are_dropped(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    session: FakeSession,
) -> None:
    win, wedge = window
    session.is_locked = True
    now = time.monotonic()
    with qtbot.assertNotEmitted(win.controller.verdict_ready, wait=400):
        wedge.mrz_scanned.emit(MrzScanned("TD1", case(demo_ctx, "admitted").lines, now, now))
    session.is_locked = False
    with qtbot.assertNotEmitted(win.controller.verdict_ready, wait=300):
        pass  # nothing was queued for later
    assert win.verdict.outcome == ""


def test_a_printer_failure_keeps_the_card_for_a_reprint(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    win, wedge = window
    working = demo_ctx.card_printing.printer
    demo_ctx.card_printing.printer = FakePrinter(script=["NO_MEDIA"])
    scan(qtbot, win, wedge, case(demo_ctx, "admitted").lines)
    with qtbot.waitSignal(win.controller.card_print_failed, timeout=WAIT) as failed:
        enter(qtbot, win)
    number, code = failed.args
    assert code == "PRINTER_NO_MEDIA"
    assert "NO impresa" in win.verdict.progress.text()
    assert [c.number for c in demo_ctx.reprints.unprinted_cards()] == [number]
    screenshot(win, "desk-print-failed")
    demo_ctx.card_printing.printer = working
    with qtbot.waitSignal(win.controller.card_printed, timeout=WAIT) as printed:
        win.reprint_action.trigger()
    assert printed.args == [number]
    assert demo_ctx.reprints.unprinted_cards() == []
    assert demo_ctx.store.last_card_number() == number  # the same card, no new number


def test_a_card_code_scanned_shows_the_card_check(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    win, wedge = window
    scan(qtbot, win, wedge, case(demo_ctx, "admitted").lines)
    with qtbot.waitSignal(win.controller.card_printed, timeout=WAIT) as printed:
        enter(qtbot, win)
    with qtbot.waitSignal(win.controller.card_checked, timeout=WAIT):
        wedge.code_scanned.emit(demo_ctx.card_code(printed.args[0]))
    dialog = win.card_check
    assert dialog is not None and dialog.isVisible()
    assert dialog.answer is not None and dialog.answer.status is CardCheckStatus.VALID
    assert "✔" in dialog.status.text() and dialog.holder.text() != "—"
    screenshot(win, "desk-card-check")
    checks = [e for e in demo_ctx.store.audit_entries() if e.action == "CARD_CHECK"]
    assert checks and checks[-1].actor == "clerk1"


def test_function_keys_choose_the_card_type_and_esc_clears(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    win, wedge = window
    codes = list(demo_ctx.desk.config.catalogue.types)
    if len(codes) > 1:
        key(qtbot, win, Qt.Key.Key_F2)
        assert win.controller.card_type == codes[1]
        assert "(F2)" in win.card_type.text()
    scan(qtbot, win, wedge, case(demo_ctx, "minor").lines)
    key(qtbot, win, Qt.Key.Key_Escape)
    assert win.verdict.outcome == "" and win.identity.name.text() == ""


def test_menus_take_other_dialogs_and_the_demo_banner_shows(
    window: tuple[DeskWindow, WedgeFilter],
) -> None:
    from PySide6.QtGui import QAction

    win, _ = window
    action = QAction("Prohibiciones…", win)
    win.add_action(MENU_DIRECTION, action)
    assert action in win.menu(MENU_DIRECTION).actions()
    assert win.menu(MENU_DIRECTION).menuAction().isVisible()
    assert win.status.demo.isVisible()


def test_refusals_sound_unlike_admissions(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    win, wedge = window
    scan(qtbot, win, wedge, case(demo_ctx, "admitted").lines)
    win.controller.clear()
    scan(qtbot, win, wedge, case(demo_ctx, "minor").lines)
    assert isinstance(win.sound, TonePlayer)
    assert win.sound.played == [Sound.ADMIT, Sound.REFUSE]


def test_the_sound_comes_from_the_context_with_the_bell(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> None:
    # the window builds no adapter (STYLE.md rule 3): the composition root's factory
    win = build_desk_window(demo_ctx, session, authorise=lambda purpose: None, watch_devices=False)
    qtbot.addWidget(win)
    try:
        assert isinstance(win.sound, TonePlayer) and win.sound._beep is not None
    finally:
        win.stop()


def test_a_document_under_the_camera_is_read_and_shown(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> None:
    seed_demo_file(demo_ctx)
    lines = case(demo_ctx, "admitted").lines
    win = build_desk_window(
        demo_ctx,
        session,
        authorise=lambda purpose: DIRECTOR,
        demo=True,
        camera=lambda: demo_ctx.devices.demo_camera(lines, 0),
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    win.show()
    try:
        with qtbot.waitSignal(win.controller.verdict_ready, timeout=60_000):
            win.start()
        assert win.verdict.outcome == "ADMIT"
        assert not win.preview.view.image.isNull()  # the preview was painted
        screenshot(win, "desk-camera-read")
    finally:
        win.stop()


def test_manual_entry_checks_the_dni_letter_as_typed_and_is_evaluated(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    from PySide6.QtWidgets import QDialogButtonBox

    from admission.catalogue import text

    win, _ = window
    dialog = win.open_manual_entry()
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled()
    dialog.number.setText("12345678A")  # the letter of 12345678 is Z
    dialog.surname.setText("PRUEBA MANUAL")
    dialog.given_names.setText("ANA")
    dialog.birth_date.setText("01/02/1980")
    dialog.expiry_date.setText("01/02/2030")
    assert not ok.isEnabled()
    assert text("DNI_CHECK_LETTER", "es") in dialog.errors.text()
    assert "Z" in dialog.errors.text()
    screenshot(dialog, "desk-manual-entry")
    dialog.number.setText("12345678Z")
    assert ok.isEnabled() and dialog.errors.text() == ""
    with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT) as shown:
        ok.click()
    assert shown.args[0].document.source.value == "MANUAL"
    assert win.identity.name.text() == "ANA PRUEBA MANUAL"


def test_a_device_answering_garbage_says_so(window: tuple[DeskWindow, WedgeFilter]) -> None:
    from admission.catalogue import text

    win, _ = window
    win.controller.report_device("printer", "\x1b[31m??", "DEVICE_GARBAGE")
    assert "respuesta no reconocida" in win.status.text_of("printer")
    assert text("DEVICE_GARBAGE", "es") in win.status.last_error.text()
    assert "sin" in win.status.text_of("camera") or "no configurada" in win.status.text_of("camera")


class SignalledSession(QObject):
    """A session stand-in that signals, as ``ui.desk.session.DeskSession`` does."""

    locked = Signal()
    unlocked = Signal()
    signed_out = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.operator: Operator | None = CLERK
        self.is_locked = False


def test_locking_the_session_clears_the_screen(qtbot: QtBot, demo_ctx: AppContext) -> None:
    seed_demo_file(demo_ctx)
    session = SignalledSession()
    win = build_desk_window(
        demo_ctx,
        session,
        authorise=lambda purpose: None,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    try:
        win.controller.submit_mrz(case(demo_ctx, "minor").lines)
        qtbot.waitUntil(lambda: win.verdict.outcome == "DENY", timeout=WAIT)
        assert win.identity.name.text()
        session.is_locked = True
        session.locked.emit()
        assert win.verdict.outcome == "" and win.identity.name.text() == ""
        assert win.status.demo.isVisibleTo(win)  # demo=None: the context's own flag
    finally:
        win.stop()


# -- every verdict shown ends up recorded (arts. 20, 22) --------------------------------
SUPERVISOR_SHOWN = ("SUPERVISOR", "clerk1", None)


def test_a_supervisor_dismissed_with_esc_is_recorded_as_shown(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    win, wedge = window
    lines = case(demo_ctx, "staff").lines
    scan(qtbot, win, wedge, lines)
    assert win.verdict.outcome == "SUPERVISOR" and visits_of(demo_ctx, lines) == []
    with qtbot.waitSignal(win.controller.dismissal_recorded, timeout=WAIT) as recorded:
        key(qtbot, win, Qt.Key.Key_Escape)
    assert recorded.args[0].card is None
    assert visits_of(demo_ctx, lines) == [SUPERVISOR_SHOWN]
    assert "Denegación registrada" in win.status.currentMessage()
    assert win.verdict.outcome == "" and demo_ctx.store.last_card_number() == 0


def test_a_supervisor_the_director_did_not_authorise_holds_the_next_scan_until_esc(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> None:
    seed_demo_file(demo_ctx)
    asked: list[str] = []

    def nobody(purpose: str) -> Operator | None:
        asked.append(purpose)
        return None  # the director cancelled

    win = build_desk_window(
        demo_ctx, session, authorise=nobody, sound=TonePlayer(enabled=False), watch_devices=False
    )
    qtbot.addWidget(win)
    wedge = WedgeFilter(parent=win)
    win.connect_wedge(wedge)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    try:
        staff = case(demo_ctx, "staff").lines
        scan(qtbot, win, wedge, staff)
        with qtbot.waitSignal(win.controller.operation_failed, timeout=WAIT) as failed:
            enter(qtbot, win)
        assert asked and failed.args[0] == "AUTHORISATION_CANCELLED"
        assert visits_of(demo_ctx, staff) == []  # still on screen, not yet recorded
        admitted = case(demo_ctx, "admitted").lines
        now = time.monotonic()
        with qtbot.assertNotEmitted(win.controller.verdict_ready, wait=300):
            wedge.mrz_scanned.emit(MrzScanned("TD1", admitted, now, now))  # the next visitor
        assert win.verdict.outcome == "SUPERVISOR"  # never replaced silently: it waits
        assert win.presentation.waiting_label.isVisible()
        assert "1" in win.presentation.waiting_label.text()
        with (
            qtbot.waitSignal(win.controller.dismissal_recorded, timeout=WAIT),
            qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT),
        ):
            key(qtbot, win, Qt.Key.Key_Escape)  # dismissed: the one waiting is checked
        assert visits_of(demo_ctx, staff) == [SUPERVISOR_SHOWN]
        assert win.verdict.outcome == "ADMIT"
        assert not win.presentation.waiting_label.isVisible()
    finally:
        win.stop()


def test_an_admit_dismissed_is_recorded_as_not_admitted_never_as_a_card(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    win, wedge = window
    lines = case(demo_ctx, "admitted").lines
    scan(qtbot, win, wedge, lines)
    with qtbot.waitSignal(win.controller.dismissal_recorded, timeout=WAIT) as dismissed:
        key(qtbot, win, Qt.Key.Key_Escape)
    assert dismissed.args[0].verdict.codes == ("DISMISSED_BY_CLERK",)
    assert "descartado por el empleado" in win.status.currentMessage()
    scan(qtbot, win, wedge, lines)
    win.close()  # and the window closing with the verdict on screen: dismissed too
    assert visits_of(demo_ctx, lines) == [("NOT_ADMITTED", "clerk1", None)] * 2
    assert demo_ctx.store.last_card_number() == 0


def test_a_supervisor_on_screen_when_the_window_closes_is_recorded(
    qtbot: QtBot, window: tuple[DeskWindow, WedgeFilter], demo_ctx: AppContext
) -> None:
    win, wedge = window
    lines = case(demo_ctx, "staff").lines
    scan(qtbot, win, wedge, lines)
    win.close()  # stops the store worker after the jobs queued, the record among them
    assert visits_of(demo_ctx, lines) == [SUPERVISOR_SHOWN]


def test_a_supervisor_on_screen_when_the_session_locks_is_recorded(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    seed_demo_file(demo_ctx)
    session = SignalledSession()
    win = build_desk_window(
        demo_ctx,
        session,
        authorise=lambda purpose: None,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    try:
        lines = case(demo_ctx, "staff").lines
        with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
            win.controller.submit_mrz(lines)
        session.is_locked = True
        with qtbot.waitSignal(win.controller.dismissal_recorded, timeout=WAIT):
            session.locked.emit()  # the idle lock: the screen is emptied
        assert win.verdict.outcome == ""
        assert visits_of(demo_ctx, lines) == [SUPERVISOR_SHOWN]
    finally:
        win.stop()


def test_a_stale_supervisor_is_evaluated_again_and_recorded(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    desk_clock: FixedClock,
) -> None:
    from admission.desk import EVALUATION_MAX_AGE_SECONDS

    win, wedge = window
    lines = case(demo_ctx, "staff").lines
    scan(qtbot, win, wedge, lines)
    later = desk_clock.now() + timedelta(seconds=EVALUATION_MAX_AGE_SECONDS + 60)
    desk_clock.set(later)
    with qtbot.waitSignal(win.controller.dismissal_recorded, timeout=WAIT) as recorded:
        key(qtbot, win, Qt.Key.Key_Escape)
    result = recorded.args[0]
    assert result.evaluation.at == later and result.verdict.outcome.value == "SUPERVISOR"
    assert visits_of(demo_ctx, lines) == [SUPERVISOR_SHOWN]


def test_a_scan_with_nobody_signed_in_is_refused_and_not_recorded(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    session: FakeSession,
) -> None:
    from admission.catalogue import text

    win, wedge = window
    session.operator = None
    lines = case(demo_ctx, "minor").lines
    now = time.monotonic()
    with (
        qtbot.assertNotEmitted(win.controller.verdict_ready, wait=400),
        qtbot.waitSignal(win.controller.scan_rejected, timeout=WAIT) as rejected,
    ):
        wedge.mrz_scanned.emit(MrzScanned("TD1", lines, now, now))
    assert rejected.args[0] == "NO_OPERATOR"
    assert text("NO_OPERATOR", "es") in win.verdict.headline.text() + win.verdict.reasons.text()
    assert win.verdict.outcome == ""
    win_worker_idle(qtbot, win)
    assert visits_of(demo_ctx, lines) == []


# -- the desk in English (the translation the app installs for ui.language "en") --------
def test_the_desk_in_english_admits_and_refuses(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> None:
    if importlib.util.find_spec("ui.desk.i18n") is None:
        pytest.skip("no ui.desk.i18n: the window has no translation")
    from PySide6.QtWidgets import QApplication

    from ui.desk.i18n import install_translator
    from ui.desk.text import set_language

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    translator = install_translator(app, "en")  # compiles desk_en.qm when missing/stale
    assert translator is not None, "desk_en.qm could not be compiled or loaded"
    set_language("en")
    seed_demo_file(demo_ctx)
    win = build_desk_window(
        demo_ctx,
        session,
        authorise=lambda purpose: DIRECTOR,
        demo=True,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    try:
        qtbot.addWidget(win)
        wedge = WedgeFilter(parent=win)
        win.connect_wedge(wedge)
        win.resize(1200, 760)
        win.show()
        qtbot.waitExposed(win)
        win.activateWindow()
        win.start()
        scan(qtbot, win, wedge, case(demo_ctx, "admitted").lines)
        assert "ADMIT" in win.verdict.headline.text()
        with qtbot.waitSignal(win.controller.card_printed, timeout=WAIT):
            enter(qtbot, win)
        assert "printed" in win.verdict.progress.text().lower()
        assert "One-day entry" in win.card_type.text()
        screenshot(win, "desk-admit-en")
        key(qtbot, win, Qt.Key.Key_Escape)
        with qtbot.waitSignal(win.controller.admission_recorded, timeout=WAIT):
            scan(qtbot, win, wedge, case(demo_ctx, "minor").lines)
        assert win.verdict.outcome == "DENY"
        assert text_of("MINOR", "en") in win.verdict.reasons.text()
        screenshot(win, "desk-deny-minor-en")
    finally:
        win.stop()
        app.removeTranslator(translator)
        install_translator(app, "es")  # the Spanish locale back (the source language)
        set_language("es")


def text_of(code: str, lang: str) -> str:
    from admission.catalogue import text

    return text(code, lang)


# -- the register cannot be checked (art. 20.2): the configured outcome, fail closed --
def unverifiable_window(
    qtbot: QtBot,
    tmp_path: Path,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
    outcome: str,
    *,
    stale: bool,
) -> tuple[DeskWindow, WedgeFilter, AppContext]:
    """A demo file with no online RIAJ service and ``admission.unverifiable`` =
    ``outcome``; the replica absent, or imported and then left older than its maximum
    age (``stale``)."""
    from main import build_context, build_tools
    from tests.ui.conftest import NOBODY_LISTED, seed_register

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    tools = build_tools(tmp_path / "demo", clock=clock, demo=True)
    assert tools.settings["registry.online_url"] == ""  # no online service
    tools.settings.set("admission.unverifiable", outcome)
    ctx = build_context(tools)
    if stale:
        seed_register(ctx, [NOBODY_LISTED])
        age = tools.settings["registry.max_replica_age_hours"]
        clock.set(clock.now() + timedelta(hours=age + 1))
    win = build_desk_window(
        ctx,
        FakeSession(),
        authorise=lambda purpose: DIRECTOR,
        demo=True,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    wedge = WedgeFilter(parent=win)
    win.connect_wedge(wedge)
    win.resize(1200, 760)
    win.show()
    qtbot.waitExposed(win)
    win.start()
    return win, wedge, ctx


def registry_of_visits(ctx: AppContext, lines: tuple[str, ...]) -> list[tuple[str, str]]:
    from ui.desk.desk_flow import document_from_lines

    document, _ = document_from_lines(list(lines), madrid_date(ctx.clock.now()))
    assert document is not None
    visitor = ctx.store.find_visitor(document.identity)
    assert visitor is not None
    return [(v.registry.status, v.registry.source) for v in ctx.store.visits(visitor.file_number)]


@pytest.mark.parametrize("stale", [False, True], ids=["replica-absent", "replica-stale"])
def test_an_unverifiable_register_is_not_admitted_when_so_configured(
    qtbot: QtBot,
    tmp_path: Path,
    desk_clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
    stale: bool,
) -> None:
    win, wedge, ctx = unverifiable_window(
        qtbot, tmp_path, desk_clock, monkeypatch, "DENY", stale=stale
    )
    try:
        lines = case(ctx, "admitted").lines  # an adult nobody bans: only the register fails
        with qtbot.waitSignal(win.controller.admission_recorded, timeout=WAIT) as recorded:
            scan(qtbot, win, wedge, lines)
        # fail closed (art. 20.1-2), but not a refusal of the person: NOT_ADMITTED
        assert win.verdict.outcome == "NOT_ADMITTED"
        assert "NO ADMITIDO" in win.verdict.headline.text()
        assert "no es una denegación" in win.verdict.progress.text()
        result = recorded.args[0]
        assert result.verdict.codes == ("REGISTRY_UNVERIFIABLE",) and result.card is None
        expected = "REPLICA_STALE" if stale else "REPLICA_EMPTY"
        assert result.evaluation.registry.error == expected, result.evaluation.registry
        from admission.catalogue import text

        assert text("REGISTRY_UNVERIFIABLE", "es") in win.verdict.reasons.text()
        assert visits_of(ctx, lines) == [("NOT_ADMITTED", "clerk1", None)]
        assert registry_of_visits(ctx, lines)[0][0] == "UNVERIFIABLE"
        with qtbot.assertNotEmitted(win.controller.admission_recorded, wait=300):
            enter(qtbot, win)  # not admitted: Enter issues nothing
        assert ctx.store.last_card_number() == 0
        if not stale:
            qtbot.waitUntil(lambda: "sin copia local" in win.status.text_of("register"))
        screenshot(win, f"desk-unverifiable-not-admitted-{'stale' if stale else 'absent'}")
    finally:
        win.stop()
        ctx.close()


@pytest.mark.parametrize("stale", [False, True], ids=["replica-absent", "replica-stale"])
def test_an_unverifiable_register_goes_to_the_director_when_so_configured(
    qtbot: QtBot,
    tmp_path: Path,
    desk_clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
    stale: bool,
) -> None:
    win, wedge, ctx = unverifiable_window(
        qtbot, tmp_path, desk_clock, monkeypatch, "SUPERVISOR", stale=stale
    )
    try:
        today = madrid_date(ctx.clock.now())
        first = case(ctx, "admitted").lines  # two adults nobody bans: only the register fails
        second = next(c for c in demo_cases(today, 1) if c.kind == "admitted").lines
        assert first != second
        # the director authorises: admitted, the card carries the director's name
        with qtbot.assertNotEmitted(win.controller.admission_recorded, wait=300):
            scan(qtbot, win, wedge, first)
        assert win.verdict.outcome == "SUPERVISOR"
        assert win.controller.current is not None
        assert win.controller.current.evaluation.verdict.codes == ("REGISTRY_UNVERIFIABLE",)
        screenshot(win, f"desk-unverifiable-supervisor-{'stale' if stale else 'absent'}")
        with qtbot.waitSignal(win.controller.card_printed, timeout=WAIT) as printed:
            enter(qtbot, win)
        card = ctx.store.card(printed.args[0])
        assert card is not None and card.authorised_by == "director1"
        assert visits_of(ctx, first) == [("ADMIT", "clerk1", card.number)]
        assert registry_of_visits(ctx, first)[0][0] == "UNVERIFIABLE"
        # not authorised: recorded as shown when dismissed, no card
        key(qtbot, win, Qt.Key.Key_Escape)
        scan(qtbot, win, wedge, second)
        assert win.verdict.outcome == "SUPERVISOR"
        with qtbot.waitSignal(win.controller.dismissal_recorded, timeout=WAIT):
            key(qtbot, win, Qt.Key.Key_Escape)
        assert visits_of(ctx, second) == [SUPERVISOR_SHOWN]
        assert ctx.store.last_card_number() == card.number
    finally:
        win.stop()
        ctx.close()

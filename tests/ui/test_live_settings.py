"""Settings saved while the desk runs take effect at once: the next document is judged
by the hours and the last-hour rule just saved (arts. 21.4, 27), Enter charges the
price and type just saved (art. 23.2-3), the window turns to the language just chosen;
the settings read only at start say so in the dialog and in the status bar."""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from admission.clock import FixedClock
from admission.desk import AdmissionResult
from admission.verdict import Outcome, Reason
from tests.ui.conftest import DESK_T0, FakeSession
from tests.ui.test_desk_menus import case, make_window, menus_of, press, screenshot
from ui.context import AppContext
from ui.desk.controller import DeskState
from ui.desk.desk_window import DeskWindow
from ui.desk.dialogs.settings import RESTART_MARK, SettingsDialog
from ui.desk.workers import StoreWorker

ADMIN = Operator("admin1", "Admin One", frozenset({Role.ADMIN}))
CLERK_AND_ADMIN = Operator("clerk9", "Clerk Nine", frozenset({Role.CLERK, Role.ADMIN}))


@pytest.fixture
def desk(qtbot: QtBot, demo_ctx: AppContext) -> Iterator[DeskWindow]:
    win = make_window(qtbot, demo_ctx, FakeSession(CLERK_AND_ADMIN))
    yield win
    win.stop()


def open_settings(qtbot: QtBot, win: DeskWindow) -> SettingsDialog:
    """Ctrl+Shift+G, as the administrator at the desk would."""
    menus = menus_of(win)
    menus.dialog = None
    press(win, "Ctrl+Shift+G")
    dialog = menus.dialog
    assert isinstance(dialog, SettingsDialog) and dialog.allowed
    return dialog


def save(qtbot: QtBot, dialog: SettingsDialog) -> None:
    QTest.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=2000)


def present(win: DeskWindow, ctx: AppContext, kind: str = "admitted") -> Outcome:
    win.controller.clear()
    win.controller.submit_mrz(case(ctx, kind).lines)
    assert win.controller.current is not None
    return win.controller.current.evaluation.verdict.outcome


def reasons(win: DeskWindow) -> set[str]:
    assert win.controller.current is not None
    return {str(r) for r in win.controller.current.evaluation.verdict.reasons}


def test_hours_saved_judge_the_very_next_document(
    qtbot: QtBot, desk: DeskWindow, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    # Thursday 20:00 in Madrid (DESK_T0): no hours set, the desk admits
    assert present(desk, demo_ctx) is Outcome.ADMIT
    dialog = open_settings(qtbot, desk)
    dialog.hours.days["thu"].setText("21:00-05:00")
    save(qtbot, dialog)
    assert present(desk, demo_ctx) is Outcome.DENY and Reason.CLOSED in reasons(desk)
    screenshot(desk, "live-settings-hours-closed")

    # the games end at 20:30 and the last hour stops admissions (art. 21.4)
    dialog = open_settings(qtbot, desk)
    dialog.hours.days["thu"].setText("18:00-20:30")
    dialog.hours.last_hour.setChecked(True)
    save(qtbot, dialog)
    assert present(desk, demo_ctx) is Outcome.DENY and Reason.LAST_HOUR in reasons(desk)

    desk_clock.set(DESK_T0.replace(hour=16))  # 17:00 in Madrid: before the opening
    assert present(desk, demo_ctx) is Outcome.DENY and Reason.CLOSED in reasons(desk)
    desk_clock.set(DESK_T0.replace(hour=18))  # 19:00: open, out of the last hour
    assert present(desk, demo_ctx) is Outcome.ADMIT

    desk_clock.set(DESK_T0)
    dialog = open_settings(qtbot, desk)
    dialog.hours.last_hour.setChecked(False)
    save(qtbot, dialog)
    assert desk.status.currentMessage() == "Configuración aplicada"
    assert present(desk, demo_ctx) is Outcome.ADMIT


def test_prices_and_card_types_saved_are_charged_at_the_next_enter(
    qtbot: QtBot, desk: DeskWindow, demo_ctx: AppContext
) -> None:
    recorded: list[AdmissionResult] = []
    desk.controller.admission_recorded.connect(recorded.append)
    dialog = open_settings(qtbot, desk)
    cards = dialog.cards
    cards.table.item(0, 4).setText("7,50")  # DAY
    cards.table.item(0, 1).setText("Entrada de hoy")
    save(qtbot, dialog)
    assert desk.card_type_actions[0].text() == "Entrada de hoy"  # F1 follows
    assert "Entrada de hoy" in desk.card_type.text()
    assert present(desk, demo_ctx) is Outcome.ADMIT
    press(desk, "Return")
    qtbot.waitUntil(lambda: len(recorded) == 1, timeout=3000)
    card = recorded[0].card
    assert card is not None and card.card_type == "DAY" and card.price_cents == 750

    # a new default type, added while the desk runs: Enter charges it
    dialog = open_settings(qtbot, desk)
    cards = dialog.cards
    cards.add_button.click()
    row = cards.table.rowCount() - 1
    for column, value in ((0, "night"), (1, "Noche"), (2, "Night"), (4, "4"), (5, "1")):
        cards.table.item(row, column).setText(value)
    cards.default.setCurrentText("NIGHT")
    save(qtbot, dialog)
    assert desk.controller.card_type == "NIGHT"
    assert [a.text() for a in desk.card_type_actions][-1] == "Noche"
    desk.controller.clear()
    desk.controller.submit_mrz(case(demo_ctx, "admitted", 1).lines)
    assert desk.controller.state is DeskState.SHOWN
    press(desk, "Return")
    qtbot.waitUntil(lambda: len(recorded) == 2, timeout=3000)
    card = recorded[1].card
    assert card is not None and card.card_type == "NIGHT" and card.price_cents == 400
    assert demo_ctx.desk.config.catalogue.default == "NIGHT"


def test_the_settings_read_at_start_are_marked_and_said_to_wait(
    qtbot: QtBot, desk: DeskWindow, demo_ctx: AppContext
) -> None:
    dialog = open_settings(qtbot, desk)
    assert "casino.id" in dialog.restart_keys and "registry.online_url" in dialog.restart_keys
    assert "hours" not in dialog.restart_keys and "cards.types" not in dialog.restart_keys
    labels = {label.text() for label in dialog.findChildren(QLabel) if label.text().endswith("⟳")}
    assert "&Identificador:" + RESTART_MARK in labels
    assert "&Horario" not in " ".join(labels)
    assert "⟳" in dialog.applies_note.text()
    screenshot(dialog, "settings-restart-marks")
    dialog.casino.desk_id.setText("DESK7")
    save(qtbot, dialog)
    assert desk.status.currentMessage().endswith("desk.id")
    assert "Se aplica al reiniciar" in desk.status.currentMessage()
    assert demo_ctx.desk.config.desk_id == "DESK1"  # read at start: the next start


def test_a_save_is_in_force_within_a_second_on_the_store_worker(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    """The real worker thread: saved, reconfigured between two evaluations, applied."""
    from hardware.sound import TonePlayer
    from ui.desk.window_build import build_desk_window

    worker = StoreWorker()
    win = build_desk_window(
        demo_ctx,
        FakeSession(CLERK_AND_ADMIN),  # type: ignore[arg-type]
        authorise=lambda purpose: None,
        demo=True,
        runner=worker,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    try:
        assert isinstance(win.runner, StoreWorker)
        menus = menus_of(win)
        dialog = menus.admin.open_settings()
        assert isinstance(dialog, SettingsDialog)
        dialog.hours.days["thu"].setText("21:00-05:00")
        started = time.monotonic()
        with qtbot.waitSignal(win.controller.settings_applied, timeout=1000):
            assert dialog.save()
        elapsed = time.monotonic() - started
        assert elapsed < 1.0
        print(f"\nsettings saved -> in force on the store worker: {elapsed * 1000:.0f} ms")
        with qtbot.waitSignal(win.controller.verdict_ready, timeout=3000) as shown:
            win.controller.submit_mrz(case(demo_ctx, "admitted").lines)
        verdict = shown.args[0].evaluation.verdict
        assert verdict.outcome is Outcome.DENY and Reason.CLOSED in verdict.reasons
    finally:
        win.stop()
        worker.stop()


# -- the language: the window is built again in the language saved ------------------
@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    from main import build_context, build_tools
    from ui.desk.app import AppStart, DeskShell, make_application

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    clock = FixedClock(DESK_T0)
    start = AppStart(
        build_tools=partial(build_tools, tmp_path / "demo", clock=clock, demo=True),
        build_context=build_context,
        demo=True,
    )
    desk_shell = DeskShell(make_application(), start)
    assert desk_shell.open() is None
    yield desk_shell
    desk_shell.close()
    from ui.desk.i18n import install_translator

    install_translator(QApplication.instance(), "es")  # type: ignore[arg-type]


def approved_settings(win: DeskWindow, ctx: AppContext) -> SettingsDialog:
    """The settings screen of the shell's window, the demo file's director approving."""
    assert win.menus is not None
    director = ctx.accounts.account("director")
    assert director is not None
    win.menus.ask_admin = lambda purpose: director.operator()
    dialog = win.menus.admin.open_settings()
    assert isinstance(dialog, SettingsDialog)
    return dialog


def test_the_language_saved_turns_the_running_window(qtbot: QtBot, shell: object) -> None:
    from ui.desk.app import DeskShell

    assert isinstance(shell, DeskShell) and shell.window is not None and shell.ctx is not None
    first = shell.window
    assert first.windowTitle() == "Admisión — control de entrada"
    dialog = approved_settings(first, shell.ctx)
    dialog.display.language.setCurrentIndex(dialog.display.language.findData("en"))
    assert dialog.save()
    qtbot.waitUntil(lambda: shell.window is not first, timeout=1000)
    window = shell.window
    assert window is not None and window.isVisible()
    assert window.windowTitle() == "Admission — entry control"
    assert window.card_type_actions[0].text() == "One-day entry"
    assert window.session is first.session and window.ctx is shell.ctx  # same desk
    assert shell.ctx.settings["ui.language"] == "en"
    screenshot(window, "live-settings-language-en")
    with qtbot.waitSignal(window.controller.verdict_ready, timeout=3000):
        window.controller.submit_mrz(case(shell.ctx, "admitted").lines)


def test_the_register_copy_age_saved_applies_to_the_next_check(
    qtbot: QtBot, desk: DeskWindow, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    """The RIAJ policy (art. 20.2): a copy older than the age allowed answers nothing
    (fail closed); the age saved on the settings screen is the next check's."""
    from datetime import timedelta

    desk_clock.set(DESK_T0 + timedelta(hours=30))  # the copy is 30 h old (24 h allowed)
    assert present(desk, demo_ctx) is not Outcome.ADMIT
    assert Reason.REGISTRY_UNVERIFIABLE in reasons(desk)
    dialog = open_settings(qtbot, desk)
    dialog.registry.max_age.setValue(48)
    save(qtbot, dialog)
    desk.controller.clear()
    desk.controller.submit_mrz(case(demo_ctx, "admitted", 2).lines)
    assert desk.controller.current is not None
    assert desk.controller.current.evaluation.verdict.outcome is Outcome.ADMIT


def test_a_device_saved_builds_the_window_again_and_others_do_not(
    qtbot: QtBot, shell: object
) -> None:
    from ui.desk.app import DeskShell

    assert isinstance(shell, DeskShell) and shell.window is not None and shell.ctx is not None
    first = shell.window
    dialog = approved_settings(first, shell.ctx)
    dialog.hours.days["thu"].setText("20:00-05:00")  # the services' own: same window
    assert dialog.save()
    qtbot.wait(200)
    assert shell.window is first
    dialog = approved_settings(first, shell.ctx)
    dialog.devices.serial.setText("/dev/ttyUSB7")  # a reader the window opens
    assert dialog.save()
    qtbot.waitUntil(lambda: shell.window is not first, timeout=1000)
    from shiboken6 import isValid

    assert shell.window is not None and shell.window.isVisible()
    assert not isValid(first) or not first.isVisible()  # closed, then deleted


def test_the_window_waits_for_the_verdict_on_screen_before_turning(
    qtbot: QtBot, shell: object
) -> None:
    """Saved while a visitor's ADMIT is on screen: the window keeps it until the clerk
    settles it (Enter here), then turns to the language saved - nothing dismissed on
    the clerk's behalf."""
    from ui.desk.app import DeskShell

    assert isinstance(shell, DeskShell) and shell.window is not None and shell.ctx is not None
    first = shell.window
    recorded: list[AdmissionResult] = []
    first.controller.admission_recorded.connect(recorded.append)
    with qtbot.waitSignal(first.controller.verdict_ready, timeout=3000):
        first.controller.submit_mrz(case(shell.ctx, "admitted", 3).lines)
    assert first.controller.state is DeskState.SHOWN
    dialog = approved_settings(first, shell.ctx)
    dialog.display.language.setCurrentIndex(dialog.display.language.findData("en"))
    assert dialog.save()
    qtbot.wait(700)
    assert shell.window is first and first.controller.state is DeskState.SHOWN
    first.controller.admit()  # the clerk's Enter
    qtbot.waitUntil(lambda: bool(recorded), timeout=3000)
    qtbot.waitUntil(lambda: shell.window is not first, timeout=2000)
    card = recorded[0].card
    assert card is not None  # admitted, not dismissed

"""Observations from the desk window (art. 20.3) on the real demo file: Ctrl+Shift+B
opens the dialog on the file of the visitor on screen, Enter writes the observation
under the signed-in operator's name (audited), and the identity panel shows it at the
visitor's next presentation; a text that cannot be kept and an operator who may not
write are refused with the catalogue's words and nothing is written. Screenshots in
Spanish and English."""

from __future__ import annotations

from datetime import timedelta

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.clock import FixedClock
from tests.ui.conftest import DIRECTOR, FakeSession, english
from tests.ui.test_desk_menus import case, make_window, menus_of, press, screenshot, window
from ui.context import AppContext
from ui.desk.controller import DeskState
from ui.desk.desk_window import DeskWindow
from ui.desk.dialogs.observation import ObservationDialog

ADMIN = Operator("admin1", "Admin One", frozenset({Role.ADMIN}))
NOTE = "Pidio la hoja de reclamaciones por la espera"  # typed: QTest types ASCII


__all__ = ["window"]  # the fixture: the desk window on the demo file (tests/ui/test_desk_menus)


def recorded_visitor(qtbot: QtBot, win: DeskWindow, ctx: AppContext, kind: str) -> int:
    """The demo person ``kind`` presented and recorded; their file number."""
    win.controller.submit_mrz(case(ctx, kind).lines)
    if win.controller.state is DeskState.SHOWN:
        qtbot.keyClick(win, Qt.Key.Key_Return)  # type: ignore[no-untyped-call]
    qtbot.waitUntil(lambda: win.controller.state is DeskState.RECORDED, timeout=5000)
    current = win.controller.current
    assert current is not None
    visitor = ctx.store.find_visitor(current.document.identity)
    assert visitor is not None
    return visitor.file_number


def open_dialog(win: DeskWindow) -> ObservationDialog:
    press(win, "Ctrl+Shift+B")
    dialog = menus_of(win).dialog
    assert isinstance(dialog, ObservationDialog)
    return dialog


def test_the_clerk_notes_the_visitor_on_screen_and_the_next_visit_shows_it(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    number = recorded_visitor(qtbot, window, demo_ctx, "banned")
    dialog = open_dialog(window)
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.file_number.value() == number
    assert dialog.visitor.text() and dialog.focusWidget() is dialog.text  # to the text
    qtbot.keyClicks(dialog.text, NOTE)  # type: ignore[no-untyped-call]
    assert dialog.count.text().startswith(str(len(NOTE)))
    screenshot(dialog, "observation-dialog-es")
    with qtbot.waitSignal(dialog.observation_added, timeout=5000):
        qtbot.keyClick(dialog.text, Qt.Key.Key_Return)  # type: ignore[no-untyped-call]
    qtbot.waitUntil(lambda: not dialog.isVisible())
    [kept] = demo_ctx.store.observations(number)
    assert (kept.text, kept.author) == (NOTE, "clerk1")
    assert str(number) in window.status.currentMessage()
    entries = [e for e in demo_ctx.store.audit_entries() if e.action == "OBSERVATION"]
    assert [(e.actor, e.subject) for e in entries] == [("clerk1", f"file:{number}")]
    assert window.identity.observations.text() == ""  # nothing yet on this verdict
    # the visitor's next presentation, later in the night
    window.controller.clear()  # Esc
    desk_clock.set(desk_clock.now() + timedelta(minutes=40))
    window.controller.submit_mrz(case(demo_ctx, "banned").lines)
    qtbot.waitUntil(lambda: NOTE in window.identity.observations.text(), timeout=5000)
    # who wrote it and when, before the text (20:00 in Madrid on 03/12/2026)
    assert window.identity.observations.text() == f"03/12/2026 · clerk1: {NOTE}"
    screenshot(window, "observation-next-visit-es")


def test_what_cannot_be_kept_is_refused_with_the_catalogues_words(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    number = recorded_visitor(qtbot, window, demo_ctx, "banned")
    dialog = open_dialog(window)
    qtbot.keyClick(dialog.text, Qt.Key.Key_Return)  # type: ignore[no-untyped-call]
    assert dialog.isVisible() and dialog.errors.code == "OBSERVATION_TEXT_INVALID"
    assert dialog.errors.text() == text("OBSERVATION_TEXT_INVALID")
    dialog.text.setText("x" * 600)
    assert len(dialog.text.text()) == 500  # the field holds no more than the file keeps
    dialog.text.setText("nota")
    dialog.file_number.setValue(number + 1000)
    dialog.submit()
    assert dialog.errors.code == "OBSERVATION_FILE_UNKNOWN"
    dialog.reject()
    assert demo_ctx.store.observations(number) == []


def test_an_administrator_cannot_write_and_a_typed_file_number_is_asked_first(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    win = make_window(qtbot, demo_ctx, FakeSession(ADMIN))
    try:
        dialog = open_dialog(win)
        qtbot.waitUntil(dialog.isVisible)
        assert dialog.file_number.value() == 0
        assert dialog.focusWidget() is dialog.file_number
        assert not dialog.visitor.isVisible()
        dialog.file_number.setValue(1)
        dialog.text.setText("nota")
        dialog.submit()
        assert dialog.errors.code == "OBSERVATION_ROLE_REQUIRED" and dialog.isVisible()
        dialog.reject()
    finally:
        win.stop()


def test_the_director_writes_in_english(qtbot: QtBot, demo_ctx: AppContext) -> None:
    english()
    win = make_window(qtbot, demo_ctx, FakeSession(DIRECTOR))
    try:
        number = recorded_visitor(qtbot, win, demo_ctx, "banned")
        dialog = open_dialog(win)
        qtbot.waitUntil(dialog.isVisible)
        assert "Observation" in dialog.windowTitle()
        assert dialog.add_button.text().replace("&", "") == "Add to the file"
        dialog.submit()
        assert dialog.errors.text() == text("OBSERVATION_TEXT_INVALID", "en")
        qtbot.keyClicks(dialog.text, "Leave for the private room, table 4")  # type: ignore[no-untyped-call]
        screenshot(dialog, "observation-dialog-en")
        with qtbot.waitSignal(dialog.observation_added, timeout=5000):
            dialog.submit()
        assert [o.author for o in demo_ctx.store.observations(number)] == ["director1"]
    finally:
        win.stop()

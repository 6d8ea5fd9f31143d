"""Help at the desk: F12 lays every key of the window over it, built from the menus
themselves (so no key is missing or stale), any key closes it; F11 opens the
regulation's text (art. 25.1), which can be searched and printed on the real leaflet
queue of the demo (the PDF folder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from tests.ui.conftest import FakeSession
from tests.ui.test_desk_menus import make_window, press, screenshot, window
from tests.ui.test_translations import english  # noqa: F401  # the English fixture
from ui.context import AppContext
from ui.desk.desk_window import DeskWindow
from ui.desk.dialogs.help import RegulationDialog
from ui.desk.menus.help import REGULATION_KEY, SHORTCUTS_KEY, HelpMenu

__all__ = ["window"]  # the fixture: the desk window on the demo file (tests/ui/test_desk_menus)


def help_of(win: DeskWindow) -> HelpMenu:
    assert win.help is not None
    return win.help


def test_help_keys_are_free_and_listed_in_a_help_menu(window: DeskWindow) -> None:
    menu = help_of(window).menu
    keys = {a.shortcut().toString() for a in menu.actions()}
    assert keys == {SHORTCUTS_KEY, REGULATION_KEY}
    # no other action of the window answers the same keys (F1-F8 are the card types)
    for action in window.findChildren(type(menu.actions()[0])):
        if action.menu() is None and action not in menu.actions():
            assert action.shortcut().toString() not in keys, action.text()


def test_f12_lists_every_key_of_the_window_and_any_key_closes_it(
    qtbot: QtBot, window: DeskWindow
) -> None:
    press(window, SHORTCUTS_KEY)
    overlay = help_of(window).overlay
    assert overlay is not None
    qtbot.waitUntil(overlay.isVisible)
    assert overlay.geometry() == window.rect()
    listed = {keys for _group, keys, _title in overlay.rows}
    native = QKeySequence.SequenceFormat.NativeText
    # every action with a key, in any menu or on the window itself, is on the sheet
    for action in window.actions():
        for shortcut in action.shortcuts():
            if not shortcut.isEmpty() and action.isVisible():
                assert any(shortcut.toString(native) in keys for keys in listed), action.text()
    # Enter records, F1 chooses the first card type, F9 the voucher, F11 the regulation
    titles = " ".join(title for _g, _k, title in overlay.rows)
    for key in ("F1", "F9", REGULATION_KEY, "Ctrl+M", "Ctrl+K"):
        shown = QKeySequence(key).toString(native)  # "Control+M" in a Spanish window
        assert any(shown == k or k.startswith(shown + " ") for k in listed), (shown, listed)
    assert "Volante provisional" in titles
    screenshot(window, "help-shortcuts-es")
    QTest.keyClick(overlay, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not overlay.isVisible())


def test_f11_opens_the_regulation_which_can_be_searched(qtbot: QtBot, window: DeskWindow) -> None:
    press(window, REGULATION_KEY)
    dialog = help_of(window).regulation
    assert isinstance(dialog, RegulationDialog)
    qtbot.waitUntil(dialog.isVisible)
    text = dialog.body.toPlainText()
    assert "Artículo 25" in text or "Art. 25" in text or "artículo 25" in text.lower()
    qtbot.waitUntil(dialog.search.hasFocus)  # typing goes straight to the find field
    QTest.keyClicks(dialog.search, "tarjeta de entrada")
    QTest.keyClick(dialog.search, Qt.Key.Key_Return)
    assert dialog.body.textCursor().selectedText().lower() == "tarjeta de entrada"
    first = dialog.body.textCursor().position()
    QTest.keyClick(dialog.search, Qt.Key.Key_Return)
    assert dialog.body.textCursor().position() > first  # the next one, not the same
    assert dialog.isVisible()  # Enter finds: it never presses Close
    dialog.search.setText("palabra-que-no-esta-en-el-reglamento")
    assert dialog.find_next() is False
    assert dialog.errors.text() != ""
    screenshot(dialog, "help-regulation-es")
    dialog.reject()


def test_the_regulation_prints_on_the_leaflet_queue(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    press(window, REGULATION_KEY)
    dialog = help_of(window).regulation
    assert dialog is not None and dialog.print_button is not None
    folder = demo_pdfs(demo_ctx)
    before = set(folder.glob("*.pdf")) if folder.exists() else set()
    dialog.print_button.click()  # the window's runner is immediate in these tests
    after = set(folder.glob("*.pdf"))
    new = after - before
    assert len(new) == 1
    assert next(iter(new)).read_bytes().startswith(b"%PDF")
    assert dialog.errors.text() == "Enviado a la impresora"
    dialog.reject()


def test_an_unreadable_regulation_says_so(qtbot: QtBot) -> None:
    def missing() -> str:
        from admission.errors import ConfigError
        from hardware.printer.desk_documents import PaperError

        raise ConfigError("gone", code=PaperError.REGULATION_UNREADABLE)

    dialog = RegulationDialog(missing)
    qtbot.addWidget(dialog)
    assert dialog.body.toPlainText() == ""
    assert dialog.errors.text() not in ("", "REGULATION_UNREADABLE")
    assert dialog.print_button is None


def demo_pdfs(ctx: AppContext) -> Path:
    """The folder the demo's fake printers write their PDFs to."""
    printer = ctx.documents._leaflet_printer()
    folder = getattr(printer, "folder", None)
    assert isinstance(folder, Path), printer
    return folder


@pytest.mark.usefixtures("english")
def test_help_speaks_english(qtbot: QtBot, demo_ctx: AppContext, session: FakeSession) -> None:
    win = make_window(qtbot, demo_ctx, session)
    try:
        assert help_of(win).menu.title() == "&Help"
        press(win, SHORTCUTS_KEY)
        overlay = help_of(win).overlay
        assert overlay is not None
        titles = {title for _g, _k, title in overlay.rows}
        assert "Keyboard shortcuts" in titles and "Atajos de teclado" not in titles
        screenshot(win, "help-shortcuts-en")
        overlay.close()
        press(win, REGULATION_KEY)
        dialog = help_of(win).regulation
        assert dialog is not None
        assert dialog.windowTitle() == "Casino Gaming Regulation (Decree 58/2006)"
        screenshot(dialog, "help-regulation-en")
        dialog.reject()
    finally:
        win.stop()

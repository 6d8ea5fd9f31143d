"""The window's Help menu: every key on one sheet (F12) and the regulation (F11, art. 25).

F1-F8 choose the card type and F9 the provisional voucher, so help takes the free keys
at the other end of the row. The menu registers its actions through the window's own
API (``add_menu`` / ``add_action``) and asks the desk's papers for the regulation's text
and its print through two callables, run on the store worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from admission.errors import AdmissionError
from ui.desk.dialogs.help import RegulationDialog, ShortcutsOverlay, shortcut_rows
from ui.desk.host import shortcut_action
from ui.desk.jobs import JobRunner

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow

__all__ = ["MENU_HELP", "REGULATION_KEY", "SHORTCUTS_KEY", "HelpMenu"]

MENU_HELP = "help"
SHORTCUTS_KEY = "F12"
REGULATION_KEY = "F11"


class HelpMenu(QObject):
    """``overlay`` / ``regulation``: the sheet or dialog last opened (tests, the shell)."""

    def __init__(
        self,
        window: QMainWindow,
        runner: JobRunner,
        regulation_text: Callable[[], str],
        print_regulation: Callable[[], tuple[str, str]] | None = None,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.runner = runner
        self._text = regulation_text
        self._print = print_regulation
        self.overlay: ShortcutsOverlay | None = None
        self.regulation: RegulationDialog | None = None
        title = self.tr("Ay&uda")
        self.menu = window.menuBar().addMenu(title)
        self.menu.setObjectName(f"menu_{MENU_HELP}")
        self.menu.setAccessibleName(title.replace("&", ""))
        self.shortcuts_action = self._action(
            "shortcuts", self.tr("&Atajos de teclado"), SHORTCUTS_KEY, self.show_shortcuts
        )
        self.regulation_action = self._action(
            "regulation",
            self.tr("&Reglamento de casinos (art. 25)…"),
            REGULATION_KEY,
            self.open_regulation,
        )

    def _action(self, name: str, title: str, keys: str, slot: Callable[[], object]) -> QAction:
        action = shortcut_action(self.window, name, title, keys, slot)
        self.menu.addAction(action)
        self.window.addAction(action)
        return action

    def show_shortcuts(self) -> ShortcutsOverlay:
        """The sheet of keys, built from the menus as they are now (the Enter, Esc and
        card-type keys of the window itself under "Admisión" first)."""
        bar = self.window.menuBar()
        groups: list[tuple[str, list[QAction]]] = []
        in_menus: set[int] = set()
        for action in bar.actions():
            menu = action.menu()
            if not isinstance(menu, QMenu):
                continue
            entries = list(menu.actions())
            in_menus.update(id(a) for a in entries)
            if action.isVisible():  # a menu hidden from this operator lists nothing
                groups.append((action.text().replace("&", ""), entries))
        # the counter's own keys (Enter, Esc, F1-F8): window actions outside every menu
        counter = [a for a in self.window.actions() if id(a) not in in_menus]
        groups.insert(0, (self.tr("Mostrador"), counter))
        if self.overlay is not None:
            self.overlay.deleteLater()
        self.overlay = ShortcutsOverlay(self.window, shortcut_rows(groups))
        self.overlay.open()
        return self.overlay

    def open_regulation(self) -> RegulationDialog:
        printer = self.print_regulation if self._print is not None else None
        dialog = RegulationDialog(self._text, printer, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.regulation = dialog
        dialog.show()
        dialog.activateWindow()
        dialog.search.setFocus()
        return dialog

    def print_regulation(self) -> None:
        if self._print is None:
            return
        job = self._print
        dialog = self.regulation

        def done(answer: tuple[str, str]) -> None:
            if dialog is not None:
                dialog.show_printed(answer[0])

        def failed(error: AdmissionError) -> None:
            if dialog is not None:
                dialog.show_printed(error.code or "PRINT_FAILED")

        self.runner.submit(job, done, failed)

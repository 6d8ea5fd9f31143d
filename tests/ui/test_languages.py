"""Every text of the window in the window's language, walked through the real window
offscreen in Spanish and in English: the desk with each kind of verdict on screen, then
every dialog its menus open (as the game director, who may open them all), then Qt's own
message and file dialogs.

A text "of the other language" is found three ways:

* a source text of ``desk_en.ts`` whose English differs, shown in the English window, or
  that English shown in the Spanish one (a string left out of ``self.tr``, a wrong
  context, a translator not installed);
* a text of the catalogue (``admission.catalogue``: verdict reasons, warnings, refusals,
  the figures' labels) in the other language;
* Qt's own words (standard buttons, the file dialog) in English in the Spanish window -
  PySide6's ``qtbase_es.qm`` must be installed - or Spanish ones in the English window.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QTabWidget,
    QWidget,
    QWizard,
    QWizardPage,
)
from pytestqt.qtbot import QtBot

from admission.catalogue import entries
from tests.ui.conftest import open_demo_shell
from tests.ui.test_translations import TS, read_ts
from ui.desk.app import DeskShell
from ui.desk.demo_scenario import demo_cases
from ui.desk.widgets import WrappedLabel

LANGUAGES = ("es", "en")
# keys that end the walk or need nothing but a key: not dialogs
NOT_WALKED = {"action_lock", "action_sign_out"}
KEYS_NOT_WALKED = {"Return", "Esc", "Ctrl+P", *(f"F{n}" for n in range(1, 9))}
MIN_CATALOGUE = 12  # shorter catalogue texts are single words both languages share
# Qt's own texts as Qt writes them in its source (English) and as qtbase_es.qm has them
QT_ENGLISH = {
    "OK",
    "&OK",
    "Cancel",
    "&Cancel",
    "Close",
    "&Close",
    "Save",
    "&Save",
    "Open",
    "&Open",
    "&Yes",
    "Yes",
    "Yes to &All",
    "N&o to All",
    "Apply",
    "&Apply",
    "Reset",
    "Restore Defaults",
    "Help",
    "Discard",
    "Abort",
    "Retry",
    "Ignore",
    "Look in:",
    "File name:",
    "File &name:",
    "Files of type:",
    "Back",
    "Forward",
    "Parent Directory",
    "Create New Folder",
    "Detail View",
    "List View",
    "Show Details...",
    "< &Back",
    "&Next >",
    "&Finish",
    "&Commit",
}
QT_SPANISH = {
    "&Aceptar",
    "Aceptar",
    "&Cancelar",
    "Cancelar",
    "&Sí",
    "Sí",
    "Buscar en:",
    "< &Atrás",
    "&Siguiente >",
    "&Finalizar",
}


def visible_texts(root: QWidget) -> set[str]:
    """What a person reads on ``root``: labels (whole), buttons, group and tab titles,
    actions, menus, window titles, list items, combo items, table headers and the
    placeholder texts of fields."""
    found = {root.windowTitle()}
    widgets = [root, *root.findChildren(QWidget)]
    for widget in widgets:
        with contextlib.suppress(RuntimeError):  # a child deleted while it closed
            _read(widget, found)
    for action in root.findChildren(QAction):
        found.add(action.text())
    return {t for t in found if t and t.strip()}


def _read(widget: QWidget, found: set[str]) -> None:
    """The texts of one widget (its children are read on their own)."""
    if isinstance(widget, WrappedLabel):
        found.add(widget.full_text())
    elif isinstance(widget, QLabel | QAbstractButton):
        found.add(widget.text())
    elif isinstance(widget, QGroupBox | QMenu):
        found.add(widget.title())
    elif isinstance(widget, QLineEdit):  # what the program wrote there too ("cerrado")
        found.update((widget.placeholderText(), widget.text()))
    elif isinstance(widget, QComboBox):
        found.update(widget.itemText(i) for i in range(widget.count()))
    elif isinstance(widget, QTabWidget):
        found.update(widget.tabText(i) for i in range(widget.count()))
    elif isinstance(widget, QAbstractItemView) and widget.model() is not None:
        model = widget.model()
        for section in range(min(model.columnCount(), 30)):
            found.add(str(model.headerData(section, Qt.Orientation.Horizontal) or ""))
        for row in range(min(model.rowCount(), 30)):
            for column in range(min(model.columnCount(), 12)):
                found.add(str(model.index(row, column).data() or ""))
    if widget.isWindow():
        found.add(widget.windowTitle())


_PLACEHOLDER = re.compile(r"\\\{\w*\\\}|%\d")  # {0}, {name}, %1 once escaped


class Foreign:
    """The texts of the language that is not the window's."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.exact: set[str] = set()
        self.inside: set[str] = set()
        self.patterns: list[re.Pattern[str]] = []
        for (_ctx, source), english in read_ts(TS).items():
            if english is not None and english.replace("&", "") == source.replace("&", ""):
                continue  # a word both languages write the same
            if language == "en":
                other = source  # English missing or different: Spanish on screen
            elif english is None:
                continue
            else:
                other = english
            self._add(other.replace("&", ""))
        for entry in entries():
            spanish, english = entry.text("es"), entry.text("en")
            if spanish == english:
                continue
            other = spanish if language == "en" else english
            if len(other) >= MIN_CATALOGUE:
                self.inside.add(other)
        qt_words = QT_SPANISH if language == "en" else QT_ENGLISH
        self.exact |= {w.replace("&", "") for w in qt_words}
        self.exact -= self._shared()

    def _add(self, other: str) -> None:
        escaped = re.escape(other)
        if _PLACEHOLDER.search(escaped):
            literal = _PLACEHOLDER.sub("", escaped).replace("\\", "")
            if len(literal.strip()) >= 8:
                self.patterns.append(re.compile(_PLACEHOLDER.sub(".+?", escaped)))
            return
        self.exact.add(other)
        if len(other) >= 24:
            self.inside.add(other)

    @staticmethod
    def _shared() -> set[str]:
        shared = set()
        for (_ctx, source), english in read_ts(TS).items():
            if english is not None and english.replace("&", "") == source.replace("&", ""):
                shared.add(source.replace("&", ""))
        return shared

    def found_in(self, texts: set[str]) -> list[str]:
        problems = []
        for text in texts:
            plain = text.replace("&", "")
            lines = [plain, *plain.splitlines(), *(p.strip(" ⚠·") for p in plain.split("·"))]
            if (
                any(line.strip() in self.exact for line in lines)
                or any(other in plain for other in self.inside)
                or any(pattern.search(plain) for pattern in self.patterns)
            ):
                problems.append(text)
        return sorted(set(problems))


@pytest.fixture
def shell_in(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str], DeskShell]]:
    """A function opening the demo desk in a language (as the game director)."""

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    opened: list[DeskShell] = []

    def open_in(language: str) -> DeskShell:
        data = tmp_path / f"demo-{language}"
        data.mkdir()
        (data / "settings.json").write_text(json.dumps({"version": 2, "ui.language": language}))
        shell = open_demo_shell(qapp, data)
        opened.append(shell)
        assert shell.session is not None and shell.window is not None
        shell.session.sign_in("director", "director-demo")  # every dialog opens for them
        shell.window.resize(1400, 860)
        return shell

    yield open_in
    for shell in opened:
        shell.close()
    from ui.desk.i18n import install_translator

    install_translator(qapp, "es")


def sweep_windows(main: QWidget, seen: dict[str, set[str]], prefix: str) -> None:
    """Read, screenshot and close every window on screen besides ``main``."""
    from ui.desk.screens import save_screenshot

    for widget in QApplication.topLevelWidgets():
        if widget is main or not widget.isVisible() or type(widget).__name__ == "QTipLabel":
            continue
        if isinstance(widget, QMenu):
            widget.close()
            continue
        name = type(widget).__name__
        seen.setdefault(name, set()).update(visible_texts(widget))
        shot = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{prefix}-{name}")[:80]
        with contextlib.suppress(OSError, ValueError):
            save_screenshot(widget, shot)
        if isinstance(widget, QDialog):
            widget.reject()
        else:
            widget.close()


def walk(qtbot: QtBot, shell: DeskShell, language: str) -> dict[str, set[str]]:
    """Every screen of the desk window in ``language``: name -> texts shown."""
    from ui.desk.screens import save_screenshot

    window, ctx = shell.window, shell.ctx
    assert window is not None and ctx is not None
    seen: dict[str, set[str]] = {}
    today = ctx.tools.today()
    for case in demo_cases(today, 0):
        if not case.kind:
            continue
        window.controller.clear()
        with qtbot.waitSignal(window.controller.verdict_ready, timeout=10_000):
            window.controller.submit_mrz(case.lines)
        qtbot.wait(50)
        seen[f"desk-{case.kind}"] = visible_texts(window)
        save_screenshot(window, f"lang-{language}-desk-{case.kind}")
    window.controller.clear()
    admitted = next(c for c in demo_cases(today, 1) if c.kind == "admitted")
    with qtbot.waitSignal(window.controller.verdict_ready, timeout=10_000):
        window.controller.submit_mrz(admitted.lines)  # the dialogs take the document shown
    timer = QTimer()
    timer.timeout.connect(lambda: sweep_windows(window, seen, f"lang-{language}"))
    timer.start(40)
    try:
        for index, action in enumerate(list(window.actions())):
            name = action.objectName() or f"action{index}"
            keys = action.shortcut().toString()
            if name in NOT_WALKED or keys in KEYS_NOT_WALKED or not action.isEnabled():
                continue
            action.trigger()
            qtbot.wait(120)
            seen[f"desk-after-{name}"] = visible_texts(window)  # overlays on the window
            sweep_windows(window, seen, f"lang-{language}")
    finally:
        timer.stop()
    seen.update(start_dialogs(qtbot, shell, language))
    seen["qt-message-box"] = qt_message_box(qtbot)
    seen["qt-file-dialog"] = qt_file_dialog(qtbot)
    return seen


def start_dialogs(qtbot: QtBot, shell: DeskShell, language: str) -> dict[str, set[str]]:
    """The dialogs before and around the desk: sign-in, unlock, the director's
    confirmation and every page of the first-run wizard."""
    from admission.settings import Settings
    from ui.desk.dialogs.authorise import DirectorDialog
    from ui.desk.dialogs.sign_in import SignInDialog, UnlockDialog
    from ui.desk.dialogs.wizard import FirstRunWizard
    from ui.desk.jobs import ImmediateRunner
    from ui.desk.screens import save_screenshot

    ctx, session = shell.ctx, shell.session
    assert ctx is not None and session is not None
    accounts = ctx.accounts
    built: dict[str, QWidget] = {
        "SignInDialog": SignInDialog(session, lang=language),
        "DirectorDialog": DirectorDialog(accounts, "EXCEPTIONAL_CARD", None, lang=language),
        "FirstRunWizard": FirstRunWizard(
            Settings(),
            ctx.data_dir / "wizard-settings.json",
            ImmediateRunner(),
            create_file=lambda: "file",
            create_admin=lambda u, d, p: None,
        ),
    }
    shell._asking = True  # the shell's own unlock dialog stays closed: this test shows it
    session.lock()
    built["UnlockDialog"] = UnlockDialog(session, lang=language)
    texts = {}
    for name, dialog in built.items():
        qtbot.addWidget(dialog)
        dialog.show()
        texts[name] = visible_texts(dialog)
        save_screenshot(dialog, f"lang-{language}-{name}")
    session.unlock("director-demo")  # the unlock dialog does not close on a locked desk
    shell._asking = False
    for dialog in built.values():
        dialog.hide()
        dialog.deleteLater()
    assert QApplication.activeModalWidget() is None, "a dialog of the walk stayed open"
    return texts


def qt_message_box(qtbot: QtBot) -> set[str]:
    """A message box with Qt's standard buttons, as the window's dialogs use them."""
    box = QMessageBox()
    box.setStandardButtons(
        QMessageBox.StandardButton.Yes
        | QMessageBox.StandardButton.No
        | QMessageBox.StandardButton.Cancel
        | QMessageBox.StandardButton.Save
        | QMessageBox.StandardButton.Close
    )
    qtbot.addWidget(box)
    texts = visible_texts(box)
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Apply
    )
    qtbot.addWidget(buttons)
    wizard = QWizard()  # its Back, Next, Finish and Cancel are Qt's
    wizard.addPage(QWizardPage())
    wizard.addPage(QWizardPage())
    qtbot.addWidget(wizard)
    wizard.show()
    shown = texts | visible_texts(buttons) | visible_texts(wizard)
    wizard.next()
    shown |= visible_texts(wizard)
    wizard.close()
    return shown


def qt_file_dialog(qtbot: QtBot) -> set[str]:
    """Qt's own file dialog (the one offscreen and on desktops without a portal)."""
    dialog = QFileDialog(None, "", str(Path.home()))
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    qtbot.addWidget(dialog)
    dialog.show()
    texts = visible_texts(dialog)
    dialog.reject()
    return texts


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_screen_speaks_the_window_language(
    qtbot: QtBot, shell_in: Callable[[str], DeskShell], language: str
) -> None:
    shell = shell_in(language)
    seen = walk(qtbot, shell, language)
    dialogs = [n for n in seen if not n.startswith(("desk-", "qt-"))]
    assert len(dialogs) >= 15, f"the walk opened too few dialogs: {sorted(dialogs)}"
    foreign = Foreign(language)
    problems = {name: found for name, texts in seen.items() if (found := foreign.found_in(texts))}
    assert not problems, f"{language} window shows the other language: {problems}"


def test_the_check_finds_the_other_language() -> None:
    """The check itself: each language's own texts pass, the other's are caught."""
    from admission.catalogue import text

    spanish, english = Foreign("es"), Foreign("en")
    assert spanish.found_in({text("MINOR", "en")}) and not spanish.found_in({text("MINOR", "es")})
    assert english.found_in({text("MINOR", "es")}) and not english.found_in({text("MINOR", "en")})
    assert spanish.found_in({"&Cancel"}) and not spanish.found_in({"&Cancelar"})
    assert english.found_in({"&Cancelar"}) and not english.found_in({"&Cancel"})
    reasons = "⚠ " + text("INTERNAL_BAN", "es") + "\n" + text("LAST_HOUR", "es")
    assert english.found_in({reasons}) and not spanish.found_in({reasons})
    composed = "Denegación registrada en la ficha 4 · Esc: siguiente"  # "{0}" filled in
    assert english.found_in({composed}) and not spanish.found_in({composed})


def test_without_qts_spanish_its_buttons_are_caught(
    qtbot: QtBot, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qt's own buttons are Spanish only through qtbase_es.qm: without it the walk fails."""
    import ui.desk.i18n
    from ui.desk.i18n import install_translator

    install_translator(qapp, "es")
    assert not Foreign("es").found_in(qt_message_box(qtbot))
    monkeypatch.setattr(ui.desk.i18n, "_qt_translator", lambda app, language: None)
    install_translator(qapp, "es")
    try:
        caught = Foreign("es").found_in(qt_message_box(qtbot))
        assert {"&Yes", "Cancel"} <= set(caught), caught
    finally:
        monkeypatch.undo()
        install_translator(qapp, "es")

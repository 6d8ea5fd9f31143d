"""Every visible string of the window has its English (Spanish is the source language).

(a) lupdate over today's ui/ sources, merged into a copy of resources/i18n/desk_en.ts,
    leaves no entry unfinished: a string added to the code without its English fails.
(b) At run time, in English, the main windows and dialogs show no label, button, action,
    menu or window title that is still a Spanish source text: neither one whose English
    is missing, nor one whose English exists but was not applied (a wrong context).
Modules that do not exist yet are skipped, not failed.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QGroupBox,
    QLabel,
    QMenu,
    QWidget,
)

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "i18n" / "desk_en.ts"
Entries = dict[tuple[str, str], str | None]  # (context, source) -> English, None: missing


def read_ts(path: Path) -> Entries:
    entries: Entries = {}
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            translation = message.find("translation")
            kind = "" if translation is None else translation.get("type", "")
            if kind in ("vanished", "obsolete"):
                continue
            english = "" if translation is None else (translation.text or "")
            if message.get("numerus") == "yes" and translation is not None:
                english = " ".join(f.text or "" for f in translation.iter("numerusform"))
            entries[(name, source)] = english if english.strip() and kind != "unfinished" else None
    return entries


def test_the_committed_translation_file_is_well_formed() -> None:
    entries = read_ts(TS)
    assert entries, "resources/i18n/desk_en.ts has no entry"
    root = ET.parse(TS).getroot()
    assert root.get("sourcelanguage", "").startswith("es")
    assert root.get("language", "").startswith("en")


def test_every_string_in_the_code_has_its_english(tmp_path: Path) -> None:
    merged = tmp_path / "desk_en.ts"
    shutil.copy(TS, merged)
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "update_translations.py"), "--ts", str(merged)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-1000:]
    missing = sorted(f"{ctx}: {src!r}" for (ctx, src), en in read_ts(merged).items() if en is None)
    assert not missing, (
        f"{len(missing)} strings without English - run tools/update_translations.py and "
        "translate them in resources/i18n/desk_en.ts:\n" + "\n".join(missing[:40])
    )


# -- at run time ------------------------------------------------------------------------
def visible_texts(root: QWidget) -> set[str]:
    """The texts a person reads on ``root``: labels, buttons, group titles, actions,
    menus and window titles (its own and its children's)."""
    found = {root.windowTitle()}
    for widget in root.findChildren(QWidget):
        if isinstance(widget, QLabel | QAbstractButton):
            found.add(widget.text())
        elif isinstance(widget, QGroupBox | QMenu):
            found.add(widget.title())
        if widget.isWindow():
            found.add(widget.windowTitle())
    for action in root.findChildren(QAction):
        found.add(action.text())
    return {t for t in found if t and t.strip()}


def spanish_left(texts: set[str], entries: Entries) -> list[str]:
    """Texts still in Spanish: a source text (mnemonics aside) that has English."""
    sources: dict[str, str | None] = {}
    for (_ctx, source), english in entries.items():
        if english is None or english.replace("&", "") != source.replace("&", ""):
            sources[source.replace("&", "")] = english
    return sorted(t for t in texts if t.replace("&", "") in sources)


@pytest.fixture
def english(tmp_path: Path) -> Iterator[QApplication]:
    from ui.desk.app import make_application
    from ui.desk.i18n import install_translator

    app = make_application()
    translator = install_translator(app, "en")
    assert translator is not None, "desk_en.qm could not be compiled or loaded"
    try:
        yield app
    finally:
        app.removeTranslator(translator)


def _module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def test_the_desk_window_speaks_english(
    english: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from tests.ui.conftest import open_demo_shell

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    data = tmp_path / "demo"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"version": 2, "ui.language": "en"}))
    shell = open_demo_shell(english, data)
    try:
        assert shell.window is not None
        texts = visible_texts(shell.window)
        left = spanish_left(texts, read_ts(TS))
        _screenshot(shell.window, "desk-window-en")
    finally:
        if shell.translator is not None:
            english.removeTranslator(shell.translator)
        shell.close()
    assert not left, f"shown in Spanish in the English window: {left}"


def _screenshot(widget: QWidget, name: str) -> None:
    if _module("ui.desk.screens"):
        from ui.desk.screens import save_screenshot

        save_screenshot(widget, name)


def _dialogs(tmp_path: Path) -> list[tuple[str, Callable[[], QWidget]]]:
    """The dialogs that open without a visitor file (each built only if its module is
    there)."""
    found: list[tuple[str, Callable[[], QWidget]]] = []
    if _module("ui.desk.dialogs.wizard"):

        def wizard() -> QWidget:
            from admission.settings import Settings
            from ui.desk.dialogs.wizard import FirstRunWizard
            from ui.desk.jobs import ImmediateRunner

            return FirstRunWizard(
                Settings(),
                tmp_path / "settings.json",
                ImmediateRunner(),
                create_file=lambda: "file",
                create_admin=lambda u, d, p: None,
            )

        found.append(("wizard", wizard))
    return found


def test_the_dialogs_speak_english(
    english: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import UTC, datetime

    from admission.clock import FixedClock
    from main import build_context, build_tools

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    clock = FixedClock(datetime(2026, 12, 3, 19, 0, tzinfo=UTC))
    ctx = build_context(build_tools(tmp_path / "demo", clock=clock, demo=True))
    entries = read_ts(TS)
    left: dict[str, list[str]] = {}
    builders = _dialogs(tmp_path)
    if _module("ui.desk.dialogs.sign_in") and _module("ui.desk.session"):

        def sign_in() -> QWidget:
            from ui.desk.dialogs.sign_in import SignInDialog
            from ui.desk.session import DeskSession

            return SignInDialog(DeskSession.for_context(ctx), lang="en")

        builders.append(("sign-in", sign_in))
    if _module("ui.desk.dialogs.authorise"):

        def director() -> QWidget:
            from ui.desk.dialogs.authorise import DirectorDialog

            return DirectorDialog(ctx.accounts, "EXCEPTIONAL_CARD", None, lang="en")

        builders.append(("director", director))
    try:
        for name, build in builders:
            dialog = build()
            dialog.show()
            found = spanish_left(visible_texts(dialog), entries)
            if found:
                left[name] = found
            _screenshot(dialog, f"{name}-en")
            dialog.close()
            dialog.deleteLater()
    finally:
        ctx.close()
    assert not left, f"shown in Spanish in the English dialogs: {left}"


def test_a_string_lupdate_filed_without_a_class_is_still_translated(
    english: QApplication,
) -> None:
    from PySide6.QtCore import QCoreApplication

    loose = [(src, en) for (ctx, src), en in read_ts(TS).items() if ctx == "" and en]
    if not loose:
        pytest.skip("every string of the code is in its class's context")
    source, english_text = loose[0]
    assert QCoreApplication.translate("SomeWidget", source) == english_text


def test_a_string_the_translation_leaves_out_keeps_its_source_text(
    english: QApplication,
) -> None:
    # lrelease leaves out an entry whose English is the Spanish ("&Director:"), and a
    # string may have no entry at all: Qt must show the source text, never a blank
    from PySide6.QtCore import QCoreApplication

    assert QCoreApplication.translate("DirectorDialog", "&Director:") == "&Director:"
    assert QCoreApplication.translate("NoSuchContext", "Texto sin traducir") == (
        "Texto sin traducir"
    )
    assert QCoreApplication.translate("DirectorDialog", "&Autorizar") == "&Authorise"

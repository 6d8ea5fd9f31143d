"""The window's languages: Spanish is the source text, English comes from Qt Linguist.

Every visible string is written in Spanish inside ``self.tr("...")`` or
``QCoreApplication.translate("Context", "...")``; ``tools/update_translations.py``
extracts them into ``resources/i18n/desk_en.ts`` (pyside6-lupdate), a person writes the
English, and the set-up compiles it into ``desk_en.qm`` (pyside6-lrelease; the .qm is
not kept in git). The setting ``ui.language`` chooses: ``es`` (default) loads nothing,
``en`` loads the compiled file. A missing or stale .qm is compiled on the spot when
lrelease is at hand; if it still cannot be had the window stays in Spanish (and says so
in the log) rather than not opening.

Two more sources follow the same choice: the catalogue's texts of the codes (verdict
reasons, warnings, the figures' labels: ``ui.desk.text.message``), and Qt's own
texts (standard buttons, file and message dialogs), which are English in Qt's source and
Spanish from the ``qtbase_es.qm`` that PySide6 ships in its translations folder.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

__all__ = [
    "I18N_DIR",
    "LANGUAGES",
    "DeskTranslator",
    "compile_translation",
    "install_translator",
    "lrelease_command",
    "qm_path",
    "qt_translation_path",
    "ts_path",
]

I18N_DIR = Path(__file__).resolve().parents[2] / "resources" / "i18n"
LANGUAGES = ("es", "en")  # es: the source language, nothing to load
SOURCE_LANGUAGE = "es"
log = logging.getLogger("admission.ui")


def ts_path(language: str) -> Path:
    return I18N_DIR / f"desk_{language}.ts"


def qm_path(language: str) -> Path:
    return I18N_DIR / f"desk_{language}.qm"


def _pyside_tool(name: str) -> list[str] | None:
    """PySide6's bundled Qt tool (``lrelease``, ``lupdate``), run directly."""
    import PySide6

    folder = Path(PySide6.__file__).resolve().parent
    for candidate in (folder / name, folder / f"{name}.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return [str(candidate)]
    script = Path(sys.executable).parent / f"pyside6-{name}"
    if script.is_file():
        return [str(script)]
    return None


def lrelease_command() -> list[str] | None:
    return _pyside_tool("lrelease")


def lupdate_command() -> list[str] | None:
    return _pyside_tool("lupdate")


def compile_translation(language: str, *, force: bool = False) -> bool:
    """Compile ``desk_<language>.ts`` into its .qm when the .qm is missing or older.
    True when an up-to-date .qm is there afterwards."""
    ts, qm = ts_path(language), qm_path(language)
    if not ts.is_file():
        return qm.is_file()
    if not force and qm.is_file() and qm.stat().st_mtime >= ts.stat().st_mtime:
        return True
    command = lrelease_command()
    if command is None:
        return qm.is_file()
    done = subprocess.run(
        [*command, "-silent", str(ts), "-qm", str(qm)],
        capture_output=True,
        check=False,
        timeout=120,
    )
    return done.returncode == 0 and qm.is_file()


class DeskTranslator(QTranslator):
    """Qt's translator, plus one fallback: a string lupdate could not place in its class
    (``tr = self.tr; tr("...")``, a module-level helper) is filed under the empty
    context; when the class's context has no entry, that one is used. A string found in
    neither answers None, so Qt shows the source text: an empty answer would be taken as
    the translation and blank the label (lrelease leaves out entries whose English is the
    Spanish, such as "&Director:")."""

    def translate(  # type: ignore[override]  # None: "not here", as Qt's null string
        self,
        context: str,
        source_text: str,
        disambiguation: str | None = None,
        n: int = -1,
    ) -> str | None:
        found = super().translate(context, source_text, disambiguation, n)
        if not found and context:
            found = super().translate("", source_text, disambiguation, n)
        return found or None


def qt_translation_path(language: str) -> Path:
    """Qt's own translation of its widgets (``qtbase_<language>.qm``, shipped by PySide6)."""
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    return Path(folder) / f"qtbase_{language}.qm"


# what the last call installed, removed by the next one (the language can change while
# the desk runs); Qt does not own a translator, so these references keep them alive
_installed: list[QTranslator] = []


def _qt_translator(app: QCoreApplication, language: str) -> QTranslator | None:
    path = qt_translation_path(language)
    translator = QTranslator(app)
    if not translator.load(str(path)):
        log.warning("Qt's own texts in %s not found: its buttons stay in English", language)
        return None
    return translator


def install_translator(app: QCoreApplication, language: str) -> QTranslator | None:
    """Put the window in ``language``: the desk's translation (English; None for Spanish,
    the source, or when no compiled file could be had - keep the answer, Qt does not own
    it), Qt's own texts (Spanish from ``qtbase_es.qm``), the locale and the catalogue's
    language. A second call replaces what the first installed."""
    from ui.desk.text import set_language

    for old in _installed:
        app.removeTranslator(old)
    _installed.clear()
    desk: QTranslator | None = None
    shown = SOURCE_LANGUAGE
    if language != SOURCE_LANGUAGE and language in LANGUAGES:
        if not compile_translation(language):
            log.warning("translation %s not compiled: the window stays in Spanish", language)
        else:
            desk = DeskTranslator(app)
            if desk.load(str(qm_path(language))):
                shown = language
            else:
                log.warning("translation %s not loadable: the window stays in Spanish", language)
                desk = None
    if shown == SOURCE_LANGUAGE:
        qt_own = _qt_translator(app, SOURCE_LANGUAGE)
        if qt_own is not None:
            app.installTranslator(qt_own)
            _installed.append(qt_own)
        QLocale.setDefault(QLocale(QLocale.Language.Spanish, QLocale.Country.Spain))
    else:
        assert desk is not None
        app.installTranslator(desk)
        _installed.append(desk)
        QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedKingdom))
    set_language(shown)
    return desk

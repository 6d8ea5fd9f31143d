"""Where the desk window opens: maximised the first time on a screen, then as it was
left on that screen.

The counter's screen is read from about three metres: the window takes the whole screen
unless the clerk made it smaller, and it comes back as it was left. The place is kept
per screen (its name and size: a laptop moved from its own panel to the counter's large
screen opens maximised on the new one), in ``window.ini`` beside the settings - Qt's
geometry bytes and a flag, nothing personal.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

__all__ = ["GEOMETRY_FILE", "restore_window", "save_window", "screen_key"]

GEOMETRY_FILE = "window.ini"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def screen_key(screen: QScreen | None) -> str:
    """The screen a window is on, as a settings group: its name and size in pixels."""
    if screen is None:
        return "screen-unknown"
    size = screen.size()
    name = _UNSAFE.sub("_", screen.name() or "screen")[:60] or "screen"
    return f"{name}-{size.width()}x{size.height()}"


def _store(folder: Path) -> QSettings:
    return QSettings(str(folder / GEOMETRY_FILE), QSettings.Format.IniFormat)


def _screen_of(window: QWidget) -> QScreen | None:
    return window.screen() or QGuiApplication.primaryScreen()


def restore_window(window: QWidget, folder: Path) -> None:
    """Show ``window`` as it was left on this screen, or maximised the first time."""
    store = _store(folder)
    group = screen_key(_screen_of(window))
    saved = store.value(f"{group}/geometry")
    maximised = str(store.value(f"{group}/maximised", "true")).lower() == "true"
    if isinstance(saved, QByteArray | bytes) and not maximised:
        window.restoreGeometry(QByteArray(saved))
        window.show()
        return
    window.showMaximized()


def save_window(window: QWidget, folder: Path) -> None:
    """Keep how ``window`` is left on its screen (for :func:`restore_window`)."""
    store = _store(folder)
    group = screen_key(_screen_of(window))
    maximised = bool(window.windowState() & Qt.WindowState.WindowMaximized)
    store.setValue(f"{group}/maximised", "true" if maximised else "false")
    store.setValue(f"{group}/geometry", window.saveGeometry())
    store.sync()

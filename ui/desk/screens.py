"""Screenshots of the window for people to look at (tests and the smoke run).

``save_screenshot(widget, name)`` writes ``build/screens/<name>.png`` from
``widget.grab()``. Screens may show demo data only: tests and the smoke run use the
invented people of the demo file, never a real visitor (camera frames are never saved).
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QWidget

__all__ = ["SCREENS_DIR", "save_screenshot"]

SCREENS_DIR = Path(__file__).resolve().parents[2] / "build" / "screens"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}")


def save_screenshot(widget: QWidget, name: str, folder: Path | None = None) -> Path:
    """Grab ``widget`` and write it as ``<folder>/<name>.png`` (default build/screens/)."""
    if not _NAME.fullmatch(name) or name.endswith("."):
        raise ValueError("screenshot name: letters, digits, '_', '-', '.' (at most 80)")
    target = folder or SCREENS_DIR
    target.mkdir(parents=True, exist_ok=True)
    path = target / f"{name}.png"
    # the layouts settle first, as they do before the window is painted: a label whose
    # height just changed is otherwise grabbed where the previous text had put it
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    if not widget.grab().save(str(path), "PNG"):
        raise OSError(f"could not write {path.name}")
    return path

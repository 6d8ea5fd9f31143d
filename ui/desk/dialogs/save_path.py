"""Where the operator saves an export: a file dialog that opens in their documents
folder, never in the program's folder (the working directory of a desk started from a
shortcut), with a name proposed that holds no personal data."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

__all__ = ["ask_save_path", "documents_folder"]


def documents_folder() -> Path:
    """The operator's documents folder ("Documentos" on a Spanish Windows), or their home
    folder where it does not exist: a folder that exists, so the dialog opens there."""
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    for candidate in (documents, str(Path.home())):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return Path.home()


def ask_save_path(parent: QWidget, title: str, default_name: str, filters: str) -> Path | None:
    """The path the operator chose for ``default_name`` (None: cancelled)."""
    chosen, _filter = QFileDialog.getSaveFileName(
        parent, title, str(documents_folder() / default_name), filters
    )
    return Path(chosen) if chosen else None

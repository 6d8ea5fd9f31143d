"""Exports are saved where the operator keeps documents: the save dialog opens in the
documents folder, or the home folder where that does not exist - never in the folder
the program was started from - with the proposed name and no personal data in it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget
from pytestqt.qtbot import QtBot

from ui.desk.dialogs.save_path import ask_save_path, documents_folder


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of its own, and the program started from another folder."""
    home = tmp_path / "home"
    home.mkdir()
    program = tmp_path / "program"
    program.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DOCUMENTS_DIR", str(home / "Documentos"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.chdir(program)
    QStandardPaths.setTestModeEnabled(False)
    return home


def test_the_documents_folder_when_it_exists(home: Path) -> None:
    found = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    Path(found).mkdir(parents=True, exist_ok=True)
    assert documents_folder() == Path(found)
    assert Path(os.getcwd()) != documents_folder()


def test_the_home_folder_when_there_is_no_documents_folder(home: Path) -> None:
    found = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    assert not Path(found).exists() or Path(found) == home
    assert documents_folder() == home


def test_the_dialog_opens_there_with_the_proposed_name(
    qtbot: QtBot, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []

    def dialog(_parent: object, _title: str, proposed: str, _filters: str) -> tuple[str, str]:
        opened.append(proposed)
        return "", ""  # cancelled

    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    parent = QWidget()
    qtbot.addWidget(parent)
    assert ask_save_path(parent, "t", "libro-diario-2026-12-05.pdf", "*.pdf") is None
    assert opened == [str(documents_folder() / "libro-diario-2026-12-05.pdf")]
    assert not opened[0].startswith(os.getcwd())

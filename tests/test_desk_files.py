"""The files the desk writes for itself go through the one helper as well
(admission.atomic_file.write_atomically): the settings, the backup list, a server desk's
database id, the demo's PDF folder - whole, owner-only (0600), no temporary file left,
even when the disk fills half-way."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from admission.devices import CR80
from admission.errors import DeviceError
from admission.settings import Settings


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _settings(folder: Path) -> Path:
    Settings().save(folder / "settings.json")
    return folder / "settings.json"


def _database_id(folder: Path) -> Path:
    from db.pg.desk import DATABASE_ID_FILE, remember_database, remembered_database

    remember_database(folder, "casino-db-1")
    assert remembered_database(folder) == "casino-db-1"
    return folder / DATABASE_ID_FILE


def _pdf_folder(folder: Path) -> Path:
    from hardware.printer.pdf_folder import PdfFolderPrinter

    return folder / PdfFolderPrinter(folder).submit(b"%PDF-1.4 card", title="card-1", page=CR80)


WRITERS: list[Callable[[Path], Path]] = [_settings, _database_id, _pdf_folder]


@pytest.mark.parametrize("write", WRITERS, ids=lambda f: f.__name__)
def test_a_desk_file_is_whole_and_the_owner_s_only(
    tmp_path: Path, write: Callable[[Path], Path]
) -> None:
    old = os.umask(0o022)
    try:
        written = write(tmp_path)
    finally:
        os.umask(old)
    assert mode(written) == 0o600 and written.stat().st_size > 0
    assert [p.name for p in tmp_path.iterdir()] == [written.name]  # no temporary file


@pytest.mark.parametrize("write", WRITERS, ids=lambda f: f.__name__)
def test_a_full_disk_leaves_the_old_file_and_no_temporary_one(
    tmp_path: Path, write: Callable[[Path], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = write(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real = os.write

    def full(fd: int, data: bytes | memoryview) -> int:
        real(fd, bytes(data)[:10])  # a part written, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises((OSError, DeviceError)):
        write(tmp_path)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert first.exists()


def test_a_pdf_folder_never_replaces_a_job_s_file(tmp_path: Path) -> None:
    from hardware.printer.pdf_folder import PdfFolderPrinter

    printer = PdfFolderPrinter(tmp_path)
    names = [printer.submit(f"%PDF {n}".encode(), title="card-1", page=CR80) for n in range(3)]
    assert names == ["card-1.pdf", "card-1-2.pdf", "card-1-3.pdf"]
    assert [(tmp_path / n).read_bytes() for n in names] == [b"%PDF 0", b"%PDF 1", b"%PDF 2"]

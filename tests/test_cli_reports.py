"""``inspect export``, ``report day``, ``report figures`` and ``access-report`` at the
command line, in this process, on a real encrypted file: the PDF carries the casino's
header, the content's SHA-256 and "Página X de Y"; the audit trail records every export
with its digest and without names in clear (art. 20.4; GDPR art. 15); a failed export
leaves no file; a clerk gets nothing."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests import test_cli_inspect
from tests.factories import dni
from tests.test_cli import DIRECTOR, cli
from tests.test_cli_inspect import INSPECTOR, PURPOSE, audit_entries

data = test_cli_inspect.data  # the same fixture: accounts, a register, three visitors

DAY = "2026-11-28"  # GARCIA LOPEZ was admitted at 22:00 (card 1)


def pdf_text(path: Path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed")
    done = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                          check=True)  # fmt: skip
    return done.stdout.decode("utf-8")


@pytest.fixture
def exports(tmp_path: Path) -> Path:
    """A folder for the exports, apart from the data folder."""
    folder = tmp_path / "exports"
    folder.mkdir()
    return folder


def as_director(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ADMISSION_PASSWORD", DIRECTOR[2])
    return DIRECTOR[0]


def test_an_inspector_exports_a_search_as_pdf_with_header_digest_and_pages(
    data: Path, exports: Path
) -> None:
    out = exports / "busqueda.pdf"
    code, answer = cli("inspect", "export", "--name", "peña", "--as", INSPECTOR[0],
                       "--purpose", PURPOSE, "--out", str(out), data_dir=data)  # fmt: skip
    assert code == 0, answer
    assert isinstance(answer, dict)
    assert (answer["rows"], answer["format"], answer["path"]) == (2, "pdf", str(out))
    assert answer["size"] == out.stat().st_size and answer["kind"] == "search"
    text = pdf_text(out)
    assert "Casino de demostración" in text and "Página 1 de 1" in text
    assert f"SHA-256 del contenido: {answer['digest']}" in text
    assert "Exportado por Inés (ines)" in text and PURPOSE in text
    assert "PEÑA NÚÑEZ" in text and "PENALVER" in text
    [entry] = [e for e in audit_entries(data) if e.action == "INSPECT_EXPORT"]
    assert entry.actor == "ines" and entry.details["digest"] == answer["digest"]
    assert entry.details["file"] == "busqueda.pdf" and entry.details["rows"] == "2"
    assert entry.details["purpose"] == PURPOSE and entry.details["name"].startswith("hmac:")
    assert "PEÑA" not in repr(entry).upper() and str(exports) not in repr(entry)
    assert sorted(p.name for p in out.parent.iterdir()) == ["busqueda.pdf"]


def test_a_csv_export_hashes_to_the_audited_digest(data: Path, exports: Path) -> None:
    out = exports / "busqueda.csv"
    code, answer = cli("inspect", "export", "--id", dni(12345678), "--as", INSPECTOR[0],
                       "--purpose", PURPOSE, "--out", str(out), data_dir=data)  # fmt: skip
    assert code == 0, answer
    assert isinstance(answer, dict) and answer["format"] == "csv"
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"GARCIA LOPEZ" in raw
    assert hashlib.sha256(raw[3:]).hexdigest() == answer["digest"]
    [entry] = [e for e in audit_entries(data) if e.action == "INSPECT_EXPORT"]
    assert "12345678" not in repr(entry)


def test_file_alone_exports_the_timeline(data: Path, exports: Path) -> None:
    out = exports / "ficha.pdf"
    code, answer = cli("inspect", "export", "--file", "1", "--as", INSPECTOR[0],
                       "--purpose", PURPOSE, "--out", str(out), data_dir=data)  # fmt: skip
    assert code == 0, answer
    assert isinstance(answer, dict) and answer["kind"] == "timeline" and answer["rows"] == 1
    text = pdf_text(out)
    assert "Visitas de la ficha 1" in text and "GARCIA LOPEZ" in text and "Admitido" in text


def test_the_day_book_of_a_day(data: Path, exports: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = exports / "libro.pdf"
    code, answer = cli("report", "day", DAY, "--out", str(out), "--purpose", PURPOSE,
                       "--as", as_director(monkeypatch), data_dir=data)  # fmt: skip
    assert code == 0, answer
    assert isinstance(answer, dict) and answer["rows"] == 1
    text = pdf_text(out)
    assert "Libro diario de visitantes del 28/11/2026" in text and "GARCIA LOPEZ" in text
    assert "Página 1 de 2" in text and "Página 2 de 2" in text
    assert text.count(f"SHA-256 del contenido: {answer['digest']}") == 2
    assert "Cabeza del registro de auditoría" in text and "Recaudación" in text
    [entry] = [e for e in audit_entries(data) if e.action == "REPORT_DAY"]
    assert (entry.actor, entry.subject, entry.details["role"]) == ("dora", f"day:{DAY}", "DIRECTOR")
    head_seq = entry.details["head"].split(":")[0]
    assert f"{head_seq}:" in text  # the head printed is the one audited
    assert entry.details["purpose"] == PURPOSE and PURPOSE in text  # printed under Motivo
    assert "GARCIA" not in repr(entry)


def test_the_day_book_needs_a_purpose(
    data: Path, exports: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = exports / "libro.pdf"
    code, answer = cli("report", "day", DAY, "--out", str(out), "--purpose", "x",
                       "--as", as_director(monkeypatch), data_dir=data)  # fmt: skip
    assert (code, answer["error"]) == (1, "INSPECT_PURPOSE_INVALID")  # type: ignore[index]
    assert not out.exists()
    assert "REPORT_DAY" not in {e.action for e in audit_entries(data)}


def test_the_figures_as_json(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, answer = cli("report", "figures", "2026-11-28", "2026-12-01", "--as",
                       as_director(monkeypatch), data_dir=data)  # fmt: skip
    assert code == 0, answer
    assert isinstance(answer, dict)
    assert answer["admissions"] == 3 and answer["per_hour"][22] == 1
    assert answer["per_day"]["2026-11-30"] == 1 and answer["visitors"] == 3


def test_the_access_report_by_identity_number(
    data: Path, exports: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = exports / "acceso.pdf"
    code, answer = cli("access-report", dni(33333333), "--out", str(out), "--as",
                       as_director(monkeypatch), "--purpose", "Solicitud de acceso 4/2026",
                       data_dir=data)  # fmt: skip
    assert code == 0, answer
    text = pdf_text(out)
    assert "PEÑA NÚÑEZ" in text and "Ficha personal" in text and "art. 15" in text
    [entry] = [e for e in audit_entries(data) if e.action == "ACCESS_REPORT"]
    assert entry.details["id"].startswith("hmac:") and "33333333" not in repr(entry)
    code, answer = cli("access-report", "--file", "99", "--out", str(exports / "x.pdf"),
                       "--as", DIRECTOR[0], "--purpose", "Solicitud de acceso 4/2026",
                       data_dir=data)  # fmt: skip
    assert (code, answer["error"]) == (1, "ACCESS_SUBJECT_UNKNOWN")  # type: ignore[index]
    assert not (exports / "x.pdf").exists()


def test_the_access_report_is_refused_to_an_inspector(data: Path, exports: Path) -> None:
    out = exports / "acceso.pdf"
    code, answer = cli("access-report", "--file", "1", "--out", str(out), "--as", INSPECTOR[0],
                       "--purpose", PURPOSE, data_dir=data)  # fmt: skip
    assert (code, answer["error"]) == (1, "REPORT_ROLE_REQUIRED")  # type: ignore[index]
    assert not out.exists()


def test_a_clerk_is_refused_every_report(
    data: Path, exports: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADMISSION_PASSWORD", "clerk-pass-1")
    out = exports / "x.pdf"
    runs: list[tuple[list[str], str]] = [
        (["report", "day", DAY, "--purpose", PURPOSE, "--out", str(out)], "REPORT_ROLE_REQUIRED"),
        (["inspect", "export", "--name", "garcia", "--purpose", PURPOSE, "--out", str(out)],
         "INSPECTOR_ROLE_REQUIRED"),
        (["access-report", "--file", "1", "--purpose", PURPOSE, "--out", str(out)],
         "REPORT_ROLE_REQUIRED"),
    ]  # fmt: skip
    for args, refusal in runs:
        code, answer = cli(*args, "--as", "ana", data_dir=data)
        assert (code, answer["error"]) == (1, refusal), args  # type: ignore[index]
    assert list(exports.iterdir()) == []
    actions = {e.action for e in audit_entries(data)}
    assert not actions & {"REPORT_DAY", "INSPECT_EXPORT", "ACCESS_REPORT"}


@pytest.mark.parametrize(("error", "refusal"), [(errno.ENOSPC, "EXPORT_DISK_FULL"),
                                                (errno.EROFS, "EXPORT_READ_ONLY")])  # fmt: skip
def test_a_failed_export_leaves_no_file_and_no_entry(
    data: Path, exports: Path, monkeypatch: pytest.MonkeyPatch, error: int, refusal: str
) -> None:
    out = exports / "libro.pdf"

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(error, os.strerror(error))

    monkeypatch.setenv("ADMISSION_PASSWORD", DIRECTOR[2])
    with monkeypatch.context() as patched:
        patched.setattr("admission.atomic_file.os.replace", full)
        code, answer = cli("report", "day", DAY, "--out", str(out), "--purpose", PURPOSE,
                           "--as", DIRECTOR[0], data_dir=data)  # fmt: skip
    assert (code, answer["error"]) == (3, refusal)  # type: ignore[index]
    assert answer["message"]  # type: ignore[index]
    assert list(exports.iterdir()) == []
    assert "REPORT_DAY" not in {e.action for e in audit_entries(data)}


def test_an_export_into_a_missing_folder_is_refused(data: Path, exports: Path) -> None:
    out = exports / "missing" / "busqueda.pdf"
    code, answer = cli("inspect", "export", "--name", "garcia", "--as", INSPECTOR[0],
                       "--purpose", PURPOSE, "--out", str(out), data_dir=data)  # fmt: skip
    assert (code, answer["error"]) == (1, "OUTPUT_NO_FOLDER")  # type: ignore[index]
    assert list(exports.iterdir()) == []
    assert "INSPECT_EXPORT" not in {e.action for e in audit_entries(data)}  # refused first

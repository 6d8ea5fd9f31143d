"""The report PDFs and CSVs (hardware/printer/reports.py): the casino's header, who
exported it and when, the query, "Página X de Y" and the content's SHA-256 on every
page (art. 20.4: a printout is checked against the audit trail), the reasons in words,
the day's figures and the audit head; CSVs that a spreadsheet opens safely."""

from __future__ import annotations

import errno
import os
import random
import shutil
import subprocess
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from admission.cards.view import format_euros
from admission.identity import IdentityKey, IdKind
from admission.inspection import Timeline, TimelineEntry
from admission.ports import madrid_day_start
from admission.records import (
    AuditHead,
    Ban,
    CardRecord,
    CardStatus,
    Observation,
    RegistryCheck,
    Visitor,
    VisitRecord,
)
from admission.reports import (
    AccessReport,
    DayBook,
    DayBookLine,
    ExportFormat,
    FigureCounts,
    ReportError,
    ReportMeta,
    access_rows,
    content_digest,
    day_book_rows,
    figures_from_counts,
    timeline_rows,
    visitor_rows,
)
from hardware.printer.render import preview_png
from hardware.printer.reports import ReportlabRenderer

DAY = date(2026, 11, 28)
T0 = datetime(2026, 11, 28, 21, 0, tzinfo=UTC)  # 22:00 in Madrid
SURNAMES = ["García López", "Peña Núñez", "Martínez Ibáñez", "Fernández Çelik",
            "Muñoz Ortega", "Sánchez Oñate", "Gómez", "Díaz-Úbeda", "Álvarez Ruíz",
            "Jiménez Aragüés", "O'Connor", "=HYPERLINK(\"x\")"]  # fmt: skip
GIVEN = ["José María", "María Ángeles", "Íñigo", "Begoña", "Agustín", "Inés", "Raúl",
         "Zoë", "Noémie", "Jesús"]  # fmt: skip
REASONS = ["MINOR", "REGISTRY_LISTED", "INTERNAL_BAN", "BIRTH_DATE_UNKNOWN", "CASINO_STAFF"]


def meta(title: str = "Libro diario de visitantes del 28/11/2026") -> ReportMeta:
    return ReportMeta(
        title=title,
        casino_name="Casino Gran Vía",
        casino_id="CAS-01",
        casino_address="Gran Vía 1, 28013 Madrid",
        exported_by="ines",
        exported_by_name="Inés Ruiz",
        exported_at=datetime(2026, 12, 1, 9, 15, tzinfo=UTC),
        query=(("Motivo", "Expediente 12/2026 de la inspección"), ("Día", "2026-11-28")),
    )


def synthetic_day_book(visits: int, seed: int = 7) -> DayBook:
    """``visits`` visits of one Madrid day, realistic names with accents, 5% refused."""
    rng = random.Random(seed)
    start = madrid_day_start(DAY)
    lines = []
    for i in range(visits):
        at = start + timedelta(seconds=int(86_399 * i / max(visits, 1)))
        refused = rng.random() < 0.05
        number = f"{rng.randrange(10**7, 10**8)}{'TRWAGMYFPDXBNJZSQVHLCKE'[i % 23]}"
        card = None if refused else i + 1000
        kind = "VIP" if rng.random() < 0.1 else "STANDARD"
        lines.append(
            DayBookLine(
                at=at,
                file_number=i + 1,
                surname=rng.choice(SURNAMES),
                given_names=rng.choice(GIVEN),
                identity=f"DNI:ESP:{number}",
                document_type="DNI",
                verdict="DENY" if refused else "ADMIT",
                reasons=tuple(rng.sample(REASONS, rng.randint(1, 2))) if refused else (),
                card_number=card,
                card_type="" if card is None else kind,
                price_cents=0 if card is None else (2000 if kind == "VIP" else 500),
                desk_id=f"desk-{1 + i % 3}",
                operator=rng.choice(["ana", "luis", "marta"]),
                card_voided=card is not None and rng.random() < 0.01,
            )
        )
    hours: dict[datetime, list[int]] = {}
    reasons: dict[str, int] = {}
    types: dict[str, list[int]] = {}
    for line in lines:
        hour = line.at.replace(minute=0, second=0, microsecond=0)
        tally = hours.setdefault(hour, [0, 0])
        tally[line.verdict == "DENY"] += 1
        for code in line.reasons:
            reasons[code] = reasons.get(code, 0) + 1
        if line.card_number is not None and not line.card_voided:
            sums = types.setdefault(line.card_type, [0, 0])
            sums[0] += 1
            sums[1] += line.price_cents
    figures = figures_from_counts(
        DAY,
        DAY,
        FigureCounts(
            by_hour=tuple((h, a, d) for h, (a, d) in sorted(hours.items())),
            card_types=tuple((k, n, c) for k, (n, c) in types.items()),
            voided=sum(1 for line in lines if line.card_voided),
            reasons=tuple(reasons.items()),
            visitors=len(lines),
        ),
    )
    head = AuditHead(91_234, "9f" * 32, T0)
    return DayBook(DAY, tuple(lines), figures, head)


def person() -> Visitor:
    return Visitor(
        7,
        IdentityKey(IdKind.DNI, "ESP", "12345678Z"),
        "PEÑA NÚÑEZ",
        "JOSÉ MARÍA",
        date(1970, 3, 4),
        "ESP",
        T0,
        T0 + timedelta(days=2),
    )


def timeline() -> Timeline:
    registry = RegistryCheck("NOT_LISTED", "REPLICA", "v1", 60)
    admitted = VisitRecord(1, 7, T0, "desk-1", "ana", "ADMIT", (), "DNI", "12345678Z",
                           registry, 4, "")  # fmt: skip
    refused = VisitRecord(2, 7, T0 + timedelta(days=2), "desk-2", "luis", "DENY",
                          ("INTERNAL_BAN",), "DNI", "12345678Z", registry, None, "")  # fmt: skip
    card = CardRecord(4, 7, 1, "STANDARD", 500, T0, DAY, DAY, CardStatus.PRINTED, False,
                      False, "", 1, "")  # fmt: skip
    return Timeline(person(), (TimelineEntry(admitted, card), TimelineEntry(refused, None)))


def access_report() -> AccessReport:
    line = timeline()
    ban = Ban(3, person().identity, "Altercado en la sala de juego", "dora", T0, None)
    note = Observation(7, T0, "dora", "Pidió la hoja de reclamaciones; atendido por sala.")
    return AccessReport(person(), line.entries, (note,), (ban,), None, 12)


def pdf_text(pdf: bytes, tmp_path: Path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed")
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    done = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                          check=True)  # fmt: skip
    return done.stdout.decode("utf-8")


def pages(text: str) -> list[str]:
    return [page for page in text.split("\f") if page.strip()]


def test_the_day_book_has_header_digest_and_page_numbers_on_every_page(tmp_path: Path) -> None:
    book = synthetic_day_book(150)
    pdf = ReportlabRenderer().day_book(meta(), book)
    assert pdf.startswith(b"%PDF")
    text = pdf_text(pdf, tmp_path)
    every = pages(text)
    assert len(every) >= 3
    digest = content_digest(day_book_rows(book))
    for number, page in enumerate(every, start=1):
        assert "Casino Gran Vía" in page and "CAS-01" in page
        assert f"SHA-256 del contenido: {digest}" in page
        assert f"Página {number} de {len(every)}" in page
        assert "Exportado por Inés Ruiz (ines)" in page
    first = every[0]
    assert "Libro diario de visitantes del 28/11/2026" in first
    assert "Expediente 12/2026 de la inspección" in first and "01/12/2026 10:15" in first
    assert "Menor de edad" in text or "Inscrito en el Registro" in text  # reasons in words
    assert "Admisiones y rechazos por hora" in text and "Recaudación" in text
    assert f"91234:{'9f' * 32}" in text  # the audit head to keep outside the file


def test_an_empty_day_still_has_its_figures_and_head(tmp_path: Path) -> None:
    book = synthetic_day_book(0)
    text = pdf_text(ReportlabRenderer().day_book(meta(), book), tmp_path)
    assert "No hay visitas registradas este día" in text and "Página 2 de 2" in text


def test_the_timeline_and_search_pdfs_show_the_person(tmp_path: Path) -> None:
    renderer = ReportlabRenderer()
    text = pdf_text(renderer.timeline(meta("Visitas de la ficha 7"), timeline(), ExportFormat.PDF),
                    tmp_path)  # fmt: skip
    assert "PEÑA NÚÑEZ" in text and "DNI ESP 12345678Z" in text
    assert "Prohibición de entrada del casino" in text and "Rechazado" in text
    assert content_digest(timeline_rows(timeline())) in text
    found = renderer.visitors(meta("Búsqueda"), [person()], ExportFormat.PDF)
    assert "JOSÉ MARÍA" in pdf_text(found, tmp_path)


def test_the_access_report_holds_every_section(tmp_path: Path) -> None:
    report = access_report()
    text = pdf_text(ReportlabRenderer().access_report(meta("Informe de acceso"), report), tmp_path)
    for needle in ("Ficha personal", "PEÑA NÚÑEZ", "Visitas: 2", "Observaciones: 1",
                   "hoja de reclamaciones", "Altercado", "No figura como personal",
                   "12 entradas del registro de auditoría", "art. 15"):  # fmt: skip
        assert needle in text, needle
    assert content_digest(access_rows(report)) in text


def test_csv_exports_open_in_a_spreadsheet_and_resist_formulas() -> None:
    renderer = ReportlabRenderer()
    hostile = Visitor(8, IdentityKey(IdKind.DNI, "ESP", "1Z"), "=CMD()", "@SUM", None, "ESP",
                      T0, T0)  # fmt: skip
    data = renderer.visitors(meta(), [person(), hostile], ExportFormat.CSV)
    assert data.startswith(b"\xef\xbb\xbf")
    text = data[3:].decode("utf-8")
    lines = text.split("\r\n")
    assert lines[0].startswith("Ficha,Apellidos,Nombre")
    assert "PEÑA NÚÑEZ" in lines[1] and "'=CMD()" in lines[2] and "'@SUM" in lines[2]
    assert content_digest(visitor_rows([person(), hostile])) in _sha(data[3:])
    csv_timeline = renderer.timeline(meta(), timeline(), ExportFormat.CSV)
    assert csv_timeline[3:].decode().count("\r\n") == 3  # the header and two visits


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def test_money_is_written_the_spanish_way() -> None:
    assert format_euros(123456) == "1.234,56 €" and format_euros(5) == "0,05 €"


def test_previews_of_the_reports(tmp_path: Path) -> None:
    """PNGs of the first pages, to look at (build/screens when asked)."""
    renderer = ReportlabRenderer()
    book = renderer.day_book(meta(), synthetic_day_book(120))
    assert preview_png(book, dpi=60).startswith(b"\x89PNG")
    assert preview_png(book, dpi=60, page_index=3).startswith(b"\x89PNG")


# -- the file target ------------------------------------------------------------------


def test_an_export_file_is_written_whole_and_private(tmp_path: Path) -> None:
    from hardware.printer.export_file import FileExportTarget

    target = FileExportTarget(tmp_path / "libro.pdf")
    target.write(b"%PDF-1.4 whole")
    assert (tmp_path / "libro.pdf").read_bytes() == b"%PDF-1.4 whole"
    assert (tmp_path / "libro.pdf").stat().st_mode & 0o077 == 0
    assert target.name == "libro.pdf" and sorted(tmp_path.iterdir()) == [tmp_path / "libro.pdf"]
    target.discard()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("failing", "error", "code"),
    [
        ("write", errno.ENOSPC, "EXPORT_DISK_FULL"),
        ("replace", errno.ENOSPC, "EXPORT_DISK_FULL"),
        ("replace", errno.EROFS, "EXPORT_READ_ONLY"),
        ("open", errno.EACCES, "EXPORT_READ_ONLY"),
        ("fsync", errno.EIO, "EXPORT_FAILED"),
    ],
)
def test_a_failed_export_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str, error: int, code: str
) -> None:
    from hardware.printer.export_file import FileExportTarget

    real = getattr(os, failing)
    calls = {"n": 0}

    def broken(*args: object, **kwargs: object) -> object:
        calls["n"] += 1
        if failing == "write" and calls["n"] == 1:
            real(*args, **kwargs)  # a part written, then the disk fills
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(os, failing, broken)
    target = FileExportTarget(tmp_path / "libro.pdf")
    with pytest.raises(ReportError) as failed:
        target.write(b"x" * 100_000)
    assert failed.value.code == code
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


def test_an_export_into_a_missing_folder_is_refused_before_it_is_rendered(
    tmp_path: Path,
) -> None:
    from admission.atomic_file import OutputError
    from hardware.printer.export_file import FileExportTarget

    with pytest.raises(OutputError) as failed:
        FileExportTarget(tmp_path / "nope" / "libro.pdf")  # the target alone: nothing read
    assert failed.value.code == "OUTPUT_NO_FOLDER" and list(tmp_path.iterdir()) == []


def test_the_pdf_names_card_types_by_their_label_and_the_digest_keeps_the_code(
    tmp_path: Path,
) -> None:
    book = synthetic_day_book(20)
    codes = {line.card_type for line in book.lines if line.card_type}
    assert codes
    labels = {code: f"Etiqueta {code.lower()}" for code in codes}
    labelled = ReportlabRenderer(card_labels=labels).day_book(meta(), book)
    text = pdf_text(labelled, tmp_path)
    for label in labels.values():
        assert label in text
    digest = content_digest(day_book_rows(book))
    assert f"SHA-256 del contenido: {digest}" in text  # the same content, the same digest


def test_a_csv_carries_each_code_with_its_label_in_the_chosen_language() -> None:
    import csv
    import io
    from dataclasses import replace

    from admission.catalogue import text as catalogue_text

    renderer = ReportlabRenderer()
    for lang in ("es", "en"):
        data = renderer.timeline(replace(meta(), language=lang), timeline(), ExportFormat.CSV)
        rows = list(csv.reader(io.StringIO(data[3:].decode("utf-8"))))
        header = rows[0]
        outcome = header.index("Resultado" if lang == "es" else "Outcome")
        reasons = header.index("Motivos" if lang == "es" else "Reasons")
        # the label's column stands right after its code's, headed in the same language
        assert header[outcome + 1] == header[outcome] + (" (texto)" if lang == "es" else " (text)")
        assert header[reasons + 1] == header[reasons] + (" (texto)" if lang == "es" else " (text)")
        refused = next(r for r in rows[1:] if r[outcome] == "DENY")
        assert refused[outcome + 1] == catalogue_text("DENY", lang)
        codes = refused[reasons].split()
        assert codes and refused[reasons + 1] == "; ".join(catalogue_text(c, lang) for c in codes)
        admitted = next(r for r in rows[1:] if r[outcome] == "ADMIT")
        assert admitted[outcome + 1] == catalogue_text("ADMIT", lang)
        # the codes themselves never change with the language: a program reads them
        assert {r[outcome] for r in rows[1:]} == {"ADMIT", "DENY"}
        assert ("Ficha" in header) is (lang == "es") and ("File" in header) is (lang == "en")
        assert content_digest(timeline_rows(timeline(), lang)) in _sha(data[3:])


def test_a_reentry_is_printed_as_such_and_not_counted_as_a_visit(tmp_path: Path) -> None:
    """art. 22: a re-entry on the card held is neither a refusal nor a new visit; a
    register that could not be checked is no refusal either (art. 20.1-2)."""
    from dataclasses import replace

    line = timeline()
    admitted, refused = line.entries
    reentry = replace(
        admitted.visit,
        visit_id=3,
        at=T0 + timedelta(hours=1),
        verdict="ALREADY_ADMITTED",
        reasons=("ALREADY_ADMITTED",),
        card_number=None,
    )
    entries = (admitted, TimelineEntry(reentry, None), refused)
    text = pdf_text(
        ReportlabRenderer().timeline(meta(), Timeline(person(), entries), ExportFormat.PDF),
        tmp_path,
    )
    assert "Visitas: 2 · reentradas con su tarjeta: 1" in text and "Reentrada" in text
    book = synthetic_day_book(20)
    extra = (
        replace(book.lines[0], verdict="ALREADY_ADMITTED", reasons=("ALREADY_ADMITTED",),
                card_number=None, card_type="", price_cents=0),
        replace(book.lines[1], verdict="NOT_ADMITTED", reasons=("REGISTRY_UNVERIFIABLE",),
                card_number=None, card_type="", price_cents=0),
    )  # fmt: skip
    figures = replace(book.figures, reentries=1, not_admitted=1)
    day = replace(book, lines=(*book.lines, *extra), figures=figures)
    text = pdf_text(ReportlabRenderer().day_book(meta(), day), tmp_path)
    refused = sum(1 for x in book.lines if x.verdict == "DENY")
    assert f"Visitas del día: 21 · admitidas {figures.admissions} · rechazadas {refused}" in text
    assert "reentradas 1 · no admitidos 1" in text and "No admitido" in text

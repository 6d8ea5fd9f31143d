"""The reports of the visitor file as PDF (reportlab) and CSV: the inspectors' search
and timeline exports (art. 20.4), the daily visitor book with the day's figures, and the
access-request report (GDPR art. 15). Implements
:class:`admission.reports.ReportRenderer`.

Every PDF page carries the casino's header, the title, who exported it and when,
"Página X de Y" and the SHA-256 of the content's canonical text (the rows the CSV would
carry: :func:`admission.reports.content_digest`) - the digest the audit entry of the
export records, so a printout is checked against the trail. Reasons are printed as the
catalogue's Spanish text. Everything is drawn in memory; the caller decides where the
bytes go (``hardware/printer/export_file.py``).

Long tables are cut into blocks of rows with plain-text cells (a Paragraph only where a
cell needs wrapping), so a day of thousands of visits renders in seconds.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any
from xml.sax.saxutils import escape

from reportlab.graphics.charts.barcharts import HorizontalBarChart, VerticalBarChart
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    CondPageBreak,
    KeepTogether,
    LongTable,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Table,
    TableStyle,
)

from admission import catalogue
from admission.cards.view import format_euros
from admission.inspection import Timeline
from admission.records import Visitor
from admission.reports import (
    AccessReport,
    DayBook,
    ExportFormat,
    Figures,
    ReportMeta,
    access_rows,
    content_digest,
    csv_bytes,
    day_book_rows,
    local,
    timeline_rows,
    visitor_rows,
)
from admission.verdict import counts_as_visit
from hardware.printer.render import CardStyle, register_fonts

__all__ = ["ReportlabRenderer"]

_INK = colors.HexColor("#111111")
_MUTED = colors.HexColor("#555555")
_RULE = colors.HexColor("#B0B0B0")
_BAND = colors.HexColor("#0B3D2E")
_STRIPE = colors.HexColor("#F2F4F3")
_REFUSED = colors.HexColor("#FBE9EA")
_VERDICT = {
    "ADMIT": "Admitido",
    "DENY": "Rechazado",
    "SUPERVISOR": "Director",
    "ALREADY_ADMITTED": "Reentrada",  # on the card held (art. 22): not a visit
    "NOT_ADMITTED": "No admitido",  # not a refusal (the RIAJ unavailable, dismissed)
}
_CARD_STATUS = {"ISSUED": "Emitida", "PRINTED": "Impresa", "VOIDED": "Anulada"}


def _visits_heading(verdicts: list[str]) -> str:
    """A person's visits (art. 20.3): the re-entries on a card held counted apart."""
    reentries = sum(1 for v in verdicts if not counts_as_visit(v))
    text = f"Visitas: {len(verdicts) - reentries}"
    return text + (f" · reentradas con su tarjeta: {reentries}" if reentries else "")


def _when(at: datetime | None, *, seconds: bool = False) -> str:
    if at is None:
        return ""
    return local(at).strftime("%d/%m/%Y %H:%M:%S" if seconds else "%d/%m/%Y %H:%M")


def _identity(text: str) -> str:
    """``DNI:ESP:12345678Z`` -> ``DNI ESP 12345678Z``."""
    return text.replace(":", " ")


def _reasons(codes: Sequence[str]) -> str:
    return "; ".join(catalogue.text(code) for code in codes)


class _Fonts:
    def __init__(self, style: CardStyle) -> None:
        self.regular, self.bold = register_fonts(style.font_regular, style.font_bold)

    def fit(self, text: str, size: float, width: float, *, bold: bool = False) -> str:
        """``text`` cut with an ellipsis to ``width`` points."""
        if len(text) * size <= width:  # no glyph of DejaVu Sans is wider than 1 em
            return text
        font = self.bold if bold else self.regular
        if stringWidth(text, font, size) <= width:
            return text
        while text and stringWidth(text + "…", font, size) > width:
            text = text[:-1]
        return text + "…"


def _numbered(
    draw_total: Callable[[Canvas, int, int], None],
) -> type[Canvas]:
    """A canvas that keeps its pages until the end, then writes "Página X de Y"."""

    class NumberedCanvas(Canvas):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._pages: list[dict[str, Any]] = []

        def showPage(self) -> None:
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._pages)
            for number, state in enumerate(self._pages, start=1):
                self.__dict__.update(state)
                draw_total(self, number, total)
                super().showPage()
            super().save()

    return NumberedCanvas


class ReportlabRenderer:
    """PDF (A4; tables on landscape pages) and CSV of the reports."""

    def __init__(
        self,
        style: CardStyle | None = None,
        *,
        compress: bool = True,
        card_labels: Mapping[str, str] | None = None,
    ) -> None:
        self._style = style or CardStyle()
        self._compress = compress  # tests read the text of uncompressed PDFs
        # a card type's label as the desk sells it ("Entrada de un día"); the CSV and the
        # digest keep the code, which does not change when a label is reworded
        self._card_labels = dict(card_labels or {})

    def card_label(self, code: str) -> str:
        return self._card_labels.get(code, code)

    # -- ReportRenderer ----------------------------------------------------------------

    def visitors(self, meta: ReportMeta, visitors: Sequence[Visitor], fmt: ExportFormat) -> bytes:
        rows = visitor_rows(visitors, meta.language)
        if fmt is ExportFormat.CSV:
            return csv_bytes(rows)
        doc = _Document(self, meta, content_digest(rows), landscape(A4))
        widths = [16, 55, 50, 42, 24, 20, 32, 32]
        body = [
            [
                str(v.file_number),
                v.surname,
                v.given_names,
                _identity(v.identity.text),
                "" if v.birth_date is None else v.birth_date.strftime("%d/%m/%Y"),
                v.nationality,
                _when(v.first_seen),
                _when(v.last_seen),
            ]
            for v in visitors
        ]
        doc.heading(f"Personas encontradas: {len(visitors)}")
        header = ["Ficha", "Apellidos", "Nombre", "Documento", "Nacimiento", "Nacionalidad",
                  "Primera visita", "Última visita"]  # fmt: skip
        doc.table(header, body, widths)
        return doc.build()

    def timeline(self, meta: ReportMeta, timeline: Timeline, fmt: ExportFormat) -> bytes:
        rows = timeline_rows(timeline, meta.language)
        if fmt is ExportFormat.CSV:
            return csv_bytes(rows)
        doc = _Document(self, meta, content_digest(rows), landscape(A4))
        doc.person(timeline.visitor)
        doc.heading(_visits_heading([e.visit.verdict for e in timeline.entries]))
        body = []
        marks = []
        for i, entry in enumerate(timeline.entries):
            visit, card = entry.visit, entry.card
            body.append(
                [
                    _when(visit.at, seconds=True),
                    visit.desk_id,
                    visit.operator,
                    _VERDICT.get(visit.verdict, visit.verdict),
                    doc.wrap(_reasons(visit.reasons)),
                    visit.document_type,
                    "" if visit.card_number is None else str(visit.card_number),
                    "" if card is None else self.card_label(card.card_type),
                    "" if card is None else format_euros(card.price_cents),
                    "" if card is None else _CARD_STATUS.get(card.status.value, card.status.value),
                ]
            )
            if visit.verdict == "DENY":
                marks.append(i)
        header = [
            "Fecha y hora",
            "Puesto",
            "Empleado",
            "Resultado",
            "Motivos",
            "Documento",
            "Tarjeta",
            "Tipo",
            "Importe",
            "Estado",
        ]
        doc.table(header, body, [30, 18, 22, 18, 84, 22, 14, 22, 17, 16], refused=marks)
        return doc.build()

    def day_book(self, meta: ReportMeta, book: DayBook) -> bytes:
        doc = _Document(
            self, meta, content_digest(day_book_rows(book, meta.language)), landscape(A4)
        )
        refused = sum(1 for line in book.lines if line.verdict == "DENY")
        cards = sum(1 for line in book.lines if line.card_number is not None)
        visits = sum(1 for line in book.lines if counts_as_visit(line.verdict))
        doc.heading(
            f"Visitas del día: {visits} · admitidas {book.figures.admissions} · "
            f"rechazadas {refused} · tarjetas emitidas {cards} · "
            f"reentradas {book.figures.reentries} · no admitidos {book.figures.not_admitted}"
        )
        header = [
            "Hora",
            "Ficha",
            "Apellidos",
            "Nombre",
            "Documento",
            "Resultado",
            "Motivos",
            "Tarjeta",
            "Tipo",
            "Importe",
            "Puesto",
            "Empleado",
        ]
        body: list[list[object]] = []
        marks = []
        for i, line in enumerate(book.lines):
            card = "" if line.card_number is None else str(line.card_number)
            if line.card_voided and card:
                card += " (anulada)"
            body.append(
                [
                    local(line.at).strftime("%H:%M:%S"),
                    str(line.file_number),
                    line.surname,
                    line.given_names,
                    _identity(line.identity),
                    _VERDICT.get(line.verdict, line.verdict),
                    doc.wrap(_reasons(line.reasons)) if line.reasons else "",
                    card,
                    self.card_label(line.card_type),
                    format_euros(line.price_cents) if line.card_number is not None else "",
                    line.desk_id,
                    line.operator,
                ]
            )
            if line.verdict == "DENY":
                marks.append(i)
        if body:
            doc.table(header, body, [15, 13, 38, 32, 34, 17, 60, 18, 17, 16, 14, 16], refused=marks)
        else:
            doc.note("No hay visitas registradas este día.")
        doc.page_break()
        doc.figures(book.figures)
        head = book.audit_head
        doc.heading("Cabeza del registro de auditoría")
        doc.note(
            "Guárdese fuera del fichero (art. 20.4): una alteración posterior de cualquier "
            "entrada anterior cambia esta huella."
        )
        doc.code(f"{head.seq}:{head.digest}")
        if head.at is not None:
            doc.note(f"Entrada {head.seq}, del {_when(head.at, seconds=True)}.")
        return doc.build()

    def access_report(self, meta: ReportMeta, report: AccessReport) -> bytes:
        doc = _Document(self, meta, content_digest(access_rows(report)), A4)
        doc.note(
            "Datos personales que el casino conserva de esta persona en el fichero de "
            "visitantes (art. 20 del Decreto 58/2006; art. 15 del Reglamento (UE) 2016/679). "
            "Las visitas se conservan seis meses (art. 20.4)."
        )
        doc.person(report.visitor)
        doc.heading(_visits_heading([e.visit.verdict for e in report.timeline]))
        if report.timeline:
            body = []
            marks = []
            for i, entry in enumerate(report.timeline):
                visit, card = entry.visit, entry.card
                card_text = ""
                if card is not None:
                    card_text = (
                        f"{card.number} {self.card_label(card.card_type)} "
                        f"{format_euros(card.price_cents)} "
                        f"({_CARD_STATUS.get(card.status.value, card.status.value)})"
                    )
                    if card.void_reason:
                        card_text += f" - {card.void_reason}"
                body.append(
                    [
                        _when(visit.at),
                        _VERDICT.get(visit.verdict, visit.verdict),
                        doc.wrap(_reasons(visit.reasons)),
                        f"{visit.document_type} {visit.document_number}".strip(),
                        doc.wrap(card_text),
                        f"{visit.desk_id} / {visit.operator}",
                    ]
                )
                if visit.verdict == "DENY":
                    marks.append(i)
            doc.table(
                [
                    "Fecha y hora",
                    "Resultado",
                    "Motivos",
                    "Documento",
                    "Tarjeta",
                    "Puesto y empleado",
                ],
                body,
                [25, 16, 48, 26, 42, 29],
                refused=marks,
            )
        else:
            doc.note("No hay visitas en el fichero.")
        doc.heading(f"Observaciones: {len(report.observations)}")
        if report.observations:
            doc.table(
                ["Fecha y hora", "Autor", "Texto"],
                [[_when(o.at), o.author, doc.wrap(o.text)] for o in report.observations],
                [25, 25, 136],
            )
        doc.heading(f"Prohibiciones de entrada del casino: {len(report.bans)}")
        if report.bans:
            rows: list[list[object]] = []
            for ban in report.bans:
                state = "Levantada " + _when(ban.lifted_at) if ban.lifted_at else "En el fichero"
                if ban.lift_reason:
                    state += f" ({ban.lift_reason})"
                rows.append(
                    [
                        _when(ban.created_at),
                        doc.wrap(ban.reason),
                        ban.decided_by,
                        "Sin caducidad" if ban.expires_at is None else _when(ban.expires_at),
                        doc.wrap(state),
                    ]
                )
            doc.table(
                ["Desde", "Motivo", "Decidida por", "Hasta", "Estado"], rows, [25, 70, 25, 25, 41]
            )
        doc.heading("Personal del casino")
        if report.staff is None:
            doc.note("No figura como personal del casino.")
        else:
            kind = "Director de juegos" if report.staff.role.value == "DIRECTOR" else "Personal"
            doc.note(
                f"{kind}: {report.staff.name} ({'activo' if report.staff.active else 'baja'})."
            )
        doc.heading("Registro de auditoría")
        doc.note(
            (
                "1 entrada del registro de auditoría se refiere"
                if report.consultations == 1
                else f"{report.consultations} entradas del registro de auditoría se refieren"
            )
            + " a esta ficha (altas, visitas, observaciones y consultas)."
        )
        return doc.build()


class _Document:
    """One report being laid out: the story, the page decoration and the fonts."""

    def __init__(
        self, renderer: ReportlabRenderer, meta: ReportMeta, digest: str, page: tuple[float, float]
    ) -> None:
        self.meta = meta
        self.digest = digest
        self.page = page
        self.compress = renderer._compress
        self.card_label = renderer.card_label
        self.fonts = _Fonts(renderer._style)
        regular, bold = self.fonts.regular, self.fonts.bold
        self.title_style = ParagraphStyle(
            "title", fontName=bold, fontSize=14, leading=17, textColor=_BAND, spaceAfter=2 * mm
        )
        self.heading_style = ParagraphStyle(
            "heading",
            fontName=bold,
            fontSize=10,
            leading=13,
            textColor=_INK,
            spaceBefore=3 * mm,
            spaceAfter=1.5 * mm,
        )
        self.note_style = ParagraphStyle(
            "note", fontName=regular, fontSize=8, leading=10, textColor=_INK, spaceAfter=1 * mm
        )
        self.code_style = ParagraphStyle(
            "code", fontName=bold, fontSize=8.5, leading=11, textColor=_INK, spaceAfter=1 * mm
        )
        self.cell_style = ParagraphStyle(
            "cell", fontName=regular, fontSize=6.5, leading=7.8, textColor=_INK
        )
        self.width = page[0] - 24 * mm
        self.story: list[object] = [
            Paragraph(escape(meta.title), self.title_style),
            Paragraph(
                escape(
                    f"Exportado por {meta.exported_by_name} ({meta.exported_by}) el "
                    f"{_when(meta.exported_at, seconds=True)} (hora de Madrid)"
                ),
                self.note_style,
            ),
        ]
        if meta.query:
            query = [[label + ":", self.wrap(value, size=8)] for label, value in meta.query]
            table = Table(query, colWidths=[28 * mm, self.width - 28 * mm], hAlign="LEFT")
            table.setStyle(
                TableStyle(
                    [
                        ("FONT", (0, 0), (0, -1), bold, 8),
                        ("FONT", (1, 0), (1, -1), regular, 8),
                        ("VALIGN", (0, 0), (-1, -1), "TOP"),
                        ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
                        ("TOPPADDING", (0, 0), (-1, -1), 1),
                        ("LEFTPADDING", (0, 0), (-1, -1), 0),
                    ]
                )
            )
            self.story.append(table)

    # -- content ---------------------------------------------------------------------

    def wrap(self, text: str, *, size: float = 6.5) -> Paragraph | str:
        """A cell that wraps (a Paragraph) - or the plain string when it is empty."""
        if not text:
            return ""
        style = self.cell_style
        if size != style.fontSize:
            style = ParagraphStyle("wrapped", parent=style, fontSize=size, leading=size * 1.2)
        return Paragraph(escape(text), style)

    def heading(self, text: str) -> None:
        self.story.append(CondPageBreak(20 * mm))
        self.story.append(Paragraph(escape(text), self.heading_style))

    def note(self, text: str) -> None:
        self.story.append(Paragraph(escape(text), self.note_style))

    def code(self, text: str) -> None:
        self.story.append(Paragraph(escape(text), self.code_style))

    def page_break(self) -> None:
        self.story.append(PageBreak())

    def person(self, visitor: Visitor) -> None:
        self.heading("Ficha personal")
        rows = [
            ("Número de ficha", str(visitor.file_number)),
            ("Apellidos", visitor.surname),
            ("Nombre", visitor.given_names),
            ("Documento de identidad", _identity(visitor.identity.text)),
            (
                "Fecha de nacimiento",
                "" if visitor.birth_date is None else visitor.birth_date.strftime("%d/%m/%Y"),
            ),
            ("Nacionalidad", visitor.nationality),
            ("Primera visita", _when(visitor.first_seen)),
            ("Última visita", _when(visitor.last_seen)),
        ]
        table = Table(
            [[label, self.wrap(value, size=8.5)] for label, value in rows],
            colWidths=[45 * mm, min(self.width - 45 * mm, 120 * mm)],
            hAlign="LEFT",
        )
        table.setStyle(
            TableStyle(
                [
                    ("FONT", (0, 0), (0, -1), self.fonts.bold, 8.5),
                    ("TEXTCOLOR", (0, 0), (0, -1), _MUTED),
                    ("LINEBELOW", (0, 0), (-1, -1), 0.25, _RULE),
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("TOPPADDING", (0, 0), (-1, -1), 1.5),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
                ]
            )
        )
        self.story.append(table)

    def table(
        self,
        header: list[str],
        body: Sequence[Sequence[object]],
        widths_mm: Sequence[float],
        *,
        refused: Sequence[int] = (),
    ) -> None:
        """A long table in blocks of rows, the header repeated on every page; plain
        cells cut with an ellipsis to their column, refused visits shaded."""
        scale = self.width / (sum(widths_mm) * mm)
        widths = [w * mm * scale for w in widths_mm]
        size = 6.5
        fit = self.fonts.fit
        head = [fit(h, size, w - 4, bold=True) for h, w in zip(header, widths, strict=True)]
        shaded = set(refused)
        rows: list[list[object]] = [list(head)]
        for row in body:
            rows.append(
                [
                    fit(cell, size, w - 4) if isinstance(cell, str) else cell
                    for cell, w in zip(row, widths, strict=True)
                ]
            )
        commands: list[tuple[object, ...]] = [
            ("FONT", (0, 0), (-1, 0), self.fonts.bold, size),
            ("FONT", (0, 1), (-1, -1), self.fonts.regular, size),
            ("LEADING", (0, 0), (-1, -1), size * 1.2),
            ("TEXTCOLOR", (0, 0), (-1, 0), colors.white),
            ("BACKGROUND", (0, 0), (-1, 0), _BAND),
            ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, _STRIPE]),
            ("LINEBELOW", (0, 1), (-1, -1), 0.2, _RULE),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("TOPPADDING", (0, 0), (-1, -1), 1.2),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 1.2),
            ("LEFTPADDING", (0, 0), (-1, -1), 2),
            ("RIGHTPADDING", (0, 0), (-1, -1), 2),
        ]
        commands += [("BACKGROUND", (0, i + 1), (-1, i + 1), _REFUSED) for i in sorted(shaded)]
        # a row of plain cells is one line: its height is known, not measured
        plain = size * 1.2 + 2 * 1.2
        heights = [plain if all(isinstance(cell, str) for cell in row) else None for row in rows]
        table = LongTable(rows, colWidths=widths, rowHeights=heights, repeatRows=1, hAlign="LEFT")
        table.setStyle(TableStyle(commands))
        self.story.append(table)

    def figures(self, figures: Figures) -> None:
        """The day's (or range's) figures: totals, then the charts."""
        self.heading("Cifras")
        totals = [
            ("Admisiones", str(figures.admissions)),
            ("Rechazos", str(figures.refused)),
            ("Reentradas con su tarjeta (no son visitas)", str(figures.reentries)),
            ("No admitidos sin rechazo (RIAJ no disponible…)", str(figures.not_admitted)),
            ("Personas distintas", str(figures.visitors)),
            ("Tarjetas emitidas (sin anuladas)", str(sum(n for _, n in figures.card_types))),
            ("Tarjetas anuladas", str(figures.voided)),
            ("Recaudación (sin anuladas)", format_euros(figures.revenue_cents)),
        ]
        for name, cents in figures.revenue_by_type:
            count = dict(figures.card_types).get(name, 0)
            totals.append((f"  {self.card_label(name)}: {count} tarjetas", format_euros(cents)))
        table = Table(totals, colWidths=[70 * mm, 35 * mm], hAlign="LEFT")
        table.setStyle(
            TableStyle(
                [
                    ("FONT", (0, 0), (-1, -1), self.fonts.regular, 8.5),
                    ("ALIGN", (1, 0), (1, -1), "RIGHT"),
                    ("LINEBELOW", (0, 0), (-1, -1), 0.25, _RULE),
                    ("TOPPADDING", (0, 0), (-1, -1), 1.5),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
                ]
            )
        )
        self.story.append(table)
        hours = [f"{h:02d}" for h in range(24)]
        self.story.append(
            KeepTogether(
                [
                    Paragraph(
                        "Admisiones y rechazos por hora (hora de Madrid)", self.heading_style
                    ),
                    self._bars(
                        hours,
                        [list(figures.per_hour), list(figures.refused_per_hour)],
                        ["Admisiones", "Rechazos"],
                    ),
                ]
            )
        )
        side: list[object] = []
        if figures.card_types:
            side.append(
                self._hbars(
                    "Tarjetas por tipo",
                    [self.card_label(name) for name, _ in figures.card_types],
                    [n for _, n in figures.card_types],
                )
            )
        if figures.refusals:
            side.append(
                self._hbars(
                    "Rechazos por motivo",
                    [
                        self.fonts.fit(catalogue.text(code), 6.5, 62 * mm)
                        for code, _ in figures.refusals
                    ],
                    [n for _, n in figures.refusals],
                )
            )
        if side:
            row = Table([side], hAlign="LEFT")
            row.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP")]))
            self.story.append(row)

    def _bars(self, labels: list[str], series: list[list[int]], names: list[str]) -> Drawing:
        width, height = self.width, 58 * mm
        drawing = Drawing(width, height)
        chart = VerticalBarChart()
        chart.x, chart.y = 12 * mm, 10 * mm
        chart.width, chart.height = width - 20 * mm, height - 16 * mm
        chart.data = series
        chart.categoryAxis.categoryNames = labels
        chart.categoryAxis.labels.fontName = self.fonts.regular
        chart.categoryAxis.labels.fontSize = 6.5
        chart.valueAxis.labels.fontName = self.fonts.regular
        chart.valueAxis.labels.fontSize = 6.5
        chart.valueAxis.valueMin = 0
        top = max((max(s) for s in series if s), default=0)
        chart.valueAxis.valueMax = max(top, 1) * 1.1
        chart.valueAxis.valueStep = _step(top)
        chart.barSpacing = 0.5
        chart.groupSpacing = 3
        chart.bars[0].fillColor = _BAND
        chart.bars[1].fillColor = colors.HexColor("#B00020")
        chart.bars.strokeColor = None
        drawing.add(chart)
        x = chart.x
        for name, colour in zip(names, (_BAND, colors.HexColor("#B00020")), strict=False):
            drawing.add(String(x, height - 4 * mm, "■ " + name, fontName=self.fonts.regular,
                               fontSize=7, fillColor=colour))  # fmt: skip
            x += stringWidth("■ " + name, self.fonts.regular, 7) + 6 * mm
        return drawing

    def _hbars(self, title: str, labels: list[str], values: list[int]) -> Drawing:
        row = 6 * mm
        width = self.width / 2 - 4 * mm
        height = row * len(labels) + 16 * mm
        drawing = Drawing(width, height)
        drawing.add(String(0, height - 4 * mm, title, fontName=self.fonts.bold, fontSize=9,
                           fillColor=_INK))  # fmt: skip
        chart = HorizontalBarChart()
        label_width = min(
            max(stringWidth(label, self.fonts.regular, 6.5) for label in labels) + 3 * mm,
            width * 0.6,
        )
        chart.x, chart.y = label_width, 6 * mm
        chart.width, chart.height = width - label_width - 6 * mm, row * len(labels)
        chart.data = [list(reversed(values))]
        chart.categoryAxis.categoryNames = list(reversed(labels))
        chart.categoryAxis.labels.fontName = self.fonts.regular
        chart.categoryAxis.labels.fontSize = 6.5
        chart.valueAxis.labels.fontName = self.fonts.regular
        chart.valueAxis.labels.fontSize = 6.5
        chart.valueAxis.valueMin = 0
        top = max(values, default=0)
        chart.valueAxis.valueMax = max(top, 1) * 1.15
        chart.valueAxis.valueStep = _step(top)
        chart.bars[0].fillColor = _BAND
        chart.bars.strokeColor = None
        chart.barLabelFormat = "%d"
        chart.barLabels.fontName = self.fonts.regular
        chart.barLabels.fontSize = 6.5
        chart.barLabels.boxAnchor = "w"
        chart.barLabels.dx = 2
        drawing.add(chart)
        return drawing

    # -- the page ----------------------------------------------------------------------

    def _decorate(self, canvas: Canvas, doc: object) -> None:
        """Header and digest footer of every page (the page count comes at the end)."""
        width, height = self.page
        meta = self.meta
        canvas.saveState()
        canvas.setFillColor(_BAND)
        canvas.setFont(self.fonts.bold, 9)
        name = meta.casino_name + (f" · {meta.casino_id}" if meta.casino_id else "")
        canvas.drawString(12 * mm, height - 9 * mm, self.fonts.fit(name, 9, width / 2, bold=True))
        canvas.setFillColor(_MUTED)
        canvas.setFont(self.fonts.regular, 7)
        if meta.casino_address:
            canvas.drawString(
                12 * mm, height - 12.5 * mm, self.fonts.fit(meta.casino_address, 7, width / 2)
            )
        canvas.drawRightString(
            width - 12 * mm, height - 9 * mm, self.fonts.fit(meta.title, 7, width / 2 - 20 * mm)
        )
        canvas.drawRightString(
            width - 12 * mm,
            height - 12.5 * mm,
            self.fonts.fit(
                f"Exportado por {meta.exported_by_name} ({meta.exported_by}) el "
                f"{_when(meta.exported_at)}",
                7,
                width / 2 - 20 * mm,
            ),
        )
        canvas.setStrokeColor(_RULE)
        canvas.setLineWidth(0.4)
        canvas.line(12 * mm, height - 14.5 * mm, width - 12 * mm, height - 14.5 * mm)
        canvas.line(12 * mm, 12 * mm, width - 12 * mm, 12 * mm)
        canvas.setFillColor(_INK)
        canvas.setFont(self.fonts.regular, 6.5)
        canvas.drawString(12 * mm, 8 * mm, f"SHA-256 del contenido: {self.digest}")
        canvas.setFillColor(_MUTED)
        canvas.drawString(
            12 * mm,
            5 * mm,
            "Confidencial: fichero de visitantes (art. 20.4 del Decreto 58/2006).",
        )
        canvas.restoreState()

    def _page_number(self, canvas: Canvas, number: int, total: int) -> None:
        canvas.saveState()
        canvas.setFont(self.fonts.bold, 7.5)
        canvas.setFillColor(_INK)
        canvas.drawRightString(self.page[0] - 12 * mm, 8 * mm, f"Página {number} de {total}")
        canvas.restoreState()

    def build(self) -> bytes:
        out = io.BytesIO()
        doc = SimpleDocTemplate(
            out,
            pagesize=self.page,
            leftMargin=12 * mm,
            rightMargin=12 * mm,
            topMargin=18 * mm,
            bottomMargin=15 * mm,
            title=self.meta.title[:120],
            author=self.meta.casino_name[:120],
            creator="admission",
            pageCompression=1 if self.compress else 0,
            invariant=True,
        )
        doc.build(
            self.story,
            onFirstPage=self._decorate,
            onLaterPages=self._decorate,
            canvasmaker=_numbered(self._page_number),
        )
        return out.getvalue()


def _step(top: int) -> int:
    """A readable axis step for values up to ``top`` (about five ticks)."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if top / step <= 6:
            return step
    return max(1, top // 5)

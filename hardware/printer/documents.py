"""Render the desk's other documents: the provisional voucher (art. 23.4, R11), the A5
information leaflet (art. 25.1, R14) and plain texts such as the regulation itself.

Same fonts and colours as the card (``CardStyle``); everything in memory.
"""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

from admission.leaflet import Leaflet
from admission.vouchers.model import PROVISIONAL_PENDING, VoucherView
from hardware.printer import A4, A5, RECEIPT_80, PageSize
from hardware.printer.images import load_image
from hardware.printer.render import (
    LOGO_WARNINGS,
    CardStyle,
    CardWarning,
    Rendered,
    colour,
    draw_fitted,
    fit_lines,
    register_fonts,
)

__all__ = ["render_leaflet", "render_text_document", "render_voucher"]


def render_voucher(
    view: VoucherView, style: CardStyle | None = None, page: PageSize = RECEIPT_80
) -> Rendered:
    """One voucher on a receipt (80 mm wide) or on a CR80 card."""
    style = style or CardStyle()
    regular, bold = register_fonts(style.font_regular, style.font_bold)
    width, height = page.points
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(width, height), pageCompression=1, invariant=True)
    # a voucher given without the server bears the desk's local reference, never a
    # number that could pass for the server's (art. 23.4; arts. 154-155)
    heading = (
        f"{view.title} {view.reference}" if view.reference else f"{view.title} Nº {view.number}"
    )
    c.setTitle(f"Volante {view.reference}" if view.reference else f"Volante {view.number}")
    margin = 4 * mm if page.width_mm >= 80 else 3 * mm
    inner = width - 2 * margin
    small = page.height_mm < 60  # CR80
    text = colour(style.text, "#111111")
    muted = colour(style.muted, "#555555")
    y = height - margin - 8
    warnings: list[CardWarning] = []
    logo, problem = load_image(style.logo)
    if logo is not None and not small:
        iw, ih = logo.getSize()
        h = 12 * mm
        w = min(inner, iw * h / ih)
        c.drawImage(logo, margin, y - h + 8, w, h)
        y -= h + 2
    elif problem is not None and style.logo:
        warnings.append(LOGO_WARNINGS[problem])
    c.setFillColor(text)
    draw_fitted(c, view.casino_name, bold, margin, y, inner, 9 if not small else 7, 5)
    y -= 12 if not small else 9
    draw_fitted(c, heading, bold, margin, y, inner, 11 if not small else 8, 6)
    y -= 14 if not small else 10.5
    if view.reference:  # said again under the heading, where the number would be
        pending = PROVISIONAL_PENDING
        draw_fitted(c, pending, bold, margin, y, inner, 9 if not small else 7, 5)
        y -= 12 if not small else 9
    if small:  # CR80: "label: value" on one line each
        for label, value in view.lines[1:]:
            c.setFillColor(text)
            draw_fitted(c, f"{label}: {value}", bold, margin, y, inner, 6.5, 4)
            y -= 8.2
    else:
        for label, value in view.lines[1:]:
            c.setFillColor(muted)
            c.setFont(regular, 6)
            c.drawString(margin, y, label)
            y -= 9.5
            c.setFillColor(text)
            size, lines, _ = fit_lines(value, bold, inner, (8.5, 7), 2, one_line_min=7)
            c.setFont(bold, size)
            for line in lines:
                c.drawString(margin, y, line)
                y -= size * 1.15
            y -= 2
    c.setFillColor(muted)
    notice_size = 6 if not small else 3.8
    _, lines, _ = fit_lines(view.notice, regular, inner, (notice_size,), 8, one_line_min=99)
    c.setFont(regular, notice_size)
    for line in lines:
        if y < margin:
            break
        c.drawString(margin, y, line)
        y -= notice_size * 1.2
    c.showPage()
    c.save()
    return Rendered(buf.getvalue(), tuple(warnings))


def _styles(
    style: CardStyle,
) -> tuple[ParagraphStyle, ParagraphStyle, ParagraphStyle, ParagraphStyle]:
    regular, bold = register_fonts(style.font_regular, style.font_bold)
    primary = colour(style.primary, "#0B3D2E")
    title = ParagraphStyle(
        "title", fontName=bold, fontSize=15, leading=18, textColor=primary, spaceAfter=2
    )
    subtitle = ParagraphStyle("subtitle", fontName=regular, fontSize=8.5, leading=11, spaceAfter=6)
    heading = ParagraphStyle(
        "heading",
        fontName=bold,
        fontSize=9.5,
        leading=12,
        textColor=primary,
        spaceBefore=4,
        spaceAfter=1,
    )
    body = ParagraphStyle(
        "body",
        fontName=regular,
        fontSize=7.8,
        leading=9.8,
        leftIndent=8,
        bulletIndent=0,
        spaceAfter=1,
    )
    return title, subtitle, heading, body


def render_leaflet(
    leaflet: Leaflet, style: CardStyle | None = None, page: PageSize = A5
) -> Rendered:
    """The information leaflet on A5 (more pages when the configuration is long)."""
    style = style or CardStyle()
    title, subtitle, heading, body = _styles(style)
    buf = io.BytesIO()
    doc = SimpleDocTemplate(
        buf,
        pagesize=page.points,
        leftMargin=12 * mm,
        rightMargin=12 * mm,
        topMargin=12 * mm,
        bottomMargin=12 * mm,
        title="Información al visitante",
        invariant=True,
    )
    story: list[object] = [
        Paragraph(escape(leaflet.title), title),
        Paragraph(escape(leaflet.subtitle), subtitle),
    ]
    for section in leaflet.sections:
        story.append(Paragraph(escape(section.heading), heading))
        for line in section.lines:
            story.append(Paragraph(escape(line), body, bulletText="•"))
    story.append(Spacer(1, 3 * mm))
    story.append(Paragraph(f"<i>{escape(leaflet.footer)}</i>", body))
    doc.build(story)
    return Rendered(buf.getvalue())


def render_text_document(
    title_text: str, text: str, style: CardStyle | None = None, page: PageSize = A4
) -> Rendered:
    """A plain text (e.g. the regulation, art. 25.1) as a printable PDF."""
    style = style or CardStyle()
    title, _, _, body = _styles(style)
    plain = ParagraphStyle(
        "plain", parent=body, leftIndent=0, fontSize=9, leading=11.5, spaceAfter=4
    )
    buf = io.BytesIO()
    doc = SimpleDocTemplate(
        buf,
        pagesize=page.points,
        leftMargin=18 * mm,
        rightMargin=18 * mm,
        topMargin=15 * mm,
        bottomMargin=15 * mm,
        title=title_text[:80],
        invariant=True,
    )
    story: list[object] = [Paragraph(escape(title_text), title)]
    paragraph: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.strip():
            paragraph.append(line.strip())
        elif paragraph:
            story.append(Paragraph(escape(" ".join(paragraph)), plain))
            paragraph = []
    doc.build(story)
    return Rendered(buf.getvalue())

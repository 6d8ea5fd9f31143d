"""Render entry cards (CR80 85.6×54 mm, art. 22.3 / R7) to PDF with reportlab.

Also the provisional voucher (art. 23.4, R11), the A5 desk leaflet and plain text
documents such as the regulation (art. 25, R14): see ``documents.py``. PNG previews
for the GUI come from pypdfium2.

Everything is drawn in memory; the caller decides where the bytes go (a print queue,
the demo PDF folder, a preview). Never a crash on a bad logo: the card is printed
without it and a warning code is returned.
"""

from __future__ import annotations

import io
import itertools
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import unique
from pathlib import Path

from reportlab.graphics.barcode import qrencoder
from reportlab.lib.colors import Color, HexColor, white
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from admission.cards.view import CardView
from admission.codes import Code
from hardware.printer import CR80
from hardware.printer.images import ImageProblem, load_image
from hardware.printer.images import draw_image_in_box as _draw_image_in_box

__all__ = [
    "FONT_DIR",
    "LOGO_WARNINGS",
    "CardStyle",
    "CardWarning",
    "Rendered",
    "colour",
    "fit_lines",
    "preview_png",
    "register_fonts",
    "render_card",
    "style_from_settings",
]

log = logging.getLogger(__name__)

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
FONT_DIR = RESOURCES / "fonts"
DEMO_DIR = RESOURCES / "demo"


@unique
class CardWarning(Code):
    """What a printed card (or voucher, or leaflet) lacks: it is printed anyway, and the
    warning says what to fix in the settings (``print-card``'s ``warnings``)."""

    LOGO_MISSING = "LOGO_MISSING"  # no logo configured, or no such file
    LOGO_TOO_LARGE = "LOGO_TOO_LARGE"
    LOGO_UNREADABLE = "LOGO_UNREADABLE"
    SIGNATURE_MISSING = "SIGNATURE_MISSING"
    SIGNATURE_TOO_LARGE = "SIGNATURE_TOO_LARGE"
    SIGNATURE_UNREADABLE = "SIGNATURE_UNREADABLE"
    NAME_TRUNCATED = "NAME_TRUNCATED"  # the holder's name did not fit in three lines
    # R7 needs the director's signature or the seal (the logo): the card has neither
    NO_SIGNATURE_OR_LOGO = "NO_SIGNATURE_OR_LOGO"


# the warning for each problem of the logo, and of the signature
LOGO_WARNINGS = {
    ImageProblem.MISSING: CardWarning.LOGO_MISSING,
    ImageProblem.TOO_LARGE: CardWarning.LOGO_TOO_LARGE,
    ImageProblem.UNREADABLE: CardWarning.LOGO_UNREADABLE,
}
_SIGNATURE_WARNINGS = {
    ImageProblem.MISSING: CardWarning.SIGNATURE_MISSING,
    ImageProblem.TOO_LARGE: CardWarning.SIGNATURE_TOO_LARGE,
    ImageProblem.UNREADABLE: CardWarning.SIGNATURE_UNREADABLE,
}


@dataclass(frozen=True, slots=True)
class CardStyle:
    """Colours, fonts and images, all from settings (``printer.card.*`` keys)."""

    primary: str = "#0B3D2E"  # header band
    on_primary: str = "#FFFFFF"
    text: str = "#111111"
    muted: str = "#555555"  # field labels
    accent: str = "#B00020"  # exceptional / special marks
    font_regular: str = str(FONT_DIR / "DejaVuSans.ttf")
    font_bold: str = str(FONT_DIR / "DejaVuSans-Bold.ttf")
    logo: str | None = str(DEMO_DIR / "logo.png")
    signature: str | None = str(DEMO_DIR / "signature.png")
    signature_caption: str = "El director de juegos"


_DEFAULT_STYLE = CardStyle()


def style_from_settings(values: Mapping[str, object], *, demo: bool = False) -> CardStyle:
    """The card style from settings values. Declared keys today: ``card.logo``,
    ``card.signature`` (paths; "" = none), ``card.colour`` (header band). Optional keys
    read when present: ``card.text_colour``, ``card.accent_colour``, ``card.font``,
    ``card.font_bold``, ``card.signature_caption``. In demo mode empty image paths
    fall back to the drawn demo logo and signature in ``resources/demo/``."""

    def text(key: str, default: str) -> str:
        value = values.get(key)
        return value if isinstance(value, str) and value else default

    logo = text("card.logo", str(DEMO_DIR / "logo.png") if demo else "")
    signature = text("card.signature", str(DEMO_DIR / "signature.png") if demo else "")
    return CardStyle(
        primary=text("card.colour", _DEFAULT_STYLE.primary),
        text=text("card.text_colour", _DEFAULT_STYLE.text),
        accent=text("card.accent_colour", _DEFAULT_STYLE.accent),
        font_regular=text("card.font", _DEFAULT_STYLE.font_regular),
        font_bold=text("card.font_bold", _DEFAULT_STYLE.font_bold),
        logo=logo or None,
        signature=signature or None,
        signature_caption=text("card.signature_caption", _DEFAULT_STYLE.signature_caption),
    )


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendered document: the PDF bytes and its warnings (never personal data)."""

    pdf: bytes
    warnings: tuple[CardWarning, ...] = field(default=())

    def __repr__(self) -> str:
        return f"Rendered({len(self.pdf)} bytes, warnings={self.warnings})"


# ---------------------------------------------------------------- fonts and colours

_font_lock = threading.Lock()
_fonts: dict[tuple[str, str], tuple[str, str]] = {}


def register_fonts(regular: str, bold: str) -> tuple[str, str]:
    """Register two TTF files with reportlab once; falls back to the vendored DejaVu
    when a configured font cannot be loaded (Helvetica has no ñ-safe metrics for all
    accents and is not embedded)."""
    key = (regular, bold)
    with _font_lock:
        if key in _fonts:
            return _fonts[key]
        names: list[str] = []
        for path, fallback in ((regular, "DejaVuSans.ttf"), (bold, "DejaVuSans-Bold.ttf")):
            name = "F_" + Path(path).stem.replace(" ", "_")
            try:
                if name not in pdfmetrics.getRegisteredFontNames():
                    pdfmetrics.registerFont(TTFont(name, path))
            except Exception:  # reportlab raises TTFError, OSError, ...
                log.warning("font %s unusable, using vendored DejaVu", Path(path).name)
                name = "F_" + Path(fallback).stem
                if name not in pdfmetrics.getRegisteredFontNames():
                    pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / fallback)))
            names.append(name)
        result = (names[0], names[1])
        _fonts[key] = result
        return result


def colour(value: str, default: str) -> Color:
    try:
        return HexColor(value)
    except (ValueError, TypeError):
        log.warning("bad colour setting, using default")
        return HexColor(default)


# ---------------------------------------------------------------- text fitting


def fit_lines(
    text: str,
    font: str,
    max_width: float,
    sizes: Sequence[float],
    max_lines: int,
    one_line_min: float = 6.0,
) -> tuple[float, list[str], bool]:
    """Shrink first, then wrap, never overflow.

    The largest size in ``sizes`` (not below ``one_line_min``) at which ``text`` fits on
    one line; else the largest size at which it fits in ``max_lines`` wrapped lines of
    ``max_width`` points; else the smallest size, cut with an ellipsis.
    Returns ``(size, lines, truncated)``.
    """
    for size in sizes:
        if size >= one_line_min and pdfmetrics.stringWidth(text, font, size) <= max_width:
            return size, [text], False
    for size in sizes:
        lines = _wrap(text, font, size, max_width)
        if len(lines) <= max_lines:
            return size, lines, False
    size = sizes[-1]
    lines = _wrap(text, font, size, max_width)[:max_lines]
    lines[-1] = _ellipsize(lines[-1] + " …", font, size, max_width)
    return size, lines, True


def _wrap(text: str, font: str, size: float, max_width: float) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if pdfmetrics.stringWidth(candidate, font, size) <= max_width or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    # a single word longer than the line is split by characters
    out: list[str] = []
    for line in lines or [""]:
        while pdfmetrics.stringWidth(line, font, size) > max_width and len(line) > 1:
            cut = len(line)
            while cut > 1 and pdfmetrics.stringWidth(line[:cut], font, size) > max_width:
                cut -= 1
            out.append(line[:cut])
            line = line[cut:]
        out.append(line)
    return out


def _ellipsize(text: str, font: str, size: float, max_width: float) -> str:
    if pdfmetrics.stringWidth(text, font, size) <= max_width:
        return text
    while text and pdfmetrics.stringWidth(text + "…", font, size) > max_width:
        text = text[:-1]
    return text.rstrip() + "…"


def draw_fitted(
    c: Canvas,
    text: str,
    font: str,
    x: float,
    y: float,
    max_width: float,
    size: float,
    min_size: float,
    *,
    right: bool = False,
    centre: bool = False,
) -> None:
    """One line, shrunk down to ``min_size`` and then ellipsized: never overflows."""
    while size > min_size and pdfmetrics.stringWidth(text, font, size) > max_width:
        size -= 0.25
    text = _ellipsize(text, font, size, max_width)
    c.setFont(font, size)
    if right:
        c.drawRightString(x, y, text)
    elif centre:
        c.drawCentredString(x, y, text)
    else:
        c.drawString(x, y, text)


# ---------------------------------------------------------------- the card


def qr_modules(text: str) -> list[list[bool]]:
    """The QR symbol's dark modules (error correction M, smallest version that fits).

    reportlab's QrCodeWidget builds the symbol twice and one shape per run of modules:
    70 % of a card's render time. The matrix alone is cheap to draw as one path.
    """
    code = qrencoder.QRCode(None, qrencoder.QRErrorCorrectLevel.M)
    code.addData(text)
    code.make()
    return [[bool(m) for m in row] for row in code.modules]


def _qr(c: Canvas, text: str, x: float, y: float, size: float, quiet: int = 1) -> None:
    modules = qr_modules(text)
    count = len(modules)
    box = size / (count + 2 * quiet)
    path = c.beginPath()
    for r, row in enumerate(modules):
        col = 0
        for dark, run in itertools.groupby(row):
            length = len(list(run))
            if dark:
                top = y + size - (r + quiet + 1) * box
                path.rect(x + (col + quiet) * box, top, length * box, box)
            col += length
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    c.drawPath(path, stroke=0, fill=1)
    c.restoreState()


# the CR80 face, in points: the header band's height, the left column's edge and width
_PAGE_W, _PAGE_H = CR80.points
_BAND = 11 * mm
_LEFT = 4 * mm
_COL_W = 56 * mm


@dataclass(frozen=True, slots=True)
class _Ink:
    """The card's registered fonts and its colours, bad settings already replaced."""

    regular: str
    bold: str
    primary: Color
    on_primary: Color
    text: Color
    muted: Color
    accent: Color


def render_card(view: CardView, style: CardStyle | None = None) -> Rendered:
    """The CR80 card PDF (one page, 85.6×54 mm) with every R7 field and the QR code."""
    style = style or CardStyle()
    regular, bold = register_fonts(style.font_regular, style.font_bold)
    logo, signature, warnings = _card_images(style)

    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(_PAGE_W, _PAGE_H), pageCompression=1, invariant=True)
    c.setTitle(f"Tarjeta {view.number}")  # metadata: number only, no name
    c.setCreator("admission-desk")

    ink = _Ink(
        regular=regular,
        bold=bold,
        primary=colour(style.primary, _DEFAULT_STYLE.primary),
        on_primary=colour(style.on_primary, _DEFAULT_STYLE.on_primary),
        text=colour(style.text, _DEFAULT_STYLE.text),
        muted=colour(style.muted, _DEFAULT_STYLE.muted),
        accent=colour(style.accent, _DEFAULT_STYLE.accent),
    )
    _draw_header(c, view, ink, logo)
    if _draw_holder_name(c, view, ink):
        warnings.append(CardWarning.NAME_TRUNCATED)
    _draw_fields(c, view, ink)
    _draw_marks(c, view, ink)
    _draw_code(c, view, ink)
    _draw_seal(c, style, ink, signature)

    c.showPage()
    c.save()
    return Rendered(buf.getvalue(), tuple(warnings))


def _card_images(
    style: CardStyle,
) -> tuple[ImageReader | None, ImageReader | None, list[CardWarning]]:
    """The logo (flattened onto the header colour), the signature, and their warnings:
    R7 needs the director's signature or the seal, so having neither is one too."""
    warnings: list[CardWarning] = []
    logo, problem = load_image(style.logo, style.primary)
    if problem is not None:
        warnings.append(LOGO_WARNINGS[problem])
    signature, problem = load_image(style.signature)
    if problem is not None and style.signature:
        warnings.append(_SIGNATURE_WARNINGS[problem])
    if logo is None and signature is None:
        warnings.append(CardWarning.NO_SIGNATURE_OR_LOGO)
    return logo, signature, warnings


def _draw_header(c: Canvas, view: CardView, ink: _Ink, logo: ImageReader | None) -> None:
    """The header band: logo (seal), casino name, title, number."""
    c.setFillColor(ink.primary)
    c.rect(0, _PAGE_H - _BAND, _PAGE_W, _BAND, stroke=0, fill=1)
    text_x = 3 * mm
    if logo is not None:
        c.setFillColor(white)
        _draw_image_in_box(c, logo, 2 * mm, _PAGE_H - _BAND + 1.2 * mm, 8.6 * mm, 8.6 * mm)
        text_x = 12 * mm
    c.setFillColor(ink.on_primary)
    number_w = 24 * mm
    draw_fitted(
        c,
        view.casino_name,
        ink.bold,
        text_x,
        _PAGE_H - 5 * mm,
        _PAGE_W - text_x - number_w - 2 * mm,
        8,
        5,
    )
    draw_fitted(
        c,
        view.title,
        ink.regular,
        text_x,
        _PAGE_H - 8.6 * mm,
        _PAGE_W - text_x - number_w - 2 * mm,
        5.5,
        4,
    )
    draw_fitted(
        c,
        view.number_text,
        ink.bold,
        _PAGE_W - 3 * mm,
        _PAGE_H - 7 * mm,
        number_w,
        10,
        6,
        right=True,
    )


def _draw_holder_name(c: Canvas, view: CardView, ink: _Ink) -> bool:
    """The holder's name under its label: shrink, then wrap, never overflow, however long
    a name the document carries. True when it had to be cut."""
    c.setFillColor(ink.muted)
    c.setFont(ink.regular, 4.5)
    c.drawString(_LEFT, _PAGE_H - _BAND - 3.2 * mm, view.fields[0].label)
    size, lines, truncated = fit_lines(
        view.holder_name, ink.bold, _COL_W, (9, 8, 7, 6.5, 6, 5.5, 5, 4.5), 3
    )
    c.setFillColor(ink.text)
    c.setFont(ink.bold, size)
    y = _PAGE_H - _BAND - 3.4 * mm - size
    for line in lines:
        c.drawString(_LEFT, y, line)
        y -= size * 1.12
    return truncated


def _draw_fields(c: Canvas, view: CardView, ink: _Ink) -> None:
    """The other R7 fields, two columns, three rows."""
    grid_top = 26.5 * mm
    cell_w = _COL_W / 2
    for index, item in enumerate(view.fields[1:]):
        row, col = divmod(index, 2)
        x = _LEFT + col * cell_w
        fy = grid_top - row * 6.2 * mm
        c.setFillColor(ink.muted)
        c.setFont(ink.regular, 4.5)
        c.drawString(x, fy, item.label)
        c.setFillColor(ink.text)
        draw_fitted(c, item.value, ink.bold, x, fy - 2.9 * mm, cell_w - 1.5 * mm, 7, 4.5)


def _draw_marks(c: Canvas, view: CardView, ink: _Ink) -> None:
    """Visible marks: exceptional (R12), special type (R10), private rooms (R16)."""
    c.setFillColor(ink.accent)
    my = 7.8 * mm
    for mark in view.marks[:3]:
        draw_fitted(c, mark, ink.bold, _LEFT, my, _COL_W, 5.5, 3.8)
        my -= 2.5 * mm


# The QR (art. 22.4: a phone checks the card on the floor at about 20 cm). It carries the
# signed code (ADM2, 151 characters for a usual card, 177 at most: version 6 or 7 at error
# correction M, 41 or 45 modules), so it is as large as the right column allows: 24 mm,
# 0.56-0.51 mm a module, 2.3+ pixels a module in a 1280-pixel video frame covering
# 280 mm. Its quiet zone is one module inside the square and the white card around it:
# 2 mm to the header band, 1.5 mm to the card's edge; the left column ends before it.
QR_SIZE_MM = 24.0
_QR_RIGHT = 1.5 * mm
_QR_BOTTOM = 17 * mm


def _draw_code(c: Canvas, view: CardView, ink: _Ink) -> None:
    """The machine-readable code (R8): the signed code in the QR, the short HMAC code
    printed under it for typing at a desk (a card without a signed code: that one in
    both)."""
    qr_size = QR_SIZE_MM * mm
    qx = _PAGE_W - qr_size - _QR_RIGHT
    qy = _QR_BOTTOM
    _qr(c, view.signed_code or view.code, qx, qy, qr_size)
    c.setFillColor(ink.text)
    draw_fitted(
        c, view.code, ink.regular, qx + qr_size / 2, qy - 2 * mm, qr_size, 4.6, 3, centre=True
    )


def _draw_seal(c: Canvas, style: CardStyle, ink: _Ink, signature: ImageReader | None) -> None:
    """The director's signature (or the logo again as the seal), art. 22.3."""
    sx, sy, sw, sh = _PAGE_W - 25 * mm, 4.2 * mm, 22 * mm, 9 * mm
    seal = signature if signature is not None else load_image(style.logo)[0]
    if seal is not None:
        _draw_image_in_box(c, seal, sx, sy, sw, sh)
    c.setFillColor(ink.muted)
    caption = style.signature_caption if signature is not None else "Sello del casino"
    draw_fitted(c, caption, ink.regular, sx + sw / 2, 2.3 * mm, sw, 4, 3, centre=True)


# ---------------------------------------------------------------- preview


def preview_png(pdf: bytes, *, dpi: float = 200, page_index: int = 0) -> bytes:
    """PNG bytes of one page, for the GUI preview (pypdfium2, no Qt needed)."""
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[page_index]
        bitmap = page.render(scale=dpi / 72)
        image = bitmap.to_pil()
        out = io.BytesIO()
        image.save(out, format="PNG")
        return out.getvalue()
    finally:
        doc.close()

"""Card rendering: exact CR80 size, Spanish text, long names never overflow, bad logos
give a warning and a card without the logo, the QR decodes with zxing-cpp and zbar."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pypdfium2 as pdfium
import pytest
import zxingcpp
from PIL import Image
from pyzbar import pyzbar

from hardware.printer.render import CardStyle, Rendered, preview_png, render_card
from tests.printer.factories import view

LONG_GIVEN = "María de los Ángeles Guadalupe Concepción Inmaculada"
LONG_SURNAME = "Fernández-Villaverde y Ruiz de Alarcón Muñoz-Ibáñez de la Peña Santísima"


def _page(rendered: Rendered) -> tuple[float, float, str, list[tuple[float, float, float, float]]]:
    doc = pdfium.PdfDocument(rendered.pdf)
    try:
        page = doc[0]
        width, height = page.get_size()
        textpage = page.get_textpage()
        text = textpage.get_text_bounded()
        boxes = [textpage.get_charbox(i) for i in range(textpage.count_chars())]
        return width, height, text, boxes
    finally:
        doc.close()


def test_cr80_size_text_and_code() -> None:
    card = view(98765)
    rendered = render_card(card)
    width, height, text, _ = _page(rendered)
    assert abs(width * 25.4 / 72 - 85.6) < 0.01 and abs(height * 25.4 / 72 - 54) < 0.01
    flat = " ".join(text.split())
    for expected in (
        "José Ángel Muñoz-Ibáñez de la Peña",
        "12345678Z",
        "4711",
        "28/11/2026",
        "10,00 €",
        "Nº 98765",
        card.code,
        "El director de juegos",
    ):
        assert expected in flat
    image = Image.open(io.BytesIO(preview_png(rendered.pdf, dpi=300)))
    assert [r.text for r in zxingcpp.read_barcodes(image)] == [card.code]
    assert [r.data.decode() for r in pyzbar.decode(image)] == [card.code]
    assert rendered.warnings == ()


@pytest.mark.parametrize(
    "given, surname",
    [
        (LONG_GIVEN, LONG_SURNAME),  # 120+ characters, realistic words
        ("Ñ" * 60, "Ü" * 60),  # 120 characters without a single space
    ],
)
def test_long_names_shrink_wrap_never_overflow(given: str, surname: str) -> None:
    rendered = render_card(view(given_names=given, surname=surname))
    width, height, _, boxes = _page(rendered)
    for left, right, bottom, top in boxes:
        if right > left:  # skip zero-size (space) boxes
            assert left >= 0 and right <= width and bottom >= 0 and top <= height
    # the name column ends before the QR code column (x < 60 mm)
    name_limit = 60.5 * 72 / 25.4
    name_boxes = [b for b in boxes if b[3] > 30 * 72 / 25.4 and b[2] < 42 * 72 / 25.4]
    assert name_boxes and all(b[1] <= name_limit for b in name_boxes)


def test_marks_are_printed() -> None:
    card = view(
        card_changes={"exceptional": True, "authorised_by": "D. Director", "private_rooms": True},
        special=True,
    )
    _, _, text, _ = _page(render_card(card))
    flat = " ".join(text.split())
    assert "EXCEPCIONAL — autorizada por D. Director" in flat
    assert "INVITACIÓN A SALAS PRIVADAS" in flat


def _png_header_only(path: Path, width: int, height: int) -> None:
    """A PNG whose header claims width x height: a decompression bomb by its size."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    "kind, expected",
    [
        ("corrupt", "LOGO_UNREADABLE"),
        ("text", "LOGO_UNREADABLE"),
        ("truncated", "LOGO_UNREADABLE"),
        ("huge_pixels", "LOGO_TOO_LARGE"),
        ("huge_file", "LOGO_TOO_LARGE"),
        ("missing", "LOGO_MISSING"),
    ],
)
def test_bad_logo_warns_and_card_still_renders(tmp_path: Path, kind: str, expected: str) -> None:
    logo = tmp_path / f"logo-{kind}.png"
    if kind == "corrupt":
        logo.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00garbage" * 50)
    elif kind == "text":
        logo.write_text("I am a text file, not a picture", encoding="utf-8")
    elif kind == "truncated":
        buf = io.BytesIO()
        Image.new("RGB", (200, 200), "red").save(buf, format="PNG")
        logo.write_bytes(buf.getvalue()[:120])
    elif kind == "huge_pixels":
        _png_header_only(logo, 100_000, 100_000)
    elif kind == "huge_file":
        with logo.open("wb") as handle:
            handle.truncate(25 * 1024 * 1024)  # sparse 25 MB file
    rendered = render_card(view(), CardStyle(logo=str(logo)))
    assert expected in rendered.warnings
    width, _, text, _ = _page(rendered)
    assert "José Ángel" in text and width > 0


def test_no_logo_no_signature_is_reported(tmp_path: Path) -> None:
    rendered = render_card(view(), CardStyle(logo=None, signature=None))
    assert "NO_SIGNATURE_OR_LOGO" in rendered.warnings


def test_bad_colours_and_fonts_fall_back(tmp_path: Path) -> None:
    style = CardStyle(
        primary="not-a-colour",
        text="#zzzzzz",
        font_regular=str(tmp_path / "missing.ttf"),
        font_bold=str(tmp_path / "missing-bold.ttf"),
    )
    _, _, text, _ = _page(render_card(view(), style))
    assert "Muñoz-Ibáñez" in text


def test_preview_png_size() -> None:
    png = preview_png(render_card(view()).pdf, dpi=100)
    image = Image.open(io.BytesIO(png))
    assert abs(image.size[0] - 85.6 / 25.4 * 100) <= 1
    assert abs(image.size[1] - 54 / 25.4 * 100) <= 1


def test_style_from_settings() -> None:
    from hardware.printer.render import style_from_settings

    style = style_from_settings({"card.colour": "#1F3A5F", "card.logo": "", "card.signature": ""})
    assert style.primary == "#1F3A5F" and style.logo is None and style.signature is None
    demo = style_from_settings({"card.logo": ""}, demo=True)
    assert demo.logo is not None and demo.logo.endswith("logo.png")
    assert render_card(view(), demo).warnings == ()

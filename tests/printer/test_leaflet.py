"""The A5 desk leaflet (art. 25.1, R14) from configuration, and the regulation print."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from admission.errors import ConfigError
from admission.leaflet import build_leaflet, leaflet_config_from_settings
from hardware.printer.documents import render_leaflet, render_text_document

SETTINGS = {
    "casino.name": "Casino Gran Madrid Demo",
    "casino.address": "Calle Ficticia 1, Madrid",
    "hours": {"mon": "20:00-04:00", "sat": "20:00-05:00"},
    "cards.types": [
        {"code": "DAY", "label_es": "Entrada de un día", "price_cents": 500},
        {"code": "WEEK", "label_es": "Abono 7 días", "price_cents": 2000},
    ],
    "admission.stop_last_hour": True,
    "leaflet.games": ["Ruleta francesa", "Black Jack", "Póquer"],
    "leaflet.bet_limits": [{"game": "Ruleta francesa", "min_cents": 500, "max_cents": 100000}],
    "leaflet.exchange": "Cambio de divisas en caja: USD, GBP, CHF.",
}


def _text(pdf: bytes) -> tuple[str, int, tuple[float, float]]:
    doc = pdfium.PdfDocument(pdf)
    try:
        text = " ".join(
            " ".join(doc[i].get_textpage().get_text_bounded().split()) for i in range(len(doc))
        )
        return text, len(doc), doc[0].get_size()
    finally:
        doc.close()


def test_leaflet_has_every_art_25_item_on_one_a5_page() -> None:
    leaflet = build_leaflet(leaflet_config_from_settings(SETTINGS))
    text, pages, (width, height) = _text(render_leaflet(leaflet).pdf)
    assert pages == 1
    assert abs(width * 25.4 / 72 - 148) < 0.1 and abs(height * 25.4 / 72 - 210) < 0.1
    for expected in (
        "Lunes: 20:00-04:00",
        "Sábado: 20:00-05:00",
        "Entrada de un día: 5,00 €",
        "Abono 7 días: 20,00 €",
        "Ruleta francesa: mínima 5,00 €, máxima 1.000,00 €",
        "Black Jack",
        "máquinas de tipo C",
        "USD, GBP, CHF",
        "Registro de Interdicciones",
        "última hora antes del cierre",
        "copia del Reglamento",
    ):
        assert expected in text, expected


def test_missing_configuration_is_visible() -> None:
    leaflet = build_leaflet(leaflet_config_from_settings({"casino.name": "X"}))
    games = next(s for s in leaflet.sections if s.heading == "Juegos que se practican")
    assert games.lines == ("(sin configurar)",)


def test_bad_bet_limit_refused() -> None:
    with pytest.raises(ConfigError):
        leaflet_config_from_settings(
            {"leaflet.bet_limits": [{"game": "Ruleta", "min_cents": 500, "max_cents": 100}]}
        )


def test_regulation_text_prints() -> None:
    body = "Artículo 25.- Información\n1. El servicio de admisión deberá disponer...\n\n" * 3
    text, pages, _ = _text(render_text_document("Reglamento de Casinos de Juego", body).pdf)
    assert pages >= 1 and "Artículo 25.- Información" in text

"""The bar chart drawn with QPainter: bars, labels and values on the window's palette,
and the same figures in words for a screen reader (accessible name and description)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QImage, QPalette
from pytestqt.qtbot import QtBot

from admission.cards.view import format_euros
from ui.desk.theme import dark_palette
from ui.desk.widgets.charts import BarChart, Orientation


def grab(chart: BarChart) -> QImage:
    chart.resize(480, 260)
    chart.show()
    return chart.grab().toImage()


def colours(image: QImage) -> set[int]:
    found: set[int] = set()
    for x in range(0, image.width(), 3):
        for y in range(0, image.height(), 3):
            found.add(image.pixel(x, y))
    return found


def test_the_chart_draws_its_bars_in_the_highlight_colour(qtbot: QtBot) -> None:
    chart = BarChart("Admisiones por hora")
    qtbot.addWidget(chart)
    chart.setPalette(dark_palette())
    chart.set_data([("20", 4), ("21", 9), ("22", 2)])
    image = grab(chart)
    bar = dark_palette().color(QPalette.ColorRole.Highlight).rgb()
    assert bar in colours(image)
    assert chart.bars() == [("20", 4), ("21", 9), ("22", 2)]


def test_an_empty_chart_draws_no_bar(qtbot: QtBot) -> None:
    chart = BarChart("Vacío", orientation=Orientation.HORIZONTAL)
    qtbot.addWidget(chart)
    chart.setPalette(dark_palette())
    image = grab(chart)
    assert dark_palette().color(QPalette.ColorRole.Highlight).rgb() not in colours(image)
    assert chart.summary() == "Vacío: sin datos"


def test_the_chart_speaks_its_figures(qtbot: QtBot) -> None:
    chart = BarChart("Recaudación", orientation=Orientation.HORIZONTAL, value_text=format_euros)
    qtbot.addWidget(chart)
    chart.set_data([("Entrada de un día", 1500), ("Abono 7 días", 5000)])
    assert chart.accessibleName() == "Recaudación"
    assert chart.accessibleDescription() == (
        "Recaudación: Entrada de un día: 15,00 €; Abono 7 días: 50,00 €"
    )
    horizontal = grab(chart)
    assert QColor(horizontal.pixel(5, 5)).isValid()


def test_labels_are_plain_bounded_text_and_negative_values_are_zero(qtbot: QtBot) -> None:
    chart = BarChart("Motivos")
    qtbot.addWidget(chart)
    chart.set_data([("<b>x</b>\x00" + "y" * 100, -3)])
    label, value = chart.bars()[0]
    assert value == 0 and len(label) <= 60 and "\x00" not in label
    assert label.startswith("<b>x</b>")  # shown as typed, never interpreted
    grab(chart)  # painting a zero bar does not fail


def test_many_bars_still_paint(qtbot: QtBot) -> None:
    chart = BarChart("Días")
    qtbot.addWidget(chart)
    chart.setPalette(dark_palette())
    chart.set_data([(f"{d:02d}/12", d) for d in range(1, 32)])
    image = grab(chart)
    assert dark_palette().color(QPalette.ColorRole.Highlight).rgb() in colours(image)
    assert chart.accessibleDescription().count(";") == 30


def test_the_counts_follow_the_window_language(qtbot: QtBot) -> None:
    from ui.desk.text import set_language

    chart = BarChart("Visitas")
    qtbot.addWidget(chart)
    chart.set_data([("lunes", 12345)])
    assert "12.345" in chart.summary()  # Spanish: a dot between thousands
    set_language("en")
    try:
        chart.set_data([("Monday", 12345)])
        assert "12,345" in chart.summary()
    finally:
        set_language("es")

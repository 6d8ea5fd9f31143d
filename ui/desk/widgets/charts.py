"""A small bar chart drawn with QPainter (the director's figures, the retention view).

Qt Charts (PySide6-Addons) is not installed and is not needed: a bar chart of a few
dozen bars is a handful of rectangles. The chart draws with the window's palette (the
dark theme of :mod:`ui.desk.theme`: text, highlight, mid tones), so it reads on the dim
counter like the rest of the window.

A chart is also text for whoever cannot see it: the accessible name is its title and
the accessible description (``setAccessibleDescription``) lists every bar with its
value, the same words :meth:`BarChart.summary` answers.

Labels come from the visitor file (card-type labels, refusal texts in the window's
language, from the catalogue): they are drawn as plain text, bounded in length, never
interpreted; numbers carry the language's thousands separator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum, unique

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from ui.desk.text import bounded, language

__all__ = ["BarChart", "Orientation"]

MAX_LABEL = 60  # characters of one bar's label
MAX_BARS = 200  # a chart shows at most this many bars (a year of days fits)
MARGIN = 8


@unique
class Orientation(Enum):
    HORIZONTAL = "horizontal"  # bars grow to the right, labels on the left
    VERTICAL = "vertical"  # bars grow upwards, labels below


def _count(value: int) -> str:
    """A whole number with the thousands separator of the window's language."""
    grouped = f"{value:,}"
    return grouped if language() == "en" else grouped.replace(",", ".")


class BarChart(QWidget):
    """Bars with labels and values; ``set_data`` replaces them."""

    def __init__(
        self,
        title: str = "",
        *,
        orientation: Orientation = Orientation.VERTICAL,
        value_text: Callable[[int], str] = _count,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._title = ""
        self._orientation = orientation
        self._value_text = value_text
        self._bars: list[tuple[str, int]] = []
        self._unit = ""
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a screen reader can land on it
        # horizontal bars take the height they need; vertical ones grow with the window
        vertical = QSizePolicy.Policy.Expanding
        if orientation is Orientation.HORIZONTAL:
            vertical = QSizePolicy.Policy.Preferred
        self.setSizePolicy(QSizePolicy.Policy.Expanding, vertical)
        self.setMinimumSize(220, 80 if orientation is Orientation.HORIZONTAL else 140)
        self.set_title(title)

    # -- data --------------------------------------------------------------------------
    def set_title(self, title: str) -> None:
        self._title = bounded(title, 100)
        self.setAccessibleName(self._title or self.tr("Gráfico de barras"))
        self._describe()
        self.update()

    def set_data(self, bars: Sequence[tuple[str, int]]) -> None:
        """Each bar: (label, value >= 0). Negative values are drawn as 0."""
        self._bars = [(bounded(label, MAX_LABEL), max(0, int(value))) for label, value in bars][
            :MAX_BARS
        ]
        self._describe()
        self.updateGeometry()
        self.update()

    def bars(self) -> list[tuple[str, int]]:
        return list(self._bars)

    @property
    def orientation(self) -> Orientation:
        return self._orientation

    def summary(self) -> str:
        """The chart in words: title, then each bar and its value."""
        if not self._bars:
            body = self.tr("sin datos")
        else:
            body = "; ".join(f"{label}: {self._value_text(value)}" for label, value in self._bars)
        return f"{self._title}: {body}" if self._title else body

    def _describe(self) -> None:
        self.setAccessibleDescription(self.summary())
        self.setToolTip(bounded(self.summary(), 600))

    # -- geometry ----------------------------------------------------------------------
    def sizeHint(self) -> QSize:  # Qt override: camelCase by necessity
        metrics = QFontMetrics(self.font())
        line = metrics.height()
        if self._orientation is Orientation.HORIZONTAL:
            return QSize(420, 2 * MARGIN + line * 2 + int(max(1, len(self._bars)) * line * 1.8))
        return QSize(max(320, len(self._bars) * 22 + 80), 240)

    # -- painting ----------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override: camelCase by necessity
        painter = QPainter(self)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            palette = self.palette()
            text = palette.color(QPalette.ColorRole.WindowText)
            area = QRectF(self.rect()).adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)
            metrics = QFontMetrics(self.font())
            line = float(metrics.height())
            if self._title:
                title_font = self.font()
                title_font.setBold(True)
                painter.setFont(title_font)
                painter.setPen(text)
                painter.drawText(
                    QRectF(area.left(), area.top(), area.width(), line),
                    Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                    QFontMetrics(title_font).elidedText(
                        self._title, Qt.TextElideMode.ElideRight, int(area.width())
                    ),
                )
                painter.setFont(self.font())
                area.setTop(area.top() + line + 4)
            if not self._bars or area.height() < line or area.width() < 40:
                painter.setPen(palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
                painter.drawText(area, Qt.AlignmentFlag.AlignCenter, self.tr("Sin datos"))
                return
            if self._orientation is Orientation.HORIZONTAL:
                self._paint_horizontal(painter, area, metrics)
            else:
                self._paint_vertical(painter, area, metrics)
        finally:
            painter.end()

    def _colours(self) -> tuple[QColor, QColor, QColor]:
        palette = self.palette()
        return (
            palette.color(QPalette.ColorRole.Highlight),  # the bars
            palette.color(QPalette.ColorRole.WindowText),  # labels and values
            palette.color(QPalette.ColorRole.Light),  # the axis
        )

    def _paint_horizontal(self, painter: QPainter, area: QRectF, metrics: QFontMetrics) -> None:
        bar_colour, text, axis = self._colours()
        top = max(v for _l, v in self._bars) or 1
        label_w = min(
            max(metrics.horizontalAdvance(label) for label, _v in self._bars) + 8,
            area.width() * 0.45,
        )
        value_w = max(metrics.horizontalAdvance(self._value_text(v)) for _l, v in self._bars) + 8
        # rows of a line and a half at most, from the top: a few bars stay together
        row = min(area.height() / len(self._bars), metrics.height() * 1.8)
        bar_h = max(2.0, min(row - 4, metrics.height() + 2.0))
        x0 = area.left() + label_w
        span = max(1.0, area.width() - label_w - value_w)
        painter.setPen(axis)
        bottom = area.top() + row * len(self._bars)
        painter.drawLine(int(x0), int(area.top()), int(x0), int(bottom))
        for index, (label, value) in enumerate(self._bars):
            y = area.top() + index * row + (row - bar_h) / 2
            width = span * value / top
            painter.fillRect(QRectF(x0, y, width, bar_h), bar_colour)
            painter.setPen(text)
            if row >= metrics.height() * 0.8:
                painter.drawText(
                    QRectF(area.left(), y, label_w - 6, bar_h),
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                    metrics.elidedText(label, Qt.TextElideMode.ElideRight, int(label_w - 6)),
                )
                painter.drawText(
                    QRectF(x0 + width + 4, y, value_w, bar_h),
                    Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                    self._value_text(value),
                )

    def _paint_vertical(self, painter: QPainter, area: QRectF, metrics: QFontMetrics) -> None:
        bar_colour, text, axis = self._colours()
        top = max(v for _l, v in self._bars) or 1
        line = float(metrics.height())
        plot = QRectF(area.left(), area.top() + line, area.width(), area.height() - 2 * line - 2)
        slot = plot.width() / len(self._bars)
        bar_w = max(2.0, slot * 0.7)
        # labels: every one when they fit, else every n-th (the description has them all)
        widest = max(metrics.horizontalAdvance(label) for label, _v in self._bars) + 4
        step = max(1, int(widest // max(slot, 1.0)) + (1 if widest > slot else 0))
        value_step = max(
            1,
            int(
                (max(metrics.horizontalAdvance(self._value_text(v)) for _l, v in self._bars) + 4)
                // max(slot, 1.0)
            )
            + 1,
        )
        painter.setPen(axis)
        painter.drawLine(
            int(plot.left()), int(plot.bottom()), int(plot.right()), int(plot.bottom())
        )
        for index, (label, value) in enumerate(self._bars):
            x = plot.left() + index * slot + (slot - bar_w) / 2
            height = plot.height() * value / top
            painter.fillRect(QRectF(x, plot.bottom() - height, bar_w, height), bar_colour)
            painter.setPen(text)
            centre = plot.left() + index * slot + slot / 2
            if index % step == 0:
                painter.drawText(
                    QRectF(centre - widest / 2, plot.bottom() + 2, widest, line),
                    Qt.AlignmentFlag.AlignCenter,
                    label,
                )
            if value and (value_step == 1 or value == top or index % value_step == 0):
                shown = self._value_text(value)
                width = metrics.horizontalAdvance(shown) + 4
                painter.drawText(
                    QRectF(centre - width / 2, plot.bottom() - height - line, width, line),
                    Qt.AlignmentFlag.AlignCenter,
                    shown,
                )

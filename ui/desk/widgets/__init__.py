"""The desk window's panels: verdict banner, identity, camera preview, status bar,
counters. Each shows what the controller answered; none calls a service.

Two label kinds keep untrusted text plain and bounded on screen, at any window size:

* :class:`ElidedLabel`: one line; what does not fit ends in "…" and the whole text is
  the tooltip (escaped: a document's name is never markup);
* :class:`WrappedLabel`: wraps on words, at most ``max_lines`` lines; its minimum height
  is the height of the lines it shows at its width, so a layout never clips a row.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from ui.desk.text import bounded

__all__ = ["ElidedLabel", "WrappedLabel", "plain_tooltip", "shown_lines"]

_TALL = 1_000_000


def shown_lines(lines: Iterable[str], limit: int = 600, *, per_line: int = 200) -> str:
    """Untrusted lines made safe to show as plain text: each line bounded and cleaned of
    control characters, at most ``limit`` characters in all."""
    out = "\n".join(bounded(line, per_line) for line in lines if str(line).strip())
    return out if len(out) <= limit else out[: limit - 1] + "…"


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally (Qt would take ``<b>…`` as markup)."""
    if not text:
        return ""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


class ElidedLabel(QLabel):
    """One line of plain text, bounded; elided with "…" when narrower than the text,
    the whole text then in the tooltip. ``text()`` is always the whole text."""

    def __init__(
        self,
        text: str = "",
        *,
        name: str = "",
        limit: int = 200,
        min_chars: int = 12,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._limit = limit
        self._min_chars = min_chars
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        if name:
            self.setAccessibleName(name)
        self.setText(text)

    def setText(self, text: str) -> None:  # Qt override: camelCase by necessity
        super().setText(bounded(text, self._limit))
        self._update_tooltip()

    def is_elided(self) -> bool:
        width = self.contentsRect().width()
        return bool(self.text()) and self.fontMetrics().horizontalAdvance(self.text()) > width

    def _update_tooltip(self) -> None:
        self.setToolTip(plain_tooltip(self.text()) if self.is_elided() else "")

    def minimumSizeHint(self) -> QSize:  # Qt override
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        width = metrics.averageCharWidth() * self._min_chars + margins.left() + margins.right()
        return QSize(width, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:  # Qt override
        hint = super().sizeHint()
        return QSize(max(hint.width(), self.minimumSizeHint().width()), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._update_tooltip()

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, rect.width()
        )
        painter = QPainter(self)
        self.style().drawItemText(
            painter,
            rect,
            int(self.alignment().value),
            self.palette(),
            self.isEnabled(),
            shown,
            self.foregroundRole(),
        )
        painter.end()


class WrappedLabel(QLabel):
    """Plain text wrapped on words, at most ``max_lines`` lines (the rest cut with "…",
    the whole text then in the tooltip). Its minimum height follows its width, so the
    rows under it move down instead of covering it. ``full_text()`` is the whole text."""

    def __init__(
        self,
        text: str = "",
        *,
        name: str = "",
        max_lines: int = 3,
        limit: int = 600,
        min_chars: int = 16,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._full = ""
        self._max_lines = max_lines
        self._limit = limit
        self._min_chars = min_chars
        self._fitted_width = -1
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        if name:
            self.setAccessibleName(name)
        self.setText(text)

    def full_text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:  # Qt override: camelCase by necessity
        value = str(text)
        self._full = value if len(value) <= self._limit else value[: self._limit - 1] + "…"
        self._fitted_width = -1
        self._fit()

    def _height(self, text: str, width: int) -> int:
        flags = int(Qt.TextFlag.TextWordWrap.value) | int(self.alignment().value)
        return self.fontMetrics().boundingRect(QRect(0, 0, width, _TALL), flags, text).height()

    def _fit(self) -> None:
        margins = self.contentsMargins()
        width = self.width() - margins.left() - margins.right()
        if width <= 0:
            width = self.fontMetrics().averageCharWidth() * self._min_chars
        self._fitted_width = self.width()
        # the height of max_lines lines as drawn (lineSpacing x n falls a pixel or two
        # short of it at some sizes, and a text of exactly n lines was cut)
        cap = self._height("\n".join("Xg" for _ in range(self._max_lines)), _TALL)
        shown = self._full
        if shown and self._height(shown, width) > cap:
            low, high = 0, len(shown)  # the longest cut that fits in max_lines
            while low < high:
                middle = (low + high + 1) // 2
                if self._height(self._full[:middle].rstrip() + "…", width) <= cap:
                    low = middle
                else:
                    high = middle - 1
            shown = self._full[:low].rstrip() + "…"
        super().setText(shown)
        self.setToolTip(plain_tooltip(self._full) if shown != self._full else "")
        height = self._height(shown, width) if shown else 0
        self.setMinimumHeight(height + margins.top() + margins.bottom())

    def minimumSizeHint(self) -> QSize:  # Qt override
        margins = self.contentsMargins()
        width = self.fontMetrics().averageCharWidth() * self._min_chars
        return QSize(width + margins.left() + margins.right(), self.minimumHeight())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if event.size().width() != self._fitted_width:
            self._fit()

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fitted_width = -1
            self._fit()

"""Today's counters at the desk: admissions today and in the last hour, cards valid now."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from admission.counters import DeskCounters
from ui.desk.widgets import WrappedLabel

__all__ = ["CountersPanel"]


class CountersPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(self.tr("Contadores"))
        self.today = self._label(self.tr("Admisiones hoy"))
        self.last_hour = self._label(self.tr("Última hora"))
        self.valid = self._label(self.tr("Tarjetas válidas ahora"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for label in (self.today, self.last_hour, self.valid):
            layout.addWidget(label)
        self.counters: DeskCounters | None = None
        self.show_counters(None)

    def _label(self, name: str) -> WrappedLabel:
        """Wraps rather than widening the window; up to four lines of ``min_chars``
        hold every counter's words and its number whole."""
        label = WrappedLabel(name=name, max_lines=4, limit=60, min_chars=12)
        label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        return label

    def show_counters(self, counters: DeskCounters | None) -> None:
        self.counters = counters

        def n(value: int | None) -> str:
            return "—" if value is None else str(value)

        def shown(caption: str, value: int | None) -> str:
            # the caption on its line, the number under it: a narrow column never
            # splits the number from its words at a different place in each counter
            return caption.strip() + "\n" + n(value)

        c = counters
        self.today.setText(shown(self.tr("Admisiones hoy: "), c.admitted_today if c else None))
        self.last_hour.setText(shown(self.tr("Última hora: "), c.admitted_last_hour if c else None))
        self.valid.setText(
            shown(self.tr("Tarjetas válidas ahora: "), c.cards_valid_now if c else None)
        )

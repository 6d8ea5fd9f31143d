"""The verdict banner: ADMITIR / DENEGAR / SUPERVISOR, read across the counter.

The outcome is told three ways at once - an icon glyph (✔ ✖ ⚠), a word and a colour -
so a colour-blind clerk reads it the same (theme: colours are never the only sign).
Under it, each reason in plain Spanish from the catalogue (art. 21: why a person may
not enter), then the state of the record and the card.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from ui.dialogs.common import bounded, message
from ui.theme import VERDICT_COLOURS, verdict_font
from ui.widgets import WrappedLabel, shown_lines

__all__ = ["GLYPHS", "VerdictBanner"]

GLYPHS = {"ADMIT": "✔", "DENY": "✖", "SUPERVISOR": "⚠"}
_IDLE_COLOUR = "#2D2F34"
REASONS_POINT_SIZE = 16  # read by the clerk at arm's length
REASONS_MAX_LINES = 4  # more reasons end in "…", the whole list in the tooltip


class VerdictBanner(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("verdictBanner")
        self.setAccessibleName(self.tr("Veredicto"))
        self.headline = QLabel()
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.headline.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.headline.setFont(verdict_font())
        self.headline.setAccessibleName(self.tr("Veredicto"))
        self.reasons = WrappedLabel(
            name=self.tr("Motivos"), max_lines=REASONS_MAX_LINES, limit=1000
        )
        self.reasons.setAlignment(Qt.AlignmentFlag.AlignCenter)
        reasons_font = self.reasons.font()
        reasons_font.setPointSize(REASONS_POINT_SIZE)
        reasons_font.setBold(True)
        self.reasons.setFont(reasons_font)
        self.progress = WrappedLabel(name=self.tr("Registro y tarjeta"), max_lines=2, limit=300)
        self.progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.reasons)
        layout.addWidget(self.progress)
        self.outcome = ""
        self.show_idle()

    def _paint(self, colour: str) -> None:
        self.setStyleSheet(
            f"QFrame#verdictBanner {{ background: {colour}; border-radius: 8px; }}"
            " QFrame#verdictBanner QLabel { color: #FFFFFF; }"
        )

    def show_idle(self) -> None:
        self.outcome = ""
        self._paint(_IDLE_COLOUR)
        self.headline.setText(self.tr("Lea un documento"))
        self.reasons.setText(self.tr("Cámara, lector o Ctrl+M para entrada manual"))
        self.progress.setText("")

    def show_checking(self) -> None:
        self.outcome = ""
        self._paint(_IDLE_COLOUR)
        self.headline.setText(self.tr("Comprobando…"))
        self.reasons.setText("")
        self.progress.setText("")

    def show_verdict(self, outcome: str, reasons: Sequence[str]) -> None:
        """``outcome`` is an ``Outcome`` value; ``reasons`` their codes."""
        self.outcome = outcome
        words = {
            "ADMIT": self.tr("ADMITIR"),
            "DENY": self.tr("DENEGAR"),
            "SUPERVISOR": self.tr("SUPERVISOR"),
        }
        self._paint(VERDICT_COLOURS.get(outcome, _IDLE_COLOUR))
        self.headline.setText(f"{GLYPHS.get(outcome, '?')}  {words.get(outcome, outcome)}")
        lines = [message(code) for code in reasons] or [message(outcome)]
        self.reasons.setText(shown_lines(lines, 1000))
        hint = {
            "ADMIT": self.tr("Intro: registrar e imprimir la tarjeta · F1-F8: tipo de tarjeta"),
            # a DENY is recorded as it is shown (arts. 20, 22): Enter has nothing to do
            "DENY": self.tr("Denegación registrada · Esc: siguiente"),
            "SUPERVISOR": self.tr("Intro: pedir la autorización del director de juegos"),
        }
        self.progress.setText(hint.get(outcome, ""))

    def show_progress(self, text_es: str) -> None:
        self.progress.setText(bounded(text_es, 300))

    def show_refusal(self, message_es: str) -> None:
        """A scan that identifies nobody: nothing is recorded."""
        self.outcome = ""
        self._paint(_IDLE_COLOUR)
        self.headline.setText(self.tr("⟲  LEA DE NUEVO"))
        self.reasons.setText(bounded(message_es, 300))
        self.progress.setText("")

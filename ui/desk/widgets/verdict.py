"""The verdict banner: ADMITIR / DENEGAR / SUPERVISOR, read across the counter.

The outcome is told three ways at once - an icon glyph (✔ ✖ ⚠), a word and a colour -
so a colour-blind clerk reads it the same (theme: colours are never the only sign).
Under it, each reason from the catalogue in the window's language (art. 21: why a person
may not enter), then the state of the record and the card.

Read from three metres: the word and the reasons grow with the banner (a maximised window
on a 1080p screen shows the word about 100 px high), every reason is shown whole - it
wraps, and the font shrinks to fit, never "…" - and the holder's portrait, cut from the
camera frame the document was read from, stands at the left so the clerk compares face
and person. The portrait lives in this widget's memory only: it is dropped with the
verdict, never written or logged (STYLE.md rule 15). When the document's chip was read,
its photo (DG2, the state's own) takes the portrait's place, and a badge under the word
says what the chip proved - genuine, not verifiable or forged - by a glyph, a word and
its colour on white, readable on every verdict colour.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics, QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ui.desk.text import bounded, message
from ui.desk.theme import VERDICT_COLOURS, VERDICT_POINT_SIZE, verdict_font
from ui.desk.widgets import WrappedLabel, shown_lines

__all__ = ["GLYPHS", "VerdictBanner"]

# a re-entry on the card held (art. 22) and a presentation not admitted without a
# refusal (the RIAJ unavailable, art. 20.1-2) have their own glyph, word and colour
GLYPHS = {
    "ADMIT": "✔",
    "DENY": "✖",
    "SUPERVISOR": "⚠",
    "ALREADY_ADMITTED": "↻",
    "NOT_ADMITTED": "⊘",
}
_IDLE_COLOUR = "#2D2F34"
REASONS_POINT_SIZE = 16  # the reasons' smallest size: read by the clerk at arm's length
REASONS_MAX_LINES = 40  # never reached: the font shrinks instead (every reason whole)
HEADLINE_SHARE = 0.30  # of the banner's height: the verdict word
REASONS_SHARE = 0.11  # of the banner's height: one line of the reasons, at most
PROGRESS_SHARE = 0.06
MAX_HEADLINE_PX = 200
MAX_REASONS_PX = 64
PORTRAIT_ASPECT = 0.78  # width / height of an ICAO portrait (35 x 45 mm)
# the chip badge: glyph and text colour on white (contrast >= 4.5:1 on #FFFFFF)
CHIP_COLOURS = {
    "CHIP_GENUINE": "#1B7F3B",
    "CHIP_NOT_VERIFIABLE": "#4E5561",
    "CHIP_FORGED": "#B3261E",
}
CHIP_GLYPHS = {"CHIP_GENUINE": "✔", "CHIP_NOT_VERIFIABLE": "?", "CHIP_FORGED": "✖"}


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
        self.progress = WrappedLabel(name=self.tr("Registro y tarjeta"), max_lines=3, limit=300)
        self.progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # the holder's portrait from the camera frame (memory only), beside the verdict
        self.portrait = QLabel()
        self.portrait.setAccessibleName(self.tr("Foto del titular del documento"))
        self.portrait.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.portrait.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Ignored)
        self.portrait.setStyleSheet("border: 3px solid #FFFFFF; border-radius: 4px;")
        self.portrait.hide()
        self._portrait: QImage | None = None
        # what the document's chip proved (admission.chip.ChipStatus), under the word
        self.chip = QLabel()
        self.chip.setTextFormat(Qt.TextFormat.PlainText)
        self.chip.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.chip.setAccessibleName(self.tr("Chip del documento"))
        self.chip.hide()
        self.chip_status = ""
        self._chip_detail = ""
        self._reasons = ""  # the reasons' lines as shown before the chip's detail
        self._fitted: tuple[QSize, str, str, str] | None = None
        text = QVBoxLayout()
        text.addWidget(self.headline)
        text.addWidget(self.chip)
        text.addWidget(self.reasons, 1)
        text.addWidget(self.progress)
        layout = QHBoxLayout(self)
        # the banner's size comes from the window, and its fonts from its size: its own
        # hints (below) stand for the smallest fonts, so large fonts never hold it large
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        layout.addWidget(self.portrait)
        layout.addLayout(text, 1)
        self._min_height = 0
        self._min_width = 0
        self.outcome = ""
        self.show_idle()

    # -- the portrait (memory only) -----------------------------------------------
    def set_portrait(self, image: QImage | None) -> None:
        """Show ``image`` beside the verdict (None: no portrait, the text takes the
        whole banner). The image is kept here only, never written anywhere."""
        self._portrait = None if image is None or image.isNull() else image
        self.portrait.setVisible(self._portrait is not None)
        self._fitted = None
        self._fit()

    def has_portrait(self) -> bool:
        return self._portrait is not None

    def portrait_image(self) -> QImage | None:
        """The photo beside the verdict (tests: the chip's, the camera's or none)."""
        return self._portrait

    # -- the chip's result -----------------------------------------------------------
    def set_chip(self, status: str, detail: str = "") -> None:
        """The chip badge: ``status`` a ChipStatus value ("" hides it); ``detail`` the
        catalogue's text of its code (why it is not genuine), kept under the reasons
        while this verdict is on screen."""
        self.chip_status = status
        if not status:
            self._no_chip()
            self._show_reasons(self._reasons)
            return
        self._chip_detail = detail
        self._show_reasons(self._reasons)
        words = {
            "CHIP_GENUINE": self.tr("CHIP AUTÉNTICO"),
            "CHIP_NOT_VERIFIABLE": self.tr("CHIP NO VERIFICABLE"),
            "CHIP_FORGED": self.tr("CHIP FALSIFICADO"),
        }
        line = f"{CHIP_GLYPHS.get(status, '?')}  {words.get(status, status)}"
        colour = CHIP_COLOURS.get(status, "#4E5561")
        self.chip.setText(line)
        self.chip.setStyleSheet(
            f"QLabel {{ background: #FFFFFF; color: {colour}; font-weight: bold;"
            " border-radius: 6px; padding: 4px 14px; }"
        )
        self.chip.show()
        self._texts_changed()

    def _no_chip(self) -> None:
        self.chip_status = ""
        self._chip_detail = ""
        self.chip.hide()
        self.chip.clear()

    def _show_reasons(self, text: str) -> None:
        """``text`` (lines, already bounded) and the chip's detail under it."""
        self._reasons = text
        if self._chip_detail:
            text = shown_lines([*text.split("\n"), self._chip_detail], 1000)
        self.reasons.setText(text)
        self._texts_changed()

    # -- sizes that follow the banner ------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override: camelCase by necessity
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event: QEvent) -> None:  # Qt override: camelCase by necessity
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fitted = None  # the window's text size changed: the smallest sizes too
            self._fit()

    def _fit(self) -> None:
        """Fonts from the banner's size: the word as large as its share of the height
        and the width allow; the reasons as large as fits the height left, all of them
        whole (the banner grows only when even the smallest size does not fit)."""
        size = self.size()
        key = (size, self.headline.text(), self.reasons.full_text(), self.progress.full_text())
        if key == self._fitted or size.height() <= 0:
            return
        self._fitted = key
        height = size.height()
        layout = self.layout()
        left = layout.contentsMargins() if layout is not None else self.contentsMargins()
        inner_h = height - left.top() - left.bottom()
        portrait_w = 0
        if self._portrait is not None:
            portrait_w = int(inner_h * PORTRAIT_ASPECT)
            if self.portrait.width() != portrait_w:
                # the text beside it takes the width the photo leaves, once this resize
                # (maybe the layout's own) is over
                QTimer.singleShot(0, self._relayout)
            self.portrait.setFixedWidth(portrait_w)
            self.portrait.setPixmap(
                QPixmap.fromImage(self._portrait).scaled(
                    portrait_w - 6,
                    inner_h - 6,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            )
            portrait_w += 12  # the layout's spacing
        width = max(40, size.width() - left.left() - left.right() - portrait_w - 8)
        smallest_word = _pt_px(VERDICT_POINT_SIZE)
        word_px = max(smallest_word, _pixels(height, HEADLINE_SHARE, MAX_HEADLINE_PX))
        word = _fit_width(  # a margin each side: the word never touches the banner's edge
            _bold(self.headline.font(), word_px),
            self.headline.text(),
            int(width * 0.94),
            smallest_word,
        )
        progress = QFont(self.progress.font())
        base = _pt_px(_base_points())  # the text size the administrator set (ui.font_size)
        progress.setPixelSize(max(base, int(height * PROGRESS_SHARE)))
        self.progress.setFont(progress)
        below = _text_height(progress, self.progress.full_text(), width) + 12
        if not self.chip.isHidden():
            chip_font = _bold(self.chip.font(), max(base, int(height * PROGRESS_SHARE)))
            self.chip.setFont(chip_font)
            below += QFontMetrics(chip_font).height() + 26  # its padding and a gap
        smallest = max(_pt_px(REASONS_POINT_SIZE), base)
        reasons_px = max(smallest, _pixels(height, REASONS_SHARE, MAX_REASONS_PX))
        reasons = _bold(self.reasons.font(), reasons_px)
        text = self.reasons.full_text()

        def overflows() -> bool:
            room = inner_h - QFontMetrics(word).height() - below
            return _text_height(reasons, text, width) > room

        while reasons.pixelSize() > smallest and overflows():
            reasons.setPixelSize(reasons.pixelSize() - 2)
        while word.pixelSize() > smallest_word and overflows():  # many reasons: a smaller word
            word.setPixelSize(max(smallest_word, word.pixelSize() - 4))
        self.headline.setFont(word)
        self.reasons.setFont(reasons)
        # what the smallest fonts need at this width: the banner never gets less, so a
        # long list of reasons makes it taller instead of being cut
        needed = (
            left.top()
            + left.bottom()
            + QFontMetrics(_bold(word, smallest_word)).height()
            + _text_height(_bold(reasons, smallest), text, width)
            + _text_height(_bold(progress, base), self.progress.full_text(), width)
            + (0 if self.chip.isHidden() else QFontMetrics(self.chip.font()).height() + 14)
            + 16
        )
        word_w = QFontMetrics(_bold(word, smallest_word)).horizontalAdvance(self.headline.text())
        needed_w = word_w + left.left() + left.right() + portrait_w + 24
        if (needed, needed_w) != (self._min_height, self._min_width):
            self._min_height, self._min_width = needed, needed_w
            self.updateGeometry()

    def _relayout(self) -> None:
        layout = self.layout()
        if layout is not None:
            layout.invalidate()
            layout.activate()

    def minimumSizeHint(self) -> QSize:  # Qt override: camelCase by necessity
        return QSize(
            max(320, self._min_width), max(self._min_height, _pt_px(VERDICT_POINT_SIZE) * 2)
        )

    def sizeHint(self) -> QSize:  # Qt override: camelCase by necessity
        return QSize(640, max(self._min_height, 240))

    def _paint(self, colour: str) -> None:
        self.setStyleSheet(
            f"QFrame#verdictBanner {{ background: {colour}; border-radius: 8px; }}"
            " QFrame#verdictBanner QLabel { color: #FFFFFF; }"
        )

    def _texts_changed(self) -> None:
        self._fitted = None
        self._fit()

    def show_idle(self) -> None:
        self.outcome = ""
        self._paint(_IDLE_COLOUR)
        self._portrait = None  # the person has gone: their portrait goes with them
        self.portrait.hide()
        self.portrait.clear()
        self._no_chip()
        self.headline.setText(self.tr("Lea un documento"))
        self._show_reasons(self.tr("Cámara, lector o Ctrl+M para entrada manual"))
        self.progress.setText("")
        self._texts_changed()

    def show_checking(self) -> None:
        self.outcome = ""
        self._paint(_IDLE_COLOUR)
        self._portrait = None  # a new document: the last one's portrait goes
        self.portrait.hide()
        self.portrait.clear()
        self._no_chip()
        self.headline.setText(self.tr("Comprobando…"))
        self._show_reasons("")
        self.progress.setText("")
        self._texts_changed()

    def show_verdict(self, outcome: str, reasons: Sequence[str]) -> None:
        """``outcome`` is an ``Outcome`` value; ``reasons`` their codes."""
        self.outcome = outcome
        words = {
            "ADMIT": self.tr("ADMITIR"),
            "DENY": self.tr("DENEGAR"),
            "SUPERVISOR": self.tr("SUPERVISOR"),
            "ALREADY_ADMITTED": self.tr("YA ADMITIDO"),
            "NOT_ADMITTED": self.tr("NO ADMITIDO"),
        }
        self._paint(VERDICT_COLOURS.get(outcome, _IDLE_COLOUR))
        self.headline.setText(f"{GLYPHS.get(outcome, '?')}  {words.get(outcome, outcome)}")
        lines = [message(code) for code in reasons] or [message(outcome)]
        self._show_reasons(shown_lines(lines, 1000))
        hint = {
            "ADMIT": self.tr("Intro: registrar e imprimir la tarjeta · F1-F8: tipo de tarjeta"),
            # a DENY is recorded as it is shown (arts. 20, 22): Enter has nothing to do
            "DENY": self.tr("Denegación registrada · Esc: siguiente"),
            "SUPERVISOR": self.tr("Intro: pedir la autorización del director de juegos"),
            # both recorded as shown: neither a refusal nor (a re-entry) a new visit
            "ALREADY_ADMITTED": self.tr(
                "Reentrada: entra con su tarjeta · Ctrl+R: reimprimirla (con motivo) · Intro: visto"
            ),
            "NOT_ADMITTED": self.tr("No admitido, no es una denegación · Intro: visto"),
        }
        self.progress.setText(hint.get(outcome, ""))
        self._texts_changed()

    def show_reasons(self, text: str) -> None:
        """The reasons' line in full words (a re-entry: the card held and its validity)."""
        self._show_reasons(bounded(text, 1000))
        self._texts_changed()

    def show_progress(self, text_es: str) -> None:
        self.progress.setText(bounded(text_es, 300))
        self._texts_changed()

    def show_refusal(self, message_es: str) -> None:
        """A scan that identifies nobody: nothing is recorded."""
        self.outcome = ""
        self._paint(_IDLE_COLOUR)
        self.set_portrait(None)
        self._no_chip()
        self.headline.setText(self.tr("⟲  LEA DE NUEVO"))
        self._show_reasons(bounded(message_es, 300))
        self.progress.setText("")
        self._texts_changed()


BASE_PT = 12  # the progress line's smallest size when the application has none set


def _base_points() -> int:
    """The window's text size in points (``ui.desk.theme.apply_theme``), at least BASE_PT."""
    size = QApplication.font().pointSize()
    return max(BASE_PT, size if size > 0 else BASE_PT)


def _pt_px(points: int) -> int:
    """Points as pixels at 96 dpi (Qt scales logical pixels for high-DPI screens)."""
    return round(points * 96 / 72)


def _pixels(height: int, share: float, ceiling: int) -> int:
    return max(8, min(ceiling, int(height * share)))


def _bold(base: QFont, pixels: int) -> QFont:
    font = QFont(base)
    font.setPixelSize(pixels)
    font.setBold(True)
    return font


def _fit_width(font: QFont, text: str, width: int, smallest: int) -> QFont:
    """``font`` made smaller until ``text`` fits in ``width`` (not below ``smallest``)."""
    fitted = QFont(font)
    while fitted.pixelSize() > smallest and QFontMetrics(fitted).horizontalAdvance(text) > width:
        fitted.setPixelSize(max(smallest, int(fitted.pixelSize() * 0.92)))
    return fitted


def _text_height(font: QFont, text: str, width: int) -> int:
    if not text:
        return 0
    flags = int(Qt.TextFlag.TextWordWrap.value) | int(Qt.AlignmentFlag.AlignCenter.value)
    return QFontMetrics(font).boundingRect(QRect(0, 0, width, 1_000_000), flags, text).height()

"""The camera preview: the image, the MRZ guide and the live hint.

The guide is an ID-1 card outline (85.6 × 54 mm, ISO/IEC 7810) with its machine-readable
zone (the lower third, ICAO 9303 part 5) marked, so the clerk knows where to hold the
document; under it, the live reader's hint in words.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ui.desk.widgets import WrappedLabel

__all__ = ["CameraPreview", "GuideView"]

ID1_RATIO = 85.6 / 54.0
MRZ_SHARE = 0.36  # a TD1's three MRZ lines fill about the lower third of the card


class GuideView(QWidget):
    """The last preview image, scaled to fit, with the guide drawn over it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image = QImage()
        self.setMinimumSize(320, 200)
        self.setAccessibleName(self.tr("Imagen de la cámara"))

    def set_image(self, image: QImage) -> None:
        self.image = image
        self.update()

    def guide_rect(self) -> QRectF:
        w, h = float(self.width()), float(self.height())
        gw = min(w * 0.8, h * 0.8 * ID1_RATIO)
        gh = gw / ID1_RATIO
        return QRectF((w - gw) / 2, (h - gh) / 2, gw, gh)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override: camelCase by necessity
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("#000000"))
        if not self.image.isNull():
            scaled = self.image.scaled(
                self.size(),
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
            x = (self.width() - scaled.width()) // 2
            y = (self.height() - scaled.height()) // 2
            painter.drawImage(x, y, scaled)
        card = self.guide_rect()
        painter.setPen(QPen(QColor("#E8EAED"), 2, Qt.PenStyle.DashLine))
        painter.drawRoundedRect(card, 8, 8)
        band = QRectF(
            card.left() + 6,
            card.bottom() - card.height() * MRZ_SHARE,
            card.width() - 12,
            card.height() * MRZ_SHARE - 6,
        )
        painter.setPen(QPen(QColor("#3D7BFD"), 3))
        painter.drawRect(band)
        painter.end()


class CameraPreview(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(self.tr("Cámara"))
        self.view = GuideView()
        self.hint = WrappedLabel(name=self.tr("Indicación de la cámara"), max_lines=2, limit=120)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.hint)
        self.set_hint("")

    def set_frame(self, image: QImage) -> None:
        self.view.set_image(image)

    def set_hint(self, code: str) -> None:
        """``code`` is a ``hardware.mrz.live.Quality`` value."""
        words = {
            "": self.tr("Coloque el documento en el recuadro, la banda MRZ abajo"),
            "NO_DOCUMENT": self.tr("Sin documento"),
            "TOO_FAR": self.tr("Demasiado lejos: acerque el documento"),
            "BLURRED": self.tr("Borroso: mantenga el documento quieto"),
            "GLARE": self.tr("Reflejos: incline el documento"),
            "READING": self.tr("Leyendo…"),
            "OK": self.tr("Leído"),
        }
        self.hint.setText(words.get(code, self.tr("Leyendo…")))

    def clear(self) -> None:
        self.view.set_image(QImage())
        self.set_hint("")

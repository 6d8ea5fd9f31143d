"""The card access number (CAN) of a chip that answers only to it (ICAO 9303-11 §4.4).

The Spanish DNI 3.0/4.0 opens its chip with PACE and the 6 digits printed on its front,
not with the MRZ. The desk asks for them once per document (``ui.desk.chip_reading``):
typed here, six digits and nothing else; Enter reads the chip again with them, Esc lets
the document be evaluated with its chip unread (the casino's policy decides, art. 23.1).
The CAN is not a secret of the holder's, yet it is never logged nor stored.

Object names for tests: ``can``, ``read``, ``skip``, ``error``.
"""

from __future__ import annotations

from PySide6.QtCore import QRegularExpression
from PySide6.QtGui import QFont, QRegularExpressionValidator
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ui.desk.chip_reading import CAN_DIGITS, valid_can
from ui.desk.dialogs.common import ErrorLine

__all__ = ["CanDialog"]


class CanDialog(QDialog):
    """Asks the CAN printed on the document's front; ``can`` is the answer (None:
    declined)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.can: str | None = None
        self.setWindowTitle(self.tr("Número CAN del documento"))
        self.setAccessibleName(self.windowTitle())
        intro = QLabel(
            self.tr(
                "El chip de este documento solo se abre con su CAN: las 6 cifras impresas "
                "en el anverso (DNI: abajo a la derecha). Escríbalas y pulse Intro. "
                "Esc: seguir sin leer el chip."
            )
        )
        intro.setWordWrap(True)
        self.field = QLineEdit()
        self.field.setObjectName("can")
        self.field.setAccessibleName(self.tr("CAN: 6 cifras"))
        self.field.setMaxLength(CAN_DIGITS)
        self.field.setValidator(
            QRegularExpressionValidator(QRegularExpression(f"[0-9]{{0,{CAN_DIGITS}}}"), self)
        )
        big = QFont(self.field.font())
        big.setPointSize(max(big.pointSize(), 12) * 2)
        big.setLetterSpacing(QFont.SpacingType.AbsoluteSpacing, 6)
        self.field.setFont(big)
        self.errors = ErrorLine()
        self.errors.setObjectName("error")
        buttons = QDialogButtonBox()
        self.read_button = buttons.addButton(
            self.tr("&Leer el chip"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.read_button.setObjectName("read")
        self.read_button.setDefault(True)
        self.skip_button = buttons.addButton(
            self.tr("&Seguir sin chip"), QDialogButtonBox.ButtonRole.RejectRole
        )
        self.skip_button.setObjectName("skip")
        buttons.accepted.connect(self.read)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.field)
        layout.addWidget(self.errors)
        layout.addWidget(buttons)
        self.field.setFocus()

    def read(self) -> None:
        text = self.field.text().strip()
        if not valid_can(text):
            self.errors.setText(self.tr("El CAN son exactamente 6 cifras"))
            self.field.setFocus()
            return
        self.can = text
        self.accept()

    def reject(self) -> None:
        self.can = None
        self.field.clear()
        super().reject()

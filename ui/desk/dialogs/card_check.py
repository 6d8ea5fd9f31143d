"""The card check (R8, art. 22.4): a card code scanned or typed, and what it answers.

The check itself is ``verify_card`` run by the controller on the store worker (every
check is recorded in the audit trail); this dialog shows the answer: the status as a
glyph, a word and a colour, the holder (the document number masked but for the last
four characters) and the card's type and validity. All as plain, bounded text.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from admission.cards.signed import MAX_SIGNED_TEXT
from admission.cards.verification import CardVerification
from ui.desk.dialogs.common import close_box, plain_label
from ui.desk.text import bounded, local_date, local_time, message
from ui.desk.theme import VERDICT_COLOURS, verdict_font

__all__ = ["CardCheckDialog"]

MAX_CODE = MAX_SIGNED_TEXT  # the signed code in the QR (ADM2) is the longest


class CardCheckDialog(QDialog):
    """``check`` is called with the code typed (the controller's ``check_card``);
    :meth:`show_result` receives the answer (connect ``card_checked``)."""

    def __init__(
        self,
        check: Callable[[str], None],
        parent: QWidget | None = None,
        *,
        card_label: Callable[[str], str] = str,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Comprobar tarjeta de entrada"))
        self.setAccessibleName(self.tr("Comprobar tarjeta de entrada"))
        self._check = check
        self._card_label = card_label  # a card type's code -> its name in the window
        self.code = QLineEdit()
        self.code.setMaxLength(MAX_CODE)
        self.code.setAccessibleName(self.tr("Código de la tarjeta"))
        self.code.setPlaceholderText("ADM1-…")
        self.check_button = QPushButton(self.tr("Comprobar"))
        self.check_button.setAccessibleName(self.tr("Comprobar"))
        # Enter in the field checks once: the button is never the dialog's default (it
        # would answer the same Enter a second time) and never takes the focus, so the
        # next code scanned or typed lands in the field
        self.check_button.setAutoDefault(False)
        self.check_button.setDefault(False)
        self.check_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.check_button.clicked.connect(self.submit)
        self.code.returnPressed.connect(self.submit)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)  # the whole answer, never clipped
        self.status.setMinimumWidth(420)
        self.status.setFont(verdict_font(24))
        self.status.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status.setAccessibleName(self.tr("Resultado"))
        self.holder = plain_label(name=self.tr("Titular"))
        self.identity = plain_label(name=self.tr("Documento"))
        self.card = plain_label(name=self.tr("Tarjeta"))
        self.validity = plain_label(name=self.tr("Validez"))
        self.checked_at = plain_label(name=self.tr("Comprobada"))
        self.void_reason = plain_label(name=self.tr("Motivo de la anulación"))
        self.void_reason.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.code, 1)
        row.addWidget(self.check_button)
        form = QFormLayout()
        form.addRow(self.tr("Titular"), self.holder)
        form.addRow(self.tr("Documento"), self.identity)
        form.addRow(self.tr("Tarjeta"), self.card)
        form.addRow(self.tr("Validez"), self.validity)
        form.addRow(self.tr("Comprobada"), self.checked_at)
        form.addRow(self.tr("Motivo de la anulación"), self.void_reason)
        close = close_box(self, enter_closes=False)  # Enter checks the code typed
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addLayout(form)
        layout.addWidget(close)
        self.answer: CardVerification | None = None

    def submit(self) -> None:
        code = self.code.text().strip()
        if code:
            self.status.setText(self.tr("Comprobando…"))
            self._check(code)
        # the code stays to be read, selected: the next scan replaces it
        self.code.setFocus()
        self.code.selectAll()

    def show_result(self, answer: CardVerification) -> None:
        self.answer = answer
        ok = answer.ok
        glyph = "✔" if ok else "✖"
        self.status.setText(f"{glyph}  {message(answer.status.value)}")
        colour = VERDICT_COLOURS["ADMIT" if ok else "DENY"]
        self.status.setStyleSheet(f"background: {colour}; color: white; padding: 6px;")
        name = f"{answer.given_names} {answer.surname}".strip()
        self.holder.setText(bounded(name, 120) or "—")
        self.identity.setText(bounded(answer.identity_hint, 30) or "—")
        number = "" if answer.card_number is None else f"nº {answer.card_number}"
        kind = self._card_label(answer.card_type) if answer.card_type else ""
        self.card.setText(bounded(f"{number} {kind}".strip(), 80) or "—")
        if answer.valid_from is not None:
            span = f"{local_date(answer.valid_from)} – {local_date(answer.valid_until)}"
            self.validity.setText(span)
        else:
            self.validity.setText("—")
        self.checked_at.setText(local_time(answer.checked_at))
        # a voided card says why (art. 22: voided with a reason, never deleted)
        self.void_reason.setText(bounded(answer.void_reason, 200) or "—")
        # grow to the wrapped answer (a top-level window does not follow a label's
        # height-for-width by itself)
        self.status.setMinimumHeight(self.status.heightForWidth(self.status.width()))
        self.adjustSize()

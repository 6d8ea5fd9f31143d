"""The provisional voucher of a desk without its server (art. 23.4, R11).

A desk of the casino's server that cannot reach it (arts. 154-155) admits nobody on its
own (art. 22.1: one card sequence for the operating unit). :class:`OfflineVoucherDialog`
gives the provisional voucher of art. 23.4 for the document read or typed, recorded in
the desk's encrypted queue under a local reference (``DESK1-P000001``) and printed with
it, numbered on the server when it is back. The document itself is checked here
(:func:`document_refusal`); the register, the bans and the file are the server's.
"""

from __future__ import annotations

from datetime import date
from enum import unique

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from admission.codes import Code
from admission.desk import DeskDocument
from admission.documents import DocumentErrorCode
from admission.errors import AdmissionError
from admission.ports import madrid_date
from admission.spanish_ids import (
    is_valid_dni,
    is_valid_nie,
    looks_like_dni,
    looks_like_nie,
    normalise,
)
from admission.verdict import IDENTITY_DOCUMENTS, Reason, age_on
from admission.vouchers.model import MAX_DOCUMENT, MAX_NAME, NewVoucher
from ui.desk.dialogs.common import (
    DialogCode,
    buddy_label,
    plain_label,
)
from ui.desk.dialogs.scaffold import DocumentDialog, card_type_combo, column, notice
from ui.desk.dialogs.vouchers import issue_buttons
from ui.desk.jobs import JobRunner
from ui.desk.ops.vouchers import QueuedProvisional, VoucherOps
from ui.desk.text import bounded, message

__all__ = [
    "OfflineVoucherCode",
    "OfflineVoucherDialog",
    "document_refusal",
    "offline_voucher_dialog",
]


AGE_OF_ADMISSION = 18  # art. 21.1: no minors


@unique
class OfflineVoucherCode(Code):
    """What the desk says and refuses while its server cannot be reached (art. 23.4)."""

    # Enter with the server away: nobody is admitted by the desk on its own (art. 22.1:
    # one card sequence for the operating unit, arts. 154-155)
    OFFLINE_NO_ADMISSION = "OFFLINE_NO_ADMISSION"
    # a typed document: the clerk confirms the original is in force and the holder of age
    OFFLINE_DOCUMENT_NOT_CHECKED = "OFFLINE_DOCUMENT_NOT_CHECKED"
    OFFLINE_VOUCHERS_UNAVAILABLE = "OFFLINE_VOUCHERS_UNAVAILABLE"  # a desk of its own file


# -- the provisional voucher given without the server (art. 23.4) -------------------------
def document_refusal(document: DeskDocument, today: date) -> str | None:
    """What the document itself says against a voucher, without the server: a specimen,
    not one of art. 23.1's documents, failed checks, expired, or a minor (art. 21.1).
    The register, the bans and the file are the server's: they are checked when the
    card is formalised."""
    if document.specimen:
        return Reason.SPECIMEN
    if str(document.doc_type) not in IDENTITY_DOCUMENTS:
        return Reason.DOCUMENT_NOT_ACCEPTED
    if not document.valid:
        return Reason.DOCUMENT_INVALID
    if document.expiry_date is not None and document.expiry_date < today:
        return Reason.DOCUMENT_EXPIRED
    if document.birth_date is not None and age_on(document.birth_date, today) < AGE_OF_ADMISSION:
        return Reason.MINOR
    return None


def _typed_number_refusal(doc_type: str, number: str) -> str | None:
    """A Spanish DNI or NIE typed with a wrong check letter."""
    if doc_type in ("ID_CARD", "DRIVING_LICENCE") and looks_like_dni(number):
        return None if is_valid_dni(number) else DocumentErrorCode.DNI_CHECK_LETTER
    if looks_like_nie(number):
        return None if is_valid_nie(number) else DocumentErrorCode.DNI_CHECK_LETTER
    return None


class OfflineVoucherDialog(DocumentDialog[VoucherOps]):
    """The server cannot be reached: nobody is admitted; the provisional voucher of art.
    23.4 for the document read (or typed), queued on the desk and printed with its local
    reference. Enter issues it."""

    voucher_queued = Signal(object)  # QueuedVoucher

    def __init__(
        self,
        ops: VoucherOps,
        runner: JobRunner,
        document: DeskDocument | None,
        card_type: str | None,
        *,
        operator: str,
        print_voucher: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        title = self.tr("Volante provisional sin servidor (art. 23.4)")
        super().__init__(ops, runner, document, operator, title, parent)
        self._print = print_voucher
        self.queued: QueuedProvisional | None = None
        self.setMinimumWidth(560)

        headline = QLabel(
            self.tr(
                "Sin conexión con el servidor del casino: no se puede admitir a nadie "
                "hasta que vuelva."
            )
        )
        headline.setWordWrap(True)
        headline.setObjectName("offlineHeadline")
        font = headline.font()
        font.setBold(True)
        headline.setFont(font)
        headline.setStyleSheet(
            "QLabel#offlineHeadline { background: #8A5A00; color: #FFFFFF;"
            " padding: 6px; border-radius: 4px; }"
        )
        headline.setAccessibleName(self.tr("Aviso: sin servidor"))
        told = notice(
            self.tr(
                "Volante provisional (art. 23.4): el visitante deposita el documento y el "
                "precio. El volante se guarda en la "
                "cola cifrada de este puesto con una referencia provisional y recibe su "
                "número cuando vuelva el servidor; la tarjeta se formaliza después con el "
                "mismo documento."
            ),
            self.tr("Aviso del volante provisional"),
        )

        self.holder = QLineEdit()
        self.holder.setMaxLength(MAX_NAME)
        self.holder.setAccessibleName(self.tr("Titular del documento"))
        self.doc_type = QComboBox()
        self.doc_type.setAccessibleName(self.tr("Tipo de documento"))
        for value, name in (
            ("ID_CARD", self.tr("DNI / documento de identidad")),
            ("PASSPORT", self.tr("Pasaporte")),
            ("DRIVING_LICENCE", self.tr("Permiso de conducir")),
            ("RESIDENCE_CARD", self.tr("Tarjeta de residencia (NIE)")),
        ):
            self.doc_type.addItem(name, value)
        self.number = QLineEdit()
        self.number.setMaxLength(MAX_DOCUMENT)
        self.number.setAccessibleName(self.tr("Número del documento"))
        self.card_type = card_type_combo(
            ops.catalogue(), card_type, self.tr("Tipo de tarjeta y precio")
        )
        self.checked = QCheckBox(
            self.tr("He comprobado el documento original: en &vigor y titular mayor de edad")
        )
        self.checked.setAccessibleName(self.tr("Documento original comprobado"))

        self.issue_button, self.cancel_button, buttons = issue_buttons(
            self, self.tr("&Emitir volante provisional (Intro)"), self.issue
        )
        form = QFormLayout()
        form.addRow(self.tr("&Titular:"), self.holder)
        # a document read is shown as read: its type as text, not a choice
        self.doc_type_shown = plain_label(name=self.tr("Tipo de documento"))
        self.doc_type_shown.hide()
        type_row = QHBoxLayout()
        type_row.setContentsMargins(0, 0, 0, 0)
        type_row.addWidget(self.doc_type, 1)
        type_row.addWidget(self.doc_type_shown, 1)
        form.addRow(buddy_label(self.tr("Tipo de &documento:"), self.doc_type), type_row)
        form.addRow(self.tr("&Número:"), self.number)
        form.addRow(self.tr("T&arjeta:"), self.card_type)
        form.addRow(self.checked)
        column(self, headline, told, form, self.errors, buttons)

        today = madrid_date(ops.now())
        if ops.offline is None:
            self.issue_button.setEnabled(False)
            self.errors.show_code(OfflineVoucherCode.OFFLINE_VOUCHERS_UNAVAILABLE)
        if document is not None:
            # read from the document: shown as read, not retyped
            self.holder.setText(bounded(f"{document.given_names} {document.surname}", MAX_NAME))
            index = self.doc_type.findData(str(document.doc_type))
            if index >= 0:
                self.doc_type.setCurrentIndex(index)
            self.number.setText(bounded(document.id_number or document.document_number, 40))
            for field in (self.holder, self.number):
                field.setReadOnly(True)
                field.setStyleSheet("QLineEdit { background: palette(window); }")
            self.doc_type.hide()
            known = index >= 0
            self.doc_type_shown.setText(
                self.doc_type.currentText() if known else bounded(document.doc_type, 30)
            )
            self.doc_type_shown.show()
            # age and validity read from the document; the clerk confirms only when the
            # document gives no birth date
            self.checked.setVisible(document.birth_date is None)
            refusal = document_refusal(document, today)
            if refusal is not None:
                self.issue_button.setEnabled(False)
                self.errors.show_code(refusal)
            self.issue_button.setFocus()
        else:
            self.holder.setFocus()

    def new_voucher(self) -> NewVoucher | None:
        """The voucher the fields describe, or None with the refusal on the error line."""
        holder = " ".join(self.holder.text().split())
        number = normalise(self.number.text()) if self.number.text().strip() else ""
        doc_type = str(self.doc_type.currentData())
        for value, name in ((holder, self.tr("Titular")), (number, self.tr("Número"))):
            if not value:
                self.errors.show_code(DialogCode.FIELD_REQUIRED)
                self.errors.setText(f"{name}: {self.errors.text()}")
                return None
        refusal = _typed_number_refusal(doc_type, number) if self._document is None else None
        if refusal is not None:
            self.errors.show_code(refusal)
            return None
        if not self.checked.isHidden() and not self.checked.isChecked():
            self.errors.show_code(OfflineVoucherCode.OFFLINE_DOCUMENT_NOT_CHECKED)
            return None
        ops = self._ops
        code = str(self.card_type.currentData())
        kind = ops.catalogue().types.get(code)
        if kind is None:
            self.errors.show_code("UNKNOWN_CARD_TYPE")
            return None
        try:
            return NewVoucher(
                issued_at=ops.now(),
                desk_id=ops.desk_id(),
                operator=self._operator,
                holder_name=holder,
                document_type=doc_type,
                document_number=number,
                card_type=kind.code,
                price_cents=kind.price_cents,
            )
        except AdmissionError as error:
            self.errors.show_error(error)
            return None

    def issue(self) -> None:
        ops = self._ops
        if ops.offline is None or self.queued is not None or not self.issue_button.isEnabled():
            return
        self.errors.clear_message()
        new = self.new_voucher()
        if new is None:
            return
        self.issue_button.setEnabled(False)  # one key press, one voucher
        printing = self._print

        def job() -> QueuedProvisional:
            return ops.queue(new, printing)

        def failed(error: AdmissionError) -> None:
            self.errors.show_error(error)
            self.issue_button.setEnabled(True)

        def done(made: QueuedProvisional) -> None:
            self.queued = made
            self.voucher_queued.emit(made.queued)
            if made.print_code:
                # recorded: the print is repeated from the pending vouchers' list
                self.errors.show_info(
                    self.tr("Volante provisional %1 registrado, NO impreso: %2")
                    .replace("%1", made.queued.local_ref)
                    .replace("%2", message(made.print_code))
                )
                self.cancel_button.setText(self.tr("Cerrar (Esc)"))
                return
            self.accept()

        self._runner.submit(job, done, failed)


def offline_voucher_dialog(
    parent: QWidget | None,
    ops: VoucherOps,
    runner: JobRunner,
    document: DeskDocument | None,
    card_type: str | None,
    *,
    operator: str,
) -> OfflineVoucherDialog:
    """Open the provisional voucher of a desk without its server (F9); Enter issues it."""
    dialog = OfflineVoucherDialog(
        ops, runner, document, card_type, operator=operator, parent=parent
    )
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog

"""Crowd mode: provisional vouchers (volantes provisionales, art. 23.4, R11).

* :class:`VoucherIssueDialog` - from the evaluation on screen, a second key press
  (Enter) issues the voucher against deposit of the document and the price. The visitor
  is checked like anyone else first (R1); a refusal is recorded as a visit.
* :class:`VouchersDialog` - the open vouchers; formalising one reads the deposited
  document again (the one on screen), records the admission with its numbered card and
  closes the voucher; the closing list shows the vouchers still open at the session's
  closing (art. 23.4: they are formalised before the visitor leaves). On a desk of the
  casino's server it also lists the provisional vouchers given without the server and
  not yet numbered on it.
* the provisional voucher of a desk without its server (arts. 154-155, 23.4):
  :mod:`ui.desk.dialogs.offline_voucher`, which shares this module's keys
  (:func:`issue_buttons`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from admission.cards.view import format_euros
from admission.desk import DeskDocument
from admission.errors import AdmissionError
from admission.vouchers.model import Voucher
from ui.desk.dialogs.common import (
    DialogCode,
    ReasonField,
    close_box,
    plain_label,
    reasons_text,
    run_job,
)
from ui.desk.dialogs.scaffold import (
    DocumentDialog,
    OpsDialog,
    button_row,
    column,
    fill_row,
    list_table,
    notice,
)
from ui.desk.jobs import JobRunner
from ui.desk.ops.vouchers import Formalised, IssuedVoucher, VoucherOps
from ui.desk.text import bounded, card_type_label, local_time, message

if TYPE_CHECKING:
    from admission.vouchers.offline import QueuedVoucher

__all__ = [
    "VoucherIssueDialog",
    "VouchersDialog",
    "issue_buttons",
    "issue_voucher_dialog",
]


def issue_buttons(
    dialog: QDialog, label: str, issue: Callable[[], None]
) -> tuple[QPushButton, QPushButton, QHBoxLayout]:
    """The voucher dialogs' keys: Enter issues (the default), Esc cancels; in a row."""
    issue_button = QPushButton(label)
    issue_button.setAccessibleName(
        QCoreApplication.translate("VoucherDialogs", "Emitir el volante provisional")
    )
    issue_button.setDefault(True)
    issue_button.setAutoDefault(True)
    issue_button.clicked.connect(issue)
    cancel_button = QPushButton(QCoreApplication.translate("VoucherDialogs", "Cancelar (Esc)"))
    cancel_button.setAccessibleName(
        QCoreApplication.translate("VoucherDialogs", "Cancelar sin emitir")
    )
    cancel_button.setAutoDefault(False)
    cancel_button.clicked.connect(dialog.reject)
    row = QHBoxLayout()
    row.addStretch(1)
    row.addWidget(cancel_button)
    row.addWidget(issue_button)
    return issue_button, cancel_button, row


class VoucherIssueDialog(DocumentDialog[VoucherOps]):
    """Issue a provisional voucher for the document on screen: Enter confirms."""

    voucher_issued = Signal(object)  # Voucher
    visit_refused = Signal(object)  # AdmissionResult (recorded as a refused visit)

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
        title = self.tr("Volante provisional (art. 23.4)")
        super().__init__(ops, runner, document, operator, title, parent)
        self._print = print_voucher
        self.issued: IssuedVoucher | None = None
        catalogue = ops.catalogue()
        kind = catalogue.types.get(card_type or catalogue.default)
        self._card_type = kind.code if kind else card_type
        told = notice(
            self.tr(
                "Se entrega el volante contra depósito del documento y del precio; la "
                "tarjeta se formaliza después con el mismo documento."
            ),
            self.tr("Aviso del volante provisional"),
        )
        label = card_type_label(kind) if kind else bounded(card_type or "", 60)
        price = format_euros(kind.price_cents) if kind else ""
        self.type_label = plain_label(
            f"{label} · {price}", name=self.tr("Tipo de tarjeta y precio")
        )
        self.issue_button, self.cancel_button, buttons = issue_buttons(
            self, self.tr("&Emitir volante (Intro)"), self.issue
        )
        form = self._document_form(told, self.tr("Documento:"), self.tr("Documento depositado"))
        form.addRow(self.tr("Tarjeta:"), self.type_label)
        column(self, form, self.errors, buttons)
        self.issue_button.setFocus()
        self._needs_document(self.issue_button)

    def issue(self) -> None:
        document = self._document
        if document is None or self.issued is not None:
            return
        self.issue_button.setEnabled(False)  # one key press, one voucher
        ops, card_type, operator, printing = self._ops, self._card_type, self._operator, self._print

        def failed(error: AdmissionError) -> None:
            self.errors.show_error(error)
            self.issue_button.setEnabled(True)

        def done(issued: IssuedVoucher) -> None:
            self.issued = issued
            voucher = issued.issue.voucher
            if voucher is None:
                refusal = issued.issue.refusal
                verdict = issued.issue.evaluation.verdict
                self.errors.show_info(
                    message(verdict.outcome.value) + "\n" + reasons_text(verdict.codes)
                )
                if refusal is not None:
                    self.visit_refused.emit(refusal)
                return
            self.voucher_issued.emit(voucher)
            if issued.print_code:
                # the voucher is recorded; its print can be repeated from the list
                self.errors.show_code(issued.print_code)
                return
            self.accept()

        self.errors.clear_message()
        self._runner.submit(
            lambda: ops.issue(document, card_type, operator, printing), done, failed
        )


def issue_voucher_dialog(
    parent: QWidget | None,
    ops: VoucherOps,
    runner: JobRunner,
    document: DeskDocument | None,
    card_type: str | None,
    *,
    operator: str,
) -> VoucherIssueDialog:
    """Open the voucher dialog for the document on screen (the first key press);
    Enter issues it (the second)."""
    dialog = VoucherIssueDialog(ops, runner, document, card_type, operator=operator, parent=parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


class VouchersDialog(OpsDialog[VoucherOps]):
    """Open vouchers, their formalisation, cancellation, and the closing list."""

    card_issued = Signal(object)  # AdmissionResult of a formalised voucher

    def __init__(
        self,
        ops: VoucherOps,
        runner: JobRunner,
        *,
        operator: str,
        document: Callable[[], DeskDocument | None],
        closing: bool = False,
        print_card: bool = True,
        writes: JobRunner | None = None,
        parent: QWidget | None = None,
    ) -> None:
        title = self.tr("Volantes provisionales pendientes (art. 23.4)")
        super().__init__(ops, runner, title, parent)
        # a formalisation (the desk's: broadcast once written); the readings on runner
        self._writes = runner if writes is None else writes
        self._operator = operator
        self._document = document  # the document on screen now (read again)
        self._print = print_card
        self._vouchers: list[Voucher] = []
        self.closing_at: datetime | None = None

        self.closing_check = QCheckBox(self.tr("Solo los abiertos al &cierre de la sesión"))
        self.closing_check.setAccessibleName(self.tr("Lista de cierre"))
        self.closing_check.setChecked(closing)
        self.closing_check.toggled.connect(self.refresh)
        self.closing_label = plain_label(name=self.tr("Hora de cierre"))
        self.table = list_table(
            [
                self.tr("Volante"),
                self.tr("Emitido"),
                self.tr("Titular"),
                self.tr("Documento"),
                self.tr("Tarjeta"),
                self.tr("Precio"),
            ],
            self.tr("Volantes abiertos"),
        )
        self.formalise_button = QPushButton(self.tr("&Formalizar con el documento en pantalla"))
        self.formalise_button.setAccessibleName(
            self.tr("Formalizar la tarjeta del volante seleccionado")
        )
        self.formalise_button.setDefault(True)
        self.formalise_button.clicked.connect(self.formalise)
        self.print_button = QPushButton(self.tr("&Imprimir otra vez el volante"))
        self.print_button.setAccessibleName(self.tr("Imprimir otra vez el volante seleccionado"))
        self.print_button.setAutoDefault(False)
        self.print_button.clicked.connect(self.print_again)
        self.cancel_reason = ReasonField(self.tr("Motivo de la anulación del volante"))
        self.cancel_button = QPushButton(self.tr("&Anular el volante"))
        self.cancel_button.setAccessibleName(self.tr("Anular el volante seleccionado"))
        self.cancel_button.clicked.connect(self.cancel_voucher)
        buttons = close_box(self)

        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(self.closing_check)
        top.addWidget(self.closing_label, 1)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        actions = QHBoxLayout()
        actions.addWidget(self.formalise_button, 1)
        actions.addWidget(self.print_button)
        layout.addLayout(actions)
        cancel_row = QHBoxLayout()
        cancel_row.addWidget(self.cancel_reason, 1)
        cancel_row.addWidget(self.cancel_button)
        layout.addLayout(cancel_row)
        # a desk of the casino's server: the provisional vouchers it gave while the
        # server could not be reached, still without a server number (art. 23.4)
        self._provisional: list[QueuedVoucher] = []
        self.provisional_table: QTableWidget | None = None
        self.provisional_print_button: QPushButton | None = None
        if ops.offline is not None:
            heading = QLabel(
                self.tr(
                    "Volantes provisionales de este puesto dados sin servidor, aún sin "
                    "número (se numeran solos cuando vuelve el servidor):"
                )
            )
            heading.setWordWrap(True)
            table = list_table(
                [
                    self.tr("Referencia"),
                    self.tr("Emitido"),
                    self.tr("Titular"),
                    self.tr("Documento"),
                    self.tr("Tarjeta"),
                    self.tr("Precio"),
                    self.tr("Estado"),
                ],
                self.tr("Volantes provisionales sin número del servidor"),
            )
            reprint = QPushButton(self.tr("Imprimir otra vez el volante p&rovisional"))
            reprint.setAccessibleName(
                self.tr("Imprimir otra vez el volante provisional seleccionado")
            )
            reprint.setAutoDefault(False)
            reprint.clicked.connect(self.print_provisional_again)
            self.provisional_table, self.provisional_print_button = table, reprint
            layout.addWidget(heading)
            layout.addWidget(table, 1)
            layout.addLayout(button_row(None, reprint))
        layout.addWidget(self.errors)
        layout.addWidget(buttons)
        self.resize(820, 480 if ops.offline is None else 640)
        self.refresh()

    def refresh(self) -> None:
        ops = self._ops
        closing = None
        if self.closing_check.isChecked():
            closing = ops.closing_at(ops.now())
        self.closing_at = closing
        if self.closing_check.isChecked():
            self.closing_label.setText(
                self.tr("Cierre: %1").replace("%1", local_time(closing))
                if closing
                else self.tr("Fuera de sesión: todos los abiertos")
            )
        else:
            self.closing_label.setText("")
        offline = ops.offline
        if offline is not None:  # the desk's own queue: listed even without the server
            self._runner.submit(offline.pending, self._fill_provisional, self.errors.show_error)
        operator = self._operator

        def listed() -> Sequence[Voucher]:  # names and document numbers: recorded
            return ops.open_vouchers(operator, closing)

        run_job(self._runner, listed, self._fill, self.errors)

    def _fill_provisional(self, queued: Sequence[QueuedVoucher]) -> None:
        table = self.provisional_table
        if table is None:
            return
        self._provisional = list(queued)
        states = {"QUEUED": self.tr("Pendiente"), "SENDING": self.tr("Enviándose")}
        table.setRowCount(len(self._provisional))
        for row, entry in enumerate(self._provisional):
            v = entry.voucher
            cells = (
                entry.local_ref,
                local_time(v.issued_at),
                bounded(v.holder_name, 80),
                bounded(v.document_number, 30),
                bounded(v.card_type, 20),
                format_euros(v.price_cents),
                states.get(str(entry.state), str(entry.state)),
            )
            fill_row(table, row, cells)
        table.resizeColumnsToContents()
        if self._provisional:
            table.selectRow(0)

    def provisional_refs(self) -> list[str]:
        """The local references listed (provisional vouchers without a server number)."""
        return [entry.local_ref for entry in self._provisional]

    def print_provisional_again(self) -> None:
        """A provisional voucher's print failed: printed again with its reference."""
        table = self.provisional_table
        row = -1 if table is None else table.currentRow()
        if not 0 <= row < len(self._provisional):
            self.errors.show_code(DialogCode.SELECTION_REQUIRED)
            return
        entry, ops = self._provisional[row], self._ops

        def done(code: str) -> None:
            if code:
                self.errors.show_code(code)
            else:
                self.errors.show_info(
                    self.tr("Volante provisional %1 impreso").replace("%1", entry.local_ref)
                )

        run_job(
            self._runner,
            lambda: ops.print_provisional(entry),
            done,
            self.errors,
            self.provisional_print_button,
        )

    def _fill(self, vouchers: Sequence[Voucher]) -> None:
        self._vouchers = list(vouchers)
        self.table.setRowCount(len(self._vouchers))
        for row, v in enumerate(self._vouchers):
            cells = (
                str(v.number),
                local_time(v.issued_at),
                bounded(v.holder_name, 80),
                bounded(v.document_number, 30),
                bounded(v.card_type, 20),
                format_euros(v.price_cents),
            )
            fill_row(self.table, row, cells)
        self.table.resizeColumnsToContents()
        self._select_for_document()

    def _select_for_document(self) -> None:
        """Select the voucher of the document on screen, if any."""
        document = self._document()
        if document is None:
            if self._vouchers:
                self.table.selectRow(0)
            return
        number = document.id_number or document.document_number
        for row, v in enumerate(self._vouchers):
            if v.document_number == number:
                self.table.selectRow(row)
                return
        if self._vouchers:
            self.table.selectRow(0)

    def open_numbers(self) -> list[int]:
        return [v.number for v in self._vouchers]

    def _selected(self) -> Voucher | None:
        row = self.table.currentRow()
        if not 0 <= row < len(self._vouchers):
            self.errors.show_code(DialogCode.SELECTION_REQUIRED)
            return None
        return self._vouchers[row]

    def formalise(self) -> None:
        voucher = self._selected()
        if voucher is None:
            return
        document = self._document()
        if document is None:
            self.errors.show_code(DialogCode.DOCUMENT_NOT_ON_SCREEN)
            return
        ops, operator, printing = self._ops, self._operator, self._print

        def job() -> Formalised:
            return ops.formalise(voucher.number, document, operator, printing)

        def done(formalised: Formalised) -> None:
            result = formalised.result
            self.refresh()
            if result.card is None:
                # the checks changed since the voucher: no card; return the document and
                # the money, and cancel the voucher with a reason
                self.errors.show_info(
                    message(result.verdict.outcome.value)
                    + "\n"
                    + reasons_text(result.verdict.codes)
                )
                return
            self.card_issued.emit(result)
            info = (
                self.tr("Volante %1 formalizado: tarjeta %2")
                .replace("%1", str(voucher.number))
                .replace("%2", str(result.card.number))
            )
            if formalised.print_code:
                info += "\n" + message(formalised.print_code)
            self.errors.show_info(info)

        run_job(self._writes, job, done, self.errors, self.formalise_button)

    def print_again(self) -> None:
        """The voucher is recorded already: a failed print is simply repeated."""
        voucher = self._selected()
        if voucher is None:
            return
        ops = self._ops

        def done(code: str) -> None:
            if code:
                self.errors.show_code(code)
            else:
                self.errors.show_info(
                    self.tr("Volante %1 impreso").replace("%1", str(voucher.number))
                )

        run_job(
            self._runner, lambda: ops.print_voucher(voucher), done, self.errors, self.print_button
        )

    def cancel_voucher(self) -> None:
        voucher = self._selected()
        if voucher is None:
            return
        reason = self.cancel_reason.reason()
        if not reason:
            self.errors.show_code("REASON_REQUIRED")
            return
        ops, operator = self._ops, self._operator

        def done(_: Voucher) -> None:
            self.cancel_reason.clear()
            self.refresh()
            self.errors.show_info(self.tr("Volante %1 anulado").replace("%1", str(voucher.number)))

        run_job(
            self._runner,
            lambda: ops.cancel(voucher.number, reason, operator),
            done,
            self.errors,
            self.cancel_button,
        )

"""Crowd mode: provisional vouchers (volantes provisionales, art. 23.4, R11).

* :class:`VoucherIssueDialog` - from the evaluation on screen, a second key press
  (Enter) issues the voucher against deposit of the document and the price. The visitor
  is checked like anyone else first (R1); a refusal is recorded as a visit.
* :class:`VouchersDialog` - the open vouchers; formalising one reads the deposited
  document again (the one on screen), records the admission with its numbered card and
  closes the voucher; the closing list shows the vouchers still open at the session's
  closing (art. 23.4: they are formalised before the visitor leaves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from admission.cards.view import format_euros
from admission.desk import AdmissionResult, DeskDocument
from admission.errors import AdmissionError
from admission.vouchers.desk import VoucherIssue, exchange_voucher, issue_voucher
from admission.vouchers.model import Voucher, voucher_view
from ui.context import AppContext
from ui.dialogs.common import (
    DialogCode,
    ErrorLine,
    ReasonField,
    bounded,
    close_box,
    document_summary,
    local_time,
    message,
    plain_label,
    reasons_text,
    run_job,
)
from ui.jobs import JobRunner

__all__ = [
    "IssuedVoucher",
    "VoucherIssueDialog",
    "VouchersDialog",
    "issue_voucher_dialog",
]


@dataclass(frozen=True, slots=True)
class IssuedVoucher:
    issue: VoucherIssue
    print_code: str = ""  # "" printed (or not asked), else a device code


def _issue_and_print(
    ctx: AppContext, document: DeskDocument, card_type: str | None, operator: str, printing: bool
) -> IssuedVoucher:
    issued = issue_voucher(
        ctx.desk, ctx.vouchers, ctx.clock, document, operator=operator, card_type=card_type
    )
    voucher = issued.voucher
    if voucher is None or not printing:
        return IssuedVoucher(issued)
    return IssuedVoucher(issued, _print_voucher(ctx, voucher))


def _print_voucher(ctx: AppContext, voucher: Voucher) -> str:
    """Print the voucher (art. 23.4): "" printed, else the device's code."""
    kind = ctx.desk.config.catalogue.types.get(voucher.card_type)
    view = voucher_view(
        voucher,
        casino_name=ctx.settings["casino.name"],
        card_type_label=kind.label_es if kind else voucher.card_type,
    )
    code, _job = ctx.documents.print_voucher(view)
    return str(code)


class VoucherIssueDialog(QDialog):
    """Issue a provisional voucher for the document on screen: Enter confirms."""

    voucher_issued = Signal(object)  # Voucher
    visit_refused = Signal(object)  # AdmissionResult (recorded as a refused visit)

    def __init__(
        self,
        ctx: AppContext,
        runner: JobRunner,
        document: DeskDocument | None,
        card_type: str | None,
        *,
        operator: str,
        print_voucher: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._runner = runner
        self._document = document
        self._operator = operator
        self._print = print_voucher
        self.issued: IssuedVoucher | None = None
        catalogue = ctx.desk.config.catalogue
        kind = catalogue.types.get(card_type or catalogue.default)
        self._card_type = kind.code if kind else card_type
        self.setWindowTitle(self.tr("Volante provisional (art. 23.4)"))
        self.setAccessibleName(self.windowTitle())
        notice = QLabel(
            self.tr(
                "Se entrega el volante contra depósito del documento y del precio; la "
                "tarjeta se formaliza después con el mismo documento."
            )
        )
        notice.setWordWrap(True)
        notice.setAccessibleName(self.tr("Aviso del volante provisional"))
        self.document_label = plain_label(
            document_summary(document) if document is not None else "",
            name=self.tr("Documento depositado"),
        )
        label = kind.label_es if kind else (card_type or "")
        price = format_euros(kind.price_cents) if kind else ""
        self.type_label = plain_label(
            f"{bounded(label, 60)} · {price}", name=self.tr("Tipo de tarjeta y precio")
        )
        self.issue_button = QPushButton(self.tr("&Emitir volante (Intro)"))
        self.issue_button.setAccessibleName(self.tr("Emitir el volante provisional"))
        self.issue_button.setDefault(True)
        self.issue_button.setAutoDefault(True)
        self.issue_button.clicked.connect(self.issue)
        self.cancel_button = QPushButton(self.tr("Cancelar (Esc)"))
        self.cancel_button.setAccessibleName(self.tr("Cancelar sin emitir"))
        self.cancel_button.setAutoDefault(False)
        self.cancel_button.clicked.connect(self.reject)
        self.errors = ErrorLine()
        form = QFormLayout()
        form.addRow(notice)
        form.addRow(self.tr("Documento:"), self.document_label)
        form.addRow(self.tr("Tarjeta:"), self.type_label)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.issue_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.errors)
        layout.addLayout(buttons)
        self.issue_button.setFocus()
        if document is None:
            self.issue_button.setEnabled(False)
            self.errors.show_code(DialogCode.DOCUMENT_NOT_ON_SCREEN)

    def issue(self) -> None:
        document = self._document
        if document is None or self.issued is not None:
            return
        self.issue_button.setEnabled(False)  # one key press, one voucher
        ctx, card_type, operator, printing = self._ctx, self._card_type, self._operator, self._print

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
            lambda: _issue_and_print(ctx, document, card_type, operator, printing), done, failed
        )


def issue_voucher_dialog(
    parent: QWidget | None,
    ctx: AppContext,
    runner: JobRunner,
    document: DeskDocument | None,
    card_type: str | None,
    *,
    operator: str,
) -> VoucherIssueDialog:
    """Open the voucher dialog for the document on screen (the first key press);
    Enter issues it (the second)."""
    dialog = VoucherIssueDialog(ctx, runner, document, card_type, operator=operator, parent=parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


@dataclass(frozen=True, slots=True)
class Formalised:
    result: AdmissionResult
    print_code: str = ""


class VouchersDialog(QDialog):
    """Open vouchers, their formalisation, cancellation, and the closing list."""

    card_issued = Signal(object)  # AdmissionResult of a formalised voucher

    def __init__(
        self,
        ctx: AppContext,
        runner: JobRunner,
        *,
        operator: str,
        document: Callable[[], DeskDocument | None],
        closing: bool = False,
        print_card: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._runner = runner
        self._operator = operator
        self._document = document  # the document on screen now (read again)
        self._print = print_card
        self._vouchers: list[Voucher] = []
        self.closing_at: datetime | None = None
        self.setWindowTitle(self.tr("Volantes provisionales pendientes (art. 23.4)"))
        self.setAccessibleName(self.windowTitle())

        self.closing_check = QCheckBox(self.tr("Solo los abiertos al &cierre de la sesión"))
        self.closing_check.setAccessibleName(self.tr("Lista de cierre"))
        self.closing_check.setChecked(closing)
        self.closing_check.toggled.connect(self.refresh)
        self.closing_label = plain_label(name=self.tr("Hora de cierre"))
        self.table = QTableWidget(0, 6)
        self.table.setAccessibleName(self.tr("Volantes abiertos"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Volante"),
                self.tr("Emitido"),
                self.tr("Titular"),
                self.tr("Documento"),
                self.tr("Tarjeta"),
                self.tr("Precio"),
            ]
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
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
        self.errors = ErrorLine()
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
        layout.addWidget(self.errors)
        layout.addWidget(buttons)
        self.resize(820, 480)
        self.refresh()

    def refresh(self) -> None:
        ctx = self._ctx
        closing = None
        if self.closing_check.isChecked():
            closing = ctx.desk.config.hours.closing_at(ctx.clock.now())
        self.closing_at = closing
        if self.closing_check.isChecked():
            self.closing_label.setText(
                self.tr("Cierre: %1").replace("%1", local_time(closing))
                if closing
                else self.tr("Fuera de sesión: todos los abiertos")
            )
        else:
            self.closing_label.setText("")
        book = ctx.vouchers
        run_job(
            self._runner, lambda: book.open_vouchers(issued_before=closing), self._fill, self.errors
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
            for column, value in enumerate(cells):
                item = QTableWidgetItem(value)
                item.setData(Qt.ItemDataRole.AccessibleTextRole, value)
                self.table.setItem(row, column, item)
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
        ctx, operator, printing = self._ctx, self._operator, self._print

        def job() -> Formalised:
            result = exchange_voucher(
                ctx.desk, ctx.vouchers, ctx.clock, voucher.number, document, operator=operator
            )
            code = ""
            if result.card is not None and printing:
                service = ctx.card_printing
                outcome = service.print_card(service.view_for(result.card.number), actor=operator)
                code = "" if outcome.printed else str(outcome.code)
            return Formalised(result, code)

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

        run_job(self._runner, job, done, self.errors, self.formalise_button)

    def print_again(self) -> None:
        """The voucher is recorded already: a failed print is simply repeated."""
        voucher = self._selected()
        if voucher is None:
            return
        ctx = self._ctx

        def done(code: str) -> None:
            if code:
                self.errors.show_code(code)
            else:
                self.errors.show_info(
                    self.tr("Volante %1 impreso").replace("%1", str(voucher.number))
                )

        run_job(
            self._runner, lambda: _print_voucher(ctx, voucher), done, self.errors, self.print_button
        )

    def cancel_voucher(self) -> None:
        voucher = self._selected()
        if voucher is None:
            return
        reason = self.cancel_reason.reason()
        if not reason:
            self.errors.show_code("REASON_REQUIRED")
            return
        book, now = self._ctx.vouchers, self._ctx.clock.now()

        def done(_: Voucher) -> None:
            self.cancel_reason.clear()
            self.refresh()
            self.errors.show_info(self.tr("Volante %1 anulado").replace("%1", str(voucher.number)))

        run_job(
            self._runner,
            lambda: book.cancel_voucher(voucher.number, reason, now),
            done,
            self.errors,
            self.cancel_button,
        )

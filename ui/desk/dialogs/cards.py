"""Entry cards after issue (art. 22): void, reprint, the reprint queue, and the
exceptional card of art. 23.5 (R12).

* Voiding and reprinting a card keep its number and a written reason; both are the
  game director's decisions, confirmed with the director's own credentials, and the
  visitor file records them under the director's user name.
* The reprint queue lists the cards issued and not printed (a printer that failed):
  printing one for the first time needs no reason.
* The exceptional card is issued under the game director's named responsibility (art.
  23.5): the director signs in for it, and the card records the director's user name.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QPushButton,
    QSpinBox,
    QWidget,
)

from admission.desk import AdmissionResult, DeskDocument
from admission.records import CardRecord, CardStatus
from ui.desk.dialogs.common import (
    Authorise,
    DialogCode,
    ReasonField,
    buddy_label,
    close_box,
    plain_label,
    reasons_text,
    run_job,
    with_director,
)
from ui.desk.dialogs.scaffold import (
    DocumentDialog,
    OpsDialog,
    button_row,
    card_type_combo,
    column,
    fill_row,
    list_table,
    notice,
)
from ui.desk.jobs import JobRunner
from ui.desk.ops.cards import CardOps, ExceptionalIssue, PrintResult
from ui.desk.text import bounded, local_date, local_time, message

__all__ = [
    "CardActionsDialog",
    "ExceptionalCardDialog",
    "ReprintQueueDialog",
]

MAX_CARD = 999_999_999  # art. 22.3: correlative numbers


class CardActionsDialog(OpsDialog[CardOps]):
    """Void or reprint one card, with a reason, by the game director."""

    card_changed = Signal(int)

    def __init__(
        self,
        ops: CardOps,
        runner: JobRunner,
        authorise: Authorise,
        *,
        number: int | None = None,
        parent: QWidget | None = None,
    ) -> None:
        title = self.tr("Anular o reimprimir una tarjeta (art. 22)")
        super().__init__(ops, runner, title, parent)
        self._authorise = authorise

        self.number_spin = QSpinBox()
        self.number_spin.setRange(1, MAX_CARD)
        self.number_spin.setAccessibleName(self.tr("Número de tarjeta"))
        if number is not None:
            self.number_spin.setValue(number)
        self.look_button = QPushButton(self.tr("&Consultar"))
        self.look_button.setAccessibleName(self.tr("Consultar la tarjeta"))
        self.look_button.clicked.connect(self.look_up)
        self.card_label = plain_label(name=self.tr("Datos de la tarjeta"), limit=400)
        self.reason = ReasonField(self.tr("Motivo de la anulación o reimpresión"))
        self.void_button = QPushButton(self.tr("&Anular…"))
        self.void_button.setAccessibleName(self.tr("Anular la tarjeta (pide al director)"))
        self.void_button.clicked.connect(self.void)
        self.reprint_button = QPushButton(self.tr("&Reimprimir…"))
        self.reprint_button.setAccessibleName(self.tr("Reimprimir la tarjeta (pide al director)"))
        self.reprint_button.clicked.connect(self.reprint)
        form = QFormLayout()
        number_row = QHBoxLayout()
        number_row.addWidget(self.number_spin, 1)
        number_row.addWidget(self.look_button)
        form.addRow(buddy_label(self.tr("&Tarjeta nº:"), self.number_spin), number_row)
        form.addRow(self.card_label)
        form.addRow(self.tr("&Motivo:"), self.reason)
        actions = button_row(self.void_button, self.reprint_button)
        column(self, form, actions, self.errors, close_box(self))
        if number is not None:
            self.look_up()

    def look_up(self) -> None:
        ops, number = self._ops, self.number_spin.value()
        run_job(self._runner, lambda: ops.card(number), self._show, self.errors)

    def _show(self, card: CardRecord | None) -> None:
        if card is None:
            self.card_label.setText("")
            self.errors.show_code("CARD_NOT_FOUND")
            return
        status = {
            CardStatus.ISSUED: self.tr("emitida, sin imprimir"),
            CardStatus.PRINTED: self.tr("impresa"),
            CardStatus.VOIDED: self.tr("anulada"),
        }[card.status]
        lines = [
            self.tr("Tarjeta %1 · %2 · %3")
            .replace("%1", str(card.number))
            .replace("%2", bounded(card.card_type, 20))
            .replace("%3", status),
            self.tr("Válida del %1 al %2")
            .replace("%1", local_date(card.valid_from))
            .replace("%2", local_date(card.valid_until)),
            self.tr("Impresa %1 veces").replace("%1", str(card.print_count)),
        ]
        if card.exceptional:
            lines.append(
                self.tr("Excepcional, autorizada por %1").replace(
                    "%1", bounded(card.authorised_by, 60)
                )
            )
        if card.void_reason:
            lines.append(self.tr("Motivo de anulación: %1").replace("%1", card.void_reason))
        self.card_label.setText(bounded("\n".join(lines), 400))

    def _reason(self) -> str:
        reason = self.reason.reason()
        if not reason:
            self.errors.show_code("REASON_REQUIRED")
        return reason

    def void(self) -> None:
        reason = self._reason()
        if not reason:
            return
        number = self.number_spin.value()
        director = with_director(
            self._authorise, self.tr("Anular la tarjeta %1").replace("%1", str(number)), self.errors
        )
        if director is None:
            return
        ops = self._ops

        def done(card: CardRecord) -> None:
            self.reason.clear()
            self._show(card)
            self.card_changed.emit(card.number)
            self.errors.show_info(self.tr("Tarjeta anulada"))

        run_job(
            self._runner,
            lambda: ops.void(number, reason, director.username),
            done,
            self.errors,
            self.void_button,
        )

    def reprint(self) -> None:
        reason = self._reason()
        if not reason:
            return
        number = self.number_spin.value()
        director = with_director(
            self._authorise,
            self.tr("Reimprimir la tarjeta %1").replace("%1", str(number)),
            self.errors,
        )
        if director is None:
            return
        ops = self._ops

        def done(result: PrintResult) -> None:
            self.reason.clear()
            self.card_changed.emit(number)
            self.look_up()
            if result.code:
                self.errors.show_code(result.code)  # the reprint stays recorded
            else:
                self.errors.show_info(self.tr("Tarjeta reimpresa"))

        # the card service records the reprint and its reason before printing
        run_job(
            self._runner,
            lambda: ops.print(number, director.username, reason),
            done,
            self.errors,
            self.reprint_button,
        )


class ReprintQueueDialog(OpsDialog[CardOps]):
    """Cards issued and not printed (art. 22): print them again."""

    card_printed = Signal(int)

    def __init__(
        self,
        ops: CardOps,
        runner: JobRunner,
        *,
        operator: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(ops, runner, self.tr("Tarjetas emitidas sin imprimir"), parent)
        self._operator = operator
        self._cards: list[CardRecord] = []
        self.table = list_table(
            [self.tr("Tarjeta"), self.tr("Ficha"), self.tr("Tipo"), self.tr("Emitida")],
            self.tr("Tarjetas pendientes de imprimir"),
        )
        self.print_button = QPushButton(self.tr("&Imprimir la seleccionada"))
        self.print_button.setAccessibleName(self.tr("Imprimir la tarjeta seleccionada"))
        self.print_button.setDefault(True)
        self.print_button.clicked.connect(self.print_selected)
        self.refresh_button = QPushButton(self.tr("&Actualizar"))
        self.refresh_button.setAccessibleName(self.tr("Actualizar la lista"))
        self.refresh_button.clicked.connect(self.refresh)
        row = button_row(self.refresh_button, None, self.print_button)
        column(self, (self.table, 1), row, self.errors, close_box(self))
        self.resize(560, 420)
        self.refresh()

    def refresh(self) -> None:
        run_job(self._runner, self._ops.unprinted, self._fill, self.errors)

    def _fill(self, cards: Sequence[CardRecord]) -> None:
        self._cards = list(cards)
        self.table.setRowCount(len(self._cards))
        for row, card in enumerate(self._cards):
            cells = (
                str(card.number),
                str(card.file_number),
                bounded(card.card_type, 20),
                local_time(card.issued_at),
            )
            fill_row(self.table, row, cells)
        self.table.resizeColumnsToContents()
        if self._cards:
            self.table.selectRow(0)

    def queued(self) -> list[int]:
        return [card.number for card in self._cards]

    def print_selected(self) -> None:
        row = self.table.currentRow()
        if not 0 <= row < len(self._cards):
            self.errors.show_code(DialogCode.SELECTION_REQUIRED)
            return
        number, ops, actor = self._cards[row].number, self._ops, self._operator

        def done(result: PrintResult) -> None:
            self.refresh()
            if result.code:
                self.errors.show_code(result.code)  # still in the queue
            else:
                self.card_printed.emit(result.number)
                self.errors.show_info(self.tr("Tarjeta %1 impresa").replace("%1", str(number)))

        run_job(
            self._runner, lambda: ops.print(number, actor), done, self.errors, self.print_button
        )


class ExceptionalCardDialog(DocumentDialog[CardOps]):
    """The exceptional card (art. 23.5, R12) for the document on screen, issued under
    the game director's named responsibility."""

    card_issued = Signal(object)  # AdmissionResult

    def __init__(
        self,
        ops: CardOps,
        runner: JobRunner,
        authorise: Authorise,
        document: DeskDocument | None,
        *,
        operator: str,
        card_type: str | None = None,
        print_card: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        title = self.tr("Tarjeta excepcional (art. 23.5)")
        super().__init__(ops, runner, document, operator, title, parent)
        self._authorise = authorise
        self._print = print_card
        self.admission: AdmissionResult | None = None
        told = notice(
            self.tr(
                "El director de juegos expide esta tarjeta bajo su responsabilidad nominal "
                "(art. 23.5). Se comprueban igualmente el RIAJ, las prohibiciones y la edad."
            ),
            self.tr("Aviso de responsabilidad"),
        )
        self.type_combo = card_type_combo(ops.catalogue(), card_type, self.tr("Tipo de tarjeta"))
        self.issue_button = QPushButton(self.tr("&Autorizar y expedir…"))
        self.issue_button.setAccessibleName(
            self.tr("El director se identifica y expide la tarjeta excepcional")
        )
        self.issue_button.setDefault(True)
        self.issue_button.clicked.connect(self.issue)
        form = self._document_form(told, self.tr("Documento:"), self.tr("Documento en pantalla"))
        form.addRow(self.tr("&Tipo:"), self.type_combo)
        column(self, form, self.issue_button, self.errors, close_box(self))
        self._needs_document(self.issue_button)

    def issue(self) -> None:
        document = self._document
        if document is None:
            self.errors.show_code(DialogCode.DOCUMENT_NOT_ON_SCREEN)
            return
        director = with_director(
            self._authorise, self.tr("Tarjeta excepcional (art. 23.5)"), self.errors
        )
        if director is None:
            return
        ops, operator, card_type = self._ops, self._operator, str(self.type_combo.currentData())
        printing = self._print

        def job() -> ExceptionalIssue:
            return ops.issue_exceptional(
                document,
                operator=operator,
                card_type=card_type,
                director=director.username,
                printing=printing,
            )

        run_job(self._runner, job, self._issued, self.errors, self.issue_button)

    def _issued(self, issue: ExceptionalIssue) -> None:
        result = issue.result
        self.admission = result
        self.issue_button.setEnabled(False)  # one decision, one card
        if result.card is None:
            self.errors.show_info(
                message(result.verdict.outcome.value) + "\n" + reasons_text(result.verdict.codes)
            )
            return
        self.card_issued.emit(result)
        info = (
            self.tr("Tarjeta excepcional %1 expedida bajo la responsabilidad de %2")
            .replace("%1", str(result.card.number))
            .replace("%2", bounded(result.card.authorised_by, 60))
        )
        if issue.printed is not None and issue.printed.code:
            info += "\n" + message(issue.printed.code)
        self.errors.show_info(info)

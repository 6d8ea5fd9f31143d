"""The Admisión menu: provisional voucher for the document on screen (F9, then Enter
issues it: two key presses from the verdict, art. 23.4, R11; on a desk of the casino's
server that cannot reach it, the voucher of the document read or typed, queued on the
desk under a local reference until the server numbers it), pending vouchers and their
formalisation, the closing list, an official on duty (art. 24, R13), the reprint queue,
an observation on the visitor's file (art. 20.3).

(The window's own entries - manual entry, card check, reprint of unprinted cards - and
the presentation's reprint of a card held come first.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog

from admission.accounts import Operator
from admission.desk import DeskErrorCode
from admission.observations import ObservationService
from admission.verdict import Outcome
from ui.context import AppContext
from ui.desk.changes import OpChanges
from ui.desk.controller import DeskState
from ui.desk.dialogs.cards import ReprintQueueDialog
from ui.desk.dialogs.observation import ObservationDialog
from ui.desk.dialogs.official import OfficialDialog
from ui.desk.dialogs.offline_voucher import offline_voucher_dialog
from ui.desk.dialogs.vouchers import VouchersDialog, issue_voucher_dialog
from ui.desk.host import MENU_DESK, DeskHost
from ui.desk.jobs import JobRunner
from ui.desk.menus.base import MenuBase, MenuCode
from ui.desk.ops import cards, official, vouchers

if TYPE_CHECKING:
    from admission.desk import AdmissionResult
    from admission.vouchers.model import Voucher
    from admission.vouchers.offline import QueuedVoucher

__all__ = ["DeskMenu"]

QUEUED = OpChanges(queue=True)  # a provisional voucher queued on the desk (art. 23.4)
# a visit recorded by a dialog: an official (art. 24), a voucher or its refusal (art. 23.4)
VISITED = OpChanges(admissions=True)
FORMALISED = OpChanges(admissions=True, cards=True)  # a voucher's card (art. 23.4)


class DeskMenu(MenuBase):
    def __init__(
        self,
        host: DeskHost,
        ctx: AppContext,
        runner: JobRunner,
        authorise: Callable[[str], Operator | None],
        opened: Callable[[QDialog], None],
    ) -> None:
        super().__init__(host, ctx, runner, authorise, opened)
        # the file number the verdict on screen was recorded under (a first visit has
        # none until it is recorded): admission id -> file number
        self._recorded: tuple[str, int] | None = None
        host.controller.admission_recorded.connect(self._remember_recorded)
        tr = self.tr
        for name, title, keys, slot in (
            ("voucher", tr("&Volante provisional…"), "F9", self.open_voucher),
            ("vouchers", tr("Volantes &pendientes…"), "Ctrl+Shift+V", self.open_vouchers),
            ("closing", tr("&Lista de cierre de volantes…"), "Ctrl+Shift+L", self.open_closing),
            ("official", tr("&Funcionario en servicio…"), "Ctrl+Shift+O", self.open_official),
            ("reprint_queue", tr("&Cola de reimpresión…"), "Ctrl+Shift+P", self.open_reprints),
            ("observation", tr("O&bservación en la ficha…"), "Ctrl+Shift+B", self.open_observation),
        ):
            host.add_action(MENU_DESK, self._action(name, title, keys, slot))

    def open_voucher(self) -> QDialog | None:
        """F9: a provisional voucher for the document on screen (art. 23.4); Enter in
        the dialog issues it. Only for a verdict that admits and is not recorded yet.
        A desk without its server has no verdict: the voucher of the document read (or
        typed in the dialog), queued on the desk under a local reference."""
        operator = self._desk_operator()
        if operator is None:
            return None
        controller = self.host.controller
        current = controller.current
        if current is not None and (
            controller.state is not DeskState.SHOWN
            or current.evaluation.verdict.outcome is not Outcome.ADMIT
        ):
            self._say(MenuCode.VOUCHER_NEEDS_ADMIT)
            return None
        if self.host.offline_mode:
            return self._offline_voucher(operator)
        dialog = issue_voucher_dialog(
            self.host.window(),
            vouchers.of(self.ctx),
            self.host.operations.runner_for(VISITED),  # the counters read again
            self._document(),
            controller.card_type,
            operator=operator.username,
        )
        dialog.voucher_issued.connect(self._voucher_issued)
        self._opened(dialog)
        return dialog

    def _offline_voucher(self, operator: Operator) -> QDialog | None:
        host = self.host
        document = self._document() or host.offline_document
        if document is not None and host.outcome_unknown(document.identity):
            # an admission of this person may be on the server already (art. 22: one card)
            self._say(DeskErrorCode.OUTCOME_UNKNOWN)
            return None
        dialog = offline_voucher_dialog(
            host.window(),
            vouchers.of(self.ctx),
            host.operations.runner_for(QUEUED),  # the waiting count is read again
            document,
            host.controller.card_type,
            operator=operator.username,
        )
        dialog.voucher_queued.connect(self._voucher_queued)
        self._opened(dialog)
        return dialog

    def _voucher_queued(self, queued: QueuedVoucher) -> None:
        # handed over against the document and the price: the desk moves on
        self.host.controller.clear_handled()
        self.host.status.showMessage(
            self.tr("Volante provisional %1 entregado: pendiente de formalizar").replace(
                "%1", queued.local_ref
            ),
            30_000,
        )

    def _voucher_issued(self, voucher: Voucher) -> None:
        # the voucher stands for the card (art. 23.4): the desk moves on to the next person
        self.host.controller.clear_handled()
        self.host.status.showMessage(
            self.tr("Volante nº %1 entregado").replace("%1", str(voucher.number)), 10_000
        )

    def _vouchers(self, closing: bool) -> VouchersDialog | None:
        operator = self._desk_operator()
        if operator is None:
            return None
        dialog = VouchersDialog(
            vouchers.of(self.ctx),
            self.runner,
            operator=operator.username,
            document=self._document,
            closing=closing,
            writes=self.host.operations.runner_for(FORMALISED),  # the counters read again
            parent=self.host.window(),
        )
        dialog.card_issued.connect(self._card_issued)
        return self._open(dialog)

    def open_vouchers(self) -> VouchersDialog | None:
        return self._vouchers(closing=False)

    def open_closing(self) -> VouchersDialog | None:
        return self._vouchers(closing=True)

    def open_official(self) -> OfficialDialog | None:
        operator = self._desk_operator()
        if operator is None:
            return None
        dialog = OfficialDialog(
            official.of(self.ctx),
            self.host.operations.runner_for(VISITED),
            self._document(),
            operator=operator.username,
            parent=self.host.window(),
        )
        return self._open(dialog)

    def open_reprints(self) -> ReprintQueueDialog | None:
        operator = self._desk_operator()
        if operator is None:
            return None
        dialog = ReprintQueueDialog(
            cards.of(self.ctx), self.runner, operator=operator.username, parent=self.host.window()
        )
        return self._open(dialog)

    def open_observation(self) -> ObservationDialog | None:
        """Ctrl+Shift+B: a free-text observation on the file of the visitor on screen,
        or of a file number typed (art. 20.3), under the signed-in clerk's or director's
        name; the service refuses anyone else."""
        operator = self._operator()
        if operator is None:
            return None
        current = self.host.controller.current
        number, name = None, ""
        if current is not None:
            number = current.file_number
            recorded = self._recorded
            if number is None and recorded and recorded[0] == current.evaluation.admission_id:
                number = recorded[1]
            doc = current.evaluation.document
            name = f"{doc.given_names} {doc.surname}".strip() if number else ""
        ctx = self.ctx
        dialog = ObservationDialog(
            ObservationService(ctx.store, ctx.clock),
            self.runner,
            operator,
            file_number=number,
            visitor=name,
            parent=self.host.window(),
        )
        added = self.tr("Observación añadida a la ficha %1")
        dialog.observation_added.connect(
            lambda made: self.host.status.showMessage(
                added.replace("%1", str(made.file_number)), 10_000
            )
        )
        return self._open(dialog)

    def _remember_recorded(self, result: AdmissionResult) -> None:
        self._recorded = (result.evaluation.admission_id, result.recorded.file_number)

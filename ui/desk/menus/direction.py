"""The Dirección menu: exceptional card for the document on screen (art. 23.5, R12),
bans (art. 21.2-3, R5), the staff list (art. 18, R15), void or reprint a card (art. 22),
the printers; the director's figures (charts, art. 14.1.b), the rectification of a
visitor's name or an observation (GDPR art. 16) and the access-request report (GDPR
art. 15). Every director's act asks the director's own credentials inside its dialog
(``authorise``, art. 20.3).

(The retention view and the audit trail are added to it by their own menus.)
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog

from admission.accounts import Operator, Role
from ui.context import AppContext
from ui.desk.changes import OpChanges
from ui.desk.dialogs.bans import BansDialog
from ui.desk.dialogs.cards import CardActionsDialog, ExceptionalCardDialog
from ui.desk.dialogs.common import DialogCode, StoreListings
from ui.desk.dialogs.data_protection import AccessReportDialog, RectificationDialog
from ui.desk.dialogs.figures import FiguresDialog
from ui.desk.dialogs.printer import PrinterDialog
from ui.desk.dialogs.staff import StaffDialog
from ui.desk.host import MENU_DIRECTION, DeskHost
from ui.desk.jobs import JobRunner
from ui.desk.menus.base import MenuBase
from ui.desk.ops import bans, cards, data_protection, staff

__all__ = ["DirectionMenu"]

RECTIFIED = OpChanges(people=True)  # a visitor's name or an observation (GDPR art. 16)
ISSUED = OpChanges(admissions=True, cards=True)  # the exceptional card (art. 23.5)


class DirectionMenu(MenuBase):
    """``actions``: the director's acts; ``file_actions``: the visitor file's figures,
    rectification and access report (kept apart, as the Inspección menu's)."""

    def __init__(
        self,
        host: DeskHost,
        ctx: AppContext,
        runner: JobRunner,
        authorise: Callable[[str], Operator | None],
        opened: Callable[[QDialog], None],
    ) -> None:
        super().__init__(host, ctx, runner, authorise, opened)
        tr = self.tr
        for name, title, keys, slot in (
            ("exceptional", tr("Tarjeta &excepcional…"), "Ctrl+E", self.open_exceptional),
            ("bans", tr("&Prohibiciones…"), "Ctrl+B", self.open_bans),
            ("staff", tr("Per&sonal del casino…"), "Ctrl+Shift+S", self.open_staff),
            ("cards", tr("&Anular o reimprimir una tarjeta…"), "Ctrl+Shift+T", self.open_cards),
            ("printer", tr("&Impresoras…"), "Ctrl+Shift+I", self.open_printer),
        ):
            host.add_action(MENU_DIRECTION, self._action(name, title, keys, slot))
        self.file_actions: dict[str, QAction] = {}
        rectify = tr("&Rectificar datos de un visitante…")
        access_report = tr("Informe de acceso a &datos (RGPD)…")
        file_entries: tuple[tuple[str, str, str, Callable[[], object]], ...] = (
            ("figures", tr("Ci&fras de admisión…"), "Ctrl+Shift+C", self.open_figures),
            ("rectify", rectify, "Ctrl+Shift+N", self.open_rectification),
            ("access_report", access_report, "Ctrl+Shift+A", self.open_access_report),
        )
        for name, title, keys, opens in file_entries:
            self.file_actions[name] = self._action(name, title, keys, opens, store=False)
            host.add_action(MENU_DIRECTION, self.file_actions[name])

    def open_exceptional(self) -> ExceptionalCardDialog | None:
        operator = self._operator()
        if operator is None:
            return None
        dialog = ExceptionalCardDialog(
            cards.of(self.ctx),
            self.host.operations.runner_for(ISSUED),
            self.authorise,
            self._document(),
            operator=operator.username,
            card_type=self.host.controller.card_type,
            parent=self.host.window(),
        )
        dialog.card_issued.connect(self._card_issued)
        return self._open(dialog)

    def open_bans(self) -> BansDialog | None:
        operator = self._operator()
        if operator is None:
            return None
        dialog = BansDialog(
            bans.of(self.ctx),
            self.runner,
            self.authorise,
            operator=operator.username,
            listings=StoreListings(self.ctx.store),
            identity=self._identity(),
            parent=self.host.window(),
        )
        return self._open(dialog)

    def open_staff(self) -> StaffDialog | None:
        if self._operator() is None:
            return None
        dialog = StaffDialog(
            staff.of(self.ctx),
            self.runner,
            self.authorise,
            listings=StoreListings(self.ctx.store),
            parent=self.host.window(),
        )
        return self._open(dialog)

    def open_cards(self) -> CardActionsDialog | None:
        if self._operator() is None:
            return None
        dialog = CardActionsDialog(
            cards.of(self.ctx), self.runner, self.authorise, parent=self.host.window()
        )
        return self._open(dialog)

    def open_printer(self) -> PrinterDialog | None:
        """The printers: the game director or an administrator (the director's own
        credentials are asked when the operator is neither)."""
        operator = self._operator()
        if operator is None:
            return None
        if not (operator.has(Role.DIRECTOR) or operator.has(Role.ADMIN)):
            director = self.authorise(self.tr("Elegir la impresora"))
            if director is None or not director.has(Role.DIRECTOR):
                self._say(DialogCode.DIRECTOR_NOT_CONFIRMED)
                return None
            operator = director
        dialog = PrinterDialog(
            self._settings_ops(), operator, self.runner, parent=self.host.window()
        )
        who = operator
        dialog.saved.connect(lambda keys: self._settings_saved(who, keys))
        return self._open(dialog)

    # -- the visitor file: figures, data protection --------------------------------------
    def open_figures(self) -> FiguresDialog | None:
        """Ctrl+Shift+C: the director's figures, the last seven days at first."""
        operator = self._with_role((Role.DIRECTOR, Role.INSPECTOR), self.tr("Cifras de admisión"))
        if operator is None:
            return None
        ctx = self.ctx
        dialog = FiguresDialog(
            ctx.reports,
            self.runner,
            operator,
            ctx.tools.today(),
            catalogue=ctx.desk.config.catalogue,
            parent=self.host.window(),
        )
        self.host.operations.operation_did_execute.connect(dialog.changed)
        self._open(dialog)
        dialog.load()
        return dialog

    def open_rectification(self) -> RectificationDialog | None:
        """Ctrl+Shift+N: correct a visitor's name or an observation (GDPR art. 16)."""
        operator = self._with_role((Role.DIRECTOR,), self.tr("Rectificar datos de un visitante"))
        if operator is None:
            return None
        ops = data_protection.of(self.ctx)
        dialog = RectificationDialog(
            ops.service,
            ops.subject,
            self.runner,
            operator,
            writes=self.host.operations.runner_for(RECTIFIED),  # read again where shown
            parent=self.host.window(),
        )
        return self._open(dialog)

    def open_access_report(self) -> AccessReportDialog | None:
        """Ctrl+Shift+A: a person's access-request report as a PDF (GDPR art. 15)."""
        operator = self._with_role((Role.DIRECTOR,), self.tr("Informe de acceso a datos"))
        if operator is None:
            return None
        ops = data_protection.of(self.ctx)
        dialog = AccessReportDialog(
            ops.reports,
            ops.export_target,
            self.runner,
            operator,
            self.ctx.tools.today(),
            parent=self.host.window(),
        )
        return self._open(dialog)

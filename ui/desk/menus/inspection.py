"""The Inspección menu (offered only to a gaming inspector or the game director, art.
20.4): the inspector's screen - search, a person's visits, exports, the daily visitor
book - and the retention view, which is also in Dirección and Administración (counts
only)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QMenu

from admission.accounts import Operator, Role
from admission.inspection import InspectionCode
from ui.context import AppContext
from ui.desk.dialogs.data_protection import RetentionDialog
from ui.desk.dialogs.inspection import InspectionDialog
from ui.desk.host import MENU_ADMIN, MENU_DIRECTION, MENU_INSPECTION, DeskHost
from ui.desk.inspection_controller import inspection_controller
from ui.desk.jobs import JobRunner
from ui.desk.menus.base import MenuBase
from ui.desk.ops import data_protection

__all__ = ["INSPECTION_ROLES", "RETENTION_ROLES", "InspectionMenu"]

INSPECTION_ROLES = (Role.INSPECTOR, Role.DIRECTOR)  # art. 20.4; arts. 14.1.b, 20.3
RETENTION_ROLES = (Role.DIRECTOR, Role.ADMIN, Role.INSPECTOR)


class InspectionMenu(MenuBase):
    """``file_actions``: the inspector's screen and the retention view."""

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
        self.file_actions: dict[str, QAction] = {
            name: self._action(name, title, keys, slot, store=False)
            for name, title, keys, slot in (
                (
                    "inspection",
                    tr("&Consultar el fichero de visitantes…"),
                    "Ctrl+Shift+F",
                    self.open_inspection,
                ),
                ("retention", tr("Co&nservación de datos…"), "Ctrl+Shift+R", self.open_retention),
            )
        }
        retention = self.file_actions["retention"]
        host.add_action(MENU_DIRECTION, retention)
        host.menu(MENU_ADMIN).addAction(retention)
        self.menu: QMenu = host.add_menu(MENU_INSPECTION, tr("&Inspección"))
        for name in ("inspection", "retention"):
            host.add_action(MENU_INSPECTION, self.file_actions[name])
        for signal_name in ("signed_in", "signed_out", "locked", "unlocked"):
            signal = getattr(host.session, signal_name, None)
            if signal is not None:
                signal.connect(self.offer_by_role)
        host.inspector_mode_changed.connect(self.offer_by_role)
        self.offer_by_role()

    def offer_by_role(self, *_args: object) -> None:
        """The Inspección menu only for an inspector or the game director (a clerk is
        never offered the visitor file, art. 20.4); an inspector-only operator has the
        inspector's screen as the window, and keeps the retention view."""
        session = self.host.session
        operator = session.operator
        if operator is None:
            locked = getattr(session, "locked_operator", None)
            operator = locked if isinstance(locked, Operator) else None
        if operator is None:
            return  # nobody: the next sign-in decides
        inspect = any(operator.has(r) for r in INSPECTION_ROLES) and not self.host.inspector_mode
        retention = any(operator.has(r) for r in RETENTION_ROLES)
        self.file_actions["inspection"].setVisible(inspect)
        self.file_actions["retention"].setVisible(retention)
        self.menu.menuAction().setVisible(inspect or retention)

    def open_inspection(self) -> InspectionDialog | None:
        """Ctrl+Shift+F: the inspector's screen (an inspector or the game director)."""
        operator = self._operator()
        if operator is None:
            return None
        if not any(operator.has(r) for r in INSPECTION_ROLES):
            self._say(InspectionCode.INSPECTOR_ROLE_REQUIRED)
            return None
        host = self.host
        controller = inspection_controller(self.ctx, self.runner, host.session)
        dialog = InspectionDialog(
            controller, self.ctx.tools.today, card_label=host.card_label, parent=host.window()
        )
        host.operations.operation_did_execute.connect(dialog.screen_widget.changed)
        return self._open(dialog)

    def open_retention(self) -> RetentionDialog | None:
        """Ctrl+Shift+R: what the file holds and the next purge (counts only)."""
        operator = self._with_role(RETENTION_ROLES, self.tr("Conservación de datos"))
        if operator is None:
            return None
        dialog = RetentionDialog(
            data_protection.of(self.ctx).service,
            self.runner,
            operator,
            parent=self.host.window(),
        )
        self._open(dialog)
        dialog.load()
        return dialog

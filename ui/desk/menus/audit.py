"""The audit trail's entry in the Dirección and Inspección menus (arts. 14.1.b, 20.4):
Ctrl+Shift+D opens :class:`AuditTrailDialog` for the game director or an inspector
signed in; anyone else is told so and nothing is read.

:func:`attach_audit_menu` puts it in the window's menus through the window's own API."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from admission.accounts import Operator, Role
from admission.audit_trail import AuditTrailService
from admission.ports import madrid_date
from admission.reports import ExportTarget
from ui.context import AppContext
from ui.desk.dialogs.audit_trail import AuditTrailDialog
from ui.desk.host import MENU_DIRECTION, MENU_INSPECTION, DeskHost, shortcut_action
from ui.desk.jobs import JobRunner
from ui.desk.text import message

__all__ = ["AUDIT_KEY", "AuditMenu", "attach_audit_menu"]

AUDIT_KEY = "Ctrl+Shift+D"


class AuditMenu(QObject):
    """``dialog``: the dialog last opened (tests, the shell)."""

    def __init__(
        self,
        window: QWidget,
        add_action: Callable[[QAction], None],
        service: AuditTrailService,
        runner: JobRunner,
        operator: Callable[[], Operator | None],
        today: Callable[[], date],
        export_target: Callable[[Path], ExportTarget],
        *,
        language: Callable[[], str] = lambda: "es",
        refused: Callable[[str], None] = lambda _code: None,
    ) -> None:
        super().__init__(window)
        self.window = window
        self._service = service
        self._runner = runner
        self._operator = operator
        self._today = today
        self._export_target = export_target
        self._language = language
        self._refused = refused
        self.dialog: AuditTrailDialog | None = None
        title = self.tr("Registro de &auditoría…")
        self.action = shortcut_action(window, "audit_trail", title, AUDIT_KEY, self.open)
        add_action(self.action)

    def open(self) -> AuditTrailDialog | None:
        operator = self._operator()
        if operator is None or not (operator.has(Role.DIRECTOR) or operator.has(Role.INSPECTOR)):
            self._refused("INSPECTOR_ROLE_REQUIRED")
            return None
        dialog = AuditTrailDialog(
            self._service,
            self._runner,
            self._operator,
            self._today,
            self._export_target,
            language=self._language,
            parent=self.window,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.show()
        dialog.activateWindow()
        dialog.purpose_edit.setFocus()
        return dialog


def attach_audit_menu(host: DeskHost, ctx: AppContext, runner: JobRunner) -> AuditMenu:
    """The audit trail under Dirección and Inspección (arts. 14.1.b, 20.4)."""

    def add(action: QAction) -> None:
        host.add_action(MENU_DIRECTION, action)
        # the Inspección menu is shown by role (ui.desk.menus.inspection): added to, never
        # shown here
        host.menu(MENU_INSPECTION).addAction(action)

    def operator() -> Operator | None:
        return None if host.session.is_locked else host.session.operator

    return AuditMenu(
        host.window(),
        add,
        AuditTrailService(ctx.store, ctx.clock),
        runner,
        operator,
        lambda: madrid_date(ctx.clock.now()),
        partial(ctx.export_target, force=True),  # the save dialog asked before replacing
        language=lambda: str(ctx.settings["ui.language"]),
        refused=lambda code: host.status.showMessage(message(code), 10_000),
    )

"""The audit trail's entry in the Dirección and Inspección menus (arts. 14.1.b, 20.4):
Ctrl+Shift+D opens :class:`AuditTrailDialog` for the game director or an inspector
signed in; anyone else is told so and nothing is read."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction

from admission.accounts import Operator, Role
from admission.audit_trail import AuditTrailService
from admission.reports import ExportTarget
from ui.desk.desk_menus import shortcut_action
from ui.desk.dialogs.audit_trail import AuditTrailDialog
from ui.desk.jobs import JobRunner

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow

__all__ = ["AUDIT_KEY", "AuditMenu"]

AUDIT_KEY = "Ctrl+Shift+D"


class AuditMenu(QObject):
    """``dialog``: the dialog last opened (tests, the shell)."""

    def __init__(
        self,
        window: QMainWindow,
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

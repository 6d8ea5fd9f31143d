"""The desk window's menus, one module per menu, each with its dialogs, keyboard
shortcuts and mnemonics:

* :mod:`.desk` - Admisión: vouchers (art. 23.4), officials on duty (art. 24), the reprint
  queue, an observation on the visitor's file;
* :mod:`.direction` - Dirección: exceptional card, bans, staff, cards, printers, the
  director's figures, rectification and the access-request report (GDPR arts. 15-16);
* :mod:`.admin` - Administración: settings and accounts;
* :mod:`.inspection` - Inspección (an inspector or the game director only, art. 20.4):
  the inspector's screen and the retention view;
* :mod:`.session` - Sesión: who is signed in, lock, PIN, sign out;
* :mod:`.audit` - the audit trail (Dirección and Inspección); :mod:`.help` - Ayuda.

The menus are visible to everyone but Inspección; each action checks the role when it
is used, and the services check it again. Each menu registers its actions through the
window's own API (:class:`ui.desk.host.DeskHost`) and is given the context it uses;
none imports the window.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QLabel

from admission.accounts import Operator
from ui.context import AppContext
from ui.desk.host import DeskHost
from ui.desk.jobs import JobRunner
from ui.desk.menus.admin import AdminMenu
from ui.desk.menus.desk import DeskMenu
from ui.desk.menus.direction import DirectionMenu
from ui.desk.menus.inspection import InspectionMenu
from ui.desk.menus.session import SessionMenu

__all__ = ["DeskMenus", "attach_desk_menus"]


class DeskMenus(QObject):
    """The menus of the window: ``desk``, ``direction``, ``admin``, ``inspection`` and
    ``session``; every action by name (``actions``, the visitor file's in
    ``file_actions``) and the last dialog any of them opened (``dialog``: tests, the
    shell)."""

    def __init__(
        self,
        host: DeskHost,
        ctx: AppContext,
        runner: JobRunner,
        authorise: Callable[[str], Operator | None],
        *,
        ask_admin: Callable[[str], Operator | None] | None = None,
    ) -> None:
        super().__init__(host.window())
        self.dialog: QDialog | None = None
        parts = (host, ctx, runner, authorise, self._opened)
        self.desk = DeskMenu(*parts)
        self.direction = DirectionMenu(*parts)
        self.admin = AdminMenu(*parts, ask_admin=ask_admin)
        self.inspection = InspectionMenu(*parts)
        self.session = SessionMenu(*parts)
        self.actions: dict[str, QAction] = {
            **self.desk.actions,
            **self.direction.actions,
            **self.admin.actions,
            **self.session.actions,
        }
        self.file_actions: dict[str, QAction] = {
            **self.inspection.file_actions,
            **self.direction.file_actions,
        }

    def _opened(self, dialog: QDialog) -> None:
        self.dialog = dialog

    @property
    def ask_admin(self) -> Callable[[str], Operator | None]:
        """An administrator's own credentials (the Administración menu's; tests set it)."""
        return self.admin.ask_admin

    @ask_admin.setter
    def ask_admin(self, ask: Callable[[str], Operator | None]) -> None:
        self.admin.ask_admin = ask

    @property
    def operator_label(self) -> QLabel:
        return self.session.operator_label

    @property
    def settings_path(self) -> Path:
        return self.admin.settings_path


def attach_desk_menus(
    host: DeskHost,
    ctx: AppContext,
    *,
    ask_admin: Callable[[str], Operator | None] | None = None,
) -> DeskMenus | None:
    """Attach every dialog to the window's menus (None when the window has no runner or
    no director's authorisation to give them)."""
    if host.runner is None or host.authorise is None:
        return None
    return DeskMenus(host, ctx, host.runner, host.authorise, ask_admin=ask_admin)

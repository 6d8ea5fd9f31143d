"""The Administración menu: the settings and the accounts. An administrator's own
credentials are asked unless the operator signed in is one.

(The retention view is added to it by the Inspección menu.)
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialog

from admission.accounts import Operator, Role
from ui.context import AppContext
from ui.desk.dialogs.accounts import AccountsDialog
from ui.desk.dialogs.accounts import ask_admin as ask_admin_credentials
from ui.desk.dialogs.settings import SettingsDialog
from ui.desk.host import MENU_ADMIN, DeskHost
from ui.desk.jobs import JobRunner
from ui.desk.menus.base import MenuBase, MenuCode, language

__all__ = ["AdminMenu"]


class AdminMenu(MenuBase):
    """``ask_admin``: an administrator's own credentials (default: the AdminDialog);
    settable by tests."""

    def __init__(
        self,
        host: DeskHost,
        ctx: AppContext,
        runner: JobRunner,
        authorise: Callable[[str], Operator | None],
        opened: Callable[[QDialog], None],
        *,
        ask_admin: Callable[[str], Operator | None] | None = None,
    ) -> None:
        super().__init__(host, ctx, runner, authorise, opened)
        self.ask_admin: Callable[[str], Operator | None] = ask_admin or self._ask_admin
        tr = self.tr
        for name, title, keys, slot in (
            ("settings", tr("&Configuración…"), "Ctrl+Shift+G", self.open_settings),
            ("accounts", tr("C&uentas…"), "Ctrl+Shift+U", self.open_accounts),
        ):
            host.add_action(MENU_ADMIN, self._action(name, title, keys, slot))

    def _ask_admin(self, purpose: str) -> Operator | None:
        return ask_admin_credentials(
            self.host.window(), self.ctx.accounts, purpose, lang=language()
        )

    def _admin(self, purpose: str) -> Operator | None:
        """The operator when an administrator, else an administrator's own credentials."""
        operator = self._operator()
        if operator is None:
            return None
        if operator.has(Role.ADMIN):
            return operator
        admin = self.ask_admin(purpose)
        if admin is None or not admin.has(Role.ADMIN):
            self._say(MenuCode.ADMIN_NOT_CONFIRMED)
            return None
        return admin

    def open_settings(self) -> SettingsDialog | None:
        admin = self._admin("SETTINGS")
        if admin is None:
            return None
        dialog = SettingsDialog(self._settings_ops(), admin, self.runner, parent=self.host.window())
        dialog.saved.connect(lambda keys: self._settings_saved(admin, keys))
        return self._open(dialog)

    def open_accounts(self) -> AccountsDialog | None:
        admin = self._admin("ACCOUNTS")
        if admin is None:
            return None
        ctx = self.ctx
        dialog = AccountsDialog(
            ctx.accounts,
            self.runner,
            actor=admin,
            clock=ctx.clock,
            lang=language(),
            parent=self.host.window(),
        )
        return self._open(dialog)

"""The Sesión menu: the operator signed in (also shown, always, in the status bar), lock
(Ctrl+L), the operator's own quick-unlock PIN and sign out."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QLabel, QMenu

from admission.accounts import Operator
from ui.context import AppContext
from ui.desk.dialogs.pin import PinDialog
from ui.desk.host import MENU_SESSION, DeskHost
from ui.desk.jobs import JobRunner
from ui.desk.menus.base import MenuBase
from ui.desk.text import bounded

__all__ = ["MAX_OPERATOR", "SessionMenu"]

MAX_OPERATOR = 60


class SessionMenu(MenuBase):
    """``operator_label``: the operator's name in the status bar; ``menu``: Sesión."""

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
        self.menu: QMenu = host.add_menu(MENU_SESSION, tr("&Sesión"))
        self.operator_action = QAction("", host.window())
        self.operator_action.setEnabled(False)  # information only
        self.menu.addAction(self.operator_action)
        self.menu.addSeparator()
        for name, title, keys, slot in (
            ("lock", tr("&Bloquear"), "Ctrl+L", self.lock),
            ("pin", tr("Mi &PIN de desbloqueo…"), "Ctrl+Shift+K", self.open_pin),
            ("sign_out", tr("&Cerrar sesión"), "Ctrl+Shift+Q", self.sign_out),
        ):
            host.add_action(MENU_SESSION, self._action(name, title, keys, slot))
        self.operator_label = QLabel()
        self.operator_label.setObjectName("operator_name")
        self.operator_label.setTextFormat(Qt.TextFormat.PlainText)
        self.operator_label.setAccessibleName(tr("Operador que ha iniciado sesión"))
        host.status.addPermanentWidget(self.operator_label)
        for signal_name in ("signed_in", "signed_out", "locked", "unlocked"):
            signal = getattr(host.session, signal_name, None)
            if signal is not None:
                signal.connect(self.show_operator)
        self.show_operator()

    def show_operator(self, *_args: object) -> None:
        """The operator's name in the status bar and the Sesión menu (plain text)."""
        session = self.host.session
        operator = session.operator
        if operator is not None:
            text = self.tr("Operador: %1").replace(
                "%1", bounded(operator.display_name or operator.username, MAX_OPERATOR)
            )
        else:
            locked = getattr(session, "locked_operator", None)
            if isinstance(locked, Operator) and session.is_locked:
                text = self.tr("Bloqueada: %1").replace(
                    "%1", bounded(locked.display_name or locked.username, MAX_OPERATOR)
                )
            else:
                text = self.tr("Sin sesión")
        self.operator_label.setText(text)
        self.operator_action.setText(text)

    def lock(self) -> None:
        """Ctrl+L: the desk locks; only the same operator's password opens it."""
        lock = getattr(self.host.session, "lock", None)
        if callable(lock):
            lock()
        self.show_operator()

    def sign_out(self) -> None:
        sign_out = getattr(self.host.session, "sign_out", None)
        if callable(sign_out):
            sign_out("user")
        self.show_operator()

    def open_pin(self) -> PinDialog | None:
        """Ctrl+Shift+K: the signed-in operator's own quick-unlock PIN, set, changed or
        removed with the password (a sign-in always takes the password)."""
        operator = self._operator()
        if operator is None:
            return None
        dialog = PinDialog(self.ctx.accounts, operator, parent=self.host.window())
        saved, removed = self.tr("PIN de desbloqueo guardado"), self.tr("PIN de desbloqueo quitado")
        dialog.accepted.connect(
            lambda: self.host.status.showMessage(saved if dialog.changed else removed, 10_000)
        )
        return self._open(dialog)

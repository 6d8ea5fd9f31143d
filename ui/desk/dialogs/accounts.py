"""The desk's accounts, for administrators (art. 20.3: every admission names the operator
who signed in, so each person has their own account).

* :class:`AccountsDialog`: the accounts (user name, name, roles, active, locked until;
  never a password hash), a new account, a new password, enable or disable, clear a
  lockout, change the roles. Every change goes through
  :class:`admission.accounts.AccountService` on the job runner, with the administrator
  as the actor (the service audits it and refuses anyone without the ADMIN role).
* :class:`AdminDialog` / :func:`ask_admin`: an administrator's own credentials, asked
  when the operator signed in is not one (the settings and the accounts need one).

Refusals show the catalogue's text of the code (:func:`admission.catalogue.text`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar
from zoneinfo import ZoneInfo

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from admission.accounts import Account, AccountService, Operator, Role
from admission.catalogue import text
from admission.errors import AdmissionError
from admission.ports import Clock
from ui.desk.dialogs.common import DialogCode
from ui.desk.dialogs.sign_in import (
    CredentialsDialog,
    error_label,
    error_text,
    password_field,
    username_field,
)
from ui.desk.jobs import JobRunner

__all__ = ["AccountsDialog", "AdminDialog", "ask_admin", "role_label"]

MADRID = ZoneInfo("Europe/Madrid")
MAX_NAME = 80  # admission.accounts.MAX_DISPLAY_NAME
MAX_SHOWN = 80
T = TypeVar("T")


def role_label(role: Role) -> str:
    """The role's name as the desk says it (translated, context ``AccountsDialog``)."""
    from PySide6.QtCore import QCoreApplication

    if role is Role.CLERK:
        return QCoreApplication.translate("AccountsDialog", "Recepción")
    if role is Role.DIRECTOR:
        return QCoreApplication.translate("AccountsDialog", "Director de juegos")
    if role is Role.INSPECTOR:
        return QCoreApplication.translate("AccountsDialog", "Inspector")
    if role is Role.FLOOR:  # checks entry cards on the gaming floor (art. 22.4)
        return QCoreApplication.translate("AccountsDialog", "Personal de sala")
    return QCoreApplication.translate("AccountsDialog", "Administrador")


def _clean(value: str, limit: int = MAX_SHOWN) -> str:
    shown = "".join(c if c.isprintable() else " " for c in value).strip()
    return shown[:limit]


def _madrid(at: datetime | None) -> str:
    return "" if at is None else at.astimezone(MADRID).strftime("%d/%m/%Y %H:%M")


class AdminDialog(CredentialsDialog):
    """Accepted with :attr:`operator` = the administrator who authenticated just now."""

    def __init__(
        self,
        accounts: AccountService,
        purpose: str,
        parent: QWidget | None = None,
        *,
        lang: str = "es",
    ) -> None:
        super().__init__(parent, lang=lang)
        self._accounts = accounts
        self._purpose = purpose
        self.setWindowTitle(self.tr("Credenciales de un administrador"))
        self.setAccessibleName(self.windowTitle())
        self.setMinimumWidth(400)
        intro = QLabel(
            self.tr(
                "La configuración y las cuentas las cambia un administrador: "
                "introduzca sus propias credenciales."
            )
        )
        intro.setAccessibleName(self.tr("Aviso"))
        self._build(
            intro=intro,
            user_label=self.tr("&Usuario:"),
            user_name=self.tr("Usuario del administrador"),
            password_name=self.tr("Contraseña del administrador"),
            error_name=self.tr("Error de autorización"),
            submit=self.tr("&Aceptar"),
            submit_name=self.tr("Aceptar las credenciales"),
        )

    def _check(self, username: str, password: str) -> Operator:
        return self._accounts.authorise(username, password, Role.ADMIN, self._purpose)


def ask_admin(
    parent: QWidget | None, accounts: AccountService, purpose: str, *, lang: str = "es"
) -> Operator | None:
    """An administrator's own credentials for ``purpose`` (a short code written to the
    audit entry, e.g. ``SETTINGS``); None when cancelled."""
    dialog = AdminDialog(accounts, purpose, parent, lang=lang)
    try:
        accepted = dialog.exec() == QDialog.DialogCode.Accepted.value
        return dialog.operator if accepted else None
    finally:
        dialog.deleteLater()


class AccountsDialog(QDialog):
    """The accounts of the desk; ``actor`` is the administrator who makes the changes."""

    accounts_changed = Signal()

    def __init__(
        self,
        accounts: AccountService,
        runner: JobRunner,
        *,
        actor: Operator,
        clock: Clock | None = None,
        lang: str = "es",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._accounts = accounts
        self._runner = runner
        self._actor = actor
        self._clock = clock
        self._lang = lang
        self._shown: list[Account] = []
        self.setWindowTitle(self.tr("Cuentas de la recepción"))
        self.setAccessibleName(self.windowTitle())

        self.table = QTableWidget(0, 5)
        self.table.setAccessibleName(self.tr("Lista de cuentas"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Usuario"),
                self.tr("Nombre"),
                self.tr("Funciones"),
                self.tr("Activa"),
                self.tr("Bloqueada hasta"),
            ]
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.setCornerButtonEnabled(False)  # one account at a time
        for corner in self.table.findChildren(QAbstractButton):
            corner.setAccessibleName(self.tr("Esquina de la lista de cuentas"))

        # -- a new account ---------------------------------------------------------
        self.new_username = username_field(self.tr("Usuario de la cuenta nueva"))
        self.new_username.setObjectName("new_username")
        self.new_name = QLineEdit()
        self.new_name.setObjectName("new_name")
        self.new_name.setMaxLength(MAX_NAME)
        self.new_name.setAccessibleName(self.tr("Nombre de la persona"))
        self.role_checks, roles_row = self._role_row(self.tr("Función de la cuenta nueva: %1"))
        self.role_checks[Role.CLERK].setChecked(True)
        self.new_password = password_field(self.tr("Contraseña de la cuenta nueva"))
        self.new_password.setObjectName("new_password")
        self.new_repeat = password_field(self.tr("Repita la contraseña de la cuenta nueva"))
        self.new_repeat.setObjectName("new_repeat")
        self.create_button = QPushButton(self.tr("C&rear cuenta"))
        self.create_button.setAccessibleName(self.tr("Crear la cuenta nueva"))
        self.create_button.clicked.connect(self.create_account)
        add_form = QFormLayout()
        for label_text, field in (
            (self.tr("&Usuario:"), self.new_username),
            (self.tr("&Nombre:"), self.new_name),
            (self.tr("Co&ntraseña:"), self.new_password),
            (self.tr("Re&pita:"), self.new_repeat),
        ):
            label = QLabel(label_text)
            label.setBuddy(field)
            add_form.addRow(label, field)
        add_form.addRow(self.tr("Funciones:"), roles_row)
        add_form.addRow(self.create_button)
        add_box = QGroupBox(self.tr("Cuenta nueva"))
        add_box.setAccessibleName(self.tr("Cuenta nueva"))
        add_box.setLayout(add_form)

        # -- the account chosen ----------------------------------------------------
        self.reset_password = password_field(self.tr("Contraseña nueva de la cuenta elegida"))
        self.reset_password.setObjectName("reset_password")
        self.reset_repeat = password_field(self.tr("Repita la contraseña nueva"))
        self.reset_repeat.setObjectName("reset_repeat")
        self.password_button = QPushButton(self.tr("Cambiar la &contraseña"))
        self.password_button.setAccessibleName(
            self.tr("Cambiar la contraseña de la cuenta elegida")
        )
        self.password_button.clicked.connect(self.set_password)
        self.active_button = QPushButton(self.tr("&Desactivar"))
        self.active_button.setAccessibleName(self.tr("Activar o desactivar la cuenta elegida"))
        self.active_button.clicked.connect(self.toggle_active)
        self.unlock_button = QPushButton(self.tr("&Quitar el bloqueo"))
        self.unlock_button.setAccessibleName(
            self.tr("Quitar el bloqueo por intentos fallidos de la cuenta elegida")
        )
        self.unlock_button.clicked.connect(self.clear_lockout)
        self.chosen_roles, chosen_roles_row = self._role_row(
            self.tr("Función de la cuenta elegida: %1")
        )
        self.roles_button = QPushButton(self.tr("Cambiar las &funciones"))
        self.roles_button.setAccessibleName(
            self.tr("Dar a la cuenta elegida las funciones marcadas")
        )
        self.roles_button.clicked.connect(self.set_roles)
        chosen_form = QFormLayout()
        for label_text, field in (
            (self.tr("Contraseña nue&va:"), self.reset_password),
            (self.tr("R&epita:"), self.reset_repeat),
        ):
            label = QLabel(label_text)
            label.setBuddy(field)
            chosen_form.addRow(label, field)
        chosen_form.addRow(self.tr("Funciones:"), chosen_roles_row)
        chosen_buttons = QHBoxLayout()
        for button in (
            self.password_button,
            self.active_button,
            self.unlock_button,
            self.roles_button,
        ):
            chosen_buttons.addWidget(button)
        chosen_form.addRow(chosen_buttons)
        chosen_box = QGroupBox(self.tr("Cuenta elegida"))
        chosen_box.setAccessibleName(self.tr("Cuenta elegida"))
        chosen_box.setLayout(chosen_form)

        self.error = error_label(self.tr("Mensaje"))
        self.info = QLabel("")
        self.info.setObjectName("info")
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.info.setAccessibleName(self.tr("Resultado"))
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.setAccessibleName(self.tr("Cerrar"))
        close_button = close.button(QDialogButtonBox.StandardButton.Close)
        close_button.setText(self.tr("Cerrar"))
        close_button.setAccessibleName(self.tr("Cerrar el diálogo"))
        close.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(chosen_box)
        layout.addWidget(add_box)
        layout.addWidget(self.error)
        layout.addWidget(self.info)
        layout.addWidget(close)
        self.resize(820, 640)
        self._selection_changed()
        self.refresh()

    # -- the list ----------------------------------------------------------------------
    def refresh(self) -> None:
        self._run(self._accounts.accounts, self._fill)

    def _fill(self, accounts: list[Account]) -> None:
        chosen = self.chosen()
        keep = chosen.username if chosen is not None else ""
        self._shown = sorted(accounts, key=lambda a: a.username)
        self.table.setRowCount(len(self._shown))
        now = self._clock.now() if self._clock is not None else None
        for row, account in enumerate(self._shown):
            locked = account.locked_until
            if now is not None and locked is not None and not account.locked_at(now):
                locked = None
            cells = (
                _clean(account.username, 32),
                _clean(account.display_name),
                ", ".join(role_label(r) for r in Role if r in account.roles),
                self.tr("sí") if account.active else self.tr("no"),
                _madrid(locked),
            )
            for column, value in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(value))
            if account.username == keep:
                self.table.selectRow(row)
        self.table.resizeColumnsToContents()
        self._selection_changed()

    def shown_accounts(self) -> list[Account]:
        return list(self._shown)

    def chosen(self) -> Account | None:
        row = self.table.currentRow()
        selected = self.table.selectionModel().selectedRows() if self.table.model() else []
        if not selected or not 0 <= row < len(self._shown):
            return None
        return self._shown[row]

    def select(self, username: str) -> bool:
        for row, account in enumerate(self._shown):
            if account.username == username:
                self.table.selectRow(row)
                return True
        return False

    def _selection_changed(self) -> None:
        account = self.chosen()
        for button in (
            self.password_button,
            self.active_button,
            self.unlock_button,
            self.roles_button,
        ):
            button.setEnabled(account is not None)
        if account is not None:
            self.active_button.setText(
                self.tr("&Desactivar") if account.active else self.tr("&Activar")
            )
            for role, check in self.chosen_roles.items():
                check.setChecked(role in account.roles)

    # -- the changes -------------------------------------------------------------------
    def _refuse(self, code: str) -> None:
        self.info.clear()
        self.error.setText(text(code, self._lang))

    def _run(self, job: Callable[[], T], done: Callable[[T], None]) -> None:
        self.error.clear()

        def failed(error: AdmissionError) -> None:
            self.info.clear()
            self.error.setText(error_text(error, self._lang, self.tr("Bloqueada hasta las %1.")))

        self._runner.submit(job, done, failed)

    def _changed(self, info: str) -> None:
        self.info.setText(info)
        self.accounts_changed.emit()
        self.refresh()

    def _role_row(self, accessible: str) -> tuple[dict[Role, QCheckBox], QHBoxLayout]:
        checks: dict[Role, QCheckBox] = {}
        row = QHBoxLayout()
        for role in Role:
            check = QCheckBox(role_label(role))
            check.setAccessibleName(accessible.replace("%1", role_label(role)))
            checks[role] = check
            row.addWidget(check)
        return checks, row

    @staticmethod
    def _roles(checks: dict[Role, QCheckBox]) -> list[Role]:
        return [role for role, check in checks.items() if check.isChecked()]

    def create_account(self) -> None:
        password, repeat = self.new_password.text(), self.new_repeat.text()
        self.new_password.clear()
        self.new_repeat.clear()
        if password != repeat:
            self._refuse(DialogCode.PASSWORDS_DIFFER)
            self.new_password.setFocus()
            return
        username, name, roles = (
            self.new_username.text(),
            self.new_name.text(),
            self._roles(self.role_checks),
        )
        accounts, actor = self._accounts, self._actor

        def done(account: Account) -> None:
            self.new_username.clear()
            self.new_name.clear()
            self._changed(self.tr("Cuenta %1 creada").replace("%1", _clean(account.username, 32)))

        self._run(
            lambda: accounts.create_account(username, name, password, roles, actor=actor), done
        )

    def set_password(self) -> None:
        account = self.chosen()
        password, repeat = self.reset_password.text(), self.reset_repeat.text()
        self.reset_password.clear()
        self.reset_repeat.clear()
        if account is None:
            self._refuse(DialogCode.SELECTION_REQUIRED)
            return
        if password != repeat:
            self._refuse(DialogCode.PASSWORDS_DIFFER)
            self.reset_password.setFocus()
            return
        accounts, actor, username = self._accounts, self._actor, account.username
        self._run(
            lambda: accounts.set_password(username, password, actor=actor),
            lambda _none: self._changed(
                self.tr("Contraseña de %1 cambiada").replace("%1", _clean(username, 32))
            ),
        )

    def toggle_active(self) -> None:
        account = self.chosen()
        if account is None:
            self._refuse(DialogCode.SELECTION_REQUIRED)
            return
        accounts, actor, username = self._accounts, self._actor, account.username
        active = not account.active
        info = self.tr("Cuenta %1 activada") if active else self.tr("Cuenta %1 desactivada")
        self._run(
            lambda: accounts.set_active(username, active, actor=actor),
            lambda _account: self._changed(info.replace("%1", _clean(username, 32))),
        )

    def clear_lockout(self) -> None:
        account = self.chosen()
        if account is None:
            self._refuse(DialogCode.SELECTION_REQUIRED)
            return
        accounts, actor, username = self._accounts, self._actor, account.username
        self._run(
            lambda: accounts.clear_lockout(username, actor=actor),
            lambda _account: self._changed(
                self.tr("Bloqueo de %1 quitado").replace("%1", _clean(username, 32))
            ),
        )

    def set_roles(self) -> None:
        account = self.chosen()
        if account is None:
            self._refuse(DialogCode.SELECTION_REQUIRED)
            return
        accounts, actor, username, roles = (
            self._accounts,
            self._actor,
            account.username,
            self._roles(self.chosen_roles),
        )
        self._run(
            lambda: accounts.set_roles(username, roles, actor=actor),
            lambda _account: self._changed(
                self.tr("Funciones de %1 cambiadas").replace("%1", _clean(username, 32))
            ),
        )

"""The operator's own quick-unlock PIN (art. 20.3: only the operator who locked the desk
opens it again).

A desk left idle locks itself; its operator opens it with a short PIN instead of the
whole password (ui.desk.dialogs.sign_in.UnlockDialog), and a director confirms an act at
their own desk with it (ui.desk.dialogs.authorise). A sign-in always takes the password. The
operator sets, changes or removes the PIN here, with the password at that moment: a
desk left open does not let anybody give its operator a PIN. The rules and the argon2id
hash are :meth:`admission.accounts.AccountService.set_pin`'s.

Object names for tests: ``password``, ``pin``, ``repeat``, ``save``, ``remove``,
``cancel``, ``error``.
"""

from __future__ import annotations

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from admission.accounts import AccountService, Operator
from admission.errors import AdmissionError
from ui.cli.account import AccountCliCode
from ui.desk.dialogs.common import ErrorLine, plain_label
from ui.desk.dialogs.sign_in import has_pin, on_enter, password_field, secret_as_pin

__all__ = ["PinDialog"]


def _pin_field(name: str, accessible: str) -> QLineEdit:
    """A hidden field that takes digits only, at most 8 (admission.accounts.PIN)."""
    field = QLineEdit()
    field.setObjectName(name)
    field.setEchoMode(QLineEdit.EchoMode.Password)
    field.setAccessibleName(accessible)
    secret_as_pin(field, True)
    return field


class PinDialog(QDialog):
    """Enter saves the PIN typed twice; "Quitar el PIN" removes it. The secrets never
    stay in the widgets after an attempt."""

    def __init__(
        self, accounts: AccountService, operator: Operator, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._accounts = accounts
        self._operator = operator
        self.changed: bool | None = None  # True: a PIN set; False: removed
        self.setWindowTitle(self.tr("Mi PIN de desbloqueo"))
        self.setAccessibleName(self.windowTitle())
        self.setMinimumWidth(460)
        intro = QLabel(
            self.tr(
                "Con el PIN (de 4 a 8 cifras) usted desbloquea el puesto que se bloqueó en "
                "su sesión. Para iniciar sesión se pide siempre la contraseña. Tres PIN "
                "erróneos y se pide la contraseña."
            )
        )
        intro.setWordWrap(True)
        who = plain_label(operator.display_name or operator.username, name=self.tr("Operador"))
        self.password = password_field(self.tr("Contraseña actual"))
        self.pin = _pin_field("pin", self.tr("Nuevo PIN"))
        self.repeat = _pin_field("repeat", self.tr("Repita el PIN"))
        self.errors = ErrorLine()
        self.errors.setObjectName("error")

        form = QFormLayout()
        form.addRow(self.tr("Operador:"), who)
        for text, field in (
            (self.tr("&Contraseña actual:"), self.password),
            (self.tr("&Nuevo PIN:"), self.pin),
            (self.tr("&Repita el PIN:"), self.repeat),
        ):
            label = QLabel(text)
            label.setBuddy(field)
            form.addRow(label, field)

        self.save_button = QPushButton(self.tr("&Guardar el PIN"))
        self.save_button.setObjectName("save")
        self.save_button.setAccessibleName(self.tr("Guardar el PIN"))
        self.save_button.setDefault(True)
        self.remove_button = QPushButton(self.tr("&Quitar el PIN"))
        self.remove_button.setObjectName("remove")
        self.remove_button.setAccessibleName(self.tr("Quitar el PIN"))
        self.remove_button.setAutoDefault(False)
        self.remove_button.setVisible(has_pin(accounts, operator.username))
        self.cancel_button = QPushButton(self.tr("Cancelar"))
        self.cancel_button.setObjectName("cancel")
        self.cancel_button.setAccessibleName(self.tr("Cancelar sin cambiar nada"))
        self.cancel_button.setAutoDefault(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.save_button)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.errors)
        layout.addLayout(buttons)
        on_enter(self.password, self.pin.setFocus)
        on_enter(self.pin, self.repeat.setFocus)
        on_enter(self.repeat, self.save)
        self.save_button.clicked.connect(self.save)
        self.remove_button.clicked.connect(self.remove)
        self.cancel_button.clicked.connect(self.reject)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.password.setFocus()

    def save(self) -> None:
        if self.pin.text() != self.repeat.text():
            self._clear()
            self.errors.show_code(AccountCliCode.PINS_DIFFER)
            self.pin.setFocus()
            return
        self._apply(self.pin.text())

    def remove(self) -> None:
        self._apply(None)

    def _apply(self, pin: str | None) -> None:
        try:
            self._accounts.set_pin(self._operator, self.password.text(), pin)
        except AdmissionError as exc:
            self._clear()
            self.errors.show_error(exc)
            self.password.setFocus()
            return
        self._clear()
        self.changed = pin is not None
        self.accept()

    def _clear(self) -> None:
        for field in (self.password, self.pin, self.repeat):
            field.clear()

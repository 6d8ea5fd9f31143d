"""The game director's own credentials for a director's decision.

Art. 20.3 makes the game director answer for the admission service and art. 23.5 lets
the director issue an exceptional card under named responsibility: such an act needs
the director's credentials at that moment - never a clerk's session. So while a clerk
(or anybody without the DIRECTOR role) is signed in, the director types their own user
name and password. A director who is the one signed in confirms the act with their
password or their PIN: the user name is filled in and cannot be changed (nobody types
their own name again), and the secret is still asked, so an open session alone decides
nothing. The checks and their audit entries (AUTHORISED / AUTHORISATION_FAILED with the
purpose, ``mode: pin`` for a PIN) are :meth:`admission.accounts.AccountService.authorise`
and :meth:`~admission.accounts.AccountService.authorise_with_pin`; an account without the
DIRECTOR role is refused (ROLE_REQUIRED), administrators included; three wrong PINs and
the password is asked.

The window calls :func:`ask_director`; tests drive :class:`DirectorDialog` (object
names ``username``, ``password``, ``submit``, ``cancel``, ``error``, ``purpose``,
``use_password``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from admission.accounts import AccountService, Operator, Role
from admission.catalogue import text
from admission.errors import AdmissionError
from ui.desk.dialogs.sign_in import (
    PASSWORD_ONLY,
    CredentialsDialog,
    has_pin,
    plain_label,
    secret_as_pin,
)

__all__ = ["DirectorDialog", "ask_director"]


class DirectorDialog(CredentialsDialog):
    """Accepted with :attr:`operator` = the director who authenticated just now."""

    def __init__(
        self,
        accounts: AccountService,
        purpose: str,
        parent: QWidget | None = None,
        *,
        description: str = "",
        lang: str = "es",
        signed_in: Operator | None = None,
    ) -> None:
        super().__init__(parent, lang=lang)
        self._accounts = accounts
        self._purpose = purpose
        # the director at their own desk: the name is theirs, only the secret is asked
        self.own = signed_in if signed_in is not None and signed_in.has(Role.DIRECTOR) else None
        self.pin_mode = False
        self.setWindowTitle(self.tr("Autorización del director de juegos"))
        self.setMinimumWidth(420)
        intro = QLabel(
            self.tr(
                "Decisión bajo la responsabilidad del director de juegos (art. 20.3 y 23.5). "
                "El director introduce sus propias credenciales."
            )
            if self.own is None
            else self.tr(
                "Decisión bajo su responsabilidad de director de juegos (art. 20.3 y 23.5). "
                "Confírmela con su PIN o su contraseña."
            )
        )
        # what is decided: the caller's translated words, else the code's catalogue text
        shown = description or (text(purpose, lang) if text(purpose, lang) != purpose else "")
        self.purpose_label = plain_label(shown, "purpose", 100)
        self.purpose_label.setAccessibleName(self.tr("Motivo de la autorización"))
        self.purpose_label.setWordWrap(True)
        self.purpose_label.setVisible(bool(shown))
        self._build(
            intro=intro,
            extra=self.purpose_label,
            user_label=self.tr("&Director:"),
            user_name=self.tr("Usuario del director"),
            password_name=self.tr("Contraseña del director"),
            error_name=self.tr("Error de autorización"),
            submit=self.tr("&Autorizar"),
            submit_name=self.tr("Autorizar"),
        )
        self.mode_button = QPushButton()
        self.mode_button.setObjectName("use_password")
        self.mode_button.setAutoDefault(False)
        self.mode_button.setVisible(False)
        self.mode_button.clicked.connect(lambda: self._use_pin(not self.pin_mode))
        layout = self.layout()
        if isinstance(layout, QVBoxLayout):  # under the secret, above the error line
            layout.insertWidget(layout.indexOf(self.error), self.mode_button)
        if self.own is not None:
            self.username.setText(self.own.username)
            self.username.setReadOnly(True)
            self.username.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            pin = has_pin(accounts, self.own.username)
            self.mode_button.setVisible(pin)
            self._use_pin(pin)

    def _use_pin(self, pin: bool) -> None:
        self.pin_mode = pin
        secret_as_pin(self.password, pin)
        self.password_label.setText(self.tr("&PIN:") if pin else self.tr("&Contraseña:"))
        self.password.setAccessibleName(
            self.tr("PIN del director") if pin else self.tr("Contraseña del director")
        )
        self.mode_button.setText(self.tr("Usar la contr&aseña") if pin else self.tr("Usar el P&IN"))
        self.password.setFocus()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        (self.password if self.own is not None else self.username).setFocus()

    def _check(self, username: str, password: str) -> Operator:
        if self.own is not None and self.pin_mode:
            return self._accounts.authorise_with_pin(
                self.own, password, Role.DIRECTOR, self._purpose
            )
        if self.own is not None:
            username = self.own.username  # never another name at the director's own desk
        return self._accounts.authorise(username, password, Role.DIRECTOR, self._purpose)

    def _refused(self, exc: AdmissionError) -> None:
        super()._refused(exc)
        if self.pin_mode and exc.code in PASSWORD_ONLY:
            message = self.error.text()
            self._use_pin(False)
            self.mode_button.setVisible(False)  # the password now
            self.error.setText(message)


def ask_director(
    parent: QWidget | None,
    accounts: AccountService,
    purpose: str,
    *,
    description: str = "",
    lang: str = "es",
    signed_in: Operator | None = None,
) -> Operator | None:
    """Ask the game director's own credentials for ``purpose`` (a short code such as
    ``EXCEPTIONAL_CARD``, 1-80 characters, written to the audit entry); ``description``
    is what the dialog shows of it (translated by the caller; default: the code's
    catalogue text when it has one). ``signed_in``: who works the desk now; a director
    confirms with their PIN or password, the name filled in. None when cancelled."""
    dialog = DirectorDialog(
        accounts, purpose, parent, description=description, lang=lang, signed_in=signed_in
    )
    try:
        accepted = dialog.exec() == QDialog.DialogCode.Accepted.value
        return dialog.operator if accepted else None
    finally:
        dialog.deleteLater()

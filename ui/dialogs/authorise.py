"""The game director's own credentials for a director's decision.

Art. 20.3 makes the game director answer for the admission service and art. 23.5 lets
the director issue an exceptional card under named responsibility: such an act needs
the director's user name and password at that moment - never the clerk's session, so
the fields are never prefilled from whoever is signed in. The check and its audit entry
(AUTHORISED / AUTHORISATION_FAILED with the purpose) are
:meth:`admission.accounts.AccountService.authorise`; an account without the DIRECTOR
role is refused (ROLE_REQUIRED), administrators included.

The window calls :func:`ask_director`; tests drive :class:`DirectorDialog` (object
names ``username``, ``password``, ``submit``, ``cancel``, ``error``, ``purpose``).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from admission.accounts import AccountService, Operator, Role
from admission.catalogue import text
from admission.errors import AdmissionError
from ui.dialogs.sign_in import error_label, error_text, password_field, plain_label, username_field

__all__ = ["DirectorDialog", "ask_director"]


class DirectorDialog(QDialog):
    """Accepted with :attr:`operator` = the director who authenticated just now."""

    def __init__(
        self,
        accounts: AccountService,
        purpose: str,
        parent: QWidget | None = None,
        *,
        description: str = "",
        lang: str = "es",
    ) -> None:
        super().__init__(parent)
        self._accounts = accounts
        self._purpose = purpose
        self._lang = lang
        self.operator: Operator | None = None
        self.setWindowTitle(self.tr("Autorización del director de juegos"))
        self.setModal(True)
        self.setMinimumWidth(420)
        intro = QLabel(
            self.tr(
                "Decisión bajo la responsabilidad del director de juegos (art. 20.3 y 23.5). "
                "El director introduce sus propias credenciales."
            )
        )
        intro.setWordWrap(True)
        # what is decided: the caller's translated words, else the code's catalogue text
        shown = description or (text(purpose, lang) if text(purpose, lang) != purpose else "")
        self.purpose_label = plain_label(shown, "purpose", 100)
        self.purpose_label.setAccessibleName(self.tr("Motivo de la autorización"))
        self.purpose_label.setWordWrap(True)
        self.purpose_label.setVisible(bool(shown))
        self.username = username_field(self.tr("Usuario del director"))
        self.password = password_field(self.tr("Contraseña del director"))
        self.error = error_label(self.tr("Error de autorización"))
        self.submit_button = QPushButton(self.tr("&Autorizar"))
        self.submit_button.setObjectName("submit")
        self.submit_button.setAccessibleName(self.tr("Autorizar"))
        self.submit_button.setDefault(True)
        self.cancel_button = QPushButton(self.tr("Cancelar"))
        self.cancel_button.setObjectName("cancel")
        self.cancel_button.setAccessibleName(self.tr("Cancelar"))
        form = QFormLayout()
        user_label = QLabel(self.tr("&Director:"))
        pass_label = QLabel(self.tr("&Contraseña:"))
        user_label.setBuddy(self.username)
        pass_label.setBuddy(self.password)
        form.addRow(user_label, self.username)
        form.addRow(pass_label, self.password)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.submit_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.purpose_label)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        QWidget.setTabOrder(self.username, self.password)
        QWidget.setTabOrder(self.password, self.submit_button)
        QWidget.setTabOrder(self.submit_button, self.cancel_button)
        self.username.returnPressed.connect(self.password.setFocus)
        self.password.returnPressed.connect(self.submit)
        self.submit_button.clicked.connect(self.submit)
        self.cancel_button.clicked.connect(self.reject)
        self.username.setFocus()

    def submit(self) -> None:
        try:
            self.operator = self._accounts.authorise(
                self.username.text(), self.password.text(), Role.DIRECTOR, self._purpose
            )
        except AdmissionError as exc:
            self.error.setText(error_text(exc, self._lang, self.tr("Bloqueada hasta las %1.")))
            self.password.setFocus()
            return
        finally:
            self.password.clear()
        self.error.clear()
        self.accept()


def ask_director(
    parent: QWidget | None,
    accounts: AccountService,
    purpose: str,
    *,
    description: str = "",
    lang: str = "es",
) -> Operator | None:
    """Ask the game director's own credentials for ``purpose`` (a short code such as
    ``EXCEPTIONAL_CARD``, 1-80 characters, written to the audit entry); ``description``
    is what the dialog shows of it (translated by the caller; default: the code's
    catalogue text when it has one). None when cancelled."""
    dialog = DirectorDialog(accounts, purpose, parent, description=description, lang=lang)
    try:
        accepted = dialog.exec() == QDialog.DialogCode.Accepted.value
        return dialog.operator if accepted else None
    finally:
        dialog.deleteLater()

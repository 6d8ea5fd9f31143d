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

from PySide6.QtWidgets import QDialog, QLabel, QWidget

from admission.accounts import AccountService, Operator, Role
from admission.catalogue import text
from ui.dialogs.sign_in import CredentialsDialog, plain_label

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
    ) -> None:
        super().__init__(parent, lang=lang)
        self._accounts = accounts
        self._purpose = purpose
        self.setWindowTitle(self.tr("Autorización del director de juegos"))
        self.setMinimumWidth(420)
        intro = QLabel(
            self.tr(
                "Decisión bajo la responsabilidad del director de juegos (art. 20.3 y 23.5). "
                "El director introduce sus propias credenciales."
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

    def _check(self, username: str, password: str) -> Operator:
        return self._accounts.authorise(username, password, Role.DIRECTOR, self._purpose)


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

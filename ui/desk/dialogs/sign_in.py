"""Signing in at the desk, and opening a locked desk (art. 20.3: every admission names
the operator who signed in; the game director answers for the service).

* :class:`SignInDialog`: user name and password; a refusal shows the code's text from
  :mod:`admission.catalogue` (the same words for an unknown user and a wrong password),
  a locked account says until when.
* :class:`UnlockDialog`: the desk locked itself; the same operator types only the
  password, or the short PIN when they set one (the quick unlock: three wrong PINs and
  the dialog asks for the password). "Cambiar de operador" signs that operator out
  instead (then sign in anew). Escape does not close it: the desk stays locked.

The widgets have object names (``username``, ``password``, ``submit``, ``error``,
``switch``, ``operator_name``, ``use_password``) and the logic is in :meth:`submit` /
:meth:`UnlockDialog.switch_operator`, so tests drive them with key clicks and clicks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QRegularExpression, Qt
from PySide6.QtGui import QCloseEvent, QKeyEvent, QRegularExpressionValidator
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

from admission.accounts import MAX_PASSWORD, AccountError, AccountErrorCode, Operator
from admission.catalogue import text
from admission.errors import AdmissionError
from ui.desk.session import DeskSession

__all__ = [
    "PASSWORD_ONLY",
    "PIN_DIGITS",
    "CredentialsDialog",
    "SignInDialog",
    "UnlockDialog",
    "error_label",
    "error_text",
    "on_enter",
    "password_field",
    "plain_label",
    "username_field",
]

MADRID = ZoneInfo("Europe/Madrid")
PIN_DIGITS = 8  # admission.accounts.PIN: 4 to 8 digits
MAX_SHOWN = 80
# the refusals after which only the password is asked: three wrong PINs, or no PIN set
PASSWORD_ONLY = (AccountErrorCode.PIN_ATTEMPTS_EXHAUSTED, AccountErrorCode.PIN_NOT_SET)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def plain_label(value: str, name: str, limit: int = MAX_SHOWN) -> QLabel:
    """A label that shows ``value`` as plain text, control characters removed, bounded."""
    label = QLabel(_CONTROL.sub("", value)[:limit])
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setObjectName(name)
    label.setAccessibleName(name)
    return label


def username_field(accessible: str) -> QLineEdit:
    field = QLineEdit()
    field.setObjectName("username")
    field.setMaxLength(32)  # admission.accounts.USERNAME
    field.setAccessibleName(accessible)
    return field


def password_field(accessible: str) -> QLineEdit:
    field = QLineEdit()
    field.setObjectName("password")
    field.setEchoMode(QLineEdit.EchoMode.Password)
    field.setMaxLength(MAX_PASSWORD)
    field.setAccessibleName(accessible)
    return field


class _EnterKey(QObject):
    """Enter in a field does one thing: ``action``, the key consumed. A line edit lets
    Enter go on to the dialog, whose default button would submit a second time - two
    audited failures (and two of the three PIN attempts) for one key press."""

    def __init__(self, field: QLineEdit, action: Callable[[], object]) -> None:
        super().__init__(field)
        self._action = action

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        enter = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if (
            isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and (event.key() in enter)
        ):
            self._action()
            return True
        return False


def on_enter(field: QLineEdit, action: Callable[[], object]) -> None:
    """Enter (either key) in ``field`` runs ``action`` once, and nothing else."""
    field.installEventFilter(_EnterKey(field, action))


def secret_as_pin(field: QLineEdit, pin: bool) -> None:
    """The secret field takes a PIN (digits only, at most 8) or a password."""
    field.clear()
    if pin:
        field.setMaxLength(PIN_DIGITS)
        field.setValidator(QRegularExpressionValidator(QRegularExpression("[0-9]{0,8}"), field))
        field.setInputMethodHints(Qt.InputMethodHint.ImhDigitsOnly)
    else:
        field.setValidator(None)  # type: ignore[arg-type]  # Qt takes None: no validator
        field.setMaxLength(MAX_PASSWORD)
        field.setInputMethodHints(Qt.InputMethodHint.ImhNone)


def has_pin(accounts: object, username: str) -> bool:
    """Whether ``username`` set a PIN; a store that cannot answer means the password."""
    check = getattr(accounts, "has_pin", None)
    if check is None:
        return False
    try:
        return bool(check(username))
    except AdmissionError:
        return False


def error_label(accessible: str) -> QLabel:
    label = QLabel("")
    label.setObjectName("error")
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setAccessibleName(accessible)
    label.setProperty("role", "error")  # the theme colours it
    return label


def error_text(exc: AdmissionError, lang: str, until: str) -> str:
    """The catalogue's text of the refusal; a locked account adds ``until`` (already
    translated, with ``%1`` standing for the Madrid time)."""
    message = text(str(exc.code), lang)
    locked_until = getattr(exc, "locked_until", None)
    if exc.code == AccountErrorCode.ACCOUNT_LOCKED and isinstance(locked_until, datetime):
        message += "\n" + until.replace("%1", locked_until.astimezone(MADRID).strftime("%H:%M"))
    return message


class CredentialsDialog(QDialog):
    """A user name and a password checked just now, accepted with :attr:`operator` set:
    the sign-in, and a director's or an administrator's own credentials for one act.
    Subclasses give their words (in their own translation context) to :meth:`_build`
    and the check to :meth:`_check`; the password never stays in the widget."""

    def __init__(self, parent: QWidget | None = None, *, lang: str = "es") -> None:
        super().__init__(parent)
        self._lang = lang
        self.operator: Operator | None = None
        self.setModal(True)

    def _build(
        self,
        *,
        intro: QLabel,
        user_label: str,
        user_name: str,
        password_name: str,
        error_name: str,
        submit: str,
        submit_name: str,
        extra: QWidget | None = None,
    ) -> None:
        """The form: ``intro`` (and ``extra`` under it), user and password, the error
        line, Cancel and the default button; Enter moves from the user to the password
        and submits from there."""
        intro.setWordWrap(True)
        self.username = username_field(user_name)
        self.password = password_field(password_name)
        self.error = error_label(error_name)
        self.submit_button = QPushButton(submit)
        self.submit_button.setObjectName("submit")
        self.submit_button.setAccessibleName(submit_name)
        self.submit_button.setDefault(True)
        cancel = QCoreApplication.translate("CredentialsDialog", "Cancelar")
        self.cancel_button = QPushButton(cancel)
        self.cancel_button.setObjectName("cancel")
        self.cancel_button.setAccessibleName(cancel)
        form = QFormLayout()
        user, word = (
            QLabel(user_label),
            QLabel(QCoreApplication.translate("CredentialsDialog", "&Contraseña:")),
        )
        user.setBuddy(self.username)
        word.setBuddy(self.password)
        self.password_label = word
        form.addRow(user, self.username)
        form.addRow(word, self.password)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.submit_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        if extra is not None:
            layout.addWidget(extra)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        QWidget.setTabOrder(self.username, self.password)
        QWidget.setTabOrder(self.password, self.submit_button)
        QWidget.setTabOrder(self.submit_button, self.cancel_button)
        on_enter(self.username, self.password.setFocus)
        on_enter(self.password, self.submit)
        self.submit_button.clicked.connect(self.submit)
        self.cancel_button.clicked.connect(self.reject)
        self.username.setFocus()

    def _check(self, username: str, password: str) -> Operator:
        raise NotImplementedError

    def submit(self) -> None:
        try:
            self.operator = self._check(self.username.text(), self.password.text())
        except AdmissionError as exc:
            self._refused(exc)
            return
        finally:
            self.password.clear()  # never kept in the widget after an attempt
        self.error.clear()
        self.accept()

    def _refused(self, exc: AdmissionError) -> None:
        until = QCoreApplication.translate("CredentialsDialog", "Bloqueada hasta las %1.")
        self.error.setText(error_text(exc, self._lang, until))
        self.password.setFocus()


class SignInDialog(CredentialsDialog):
    """User name and password; accepted with :attr:`operator` set."""

    def __init__(
        self, session: DeskSession, parent: QWidget | None = None, *, lang: str = "es"
    ) -> None:
        super().__init__(parent, lang=lang)
        self._session = session
        self.setWindowTitle(self.tr("Iniciar sesión"))
        self.setMinimumWidth(380)
        self._build(
            intro=QLabel(self.tr("Identifíquese para trabajar en el puesto de admisión.")),
            user_label=self.tr("&Usuario:"),
            user_name=self.tr("Usuario"),
            password_name=self.tr("Contraseña"),
            error_name=self.tr("Error de inicio de sesión"),
            submit=self.tr("&Entrar"),
            submit_name=self.tr("Entrar"),
        )

    def _check(self, username: str, password: str) -> Operator:
        return self._session.sign_in(username, password)

    def _refused(self, exc: AdmissionError) -> None:
        super()._refused(exc)
        if exc.code == AccountErrorCode.ACCOUNT_LOCKED or not self.username.text().strip():
            self.username.setFocus()


class UnlockDialog(QDialog):
    """The locked operator's password opens the desk; :meth:`switch_operator` signs
    them out instead (result :data:`SWITCHED`)."""

    SWITCHED = 2

    def __init__(
        self, session: DeskSession, parent: QWidget | None = None, *, lang: str = "es"
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._lang = lang
        self.operator: Operator | None = None
        locked = session.locked_operator
        if locked is None:
            raise AccountError("nothing is locked", code=AccountErrorCode.NOT_SIGNED_IN)
        self.setWindowTitle(self.tr("Puesto bloqueado"))
        self.setModal(True)
        self.setMinimumWidth(380)
        intro = QLabel(self.tr("El puesto se ha bloqueado. Solo su operador puede abrirlo:"))
        intro.setWordWrap(True)
        self.operator_name = plain_label(locked.display_name, "operator_name")
        self.operator_name.setAccessibleName(self.tr("Operador del puesto"))
        self.password = password_field(self.tr("Contraseña"))
        self.error = error_label(self.tr("Error al desbloquear"))
        # the quick unlock: the operator's PIN when they set one, else the password
        self.pin_mode = has_pin(session.accounts, locked.username)
        self.mode_button = QPushButton()
        self.mode_button.setObjectName("use_password")
        self.mode_button.setAutoDefault(False)
        self.mode_button.setVisible(self.pin_mode)
        self.mode_button.clicked.connect(lambda: self._use_pin(not self.pin_mode))
        self.submit_button = QPushButton(self.tr("&Desbloquear"))
        self.submit_button.setObjectName("submit")
        self.submit_button.setAccessibleName(self.tr("Desbloquear"))
        self.submit_button.setDefault(True)
        self.switch_button = QPushButton(self.tr("Cambiar de &operador"))
        self.switch_button.setObjectName("switch")
        self.switch_button.setAccessibleName(self.tr("Cambiar de operador"))
        self.switch_button.setAutoDefault(False)
        form = QFormLayout()
        self.secret_label = QLabel()
        self.secret_label.setBuddy(self.password)
        form.addRow(self.secret_label, self.password)
        form.addRow("", self.mode_button)
        buttons = QHBoxLayout()
        buttons.addWidget(self.switch_button)
        buttons.addStretch(1)
        buttons.addWidget(self.submit_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.operator_name)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        QWidget.setTabOrder(self.password, self.submit_button)
        QWidget.setTabOrder(self.submit_button, self.switch_button)
        on_enter(self.password, self.submit)
        self.submit_button.clicked.connect(self.submit)
        self.switch_button.clicked.connect(self.switch_operator)
        self._use_pin(self.pin_mode)
        self.password.setFocus()

    def _use_pin(self, pin: bool) -> None:
        """The secret asked: the PIN, or the password (after three wrong PINs, always)."""
        self.pin_mode = pin
        secret_as_pin(self.password, pin)
        self.secret_label.setText(self.tr("&PIN:") if pin else self.tr("&Contraseña:"))
        self.password.setAccessibleName(self.tr("PIN") if pin else self.tr("Contraseña"))
        self.mode_button.setText(self.tr("Usar la contr&aseña") if pin else self.tr("Usar el P&IN"))
        self.password.setFocus()

    def submit(self) -> None:
        secret = self.password.text()
        try:
            if self.pin_mode:
                self.operator = self._session.unlock_with_pin(secret)
            else:
                self.operator = self._session.unlock(secret)
        except AdmissionError as exc:
            self.password.clear()
            if exc.code in PASSWORD_ONLY:
                self._use_pin(False)
                self.mode_button.setVisible(False)  # the password now, until it opens
            self.error.setText(error_text(exc, self._lang, self.tr("Bloqueada hasta las %1.")))
            self.password.setFocus()
            return
        self.password.clear()
        self.error.clear()
        self.accept()

    def switch_operator(self) -> None:
        """Another person takes the desk: the locked operator is signed out."""
        self._session.sign_out("switch")
        self.done(self.SWITCHED)

    def reject(self) -> None:
        """Escape leaves the desk locked: unlock or change operator."""

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.result() in (QDialog.DialogCode.Accepted.value, self.SWITCHED):
            event.accept()
        else:
            event.ignore()

"""The visitor file's passphrase at the start, on a computer without an OS keyring
(the key of the encrypted file, art. 20.4: chosen in the first-run wizard). It is kept
in the program's memory only. A wrong one opens nothing and changes nothing: the dialog
says so and asks again. Enter opens; Esc (or "Salir") leaves the program."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from admission.errors import StoreErrorCode
from admission.passphrase import MAX_LENGTH
from ui.desk.dialogs.common import ErrorLine

__all__ = ["PassphraseDialog"]


class PassphraseDialog(QDialog):
    def __init__(self, *, wrong: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Fichero de visitantes"))
        self.setAccessibleName(self.windowTitle())
        info = QLabel(
            self.tr(
                "Escriba la frase de paso del fichero de visitantes (la que se eligió al "
                "instalar el programa). Sin ella el fichero no se puede abrir."
            )
        )
        info.setWordWrap(True)
        info.setAccessibleName(self.tr("Explicación de la frase de paso"))
        self.field = QLineEdit()
        self.field.setObjectName("passphrase")
        self.field.setEchoMode(QLineEdit.EchoMode.Password)
        self.field.setMaxLength(MAX_LENGTH)
        self.field.setAccessibleName(self.tr("Frase de paso del fichero"))
        self.errors = ErrorLine()
        if wrong:
            self.errors.show_code(StoreErrorCode.WRONG_KEY)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.open_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.open_button.setText(self.tr("&Abrir"))
        self.open_button.setAccessibleName(self.tr("Abrir el fichero"))
        self.open_button.setDefault(True)
        quit_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        quit_button.setText(self.tr("&Salir"))
        quit_button.setAccessibleName(self.tr("Salir del programa"))
        quit_button.setAutoDefault(False)  # Enter opens, never quits
        buttons.accepted.connect(self._open)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow(self.tr("&Frase de paso:"), self.field)
        layout = QVBoxLayout(self)
        layout.addWidget(info)
        layout.addLayout(form)
        layout.addWidget(self.errors)
        layout.addWidget(buttons)
        self.setMinimumWidth(460)
        self.field.setFocus()

    def _open(self) -> None:
        if not self.field.text():
            self.field.setFocus()
            return
        self.accept()

    def passphrase(self) -> str:
        return self.field.text()

    def clear(self) -> None:
        """The passphrase leaves the widget once it has been handed over."""
        self.field.clear()

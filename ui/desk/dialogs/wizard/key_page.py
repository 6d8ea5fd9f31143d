"""The wizard's first page: the visitor file and its key (art. 20.3: the file is
encrypted; art. 20.4: creating it is an explicit act, it never starts over on its own).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWizardPage,
)

from admission.errors import AdmissionError, ConfigError, StoreErrorCode
from admission.passphrase import MAX_LENGTH, passphrase_problem
from ui.desk.dialogs.common import (
    DialogCode,
    ErrorLine,
    plain_label,
)
from ui.desk.dialogs.wizard.page_tools import (
    advance,
    focus_forward,
    password_edit,
)
from ui.desk.jobs import JobRunner
from ui.desk.text import bounded, message


class KeyPage(QWizardPage):
    def __init__(
        self,
        runner: JobRunner,
        create_file: Callable[[], str],
        existing_file: str = "",
        passphrase: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        self._runner = runner
        self._create_file = create_file
        self._give_passphrase = passphrase
        self._busy = False
        self._next_after = False
        self.file_id = existing_file
        self.setTitle(self.tr("1. El fichero de visitantes y su clave"))
        self.setAccessibleName(self.title())
        if passphrase is None:
            explanation = self.tr(
                "El fichero de visitantes (art. 20.3) se guarda cifrado. Al crearlo se genera "
                "una clave que se guarda en el llavero del sistema operativo, nunca en un "
                "archivo junto al fichero. Sin esa clave el fichero no se puede abrir: haga "
                "una copia de seguridad del llavero. El fichero se crea una sola vez."
            )
        else:
            explanation = self.tr(
                "El fichero de visitantes (art. 20.3) se guarda cifrado. Este equipo no tiene "
                "llavero del sistema operativo: la clave es una frase de paso que usted "
                "elige ahora y que se pedirá cada vez que se abra el programa. Use cuatro "
                "palabras o más, o al menos 12 caracteres mezclando mayúsculas, minúsculas, "
                "cifras y signos. El fichero se crea una sola vez."
            )
        info = QLabel(explanation)
        info.setWordWrap(True)
        info.setAccessibleName(self.tr("Explicación de la clave del fichero"))
        self.passphrase = password_edit(self.tr("Frase de paso del fichero"), MAX_LENGTH)
        self.repeat = password_edit(self.tr("Repita la frase de paso"), MAX_LENGTH)
        self.strength = plain_label(name=self.tr("Solidez de la frase de paso"))
        self.warning = QLabel(
            self.tr(
                "LA FRASE DE PASO NO SE PUEDE RECUPERAR. Nadie, tampoco el fabricante, "
                "puede abrir el fichero sin ella: si se pierde, se pierden los datos de "
                "los visitantes. Escríbala en papel y guárdela en la caja fuerte."
            )
        )
        self.warning.setWordWrap(True)
        self.warning.setObjectName("passphraseWarning")
        self.warning.setStyleSheet("font-weight: bold; color: #ffb347;")
        self.warning.setAccessibleName(self.tr("Aviso: la frase de paso no se puede recuperar"))
        self.understood = QCheckBox(
            self.tr(
                "He &guardado la frase de paso en un lugar seguro y sé que no se puede recuperar"
            )
        )
        self.understood.setAccessibleName(self.understood.text().replace("&", ""))
        self.create_button = QPushButton(self.tr("&Crear el fichero y su clave"))
        self.create_button.setAccessibleName(self.tr("Crear el fichero de visitantes"))
        self.create_button.setAutoDefault(False)  # Enter is the wizard's: Next
        self.create_button.clicked.connect(self.create_file)
        self.done_label = plain_label(name=self.tr("Fichero creado"))
        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addWidget(info)
        if passphrase is not None:
            form = QFormLayout()
            form.addRow(self.tr("&Frase de paso:"), self.passphrase)
            form.addRow(self.tr("&Repita la frase:"), self.repeat)
            form.addRow("", self.strength)
            layout.addLayout(form)
            layout.addWidget(self.warning)
            layout.addWidget(self.understood)
            self.passphrase.textChanged.connect(self._rate)
        else:
            for widget in (self.passphrase, self.repeat, self.strength):
                widget.hide()
            self.warning.hide()
            self.understood.hide()
        layout.addWidget(self.create_button)
        layout.addWidget(self.done_label)
        layout.addWidget(self.errors)
        layout.addStretch(1)
        self.setCommitPage(True)  # no way back: the file exists
        if existing_file:
            self._created(existing_file, already=True)

    @property
    def asks_passphrase(self) -> bool:
        return self._give_passphrase is not None

    def initializePage(self) -> None:  # Qt override
        if self.file_id:
            QTimer.singleShot(0, self, lambda: focus_forward(self))
        elif self.asks_passphrase:
            QTimer.singleShot(0, self, self.passphrase.setFocus)
        else:
            QTimer.singleShot(0, self, lambda: focus_forward(self))

    def _rate(self, text: str) -> None:
        if not text:
            self.strength.setText("")
            return
        problem = passphrase_problem(text)
        self.strength.setText(
            message(problem) if problem is not None else self.tr("Frase de paso aceptable")
        )

    def isComplete(self) -> bool:
        """Next is always there (Enter makes the file, then goes on), except while the
        file is being made."""
        return bool(self.file_id) or not self._busy

    def validatePage(self) -> bool:
        if self.file_id:
            return True
        self._next_after = True  # Next pressed: go on once the file is made
        self.create_file()
        return False

    def _passphrase_refused(self) -> bool:
        """The passphrase typed, checked before the file is made; True when refused
        (the field in question has the focus)."""
        text = self.passphrase.text()
        if not text:
            self.errors.show_code(DialogCode.FIELD_REQUIRED)
            self.passphrase.setFocus()
            return True
        problem = passphrase_problem(text)
        if problem is not None:
            self.errors.show_code(problem)
            self.passphrase.setFocus()
            self.passphrase.selectAll()
            return True
        if text != self.repeat.text():
            self.errors.show_code(DialogCode.PASSWORDS_DIFFER)
            self.repeat.setFocus()
            self.repeat.selectAll()
            return True
        if not self.understood.isChecked():
            required = ConfigError("", code=DialogCode.FIELD_REQUIRED)
            self.errors.show_error(required, self.tr("Marque la casilla de la frase de paso"))
            self.understood.setFocus()
            return True
        return False

    def create_file(self) -> None:
        if self.file_id or self._busy:
            return
        if self._give_passphrase is not None:
            if self._passphrase_refused():
                self._next_after = False
                return
            self._give_passphrase(self.passphrase.text())
        self._busy = True
        self.completeChanged.emit()
        self.create_button.setEnabled(False)
        self.errors.clear_message()

        def done(file_id: str) -> None:
            self._busy = False
            self._created(file_id)

        def failed(error: AdmissionError) -> None:
            self._busy = False
            self._next_after = False
            self.completeChanged.emit()
            if error.code == StoreErrorCode.FILE_EXISTS:
                # init never overwrites (art. 20.4): the folder's file is used as it is;
                # opening it for the administrator checks it is this desk's file (and,
                # without a keyring, that the passphrase typed is its passphrase)
                self._created("", already=True)
                return
            self.create_button.setEnabled(True)
            self.errors.show_error(error)

        self._runner.submit(self._create_file, done, failed)

    def _created(self, file_id: str, *, already: bool = False) -> None:
        self.file_id = file_id or "existing"
        self.create_button.setEnabled(False)
        for widget in (self.passphrase, self.repeat, self.understood):
            widget.setEnabled(False)
        self.passphrase.clear()  # the passphrase is not kept in the widget
        self.repeat.clear()
        if already:
            self.done_label.setText(self.tr("El fichero de visitantes ya existe: se usa ese"))
        else:
            self.done_label.setText(
                self.tr("Fichero creado: %1").replace("%1", bounded(file_id, 80))
            )
        self.completeChanged.emit()
        focus_forward(self)  # never Cancel: the disabled button gives its focus away
        if self._next_after:
            advance(self)

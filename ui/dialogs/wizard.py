"""The first run: create the visitor file and its key, the administrator, the casino's
data and the card printer.

1. The file's key: the visitor file (art. 20.3) is encrypted; its key is made once and
   kept in the operating system's keyring, never in a file beside it. Creating the file
   is an explicit act (art. 20.4: the file never starts over on its own). A folder whose
   file was made before (``main.py init``) keeps it: ``init`` answers FILE_EXISTS and the
   wizard goes on to the administrator (or the caller passes ``existing_file``).
2. The administrator: the first account (user name, name, password twice).
3. The casino's data: name, id, address, logo, opening hours (art. 27), card types and
   prices (art. 23.2-3).
4. The card printer, with its preflight.

Every value is validated by :mod:`admission.settings` before the settings file is
written; a refused value shows the catalogue's text and the page does not advance.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from admission.errors import AdmissionError, ConfigError, StoreErrorCode
from admission.settings import Settings
from ui.dialogs.common import (
    DialogCode,
    ErrorLine,
    apply_settings,
    bounded,
    plain_label,
    show_refusal,
)
from ui.dialogs.printer import PrinterCheck, PrinterFields
from ui.dialogs.settings import CardTypesEditor, CasinoFields, FieldGroup, HoursFields
from ui.jobs import JobRunner

__all__ = ["AdminPage", "CasinoPage", "FirstRunWizard", "KeyPage", "PrinterPage"]

MAX_PASSWORD = 256


def _advance(page: QWizardPage) -> None:
    """Go to the next page once the current job has answered."""
    wizard = page.wizard()
    if wizard is not None:
        QTimer.singleShot(0, wizard.next)


class KeyPage(QWizardPage):
    def __init__(
        self, runner: JobRunner, create_file: Callable[[], str], existing_file: str = ""
    ) -> None:
        super().__init__()
        self._runner = runner
        self._create_file = create_file
        self._busy = False
        self._next_after = False
        self.file_id = existing_file
        self.setTitle(self.tr("1. El fichero de visitantes y su clave"))
        self.setAccessibleName(self.title())
        info = QLabel(
            self.tr(
                "El fichero de visitantes (art. 20.3) se guarda cifrado. Al crearlo se genera "
                "una clave que se guarda en el llavero del sistema operativo, nunca en un "
                "archivo junto al fichero. Sin esa clave el fichero no se puede abrir: haga "
                "una copia de seguridad del llavero. El fichero se crea una sola vez."
            )
        )
        info.setWordWrap(True)
        info.setAccessibleName(self.tr("Explicación de la clave del fichero"))
        self.create_button = QPushButton(self.tr("&Crear el fichero y su clave"))
        self.create_button.setAccessibleName(self.tr("Crear el fichero de visitantes"))
        self.create_button.clicked.connect(self.create_file)
        self.done_label = plain_label(name=self.tr("Fichero creado"))
        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addWidget(info)
        layout.addWidget(self.create_button)
        layout.addWidget(self.done_label)
        layout.addWidget(self.errors)
        layout.addStretch(1)
        self.setCommitPage(True)  # no way back: the file exists
        if existing_file:
            self._created(existing_file, already=True)

    def isComplete(self) -> bool:
        return bool(self.file_id)

    def validatePage(self) -> bool:
        if self.file_id:
            return True
        self._next_after = True  # Next pressed: go on once the file is made
        self.create_file()
        return False

    def create_file(self) -> None:
        if self.file_id or self._busy:
            return
        self._busy = True
        self.create_button.setEnabled(False)
        self.errors.clear_message()

        def done(file_id: str) -> None:
            self._busy = False
            self._created(file_id)

        def failed(error: AdmissionError) -> None:
            self._busy = False
            if error.code == StoreErrorCode.FILE_EXISTS:
                # init never overwrites (art. 20.4): the folder's file is used as it is;
                # opening it for the administrator checks it is this desk's file
                self._created("", already=True)
                return
            self.create_button.setEnabled(True)
            self.errors.show_error(error)

        self._runner.submit(self._create_file, done, failed)

    def _created(self, file_id: str, *, already: bool = False) -> None:
        self.file_id = file_id or "existing"
        self.create_button.setEnabled(False)
        if already:
            self.done_label.setText(self.tr("El fichero de visitantes ya existe: se usa ese"))
        else:
            self.done_label.setText(
                self.tr("Fichero creado: %1").replace("%1", bounded(file_id, 80))
            )
        self.completeChanged.emit()
        if self._next_after:
            _advance(self)


class AdminPage(QWizardPage):
    def __init__(self, runner: JobRunner, create_admin: Callable[[str, str, str], object]) -> None:
        super().__init__()
        self._runner = runner
        self._create_admin = create_admin
        self._busy = False
        self.created = False
        self.setTitle(self.tr("2. El administrador"))
        self.setAccessibleName(self.title())
        info = QLabel(
            self.tr(
                "El administrador gestiona las cuentas, la configuración y los dispositivos. "
                "No decide admisiones: el director de juegos tendrá su propia cuenta."
            )
        )
        info.setWordWrap(True)
        info.setAccessibleName(self.tr("Explicación de la cuenta de administrador"))
        self.username = QLineEdit()
        self.username.setAccessibleName(self.tr("Usuario del administrador"))
        self.username.setMaxLength(64)
        self.display_name = QLineEdit()
        self.display_name.setAccessibleName(self.tr("Nombre del administrador"))
        self.display_name.setMaxLength(120)
        self.password = QLineEdit()
        self.password.setAccessibleName(self.tr("Contraseña"))
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setMaxLength(MAX_PASSWORD)
        self.repeat = QLineEdit()
        self.repeat.setAccessibleName(self.tr("Repita la contraseña"))
        self.repeat.setEchoMode(QLineEdit.EchoMode.Password)
        self.repeat.setMaxLength(MAX_PASSWORD)
        self.errors = ErrorLine()
        form = QFormLayout(self)
        form.addRow(info)
        form.addRow(self.tr("&Usuario:"), self.username)
        form.addRow(self.tr("&Nombre:"), self.display_name)
        form.addRow(self.tr("&Contraseña:"), self.password)
        form.addRow(self.tr("&Repita la contraseña:"), self.repeat)
        form.addRow(self.errors)
        self.setCommitPage(True)

    def validatePage(self) -> bool:
        if self.created:
            return True
        if self._busy:
            return False
        username = self.username.text().strip()
        name = " ".join(self.display_name.text().split())
        password = self.password.text()
        if not username or not name or not password:
            self.errors.show_code(DialogCode.FIELD_REQUIRED)
            return False
        if password != self.repeat.text():
            self.errors.show_code(DialogCode.PASSWORDS_DIFFER)
            return False
        self._busy = True
        self.errors.clear_message()

        def done(_: object) -> None:
            self._busy = False
            self.created = True
            self.password.clear()
            self.repeat.clear()
            for edit in (self.username, self.display_name, self.password, self.repeat):
                edit.setEnabled(False)
            _advance(self)

        def failed(error: AdmissionError) -> None:
            self._busy = False
            self.errors.show_error(error)

        create = self._create_admin
        self._runner.submit(lambda: create(username, name, password), done, failed)
        return False


class CasinoPage(QWizardPage):
    def __init__(self, settings: Settings, settings_path: Path) -> None:
        super().__init__()
        self._settings = settings
        self._path = settings_path
        self.setTitle(self.tr("3. Los datos del casino"))
        self.setAccessibleName(self.title())
        self.casino = CasinoFields()
        self.hours = HoursFields()
        self.cards = CardTypesEditor()
        for group in (self.casino, self.hours, self.cards):
            group.load(settings)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName(self.tr("Datos del casino"))
        self.tabs.addTab(self.casino, self.tr("&Casino"))
        self.tabs.addTab(self.hours, self.tr("&Horario"))
        self.tabs.addTab(self.cards, self.tr("&Tarjetas y precios"))
        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.errors)

    def validatePage(self) -> bool:
        values: dict[str, Any] = {}
        groups: tuple[FieldGroup, ...] = (self.casino, self.hours, self.cards)
        try:
            for index, group in enumerate(groups):
                try:
                    values.update(group.values())
                except ConfigError:
                    self.tabs.setCurrentIndex(index)
                    raise
            apply_settings(self._settings, values, self._path)
        except ConfigError as err:
            field = show_refusal(self.errors, err, self.tabs)
            for index, group in enumerate(groups):
                if field is not None and isinstance(group, QWidget) and group.isAncestorOf(field):
                    self.tabs.setCurrentIndex(index)
            return False
        self.errors.clear_message()
        return True


class PrinterPage(QWizardPage):
    def __init__(
        self,
        settings: Settings,
        settings_path: Path,
        runner: JobRunner,
        preflight: PrinterCheck | None,
    ) -> None:
        super().__init__()
        self._settings = settings
        self._path = settings_path
        self.setTitle(self.tr("4. La impresora de tarjetas"))
        self.setAccessibleName(self.title())
        self.fields = PrinterFields(runner, preflight)
        self.fields.load(settings)
        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addWidget(self.fields)
        layout.addWidget(self.errors)
        layout.addStretch(1)

    def validatePage(self) -> bool:
        try:
            apply_settings(self._settings, self.fields.values(), self._path)
        except ConfigError as err:
            show_refusal(self.errors, err, self.fields)
            return False
        return True


class FirstRunWizard(QWizard):
    """The first start of the desk: file and key, administrator, casino, printer."""

    def __init__(
        self,
        settings: Settings,
        settings_path: Path,
        runner: JobRunner,
        *,
        create_file: Callable[[], str],
        create_admin: Callable[[str, str, str], object],
        preflight: PrinterCheck | None = None,
        existing_file: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Primera puesta en marcha"))
        self.setAccessibleName(self.windowTitle())
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        for button, label in (
            (QWizard.WizardButton.BackButton, self.tr("< &Atrás")),
            (QWizard.WizardButton.NextButton, self.tr("&Siguiente >")),
            (QWizard.WizardButton.CommitButton, self.tr("&Siguiente >")),
            (QWizard.WizardButton.FinishButton, self.tr("&Terminar")),
            (QWizard.WizardButton.CancelButton, self.tr("Cancelar")),
        ):
            self.setButtonText(button, label)
            widget = self.button(button)
            if widget is not None:
                widget.setAccessibleName(label.replace("&", ""))
        self.key_page = KeyPage(runner, create_file, existing_file)
        self.admin_page = AdminPage(runner, create_admin)
        self.casino_page = CasinoPage(settings, settings_path)
        self.printer_page = PrinterPage(settings, settings_path, runner, preflight)
        for page in (self.key_page, self.admin_page, self.casino_page, self.printer_page):
            self.addPage(page)
        self.resize(820, 600)

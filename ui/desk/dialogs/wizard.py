"""The first run: create the visitor file and its key, the administrator, the game
director, the casino's data, the RIAJ register and the card printer - at the end the
desk can admit its first visitor.

1. The file's key: the visitor file (art. 20.3) is encrypted. With an OS keyring its key
   is made once and kept there, never in a file beside it. Without one, the key is a
   passphrase the person chooses (typed twice, checked by :mod:`admission.passphrase`,
   stated to be unrecoverable, acknowledged); it is asked at each start. Creating the
   file is an explicit act (art. 20.4: the file never starts over on its own). A folder
   whose file was made before (``main.py init``) keeps it: ``init`` answers FILE_EXISTS
   and the wizard goes on (or the caller passes ``existing_file``).
2. The administrator: the first account (user name, name, password twice).
3. The game director (director de juegos): decides the exceptional cases (art. 23.5),
   keeps the bans (art. 21.2-3) and works the desk.
4. The casino's data: name, id, address, logo, opening hours (art. 27), card types and
   prices (art. 23.2-3). Nothing invented is filled in: the casino's name, its id and
   the prices are the casino's to type.
5. The RIAJ (art. 20.2): a copy imported from a file, or the online service; then a
   test query, which must be answered before the wizard goes on (R1: without it every
   visitor would be refused).
6. The card printer, with its preflight.

Every value is validated by :mod:`admission.settings` before the settings file is
written; a refused value shows the catalogue's text and the page does not advance.
Enter always moves forward (the default button is Next, or Finish); Cancel never takes
Enter. Each page puts the cursor in its first field to fill.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from admission.cards.catalogue import DEFAULT_CARD_TYPES
from admission.errors import AdmissionError, ConfigError, StoreErrorCode
from admission.passphrase import MAX_LENGTH, passphrase_problem
from admission.registry.port import RegistryAnswer, RegistryStatus
from admission.settings import BY_KEY, Settings
from ui.desk.dialogs.common import (
    DialogCode,
    ErrorLine,
    apply_settings,
    buddy_label,
    plain_label,
    show_refusal,
)
from ui.desk.dialogs.printer import PrinterCheck, PrinterFields
from ui.desk.dialogs.settings import CardTypesEditor, CasinoFields, FieldGroup, HoursFields
from ui.desk.jobs import JobRunner
from ui.desk.text import bounded, local_time, message

__all__ = [
    "AccountPage",
    "AdminPage",
    "CasinoPage",
    "DirectorPage",
    "FirstRunWizard",
    "KeyPage",
    "PrinterPage",
    "RegistryImported",
    "RegistryPage",
]

MAX_PASSWORD = 256
# the one card type a new casino starts from: its price is the casino's to type
FIRST_CARD_TYPE: dict[str, Any] = {
    "code": "DAY",
    "label_es": "Entrada de un día",
    "label_en": "One-day entry",
    "kind": "STANDARD",
    "validity_days": 1,
}


def _advance(page: QWizardPage) -> None:
    """Go to the next page once the current job has answered."""
    wizard = page.wizard()
    if wizard is not None:
        QTimer.singleShot(0, wizard.next)


def _forward_button(page: QWizardPage) -> QAbstractButton | None:
    """The button Enter presses on ``page``: Finish, Commit or Next."""
    wizard = page.wizard()
    if wizard is None:
        return None
    if page.isFinalPage() or wizard.nextId() == -1:
        kind = QWizard.WizardButton.FinishButton
    elif page.isCommitPage():
        kind = QWizard.WizardButton.CommitButton
    else:
        kind = QWizard.WizardButton.NextButton
    return wizard.button(kind)


def _focus_forward(page: QWizardPage) -> None:
    button = _forward_button(page)
    if button is not None and button.isVisible():
        button.setFocus()


def _password_edit(name: str, max_length: int = MAX_PASSWORD) -> QLineEdit:
    edit = QLineEdit()
    edit.setAccessibleName(name)
    edit.setEchoMode(QLineEdit.EchoMode.Password)
    edit.setMaxLength(max_length)
    return edit


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
        self.passphrase = _password_edit(self.tr("Frase de paso del fichero"), MAX_LENGTH)
        self.repeat = _password_edit(self.tr("Repita la frase de paso"), MAX_LENGTH)
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
            QTimer.singleShot(0, self, lambda: _focus_forward(self))
        elif self.asks_passphrase:
            QTimer.singleShot(0, self, self.passphrase.setFocus)
        else:
            QTimer.singleShot(0, self, lambda: _focus_forward(self))

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
        _focus_forward(self)  # never Cancel: the disabled button gives its focus away
        if self._next_after:
            _advance(self)


class AccountPage(QWizardPage):
    """An account made by the wizard: user name, name, password twice."""

    def __init__(
        self,
        runner: JobRunner,
        create: Callable[[str, str, str], object],
        title: str,
        explanation: str,
        who: str,
    ) -> None:
        super().__init__()
        self._runner = runner
        self._create = create
        self._busy = False
        self.created = False
        self.setTitle(title)
        self.setAccessibleName(title)
        info = QLabel(explanation)
        info.setWordWrap(True)
        info.setAccessibleName(self.tr("Explicación de la cuenta"))
        self.username = QLineEdit()
        self.username.setAccessibleName(self.tr("Usuario: %1").replace("%1", who))
        self.username.setMaxLength(64)
        self.display_name = QLineEdit()
        self.display_name.setAccessibleName(self.tr("Nombre: %1").replace("%1", who))
        self.display_name.setMaxLength(120)
        self.password = _password_edit(self.tr("Contraseña"))
        self.repeat = _password_edit(self.tr("Repita la contraseña"))
        self.errors = ErrorLine()
        form = QFormLayout(self)
        form.addRow(info)
        form.addRow(self.tr("&Usuario:"), self.username)
        form.addRow(self.tr("&Nombre y apellidos:"), self.display_name)
        form.addRow(self.tr("&Contraseña:"), self.password)
        form.addRow(self.tr("&Repita la contraseña:"), self.repeat)
        form.addRow(self.errors)
        self.setCommitPage(True)

    def initializePage(self) -> None:  # Qt override
        if self.created:
            QTimer.singleShot(0, self, lambda: _focus_forward(self))
        else:
            QTimer.singleShot(0, self, self.username.setFocus)

    def validatePage(self) -> bool:
        if self.created:
            return True
        if self._busy:
            return False
        username = self.username.text().strip()
        name = " ".join(self.display_name.text().split())
        password = self.password.text()
        for edit, value in (
            (self.username, username),
            (self.display_name, name),
            (self.password, password),
        ):
            if not value:  # Enter in a field moves on to the first one left to fill
                self.errors.show_code(DialogCode.FIELD_REQUIRED)
                edit.setFocus()
                return False
        if password != self.repeat.text():
            self.errors.show_code(DialogCode.PASSWORDS_DIFFER)
            self.repeat.setFocus()
            self.repeat.selectAll()
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
            self.password.setFocus()

        create = self._create
        self._runner.submit(lambda: create(username, name, password), done, failed)
        return False


class AdminPage(AccountPage):
    def __init__(self, runner: JobRunner, create_admin: Callable[[str, str, str], object]) -> None:
        super().__init__(
            runner,
            create_admin,
            self.tr("2. El administrador"),
            self.tr(
                "El administrador gestiona las cuentas, la configuración y los dispositivos. "
                "No decide admisiones: el director de juegos tendrá su propia cuenta."
            ),
            self.tr("administrador"),
        )


class DirectorPage(AccountPage):
    def __init__(
        self, runner: JobRunner, create_director: Callable[[str, str, str], object]
    ) -> None:
        super().__init__(
            runner,
            create_director,
            self.tr("3. El director de juegos"),
            self.tr(
                "El director de juegos responde del servicio de admisión: autoriza las "
                "tarjetas excepcionales (art. 23.5), lleva la lista de prohibiciones "
                "(art. 21.2-3) y puede trabajar en el puesto. Con su cuenta se admite al "
                "primer visitante; las cuentas del personal de recepción se crean después "
                "en Administración > Cuentas."
            ),
            self.tr("director de juegos"),
        )


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
        self._leave_out_invented(settings)
        self.casino.name.setPlaceholderText(self.tr("El nombre que figura en las tarjetas"))
        self.casino.casino_id.setPlaceholderText(self.tr("p. ej. las iniciales del casino"))
        self.tabs = QTabWidget()
        self.tabs.setUsesScrollButtons(False)
        self.tabs.setAccessibleName(self.tr("Datos del casino"))
        self.tabs.addTab(self.casino, self.tr("&Casino"))
        self.tabs.addTab(self.hours, self.tr("&Horario"))
        self.tabs.addTab(self.cards, self.tr("&Tarjetas y precios"))
        note = QLabel(
            self.tr(
                "Escriba el precio de cada tipo de tarjeta (art. 23.2-3): el programa no "
                "trae precios. El horario puede dejarse para más tarde (Configuración)."
            )
        )
        note.setWordWrap(True)
        note.setAccessibleName(self.tr("Aviso sobre los precios"))
        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(note)
        layout.addWidget(self.errors)

    def _leave_out_invented(self, settings: Settings) -> None:
        """No invented value is offered: the declared defaults of the casino's name and
        id, and the example card types' prices, are the demo's, not this casino's."""
        for key, edit in (("casino.name", self.casino.name), ("casino.id", self.casino.casino_id)):
            if settings[key] == BY_KEY[key].default:
                edit.clear()
        if settings["cards.types"] == [dict(t) for t in DEFAULT_CARD_TYPES]:
            self.cards.load(
                Settings({"cards.types": [dict(FIRST_CARD_TYPE)], "cards.default": "DAY"})
            )
            price = self.cards.table.item(0, 4)
            if price is not None:
                price.setText("")  # the casino's price, typed (art. 23.2)

    def initializePage(self) -> None:  # Qt override
        self.tabs.setCurrentIndex(0)
        QTimer.singleShot(0, self, self.casino.name.setFocus)

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        """The tabs measured again once shown in the theme's style sheet (measured
        before it, the first tab's name was cut short)."""
        super().showEvent(event)
        QTimer.singleShot(0, self, self._measure_tabs)

    def _measure_tabs(self) -> None:
        bar = self.tabs.tabBar()
        for index in range(bar.count()):
            bar.setTabText(index, bar.tabText(index))

    def validatePage(self) -> bool:
        values: dict[str, Any] = {}
        groups: tuple[FieldGroup, ...] = (self.casino, self.hours, self.cards)
        if not self.casino.casino_id.text().strip():
            self.errors.show_error(
                ConfigError("", code=DialogCode.FIELD_REQUIRED), self.tr("Identificador")
            )
            self.tabs.setCurrentIndex(0)
            self.casino.casino_id.setFocus()
            return False
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


@dataclass(frozen=True, slots=True)
class RegistryImported:
    """What an imported RIAJ copy holds: its entries and when it was current."""

    entries: int
    as_of: datetime


class RegistryPage(QWizardPage):
    """The RIAJ (art. 20.2, R1): a copy imported from a file or the online service, and
    a test query that must be answered before the wizard goes on."""

    def __init__(
        self,
        settings: Settings,
        settings_path: Path,
        runner: JobRunner,
        import_registry: Callable[[Path], RegistryImported],
        test_registry: Callable[[], RegistryAnswer],
    ) -> None:
        super().__init__()
        self._settings = settings
        self._path = settings_path
        self._runner = runner
        self._import = import_registry
        self._test = test_registry
        self._busy = False
        self._next_after = False
        self.tested = False
        self.imported: RegistryImported | None = None
        self.setTitle(self.tr("5. El Registro de Interdicciones (RIAJ)"))
        self.setAccessibleName(self.title())
        info = QLabel(
            self.tr(
                "Cada visitante se comprueba en el RIAJ antes de entrar (art. 20.2). "
                "Importe la copia del registro que facilita la Comunidad de Madrid, o "
                "configure el servicio en línea. Después se hace una consulta de prueba: "
                "sin registro que responda, nadie puede ser admitido."
            )
        )
        info.setWordWrap(True)
        info.setAccessibleName(self.tr("Explicación del registro"))
        self.use_file = QRadioButton(self.tr("Importar una &copia del registro (archivo)"))
        self.use_online = QRadioButton(self.tr("Usar el servicio en &línea del RIAJ"))
        for radio in (self.use_file, self.use_online):
            radio.setAccessibleName(radio.text().replace("&", ""))
        self.mode = QButtonGroup(self)
        self.mode.addButton(self.use_file)
        self.mode.addButton(self.use_online)
        self.file = QLineEdit()
        self.file.setAccessibleName(self.tr("Archivo de la copia del RIAJ"))
        self.file.setMaxLength(1000)
        self.browse = QPushButton(self.tr("E&xaminar…"))
        self.browse.setAccessibleName(self.tr("Elegir el archivo de la copia del RIAJ"))
        self.browse.setAutoDefault(False)
        self.browse.clicked.connect(self._choose_file)
        self.url = QLineEdit()
        self.url.setAccessibleName(self.tr("Dirección del servicio del RIAJ"))
        self.url.setMaxLength(500)
        self.url.setPlaceholderText("https://")
        self.username = QLineEdit()
        self.username.setAccessibleName(self.tr("Usuario del RIAJ"))
        self.username.setMaxLength(120)
        # the regulator's certificates (files); the secrets stay in the OS keyring
        self.ca_file = QLineEdit()
        self.ca_file.setAccessibleName(self.tr("Certificados de la autoridad (CA) del RIAJ"))
        self.client_cert = QLineEdit()
        self.client_cert.setAccessibleName(self.tr("Certificado de cliente (PEM)"))
        self.client_key = QLineEdit()
        self.client_key.setAccessibleName(self.tr("Clave privada del cliente (PEM)"))
        for edit in (self.ca_file, self.client_cert, self.client_key):
            edit.setMaxLength(1000)
            edit.setPlaceholderText(self.tr("Ruta del archivo (si el RIAJ lo pide)"))
        self.test_button = QPushButton(self.tr("&Probar"))
        self.test_button.setAccessibleName(self.tr("Probar el registro"))
        self.test_button.setAutoDefault(False)  # Enter is Next, which tests too
        self.test_button.clicked.connect(self.run_test)
        self.result = plain_label(name=self.tr("Resultado de la prueba del registro"))
        self.errors = ErrorLine()
        file_row = QHBoxLayout()
        file_row.addWidget(self.file, 1)
        file_row.addWidget(self.browse)
        form = QFormLayout()
        form.addRow(self.use_file)
        form.addRow(buddy_label(self.tr("&Archivo:"), self.file), file_row)
        form.addRow(self.use_online)
        form.addRow(self.tr("&Dirección:"), self.url)
        form.addRow(self.tr("&Usuario:"), self.username)
        form.addRow(self.tr("CA del ser&vicio:"), self.ca_file)
        form.addRow(self.tr("Certificado de clie&nte:"), self.client_cert)
        form.addRow(self.tr("Clave del client&e:"), self.client_key)
        layout = QVBoxLayout(self)
        layout.addWidget(info)
        layout.addLayout(form)
        layout.addWidget(self.test_button)
        layout.addWidget(self.result)
        layout.addWidget(self.errors)
        layout.addStretch(1)
        online = bool(settings["registry.online_url"])
        (self.use_online if online else self.use_file).setChecked(True)
        self.url.setText(settings["registry.online_url"])
        self.username.setText(settings["registry.username"])
        self.ca_file.setText(settings["registry.ca_file"])
        self.client_cert.setText(settings["registry.client_cert"])
        self.client_key.setText(settings["registry.client_key"])
        self.online_fields = (
            self.url,
            self.username,
            self.ca_file,
            self.client_cert,
            self.client_key,
        )
        self.mode.buttonToggled.connect(self._mode_changed)
        for edit in (self.file, *self.online_fields):
            edit.textEdited.connect(self._changed)
        self._mode_changed()

    def _mode_changed(self, *_args: object) -> None:
        online = self.use_online.isChecked()
        self.file.setEnabled(not online)
        self.browse.setEnabled(not online)
        for edit in self.online_fields:
            edit.setEnabled(online)
        self._changed()

    def _changed(self, *_args: object) -> None:
        if self.tested:
            self.tested = False
            self.result.setText("")
            self.completeChanged.emit()

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Copia del RIAJ"), "", self.tr("Copias del RIAJ (*.txt *.csv *.riaj);;*")
        )
        if path:
            self.file.setText(path)
            self._changed()

    def initializePage(self) -> None:  # Qt override
        field = self.url if self.use_online.isChecked() else self.file
        QTimer.singleShot(0, self, field.setFocus)

    def isComplete(self) -> bool:
        """Next is there unless a test runs: pressed, it tests, then goes on."""
        return not self._busy

    def validatePage(self) -> bool:
        if self.tested:
            return True
        self._next_after = True  # Next pressed: test, then go on when answered
        self.run_test()
        return False

    def run_test(self) -> None:
        if self._busy:
            return
        self.errors.clear_message()
        self.result.setText("")
        online = self.use_online.isChecked()
        path = Path(self.file.text().strip()) if self.file.text().strip() else None
        if online and not self.url.text().strip():
            self._refuse(DialogCode.FIELD_REQUIRED, self.url)
            return
        if not online and path is None and self.imported is None:
            self._refuse(DialogCode.FIELD_REQUIRED, self.file)
            return
        values = {
            key: edit.text().strip() if online else ""
            for key, edit in (
                ("registry.online_url", self.url),
                ("registry.username", self.username),
                ("registry.ca_file", self.ca_file),
                ("registry.client_cert", self.client_cert),
                ("registry.client_key", self.client_key),
            )
        }
        try:
            apply_settings(self._settings, values, self._path)
        except ConfigError as err:
            show_refusal(self.errors, err, self)
            self._next_after = False
            return
        do_import = self._import
        do_test = self._test

        def job() -> tuple[RegistryImported | None, RegistryAnswer]:
            imported = do_import(path) if not online and path is not None else None
            return imported, do_test()

        self._busy = True
        self.completeChanged.emit()
        self.test_button.setEnabled(False)
        self.result.setText(self.tr("Consultando el registro…"))
        self._runner.submit(job, self._answered, self._failed)

    def _refuse(self, code: str, field: QWidget) -> None:
        self._next_after = False
        self.errors.show_code(code)
        field.setFocus()

    def _answered(self, answer: tuple[RegistryImported | None, RegistryAnswer]) -> None:
        self._busy = False
        self.test_button.setEnabled(True)
        imported, checked = answer
        if imported is not None:
            self.imported = imported
        lines = []
        if self.imported is not None and not self.use_online.isChecked():
            lines.append(
                self.tr("Copia importada: %1 inscripciones, al día de %2")
                .replace("%1", str(self.imported.entries))
                .replace("%2", local_time(self.imported.as_of))
            )
        if checked.status is RegistryStatus.UNVERIFIABLE:
            self._next_after = False
            self.result.setText("\n".join(lines))
            self.errors.show_code(checked.error or "REGISTRY_UNVERIFIABLE")
            self.completeChanged.emit()
            return
        lines.append(self.tr("Prueba superada: el registro responde."))
        self.result.setText("\n".join(lines))
        self.tested = True
        self.completeChanged.emit()
        _focus_forward(self)
        if self._next_after:
            self._next_after = False
            _advance(self)

    def _failed(self, error: AdmissionError) -> None:
        self._busy = False
        self._next_after = False
        self.test_button.setEnabled(True)
        self.result.setText("")
        self.errors.show_error(error)
        self.completeChanged.emit()


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
        for button in self.fields.findChildren(QPushButton):
            button.setAutoDefault(False)  # Enter finishes the wizard
        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addWidget(self.fields)
        layout.addWidget(self.errors)
        layout.addStretch(1)

    def initializePage(self) -> None:  # Qt override
        QTimer.singleShot(0, self, lambda: _focus_forward(self))

    def validatePage(self) -> bool:
        try:
            apply_settings(self._settings, self.fields.values(), self._path)
        except ConfigError as err:
            show_refusal(self.errors, err, self.fields)
            return False
        return True


class FirstRunWizard(QWizard):
    """The first start of the desk: file and key, administrator, game director, casino,
    RIAJ register, printer."""

    def __init__(
        self,
        settings: Settings,
        settings_path: Path,
        runner: JobRunner,
        *,
        create_file: Callable[[], str],
        create_admin: Callable[[str, str, str], object],
        create_director: Callable[[str, str, str], object] | None = None,
        import_registry: Callable[[Path], RegistryImported] | None = None,
        test_registry: Callable[[], RegistryAnswer] | None = None,
        passphrase: Callable[[str], None] | None = None,
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
        cancel = self.button(QWizard.WizardButton.CancelButton)
        if isinstance(cancel, QPushButton):
            cancel.setAutoDefault(False)  # Enter never cancels, even with the focus on it
        self.key_page = KeyPage(runner, create_file, existing_file, passphrase)
        self.admin_page = AdminPage(runner, create_admin)
        self.director_page = (
            DirectorPage(runner, create_director) if create_director is not None else None
        )
        self.casino_page = CasinoPage(settings, settings_path)
        self.registry_page = (
            RegistryPage(settings, settings_path, runner, import_registry, test_registry)
            if import_registry is not None and test_registry is not None
            else None
        )
        self.printer_page = PrinterPage(settings, settings_path, runner, preflight)
        pages: list[QWizardPage] = [self.key_page, self.admin_page]
        if self.director_page is not None:
            pages.append(self.director_page)
        pages.append(self.casino_page)
        if self.registry_page is not None:
            pages.append(self.registry_page)
        pages.append(self.printer_page)
        self._renumber(pages)
        for page in pages:
            self.addPage(page)
        self.resize(1000, 680)

    def _renumber(self, pages: list[QWizardPage]) -> None:
        """The titles count the pages this wizard shows (1. to n.)."""
        for number, page in enumerate(pages, start=1):
            title = page.title()
            head, dot, rest = title.partition(". ")
            if dot and head.isdigit():
                page.setTitle(f"{number}. {rest}")
                page.setAccessibleName(page.title())

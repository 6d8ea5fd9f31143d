"""The wizard's RIAJ page (art. 20.2): a copy imported from a file, or the online
service; then a test query, which must be answered before the wizard goes on (R1:
without it every visitor would be refused).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from admission.errors import AdmissionError, ConfigError
from admission.registry.port import RegistryAnswer, RegistryStatus
from admission.settings import Settings
from ui.desk.dialogs.common import (
    DialogCode,
    ErrorLine,
    apply_settings,
    buddy_label,
    plain_label,
    show_refusal,
)
from ui.desk.dialogs.wizard.page_tools import (
    advance,
    focus_forward,
)
from ui.desk.jobs import JobRunner
from ui.desk.text import local_time


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
        focus_forward(self)
        if self._next_after:
            self._next_after = False
            advance(self)

    def _failed(self, error: AdmissionError) -> None:
        self._busy = False
        self._next_after = False
        self.test_button.setEnabled(True)
        self.result.setText("")
        self.errors.show_error(error)
        self.completeChanged.emit()

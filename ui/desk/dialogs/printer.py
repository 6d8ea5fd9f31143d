"""The card printer (art. 22: the entry card is printed at the desk): backend and queues,
with the printer's preflight answer shown before saving.

The choice is the game director's or an administrator's; it is validated and saved
through :mod:`admission.settings`, and the desk uses it from its next start. The
printer itself is built by the composition root: the dialog gets a ``PrinterCheck``
(backend, queue or folder -> preflight status) and never builds an adapter.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from admission.accounts import Operator, Role
from admission.devices import DeviceStatus
from admission.errors import AdmissionError
from admission.settings import Settings
from ui.desk.dialogs.common import (
    DialogCode,
    bind,
    buddy_label,
    plain_label,
)
from ui.desk.dialogs.scaffold import SettingsScreen, column
from ui.desk.jobs import JobRunner
from ui.desk.ops.settings import PrinterCheck, SettingsOps

__all__ = ["PRINTER_KEYS", "PrinterCheck", "PrinterDialog", "PrinterFields", "status_text"]

PRINTER_KEYS = (
    "printer.backend",
    "printer.card",
    "printer.receipt",
    "printer.leaflet",
    "printer.pdf_folder",
)
MAX_QUEUE = 127  # CUPS queue names are at most 127 characters


def status_text(status: DeviceStatus) -> str:
    return {
        DeviceStatus.READY: QCoreApplication.translate("Dialogs", "Preparada"),
        DeviceStatus.NOT_FOUND: QCoreApplication.translate("Dialogs", "No encontrada"),
        DeviceStatus.NO_MEDIA: QCoreApplication.translate("Dialogs", "Sin tarjetas o papel"),
        DeviceStatus.BUSY: QCoreApplication.translate("Dialogs", "Ocupada (los trabajos esperan)"),
        DeviceStatus.PAUSED: QCoreApplication.translate("Dialogs", "Cola detenida"),
        DeviceStatus.REJECTING: QCoreApplication.translate("Dialogs", "La cola no acepta trabajos"),
        DeviceStatus.LOST: QCoreApplication.translate("Dialogs", "Desconectada"),
        DeviceStatus.ERROR: QCoreApplication.translate("Dialogs", "Error de la impresora"),
    }.get(status, str(status))


def _queue_names() -> list[str]:
    try:
        from PySide6.QtPrintSupport import QPrinterInfo
    except ImportError:  # Qt built without print support
        return []
    return [str(name) for name in QPrinterInfo.availablePrinterNames()]


class PrinterFields(QWidget):
    """The printer settings (used by the printer dialog, the wizard and the settings)."""

    checked = Signal(str)  # the DeviceStatus value

    def __init__(
        self,
        runner: JobRunner,
        preflight: PrinterCheck | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._runner = runner
        self._preflight = preflight
        self.status: DeviceStatus | None = None
        queues = _queue_names()
        self.backend = QComboBox()
        self.backend.setAccessibleName(self.tr("Tipo de impresión"))
        self.backend.addItem(self.tr("Cola de impresión CUPS"), "cups")
        self.backend.addItem(self.tr("Impresora del sistema (Qt)"), "qt")
        self.backend.addItem(self.tr("Carpeta de PDF (sin impresora)"), "pdf-folder")
        self.card_queue = self._queue(self.tr("Cola de la impresora de tarjetas"), queues)
        self.receipt_queue = self._queue(self.tr("Cola de la impresora de volantes"), queues)
        self.leaflet_queue = self._queue(self.tr("Cola de la impresora del folleto"), queues)
        self.pdf_folder = QLineEdit()
        self.pdf_folder.setAccessibleName(self.tr("Carpeta de los PDF"))
        self.pdf_folder.setPlaceholderText(self.tr("Vacío = carpeta de datos/cards"))
        self.pdf_folder.setMaxLength(1000)
        self.browse = QPushButton(self.tr("E&xaminar…"))
        self.browse.setAccessibleName(self.tr("Elegir la carpeta de los PDF"))
        self.browse.clicked.connect(self._choose_folder)
        self.check_button = QPushButton(self.tr("&Comprobar la impresora"))
        self.check_button.setAccessibleName(self.tr("Comprobar el estado de la impresora"))
        self.check_button.setEnabled(preflight is not None)
        self.check_button.clicked.connect(self.check)
        self.status_label = plain_label(name=self.tr("Estado de la impresora"))
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.pdf_folder, 1)
        folder_row.addWidget(self.browse)
        check_row = QHBoxLayout()
        check_row.addWidget(self.check_button)
        check_row.addWidget(self.status_label, 1)
        form = QFormLayout(self)
        form.addRow(self.tr("&Impresión:"), self.backend)
        form.addRow(self.tr("Impresora de &tarjetas:"), self.card_queue)
        form.addRow(self.tr("Impresora de &volantes:"), self.receipt_queue)
        form.addRow(self.tr("Impresora del &folleto:"), self.leaflet_queue)
        form.addRow(buddy_label(self.tr("Carpeta de &PDF:"), self.pdf_folder), folder_row)
        form.addRow(check_row)
        self.backend.currentIndexChanged.connect(self._backend_changed)
        for widget, key in (
            (self.backend, "printer.backend"),
            (self.card_queue, "printer.card"),
            (self.receipt_queue, "printer.receipt"),
            (self.leaflet_queue, "printer.leaflet"),
            (self.pdf_folder, "printer.pdf_folder"),
        ):
            bind(widget, key)
        self._backend_changed()

    def _queue(self, name: str, queues: list[str]) -> QComboBox:
        box = QComboBox()
        box.setEditable(True)
        box.setAccessibleName(name)
        box.addItems(queues)
        box.setCurrentText("")
        line = box.lineEdit()
        if line is not None:
            line.setMaxLength(MAX_QUEUE)
        return box

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Carpeta de los PDF"))
        if folder:
            self.pdf_folder.setText(folder)

    def _backend_changed(self) -> None:
        pdf = self.backend.currentData() == "pdf-folder"
        self.pdf_folder.setEnabled(pdf)
        self.browse.setEnabled(pdf)
        self.card_queue.setEnabled(not pdf)
        self.status = None
        self.status_label.setText("")

    def load(self, settings: Settings) -> None:
        index = self.backend.findData(settings["printer.backend"])
        self.backend.setCurrentIndex(max(0, index))
        self.card_queue.setCurrentText(settings["printer.card"])
        self.receipt_queue.setCurrentText(settings["printer.receipt"])
        self.leaflet_queue.setCurrentText(settings["printer.leaflet"])
        self.pdf_folder.setText(settings["printer.pdf_folder"])

    def values(self) -> dict[str, Any]:
        return {
            "printer.backend": str(self.backend.currentData()),
            "printer.card": self.card_queue.currentText().strip(),
            "printer.receipt": self.receipt_queue.currentText().strip(),
            "printer.leaflet": self.leaflet_queue.currentText().strip(),
            "printer.pdf_folder": self.pdf_folder.text().strip(),
        }

    def check(self) -> None:
        preflight = self._preflight
        if preflight is None:
            return
        values = self.values()
        backend = values["printer.backend"]
        target = values["printer.pdf_folder"] if backend == "pdf-folder" else values["printer.card"]
        self.status_label.setText(self.tr("Comprobando…"))

        def done(status: DeviceStatus) -> None:
            self.status = status
            self.status_label.setText(status_text(status))
            self.checked.emit(status.value)

        def failed(error: AdmissionError) -> None:
            done(DeviceStatus.ERROR)

        self._runner.submit(lambda: preflight(backend, target), done, failed)


class PrinterDialog(SettingsScreen):
    """Choose the printers; the game director or an administrator only."""

    def __init__(
        self,
        ops: SettingsOps,
        operator: Operator | None,
        runner: JobRunner,
        *,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(ops, self.tr("Impresoras"), parent)
        self.fields = PrinterFields(runner, ops.preflight)
        self.fields.load(ops.settings)
        buttons = self._buttons(
            (
                self.tr("Guardar o cancelar"),
                self.tr("&Guardar"),
                self.tr("Guardar la impresora elegida"),
                self.tr("Cancelar"),
                self.tr("Cancelar sin guardar"),
            )
        )
        column(self, self.fields, self.errors, buttons)
        allowed = operator is not None and (operator.has(Role.DIRECTOR) or operator.has(Role.ADMIN))
        self._allow(allowed, self.fields, DialogCode.PRINTER_NEEDS_ROLE)

    def save(self) -> bool:
        return self._save(self.fields.values, self.fields)

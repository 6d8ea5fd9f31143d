"""Officials on duty (art. 24, R13): identity and capacity recorded; no card, no charge,
never admitted to play.

The official shows their document (read on screen) and states their capacity
("Inspector del juego de la Comunidad de Madrid", "Agente de la Policía Nacional"...):
the desk records the visit with the capacity and the verdict ``OFFICIAL``.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QPushButton, QWidget

from admission.desk import DeskDocument
from admission.records import RecordedAdmission
from ui.desk.dialogs.common import close_box, run_job
from ui.desk.dialogs.scaffold import DocumentDialog, column, notice
from ui.desk.jobs import JobRunner
from ui.desk.ops.official import OfficialOps

__all__ = ["MAX_CAPACITY", "OfficialDialog"]

MAX_CAPACITY = 120  # the desk refuses a longer capacity (OFFICIAL_NEEDS_CAPACITY)


class OfficialDialog(DocumentDialog[OfficialOps]):
    official_recorded = Signal(object)  # RecordedAdmission

    def __init__(
        self,
        ops: OfficialOps,
        runner: JobRunner,
        document: DeskDocument | None,
        *,
        operator: str,
        parent: QWidget | None = None,
    ) -> None:
        title = self.tr("Funcionario en servicio (art. 24)")
        super().__init__(ops, runner, document, operator, title, parent)
        self.recorded: RecordedAdmission | None = None
        told = notice(
            self.tr(
                "Se registran su identidad y su condición: no se le expide tarjeta, no paga "
                "y no puede jugar (art. 24)."
            ),
            self.tr("Aviso sobre funcionarios en servicio"),
        )
        self.capacity = QComboBox()
        self.capacity.setEditable(True)
        self.capacity.setAccessibleName(self.tr("Condición del funcionario"))
        self.capacity.addItems(
            [
                self.tr("Inspector del juego de la Comunidad de Madrid"),
                self.tr("Agente de la Policía Nacional"),
                self.tr("Agente de la Guardia Civil"),
                self.tr("Agente de la Policía Municipal"),
            ]
        )
        self.capacity.setCurrentText("")
        line = self.capacity.lineEdit()
        if line is not None:
            line.setMaxLength(MAX_CAPACITY)
            line.setPlaceholderText(self.tr("Cargo o condición (obligatorio)"))
        self.record_button = QPushButton(self.tr("&Registrar sin tarjeta"))
        self.record_button.setAccessibleName(self.tr("Registrar al funcionario, sin tarjeta"))
        self.record_button.setDefault(True)
        self.record_button.clicked.connect(self.record)
        form = self._document_form(told, self.tr("Documento:"), self.tr("Documento en pantalla"))
        form.addRow(self.tr("&Condición:"), self.capacity)
        column(self, form, self.record_button, self.errors, close_box(self))
        self._needs_document(self.record_button)

    def record(self) -> None:
        document = self._document
        if document is None or self.recorded is not None:
            return
        capacity = " ".join(self.capacity.currentText().split())
        if not capacity:
            self.errors.show_code("OFFICIAL_NEEDS_CAPACITY")
            return
        ops, operator = self._ops, self._operator

        def done(recorded: RecordedAdmission) -> None:
            self.recorded = recorded
            self.record_button.setEnabled(False)
            self.official_recorded.emit(recorded)
            self.errors.show_info(self.tr("Registrado en servicio: sin tarjeta, sin cobro"))

        run_job(
            self._runner,
            lambda: ops.record(document, capacity, operator),
            done,
            self.errors,
            self.record_button,
        )

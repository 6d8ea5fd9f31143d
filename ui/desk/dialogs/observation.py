"""An observation on a visitor's file, written at the desk (art. 20.3, R2).

The clerk or the game director signed in writes a line about the visitor on screen (or
about a file number typed in): a complaint, a behaviour seen, a leave given. The rules
- who may write, 1-500 characters of plain text, an unknown file refused - are
:class:`admission.observations.ObservationService`'s; the store audits the row. The
identity panel shows the newest observations at the visitor's next visit.

Object names for tests: ``file_number``, ``visitor``, ``text``, ``count``, ``add``,
``cancel``, ``error``.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from admission.accounts import Operator
from admission.observations import MAX_OBSERVATION, ObservationService
from admission.records import Observation
from ui.desk.dialogs.common import ErrorLine, plain_label, run_job
from ui.desk.dialogs.sign_in import on_enter
from ui.desk.jobs import JobRunner

__all__ = ["ObservationDialog"]

MAX_FILE_NUMBER = 999_999_999


class ObservationDialog(QDialog):
    """Enter adds the observation (one line; the file keeps plain text), Esc cancels."""

    observation_added = Signal(object)  # Observation

    def __init__(
        self,
        service: ObservationService,
        runner: JobRunner,
        operator: Operator,
        *,
        file_number: int | None = None,
        visitor: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._runner = runner
        self._operator = operator
        self.added: Observation | None = None
        self.setWindowTitle(self.tr("Observación en la ficha del visitante (art. 20.3)"))
        self.setAccessibleName(self.windowTitle())
        self.setMinimumWidth(560)

        intro = QLabel(
            self.tr(
                "La observación queda en la ficha con su nombre y la fecha, se muestra en "
                "la próxima visita y se borra con la ficha a los seis meses (art. 20.4)."
            )
        )
        intro.setWordWrap(True)
        self.file_number = QSpinBox()
        self.file_number.setObjectName("file_number")
        self.file_number.setRange(0, MAX_FILE_NUMBER)
        self.file_number.setSpecialValueText(self.tr("(escriba el número)"))
        self.file_number.setAccessibleName(self.tr("Número de ficha"))
        self.file_number.setValue(file_number or 0)
        self.visitor = plain_label(visitor, name=self.tr("Visitante"), limit=120)
        self.visitor.setObjectName("visitor")
        self.visitor.setVisible(bool(visitor))
        self.text = QLineEdit()
        self.text.setObjectName("text")
        self.text.setMaxLength(MAX_OBSERVATION)
        self.text.setAccessibleName(self.tr("Texto de la observación"))
        self.text.setPlaceholderText(self.tr("Qué ha ocurrido, con hechos (máx. 500 caracteres)"))
        self.count = QLabel()
        self.count.setObjectName("count")
        self.count.setAccessibleName(self.tr("Caracteres escritos"))
        self.text.textChanged.connect(self._count)
        self._count()
        self.errors = ErrorLine()
        self.errors.setObjectName("error")

        form = QFormLayout()
        file_label = QLabel(self.tr("&Ficha nº:"))
        file_label.setBuddy(self.file_number)
        form.addRow(file_label, self.file_number)
        if visitor:
            form.addRow(self.tr("Visitante:"), self.visitor)
        text_label = QLabel(self.tr("&Observación:"))
        text_label.setBuddy(self.text)
        form.addRow(text_label, self.text)
        form.addRow("", self.count)

        self.add_button = QPushButton(self.tr("&Añadir a la ficha"))
        self.add_button.setObjectName("add")
        self.add_button.setAccessibleName(self.tr("Añadir la observación a la ficha"))
        self.add_button.setDefault(True)
        self.cancel_button = QPushButton(self.tr("Cancelar"))
        self.cancel_button.setObjectName("cancel")
        self.cancel_button.setAccessibleName(self.tr("Cancelar sin escribir nada"))
        self.cancel_button.setAutoDefault(False)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.add_button)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.errors)
        layout.addLayout(buttons)
        self.add_button.clicked.connect(self.submit)
        self.cancel_button.clicked.connect(self.reject)
        on_enter(self.text, self.submit)  # once: the default button is not pressed too
        # the visitor on screen: straight to the text; otherwise the number first
        self._first: QWidget = self.text if file_number else self.file_number

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._first.setFocus()

    def _count(self) -> None:
        self.count.setText(
            self.tr("%1 de %2 caracteres")
            .replace("%1", str(len(self.text.text())))
            .replace("%2", str(MAX_OBSERVATION))
        )

    def submit(self) -> None:
        """One press, one observation: the button waits for the store's answer."""
        if not self.add_button.isEnabled():
            return
        service, operator = self._service, self._operator
        number, note = self.file_number.value(), self.text.text()

        def done(made: Observation) -> None:
            self.added = made
            self.observation_added.emit(made)
            self.accept()

        run_job(
            self._runner,
            lambda: service.add(operator, number, note),
            done,
            self.errors,
            self.add_button,
        )

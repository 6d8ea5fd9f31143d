"""Data protection in the visitor file (art. 20.4: confidential, kept six months; GDPR
arts. 5.1.e, 15 and 16), for the game director who answers for it (art. 14.1.b):

* :class:`RectificationDialog` - correct a visitor's surname and given names, or the
  text of one observation, with a written reason (GDPR art. 16; the game director only;
  one audited transaction in ``admission.data_protection.DataProtectionService``);
* :class:`RetentionDialog` - what the file holds and when the oldest record passes the
  six months: totals, a table per month and its chart. Counts only, no personal data
  (the director, an administrator or an inspector);
* :class:`AccessReportDialog` - the access-request report of one person (GDPR art. 15)
  as a PDF written where the director chooses (``ReportService.export_access_report``).

The roles are checked by the services; the window does not offer these to a clerk.
Every call runs on the store worker; a refusal shows its catalogue text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QRegularExpression, Qt, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from admission.accounts import Operator
from admission.records import Observation, Visitor
from ui.desk.dialogs.common import (
    DialogCode,
    ErrorLine,
    ReasonField,
    close_box,
    plain_label,
    run_job,
)
from ui.desk.dialogs.save_path import ask_save_path
from ui.desk.dialogs.scaffold import list_table, titled
from ui.desk.jobs import JobRunner
from ui.desk.text import bounded, local_time
from ui.desk.widgets.charts import BarChart

if TYPE_CHECKING:
    from admission.desk_ports import ExportTargets

__all__ = [
    "AccessReportDialog",
    "RectificationDialog",
    "RetentionDialog",
    "SubjectLookup",
]

MAX_NAME = 60
MAX_OBSERVATION = 500
# (operator, purpose, file number) -> the person and their observations (an audited read)
SubjectLookup = Callable[[Operator, str, int], tuple[Visitor, Sequence[Observation]]]
AskPath = Callable[[str, str, str], Path | None]


class RectifyPort(Protocol):
    """What the dialog asks of ``admission.data_protection.DataProtectionService``."""

    def rectify_name(
        self, operator: Operator, file_number: int, surname: str, given_names: str, reason: str
    ) -> Visitor: ...

    def rectify_observation(
        self, operator: Operator, file_number: int, observation_id: int, text: str, reason: str
    ) -> Observation: ...


class RetentionPort(Protocol):
    def retention(self, operator: Operator) -> Any: ...


class AccessReportPort(Protocol):
    def export_access_report(
        self,
        operator: Operator,
        purpose: str,
        target: Any,
        *,
        file_number: int | None = None,
        id_number: str | None = None,
    ) -> Any: ...


def _digits(edit: QLineEdit) -> None:
    edit.setValidator(QRegularExpressionValidator(QRegularExpression(r"\d{0,18}"), edit))


def _item(value: str) -> QTableWidgetItem:
    item = QTableWidgetItem(value)  # table items are plain text
    item.setData(Qt.ItemDataRole.AccessibleTextRole, value)
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    return item


def _table(columns: Sequence[str], name: str) -> QTableWidget:
    table = list_table(columns, name)
    table.setTabKeyNavigation(False)
    table.verticalHeader().setVisible(False)
    return table


# -- rectification (GDPR art. 16) -------------------------------------------------------------
class RectificationDialog(QDialog):
    """Load a file by number (with the purpose), then correct the name or an observation."""

    rectified = Signal(object)  # the Visitor or Observation as now kept

    def __init__(
        self,
        service: RectifyPort,
        lookup: SubjectLookup,
        runner: JobRunner,
        operator: Operator,
        *,
        file_number: int | None = None,
        writes: JobRunner | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._lookup = lookup
        self._runner = runner
        # the rectifications (the desk's: broadcast once written); the reading on runner
        self._writes = runner if writes is None else writes
        self._operator = operator
        self.visitor: Visitor | None = None
        self.observations: list[Observation] = []
        titled(self, self.tr("Rectificar datos de un visitante (RGPD art. 16)"))

        self.file_edit = QLineEdit("" if file_number is None else str(file_number))
        self.file_edit.setAccessibleName(self.tr("Número de ficha"))
        self.file_edit.setMaxLength(18)
        _digits(self.file_edit)
        self.purpose_edit = QLineEdit()
        self.purpose_edit.setAccessibleName(self.tr("Motivo de la consulta (obligatorio)"))
        self.purpose_edit.setPlaceholderText(self.tr("Obligatorio: solicitud del interesado…"))
        self.purpose_edit.setMaxLength(200)
        self.load_button = QPushButton(self.tr("&Cargar la ficha"))
        self.load_button.setAccessibleName(self.tr("Cargar la ficha del visitante"))
        self.load_button.clicked.connect(self.load)
        self.file_edit.returnPressed.connect(self.load)
        self.purpose_edit.returnPressed.connect(self.load)
        find = QFormLayout()
        find.addRow(self.tr("&Ficha nº:"), self.file_edit)
        find.addRow(self.tr("Mo&tivo:"), self.purpose_edit)
        find.addRow(self.load_button)

        self.current = plain_label("", limit=200)
        self.current.setAccessibleName(self.tr("Nombre que consta en la ficha"))

        name_box = QGroupBox(self.tr("Nombre"))
        name_box.setAccessibleName(self.tr("Rectificar el nombre"))
        self.surname_edit = QLineEdit()
        self.surname_edit.setAccessibleName(self.tr("Apellidos rectificados"))
        self.surname_edit.setMaxLength(MAX_NAME)
        self.given_edit = QLineEdit()
        self.given_edit.setAccessibleName(self.tr("Nombre rectificado"))
        self.given_edit.setMaxLength(MAX_NAME)
        self.name_reason = ReasonField(self.tr("Motivo de la rectificación del nombre"))
        self.name_button = QPushButton(self.tr("&Rectificar el nombre"))
        self.name_button.setAccessibleName(self.tr("Guardar el nombre rectificado"))
        self.name_button.clicked.connect(self.rectify_name)
        name_form = QFormLayout(name_box)
        name_form.addRow(self.tr("&Apellidos:"), self.surname_edit)
        name_form.addRow(self.tr("&Nombre:"), self.given_edit)
        name_form.addRow(self.tr("Motivo:"), self.name_reason)
        name_form.addRow(self.name_button)

        obs_box = QGroupBox(self.tr("Observaciones"))
        obs_box.setAccessibleName(self.tr("Rectificar una observación"))
        self.obs_table = _table(
            (self.tr("Fecha"), self.tr("Autor"), self.tr("Texto")),
            self.tr("Observaciones de la ficha"),
        )
        self.obs_table.itemSelectionChanged.connect(self._observation_chosen)
        self.obs_text = QPlainTextEdit()
        self.obs_text.setAccessibleName(self.tr("Texto rectificado de la observación"))
        self.obs_text.setTabChangesFocus(True)
        self.obs_text.setMaximumHeight(90)
        self.obs_reason = ReasonField(self.tr("Motivo de la rectificación de la observación"))
        self.obs_button = QPushButton(self.tr("Rectificar la &observación"))
        self.obs_button.setAccessibleName(self.tr("Guardar la observación rectificada"))
        self.obs_button.clicked.connect(self.rectify_observation)
        obs_layout = QVBoxLayout(obs_box)
        obs_layout.addWidget(self.obs_table, 1)
        obs_form = QFormLayout()
        obs_form.addRow(self.tr("Te&xto:"), self.obs_text)
        obs_form.addRow(self.tr("Motivo:"), self.obs_reason)
        obs_form.addRow(self.obs_button)
        obs_layout.addLayout(obs_form)

        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addLayout(find)
        layout.addWidget(self.current)
        boxes = QHBoxLayout()
        boxes.addWidget(name_box, 1, Qt.AlignmentFlag.AlignTop)
        boxes.addWidget(obs_box, 1)
        layout.addLayout(boxes, 1)
        layout.addWidget(self.errors)
        layout.addWidget(close_box(self))
        self.resize(980, 560)
        self._enable()

    def _enable(self) -> None:
        loaded = self.visitor is not None
        name: tuple[QWidget, ...] = (
            self.surname_edit,
            self.given_edit,
            self.name_reason,
            self.name_button,
        )
        for widget in name:
            widget.setEnabled(loaded)
        observation: tuple[QWidget, ...] = (
            self.obs_table,
            self.obs_text,
            self.obs_reason,
            self.obs_button,
        )
        for widget in observation:
            widget.setEnabled(loaded and bool(self.observations))

    def _file_number(self) -> int | None:
        text = self.file_edit.text().strip()
        return int(text) if text.isdigit() and int(text) > 0 else None

    def load(self) -> None:
        number = self._file_number()
        if number is None:
            self.errors.show_code(DialogCode.FIELD_REQUIRED)
            self.file_edit.setFocus()
            return
        lookup, operator, purpose = self._lookup, self._operator, self.purpose_edit.text()
        run_job(
            self._runner,
            lambda: lookup(operator, purpose, number),
            self._loaded,
            self.errors,
            self.load_button,
        )

    def _loaded(self, found: tuple[Visitor, Sequence[Observation]]) -> None:
        visitor, observations = found
        self.visitor = visitor
        self.observations = list(observations)
        self.current.setText(
            self.tr("Ficha %1: %2")
            .replace("%1", str(visitor.file_number))
            .replace("%2", bounded(f"{visitor.surname}, {visitor.given_names}", 150))
        )
        self.surname_edit.setText(bounded(visitor.surname, MAX_NAME))
        self.given_edit.setText(bounded(visitor.given_names, MAX_NAME))
        self.obs_table.setRowCount(len(self.observations))
        for row, observation in enumerate(self.observations):
            for column, value in enumerate(
                (
                    local_time(observation.at),
                    bounded(observation.author, 60),
                    bounded(observation.text, 200),
                )
            ):
                self.obs_table.setItem(row, column, _item(value))
        self.obs_table.resizeColumnsToContents()
        if self.observations:
            self.obs_table.selectRow(0)
        self._enable()

    def _observation_chosen(self) -> None:
        row = self.obs_table.currentRow()
        if 0 <= row < len(self.observations):
            self.obs_text.setPlainText(self.observations[row].text[:MAX_OBSERVATION])

    def rectify_name(self) -> None:
        visitor = self.visitor
        if visitor is None:
            self.errors.show_code(DialogCode.SELECTION_REQUIRED)
            return
        service, operator = self._service, self._operator
        surname, given = self.surname_edit.text(), self.given_edit.text()
        reason = self.name_reason.reason()

        def done(now_kept: Visitor) -> None:
            self.name_reason.clear()
            self._loaded((now_kept, self.observations))
            self.errors.show_info(self.tr("Nombre rectificado"))
            self.rectified.emit(now_kept)

        run_job(
            self._writes,
            lambda: service.rectify_name(operator, visitor.file_number, surname, given, reason),
            done,
            self.errors,
            self.name_button,
        )

    def rectify_observation(self) -> None:
        visitor = self.visitor
        row = self.obs_table.currentRow()
        if visitor is None or not 0 <= row < len(self.observations):
            self.errors.show_code(DialogCode.SELECTION_REQUIRED)
            return
        chosen = self.observations[row]
        service, operator = self._service, self._operator
        text, reason = self.obs_text.toPlainText(), self.obs_reason.reason()

        def done(now_kept: Observation) -> None:
            self.obs_reason.clear()
            self.observations[row] = now_kept
            self._loaded((visitor, self.observations))
            self.obs_table.selectRow(row)
            self.errors.show_info(self.tr("Observación rectificada"))
            self.rectified.emit(now_kept)

        run_job(
            self._writes,
            lambda: service.rectify_observation(
                operator, visitor.file_number, chosen.observation_id, text, reason
            ),
            done,
            self.errors,
            self.obs_button,
        )


# -- retention (art. 20.4: six months) -------------------------------------------------------
class RetentionDialog(QDialog):
    """Totals, the oldest records, the next purge and the counts per month."""

    def __init__(
        self,
        service: RetentionPort,
        runner: JobRunner,
        operator: Operator,
        *,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._runner = runner
        self._operator = operator
        self.overview: Any = None
        titled(self, self.tr("Conservación de datos: seis meses (art. 20.4)"))

        self.purge = plain_label("", limit=300)
        self.purge.setAccessibleName(self.tr("Próxima purga"))
        font = self.purge.font()
        font.setBold(True)
        self.purge.setFont(font)
        # the totals: one row each (plain text, counts and dates only)
        self.values: dict[str, QLabel] = {}
        totals = QGridLayout()
        rows = (
            ("visitors", self.tr("Visitantes:")),
            ("visits", self.tr("Visitas:")),
            ("observations", self.tr("Observaciones:")),
            ("cards", self.tr("Tarjetas:")),
            ("oldest_visit", self.tr("Visita más antigua:")),
            ("oldest_observation", self.tr("Observación más antigua:")),
            ("cutoff", self.tr("Se conserva desde:")),
        )
        for index, (key, caption) in enumerate(rows):
            value = plain_label("", limit=60)
            value.setAccessibleName(caption.rstrip(":"))
            self.values[key] = value
            row, column = index % 4, (index // 4) * 2
            totals.addWidget(QLabel(caption), row, column)
            totals.addWidget(value, row, column + 1)
        totals.setColumnStretch(1, 1)
        totals.setColumnStretch(3, 2)
        self.table = _table(
            (
                self.tr("Mes"),
                self.tr("Visitas"),
                self.tr("Admisiones"),
                self.tr("Denegaciones"),
                self.tr("Tarjetas"),
                self.tr("Visitantes nuevos"),
            ),
            self.tr("Registros por mes"),
        )
        self.chart = BarChart(self.tr("Visitas por mes"))
        self.refresh_button = QPushButton(self.tr("&Actualizar"))
        self.refresh_button.setAccessibleName(self.tr("Actualizar la vista de conservación"))
        self.refresh_button.clicked.connect(self.load)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(self.chart)
        split.setChildrenCollapsible(False)
        split.setSizes([560, 440])
        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addWidget(self.purge)
        layout.addLayout(totals)
        layout.addWidget(split, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.errors, 1)
        bottom.addWidget(self.refresh_button)
        layout.addLayout(bottom)
        layout.addWidget(close_box(self))
        self.resize(1040, 560)

    def summary(self) -> str:
        """The totals as one line of text (also what a screen reader gets)."""
        return " · ".join(
            f"{label.accessibleName()}: {label.text()}" for label in self.values.values()
        )

    def load(self) -> None:
        service, operator = self._service, self._operator
        run_job(
            self._runner,
            lambda: service.retention(operator),
            self.show_overview,
            self.errors,
            self.refresh_button,
        )

    def show_overview(self, overview: Any) -> None:
        self.overview = overview
        none = self.tr("ninguno")
        for key in ("visitors", "visits", "observations", "cards"):
            self.values[key].setText(str(getattr(overview, key)))
        self.values["oldest_visit"].setText(local_time(overview.oldest_visit) or none)
        self.values["oldest_observation"].setText(local_time(overview.oldest_observation) or none)
        self.values["cutoff"].setText(local_time(overview.cutoff))
        if overview.overdue:
            purge = self.tr("Purga pendiente: %1 visitas pasan de seis meses").replace(
                "%1", str(overview.overdue)
            )
        elif overview.next_purge is None:
            purge = self.tr("El fichero está vacío: nada que purgar")
        else:
            purge = self.tr("Próxima purga: %1").replace("%1", local_time(overview.next_purge))
        self.purge.setText(purge)
        months = list(overview.months)
        self.table.setRowCount(len(months))
        for row, month in enumerate(months):
            for column, value in enumerate(
                (
                    month.month,
                    month.visits,
                    month.admissions,
                    month.refusals,
                    month.cards,
                    month.new_visitors,
                )
            ):
                item = _item(str(value))
                if column:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        self.chart.set_data([(m.month, m.visits) for m in months])
        self.setAccessibleDescription(f"{self.purge.text()} · {self.summary()}")


# -- access report (GDPR art. 15) ------------------------------------------------------------
class AccessReportDialog(QDialog):
    """A person's access-request report, as a PDF where the director chooses."""

    def __init__(
        self,
        reports: AccessReportPort,
        export_target: ExportTargets,
        runner: JobRunner,
        operator: Operator,
        today: date,
        *,
        ask_path: AskPath | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._reports = reports
        self._target = export_target
        self._runner = runner
        self._operator = operator
        self._today = today
        self.ask_path: AskPath = ask_path or (
            lambda title, name, filters: ask_save_path(self, title, name, filters)
        )
        self.written: Any = None
        titled(self, self.tr("Informe de acceso a datos personales (RGPD art. 15)"))
        intro = plain_label(
            self.tr(
                "Todo lo que el fichero guarda de una persona, en un PDF para entregarle. "
                "Indique la ficha o el número del documento de identidad."
            ),
            limit=300,
        )
        self.file_edit = QLineEdit()
        self.file_edit.setAccessibleName(self.tr("Número de ficha"))
        self.file_edit.setMaxLength(18)
        _digits(self.file_edit)
        self.id_edit = QLineEdit()
        self.id_edit.setAccessibleName(self.tr("Número del documento de identidad"))
        self.id_edit.setMaxLength(20)
        self.purpose_edit = QLineEdit()
        self.purpose_edit.setAccessibleName(self.tr("Motivo de la consulta (obligatorio)"))
        self.purpose_edit.setPlaceholderText(self.tr("Obligatorio: solicitud de acceso nº…"))
        self.purpose_edit.setMaxLength(200)
        self.export_button = QPushButton(self.tr("&Exportar PDF…"))
        self.export_button.setAccessibleName(self.tr("Exportar el informe de acceso a PDF"))
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.export)
        form = QFormLayout()
        form.addRow(self.tr("&Ficha nº:"), self.file_edit)
        form.addRow(self.tr("o &identidad:"), self.id_edit)
        form.addRow(self.tr("&Motivo:"), self.purpose_edit)
        form.addRow(self.export_button)
        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.errors)
        layout.addWidget(close_box(self))
        self.resize(620, 300)

    def export(self) -> None:
        text = self.file_edit.text().strip()
        number = int(text) if text.isdigit() else None
        id_number = self.id_edit.text().strip() or None
        name = f"{self.tr('informe-acceso')}-{self._today.isoformat()}.pdf"
        path = self.ask_path(
            self.tr("¿Dónde guardar el informe?"), name, self.tr("Documento PDF (*.pdf)")
        )
        if path is None:
            return
        if not path.suffix:
            path = path.with_suffix(".pdf")
        reports, make_target, operator = self._reports, self._target, self._operator
        purpose = self.purpose_edit.text()

        def done(rendered: Any) -> None:
            self.written = rendered
            self.errors.show_info(self.tr("Exportado: %1").replace("%1", bounded(path.name, 120)))

        run_job(
            self._runner,
            lambda: reports.export_access_report(
                operator,
                purpose,
                make_target(path, force=True),  # the save dialog asked before replacing
                file_number=number,
                id_number=id_number,
            ),
            done,
            self.errors,
            self.export_button,
        )

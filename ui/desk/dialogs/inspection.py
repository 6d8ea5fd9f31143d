"""The gaming inspector's screen (art. 20.4): search the visitor file, one person's
visits, and the exports - the results, the timeline and the daily visitor book.

The visitor file is confidential and open to the gaming inspectors; the game director
keeps it and answers for it (arts. 14.1.b, 20.3). Every query states its purpose (the
service refuses one without it) and is audited by the service. This screen only shows
what :class:`ui.desk.inspection_controller.InspectionController` answers:

* :class:`InspectionScreen` - the page itself (the inspector's whole window when an
  inspector signs in: ``DeskWindow`` shows it instead of the admission desk);
* :class:`InspectionDialog` - the same page in a dialog, for the director (menu
  Inspección, Ctrl+Shift+F).

Everything shown comes from the visitor file: plain text, bounded. An export asks where
to write (the operator chooses; the default name carries a date, never a person's
data) and runs on the store worker; a refusal (a full disk, a read-only folder) shows
the catalogue's text and the screen stays usable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QDate,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRegularExpression,
    Qt,
)
from PySide6.QtGui import QKeySequence, QRegularExpressionValidator, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDateEdit,
    QDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from admission.errors import AdmissionError
from admission.inspection import Timeline, TimelineEntry, checked_purpose
from admission.records import Visitor
from admission.verdict import counts_as_visit
from ui.desk.changes import OpChanges
from ui.desk.dialogs.common import ErrorLine, close_box, plain_label
from ui.desk.dialogs.save_path import ask_save_path
from ui.desk.dialogs.scaffold import titled
from ui.desk.inspection_controller import InspectionController, SearchRequest
from ui.desk.text import bounded, local_date, local_time, message

__all__ = [
    "InspectionDialog",
    "InspectionScreen",
    "ResultsModel",
    "TimelineModel",
    "default_export_name",
]

MAX_CELL = 80  # characters of one table cell
AnyIndex = QModelIndex | QPersistentModelIndex


def default_export_name(kind: str, day: date, fmt: str) -> str:
    """``busqueda-2026-12-03.pdf``: what and when, never whom (no personal data in a
    file name that a folder listing shows)."""
    return f"{kind}-{day.isoformat()}.{fmt}"


def _qdate(day: date) -> QDate:
    return QDate(day.year, day.month, day.day)


def _day(qdate: QDate) -> date:
    return date(qdate.year(), qdate.month(), qdate.day())


class _TextModel(QAbstractTableModel):
    """A read-only table of plain strings."""

    def __init__(self, headers: Sequence[str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._headers = list(headers)
        self._rows: list[tuple[str, ...]] = []

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008  # Qt API
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008  # Qt API
        return 0 if parent.isValid() else len(self._headers)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._rows[index.row()][index.column()] or None
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole)
            and 0 <= section < len(self._headers)
        ):
            return self._headers[section]
        return None

    def _set_rows(self, rows: list[tuple[str, ...]]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def row_texts(self, row: int) -> tuple[str, ...]:
        return self._rows[row]


class ResultsModel(_TextModel):
    """The people found: file number, surname, given names, birth date, nationality,
    first and last seen."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(
            (
                self.tr("Ficha"),
                self.tr("Apellidos"),
                self.tr("Nombre"),
                self.tr("Nacimiento"),
                self.tr("Nacionalidad"),
                self.tr("Primera visita"),
                self.tr("Última visita"),
            ),
            parent,
        )
        self.visitors: list[Visitor] = []

    def set_visitors(self, visitors: Sequence[Visitor]) -> None:
        self.visitors = list(visitors)
        self._set_rows(
            [
                (
                    str(v.file_number),
                    bounded(v.surname, MAX_CELL),
                    bounded(v.given_names, MAX_CELL),
                    local_date(v.birth_date),
                    bounded(v.nationality, 3),
                    local_time(v.first_seen),
                    local_time(v.last_seen),
                )
                for v in visitors
            ]
        )


class TimelineModel(_TextModel):
    """One person's visits: when, desk, operator, verdict, reasons, card."""

    def __init__(
        self, parent: QObject | None = None, card_label: Callable[[str], str] | None = None
    ) -> None:
        self._card_label = card_label or (lambda code: code)
        super().__init__(
            (
                self.tr("Fecha y hora"),
                self.tr("Puesto"),
                self.tr("Operador"),
                self.tr("Resultado"),
                self.tr("Motivos"),
                self.tr("Tarjeta"),
            ),
            parent,
        )

    def verdict_text(self, verdict: str) -> str:
        return {
            "ADMIT": self.tr("Admitido"),
            "DENY": self.tr("Denegado"),
            "SUPERVISOR": self.tr("Decide el director"),
            # art. 22: a re-entry on the card held is not a visit; not admitted is no refusal
            "ALREADY_ADMITTED": self.tr("Reentrada (no es visita)"),
            "NOT_ADMITTED": self.tr("No admitido"),
        }.get(verdict, bounded(verdict, 20))

    def _card(self, entry: TimelineEntry) -> str:
        card = entry.card
        if card is None:
            number = entry.visit.card_number
            return "" if number is None else str(number)
        return f"{card.number} · {bounded(self._card_label(card.card_type), 40)}"

    def set_timeline(self, timeline: Timeline | None) -> None:
        entries = () if timeline is None else timeline.entries
        self._set_rows(
            [
                (
                    local_time(e.visit.at),
                    bounded(e.visit.desk_id, 40),
                    bounded(e.visit.operator, 60),
                    self.verdict_text(e.visit.verdict),
                    bounded("; ".join(message(code) for code in e.visit.reasons), 400),
                    self._card(e),
                )
                for e in entries
            ]
        )


def _table(model: QAbstractTableModel, name: str) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setAccessibleName(name)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setTabKeyNavigation(False)  # Tab leaves the table: keyboard-only use
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.horizontalHeader().setStretchLastSection(True)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.verticalHeader().setVisible(False)
    return view


AskPath = Callable[[str, str, str], Path | None]  # title, default name, filter -> path


class InspectionScreen(QWidget):
    """Search form, results, the selected person's visits and the exports."""

    def __init__(
        self,
        controller: InspectionController,
        today: Callable[[], date],
        *,
        ask_path: AskPath | None = None,
        card_label: Callable[[str], str] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self._today = today
        self.ask_path: AskPath = ask_path or self._ask_path
        self.setAccessibleName(self.tr("Consulta del fichero de visitantes"))
        self.setObjectName("inspectionScreen")

        # -- the search form ---------------------------------------------------------
        self.name_edit = self._line(self.tr("Nombre o apellidos"), 200)
        self.id_edit = self._line(self.tr("Número del documento de identidad"), 20)
        self.card_edit = self._line(self.tr("Número de tarjeta"), 18, digits=True)
        self.file_edit = self._line(self.tr("Número de ficha"), 18, digits=True)
        self.observation_edit = self._line(self.tr("Texto de una observación"), 200)
        self.any_date = QCheckBox(self.tr("Cualquier fech&a"))
        self.any_date.setAccessibleName(self.tr("Sin límite de fechas"))
        self.any_date.setChecked(True)
        today_q = _qdate(today())
        self.from_edit = self._date(self.tr("Visitas desde"), today_q.addMonths(-1))
        self.to_edit = self._date(self.tr("Visitas hasta"), today_q)
        self.any_date.toggled.connect(self._dates_toggled)
        self._dates_toggled(True)
        self.purpose_edit = self._line(self.tr("Motivo de la consulta (obligatorio)"), 200)
        self.purpose_edit.setPlaceholderText(
            self.tr("Obligatorio: expediente, inspección, requerimiento…")
        )
        self.search_button = QPushButton(self.tr("&Buscar"))
        self.search_button.setAccessibleName(self.tr("Buscar en el fichero"))
        self.search_button.setDefault(True)
        self.search_button.clicked.connect(self.search)
        for edit in (
            self.name_edit,
            self.id_edit,
            self.card_edit,
            self.file_edit,
            self.observation_edit,
            self.purpose_edit,
        ):
            edit.returnPressed.connect(self.search)

        form_box = QGroupBox(self.tr("Búsqueda"))
        form_box.setAccessibleName(self.tr("Criterios de búsqueda"))
        grid = QGridLayout(form_box)
        rows: tuple[tuple[str, QWidget, str, QWidget], ...] = (
            (self.tr("&Nombre:"), self.name_edit, self.tr("&Identidad:"), self.id_edit),
            (self.tr("&Tarjeta nº:"), self.card_edit, self.tr("Fi&cha nº:"), self.file_edit),
            (self.tr("&Desde:"), self.from_edit, self.tr("&Hasta:"), self.to_edit),
        )
        for row, (label_a, field_a, label_b, field_b) in enumerate(rows):
            for column, (label, field) in enumerate(((label_a, field_a), (label_b, field_b))):
                caption = QLabel(label)
                caption.setBuddy(field)
                grid.addWidget(caption, row, column * 2)
                grid.addWidget(field, row, column * 2 + 1)
        grid.addWidget(self.any_date, 3, 1)
        observation_label = QLabel(self.tr("&Observación:"))
        observation_label.setBuddy(self.observation_edit)
        grid.addWidget(observation_label, 4, 0)
        grid.addWidget(self.observation_edit, 4, 1, 1, 3)
        purpose_label = QLabel(self.tr("&Motivo:"))
        purpose_label.setBuddy(self.purpose_edit)
        grid.addWidget(purpose_label, 5, 0)
        grid.addWidget(self.purpose_edit, 5, 1, 1, 2)
        grid.addWidget(self.search_button, 5, 3)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)

        # -- results and timeline ----------------------------------------------------
        self.results = ResultsModel(self)
        self.results_view = _table(self.results, self.tr("Personas encontradas"))
        self.results_view.activated.connect(lambda _index: self.show_timeline())
        self.results_view.doubleClicked.connect(lambda _index: self.show_timeline())
        self.results_label = plain_label(self.tr("Personas encontradas"), limit=120)
        self.results_label.setAccessibleName(self.tr("Resumen de la búsqueda"))
        self.timeline_button = QPushButton(self.tr("Ve&r visitas"))
        self.timeline_button.setAccessibleName(self.tr("Ver las visitas de la persona elegida"))
        self.timeline_button.clicked.connect(self.show_timeline)
        self.timeline = TimelineModel(self, card_label)
        self.timeline_view = _table(self.timeline, self.tr("Visitas de la persona elegida"))
        self.person_label = plain_label(self.tr("Elija una persona y pulse Ver visitas"), limit=200)
        self.person_label.setAccessibleName(self.tr("Persona elegida"))

        results_box = QWidget()
        results_layout = QVBoxLayout(results_box)
        results_layout.setContentsMargins(0, 0, 0, 0)
        header = QHBoxLayout()
        header.addWidget(self.results_label, 1)
        header.addWidget(self.timeline_button)
        results_layout.addLayout(header)
        results_layout.addWidget(self.results_view, 1)
        timeline_box = QWidget()
        timeline_layout = QVBoxLayout(timeline_box)
        timeline_layout.setContentsMargins(0, 0, 0, 0)
        timeline_layout.addWidget(self.person_label)
        timeline_layout.addWidget(self.timeline_view, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(results_box)
        self.splitter.addWidget(timeline_box)
        self.splitter.setChildrenCollapsible(False)

        # -- exports -----------------------------------------------------------------
        export_box = QGroupBox(self.tr("Exportar"))
        export_box.setAccessibleName(self.tr("Exportar a un archivo"))
        self.results_pdf = self._button(
            self.tr("Resultados &PDF…"), self.tr("Exportar los resultados a PDF")
        )
        self.results_csv = self._button(
            self.tr("Resultados CS&V…"), self.tr("Exportar los resultados a CSV")
        )
        self.timeline_pdf = self._button(
            self.tr("Visitas PD&F…"), self.tr("Exportar las visitas a PDF")
        )
        self.timeline_csv = self._button(
            self.tr("Visitas C&SV…"), self.tr("Exportar las visitas a CSV")
        )
        self.day_edit = self._date(self.tr("Día del libro diario"), today_q.addDays(-1))
        self.day_edit.setMaximumDate(today_q)
        self.day_book = self._button(
            self.tr("&Libro diario PDF…"), self.tr("Exportar el libro diario de visitantes del día")
        )
        self.results_pdf.clicked.connect(lambda: self.export_results("pdf"))
        self.results_csv.clicked.connect(lambda: self.export_results("csv"))
        self.timeline_pdf.clicked.connect(lambda: self.export_timeline("pdf"))
        self.timeline_csv.clicked.connect(lambda: self.export_timeline("csv"))
        self.day_book.clicked.connect(self.export_day_book)
        exports = QHBoxLayout(export_box)
        for button in (self.results_pdf, self.results_csv, self.timeline_pdf, self.timeline_csv):
            exports.addWidget(button)
        exports.addSpacing(16)
        day_label = QLabel(self.tr("D&ía:"))
        day_label.setBuddy(self.day_edit)
        exports.addWidget(day_label)
        exports.addWidget(self.day_edit)
        exports.addWidget(self.day_book)
        exports.addStretch(1)

        self.errors = ErrorLine()
        self.errors.setObjectName("inspectionMessage")

        layout = QVBoxLayout(self)
        layout.addWidget(form_box)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(export_box)
        layout.addWidget(self.errors)

        # Ctrl+F: back to the search form
        focus = QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self)
        focus.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        focus.activated.connect(self.name_edit.setFocus)

        controller.results_found.connect(self._show_results)
        controller.timeline_loaded.connect(self._show_timeline)
        controller.query_refused.connect(self._refused)
        controller.export_failed.connect(self._refused)
        controller.export_written.connect(self._written)
        controller.busy_changed.connect(self._busy)
        self._update_buttons()

    # -- building ------------------------------------------------------------------------
    def _line(self, name: str, limit: int, *, digits: bool = False) -> QLineEdit:
        edit = QLineEdit()
        edit.setAccessibleName(name)
        edit.setMaxLength(limit)
        edit.setClearButtonEnabled(True)
        if digits:
            edit.setValidator(QRegularExpressionValidator(QRegularExpression(r"\d{0,18}"), edit))
        return edit

    def _date(self, name: str, initial: QDate) -> QDateEdit:
        edit = QDateEdit(initial)
        edit.setAccessibleName(name)
        edit.setCalendarPopup(True)
        edit.setDisplayFormat("dd/MM/yyyy")
        return edit

    def _button(self, title: str, name: str) -> QPushButton:
        button = QPushButton(title)
        button.setAccessibleName(name)
        return button

    def _dates_toggled(self, any_date: bool) -> None:
        self.from_edit.setEnabled(not any_date)
        self.to_edit.setEnabled(not any_date)

    # -- the form ------------------------------------------------------------------------
    @staticmethod
    def _text(edit: QLineEdit) -> str | None:
        value = edit.text().strip()
        return value or None

    @staticmethod
    def _number(edit: QLineEdit) -> int | None:
        value = edit.text().strip()
        return int(value) if value.isdigit() else None

    def request(self) -> SearchRequest:
        """The criteria typed (the service checks them)."""
        dated = not self.any_date.isChecked()
        return SearchRequest(
            name=self._text(self.name_edit),
            id_number=self._text(self.id_edit),
            card=self._number(self.card_edit),
            file_number=self._number(self.file_edit),
            date_from=_day(self.from_edit.date()) if dated else None,
            date_to=_day(self.to_edit.date()) if dated else None,
            observation=self._text(self.observation_edit),
        )

    def purpose(self) -> str:
        return self.purpose_edit.text()

    def search(self) -> None:
        self.errors.clear_message()
        self.controller.search(self.purpose(), self.request())

    def changed(self, changes: OpChanges, _origin: object) -> None:
        """The desk's broadcast: a visit recorded or a visitor's data rectified. What is
        on screen is read again under the purpose it was read with (audited again: art.
        20.4). A screen not shown reads nothing: an inspector who has left it made no query."""
        if not self.isVisible() or not (changes.admissions or changes.people):
            return
        controller = self.controller
        if controller.timeline is not None:
            number = controller.timeline.visitor.file_number
            controller.load_timeline(controller.timeline_purpose, number)
        elif controller.last_search is not None:
            controller.search(*controller.last_search)

    def selected_visitor(self) -> Visitor | None:
        index = self.results_view.currentIndex()
        visitors = self.results.visitors
        if not index.isValid() or not 0 <= index.row() < len(visitors):
            return None
        return visitors[index.row()]

    def show_timeline(self) -> None:
        visitor = self.selected_visitor()
        if visitor is None:
            self.errors.show_code("SELECTION_REQUIRED")
            return
        self.errors.clear_message()
        self.controller.load_timeline(self.purpose(), visitor.file_number)

    # -- answers -------------------------------------------------------------------------
    def _show_results(self, visitors: list[Visitor]) -> None:
        self.results.set_visitors(visitors)
        self.timeline.set_timeline(None)
        self.person_label.setText(self.tr("Elija una persona y pulse Ver visitas"))
        self.results_label.setText(
            self.tr("Personas encontradas: %1").replace("%1", str(len(visitors)))
        )
        self.results_view.resizeColumnsToContents()
        if visitors:
            # the cursor on the first row, not its visits: a timeline is its own query
            self.results_view.setCurrentIndex(self.results.index(0, 0))
        else:
            self.errors.show_info(self.tr("Nadie coincide con la búsqueda"))
        self._update_buttons()

    def _show_timeline(self, timeline: Timeline) -> None:
        self.timeline.set_timeline(timeline)
        visitor = timeline.visitor
        self.person_label.setText(
            bounded(
                self.tr("Ficha %1 · %2 · %3 visitas")
                .replace("%1", str(visitor.file_number))
                .replace("%2", bounded(f"{visitor.surname}, {visitor.given_names}", 120))
                # art. 20.3: re-entries on a card held are no new visits
                .replace(
                    "%3", str(sum(counts_as_visit(e.visit.verdict) for e in timeline.entries))
                ),
                200,
            )
        )
        self.timeline_view.resizeColumnsToContents()
        self._update_buttons()

    def _refused(self, code: str) -> None:
        self.errors.show_code(code)
        if code == "INSPECT_PURPOSE_INVALID":
            self.purpose_edit.setFocus()
        self._update_buttons()

    def _written(self, name: str, rendered: object) -> None:
        rows = getattr(rendered, "rows", None)
        text = self.tr("Exportado: %1").replace("%1", bounded(name, 120))
        if isinstance(rows, int):
            text += " · " + self.tr("%1 filas").replace("%1", str(rows))
        self.errors.show_info(text)

    def _busy(self, busy: bool) -> None:
        self.search_button.setEnabled(not busy)
        self._update_buttons()

    def _update_buttons(self) -> None:
        busy = self.controller.busy
        exports = self.controller.can_export and not busy
        self.timeline_button.setEnabled(bool(self.results.visitors) and not busy)
        self.results_pdf.setEnabled(exports and self.controller.last_search is not None)
        self.results_csv.setEnabled(self.results_pdf.isEnabled())
        self.timeline_pdf.setEnabled(exports and self.controller.timeline is not None)
        self.timeline_csv.setEnabled(self.timeline_pdf.isEnabled())
        self.day_book.setEnabled(exports)

    # -- exports -------------------------------------------------------------------------
    def _ask_path(self, title: str, default_name: str, filters: str) -> Path | None:
        return ask_save_path(self, title, default_name, filters)

    def _where(self, kind: str, fmt: str, day: date | None = None) -> Path | None:
        name = default_export_name(kind, day or self._today(), fmt)
        filters = self.tr("Documento PDF (*.pdf)") if fmt == "pdf" else self.tr("Tabla CSV (*.csv)")
        path = self.ask_path(self.tr("¿Dónde guardar la exportación?"), name, filters)
        if path is not None and not path.suffix:
            path = path.with_suffix(f".{fmt}")
        return path

    def export_results(self, fmt: str) -> None:
        path = self._where(self.tr("busqueda"), fmt)
        if path is not None:
            self.errors.clear_message()
            self.controller.export_results(path, fmt)

    def export_timeline(self, fmt: str) -> None:
        path = self._where(self.tr("visitas"), fmt)
        if path is not None:
            self.errors.clear_message()
            self.controller.export_timeline(path, fmt)

    def _stated_purpose(self) -> str | None:
        """The purpose typed, checked before a file is asked for; None (and the purpose
        field focused) when it is missing or not plain text (art. 20.4)."""
        try:
            return checked_purpose(self.purpose())
        except AdmissionError as refused:
            self._refused(refused.code)
            return None

    def export_day_book(self) -> None:
        """The day book: every name and document of a day, so it states a purpose too."""
        purpose = self._stated_purpose()
        if purpose is None:
            return
        day = _day(self.day_edit.date())
        path = self._where(self.tr("libro-diario"), "pdf", day)
        if path is not None:
            self.errors.clear_message()
            self.controller.export_day_book(path, day, purpose)


class InspectionDialog(QDialog):
    """The inspector's screen in a dialog (the director, from the Inspección menu)."""

    def __init__(
        self,
        controller: InspectionController,
        today: Callable[[], date],
        *,
        ask_path: AskPath | None = None,
        card_label: Callable[[str], str] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        titled(self, self.tr("Inspección del fichero de visitantes (art. 20.4)"))
        self.screen_widget = InspectionScreen(
            controller, today, ask_path=ask_path, card_label=card_label, parent=self
        )
        controller.setParent(self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.screen_widget, 1)
        layout.addWidget(close_box(self))
        self.resize(1100, 760)
        self.screen_widget.name_edit.setFocus()

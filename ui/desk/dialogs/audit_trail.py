"""The audit trail in the window (arts. 14.1.b, 20.4): the game director and the
inspectors browse it by days, user and kind of act, verify the chain against a head they
kept outside the file (typed or pasted), and export what they browsed as CSV.

Every read states its purpose and is recorded by :class:`AuditTrailService`; the slow
work (the search, the whole chain's verification, the export) runs on the store worker.
Entries hold numbers, keyed hashes and codes, never a name: shown as plain text.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from admission.accounts import Operator
from admission.audit_trail import (
    AuditAct,
    AuditPage,
    AuditTrailService,
    act_label,
    checked_query,
    details_text,
)
from admission.errors import AdmissionError
from admission.records import AuditCheck
from admission.reports import ExportTarget, RenderedExport
from ui.desk.dialogs.common import ErrorLine, close_box
from ui.desk.dialogs.save_path import ask_save_path
from ui.desk.jobs import JobRunner
from ui.desk.text import bounded, local_time, message
from ui.desk.theme import VERDICT_COLOURS

__all__ = ["AuditTrailDialog"]

AskPath = Callable[[str, str, str], Path | None]
COLUMNS = 6


def _qdate(day: date) -> QDate:
    return QDate(day.year, day.month, day.day)


def _day(value: QDate) -> date:
    return date(value.year(), value.month(), value.day())


class AuditTrailDialog(QDialog):
    """``operator`` answers who is signed in when an act starts (None: nobody);
    ``export_target`` makes where an export goes; ``language`` the CSV's language."""

    def __init__(
        self,
        service: AuditTrailService,
        runner: JobRunner,
        operator: Callable[[], Operator | None],
        today: Callable[[], date],
        export_target: Callable[[Path], ExportTarget],
        *,
        language: Callable[[], str] = lambda: "es",
        ask_path: AskPath | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        title = self.tr("Registro de auditoría (art. 20.4)")
        self.setWindowTitle(title)
        self.setAccessibleName(title)
        self._service = service
        self._runner = runner
        self._operator = operator
        self._export_target = export_target
        self._language = language
        self.ask_path: AskPath = ask_path or (
            lambda t, name, filters: ask_save_path(self, t, name, filters)
        )
        self.page: AuditPage | None = None
        self.check: AuditCheck | None = None

        day = today()
        self.from_edit = QDateEdit(_qdate(day))
        self.to_edit = QDateEdit(_qdate(day))
        for edit, name in ((self.from_edit, self.tr("Desde")), (self.to_edit, self.tr("Hasta"))):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("dd/MM/yyyy")
            edit.setAccessibleName(name)
        self.actor_edit = QLineEdit()
        self.actor_edit.setMaxLength(60)
        self.actor_edit.setPlaceholderText(self.tr("Todos"))
        self.actor_edit.setAccessibleName(self.tr("Usuario"))
        self.act_combo = QComboBox()
        self.act_combo.setAccessibleName(self.tr("Tipo de acto"))
        self.act_combo.addItem(self.tr("Todos"), "")
        for act in sorted(AuditAct, key=lambda a: act_label(a.value, self._lang())):
            self.act_combo.addItem(act_label(act.value, self._lang()), act.value)
        self.purpose_edit = QLineEdit()
        self.purpose_edit.setMaxLength(200)
        self.purpose_edit.setAccessibleName(self.tr("Motivo de la consulta (obligatorio)"))
        self.purpose_edit.setPlaceholderText(self.tr("Obligatorio: expediente, control…"))
        self.search_button = QPushButton(self.tr("&Buscar"))
        self.search_button.setAutoDefault(False)
        self.search_button.clicked.connect(self.search)
        for field in (self.purpose_edit, self.actor_edit):
            field.returnPressed.connect(self.search)  # Enter in a field searches
        self.export_button = QPushButton(self.tr("&Exportar CSV…"))
        self.export_button.setAutoDefault(False)
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export)

        grid = QGridLayout()
        for column, (label, widget) in enumerate(
            (
                (self.tr("&Desde:"), self.from_edit),
                (self.tr("&Hasta:"), self.to_edit),
                (self.tr("&Usuario:"), self.actor_edit),
                (self.tr("&Acto:"), self.act_combo),
            )
        ):
            caption = QLabel(label)
            caption.setBuddy(widget)
            grid.addWidget(caption, 0, 2 * column)
            grid.addWidget(widget, 0, 2 * column + 1)
        purpose_caption = QLabel(self.tr("&Motivo:"))
        purpose_caption.setBuddy(self.purpose_edit)
        grid.addWidget(purpose_caption, 1, 0)
        grid.addWidget(self.purpose_edit, 1, 1, 1, 5)
        grid.addWidget(self.search_button, 1, 6)
        grid.addWidget(self.export_button, 1, 7)

        self.table = QTableWidget(0, COLUMNS)
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Nº"),
                self.tr("Fecha y hora"),
                self.tr("Usuario"),
                self.tr("Acto"),
                self.tr("Asunto"),
                self.tr("Detalles"),
            ]
        )
        self.table.setAccessibleName(self.tr("Entradas del registro de auditoría"))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.found_label = QLabel()
        self.found_label.setTextFormat(Qt.TextFormat.PlainText)

        # -- the chain's check against an anchor --------------------------------------
        verify_box = QGroupBox(self.tr("Verificar la cadena"))
        self.anchor_edit = QLineEdit()
        self.anchor_edit.setMaxLength(120)
        self.anchor_edit.setPlaceholderText(self.tr("NÚMERO:RESUMEN impreso en el libro diario"))
        self.anchor_edit.setAccessibleName(self.tr("Ancla (cabeza guardada fuera del fichero)"))
        self.anchor_edit.returnPressed.connect(self.verify)
        self.verify_button = QPushButton(self.tr("&Verificar"))
        self.verify_button.setAutoDefault(False)
        self.verify_button.clicked.connect(self.verify)
        self.verify_result = QLabel()
        self.verify_result.setTextFormat(Qt.TextFormat.PlainText)
        self.verify_result.setWordWrap(True)
        self.verify_result.setAccessibleName(self.tr("Resultado de la verificación"))
        # room for two lines and the coloured band's padding, laid out before any answer
        self.verify_result.setMinimumHeight(2 * self.fontMetrics().height() + 16)
        self.head_label = QLabel()
        self.head_label.setTextFormat(Qt.TextFormat.PlainText)
        self.head_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.head_label.setAccessibleName(self.tr("Cabeza actual de la cadena"))
        row = QHBoxLayout()
        anchor_caption = QLabel(self.tr("A&ncla:"))
        anchor_caption.setBuddy(self.anchor_edit)
        row.addWidget(anchor_caption)
        row.addWidget(self.anchor_edit, 1)
        row.addWidget(self.verify_button)
        verify_layout = QVBoxLayout(verify_box)
        verify_layout.addLayout(row)
        verify_layout.addWidget(self.verify_result)
        verify_layout.addWidget(self.head_label)

        self.errors = ErrorLine(self)
        box: QDialogButtonBox = close_box(self, enter_closes=False)  # Enter searches
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addWidget(self.found_label)
        layout.addWidget(self.table, 1)
        layout.addWidget(verify_box)
        layout.addWidget(self.errors)
        layout.addWidget(box)
        self.resize(1100, 720)
        self.purpose_edit.setFocus()
        self.show_head()

    def _lang(self) -> str:
        return "en" if self._language() == "en" else "es"

    # -- acts ------------------------------------------------------------------------
    def _signed(self) -> Operator | None:
        operator = self._operator()
        if operator is None:
            self.errors.show_code("NOT_SIGNED_IN")
        return operator

    def _run(
        self, job: Callable[[], object], done: Callable[[object], None], button: QPushButton
    ) -> None:
        button.setEnabled(False)

        def finished(answer: object) -> None:
            button.setEnabled(True)
            done(answer)

        def failed(error: AdmissionError) -> None:
            button.setEnabled(True)
            self._refused(error.code)

        self._runner.submit(job, finished, failed)

    def _refused(self, code: str) -> None:
        self.errors.show_code(code)
        if code == "INSPECT_PURPOSE_INVALID":
            self.purpose_edit.setFocus()
        elif code == "AUDIT_ANCHOR_INVALID":
            self.anchor_edit.setFocus()
        self.export_button.setEnabled(self.page is not None and bool(self.page.entries))

    def search(self) -> None:
        operator = self._signed()
        if operator is None:
            return
        act = str(self.act_combo.currentData() or "") or None  # "Todos": any act
        try:
            query = checked_query(
                _day(self.from_edit.date()), _day(self.to_edit.date()), self.actor_edit.text(), act
            )
        except AdmissionError as refused:
            self._refused(refused.code)
            return
        service, purpose = self._service, self.purpose_edit.text()
        self.errors.clear_message()
        self._run(
            lambda: service.browse(operator, purpose, query),
            lambda page: self.show_page(page),  # type: ignore[arg-type]
            self.search_button,
        )

    def show_page(self, page: AuditPage) -> None:
        self.page = page
        lang = self._lang()
        self.table.setRowCount(len(page.entries))
        for row, entry in enumerate(page.entries):
            cells = (
                str(entry.seq),
                local_time(entry.at),
                entry.actor,
                act_label(entry.action, lang) or entry.action,
                entry.subject,
                details_text(entry),
            )
            for column, value in enumerate(cells):
                item = QTableWidgetItem(bounded(value, 300))
                if column == 3:
                    item.setToolTip(entry.action)
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        text = self.tr("Entradas encontradas: %1").replace("%1", str(len(page.entries)))
        if not page.complete:
            text += " · " + self.tr("búsqueda detenida: acorte las fechas para ver el resto")
        self.found_label.setText(text)
        self.export_button.setEnabled(bool(page.entries))

    def verify(self) -> None:
        operator = self._signed()
        if operator is None:
            return
        service, anchor = self._service, self.anchor_edit.text()
        self.errors.clear_message()
        self.verify_result.setText(self.tr("Verificando la cadena…"))
        self.verify_result.setStyleSheet("")
        self._run(
            lambda: service.verify(operator, anchor),
            lambda check: self.show_check(check, bool(anchor.strip())),  # type: ignore[arg-type]
            self.verify_button,
        )

    def show_check(self, check: AuditCheck, anchored: bool) -> None:
        self.check = check
        if check.ok:
            text = self.tr("✔ Cadena íntegra: %1 entradas, %2 registros comprobados")
            text = text.replace("%1", str(check.entries)).replace("%2", str(check.rows))
            if anchored:
                text += " · " + self.tr("el ancla coincide")
            colour = VERDICT_COLOURS["ADMIT"]
        else:
            text = "✖ " + message(check.problem)
            if check.first_bad_seq is not None:
                text += " · " + self.tr("primera entrada afectada: nº %1").replace(
                    "%1", str(check.first_bad_seq)
                )
            if check.row:
                text += " · " + bounded(check.row, 60)
            colour = VERDICT_COLOURS["DENY"]
        self.verify_result.setText(text)
        self.verify_result.setStyleSheet(
            f"background: {colour}; color: white; padding: 6px; font-weight: bold;"
        )
        self.show_head()

    def show_head(self) -> None:
        service = self._service

        def shown(head: object) -> None:
            seq, digest = getattr(head, "seq", 0), getattr(head, "digest", "")
            self.head_label.setText(
                self.tr("Cabeza actual (anótela fuera del fichero): %1").replace(
                    "%1", f"{seq}:{digest}"
                )
            )

        self._runner.submit(service.head, shown, lambda error: self._refused(error.code))

    def export(self) -> None:
        operator = self._signed()
        page = self.page
        if operator is None or page is None:
            return
        name = f"auditoria-{page.query.day_from.isoformat()}-{page.query.day_to.isoformat()}.csv"
        path = self.ask_path(self.tr("¿Dónde guardar el registro?"), name, "CSV (*.csv)")
        if path is None:
            return
        if not path.suffix:
            path = path.with_suffix(".csv")
        service, purpose, lang = self._service, self.purpose_edit.text(), self._lang()
        make_target = self._export_target

        def job() -> RenderedExport:
            return service.export_csv(operator, purpose, page, make_target(path), lang)

        def written(done: object) -> None:
            rows = getattr(done, "rows", 0)
            self.errors.show_info(
                self.tr("Exportado: %1 · %2 filas")
                .replace("%1", bounded(path.name, 120))
                .replace("%2", str(rows))
            )

        self._run(job, written, self.export_button)

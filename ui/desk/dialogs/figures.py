"""The game director's figures (art. 14.1.b: the director answers for the admission
service): admissions per hour and per day, card types, revenue and refusals by reason
over a chosen range of Madrid days, as charts and totals.

The figures come from ``ReportService.figures(operator, date_from, date_to)`` (the game
director or an inspector; the service checks the role and audits the reading); they
hold no personal data. The reading runs on the store worker.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any, Protocol

from PySide6.QtCore import QDate, QLocale, Qt
from PySide6.QtWidgets import (
    QDateEdit,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from admission.accounts import Operator
from admission.cards.catalogue import CardCatalogue
from admission.cards.view import format_euros
from ui.desk.changes import OpChanges
from ui.desk.dialogs.common import ErrorLine, close_box, plain_label, run_job
from ui.desk.dialogs.scaffold import titled
from ui.desk.jobs import JobRunner
from ui.desk.text import bounded, message
from ui.desk.widgets.charts import BarChart, Orientation

__all__ = ["FiguresDialog", "FiguresPort", "open_figures"]

MAX_DAYS = 366  # the service refuses a longer range (REPORT_DATE_INVALID)


class FiguresPort(Protocol):
    """What the dialog asks of ``admission.reports.ReportService``."""

    def figures(self, operator: Operator, date_from: date, date_to: date) -> Any: ...


def _qdate(day: date) -> QDate:
    return QDate(day.year, day.month, day.day)


def _day(qdate: QDate) -> date:
    return date(qdate.year(), qdate.month(), qdate.day())


def _count(value: int) -> str:
    return f"{value:,}".replace(",", ".")


class FiguresDialog(QDialog):
    """Date range, totals and five charts; ``show_figures`` fills them."""

    def __init__(
        self,
        reports: FiguresPort,
        runner: JobRunner,
        operator: Operator,
        today: date,
        *,
        catalogue: CardCatalogue | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._reports = reports
        self._runner = runner
        self._operator = operator
        self._catalogue = catalogue
        self.figures: Any = None
        self.shown_range: tuple[date, date] | None = None  # the days last asked for
        titled(self, self.tr("Cifras de admisión (dirección de juegos)"))

        self.from_edit = self._date(self.tr("Desde el día"), today - timedelta(days=6), today)
        self.to_edit = self._date(self.tr("Hasta el día"), today, today)
        self.show_button = QPushButton(self.tr("&Mostrar"))
        self.show_button.setAccessibleName(self.tr("Mostrar las cifras del periodo"))
        self.show_button.setDefault(True)
        self.show_button.clicked.connect(self.load)
        self.week_button = QPushButton(self.tr("Últimos &7 días"))
        self.week_button.setAccessibleName(self.tr("Cifras de los últimos siete días"))
        self.week_button.clicked.connect(lambda: self._range(today - timedelta(days=6), today))
        self.month_button = QPushButton(self.tr("Este m&es"))
        self.month_button.setAccessibleName(self.tr("Cifras del mes en curso"))
        self.month_button.clicked.connect(lambda: self._range(today.replace(day=1), today))
        top = QHBoxLayout()
        for text, field in (
            (self.tr("&Desde:"), self.from_edit),
            (self.tr("&Hasta:"), self.to_edit),
        ):
            label = QLabel(text)
            label.setBuddy(field)
            top.addWidget(label)
            top.addWidget(field)
        top.addWidget(self.show_button)
        top.addSpacing(12)
        top.addWidget(self.week_button)
        top.addWidget(self.month_button)
        top.addStretch(1)

        self.totals = plain_label("", limit=400)
        self.totals.setAccessibleName(self.tr("Totales del periodo"))
        font = self.totals.font()
        font.setBold(True)
        self.totals.setFont(font)

        self.per_hour = BarChart(self.tr("Admisiones por hora"))
        self.per_day = BarChart(self.tr("Admisiones por día"))
        self.card_types = BarChart(self.tr("Tarjetas por tipo"), orientation=Orientation.HORIZONTAL)
        self.revenue = BarChart(
            self.tr("Recaudación por tipo de tarjeta"),
            orientation=Orientation.HORIZONTAL,
            value_text=format_euros,
        )
        self.refusals = BarChart(
            self.tr("Denegaciones por motivo"), orientation=Orientation.HORIZONTAL
        )
        charts = QWidget()
        grid = QGridLayout(charts)
        grid.addWidget(self.per_hour, 0, 0)
        grid.addWidget(self.per_day, 0, 1)
        grid.addWidget(self.card_types, 1, 0)
        grid.addWidget(self.revenue, 1, 1)
        grid.addWidget(self.refusals, 2, 0, 1, 2)
        grid.setRowStretch(0, 1)
        grid.setRowStretch(3, 1)  # the space left goes below the charts
        for chart in (self.per_hour, self.per_day):
            chart.setMinimumHeight(220)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(charts)
        scroll.setAccessibleName(self.tr("Gráficos"))

        self.errors = ErrorLine()
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.totals)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.errors)
        layout.addWidget(close_box(self))
        self.resize(1100, 820)

    def charts(self) -> list[BarChart]:
        return [self.per_hour, self.per_day, self.card_types, self.revenue, self.refusals]

    def _date(self, name: str, initial: date, latest: date) -> QDateEdit:
        edit = QDateEdit(_qdate(initial))
        edit.setAccessibleName(name)
        edit.setCalendarPopup(True)
        edit.setDisplayFormat("dd/MM/yyyy")
        edit.setMaximumDate(_qdate(latest))
        return edit

    def _range(self, first: date, last: date) -> None:
        self.from_edit.setDate(_qdate(first))
        self.to_edit.setDate(_qdate(last))
        self.load()

    # -- reading -----------------------------------------------------------------------
    def load(self) -> None:
        self._read(_day(self.from_edit.date()), _day(self.to_edit.date()))

    def changed(self, changes: OpChanges, _origin: object) -> None:
        """The desk's broadcast: a visit or a card recorded; the figures shown are read
        again over the same days."""
        shown = self.shown_range
        if (changes.admissions or changes.cards) and self.figures is not None and shown:
            self._read(*shown)

    def _read(self, first: date, last: date) -> None:
        reports, operator = self._reports, self._operator
        self.shown_range = (first, last)
        run_job(
            self._runner,
            lambda: reports.figures(operator, first, last),
            self.show_figures,
            self.errors,
            self.show_button,
        )

    def _card_label(self, code: str) -> str:
        catalogue = self._catalogue
        if catalogue is None or code not in catalogue.types:
            return bounded(code, 40)
        card = catalogue.types[code]
        english = QLocale().language() == QLocale.Language.English
        return bounded(card.label_en if english else card.label_es, 40)

    def show_figures(self, figures: Any) -> None:
        """Totals and charts of a ``Figures``."""
        self.figures = figures
        self.errors.clear_message()
        self.totals.setText(
            self.tr("Admisiones: %1 · Denegaciones: %2 · Visitantes: %3 · Recaudación: %4")
            .replace("%1", _count(figures.admissions))
            .replace("%2", _count(figures.refused))
            .replace("%3", _count(figures.visitors))
            .replace("%4", format_euros(figures.revenue_cents))
            # art. 22: re-entries on a card held and the not admitted are not refusals
            + "\n"
            + self.tr(
                "Reentradas con su tarjeta (no son visitas): %1 · No admitidos sin denegación "
                "(RIAJ no disponible, descartados): %2"
            )
            .replace("%1", _count(figures.reentries))
            .replace("%2", _count(figures.not_admitted))
        )
        self.per_hour.set_data([(f"{hour:02d}", n) for hour, n in enumerate(figures.per_hour)])
        self.per_day.set_data([(day.strftime("%d/%m"), n) for day, n in figures.per_day])
        self.card_types.set_data([(self._card_label(c), n) for c, n in figures.card_types])
        self.revenue.set_data([(self._card_label(c), n) for c, n in figures.revenue_by_type])
        self.refusals.set_data([(bounded(message(code), 60), n) for code, n in figures.refusals])
        for chart in (self.card_types, self.revenue, self.refusals):
            chart.setMinimumHeight(chart.sizeHint().height())


def open_figures(
    parent: QWidget,
    reports: FiguresPort,
    runner: JobRunner,
    operator: Operator,
    today: Callable[[], date],
    catalogue: CardCatalogue | None = None,
) -> FiguresDialog:
    """The dialog over the last seven days, loaded at once."""
    dialog = FiguresDialog(reports, runner, operator, today(), catalogue=catalogue, parent=parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.load()
    return dialog

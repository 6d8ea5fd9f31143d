"""The wizard's casino data (name, id, address, logo, opening hours of art. 27, card
types and prices of art. 23.2-3; nothing invented is filled in) and the card printer
with its preflight.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from admission.cards.catalogue import DEFAULT_CARD_TYPES
from admission.errors import ConfigError
from admission.settings import BY_KEY, Settings
from ui.desk.dialogs.common import (
    DialogCode,
    ErrorLine,
    apply_settings,
    show_refusal,
)
from ui.desk.dialogs.printer import PrinterCheck, PrinterFields
from ui.desk.dialogs.settings import CardTypesEditor, CasinoFields, FieldGroup, HoursFields
from ui.desk.dialogs.wizard.page_tools import (
    focus_forward,
)
from ui.desk.jobs import JobRunner

# the one card type a new casino starts from: its price is the casino's to type
FIRST_CARD_TYPE: dict[str, Any] = {
    "code": "DAY",
    "label_es": "Entrada de un día",
    "label_en": "One-day entry",
    "kind": "STANDARD",
    "validity_days": 1,
}


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
        QTimer.singleShot(0, self, lambda: focus_forward(self))

    def validatePage(self) -> bool:
        try:
            apply_settings(self._settings, self.fields.values(), self._path)
        except ConfigError as err:
            show_refusal(self.errors, err, self.fields)
            return False
        return True

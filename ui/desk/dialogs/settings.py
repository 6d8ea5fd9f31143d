"""The settings screens (an administrator's): the casino's data, card types and prices
(art. 23.2-3), opening hours and the last-hour rule (arts. 21.4, 27), devices, the
RIAJ register (art. 20.2) and the printers.

Every value goes through :class:`admission.settings.Settings` (and the card types and
hours through the parsers the desk uses) before the file is written: a refused value is
shown with the catalogue's text and nothing is saved. A saved change applies to the
running desk within a second (``DeskController.apply_settings``), except the settings
read only when the desk starts (``Setting.restart``: the file, the server, the
register's online client, the accounts' lockout): their labels carry a mark and the
dialog says they apply from the next start.

The field groups are widgets of their own, reused by the first-run wizard.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from datetime import date
from typing import Any, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from admission.accounts import Operator, Role
from admission.cards.catalogue import CardKind, CardTypeErrorCode
from admission.errors import ConfigError
from admission.hours import WEEKDAYS
from admission.settings import Settings, needs_restart
from ui.desk.dialogs.common import (
    SETTING,
    DialogCode,
    bind,
    buddy_label,
    tr,
)
from ui.desk.dialogs.printer import PrinterFields
from ui.desk.dialogs.scaffold import SettingsScreen, column
from ui.desk.jobs import JobRunner
from ui.desk.ops.settings import SettingsOps

__all__ = [
    "CardTypesEditor",
    "CasinoFields",
    "DevicesFields",
    "DisplayFields",
    "FieldGroup",
    "FloorFields",
    "HoursFields",
    "RegistryFields",
    "SettingsDialog",
    "is_admin",
]

_HOURS = re.compile(r"(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})")
_PRICE = re.compile(r"(\d{1,6})(?:[.,](\d{1,2}))?")
CLOSED = {"cerrado", "closed", "cerrada"}


class FieldGroup(Protocol):
    def load(self, settings: Settings) -> None: ...

    def values(self) -> dict[str, Any]: ...


def is_admin(operator: Operator | None) -> bool:
    """The settings are an administrator's (ADMIN does not imply DIRECTOR, nor back)."""
    return operator is not None and operator.has(Role.ADMIN)


def _line(name: str, max_length: int = 200) -> QLineEdit:
    edit = QLineEdit()
    edit.setAccessibleName(name)
    edit.setMaxLength(max_length)
    return edit


class CasinoFields(QWidget):
    """casino.name, casino.id, casino.address, desk.id and the logo file."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = _line(self.tr("Nombre del casino"), 120)
        self.casino_id = _line(self.tr("Identificador del casino (1-8 letras o cifras)"), 8)
        self.address = _line(self.tr("Dirección del casino"), 200)
        self.desk_id = _line(self.tr("Identificador de este puesto de admisión"), 20)
        self.logo = _line(self.tr("Archivo del logotipo"), 1000)
        self.browse = QPushButton(self.tr("E&xaminar…"))
        self.browse.setAccessibleName(self.tr("Elegir el archivo del logotipo"))
        self.browse.clicked.connect(self._choose_logo)
        logo_row = QHBoxLayout()
        logo_row.addWidget(self.logo, 1)
        logo_row.addWidget(self.browse)
        form = QFormLayout(self)
        form.addRow(self.tr("&Nombre:"), self.name)
        form.addRow(self.tr("&Identificador:"), self.casino_id)
        form.addRow(self.tr("&Dirección:"), self.address)
        form.addRow(self.tr("&Puesto:"), self.desk_id)
        form.addRow(buddy_label(self.tr("&Logotipo:"), self.logo), logo_row)
        for widget, key in (
            (self.name, "casino.name"),
            (self.casino_id, "casino.id"),
            (self.address, "casino.address"),
            (self.desk_id, "desk.id"),
            (self.logo, "card.logo"),
        ):
            bind(widget, key)

    def _choose_logo(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Logotipo del casino"), "", self.tr("Imágenes (*.png *.jpg *.jpeg)")
        )
        if path:
            self.logo.setText(path)

    def load(self, settings: Settings) -> None:
        self.name.setText(settings["casino.name"])
        self.casino_id.setText(settings["casino.id"])
        self.address.setText(settings["casino.address"])
        self.desk_id.setText(settings["desk.id"])
        self.logo.setText(settings["card.logo"])

    def values(self) -> dict[str, Any]:
        name = " ".join(self.name.text().split())
        if not name:
            raise ConfigError("the casino needs a name", code=DialogCode.FIELD_REQUIRED)
        return {
            "casino.name": name,
            "casino.id": self.casino_id.text().strip().upper(),
            "casino.address": " ".join(self.address.text().split()),
            "desk.id": self.desk_id.text().strip() or "DESK1",
            "card.logo": self.logo.text().strip(),
        }


_KIND_LABELS = {
    CardKind.STANDARD: QT_TRANSLATE_NOOP("Dialogs", "Normal (precio unitario, art. 23.2)"),
    CardKind.CONVENTION: QT_TRANSLATE_NOOP("Dialogs", "Congresos y convenciones (art. 23.3)"),
    CardKind.GROUP_TRIP: QT_TRANSLATE_NOOP("Dialogs", "Viajes de grupo (art. 23.3)"),
    CardKind.MULTI_DAY: QT_TRANSLATE_NOOP("Dialogs", "Varios días (art. 23.3)"),
    CardKind.COMPLEMENTARY: QT_TRANSLATE_NOOP("Dialogs", "Servicios complementarios (art. 23.3)"),
    CardKind.INVITATION: QT_TRANSLATE_NOOP("Dialogs", "Invitación"),
}
_COLUMNS = ("code", "label_es", "label_en", "kind", "price", "validity_days", "several_entries")


def _cents(text: str) -> int:
    match = _PRICE.fullmatch(text.strip().removesuffix("€").strip())
    if match is None:
        raise ConfigError("bad price", code=CardTypeErrorCode.CARD_TYPE_BAD_PRICE)
    euros, cents = match.group(1), (match.group(2) or "0").ljust(2, "0")
    return int(euros) * 100 + int(cents)


def _price(cents: int) -> str:
    return f"{cents // 100},{cents % 100:02d}"


class CardTypesEditor(QWidget):
    """cards.types and cards.default: codes, labels, kinds, prices (art. 23.2-3)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._extra: list[dict[str, Any]] = []  # keys the table does not show, kept
        self.table = QTableWidget(0, len(_COLUMNS))
        self.table.setAccessibleName(self.tr("Tipos de tarjeta y precios"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Código"),
                self.tr("Nombre"),
                self.tr("Nombre en inglés"),
                self.tr("Clase"),
                self.tr("Precio (€)"),
                self.tr("Días"),
                self.tr("Varias entradas"),
            ]
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        for at, width in ((0, 110), (1, 170), (2, 150), (3, 250), (4, 80), (5, 50)):
            self.table.setColumnWidth(at, width)
        self.add_button = QPushButton(self.tr("&Añadir tipo"))
        self.add_button.setAccessibleName(self.tr("Añadir un tipo de tarjeta"))
        self.add_button.clicked.connect(lambda: self._add_row({}))
        self.remove_button = QPushButton(self.tr("&Quitar tipo"))
        self.remove_button.setAccessibleName(self.tr("Quitar el tipo de tarjeta seleccionado"))
        self.remove_button.clicked.connect(self._remove_row)
        self.default = QComboBox()
        self.default.setEditable(True)
        self.default.setAccessibleName(self.tr("Tipo de tarjeta por defecto"))
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        row.addWidget(buddy_label(self.tr("Por &defecto:"), self.default))
        row.addWidget(self.default)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        bind(self.table, "cards.types")
        bind(self.default, "cards.default")

    def _add_row(self, item: dict[str, Any]) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self._extra.append(
            {k: v for k, v in item.items() if k not in (*_COLUMNS, "price_cents", "kind")}
        )
        texts = (
            str(item.get("code", "")),
            str(item.get("label_es", "")),
            str(item.get("label_en", "")),
        )
        for at, value in enumerate(texts):
            self.table.setItem(row, at, QTableWidgetItem(value))
        kind = QComboBox()
        kind.setAccessibleName(self.tr("Clase de tarjeta"))
        for member, label in _KIND_LABELS.items():
            kind.addItem(tr(str(label)), member.value)
        kind.setCurrentIndex(max(0, kind.findData(str(item.get("kind", "STANDARD")))))
        self.table.setCellWidget(row, 3, kind)
        self.table.setItem(row, 4, QTableWidgetItem(_price(int(item.get("price_cents", 0)))))
        self.table.setItem(row, 5, QTableWidgetItem(str(item.get("validity_days", 1))))
        several = QTableWidgetItem()
        several.setFlags(several.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        several.setCheckState(
            Qt.CheckState.Checked if item.get("several_entries") else Qt.CheckState.Unchecked
        )
        self.table.setItem(row, 6, several)

    def _remove_row(self) -> None:
        row = self.table.currentRow()
        if 0 <= row < self.table.rowCount():
            self.table.removeRow(row)
            del self._extra[row]

    def load(self, settings: Settings) -> None:
        self.table.setRowCount(0)
        self._extra = []
        for item in settings["cards.types"]:
            if isinstance(item, dict):
                self._add_row(item)
        self.default.clear()
        self.default.addItems([str(i.get("code", "")) for i in settings["cards.types"]])
        self.default.setCurrentText(settings["cards.default"])

    def _text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return "" if item is None else " ".join(item.text().split())

    def values(self) -> dict[str, Any]:
        types: list[dict[str, Any]] = []
        for row in range(self.table.rowCount()):
            kind = self.table.cellWidget(row, 3)
            days = self._text(row, 5)
            if not days.isdigit():
                raise ConfigError("bad validity", code=CardTypeErrorCode.CARD_TYPE_BAD_VALIDITY)
            label_es = self._text(row, 1)
            several = self.table.item(row, 6)
            try:
                price = _cents(self._text(row, 4))
            except ConfigError:
                self.table.setCurrentCell(row, 4)  # typing now writes the price
                raise
            types.append(
                {
                    **self._extra[row],
                    "code": self._text(row, 0).upper(),
                    "label_es": label_es,
                    "label_en": self._text(row, 2) or label_es,
                    "kind": kind.currentData() if isinstance(kind, QComboBox) else "STANDARD",
                    "price_cents": price,
                    "validity_days": int(days),
                    "several_entries": several is not None
                    and several.checkState() == Qt.CheckState.Checked,
                }
            )
            if not label_es:
                raise ConfigError("a card type needs a name", code=CardTypeErrorCode.CARD_TYPE_BAD)
        return {
            "cards.types": types,
            "cards.default": self.default.currentText().strip().upper(),
        }


_DAY_LABELS = {
    "mon": QT_TRANSLATE_NOOP("Dialogs", "Lunes"),
    "tue": QT_TRANSLATE_NOOP("Dialogs", "Martes"),
    "wed": QT_TRANSLATE_NOOP("Dialogs", "Miércoles"),
    "thu": QT_TRANSLATE_NOOP("Dialogs", "Jueves"),
    "fri": QT_TRANSLATE_NOOP("Dialogs", "Viernes"),
    "sat": QT_TRANSLATE_NOOP("Dialogs", "Sábado"),
    "sun": QT_TRANSLATE_NOOP("Dialogs", "Domingo"),
    "eve": QT_TRANSLATE_NOOP("Dialogs", "Víspera de festivo"),
    "holiday": QT_TRANSLATE_NOOP("Dialogs", "Festivo"),
}


class HoursFields(QWidget):
    """hours (art. 27), holidays and the last-hour rule (art. 21.4)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.days: dict[str, QLineEdit] = {}
        form = QFormLayout(self)
        note = QLabel(
            self.tr(
                "Horario de las salas de juego (art. 27): HH:MM-HH:MM, «cerrado», o vacío. "
                "Vacío en un día de la semana = cerrado; en víspera o festivo = como el día "
                "de la semana. Sin ningún horario, la admisión no tiene límite de horas."
            )
        )
        note.setWordWrap(True)
        note.setAccessibleName(self.tr("Ayuda del horario"))
        form.addRow(note)
        for key in (*WEEKDAYS, "eve", "holiday"):
            edit = _line(tr(str(_DAY_LABELS[key])), 20)
            edit.setPlaceholderText("20:00-05:00")
            self.days[key] = edit
            form.addRow(tr(str(_DAY_LABELS[key])) + ":", edit)
        self.holidays = _line(self.tr("Festivos (AAAA-MM-DD, separados por comas)"), 4000)
        self.holidays.setPlaceholderText("2026-12-25, 2027-01-01")
        form.addRow(self.tr("&Festivos:"), self.holidays)
        self.last_hour = QCheckBox(
            self.tr("No admitir entradas en la última hora antes del cierre (art. 21.4)")
        )
        self.last_hour.setAccessibleName(self.last_hour.text())
        form.addRow(self.last_hour)
        bind(self.days["mon"], "hours")
        bind(self.holidays, "holidays")
        bind(self.last_hour, "admission.stop_last_hour")

    def load(self, settings: Settings) -> None:
        hours = settings["hours"]
        for key, edit in self.days.items():
            value = hours.get(key) if isinstance(hours, dict) else None
            closed = self.tr("cerrado")  # typed back in either language (CLOSED)
            if value is None:
                edit.setText(closed if hours and key in WEEKDAYS else "")
            elif str(value).strip().lower() in ("", "closed"):
                edit.setText(closed)
            else:
                edit.setText(str(value))
        self.holidays.setText(", ".join(str(d) for d in settings["holidays"]))
        self.last_hour.setChecked(bool(settings["admission.stop_last_hour"]))

    def values(self) -> dict[str, Any]:
        hours: dict[str, str] = {}
        for key, edit in self.days.items():
            raw = edit.text().strip().lower()
            if not raw:
                continue
            if raw in CLOSED:
                hours[key] = "closed"
                continue
            match = _HOURS.fullmatch(raw)
            if match is None:
                raise ConfigError("bad hours", code=DialogCode.HOURS_BAD_FORMAT)
            hours[key] = f"{match.group(1).zfill(5)}-{match.group(2).zfill(5)}"
        if hours and all(v == "closed" for v in hours.values()):
            hours = {}  # nothing open: the same as no hours configured
        holidays: list[str] = []
        for part in re.split(r"[,;\s]+", self.holidays.text().strip()):
            if not part:
                continue
            try:
                holidays.append(date.fromisoformat(part).isoformat())
            except ValueError:
                raise ConfigError("bad holiday", code=DialogCode.HOLIDAY_BAD_DATE) from None
        return {
            "hours": hours,
            "holidays": sorted(set(holidays)),
            "admission.stop_last_hour": self.last_hour.isChecked(),
        }


class DevicesFields(QWidget):
    """camera.device, scanner.serial_port, barcode.decoder, the documents' chip reader
    (chip.reader) and what a chip that proves nothing does (admission.chip_unverifiable,
    art. 23.1: a forged chip is always refused, whatever is chosen here)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.camera = _line(self.tr("Cámara: número o ruta del dispositivo"), 300)
        self.serial = _line(self.tr("Puerto serie del lector de documentos"), 300)
        self.serial.setPlaceholderText("COM3" if sys.platform == "win32" else "/dev/ttyUSB0")
        self.decoder = QComboBox()
        self.decoder.setAccessibleName(self.tr("Lector de códigos de barras"))
        self.decoder.addItem("ZXing", "zxing")
        self.decoder.addItem("ZBar", "zbar")
        self.chip_reader = _line(self.tr("Lector de chip: parte de su nombre PC/SC"), 200)
        self.chip_reader.setPlaceholderText(self.tr("Vacío = sin lector de chip · * = el primero"))
        self.chip_unverifiable = QComboBox()
        self.chip_unverifiable.setAccessibleName(self.tr("Si el chip no se puede verificar"))
        self.chip_unverifiable.addItem(self.tr("Puede entrar; se indica (recomendado)"), "ADMIT")
        self.chip_unverifiable.addItem(self.tr("Decide el director de juegos"), "SUPERVISOR")
        self.chip_unverifiable.addItem(self.tr("No puede entrar (no es una denegación)"), "DENY")
        form = QFormLayout(self)
        form.addRow(self.tr("&Cámara:"), self.camera)
        form.addRow(self.tr("&Lector (puerto serie):"), self.serial)
        form.addRow(self.tr("Códigos de &barras:"), self.decoder)
        form.addRow(self.tr("Lector de c&hip:"), self.chip_reader)
        form.addRow(self.tr("Si el chip no se &verifica:"), self.chip_unverifiable)
        chip_note = QLabel(
            self.tr("Un chip falsificado o alterado siempre se deniega (art. 23.1).")
        )
        chip_note.setWordWrap(True)
        form.addRow(chip_note)
        bind(self.camera, "camera.device")
        bind(self.serial, "scanner.serial_port")
        bind(self.decoder, "barcode.decoder")
        bind(self.chip_reader, "chip.reader")
        bind(self.chip_unverifiable, "admission.chip_unverifiable")

    def load(self, settings: Settings) -> None:
        self.camera.setText(settings["camera.device"])
        self.serial.setText(settings["scanner.serial_port"])
        self.decoder.setCurrentIndex(max(0, self.decoder.findData(settings["barcode.decoder"])))
        self.chip_reader.setText(settings["chip.reader"])
        self.chip_unverifiable.setCurrentIndex(
            max(0, self.chip_unverifiable.findData(settings["admission.chip_unverifiable"]))
        )

    def values(self) -> dict[str, Any]:
        return {
            "camera.device": self.camera.text().strip() or "0",
            "scanner.serial_port": self.serial.text().strip(),
            "barcode.decoder": str(self.decoder.currentData()),
            "chip.reader": self.chip_reader.text().strip(),
            "admission.chip_unverifiable": str(self.chip_unverifiable.currentData()),
        }


class DisplayFields(QWidget):
    """ui.language: the window's language (the names of the languages in themselves)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.language = QComboBox()
        self.language.setAccessibleName(self.tr("Idioma de la ventana"))
        self.language.addItem("Español", "es")
        self.language.addItem("English", "en")
        # read from three metres: dark for a dim counter, light for a bright hall
        self.theme = QComboBox()
        self.theme.setAccessibleName(self.tr("Colores de la ventana"))
        self.theme.addItem(self.tr("Oscuro (mostrador con poca luz)"), "dark")
        self.theme.addItem(self.tr("Claro de alto contraste (sala iluminada)"), "light")
        self.font_size = _spin(self.tr("Tamaño del texto"), 10, 24, " pt")
        form = QFormLayout(self)
        form.addRow(self.tr("&Idioma:"), self.language)
        form.addRow(self.tr("C&olores:"), self.theme)
        form.addRow(self.tr("Tamaño del &texto:"), self.font_size)
        bind(self.language, "ui.language")
        bind(self.theme, "ui.theme")
        bind(self.font_size, "ui.font_size")

    def load(self, settings: Settings) -> None:
        self.language.setCurrentIndex(max(0, self.language.findData(settings["ui.language"])))
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings["ui.theme"])))
        self.font_size.setValue(int(settings["ui.font_size"]))

    def values(self) -> dict[str, Any]:
        return {
            "ui.language": str(self.language.currentData()),
            "ui.theme": str(self.theme.currentData()),
            "ui.font_size": self.font_size.value(),
        }


class FloorFields(QWidget):
    """floor.listen, floor.cert_file, floor.key_file: the floor's card-check page served
    from this desk to the staff's phones on the casino's LAN (art. 22.4)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.listen = _line(self.tr("Dirección y puerto de la página de sala"), 300)
        self.listen.setPlaceholderText("0.0.0.0:8443")
        self.cert_file = _line(self.tr("Certificado de la página de sala (PEM)"), 1000)
        self.key_file = _line(self.tr("Clave privada del certificado (PEM)"), 1000)
        note = QLabel(
            self.tr(
                "El personal de sala y los inspectores comprueban las tarjetas con el móvil "
                "en https://DIRECCIÓN:PUERTO/. Vacío: la página no se sirve desde este "
                "puesto. Sin certificado, el puesto crea la autoridad de certificación del "
                "casino e indica cómo instalarla en los móviles."
            )
        )
        note.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow(note)
        form.addRow(self.tr("&Escuchar en:"), self.listen)
        form.addRow(self.tr("Ce&rtificado:"), self.cert_file)
        form.addRow(self.tr("C&lave del certificado:"), self.key_file)
        bind(self.listen, "floor.listen")
        bind(self.cert_file, "floor.cert_file")
        bind(self.key_file, "floor.key_file")

    def load(self, settings: Settings) -> None:
        self.listen.setText(settings["floor.listen"])
        self.cert_file.setText(settings["floor.cert_file"])
        self.key_file.setText(settings["floor.key_file"])

    def values(self) -> dict[str, Any]:
        return {
            "floor.listen": self.listen.text().strip(),
            "floor.cert_file": self.cert_file.text().strip(),
            "floor.key_file": self.key_file.text().strip(),
        }


def _spin(name: str, low: int, high: int, suffix: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setSuffix(suffix)
    spin.setAccessibleName(name)
    return spin


class RegistryFields(QWidget):
    """The RIAJ register (art. 20.2, R1): endpoint, timeouts, replica age, and what the
    desk answers when the register cannot be checked (fail closed by default)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.url = _line(self.tr("Dirección del servicio del RIAJ"), 500)
        self.url.setPlaceholderText(self.tr("Vacío = solo la copia local"))
        self.timeout = _spin(self.tr("Tiempo de espera de la consulta"), 1, 60, " s")
        self.attempts = _spin(self.tr("Intentos por consulta"), 1, 5, "")
        self.max_age = _spin(self.tr("Antigüedad máxima de la copia local"), 1, 168, " h")
        self.sync = _spin(self.tr("Periodo de actualización de la copia"), 1, 1440, " min")
        self.unverifiable = QComboBox()
        self.unverifiable.setAccessibleName(self.tr("Si el RIAJ no se puede consultar"))
        self.unverifiable.addItem(self.tr("No puede entrar (recomendado)"), "DENY")
        self.unverifiable.addItem(self.tr("Decide el director de juegos"), "SUPERVISOR")
        # the regulator's credentials: files and a user name; secrets stay in the keyring
        self.username = _line(self.tr("Usuario del RIAJ"), 120)
        self.ca_file = _line(self.tr("Certificados de la autoridad (CA) del RIAJ"), 1000)
        self.client_cert = _line(self.tr("Certificado de cliente (PEM)"), 1000)
        self.client_key = _line(self.tr("Clave privada del cliente (PEM)"), 1000)
        form = QFormLayout(self)
        form.addRow(self.tr("&Servicio en línea:"), self.url)
        form.addRow(self.tr("&Espera:"), self.timeout)
        form.addRow(self.tr("&Intentos:"), self.attempts)
        form.addRow(self.tr("&Antigüedad máxima de la copia:"), self.max_age)
        form.addRow(self.tr("&Actualizar la copia cada:"), self.sync)
        form.addRow(self.tr("Si el RIAJ &no responde:"), self.unverifiable)
        form.addRow(self.tr("&Usuario:"), self.username)
        form.addRow(self.tr("&CA del servicio:"), self.ca_file)
        form.addRow(self.tr("Certificado de c&liente:"), self.client_cert)
        form.addRow(self.tr("Clave del clien&te:"), self.client_key)
        note = QLabel(
            self.tr("Las contraseñas del RIAJ se guardan en el llavero del sistema, no aquí.")
        )
        note.setWordWrap(True)
        note.setAccessibleName(self.tr("Aviso sobre las contraseñas del RIAJ"))
        form.addRow(note)
        for widget, key in (
            (self.url, "registry.online_url"),
            (self.timeout, "registry.timeout_seconds"),
            (self.attempts, "registry.max_attempts"),
            (self.max_age, "registry.max_replica_age_hours"),
            (self.sync, "registry.sync_minutes"),
            (self.unverifiable, "admission.unverifiable"),
            (self.username, "registry.username"),
            (self.ca_file, "registry.ca_file"),
            (self.client_cert, "registry.client_cert"),
            (self.client_key, "registry.client_key"),
        ):
            bind(widget, key)

    def load(self, settings: Settings) -> None:
        self.url.setText(settings["registry.online_url"])
        self.timeout.setValue(settings["registry.timeout_seconds"])
        self.attempts.setValue(settings["registry.max_attempts"])
        self.max_age.setValue(settings["registry.max_replica_age_hours"])
        self.sync.setValue(settings["registry.sync_minutes"])
        self.unverifiable.setCurrentIndex(
            max(0, self.unverifiable.findData(settings["admission.unverifiable"]))
        )
        self.username.setText(settings["registry.username"])
        self.ca_file.setText(settings["registry.ca_file"])
        self.client_cert.setText(settings["registry.client_cert"])
        self.client_key.setText(settings["registry.client_key"])

    def values(self) -> dict[str, Any]:
        return {
            "registry.online_url": self.url.text().strip(),
            "registry.timeout_seconds": self.timeout.value(),
            "registry.max_attempts": self.attempts.value(),
            "registry.max_replica_age_hours": self.max_age.value(),
            "registry.sync_minutes": self.sync.value(),
            "admission.unverifiable": str(self.unverifiable.currentData()),
            "registry.username": self.username.text().strip(),
            "registry.ca_file": self.ca_file.text().strip(),
            "registry.client_cert": self.client_cert.text().strip(),
            "registry.client_key": self.client_key.text().strip(),
        }


RESTART_MARK = " ⟳"


def mark_restart_fields(root: QWidget, note: str) -> list[str]:
    """Put :data:`RESTART_MARK` on the label of every field under ``root`` whose
    setting applies only from the next start, with ``note`` as its tooltip; the keys."""
    marked: list[str] = []
    for widget in root.findChildren(QWidget):
        key = widget.property(SETTING)
        if not isinstance(key, str) or not needs_restart([key]):
            continue
        widget.setToolTip(note)
        parent = widget.parentWidget()
        form = parent.layout() if parent is not None else None
        label = form.labelForField(widget) if isinstance(form, QFormLayout) else None
        if isinstance(label, QLabel) and not label.text().endswith(RESTART_MARK):
            label.setText(label.text() + RESTART_MARK)
            label.setToolTip(note)
        marked.append(key)
    return sorted(marked)


class SettingsDialog(SettingsScreen):
    """The settings in tabs; saving needs an administrator (``allowed`` check)."""

    def __init__(
        self,
        ops: SettingsOps,
        operator: Operator | None,
        runner: JobRunner,
        *,
        allowed: Callable[[Operator | None], bool] = is_admin,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(ops, self.tr("Configuración"), parent)
        self.casino = CasinoFields()
        self.cards = CardTypesEditor()
        self.hours = HoursFields()
        self.devices = DevicesFields()
        self.registry = RegistryFields()
        self.printers = PrinterFields(runner, ops.preflight)
        self.display = DisplayFields()
        self.floor = FloorFields()
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName(self.tr("Apartados de la configuración"))
        self.tabs.addTab(self.casino, self.tr("&Casino"))
        self.tabs.addTab(self.cards, self.tr("&Tarjetas y precios"))
        self.tabs.addTab(self.hours, self.tr("&Horario"))
        self.tabs.addTab(self.devices, self.tr("&Dispositivos"))
        self.tabs.addTab(self.registry, self.tr("&Registro (RIAJ)"))
        self.tabs.addTab(self.printers, self.tr("&Impresoras"))
        self.tabs.addTab(self.display, self.tr("P&antalla"))
        self.tabs.addTab(self.floor, self.tr("&Sala"))
        self._groups: tuple[FieldGroup, ...] = (
            self.casino,
            self.cards,
            self.hours,
            self.devices,
            self.registry,
            self.printers,
            self.display,
            self.floor,
        )
        for group in self._groups:
            group.load(ops.settings)
        restart_note = self.tr(
            "Se aplica al reiniciar el programa (se lee solo al arrancar el puesto)."
        )
        self.restart_keys = mark_restart_fields(self.tabs, restart_note)
        self.applies_note = QLabel(
            self.tr(
                "Los cambios se aplican al guardar, en el puesto en marcha. Los campos "
                "marcados con ⟳ se aplican al reiniciar el programa."
            )
        )
        self.applies_note.setWordWrap(True)
        self.applies_note.setAccessibleName(self.tr("Cuándo se aplican los cambios"))
        buttons = self._buttons(
            (
                self.tr("Guardar o cancelar"),
                self.tr("&Guardar"),
                self.tr("Guardar la configuración"),
                self.tr("Cancelar"),
                self.tr("Cancelar sin guardar"),
            )
        )
        column(self, (self.tabs, 1), self.applies_note, self.errors, buttons)
        self.resize(860, 560)
        self._allow(allowed(operator), self.tabs, DialogCode.SETTINGS_NEED_ADMIN)

    def changes(self) -> dict[str, Any]:
        """Every field's value (raises ConfigError on a value no setting accepts)."""
        values: dict[str, Any] = {}
        for index, group in enumerate(self._groups):
            try:
                values.update(group.values())
            except ConfigError:
                self.tabs.setCurrentIndex(index)
                raise
        return values

    def save(self) -> bool:
        return self._save(self.changes, self.tabs)

    def _refused_at(self, field: QWidget | None) -> None:
        for index, group in enumerate(self._groups):
            if field is not None and isinstance(group, QWidget) and group.isAncestorOf(field):
                self.tabs.setCurrentIndex(index)

"""The desk's status bar: camera, readers, printer, register, database - and DEMO.

Each device shows a word for its state, and the catalogue's sentence for the last
problem (a device that answers something not understood says so, never its raw bytes).
The register shows how fresh the local copy is (art. 20.2: every admission is checked
against the RIAJ; a stale copy is the director's concern). In demo mode a purple banner
says the data is invented.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from admission.devices import DeviceStatus
from ui.dialogs.common import bounded, message
from ui.theme import DEMO_COLOUR

__all__ = ["DeskStatusBar"]

_FIXED = ("camera", "printer", "register", "database")


class DeskStatusBar(QStatusBar):
    def __init__(self, *, demo: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(self.tr("Estado de los dispositivos"))
        self.labels: dict[str, QLabel] = {}
        self.demo = QLabel(self.tr("DEMO · datos inventados"))
        self.demo.setTextFormat(Qt.TextFormat.PlainText)
        self.demo.setAccessibleName(self.tr("Modo demostración"))
        self.demo.setStyleSheet(
            f"background: {DEMO_COLOUR}; color: white; font-weight: bold; padding: 2px 8px;"
        )
        self.demo.setVisible(demo)
        self.addWidget(self.demo)
        for device in _FIXED:
            self._label(device)
        self.last_error = QLabel()
        self.last_error.setTextFormat(Qt.TextFormat.PlainText)
        self.last_error.setAccessibleName(self.tr("Último error"))
        self.addPermanentWidget(self.last_error)

    def _names(self) -> dict[str, str]:
        return {
            "camera": self.tr("Cámara"),
            "printer": self.tr("Impresora"),
            "register": self.tr("Registro RIAJ"),
            "database": self.tr("Fichero"),
        }

    def _label(self, device: str) -> QLabel:
        label = self.labels.get(device)
        if label is None:
            label = QLabel()
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setAccessibleName(self._device_name(device))
            self.labels[device] = label
            self.addWidget(label)
            label.setText(f"{self._device_name(device)}: …")
        return label

    def _device_name(self, device: str) -> str:
        if device.startswith("reader:"):
            return self.tr("Lector") + " " + bounded(device[len("reader:") :], 30)
        return self._names().get(device, bounded(device, 30))

    def _status_word(self, status: str) -> str:
        words = {
            DeviceStatus.READY.value: self.tr("lista"),
            DeviceStatus.NOT_FOUND.value: self.tr("no encontrada"),
            DeviceStatus.NO_MEDIA.value: self.tr("sin papel"),
            DeviceStatus.BUSY.value: self.tr("ocupada"),
            DeviceStatus.PAUSED.value: self.tr("en pausa"),
            DeviceStatus.REJECTING.value: self.tr("rechaza trabajos"),
            DeviceStatus.LOST.value: self.tr("desconectada"),
            DeviceStatus.ERROR.value: self.tr("error"),
        }
        return words.get(status, self.tr("respuesta no reconocida"))

    def set_status(self, device: str, status: str, detail: str) -> None:
        label = self._label(device)
        ok = status == DeviceStatus.READY.value
        label.setText(
            f"{'●' if ok else '▲'} {self._device_name(device)}: {self._status_word(status)}"
        )
        label.setStyleSheet("" if ok else "color: #FF8A80; font-weight: bold;")
        if detail and not ok:
            self.last_error.setText(bounded(f"{self._device_name(device)}: {message(detail)}", 160))

    def set_absent(self, device: str) -> None:
        """No such device is configured at this desk (e.g. no camera)."""
        label = self._label(device)
        label.setText(f"○ {self._device_name(device)}: " + self.tr("no configurada"))
        label.setStyleSheet("")

    def set_register_age(self, age_seconds: int | None, error: str = "") -> None:
        """The register copy's age; ``error`` the last sync problem's code."""
        label = self._label("register")
        if age_seconds is None:
            label.setText("▲ " + self.tr("Registro RIAJ: sin copia local"))
            label.setStyleSheet("color: #FF8A80; font-weight: bold;")
        else:
            hours, rest = divmod(age_seconds, 3600)
            age = f"{hours} h {rest // 60} min" if hours else f"{rest // 60} min"
            label.setText("● " + self.tr("Registro RIAJ: copia de hace ") + age)
            label.setStyleSheet("")
        if error:
            self.last_error.setText(bounded(self.tr("Registro RIAJ") + ": " + message(error), 160))

    def text_of(self, device: str) -> str:
        return self._label(device).text()

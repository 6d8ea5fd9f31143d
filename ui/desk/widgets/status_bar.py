"""The desk's status bar: camera, readers, printer, register, database - and DEMO.

Each device shows a word for its state, and the catalogue's sentence for the last
problem (a device that answers something not understood says so, never its raw bytes).
The register shows how fresh the local copy is (art. 20.2: every admission is checked
against the RIAJ; a stale copy is the director's concern). In demo mode a purple banner
says the data is invented.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QStatusBar, QWidget

from admission.devices import DeviceStatus
from ui.desk.text import MADRID, bounded, message
from ui.desk.theme import DEMO_COLOUR, alert_style
from ui.desk.widgets import ElidedLabel

__all__ = ["DeskStatusBar"]

_FIXED = ("camera", "printer", "register", "database")
_GAP = 12  # between two devices


class DeviceStrip(QWidget):
    """The devices' labels in a row, each as wide as its text; when the window is too
    narrow for one row, they continue on a second row (the status bar grows) instead
    of cutting a word. Its minimum width is the widest label's."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: list[QLabel] = []
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def add(self, label: QLabel) -> None:
        label.setParent(self)
        label.installEventFilter(self)
        self.items.append(label)
        label.show()
        self._relayout()

    def _shown(self) -> list[QLabel]:
        return [i for i in self.items if not i.isHidden()]

    def _place(self, width: int, apply: bool) -> int:
        """Lay the labels out in ``width``, rows centred on their tallest label; the
        height used."""
        rows: list[list[QLabel]] = [[]]
        x = 0
        for item in self._shown():
            hint = item.sizeHint()
            if rows[-1] and x + hint.width() > width:
                rows.append([])
                x = 0
            rows[-1].append(item)
            x += hint.width() + _GAP
        y = 0
        for row in rows:
            line = max((i.sizeHint().height() for i in row), default=0)
            x = 0
            for item in row:
                hint = item.sizeHint()
                if apply:
                    top = y + (line - hint.height()) // 2
                    item.setGeometry(QRect(x, top, hint.width(), hint.height()))
                x += hint.width() + _GAP
            y += line
        return y

    def _relayout(self) -> None:
        room = max(self.width(), self.minimumSizeHint().width()) - _GAP  # a gap at the end
        self.setMinimumHeight(self._place(room, False))
        self._place(self.width() - _GAP, True)
        self.updateGeometry()

    def sizeHint(self) -> QSize:  # Qt override: all in one row
        shown = self._shown()
        width = sum(i.sizeHint().width() + _GAP for i in shown)
        height = max((i.sizeHint().height() for i in shown), default=0)
        return QSize(width, max(height, self.minimumHeight()))

    def minimumSizeHint(self) -> QSize:  # Qt override: the widest label
        width = max((i.sizeHint().width() for i in self._shown()), default=0)
        return QSize(width + _GAP, self.minimumHeight())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._relayout()

    def event(self, event: QEvent) -> bool:  # Qt override: a label's text changed
        if event.type() is QEvent.Type.LayoutRequest:
            self._relayout()
        return super().event(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() in (
            QEvent.Type.Show,
            QEvent.Type.Hide,
            QEvent.Type.FontChange,
            QEvent.Type.StyleChange,
        ):
            self._relayout()
        return False


class DeskStatusBar(QStatusBar):
    """Left: the last problem (elided, whole in its tooltip), or a passing message.
    Right, always shown: DEMO and each device with its word. A device's label is never
    narrower than its text, so the window's minimum width keeps every word whole."""

    def __init__(self, *, demo: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(self.tr("Estado de los dispositivos"))
        self.labels: dict[str, QLabel] = {}
        self._server = ""  # the server's host:port/db once known; "" for the desk's own file
        self._median_ms: float | None = None
        self._failover_at: datetime | None = None  # the desk moved to another primary then
        # the primary's commits do not wait for a standby (db/pg/primary.py), said apart
        self.sync_warning = QLabel()
        self.sync_warning.setTextFormat(Qt.TextFormat.PlainText)
        self.sync_warning.setStyleSheet(alert_style(bold=True))
        self.sync_warning.setVisible(False)
        self._register_error = ""  # the register's problem last shown as the last error
        self.last_error = ElidedLabel(name=self.tr("Último error"), limit=160, min_chars=6)
        self.last_error.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.addWidget(self.last_error, 1)  # hidden while a passing message shows
        self.demo = QLabel(self.tr("DEMO · datos inventados"))
        self.demo.setTextFormat(Qt.TextFormat.PlainText)
        self.demo.setAccessibleName(self.tr("Modo demostración"))
        self.demo.setStyleSheet(
            f"background: {DEMO_COLOUR}; color: white; font-weight: bold; padding: 2px 8px;"
        )
        self.devices = DeviceStrip()
        self.devices.setAccessibleName(self.tr("Dispositivos"))
        self.devices.add(self.demo)
        self.demo.setVisible(demo)
        self.devices.add(self.sync_warning)
        self.addPermanentWidget(self.devices)
        for device in _FIXED:
            self._label(device)

    def _names(self) -> dict[str, str]:
        return {
            "camera": self.tr("Cámara"),
            "printer": self.tr("Impresora"),
            "register": self.tr("Registro RIAJ"),
            "database": self.tr("Servidor") if self._server else self.tr("Fichero"),
            "floor": self.tr("Página de sala"),
            "chip": self.tr("Lector de chip"),
        }

    def _label(self, device: str) -> QLabel:
        label = self.labels.get(device)
        if label is None:
            label = QLabel()
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setAccessibleName(self._device_name(device))
            self.labels[device] = label
            self.devices.add(label)  # as wide as its text: the word stays whole
            label.setText(f"○ {self._device_name(device)}: " + self.tr("sin comprobar"))
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
        """``detail`` of a device that is not ready is its problem's code; of a ready one,
        a warning that still needs a hand (the chip reader's stale master list)."""
        label = self._label(device)
        ok = status == DeviceStatus.READY.value
        text = f"{'●' if ok and not detail else '▲'} {self._device_name(device)}: "
        text += self._status_word(status)
        if ok and detail:
            text += " · " + bounded(message(detail), 60)
        label.setText(text)
        label.setStyleSheet("" if ok and not detail else alert_style(bold=True))
        if detail:
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
            label.setStyleSheet(alert_style(bold=True))
        else:
            hours, rest = divmod(age_seconds, 3600)
            age = f"{hours} h {rest // 60} min" if hours else f"{rest // 60} min"
            # a copy past its limit or a sync that failed: marked, as a device in error
            mark = "▲ " if error else "● "
            label.setText(mark + self.tr("Registro RIAJ: copia de hace ") + age)
            label.setStyleSheet(alert_style(bold=True) if error else "")
        shown = bounded(self.tr("Registro RIAJ") + ": " + message(error), 160) if error else ""
        if shown:
            self.last_error.setText(shown)
        elif self._register_error and self.last_error.text() == self._register_error:
            self.last_error.setText("")  # a fresh copy: the register's old problem is gone
        self._register_error = shown

    def set_floor(self, url: str, problem: str) -> None:
        """The floor's card-check page served from this desk (art. 22.4): the address
        phones open, or the code of why it did not start; nothing when it is not set."""
        if not url and not problem:
            return
        label = self._label("floor")
        if url:
            label.setText("● " + self.tr("Sala: %1").replace("%1", bounded(url, 60)))
            label.setStyleSheet("")
        else:
            label.setText("▲ " + self.tr("Sala: no se sirve"))
            label.setStyleSheet(alert_style(bold=True))
            self.last_error.setText(bounded(self.tr("Sala") + ": " + message(problem), 160))
        label.setToolTip(problem)

    def set_server(self, where: str, median_ms: float | None) -> None:
        """The casino's server (arts. 154-155) in the database's place: the host the desk
        writes on and its median round trip, or that it does not answer - said at once,
        since the desk then admits nobody on its own - and the time of the last failover."""
        self._server = bounded(where, 60)
        self._median_ms = median_ms
        self._show_server()

    def set_followed(self, failover_at: datetime | None, warning: str) -> None:
        """The last failover (the desk moved to the promoted standby) and the primary's
        warning: its commits do not wait for a standby (art. 22.1), by the catalogue."""
        self._failover_at = failover_at
        self.sync_warning.setText("▲ " + message(warning) if warning else "")
        self.sync_warning.setToolTip(warning)
        self.sync_warning.setAccessibleName(warning)
        self.sync_warning.setVisible(bool(warning))
        if self._server:
            self._show_server()

    def _show_server(self) -> None:
        label = self._label("database")
        label.setAccessibleName(self._device_name("database"))
        failover = ""
        if self._failover_at is not None:
            at = self._failover_at.astimezone(MADRID).strftime("%H:%M")
            failover = " · " + self.tr("relevo %1").replace("%1", at)
        if self._median_ms is None:
            text = self.tr("Servidor %1: sin respuesta").replace("%1", self._server)
            label.setText("▲ " + text + failover)
            label.setStyleSheet(alert_style(bold=True))
        else:
            median = self._median_ms
            shown = f"{median:.0f}" if median >= 1 else "<1"
            text = self.tr("Servidor %1 · %2 ms").replace("%1", self._server).replace("%2", shown)
            label.setText("● " + text + failover)
            label.setStyleSheet("")

    def text_of(self, device: str) -> str:
        return self._label(device).text()

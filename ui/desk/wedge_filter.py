"""Application-wide key filter that feeds keyboard-wedge readers to the MRZ assembler.

Installed once on the QApplication (``app.installEventFilter(WedgeFilter(feeder))``).
Every plain key press is held for a few milliseconds while the feeder decides whether a
reader or a person is typing; a person's keys are then re-sent, unchanged and in order,
to the widget that first received them, so typing in any field keeps working. A reader's
burst never reaches a widget: it comes out as a signal.

Signals (past tense, STYLE.md rule 12):

* ``mrz_scanned(MrzScanned)`` -- hand ``lines`` to ``parse_mrz`` like the camera's;
* ``code_scanned(str)`` -- a card code or barcode text: untrusted, show as plain text only;
* ``burst_discarded(str)`` -- a BURST_* hint code: "scan again" on screen.

Scanned text is never typed into widgets, so a reader cannot inject markup or trigger
shortcuts: inside a burst, chords and shortcut overrides are swallowed and spoil it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent

from admission.mrz.burst import BurstDiscarded, CodeScanned, MrzScanned
from hardware.scanner.wedge import WedgeFeeder, WedgeResult

__all__ = ["HeldKey", "WedgeFilter"]

_CHORD = (
    Qt.KeyboardModifier.ControlModifier
    | Qt.KeyboardModifier.AltModifier
    | Qt.KeyboardModifier.MetaModifier
)
_TERMINATORS = frozenset("\r\n\t")


@dataclass(frozen=True, slots=True)
class HeldKey:
    """A copy of a held key press and the object it was meant for."""

    receiver: QObject
    event: QKeyEvent


def _copy(event: QKeyEvent) -> QKeyEvent:
    return QKeyEvent(
        event.type(),
        event.key(),
        event.modifiers(),
        event.nativeScanCode(),
        event.nativeVirtualKey(),
        event.nativeModifiers(),
        event.text(),
        event.isAutoRepeat(),
        event.count(),
    )


def _plain_char(event: QKeyEvent) -> str | None:
    """The one character a reader could have typed with this key, else None."""
    if event.isAutoRepeat() or event.modifiers() & _CHORD:
        return None
    text = event.text()
    if len(text) != 1 or not (text.isprintable() or text in _TERMINATORS):
        return None
    return text


class WedgeFilter(QObject):
    mrz_scanned = Signal(object)
    code_scanned = Signal(str)
    burst_discarded = Signal(str)

    def __init__(
        self,
        feeder: WedgeFeeder[HeldKey] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        use_event_time: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.feeder: WedgeFeeder[HeldKey] = feeder or WedgeFeeder()
        self.enabled = True
        self._clock = clock
        self._use_event_time = use_event_time
        self._offset: float | None = None  # monotonic - event time, smallest seen
        self._replaying = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.poll_now)

    # Qt override: camelCase by necessity
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self._replaying or not self.enabled:
            return False
        kind = event.type()
        if kind == QEvent.Type.ShortcutOverride and self.feeder.in_burst:
            event.accept()  # no shortcut fires while a reader is typing
            return True
        if kind != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        char = _plain_char(event)
        held = HeldKey(watched, _copy(event))
        if char is None:
            result = self.feeder.other_key(held)
        else:
            result = self.feeder.key(char, held, self._event_time(event))
        self._apply(result)
        return result.swallow

    def poll_now(self) -> None:
        """Timer slot: give back a person's keys, or end a reader's burst."""
        self._apply(self.feeder.poll(self._clock()))

    def _event_time(self, event: QKeyEvent) -> float:
        """When the key was pressed, on our monotonic clock.

        The window system's timestamp survives a busy GUI thread (queued keys of a person
        would otherwise arrive together and look like a burst).
        """
        now = self._clock()
        stamp = event.timestamp() if self._use_event_time else 0
        if not stamp:
            return now
        offset = now - stamp / 1000.0
        if self._offset is None or offset < self._offset or offset - self._offset > 60:
            self._offset = offset  # re-sync after clock jumps
        return min(now, stamp / 1000.0 + self._offset)

    def _apply(self, result: WedgeResult[HeldKey]) -> None:
        for held in result.release:
            self._replay(held)
        for event in result.events:
            if isinstance(event, MrzScanned):
                self.mrz_scanned.emit(event)
            elif isinstance(event, CodeScanned):
                self.code_scanned.emit(event.text)
            elif isinstance(event, BurstDiscarded):
                self.burst_discarded.emit(event.code)
        self._arm()

    def _replay(self, held: HeldKey) -> None:
        if not shiboken6.isValid(held.receiver):
            return  # the widget went away while the key was held
        self._replaying = True
        try:
            QCoreApplication.sendEvent(held.receiver, held.event)
        finally:
            self._replaying = False

    def _arm(self) -> None:
        deadline = self.feeder.deadline()
        if deadline is None:
            self._timer.stop()
            return
        wait_ms = max(0, int((deadline - self._clock()) * 1000) + 1)
        self._timer.start(wait_ms)

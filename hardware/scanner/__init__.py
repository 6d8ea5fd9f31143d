"""Document and barcode readers that type or send what they read (issue 4).

Two ways in, one assembler (:mod:`admission.mrz.burst`):

* ``wedge.WedgeFeeder`` -- USB readers that emulate a keyboard. The GUI's application-wide
  event filter (``ui/wedge_filter.py``) hands it every key; it answers which keys to hold
  and which to give back, so a person typing is never disturbed.
* ``serial_reader.SerialDocumentReader`` -- readers on a serial / USB-CDC port (pyserial).
* ``fake.FakeDocumentReader`` -- replays recorded bursts with their timing (tests, demo).

A reader's output reaches the rest of the app as :data:`ScannerEvent` values: the
assembler's events (an MRZ, a code, a discarded burst with its hint code) plus
:class:`ReaderStatusChanged` when a device goes away or comes back. Device loss is an
event, never an exception (STYLE.md rule 8). No Qt here (rule 3).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from admission.mrz.burst import (
    BurstDiscarded,
    BurstEvent,
    CodeScanned,
    MrzScanned,
    Passthrough,
)

__all__ = [
    "BurstDiscarded",
    "CodeScanned",
    "DocumentReader",
    "MrzScanned",
    "Passthrough",
    "ReaderStatus",
    "ReaderStatusChanged",
    "ScannerEvent",
]


class ReaderStatus(StrEnum):
    """Preflight answer and status events (STYLE.md rule 8)."""

    READY = "READY"
    NOT_FOUND = "NOT_FOUND"  # no such port / device unplugged before start
    BUSY = "BUSY"  # port held by another program
    LOST = "LOST"  # was working, went away (unplugged, driver error); retrying
    ERROR = "ERROR"  # permission denied, bad settings


@dataclass(frozen=True, slots=True)
class ReaderStatusChanged:
    """The device changed state; ``reconnected`` is True on READY after a loss."""

    status: ReaderStatus
    detail: str = ""  # English, for logs and the settings screen; never scanned data
    reconnected: bool = False


ScannerEvent = BurstEvent | ReaderStatusChanged


class DocumentReader(Protocol):
    """A reader that sends MRZs and codes by itself (serial, fake)."""

    @property
    def name(self) -> str: ...

    def preflight(self) -> ReaderStatus: ...

    def listen(self, stop: threading.Event) -> Iterator[ScannerEvent]:
        """Yield events until ``stop`` is set; returns within ~0.2 s of it being set.

        Meant to run in the device's worker thread (an abortable generator worker).
        Never raises for device trouble: yields :class:`ReaderStatusChanged` instead.
        """
        ...

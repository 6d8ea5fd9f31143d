"""Document and barcode readers that type or send what they read.

Two ways in, one assembler (:mod:`admission.mrz.burst`):

* ``wedge.WedgeFeeder`` -- USB readers that emulate a keyboard. The GUI's application-wide
  event filter (``ui/desk/wedge_filter.py``) hands it every key; it answers which keys to hold
  and which to give back, so a person typing is never disturbed.
* ``serial_reader.SerialDocumentReader`` -- readers on a serial / USB-CDC port (pyserial).
* ``fake.FakeDocumentReader`` -- replays recorded bursts with their timing (tests, demo).

The port, :class:`admission.devices.DocumentReader`, and what crosses it live in the
domain: a reader's output reaches the rest of the app as
:data:`admission.devices.ScannerEvent` values -- the assembler's events (an MRZ, a code,
a discarded burst with its hint code) plus :class:`admission.devices.ReaderStatusChanged`
when a device goes away or comes back. Device loss is an event, never an exception
(STYLE.md rule 8). No Qt here (rule 3).
"""

from __future__ import annotations

from admission.devices import DocumentReader, ReaderStatusChanged, ScannerEvent
from admission.mrz.burst import (
    BurstDiscarded,
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
    "ReaderStatusChanged",
    "ScannerEvent",
]

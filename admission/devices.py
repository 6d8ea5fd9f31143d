"""Device ports, the plain values that cross them and one status vocabulary (STYLE.md 6-9).

Four ports, one per kind of device, each a small Protocol named for its role:

* :class:`Camera` -- a source of :class:`admission.frames.Frame` values.
* :class:`DocumentReader` -- a reader that sends MRZs and codes by itself (serial, USB).
* :class:`BarcodeDecoder` -- finds and decodes the barcodes of one frame.
* :class:`CardPrinter` -- one print queue for cards, vouchers and leaflets.

Every device answers ``preflight()`` in one vocabulary, :class:`DeviceStatus` (a printer
wraps it in :class:`PrinterState` with a detail for the log). Failures are
:class:`admission.errors.DeviceError` carrying a :class:`DeviceErrorCode`; the interface
turns codes into sentences (rule 13). The adapters live in ``hardware/<kind>/``; this
module imports only the standard library (rule 2).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum, unique
from typing import Protocol

from admission.codes import Code
from admission.frames import Frame
from admission.mrz.burst import BurstEvent

__all__ = [
    "A4",
    "A5",
    "CR80",
    "RECEIPT_80",
    "BarcodeDecoder",
    "Camera",
    "CardPrinter",
    "DecodedBarcode",
    "DeviceErrorCode",
    "DeviceStatus",
    "DocumentReader",
    "JobResult",
    "JobState",
    "PageSize",
    "PrinterInfo",
    "PrinterState",
    "ReaderStatusChanged",
    "ScannerEvent",
    "Sound",
    "SoundPlayer",
    "Symbology",
    "printer_refusal_code",
]


@unique
class DeviceStatus(StrEnum):
    """A device's preflight answer, for every kind of device (STYLE.md rule 8).

    Not every kind uses every member; the comments say what each means per kind.
    The values are printed by the command line (``"status": "READY"``) and never change.
    """

    # camera: opens and delivers a frame; reader: the port opens;
    # decoder: the library is loaded; printer: the queue is idle and accepting jobs
    READY = "READY"
    # camera: no such device index, file or folder; reader: no such port (unplugged
    # before start); decoder: the library or its shared object is not installed;
    # printer: no such queue, the CUPS scheduler is down, or the PDF folder cannot be made
    NOT_FOUND = "NOT_FOUND"
    # camera: opened, but it has no frames (empty video, folder without images);
    # printer: out of cards or paper, where the queue reports it; reader, decoder: unused
    NO_MEDIA = "NO_MEDIA"
    # camera: held by another program (opens, delivers nothing); reader: the port is held
    # by another program; printer: printing another job -- still usable, jobs wait;
    # decoder: unused
    BUSY = "BUSY"
    # printer: the queue is disabled or stopped (CUPS "disabled", Qt "Aborted");
    # camera, reader, decoder: unused
    PAUSED = "PAUSED"
    # printer: the queue does not accept jobs (``lpstat -a``: "not accepting");
    # camera, reader, decoder: unused
    REJECTING = "REJECTING"
    # reader: was working and went away (unplugged, driver error), being reopened;
    # camera: unused (a lost camera is the CAMERA_LOST error of ``read``); decoder,
    # printer: unused
    LOST = "LOST"
    # camera: any other failure; reader: permission denied or bad port settings;
    # decoder: the shared library fails to load; printer: the queue reports an error
    # (jam, door open, offline), the PDF folder is not writable, Qt's error state
    ERROR = "ERROR"

    @property
    def usable(self) -> bool:
        """A job sent now will be done: READY, or BUSY (it waits its turn in the queue).

        Meant for printers. A camera or reader that is BUSY is held by another program
        and cannot be used: for those, ask ``status is DeviceStatus.READY``.
        """
        return self in (DeviceStatus.READY, DeviceStatus.BUSY)


@unique
class DeviceErrorCode(Code):
    """The codes of :class:`admission.errors.DeviceError` and of a failed print.

    Values are the JSON contract (``"error"`` / ``"reason"`` of the command line) and
    never change.
    """

    # camera (hardware/camera)
    CAMERA_NOT_FOUND = "CAMERA_NOT_FOUND"  # the source never opened
    CAMERA_LOST = "CAMERA_LOST"  # it delivered frames, then none after reconnecting
    CAMERA_END_OF_STREAM = "CAMERA_END_OF_STREAM"  # a replayed script/folder/video ended
    # a camera's preflight answer as a reason (``watch-document``; hardware/camera's
    # ``refusal_code``): ``CAMERA_<status>``, NOT_FOUND and LOST are above
    CAMERA_NO_MEDIA = "CAMERA_NO_MEDIA"
    CAMERA_BUSY = "CAMERA_BUSY"
    CAMERA_PAUSED = "CAMERA_PAUSED"  # no camera adapter answers PAUSED today
    CAMERA_REJECTING = "CAMERA_REJECTING"  # no camera adapter answers REJECTING today
    CAMERA_ERROR = "CAMERA_ERROR"
    # barcode decoder (hardware/barcode)
    DECODER_NOT_FOUND = "DECODER_NOT_FOUND"  # zxing-cpp / pyzbar / libzbar not installed
    DECODER_ERROR = "DECODER_ERROR"  # the library failed on a frame
    # printer (hardware/printer): the spooler and the queue
    CUPS_NOT_INSTALLED = "CUPS_NOT_INSTALLED"  # lp / lpstat / cancel missing
    CUPS_TIMEOUT = "CUPS_TIMEOUT"  # a CUPS command did not answer in time
    PRINTER_BAD_NAME = "PRINTER_BAD_NAME"  # a queue name CUPS cannot have
    PRINTER_NOT_FOUND = "PRINTER_NOT_FOUND"
    PRINTER_PAUSED = "PRINTER_PAUSED"
    PRINTER_REJECTING = "PRINTER_REJECTING"
    PRINTER_NO_MEDIA = "PRINTER_NO_MEDIA"
    PRINTER_ERROR = "PRINTER_ERROR"
    PRINT_SUBMIT_FAILED = "PRINT_SUBMIT_FAILED"  # the spooler refused the document
    PRINT_UNKNOWN_JOB = "PRINT_UNKNOWN_JOB"  # following a job id this printer never gave
    # print outcomes (hardware/printer/service.py): the card stays ISSUED (art. 22.3)
    RENDER_FAILED = "RENDER_FAILED"  # the document could not be drawn
    PRINT_FAILED = "PRINT_FAILED"  # the job was aborted or cancelled by the system
    PRINTER_VANISHED = "PRINTER_VANISHED"  # the queue disappeared during the job
    PRINT_TIMEOUT = "PRINT_TIMEOUT"  # still pending at the timeout: cancelled


# ---------------------------------------------------------------- camera


class Camera(Protocol):
    """A source of frames. ``read`` raises :class:`admission.errors.DeviceError`."""

    def preflight(self) -> DeviceStatus: ...

    def read(self) -> Frame: ...

    def close(self) -> None: ...


# ---------------------------------------------------------------- document reader


@dataclass(frozen=True, slots=True)
class ReaderStatusChanged:
    """A reader changed state; ``reconnected`` is True on READY after a loss."""

    status: DeviceStatus
    detail: str = ""  # English, for logs and the settings screen; never scanned data
    reconnected: bool = False


ScannerEvent = BurstEvent | ReaderStatusChanged


class DocumentReader(Protocol):
    """A reader that sends MRZs and codes by itself (serial, fake)."""

    @property
    def name(self) -> str: ...

    def preflight(self) -> DeviceStatus: ...

    def listen(self, stop: threading.Event) -> Iterator[ScannerEvent]:
        """Yield events until ``stop`` is set; returns within ~0.2 s of it being set.

        Meant to run in the device's worker thread (an abortable generator worker).
        Never raises for device trouble: yields :class:`ReaderStatusChanged` instead.
        """
        ...


# ---------------------------------------------------------------- barcode decoder


class Symbology(StrEnum):
    QR_CODE = "QR_CODE"
    PDF417 = "PDF417"
    CODE128 = "CODE128"
    DATA_MATRIX = "DATA_MATRIX"
    AZTEC = "AZTEC"
    EAN13 = "EAN13"
    EAN8 = "EAN8"
    UPC_A = "UPC_A"
    UPC_E = "UPC_E"
    CODE39 = "CODE39"
    CODE93 = "CODE93"
    ITF = "ITF"
    CODABAR = "CODABAR"
    OTHER = "OTHER"


@dataclass(frozen=True, slots=True)
class DecodedBarcode:
    symbology: Symbology
    text: str  # as the symbol encodes it (UTF-8 / Latin-1 / ECI resolved by the decoder)
    data: bytes  # raw bytes, for formats with binary content
    corners: tuple[tuple[int, int], ...] = ()  # in frame pixels, for an overlay

    def __repr__(self) -> str:  # content may be personal data (AAMVA): keep it out of logs
        return f"DecodedBarcode({self.symbology}, {len(self.text)} chars)"


class BarcodeDecoder(Protocol):
    """Finds and decodes every barcode in one frame."""

    @property
    def name(self) -> str: ...

    def preflight(self) -> DeviceStatus: ...

    def decode(self, frame: Frame) -> Sequence[DecodedBarcode]:
        """All symbols found, in no particular order; raises DeviceError on library failure."""
        ...


# ---------------------------------------------------------------- printer


class JobState(StrEnum):
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"  # aborted/cancelled by the system, or the queue stopped
    VANISHED = "VANISHED"  # the queue disappeared while the job was pending
    TIMEOUT = "TIMEOUT"  # still pending after the timeout: cancelled by us


@dataclass(frozen=True, slots=True)
class PageSize:
    """Exact page size in millimetres; ``cups_name`` as CUPS names it."""

    width_mm: float
    height_mm: float
    cups_name: str

    @property
    def points(self) -> tuple[float, float]:
        return (self.width_mm * 72 / 25.4, self.height_mm * 72 / 25.4)


CR80 = PageSize(85.6, 54.0, "Custom.85.6x54mm")  # ISO/IEC 7810 ID-1: the entry card
A5 = PageSize(148.0, 210.0, "A5")  # the desk leaflet (art. 25.1)
A4 = PageSize(210.0, 297.0, "A4")
RECEIPT_80 = PageSize(80.0, 120.0, "Custom.80x120mm")  # the provisional voucher (art. 23.4)


@dataclass(frozen=True, slots=True)
class PrinterState:
    """A printer's preflight answer: the status and why, as the queue reports it."""

    status: DeviceStatus
    detail: str = ""  # English, for logs and the settings screen; no personal data


@dataclass(frozen=True, slots=True)
class PrinterInfo:
    name: str
    description: str = ""
    is_default: bool = False


@dataclass(frozen=True, slots=True)
class JobResult:
    job_id: str
    state: JobState
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.state is JobState.COMPLETED


class CardPrinter(Protocol):
    """One print queue. ``submit`` spools and returns a job id; ``follow`` waits for it."""

    @property
    def name(self) -> str: ...

    def preflight(self) -> PrinterState: ...

    def submit(self, pdf: bytes, *, title: str, page: PageSize) -> str:
        """Spool ``pdf`` at exactly ``page``; raises DeviceError when it cannot."""
        ...

    def follow(self, job_id: str, *, timeout: float = 60.0) -> JobResult: ...


_PRINTER_REFUSALS = {
    DeviceStatus.NOT_FOUND: DeviceErrorCode.PRINTER_NOT_FOUND,
    DeviceStatus.PAUSED: DeviceErrorCode.PRINTER_PAUSED,
    DeviceStatus.REJECTING: DeviceErrorCode.PRINTER_REJECTING,
    DeviceStatus.NO_MEDIA: DeviceErrorCode.PRINTER_NO_MEDIA,
    DeviceStatus.ERROR: DeviceErrorCode.PRINTER_ERROR,
}


def printer_refusal_code(status: DeviceStatus) -> DeviceErrorCode:
    """Why a printer answering ``status`` (not READY) cannot print: ``PRINTER_<status>``;
    a status printers never report counts as PRINTER_ERROR (the same table as
    ``hardware.printer.refusal_code``, here so the window can name it without importing
    an adapter package)."""
    return _PRINTER_REFUSALS.get(status, DeviceErrorCode.PRINTER_ERROR)


# -- the desk's sounds ------------------------------------------------------------------
class Sound(StrEnum):
    """What the clerk hears (art. 21: a refusal is heard differently from an admission)."""

    ADMIT = "ADMIT"
    REFUSE = "REFUSE"
    REENTRY = "REENTRY"  # already admitted on a card held (art. 22): neither of the others


class SoundPlayer(Protocol):
    """Plays a :class:`Sound` without blocking; ``close`` frees what it made."""

    def play(self, sound: Sound) -> None: ...

    def close(self) -> None: ...

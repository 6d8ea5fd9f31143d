"""Printers: entry cards (CR80), provisional vouchers and desk leaflets (issue 6).

The port is :class:`CardPrinter` (STYLE.md rules 6-9): plain values in and out, library
and command-line failures turned into :class:`admission.errors.DeviceError` codes.
Adapters: ``cups.CupsPrinter`` (Linux, via lp/lpstat/cancel), ``qt.QtPrinter`` (Windows
counter PCs, imported lazily: the rest never needs Qt), ``pdf_folder.PdfFolderPrinter``
(demo mode) and ``fake.FakePrinter`` (tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from admission.errors import DeviceError

__all__ = [
    "A4",
    "A5",
    "CR80",
    "RECEIPT_80",
    "CardPrinter",
    "DeviceError",
    "JobResult",
    "JobState",
    "PageSize",
    "PrinterInfo",
    "PrinterState",
    "PrinterStatus",
]


class PrinterStatus(StrEnum):
    """Preflight answer (STYLE.md rule 8), the reasons a queue reports."""

    READY = "READY"
    NOT_FOUND = "NOT_FOUND"  # no such queue, or the scheduler is down
    PAUSED = "PAUSED"  # queue disabled/stopped
    REJECTING = "REJECTING"  # queue not accepting jobs
    NO_MEDIA = "NO_MEDIA"  # out of cards/paper, where the queue reports it
    BUSY = "BUSY"  # printing another job: still usable, jobs wait
    ERROR = "ERROR"

    @property
    def usable(self) -> bool:
        return self in (PrinterStatus.READY, PrinterStatus.BUSY)


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


CR80 = PageSize(85.6, 54.0, "Custom.85.6x54mm")
A5 = PageSize(148.0, 210.0, "A5")
A4 = PageSize(210.0, 297.0, "A4")
RECEIPT_80 = PageSize(80.0, 120.0, "Custom.80x120mm")


@dataclass(frozen=True, slots=True)
class PrinterState:
    status: PrinterStatus
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

"""Qt printing adapter for the Windows counter PCs (no CUPS command-line tools there).

Lists printers with ``QPrinterInfo`` and prints by rasterising the PDF pages with
pypdfium2 at the printer's resolution into a ``QPrinter`` whose page size is exactly
the document's (85.6×54 mm for cards, full page, no margins). Qt cannot follow a job
after the spooler accepted it: ``follow`` reports COMPLETED once ``QPainter.end()``
succeeded, and the queue state is checked again for an error.

The only module of ``hardware/`` that imports Qt, and only inside functions, so that
importing ``hardware.printer`` never needs PySide6. Needs a QGuiApplication (the GUI,
or ``QT_QPA_PLATFORM=offscreen`` in tests); call from the GUI's printer worker.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

from admission.devices import (
    DeviceErrorCode,
    DeviceStatus,
    JobResult,
    JobState,
    PageSize,
    PrinterInfo,
    PrinterState,
)
from admission.errors import DeviceError

__all__ = ["QtPrinter", "list_qt_printers"]

log = logging.getLogger(__name__)

MAX_DPI = 600  # card printers are 300 dpi; more only costs memory


def list_qt_printers() -> list[PrinterInfo]:
    from PySide6.QtPrintSupport import QPrinterInfo

    default = QPrinterInfo.defaultPrinterName()
    return [
        PrinterInfo(info.printerName(), info.description(), info.printerName() == default)
        for info in QPrinterInfo.availablePrinters()
    ]


class QtPrinter:
    def __init__(self, name: str) -> None:
        self._name = name
        self._ids = itertools.count(1)
        self._done: dict[str, JobResult] = {}

    @property
    def name(self) -> str:
        return self._name

    def _info(self) -> Any:
        from PySide6.QtPrintSupport import QPrinterInfo

        info = QPrinterInfo.printerInfo(self._name)
        return None if info.isNull() else info

    def preflight(self) -> PrinterState:
        from PySide6.QtPrintSupport import QPrinter

        info = self._info()
        if info is None:
            return PrinterState(DeviceStatus.NOT_FOUND, "no such printer")
        state = info.state()
        if state == QPrinter.PrinterState.Error:
            return PrinterState(DeviceStatus.ERROR, "printer reports an error")
        if state == QPrinter.PrinterState.Aborted:
            return PrinterState(DeviceStatus.PAUSED, "printer aborted/paused")
        if state == QPrinter.PrinterState.Active:
            return PrinterState(DeviceStatus.BUSY, "printing another job")
        return PrinterState(DeviceStatus.READY)

    def submit(self, pdf: bytes, *, title: str, page: PageSize) -> str:
        import pypdfium2 as pdfium  # type: ignore[import-untyped]
        from PySide6.QtCore import QMarginsF, QRectF, QSizeF
        from PySide6.QtGui import QImage, QPageLayout, QPageSize, QPainter
        from PySide6.QtPrintSupport import QPrinter

        info = self._info()
        if info is None:
            raise DeviceError("printer not found", code=DeviceErrorCode.PRINTER_NOT_FOUND)
        printer = QPrinter(info, QPrinter.PrinterMode.HighResolution)
        printer.setDocName(title)  # a card number, never a name
        size = QPageSize(
            QSizeF(page.width_mm, page.height_mm),
            QPageSize.Unit.Millimeter,
            page.cups_name,
            QPageSize.SizeMatchPolicy.ExactMatch,
        )
        # the size is given as printed (85.6 wide, 54 high): no orientation swap
        printer.setPageLayout(
            QPageLayout(size, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0))
        )
        printer.setFullPage(True)
        dpi = min(printer.resolution(), MAX_DPI)
        doc = pdfium.PdfDocument(pdf)
        painter = QPainter()
        try:
            if not painter.begin(printer):
                raise DeviceError(
                    "the printer refused the job", code=DeviceErrorCode.PRINT_SUBMIT_FAILED
                )
            for index in range(len(doc)):
                if index:
                    printer.newPage()
                bitmap = doc[index].render(scale=dpi / 72)
                pil = bitmap.to_pil().convert("RGB")
                data = pil.tobytes("raw", "RGB")
                image = QImage(
                    data, pil.width, pil.height, pil.width * 3, QImage.Format.Format_RGB888
                )
                target = printer.pageRect(QPrinter.Unit.DevicePixel)
                log.debug("qt page %sx%s px", target.width(), target.height())
                painter.drawImage(QRectF(0, 0, target.width(), target.height()), image)
        finally:
            ended = painter.end() if painter.isActive() else False
            doc.close()
        if not ended:
            raise DeviceError(
                "the spooler did not accept the job", code=DeviceErrorCode.PRINT_SUBMIT_FAILED
            )
        job_id = f"{self._name}-qt-{next(self._ids)}"
        self._done[job_id] = JobResult(job_id, JobState.COMPLETED)
        return job_id

    def follow(self, job_id: str, *, timeout: float = 60.0) -> JobResult:
        result = self._done.pop(job_id, None)
        if result is None:
            raise DeviceError("unknown job", code=DeviceErrorCode.PRINT_UNKNOWN_JOB)
        if self._info() is None:
            return JobResult(job_id, JobState.VANISHED, "printer disappeared")
        return result

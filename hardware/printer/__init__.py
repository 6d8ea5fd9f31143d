"""Printers: entry cards (CR80), provisional vouchers and desk leaflets.

The port, :class:`admission.devices.CardPrinter`, and the plain values that cross it
(page sizes, :class:`~admission.devices.PrinterState`, job results) live in the domain
(STYLE.md rules 6-9); library and command-line failures become
:class:`admission.errors.DeviceError` with an :class:`admission.devices.DeviceErrorCode`.
Adapters: ``cups.CupsPrinter`` (Linux, via lp/lpstat/cancel), ``qt.QtPrinter`` (Windows
counter PCs, imported lazily: the rest never needs Qt), ``pdf_folder.PdfFolderPrinter``
(demo mode) and ``fake.FakePrinter`` (tests).

The page sizes and the port are re-exported: the renderers say ``from hardware.printer
import CR80``.
"""

from __future__ import annotations

from admission.devices import (
    A4,
    A5,
    CR80,
    RECEIPT_80,
    CardPrinter,
    DeviceErrorCode,
    DeviceStatus,
    PageSize,
)

__all__ = ["A4", "A5", "CR80", "RECEIPT_80", "CardPrinter", "PageSize", "refusal_code"]

_REFUSALS = {
    DeviceStatus.NOT_FOUND: DeviceErrorCode.PRINTER_NOT_FOUND,
    DeviceStatus.PAUSED: DeviceErrorCode.PRINTER_PAUSED,
    DeviceStatus.REJECTING: DeviceErrorCode.PRINTER_REJECTING,
    DeviceStatus.NO_MEDIA: DeviceErrorCode.PRINTER_NO_MEDIA,
    DeviceStatus.ERROR: DeviceErrorCode.PRINTER_ERROR,
}


def refusal_code(status: DeviceStatus) -> DeviceErrorCode:
    """The code of a print refused because the printer answered ``status`` (not usable):
    ``PRINTER_<status>``; a status printers never report counts as PRINTER_ERROR."""
    return _REFUSALS.get(status, DeviceErrorCode.PRINTER_ERROR)

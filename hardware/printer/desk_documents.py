"""The desk's paper besides entry cards: the information leaflet and the regulation
(art. 25), and provisional vouchers (volantes provisionales, art. 23.4).

One service built by the composition root with the printers the settings name: the
leaflet goes to ``printer.leaflet`` when set, vouchers to ``printer.receipt``, both
otherwise to the card printer; in demo mode everything goes to the PDF folder.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from admission.codes import Code
from admission.devices import DeviceErrorCode
from admission.errors import ConfigError
from admission.leaflet import Leaflet
from admission.vouchers.model import VoucherView
from hardware.printer import A4, RECEIPT_80, CardPrinter
from hardware.printer.documents import render_leaflet, render_text_document, render_voucher
from hardware.printer.service import print_leaflet, print_voucher, spool

__all__ = ["REGULATION", "REGULATION_TITLE", "DeskDocuments", "PaperError"]

log = logging.getLogger(__name__)
REGULATION = (
    Path(__file__).resolve().parents[2] / "resources" / "regulation" / "decreto-58-2006-madrid.txt"
)
REGULATION_TITLE = "Reglamento de Casinos de Juego de la Comunidad de Madrid (Decreto 58/2006)"


class PaperError(Code):
    REGULATION_UNREADABLE = "REGULATION_UNREADABLE"  # the text file is missing or not UTF-8


class DeskDocuments:
    """Renders and prints the leaflet, the regulation and vouchers."""

    def __init__(
        self,
        leaflet: Callable[[], Leaflet],
        leaflet_printer: Callable[[], CardPrinter],
        voucher_printer: Callable[[], CardPrinter],
        regulation_path: Path = REGULATION,
    ) -> None:
        self._leaflet = leaflet
        self._leaflet_printer = leaflet_printer
        self._voucher_printer = voucher_printer
        self.regulation_path = regulation_path

    def leaflet_pdf(self) -> bytes:
        return render_leaflet(self._leaflet()).pdf

    def print_leaflet(self) -> tuple[str, str]:
        """``(code, job_id)``: code "" when printed (art. 25.1, on demand)."""
        return print_leaflet(self._leaflet_printer(), self._leaflet())

    def voucher_pdf(self, view: VoucherView) -> bytes:
        return render_voucher(view).pdf

    def print_voucher(self, view: VoucherView) -> tuple[str, str]:
        """``(code, job_id)``: code "" when printed. A provisional voucher given without
        the server (``view.reference``) is spooled under its reference, as its number is
        the server's, still to come (art. 23.4)."""
        if not view.reference:
            return print_voucher(self._voucher_printer(), view)
        try:
            pdf = render_voucher(view).pdf
        except Exception:
            log.exception("provisional voucher %s: rendering failed", view.reference)
            return DeviceErrorCode.RENDER_FAILED, ""
        printer = self._voucher_printer()
        return spool(printer, pdf, title=f"voucher-{view.reference}", page=RECEIPT_80, timeout=60.0)

    def regulation_text(self) -> str:
        """The regulation's text for the desk (art. 25.1)."""
        try:
            return self.regulation_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(
                "regulation text not found", code=PaperError.REGULATION_UNREADABLE
            ) from exc

    def regulation_pdf(self) -> bytes:
        """The regulation's text for the desk (art. 25.1), as a PDF."""
        return render_text_document(REGULATION_TITLE, self.regulation_text()).pdf

    def print_regulation(self) -> tuple[str, str]:
        """``(code, job_id)``: the regulation on the leaflet's printer, code "" when
        printed (art. 25.1: at the visitors' disposal, on demand)."""
        pdf = self.regulation_pdf()
        return spool(self._leaflet_printer(), pdf, title="regulation", page=A4, timeout=180.0)

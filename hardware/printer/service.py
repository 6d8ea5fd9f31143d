"""Print an entry card: render → preflight → spool → follow → ``mark_printed``.

The one code path the GUI, the command line and the end-to-end tests use. On any
failure the card keeps its number with status ISSUED ("issued, not printed") and shows
in the reprint queue; nothing is lost and no number is burnt (art. 22.3: numbers are
correlative). A reprint records its reason with ``CardBook.record_reprint`` first, so
the request is on file even if that print fails again.

Never raises for device trouble: the outcome carries a reason code for the UI.
Store errors (``StoreError``) do propagate: the desk must know the file is unwell.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import unique

from admission.cards.code import encode_card_code
from admission.cards.view import CardView, build_card_view
from admission.codes import Code
from admission.devices import (
    A5,
    CR80,
    RECEIPT_80,
    CardPrinter,
    DeviceErrorCode,
    DeviceStatus,
    JobState,
    PageSize,
)
from admission.errors import DeviceError, InvalidStateError, NotFoundError
from admission.leaflet import Leaflet
from admission.ports import CardBook, Clock, VisitorFile
from admission.records import CardRecord, CardStatus, RecordErrorCode
from admission.vouchers.model import VoucherView
from hardware.printer import refusal_code
from hardware.printer.render import CardStyle, CardWarning, Rendered, render_card

__all__ = [
    "CardPresentation",
    "CardPrintService",
    "PrintOutcome",
    "PrintServiceErrorCode",
    "print_leaflet",
    "print_voucher",
    "spool",
]

log = logging.getLogger(__name__)


@unique
class PrintServiceErrorCode(Code):
    """What the print service refuses before printing (an ``InvalidStateError``'s code);
    a voided card is the visitor file's ``RecordErrorCode.CARD_VOIDED``."""

    PRINT_NOT_CONFIGURED = "PRINT_NOT_CONFIGURED"  # no visitor file wired to rebuild a card
    REPRINT_NEEDS_REASON = "REPRINT_NEEDS_REASON"  # the card was printed: say why again


# A print's code is "" when printed, else a DeviceErrorCode (the UI turns it into a
# sentence, STYLE.md rule 13).
OK = ""
_JOB_CODES = {
    JobState.FAILED: DeviceErrorCode.PRINT_FAILED,
    JobState.VANISHED: DeviceErrorCode.PRINTER_VANISHED,
    JobState.TIMEOUT: DeviceErrorCode.PRINT_TIMEOUT,
}


@dataclass(frozen=True, slots=True)
class PrintOutcome:
    """What happened to one print request. ``code`` is "" when printed."""

    number: int
    printed: bool
    code: str = OK
    job_id: str = ""
    warnings: tuple[CardWarning, ...] = ()  # what the card lacks, e.g. LOGO_UNREADABLE


def spool(
    printer: CardPrinter, pdf: bytes, *, title: str, page: PageSize, timeout: float
) -> tuple[str, str]:
    """Preflight, submit and follow one document: returns ``(code, job_id)``,
    code "" on success. Device errors become codes, never exceptions."""
    try:
        state = printer.preflight()
        if not state.status.usable:
            log.warning("printer %s not ready: %s", printer.name, state.status)
            return refusal_code(state.status), ""
        job_id = printer.submit(pdf, title=title, page=page)
    except DeviceError as exc:
        log.warning("printer %s: %s", printer.name, exc.code)
        return exc.code, ""
    try:
        result = printer.follow(job_id, timeout=timeout)
    except DeviceError as exc:
        log.warning("printer %s job %s: %s", printer.name, job_id, exc.code)
        return exc.code, job_id
    if not result.ok:
        log.warning("printer %s job %s: %s", printer.name, job_id, result.state)
        return _JOB_CODES.get(result.state, DeviceErrorCode.PRINT_FAILED), job_id
    return OK, job_id


@dataclass(frozen=True, slots=True)
class CardPresentation:
    """How this casino's cards look in words: from settings and the card-type config.

    ``signer`` signs a card (art. 22.4: checked anywhere on the floor, offline too): the
    file's ``signed_card_code`` bound to the casino id, which reads the card's record
    and its holder digest; without one the QR carries the HMAC code.
    """

    casino_name: str
    casino_id: str
    code_key: bytes = field(repr=False)  # store.secret("card_code"); never a setting
    type_labels: Mapping[str, str] = field(default_factory=dict)  # card_type → label_es
    special_types: frozenset[str] = frozenset()  # card types that are art. 23.3 specials
    signer: Callable[[CardRecord], str] | None = field(default=None, repr=False)

    def code(self, number: int) -> str:
        return encode_card_code(self.casino_id, number, self.code_key)

    def signed_code(self, card: CardRecord) -> str:
        """The card's signed code (ADM2); "" when no signer, or the format cannot carry
        the card (a type code outside ASCII): its QR then carries the HMAC code."""
        if self.signer is None:
            return ""
        try:
            return self.signer(card)
        except ValueError as exc:
            log.warning("card %d not signed: %s", card.number, exc)
            return ""


class CardPrintService:
    """Prints cards on one card printer and keeps the CardBook in step.

    Call from a worker thread (STYLE.md rule 10): following a job can take seconds.
    """

    def __init__(
        self,
        cards: CardBook,
        printer: CardPrinter,
        clock: Clock,
        *,
        style: CardStyle | None = None,
        job_timeout: float = 60.0,
        renderer: Callable[[CardView, CardStyle | None], Rendered] = render_card,
        visitors: VisitorFile | None = None,
        presentation: CardPresentation | None = None,
        job_tag: str = "",
    ) -> None:
        self._cards = cards
        self.printer = printer
        self._clock = clock
        self.style = style or CardStyle()
        self._timeout = job_timeout
        self._render = renderer
        self._visitors = visitors
        self._presentation = presentation
        # CUPS job titles are "card-<number>[-<tag>]": a number, never a name
        self._job_suffix = f"-{job_tag}" if job_tag else ""

    def use_presentation(self, presentation: CardPresentation) -> None:
        """The casino's name and the card types' labels saved on the settings screen
        apply to the next card printed."""
        self._presentation = presentation

    def render(self, view: CardView) -> Rendered:
        return self._render(view, self.style)

    def view_for(self, number: int) -> CardView:
        """Rebuild a card's view from the store (for the reprint queue)."""
        if self._visitors is None or self._presentation is None:
            raise InvalidStateError(
                "no visitor file wired", code=PrintServiceErrorCode.PRINT_NOT_CONFIGURED
            )
        card = self._cards.card(number)
        if card is None:
            raise NotFoundError("no such card number")
        visitor = self._visitors.visitor(card.file_number)
        if visitor is None:
            raise NotFoundError("the card's visitor was erased")
        document = next(
            (
                v.document_number
                for v in self._visitors.visits(card.file_number)
                if v.visit_id == card.visit_id
            ),
            "",
        )
        p = self._presentation
        return build_card_view(
            card,
            visitor,
            document_number=document,
            casino_name=p.casino_name,
            card_type_label=p.type_labels.get(card.card_type, card.card_type),
            code=p.code(number),
            special=card.card_type in p.special_types,
            signed_code=p.signed_code(card),
        )

    def print_card(self, view: CardView, *, actor: str, reprint_reason: str = "") -> PrintOutcome:
        """Print ``view`` (built with ``admission.cards.view.build_card_view``).

        A card already printed needs ``reprint_reason`` (recorded before spooling).
        A voided or unknown card raises InvalidStateError / NotFoundError.
        """
        number = view.number
        card = self._cards.card(number)
        if card is None:
            raise NotFoundError("no such card number")
        if card.status is CardStatus.VOIDED:
            raise InvalidStateError("the card is voided", code=RecordErrorCode.CARD_VOIDED)
        if card.status is CardStatus.PRINTED and not reprint_reason.strip():
            raise InvalidStateError(
                "a reprint needs a reason", code=PrintServiceErrorCode.REPRINT_NEEDS_REASON
            )
        if reprint_reason.strip():
            self._cards.record_reprint(number, reprint_reason, actor, self._clock.now())

        try:
            rendered = self.render(view)
        except Exception:  # a renderer bug must not lose the card: it stays ISSUED
            log.exception("card %d: rendering failed", number)
            return PrintOutcome(number, False, DeviceErrorCode.RENDER_FAILED)

        title = f"card-{number}{self._job_suffix}"
        code, job_id = spool(
            self.printer, rendered.pdf, title=title, page=CR80, timeout=self._timeout
        )
        if code:
            log.warning("card %d not printed (%s): stays in the reprint queue", number, code)
            return PrintOutcome(number, False, code, job_id, rendered.warnings)
        self._cards.mark_printed(number, self._clock.now())
        log.info("card %d printed as job %s", number, job_id)
        return PrintOutcome(number, True, OK, job_id, rendered.warnings)

    def preflight_status(self) -> DeviceStatus:
        try:
            return self.printer.preflight().status
        except DeviceError:
            return DeviceStatus.ERROR


def print_voucher(
    printer: CardPrinter,
    view: VoucherView,
    *,
    style: CardStyle | None = None,
    page: PageSize = RECEIPT_80,
    timeout: float = 60.0,
) -> tuple[str, str]:
    """Print a provisional voucher (art. 23.4) on the receipt or card printer:
    ``(code, job_id)``, code "" when printed. The voucher is already recorded
    (``SqlPrintQueue.issue_voucher``), so a failed print can simply be repeated."""
    from hardware.printer.documents import render_voucher

    try:
        pdf = render_voucher(view, style, page).pdf
    except Exception:
        log.exception("voucher %d: rendering failed", view.number)
        return DeviceErrorCode.RENDER_FAILED, ""
    return spool(printer, pdf, title=f"voucher-{view.number}", page=page, timeout=timeout)


def print_leaflet(
    printer: CardPrinter,
    leaflet: Leaflet,
    *,
    style: CardStyle | None = None,
    page: PageSize = A5,
    timeout: float = 120.0,
) -> tuple[str, str]:
    """Print the desk information leaflet (art. 25.1) on demand."""
    from hardware.printer.documents import render_leaflet

    try:
        pdf = render_leaflet(leaflet, style, page).pdf
    except Exception:
        log.exception("leaflet: rendering failed")
        return DeviceErrorCode.RENDER_FAILED, ""
    return spool(printer, pdf, title="leaflet", page=page, timeout=timeout)

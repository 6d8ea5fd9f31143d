"""Provisional vouchers (volantes provisionales, art. 23.4, R11): issued against the
deposit of the document and the price, printed, listed (the reading recorded: names and
document numbers), formalised into the numbered card with the document read again, or
cancelled with a reason. On a desk of the casino's server that cannot reach it (arts.
154-155), the provisional voucher is queued on the desk under a local reference."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from admission.cards.catalogue import CardCatalogue
from admission.desk import AdmissionDesk, AdmissionResult, DeskDocument
from admission.desk_ports import CardPrinting, DeskPapers
from admission.ports import AuditTrail, Clock
from admission.vouchers.desk import (
    VoucherIssue,
    cancel_voucher,
    exchange_voucher,
    issue_voucher,
    list_open_vouchers,
)
from admission.vouchers.model import (
    NewVoucher,
    Voucher,
    VoucherBook,
    provisional_voucher_view,
    voucher_view,
)
from admission.vouchers.offline import OfflineVouchers, QueuedVoucher
from ui.context import AppContext
from ui.desk.ops.cards import print_card

__all__ = [
    "Formalised",
    "IssuedVoucher",
    "QueuedProvisional",
    "VoucherOps",
    "of",
]


@dataclass(frozen=True, slots=True)
class IssuedVoucher:
    issue: VoucherIssue
    print_code: str = ""  # "" printed (or not asked), else a device code


@dataclass(frozen=True, slots=True)
class Formalised:
    result: AdmissionResult
    print_code: str = ""


@dataclass(frozen=True, slots=True)
class QueuedProvisional:
    queued: QueuedVoucher
    print_code: str = ""  # "" printed (or not asked), else a device code


@dataclass(frozen=True, slots=True)
class VoucherOps:
    desk: AdmissionDesk  # the checks, the card; its catalogue, hours and desk id
    book: VoucherBook
    audit: AuditTrail  # a listing's and a cancellation's entries (art. 20.4)
    clock: Clock
    casino_name: Callable[[], str]  # printed on the voucher, as the settings say now
    documents: DeskPapers  # the voucher printed (art. 23.4)
    printing: CardPrinting  # the card of a formalised voucher
    # the desk's queue while its server is away; None on a desk of its own file
    offline: OfflineVouchers | None

    def now(self) -> datetime:
        return self.clock.now()

    def catalogue(self) -> CardCatalogue:
        return self.desk.config.catalogue

    def desk_id(self) -> str:
        return self.desk.config.desk_id

    def closing_at(self, at: datetime) -> datetime | None:
        """The end of the session running at ``at`` (None: out of session)."""
        return self.desk.config.hours.closing_at(at)

    def issue(
        self, document: DeskDocument, card_type: str | None, operator: str, printing: bool
    ) -> IssuedVoucher:
        """The visitor checked like anyone else (R1), then the voucher, printed when
        ``printing``; a refusal is recorded as a visit."""
        issued = issue_voucher(
            self.desk, self.book, self.clock, document, operator=operator, card_type=card_type
        )
        voucher = issued.voucher
        if voucher is None or not printing:
            return IssuedVoucher(issued)
        return IssuedVoucher(issued, self.print_voucher(voucher))

    def print_voucher(self, voucher: Voucher) -> str:
        """Print the voucher (art. 23.4): "" printed, else the device's code."""
        kind = self.catalogue().types.get(voucher.card_type)
        view = voucher_view(
            voucher,
            casino_name=self.casino_name(),
            card_type_label=kind.label_es if kind else voucher.card_type,
        )
        code, _job = self.documents.print_voucher(view)
        return str(code)

    def print_provisional(self, queued: QueuedVoucher) -> str:
        """Print a provisional voucher of the desk's queue with its local reference,
        marked pending (art. 23.4): "" printed, else the device's code."""
        new = queued.voucher
        kind = self.catalogue().types.get(new.card_type)
        view = provisional_voucher_view(
            new,
            queued.local_ref,
            casino_name=self.casino_name(),
            card_type_label=kind.label_es if kind else new.card_type,
        )
        code, _job = self.documents.print_voucher(view)
        return str(code)

    def open_vouchers(self, operator: str, issued_before: datetime | None) -> Sequence[Voucher]:
        """The open vouchers (names and document numbers: the reading is recorded)."""
        return list_open_vouchers(
            self.book, self.audit, self.clock, operator=operator, issued_before=issued_before
        )

    def formalise(
        self, number: int, document: DeskDocument, operator: str, printing: bool
    ) -> Formalised:
        """The voucher exchanged for the numbered card, the document read again; the
        card printed when ``printing``."""
        result = exchange_voucher(
            self.desk, self.book, self.clock, number, document, operator=operator
        )
        code = ""
        if result.card is not None and printing:
            code = print_card(self.printing, result.card.number, operator).code
        return Formalised(result, code)

    def cancel(self, number: int, reason: str, operator: str) -> Voucher:
        return cancel_voucher(self.book, self.audit, self.clock, number, reason, operator=operator)

    def queue(self, new: NewVoucher, printing: bool) -> QueuedProvisional:
        """The provisional voucher queued on the desk (its server away), printed with its
        local reference when ``printing``."""
        if self.offline is None:
            raise RuntimeError("no offline voucher queue on this desk")
        queued = self.offline.issue(new)
        return QueuedProvisional(queued, self.print_provisional(queued) if printing else "")


def of(ctx: AppContext) -> VoucherOps:
    settings = ctx.settings
    return VoucherOps(
        desk=ctx.desk,
        book=ctx.vouchers,
        audit=ctx.store,
        clock=ctx.clock,
        casino_name=lambda: str(settings["casino.name"]),
        documents=ctx.documents,
        printing=ctx.card_printing,
        offline=ctx.offline_vouchers,
    )

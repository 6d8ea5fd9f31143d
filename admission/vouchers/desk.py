"""Provisional vouchers at a crowded desk (volante provisional, art. 23.4; R11).

The visitor is checked like anyone else (R1: RIAJ, bans, age, staff, hours) before
a voucher is handed out: a voucher only defers the formal card, never the checks.
A refusal is recorded as a visit, as at the normal desk. At formalisation the
deposited document is read again, the admission is recorded with its numbered
card and the voucher closed against it; the same document must come back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from admission.desk import AdmissionDesk, AdmissionResult, DeskDocument, Evaluation
from admission.errors import InvalidStateError, NotFoundError
from admission.ports import AuditTrail, Clock
from admission.verdict import Outcome
from admission.vouchers.model import (
    NewVoucher,
    Voucher,
    VoucherBook,
    VoucherErrorCode,
    VoucherStatus,
)


@dataclass(frozen=True, slots=True)
class VoucherIssue:
    evaluation: Evaluation
    voucher: Voucher | None  # None when the visitor was not admitted
    refusal: AdmissionResult | None = None


def issue_voucher(
    desk: AdmissionDesk,
    book: VoucherBook,
    clock: Clock,
    document: DeskDocument,
    *,
    operator: str,
    card_type: str | None = None,
) -> VoucherIssue:
    evaluation = desk.evaluate(document)
    if evaluation.verdict.outcome is not Outcome.ADMIT:
        refusal = desk.record(evaluation, operator=operator)
        return VoucherIssue(evaluation, None, refusal)
    kind = desk.config.catalogue.get(card_type)
    voucher = book.issue_voucher(
        NewVoucher(
            issued_at=clock.now(),
            desk_id=desk.config.desk_id,
            operator=operator,
            holder_name=f"{document.given_names} {document.surname}".strip(),
            document_type=str(document.doc_type),
            document_number=document.id_number or document.document_number,
            card_type=kind.code,
            price_cents=kind.price_cents,
        )
    )
    return VoucherIssue(evaluation, voucher)


def exchange_voucher(
    desk: AdmissionDesk,
    book: VoucherBook,
    clock: Clock,
    number: int,
    document: DeskDocument,
    *,
    operator: str,
) -> AdmissionResult:
    """Formalise the card for voucher ``number`` with the deposited ``document``."""
    voucher = book.voucher(number)
    if voucher is None or voucher.status is not VoucherStatus.OPEN:
        raise NotFoundError(
            "no open voucher with that number", code=VoucherErrorCode.VOUCHER_NOT_OPEN
        )
    if (document.id_number or document.document_number) != voucher.document_number:
        raise InvalidStateError(
            "this is not the deposited document", code=VoucherErrorCode.VOUCHER_DOCUMENT_MISMATCH
        )
    result = desk.admit(document, operator=operator, card_type=voucher.card_type)
    if result.card is None:
        # The checks changed since the voucher (e.g. listed meanwhile): no card; the
        # clerk returns the document and the money and cancels the voucher with a reason.
        return result
    book.exchange_voucher(number, result.card.number, clock.now())
    return result


def list_open_vouchers(
    book: VoucherBook,
    audit: AuditTrail,
    clock: Clock,
    *,
    operator: str,
    issued_before: datetime | None = None,
) -> Sequence[Voucher]:
    """The open vouchers (their holders' names and document numbers), the reading
    recorded under ``operator`` before it is shown (art. 20.4: the file is confidential)."""
    found = book.open_vouchers(issued_before=issued_before)
    audit.append(
        operator, "VOUCHERS_LISTED", "vouchers:open", clock.now(), {"vouchers": str(len(found))}
    )
    return found


def cancel_voucher(
    book: VoucherBook, audit: AuditTrail, clock: Clock, number: int, reason: str, *, operator: str
) -> Voucher:
    """Voucher ``number`` cancelled (the document and the money returned), recorded under
    ``operator`` with the deposit it returned."""
    cancelled = book.cancel_voucher(number, reason, clock.now())
    audit.append(
        operator,
        "VOUCHER_CANCELLED",
        f"voucher:{cancelled.number}",
        clock.now(),
        {"price_cents": str(cancelled.price_cents)},
    )
    return cancelled


__all__ = [
    "VoucherIssue",
    "VoucherStatus",
    "cancel_voucher",
    "exchange_voucher",
    "issue_voucher",
    "list_open_vouchers",
]

"""Provisional vouchers (volantes provisionales, art. 23.4, R11).

When the desk is crowded the card may be replaced for a while by a provisional voucher,
given against the deposit of the identity document and of the card's price; the card
is formalised later (identification, RIAJ check, number) and handed over to the holder
together with the deposited document. The voucher then counts as exchanged.

Rules here are pure: a voucher is a frozen value, transitions return new values and
refuse impossible ones with a code. Vouchers still open at closing time are listed so
that no deposited document or payment is forgotten.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum, unique
from typing import Protocol

from admission.cards.view import clean_text, format_euros
from admission.codes import Code
from admission.errors import InvalidStateError
from admission.ports import madrid_date
from admission.records import RecordErrorCode

__all__ = [
    "PROVISIONAL_PENDING",
    "NewVoucher",
    "Voucher",
    "VoucherBook",
    "VoucherErrorCode",
    "VoucherStatus",
    "VoucherView",
    "cancel",
    "exchange",
    "open_at_closing",
    "provisional_voucher_view",
    "voucher_view",
]

MAX_NAME = 160
MAX_DOCUMENT = 40


@unique
class VoucherErrorCode(Code):
    """What a provisional voucher (volante provisional, art. 23.4) refuses."""

    VOUCHER_BAD_PRICE = "VOUCHER_BAD_PRICE"  # a negative price
    VOUCHER_NO_DOCUMENT = "VOUCHER_NO_DOCUMENT"  # the voucher is given against the document
    VOUCHER_CLOSED = "VOUCHER_CLOSED"  # already exchanged or cancelled
    VOUCHER_BAD_CARD = "VOUCHER_BAD_CARD"  # exchanged against a card number that cannot be
    VOUCHER_NOT_OPEN = "VOUCHER_NOT_OPEN"  # no open voucher with that number
    # the formal card is handed over with the document deposited, not another one
    VOUCHER_DOCUMENT_MISMATCH = "VOUCHER_DOCUMENT_MISMATCH"


class VoucherStatus(StrEnum):
    OPEN = "OPEN"  # document and price deposited, card not yet handed over
    EXCHANGED = "EXCHANGED"  # formal card handed over with the document
    CANCELLED = "CANCELLED"  # document and price returned without a card (reason kept)


@dataclass(frozen=True, slots=True)
class NewVoucher:
    """A voucher about to be issued: the number is assigned by the voucher book."""

    issued_at: datetime
    desk_id: str
    operator: str
    holder_name: str  # as read from the deposited document
    document_type: str  # DNI, PASSPORT, DRIVING_LICENCE, RESIDENCE (art. 23.1)
    document_number: str
    card_type: str
    price_cents: int

    def __post_init__(self) -> None:
        if self.issued_at.tzinfo is None:
            raise ValueError("issued_at must be timezone-aware")
        if isinstance(self.price_cents, bool) or self.price_cents < 0:
            raise InvalidStateError(
                "price cannot be negative", code=VoucherErrorCode.VOUCHER_BAD_PRICE
            )
        if not clean_text(self.document_number, MAX_DOCUMENT):
            raise InvalidStateError(
                "the deposited document is required", code=VoucherErrorCode.VOUCHER_NO_DOCUMENT
            )

    def numbered(self, number: int) -> Voucher:
        return Voucher(
            number=number,
            issued_at=self.issued_at,
            desk_id=self.desk_id,
            operator=self.operator,
            holder_name=clean_text(self.holder_name, MAX_NAME),
            document_type=clean_text(self.document_type, 24),
            document_number=clean_text(self.document_number, MAX_DOCUMENT),
            card_type=self.card_type,
            price_cents=self.price_cents,
            status=VoucherStatus.OPEN,
        )

    def __repr__(self) -> str:
        return f"NewVoucher(desk={self.desk_id!r}, price_cents={self.price_cents})"


@dataclass(frozen=True, slots=True)
class Voucher:
    number: int
    issued_at: datetime
    desk_id: str
    operator: str
    holder_name: str
    document_type: str
    document_number: str
    card_type: str
    price_cents: int
    status: VoucherStatus
    card_number: int | None = None
    closed_at: datetime | None = None
    close_reason: str = ""

    def __repr__(self) -> str:  # no name or document number in logs
        return f"Voucher(number={self.number}, status={self.status}, card={self.card_number})"


def exchange(voucher: Voucher, card_number: int, at: datetime) -> Voucher:
    """The formal card ``card_number`` was issued for this voucher's holder."""
    if voucher.status is not VoucherStatus.OPEN:
        raise InvalidStateError("voucher already closed", code=VoucherErrorCode.VOUCHER_CLOSED)
    if card_number < 1:
        raise InvalidStateError("bad card number", code=VoucherErrorCode.VOUCHER_BAD_CARD)
    return replace(voucher, status=VoucherStatus.EXCHANGED, card_number=card_number, closed_at=at)


def cancel(voucher: Voucher, reason: str, at: datetime) -> Voucher:
    """Document and price returned without a card, e.g. a DENY at formalisation."""
    if voucher.status is not VoucherStatus.OPEN:
        raise InvalidStateError("voucher already closed", code=VoucherErrorCode.VOUCHER_CLOSED)
    reason = clean_text(reason, 200)
    if not reason:
        raise InvalidStateError("a reason is required", code=RecordErrorCode.REASON_REQUIRED)
    return replace(voucher, status=VoucherStatus.CANCELLED, closed_at=at, close_reason=reason)


def open_at_closing(vouchers: Iterable[Voucher], closing: datetime) -> list[Voucher]:
    """Vouchers issued before ``closing`` and still not exchanged, oldest first: the
    list the desk reviews at closing time (documents still held, money still owed a card)."""
    return sorted(
        (v for v in vouchers if v.status is VoucherStatus.OPEN and v.issued_at < closing),
        key=lambda v: v.number,
    )


class VoucherBook(Protocol):
    """Storage of vouchers (``db/voucher_book.StoreVoucherBook``; an in-memory fake in tests)."""

    def issue_voucher(self, new: NewVoucher) -> Voucher: ...

    def voucher(self, number: int) -> Voucher | None: ...

    def exchange_voucher(self, number: int, card_number: int, at: datetime) -> Voucher: ...

    def cancel_voucher(self, number: int, reason: str, at: datetime) -> Voucher: ...

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]: ...


@dataclass(frozen=True, slots=True)
class VoucherView:
    """The printed voucher, in Spanish (it is handed to the visitor)."""

    number: int
    casino_name: str
    title: str
    lines: tuple[tuple[str, str], ...]  # (label, value)
    notice: str
    # a voucher given while the casino's server could not be reached (arts. 23.4,
    # 154-155): the desk's local reference ("DESK1-P000001") printed in place of a
    # server number, which it gets when formalised; "" for a voucher of the book
    reference: str = ""

    def __repr__(self) -> str:  # the reference names a desk and a sequence, nobody
        if self.reference:
            return f"VoucherView(reference={self.reference!r})"
        return f"VoucherView(number={self.number})"


VOUCHER_TITLE = "VOLANTE PROVISIONAL"
VOUCHER_NOTICE = (
    "Art. 23.4 del Reglamento de Casinos de Juego (Decreto 58/2006). Sustituye "
    "transitoriamente a la tarjeta de entrada. Se canjeará por la tarjeta formalizada, "
    "que se entregará al titular junto con el documento depositado."
)


def voucher_view(voucher: Voucher, *, casino_name: str, card_type_label: str) -> VoucherView:
    issued = voucher.issued_at
    local_day = madrid_date(issued)
    from zoneinfo import ZoneInfo

    local_time = issued.astimezone(ZoneInfo("Europe/Madrid")).strftime("%H:%M")
    lines = (
        ("Volante nº", str(voucher.number)),
        ("Fecha", f"{local_day.strftime('%d/%m/%Y')} {local_time}"),
        ("Titular", voucher.holder_name),
        ("Documento depositado", f"{voucher.document_type} {voucher.document_number}".strip()),
        ("Importe abonado", format_euros(voucher.price_cents)),
        ("Tarjeta", clean_text(card_type_label, 64)),
        ("Puesto", clean_text(voucher.desk_id, 16)),
    )
    return VoucherView(
        voucher.number, clean_text(casino_name, 64), VOUCHER_TITLE, lines, VOUCHER_NOTICE
    )


PROVISIONAL_PENDING = "PENDIENTE DE FORMALIZAR"
PROVISIONAL_NOTICE = (
    "Art. 23.4 del Reglamento de Casinos de Juego (Decreto 58/2006). Emitido sin "
    "conexión con el servidor del casino: queda registrado en este puesto y recibe su "
    "número de volante al volver la conexión. Sustituye transitoriamente a la tarjeta "
    "de entrada. Se canjeará por la tarjeta formalizada, que se entregará al titular "
    "junto con el documento depositado."
)


def provisional_voucher_view(
    new: NewVoucher, reference: str, *, casino_name: str, card_type_label: str
) -> VoucherView:
    """The printed voucher of art. 23.4 given while the server could not be reached:
    the desk's local reference in place of the number, marked pending (the number is
    the server's, given at formalisation: one voucher sequence for the operating unit,
    arts. 154-155)."""
    voucher = new.numbered(0)  # the same text cleaning as the book's
    ref = clean_text(reference, 32)
    numbered = voucher_view(voucher, casino_name=casino_name, card_type_label=card_type_label)
    # lines[0] names the voucher (the renderer shows it in the heading, with
    # PROVISIONAL_PENDING under it)
    lines = (("Referencia provisional", ref), *numbered.lines[1:])
    return VoucherView(0, numbered.casino_name, VOUCHER_TITLE, lines, PROVISIONAL_NOTICE, ref)

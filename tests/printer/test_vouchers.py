"""Provisional vouchers (art. 23.4, R11): rules, storage in the encrypted file, the
closing-time list, and the printed voucher."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from admission.clock import FixedClock
from admission.errors import InvalidStateError
from admission.vouchers.model import (
    NewVoucher,
    VoucherStatus,
    cancel,
    exchange,
    open_at_closing,
    voucher_view,
)
from db.keys import DbKey
from db.store import SqlCipherStore
from db.voucher_book import StoreVoucherBook
from hardware.printer import CR80, RECEIPT_80
from hardware.printer.documents import render_voucher
from tests.printer.factories import admission_entry

T0 = datetime(2026, 11, 28, 22, 0, tzinfo=UTC)


def new_voucher(minutes: int = 0, document: str = "12345678Z") -> NewVoucher:
    return NewVoucher(
        issued_at=T0 + timedelta(minutes=minutes),
        desk_id="DESK1",
        operator="op-1",
        holder_name="José Ángel Muñoz",
        document_type="DNI",
        document_number=document,
        card_type="DAY",
        price_cents=1000,
    )


def test_rules_exchange_cancel_and_closing_list() -> None:
    a = new_voucher(0).numbered(1)
    b = new_voucher(5).numbered(2)
    c = new_voucher(10).numbered(3)
    a2 = exchange(a, 77, T0 + timedelta(hours=1))
    assert a2.status is VoucherStatus.EXCHANGED and a2.card_number == 77
    with pytest.raises(InvalidStateError):
        exchange(a2, 78, T0)  # never exchanged twice
    with pytest.raises(InvalidStateError) as err:
        cancel(b, "  ", T0)
    assert err.value.code == "REASON_REQUIRED"
    b2 = cancel(b, "refused at formalisation", T0)
    assert b2.status is VoucherStatus.CANCELLED
    closing = T0 + timedelta(minutes=8)
    assert open_at_closing([a2, b2, c], closing) == []  # c was issued after closing
    assert open_at_closing([a2, b2, c], T0 + timedelta(hours=6)) == [c]


def test_voucher_needs_document_and_price() -> None:
    with pytest.raises(InvalidStateError):
        new_voucher(document="  ")
    assert "12345678Z" not in repr(new_voucher().numbered(1))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqlCipherStore]:
    with SqlCipherStore.open(
        tmp_path / "v.db", DbKey.generate(source="test"), clock=FixedClock(T0)
    ) as opened:
        yield opened


def test_voucher_book_in_encrypted_store(store: SqlCipherStore) -> None:
    book = StoreVoucherBook(store)
    first = book.issue_voucher(new_voucher(0))
    second = book.issue_voucher(new_voucher(3, "X1234567L"))
    assert (first.number, second.number) == (1, 2)
    stored = book.voucher(2)
    assert stored is not None and stored.document_number == "X1234567L"
    assert stored.holder_name == "José Ángel Muñoz" and stored.price_cents == 1000
    card = store.record_admission(admission_entry(1, T0 + timedelta(minutes=30))).card_number
    assert card is not None
    book.exchange_voucher(1, card, T0 + timedelta(minutes=31))
    assert [v.number for v in book.open_vouchers()] == [2]
    assert [v.number for v in book.open_vouchers(T0 + timedelta(minutes=1))] == []
    book.cancel_voucher(2, "visitor left", T0 + timedelta(minutes=40))
    assert book.open_vouchers() == []
    with pytest.raises(InvalidStateError):
        book.exchange_voucher(2, card, T0)
    assert book.purge_vouchers(T0 + timedelta(days=190)) == 2


def test_reprint_queue_lists_issued_not_printed(store: SqlCipherStore) -> None:
    queue = store
    numbers = [store.record_admission(admission_entry(n)).card_number for n in (1, 2, 3)]
    assert [c.number for c in queue.unprinted_cards()] == [3, 2, 1]
    store.mark_printed(2, T0)
    store.void_card(3, "wrong person", "sup", T0)
    assert [c.number for c in queue.unprinted_cards()] == [1]
    assert numbers == [1, 2, 3]


@pytest.mark.parametrize("page", [RECEIPT_80, CR80])
def test_printed_voucher(page: object) -> None:
    view = voucher_view(
        new_voucher().numbered(17), casino_name="Casino Demo", card_type_label="Entrada de un día"
    )
    rendered = render_voucher(view, page=page)  # type: ignore[arg-type]
    doc = pdfium.PdfDocument(rendered.pdf)
    try:
        text = " ".join(doc[0].get_textpage().get_text_bounded().split())
        width, _height = doc[0].get_size()
    finally:
        doc.close()
    assert abs(width * 25.4 / 72 - page.width_mm) < 0.01  # type: ignore[attr-defined]
    for expected in (
        "VOLANTE PROVISIONAL Nº 17",
        "DNI 12345678Z",
        "10,00 €",
        "José Ángel Muñoz",
        "28/11/2026 23:00",
        "23.4",
    ):
        assert expected in text

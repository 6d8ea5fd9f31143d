"""The server's rows as records: the columns each read selects, and the opening of the
sealed values (db/pg/crypto.py) bound to their table, column and row (art. 20.4)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from admission.records import CardRecord, CardStatus
from admission.vouchers.model import Voucher, VoucherStatus
from db.pg.crypto import KeyRing

CARD_COLUMNS = (
    "t.number, t.file_number, t.visit_id, t.card_type, t.price_cents, t.issued_at, "
    "t.valid_from, t.valid_until, t.status, t.exceptional, t.private_rooms, "
    "t.authorised_by, t.print_count, t.void_reason"
)
# the provisional vouchers (art. 23.4) and the RIAJ snapshots (art. 20.2) the chain covers
VOUCHER_COLUMNS = (
    "t.number, t.issued_at, t.desk_id, t.operator, t.holder_name, t.document_type, "
    "t.document_number, t.card_type, t.price_cents, t.status, t.card_number, t.closed_at, "
    "t.close_reason"
)
REGISTRY_COLUMNS = (
    "t.snapshot_id, t.version, t.scheme, t.salt, t.scope, t.as_of, t.imported_at, "
    "t.entry_count, t.content_sha256, t.signed, t.feed_as_of, t.feed_applied, t.feed_page, "
    "t.active"
)


def utc(at: datetime) -> datetime:
    return at.astimezone(UTC)


def opt_utc(at: datetime | None) -> datetime | None:
    return None if at is None else at.astimezone(UTC)


class Opener:
    """Opens the sealed values of rows read from the server with one key ring."""

    def __init__(self, ring: KeyRing) -> None:
        self.ring = ring

    def text(self, value: Any, table: str, column: str, row: int | str) -> str:
        return self.ring.open_text(bytes(value), table=table, column=column, row=row)

    def opt_text(self, value: Any, table: str, column: str, row: int | str) -> str | None:
        return None if value is None else self.text(value, table, column, row)


def card_from_row(row: Sequence[Any]) -> CardRecord:
    (number, fn, visit_id, card_type, price, issued, v_from, v_until, status) = row[:9]
    exceptional, private, authorised, prints, void_reason = row[9:14]
    valid_from: date = v_from
    valid_until: date = v_until
    return CardRecord(
        number=int(number),
        file_number=int(fn),
        visit_id=0 if visit_id is None else int(visit_id),  # 0: retention erased the visit
        card_type=str(card_type),
        price_cents=int(price),
        issued_at=utc(issued),
        valid_from=valid_from,
        valid_until=valid_until,
        status=CardStatus(str(status)),
        exceptional=bool(exceptional),
        private_rooms=bool(private),
        authorised_by=str(authorised),
        print_count=int(prints),
        void_reason=str(void_reason),
    )


# -- desk accounts (db/pg/accounts.py writes them; the store's chain verifies them) ------

ACCOUNT_COLUMNS = "t.account_id, t.username, t.record"
ACCOUNT_TABLE, ACCOUNT_COLUMN = "accounts", "record"


def open_account_record(ring: KeyRing, username: str, sealed: Any) -> dict[str, Any]:
    """An account's sealed record, bound to its user name."""
    text = ring.open_text(bytes(sealed), table=ACCOUNT_TABLE, column=ACCOUNT_COLUMN, row=username)
    record: dict[str, Any] = json.loads(text)
    return record


def account_content(ring: KeyRing, row: Sequence[Any]) -> tuple[int, list[object]]:
    """(account_id, content) of a row read with :data:`ACCOUNT_COLUMNS`: the same list
    the SQLCipher chain commits to (db/accounts.py: every column, the hash included, the
    PIN's hash once one is set)."""
    account_id, username = int(row[0]), str(row[1])
    r = open_account_record(ring, username, row[2])
    return account_id, [
        username,
        str(r["display_name"]),
        str(r["roles"]),
        int(bool(r["active"])),
        str(r["password_hash"]),
        int(r["failed_attempts"]),
        r["locked_until"],
        str(r["created_at"]),
        *([] if r.get("pin_hash") is None else [str(r["pin_hash"])]),  # as db/accounts.py
    ]


# -- provisional vouchers (db/pg/voucher_book.py writes them; the chain verifies them) --

VOUCHER_TABLE = "vouchers"


def voucher_from_row(ring: KeyRing, row: Sequence[Any]) -> Voucher:
    (number, issued, desk, operator, holder, doc_type, doc_number) = row[:7]
    (card_type, price, status, card_number, closed, reason) = row[7:13]
    n = int(number)

    def opened(value: Any, column: str) -> str:
        return ring.open_text(bytes(value), table=VOUCHER_TABLE, column=column, row=n)

    return Voucher(
        number=n,
        issued_at=utc(issued),
        desk_id=str(desk),
        operator=str(operator),
        holder_name=opened(holder, "holder_name"),
        document_type=str(doc_type),
        document_number=opened(doc_number, "document_number"),
        card_type=str(card_type),
        price_cents=int(price),
        status=VoucherStatus(str(status)),
        card_number=None if card_number is None else int(card_number),
        closed_at=opt_utc(closed),
        close_reason="" if reason is None else opened(reason, "close_reason"),
    )

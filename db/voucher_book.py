"""The voucher book: provisional vouchers (volantes provisionales, art. 23.4, R11),
stored in the encrypted visitor file.

Uses the store's one connection under its lock, so it is as thread-safe as the store
itself. Tables come from ``db/migrations/0020_vouchers.sql``.

Retention (R3): vouchers hold a name and a document number, so they are erased with
the visits: :meth:`SqlVoucherBook.purge_vouchers` is called with the same cutoff.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from admission.errors import NotFoundError
from admission.vouchers.model import NewVoucher, Voucher, VoucherStatus, cancel, exchange
from db import codec
from db.reprint_queue import StoreAccess

__all__ = ["SqlVoucherBook", "purge_vouchers"]

_VOUCHER_COLUMNS = (
    "number, issued_at, desk_id, operator, holder_name, document_type, "
    "document_number, card_type, price_cents, status, card_number, closed_at, "
    "close_reason"
)


class SqlVoucherBook:
    """The ``VoucherBook`` port over an open ``SqlCipherStore``."""

    def __init__(self, store: StoreAccess) -> None:
        self._store = store

    def _tx(self) -> AbstractContextManager[Any]:
        return self._store.transaction()

    def _read(self) -> AbstractContextManager[Any]:
        return self._store.reading()

    def issue_voucher(self, new: NewVoucher) -> Voucher:
        """Record a voucher with the next gapless voucher number (own sequence). A
        restore that lost vouchers leaves a floor in ``counters`` ('voucher': the next
        number at least), so a lost voucher's number never serves twice (art. 23.4)."""
        with self._tx() as conn:
            number = int(
                conn.execute(
                    "SELECT MAX(COALESCE(MAX(number), 0) + 1, COALESCE((SELECT next FROM "
                    "counters WHERE name = 'voucher'), 1)) FROM vouchers"
                ).fetchone()[0]
            )
            voucher = new.numbered(number)
            conn.execute(
                f"INSERT INTO vouchers ({_VOUCHER_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, '')",
                (
                    number,
                    codec.ts(voucher.issued_at),
                    voucher.desk_id,
                    voucher.operator,
                    voucher.holder_name,
                    voucher.document_type,
                    voucher.document_number,
                    voucher.card_type,
                    voucher.price_cents,
                    voucher.status.value,
                ),
            )
        return voucher

    def voucher(self, number: int) -> Voucher | None:
        with self._read() as conn:
            return _fetch_voucher(conn, number)

    def exchange_voucher(self, number: int, card_number: int, at: datetime) -> Voucher:
        """The formal card was issued: the voucher is closed and points at the card."""
        with self._tx() as conn:
            found = _fetch_voucher(conn, number)
            if found is None:
                raise NotFoundError("no such voucher")
            done = exchange(found, card_number, at)
            conn.execute(
                "UPDATE vouchers SET status = ?, card_number = ?, closed_at = ? WHERE number = ?",
                (done.status.value, card_number, codec.ts(at), number),
            )
        return done

    def cancel_voucher(self, number: int, reason: str, at: datetime) -> Voucher:
        """Document and money returned without a card (e.g. refused at formalisation)."""
        with self._tx() as conn:
            found = _fetch_voucher(conn, number)
            if found is None:
                raise NotFoundError("no such voucher")
            done = cancel(found, reason, at)
            conn.execute(
                "UPDATE vouchers SET status = ?, closed_at = ?, close_reason = ? WHERE number = ?",
                (done.status.value, codec.ts(at), done.close_reason, number),
            )
        return done

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]:
        """Vouchers not exchanged yet (oldest first); with ``issued_before``, those issued
        before that instant (the closing-time list)."""
        sql = f"SELECT {_VOUCHER_COLUMNS} FROM vouchers WHERE status = 'OPEN'"
        args: tuple[object, ...] = ()
        if issued_before is not None:
            sql += " AND issued_at < ?"
            args = (codec.ts(issued_before),)
        with self._read() as conn:
            rows = conn.execute(sql + " ORDER BY number", args).fetchall()
        return [_voucher(row) for row in rows]

    def purge_vouchers(self, cutoff: datetime) -> int:
        with self._tx() as conn:
            return purge_vouchers(conn, cutoff)


def _fetch_voucher(conn: Any, number: int) -> Voucher | None:
    row = conn.execute(
        f"SELECT {_VOUCHER_COLUMNS} FROM vouchers WHERE number = ?", (number,)
    ).fetchone()
    return None if row is None else _voucher(row)


def purge_vouchers(conn: Any, cutoff: datetime) -> int:
    """Erase closed vouchers issued before ``cutoff`` (R3); open ones are kept: a
    deposited document is still at the desk. Runs inside the caller's transaction."""
    cur = conn.execute(
        "DELETE FROM vouchers WHERE status != 'OPEN' AND issued_at < ?", (codec.ts(cutoff),)
    )
    return int(cur.rowcount)


def _voucher(row: Sequence[Any]) -> Voucher:
    (
        number,
        issued,
        desk,
        operator,
        holder,
        doc_type,
        doc_number,
        card_type,
        price,
        status,
        card_number,
        closed,
        reason,
    ) = row
    return Voucher(
        number=int(number),
        issued_at=codec.parse_ts(str(issued)),
        desk_id=str(desk),
        operator=str(operator),
        holder_name=str(holder),
        document_type=str(doc_type),
        document_number=str(doc_number),
        card_type=str(card_type),
        price_cents=int(price),
        status=VoucherStatus(str(status)),
        card_number=None if card_number is None else int(card_number),
        closed_at=None if closed is None else codec.parse_ts(str(closed)),
        close_reason=str(reason),
    )

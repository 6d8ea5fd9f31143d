"""The voucher book: provisional vouchers (volantes provisionales, art. 23.4, R11),
stored in the encrypted visitor file.

Uses the store's one connection under its lock, so it is as thread-safe as the store
itself. Tables come from ``db/migrations/0020_vouchers.sql``.

Each issue, exchange and cancellation writes its audit entry in the same transaction,
committing to the voucher as it now is (db/audit_chain.py): a voucher changed, added or
deleted outside the book fails ``audit verify``; the ``voucher`` counter (migration
0060) stays one past the newest number, and the chain checks it (VOUCHER_NUMBER_GAP).

Retention (R3): vouchers hold a name and a document number, so they are erased with
the visits: :meth:`SqlVoucherBook.purge_vouchers` is called with the same cutoff (the
store's ``ERASED`` entry counts them).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from admission.errors import NotFoundError
from admission.vouchers.model import NewVoucher, Voucher, VoucherStatus, cancel, exchange
from db import codec
from db.audit_rows import AppendsIn

__all__ = [
    "VOUCHER_ACTOR",
    "VOUCHER_COLUMNS",
    "AuditedStore",
    "SqlVoucherBook",
    "purge_vouchers",
    "voucher_audit",
    "voucher_from_row",
]

VOUCHER_ACTOR = "voucher-book"  # actor of an exchange or a cancellation (the port names none)

VOUCHER_COLUMNS = (
    "number, issued_at, desk_id, operator, holder_name, document_type, "
    "document_number, card_type, price_cents, status, card_number, closed_at, "
    "close_reason"
)


class StoreAccess(Protocol):
    """The store's transaction and read contexts (``SqlCipherStore``)."""

    def transaction(self) -> AbstractContextManager[Any]: ...

    def reading(self) -> AbstractContextManager[Any]: ...


class AuditedStore(StoreAccess, AppendsIn[Any], Protocol):
    """The store's transactions and its audit entries inside them (``SqlCipherStore``)."""


def voucher_audit(voucher: Voucher, *, created: bool) -> tuple[str, str, str, dict[str, str]]:
    """(actor, action, subject, details) of a voucher's entry, the same in both stores."""
    subject = f"voucher:{voucher.number}"
    if created:
        details = {"card_type": voucher.card_type, "price_cents": str(voucher.price_cents)}
        return voucher.operator, "VOUCHER_ISSUED", subject, details
    if voucher.status is VoucherStatus.EXCHANGED:
        return VOUCHER_ACTOR, "VOUCHER_EXCHANGED", subject, {"card": str(voucher.card_number)}
    return VOUCHER_ACTOR, "VOUCHER_CANCELLED", subject, {}


class SqlVoucherBook:
    """The ``VoucherBook`` port over an open ``SqlCipherStore``."""

    def __init__(self, store: AuditedStore) -> None:
        self._store = store

    def _audit(self, conn: Any, voucher: Voucher, at: datetime, *, created: bool) -> None:
        actor, action, subject, details = voucher_audit(voucher, created=created)
        rows = [(subject, created)]
        self._store.append_in(conn, actor, action, subject, at, details, rows)

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
                f"INSERT INTO vouchers ({VOUCHER_COLUMNS}) "
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
            conn.execute("UPDATE counters SET next = ? WHERE name = 'voucher'", (number + 1,))
            self._audit(conn, voucher, voucher.issued_at, created=True)
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
            self._audit(conn, done, at, created=False)
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
            self._audit(conn, done, at, created=False)
        return done

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]:
        """Vouchers not exchanged yet (oldest first); with ``issued_before``, those issued
        before that instant (the closing-time list)."""
        sql = f"SELECT {VOUCHER_COLUMNS} FROM vouchers WHERE status = 'OPEN'"
        args: tuple[object, ...] = ()
        if issued_before is not None:
            sql += " AND issued_at < ?"
            args = (codec.ts(issued_before),)
        with self._read() as conn:
            rows = conn.execute(sql + " ORDER BY number", args).fetchall()
        return [voucher_from_row(row) for row in rows]

    def purge_vouchers(self, cutoff: datetime) -> int:
        with self._tx() as conn:
            return purge_vouchers(conn, cutoff)


def _fetch_voucher(conn: Any, number: int) -> Voucher | None:
    row = conn.execute(
        f"SELECT {VOUCHER_COLUMNS} FROM vouchers WHERE number = ?", (number,)
    ).fetchone()
    return None if row is None else voucher_from_row(row)


def purge_vouchers(conn: Any, cutoff: datetime) -> int:
    """Erase closed vouchers issued before ``cutoff`` (R3); open ones are kept: a
    deposited document is still at the desk. Runs inside the caller's transaction."""
    cur = conn.execute(
        "DELETE FROM vouchers WHERE status != 'OPEN' AND issued_at < ?", (codec.ts(cutoff),)
    )
    return int(cur.rowcount)


def voucher_from_row(row: Sequence[Any]) -> Voucher:
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

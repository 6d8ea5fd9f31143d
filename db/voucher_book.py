"""Provisional vouchers (volantes provisionales, art. 23.4, R11) over both dialects
(db/tx.py): numbers from the ``voucher`` counter in the issuing transaction (one gapless
sequence, never given again); each issue, exchange and cancellation an audit entry
committing to the voucher as it now is. Holder, document number and closing reason are
sealed on the server. Erased with the visits (R3)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from admission.errors import NotFoundError
from admission.vouchers.model import NewVoucher, Voucher, VoucherStatus, cancel, exchange
from db.audit_chain import voucher_content
from db.audit_rows import Content, Covered
from db.tx import Opens, Tx, insert_row, opt_when, scalar, update_row, when

if TYPE_CHECKING:
    from db.pg.crypto import KeyRing, RotationReport

T = TypeVar("T")
VOUCHER_ACTOR = "voucher-book"  # actor of an exchange or a cancellation
VOUCHER_COLUMNS = (
    "number, issued_at, desk_id, operator, holder_name, document_type, "
    "document_number, card_type, price_cents, status, card_number, closed_at, "
    "close_reason"
)
_SEALED = ("holder_name", "document_number", "close_reason")


class Store(Protocol):
    """A store's transactions (``SqlCipherStore``, ``PgStore``)."""

    def read(self, work: Callable[[Any], T]) -> T: ...

    def write(self, work: Callable[[Any], T]) -> T: ...


class VoucherStore(Store, Protocol):
    def purge_write(self, work: Callable[[Any], T]) -> T: ...


def voucher_from_row(row: Sequence[Any], opened: Opens) -> Voucher:
    """A voucher read with :data:`VOUCHER_COLUMNS` (``opened``: :meth:`Tx.open`)."""
    (number, issued, desk, operator, holder, doc_type, doc_number) = row[:7]
    (card_type, price, status, card_number, closed, reason) = row[7:13]
    n = int(number)
    return Voucher(
        number=n,
        issued_at=when(issued),
        desk_id=str(desk),
        operator=str(operator),
        holder_name=opened(holder, "vouchers", "holder_name", n),
        document_type=str(doc_type),
        document_number=opened(doc_number, "vouchers", "document_number", n),
        card_type=str(card_type),
        price_cents=int(price),
        status=VoucherStatus(str(status)),
        card_number=None if card_number is None else int(card_number),
        closed_at=opt_when(closed),
        close_reason="" if reason is None else opened(reason, "vouchers", "close_reason", n),
    )


def _audited(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    vouchers = [voucher_from_row(row, tx.open) for row in rows]
    return [(f"voucher:{v.number}", voucher_content(v)) for v in vouchers]


# the vouchers the audit chain covers (art. 20.4; a file older than migration 0020 has none)
_ROW = ", ".join(f"t.{c.strip()}" for c in VOUCHER_COLUMNS.split(","))
COVERED = Covered("voucher", "vouchers", "number", _ROW, _audited, optional=True)


def _audit(tx: Tx, voucher: Voucher, at: datetime, *, created: bool) -> None:
    """The voucher's entry, committing to it as it now is."""
    actor, details = VOUCHER_ACTOR, {}  # an exchange or a cancellation names no one
    if created:
        action, actor = "VOUCHER_ISSUED", voucher.operator
        details = {"card_type": voucher.card_type, "price_cents": str(voucher.price_cents)}
    elif voucher.status is VoucherStatus.EXCHANGED:
        action, details = "VOUCHER_EXCHANGED", {"card": str(voucher.card_number)}
    else:
        action = "VOUCHER_CANCELLED"
    subject = f"voucher:{voucher.number}"
    tx.audit(actor, action, subject, at, details, [(subject, created)])


def _fetch(tx: Tx, number: int, *, lock: bool = False) -> Voucher | None:
    row = tx.one(
        f"SELECT {VOUCHER_COLUMNS} FROM vouchers WHERE number = ?" + (tx.lock_rows if lock else ""),
        (number,),
    )
    if lock and row is None:
        raise NotFoundError("no such voucher")
    return None if row is None else voucher_from_row(row, tx.open)


def _issue(tx: Tx, new: NewVoucher) -> Voucher:
    # art. 23.4: a correlative number across desks; a rollback gives it back
    voucher = new.numbered(tx.next_number("voucher"))
    n = voucher.number
    values = {  # close_reason stays the column's default until the voucher closes
        "number": n,
        "issued_at": tx.ts(voucher.issued_at),
        "desk_id": voucher.desk_id,
        "operator": voucher.operator,
        "holder_name": tx.seal(voucher.holder_name, "vouchers", "holder_name", n),
        "document_type": voucher.document_type,
        "document_number": tx.seal(voucher.document_number, "vouchers", "document_number", n),
        "card_type": voucher.card_type,
        "price_cents": voucher.price_cents,
        "status": voucher.status.value,
        **tx.index_columns(),
    }
    insert_row(tx, "vouchers", values)
    _audit(tx, voucher, voucher.issued_at, created=True)
    return voucher


def _close(tx: Tx, number: int, at: datetime, card_number: int | None, reason: str) -> Voucher:
    """An exchange for card ``card_number``, else a cancellation for ``reason``."""
    found = _fetch(tx, number, lock=True)
    assert found is not None
    if card_number is not None:
        done = exchange(found, card_number, at)
        values: dict[str, Any] = {"card_number": card_number}
    else:
        done = cancel(found, reason, at)
        # every sealed value under the current key version (the server's key_version
        # names the version of all of them, for re-encryption)
        values = {c: tx.seal(getattr(done, c), "vouchers", c, number) for c in _SEALED}
        values.update(tx.index_columns())
    values = {"status": done.status.value, "closed_at": tx.ts(at), **values}
    update_row(tx, "vouchers", values, "number", number)
    _audit(tx, done, at, created=False)
    return done


def _purge(tx: Tx, cutoff: datetime) -> int:
    rows = tx.all(
        "DELETE FROM vouchers WHERE status <> 'OPEN' AND issued_at < ? RETURNING number",
        (tx.ts(cutoff),),
    )
    tx.note_erased(f"voucher:{int(r[0])}" for r in rows)  # counted by ERASED
    return len(rows)


class StoreVoucherBook:
    """The ``VoucherBook`` port over an open store (either dialect; thread-safe as it)."""

    def __init__(self, store: VoucherStore) -> None:
        self._store = store

    def issue_voucher(self, new: NewVoucher) -> Voucher:
        """Record a voucher with the next number of the one gapless voucher sequence."""
        return self._store.write(lambda tx: _issue(tx, new))

    def voucher(self, number: int) -> Voucher | None:
        return self._store.read(lambda tx: _fetch(tx, number))

    def exchange_voucher(self, number: int, card_number: int, at: datetime) -> Voucher:
        """The formal card was issued: the voucher is closed and points at the card."""
        return self._store.write(lambda tx: _close(tx, number, at, card_number, ""))

    def cancel_voucher(self, number: int, reason: str, at: datetime) -> Voucher:
        """Document and money returned without a card (e.g. refused at formalisation)."""
        return self._store.write(lambda tx: _close(tx, number, at, None, reason))

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]:
        """Vouchers not exchanged yet (oldest first); with ``issued_before``, those issued
        before that instant (the closing-time list)."""

        def work(tx: Tx) -> list[Voucher]:
            args = [] if issued_before is None else [tx.ts(issued_before)]
            before = " AND issued_at < ?" if args else ""
            sql = f"SELECT {VOUCHER_COLUMNS} FROM vouchers WHERE status = 'OPEN'{before}"
            rows = tx.all(sql + " ORDER BY number", args)
            return [voucher_from_row(row, tx.open) for row in rows]

        return self._store.read(work)

    def purge_vouchers(self, cutoff: datetime) -> int:
        """Erase closed vouchers issued before ``cutoff`` (R3); open ones are kept: a
        deposited document is still at the desk. Under the server's roles only the purge
        group deletes (art. 20.4): the store's purge write runs as it."""
        return self._store.purge_write(lambda tx: _purge(tx, cutoff))

    def last_voucher_number(self) -> int:
        """The highest number ever given (0 when none), even if the purge erased it."""
        sql = "SELECT next - 1 FROM counters WHERE name = 'voucher'"
        return int(self._store.read(lambda tx: scalar(tx, sql)))


def reseal_rows(
    store: Store, ring: KeyRing, table: str, key: str, sealed: Sequence[str], batch_size: int
) -> RotationReport:
    """Key rotation (db/pg/crypto.py ``run_reencrypt``): reseal the ``sealed`` columns of
    every row of ``table`` not under ``ring``'s current version (its wrapped record stored
    first), in batches, restartable. A row a desk rewrote between the read and the write
    is left for the next batch, never put back."""
    from db.pg.crypto import SealedRow, run_reencrypt

    read: dict[Any, tuple[Any, ...]] = {}
    changes = ", ".join(f"{c} = ?" for c in sealed)
    unchanged = " AND ".join(f"{c} IS NOT DISTINCT FROM ?" for c in sealed)

    def fetch(current: int, limit: int) -> list[SealedRow]:
        rows = store.read(
            lambda tx: tx.all(
                f"SELECT {key}, key_version, {', '.join(sealed)} FROM {table} "
                f"WHERE key_version <> ? ORDER BY {key} LIMIT ?",
                (current, limit),
            )
        )
        read.clear()
        read.update((row[0], tuple(row[2:])) for row in rows)
        return [SealedRow.selected(table, sealed, row) for row in rows]

    def apply(batch: Sequence[SealedRow]) -> None:
        def work(tx: Tx) -> None:
            for row in batch:
                tx.execute(
                    f"UPDATE {table} SET {changes}, key_version = ? "
                    f"WHERE {key} = ? AND {unchanged}",
                    (*(row.values[c] for c in sealed), row.key_version, row.row, *read[row.row]),
                )

        store.write(work)

    return run_reencrypt(fetch, apply, ring, batch_size=batch_size)


def reseal_vouchers(store: VoucherStore, ring: KeyRing, *, batch_size: int = 500) -> RotationReport:
    """Key rotation: reseal every voucher not under ``ring``'s current version."""
    return reseal_rows(store, ring, "vouchers", "number", _SEALED, batch_size)

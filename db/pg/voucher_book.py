"""The voucher book on the shared PostgreSQL server: provisional vouchers (volantes
provisionales, art. 23.4, R11) of every desk of the operating unit (arts. 154-155).

The same ``VoucherBook`` port and answers as :class:`db.voucher_book.SqlVoucherBook`
(table ``vouchers`` of ``db/pg/migrations/0030_desk_ports.sql``), with two differences
the shared server needs:

* Numbers come from the ``voucher`` row of ``counters`` (``UPDATE ... RETURNING`` in the
  issuing transaction, after the store's head lock): one gapless sequence for every
  desk, and a number is never given again, even after the purge erased the newest
  vouchers (the SQLCipher book's ``MAX + 1`` would reuse it).
* The holder's name, the deposited document's number and the closing reason are sealed
  by the desk (db/pg/crypto.py, bound to table, column and voucher number); the desk,
  the operator, the document type, the card type, the price, the status and the times
  stay in clear, as they do for visits and cards. :func:`reseal_vouchers` reseals them
  under a new data key version (key rotation).

As the SQLCipher book, each issue, exchange and cancellation writes its audit entry in
its transaction, committing to the voucher as it now is (db/audit_chain.py), and the
purge's erasures are counted by the store's ``ERASED`` entry. Retention (R3):
vouchers hold a name and a document number, so :meth:`PgVoucherBook.purge_vouchers` is
called with the visits' cutoff (``admission.retention_sweep.RetentionSweep``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from admission.errors import NotFoundError
from admission.vouchers.model import NewVoucher, Voucher, cancel, exchange
from db.pg.crypto import KeyRing, RotationReport, SealedRow, run_reencrypt
from db.pg.rows import voucher_from_row
from db.pg.store import PgStore, _Tx
from db.voucher_book import voucher_audit

__all__ = ["PgVoucherBook", "reseal_vouchers", "voucher_from_row"]

_TABLE = "vouchers"
_COLUMNS = (
    "number, issued_at, desk_id, operator, holder_name, document_type, document_number, "
    "card_type, price_cents, status, card_number, closed_at, close_reason"
)


class PgVoucherBook:
    """The ``VoucherBook`` port over an open :class:`PgStore` (thread-safe as it)."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

    def issue_voucher(self, new: NewVoucher) -> Voucher:
        """Record a voucher with the next number of the one gapless voucher sequence."""
        ring = self._store.ring

        def work(tx: _Tx) -> Voucher:
            # art. 23.4: a correlative number across desks; a rollback returns it
            found = tx.one(
                "UPDATE counters SET next = next + 1 WHERE name = 'voucher' RETURNING next - 1"
            )
            assert found is not None
            voucher = new.numbered(int(found[0]))
            n = voucher.number
            tx.conn.execute(
                f"INSERT INTO vouchers ({_COLUMNS}, key_version) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, NULL, NULL, NULL, %s)",
                (
                    n,
                    voucher.issued_at,
                    voucher.desk_id,
                    voucher.operator,
                    _sealed(ring, voucher.holder_name, "holder_name", n),
                    voucher.document_type,
                    _sealed(ring, voucher.document_number, "document_number", n),
                    voucher.card_type,
                    voucher.price_cents,
                    voucher.status.value,
                    ring.current_version,
                ),
            )
            self._audit(tx, voucher, voucher.issued_at, created=True)
            return voucher

        return self._store.write(work)

    def voucher(self, number: int) -> Voucher | None:
        return self._store.read(lambda tx: self._fetch(tx, number))

    def exchange_voucher(self, number: int, card_number: int, at: datetime) -> Voucher:
        """The formal card was issued: the voucher is closed and points at the card."""

        def work(tx: _Tx) -> Voucher:
            found = self._fetch(tx, number, lock=True)
            if found is None:
                raise NotFoundError("no such voucher")
            done = exchange(found, card_number, at)
            tx.conn.execute(
                "UPDATE vouchers SET status = %s, card_number = %s, closed_at = %s "
                "WHERE number = %s",
                (done.status.value, card_number, at, number),
            )
            self._audit(tx, done, at, created=False)
            return done

        return self._store.write(work)

    def cancel_voucher(self, number: int, reason: str, at: datetime) -> Voucher:
        """Document and money returned without a card (e.g. refused at formalisation)."""
        ring = self._store.ring

        def work(tx: _Tx) -> Voucher:
            found = self._fetch(tx, number, lock=True)
            if found is None:
                raise NotFoundError("no such voucher")
            done = cancel(found, reason, at)
            # every sealed value of the row under the current key version (key_version
            # names the version of all of them, for re-encryption)
            tx.conn.execute(
                "UPDATE vouchers SET status = %s, closed_at = %s, holder_name = %s, "
                "document_number = %s, close_reason = %s, key_version = %s WHERE number = %s",
                (
                    done.status.value,
                    at,
                    _sealed(ring, done.holder_name, "holder_name", number),
                    _sealed(ring, done.document_number, "document_number", number),
                    _sealed(ring, done.close_reason, "close_reason", number),
                    ring.current_version,
                    number,
                ),
            )
            self._audit(tx, done, at, created=False)
            return done

        return self._store.write(work)

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]:
        """Vouchers not exchanged yet (oldest first); with ``issued_before``, those issued
        before that instant (the closing-time list)."""
        sql = f"SELECT {_COLUMNS} FROM vouchers WHERE status = 'OPEN'"
        args: tuple[object, ...] = ()
        if issued_before is not None:
            sql += " AND issued_at < %s"
            args = (issued_before,)
        rows = self._store.read(lambda tx: tx.all(sql + " ORDER BY number", args))
        ring = self._store.ring
        return [voucher_from_row(ring, row) for row in rows]

    def purge_vouchers(self, cutoff: datetime) -> int:
        """Erase closed vouchers issued before ``cutoff`` (R3); open ones are kept: a
        deposited document is still at the desk. Under the server's roles only the purge
        group deletes (art. 20.4): the desk's write runs as it."""

        def work(tx: _Tx) -> list[tuple[Any, ...]]:
            rows = tx.all(
                "DELETE FROM vouchers WHERE status <> 'OPEN' AND issued_at < %s RETURNING number",
                (cutoff,),
            )
            tx.erased.update(f"voucher:{int(r[0])}" for r in rows)  # counted by ERASED
            return rows

        return len(self._store._purge_write(work))

    def last_voucher_number(self) -> int:
        """The highest number ever given (0 when none), even if the purge erased it."""
        found = self._store.read(
            lambda tx: tx.one("SELECT next - 1 FROM counters WHERE name = 'voucher'")
        )
        assert found is not None
        return int(found[0])

    def _audit(self, tx: _Tx, voucher: Voucher, at: datetime, *, created: bool) -> None:
        actor, action, subject, details = voucher_audit(voucher, created=created)
        self._store.append_in(tx, actor, action, subject, at, details, [(subject, created)])

    def _fetch(self, tx: _Tx, number: int, *, lock: bool = False) -> Voucher | None:
        sql = f"SELECT {_COLUMNS} FROM vouchers WHERE number = %s"
        row = tx.one(sql + (" FOR UPDATE" if lock else ""), (number,))
        return None if row is None else voucher_from_row(self._store.ring, row)


_SEALED = ("holder_name", "document_number", "close_reason")


def reseal_vouchers(store: PgStore, ring: KeyRing, *, batch_size: int = 500) -> RotationReport:
    """Key rotation (db/pg/crypto.py ``run_reencrypt``): reseal every voucher not under
    ``ring``'s current version, in batches, restartable. ``ring`` holds the new version,
    whose wrapped record is stored first. A voucher a desk cancelled between the read and
    the write is left for the next batch, never put back."""
    read: dict[int, tuple[Any, ...]] = {}

    def fetch(current: int, limit: int) -> list[SealedRow]:
        rows = store.read(
            lambda tx: tx.all(
                f"SELECT number, key_version, {', '.join(_SEALED)} FROM vouchers "
                "WHERE key_version <> %s ORDER BY number LIMIT %s",
                (current, limit),
            )
        )
        read.clear()
        read.update((int(row[0]), tuple(row[2:])) for row in rows)
        return [
            SealedRow(
                _TABLE,
                int(row[0]),
                int(row[1]),
                {c: None if v is None else bytes(v) for c, v in zip(_SEALED, row[2:], strict=True)},
            )
            for row in rows
        ]

    def apply(batch: Sequence[SealedRow]) -> None:
        def work(tx: _Tx) -> None:
            for row in batch:
                number = int(row.row)
                tx.conn.execute(
                    "UPDATE vouchers SET holder_name = %s, document_number = %s, "
                    "close_reason = %s, key_version = %s WHERE number = %s "
                    "AND holder_name = %s AND document_number = %s "
                    "AND close_reason IS NOT DISTINCT FROM %s",
                    (*(row.values[c] for c in _SEALED), row.key_version, number, *read[number]),
                )

        store.write(work)

    return run_reencrypt(fetch, apply, ring, batch_size=batch_size)


def _sealed(ring: KeyRing, text: str, column: str, number: int) -> bytes:
    return ring.seal_text(text, table=_TABLE, column=column, row=number)

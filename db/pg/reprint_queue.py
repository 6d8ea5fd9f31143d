"""The reprint queue on the shared PostgreSQL server: cards issued but never printed
(art. 22), of every desk of the operating unit (arts. 154-155).

The same answers as :class:`db.reprint_queue.SqlReprintQueue`, read in one transaction
of the store (``PgStore._read``; the partial index ``cards_unprinted`` of
``db/pg/migrations/0030_desk_ports.sql``). Cards hold no sealed value: nothing to open.
"""

from __future__ import annotations

from collections.abc import Sequence

from admission.records import CardRecord
from db.pg.rows import CARD_COLUMNS, card_from_row
from db.pg.store import PgStore

__all__ = ["PgReprintQueue"]


class PgReprintQueue:
    """Cards issued and not printed, over an open :class:`PgStore` (thread-safe as it)."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

    def unprinted_cards(self, limit: int = 200) -> Sequence[CardRecord]:
        """Cards issued and never printed ("issued, not printed"), newest first."""
        rows = self._store.read(
            lambda tx: tx.all(
                f"SELECT {CARD_COLUMNS} FROM cards AS t WHERE t.status = 'ISSUED' "
                "ORDER BY t.number DESC LIMIT %s",
                (None if limit < 0 else limit,),  # as SQLite: a negative limit is none
            )
        )
        return [card_from_row(row) for row in rows]

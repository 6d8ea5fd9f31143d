"""The reprint queue: cards issued but never printed (art. 22), read from the encrypted
visitor file.

Uses the store's one connection under its lock (``SqlCipherStore.transaction`` /
``reading``), so it is as thread-safe as the store itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from admission.records import CardRecord
from db.cards import CARD_COLUMNS, card_from_row

__all__ = ["SqlReprintQueue", "StoreAccess"]


class StoreAccess(Protocol):
    """The store's transaction and read contexts (``SqlCipherStore``)."""

    def transaction(self) -> AbstractContextManager[Any]: ...

    def reading(self) -> AbstractContextManager[Any]: ...


class SqlReprintQueue:
    """Cards issued and not printed, over an open ``SqlCipherStore``."""

    def __init__(self, store: StoreAccess) -> None:
        self._store = store

    def unprinted_cards(self, limit: int = 200) -> Sequence[CardRecord]:
        """Cards issued and never printed ("issued, not printed"), newest first."""
        with self._store.reading() as conn:
            rows = conn.execute(
                f"SELECT {CARD_COLUMNS} FROM cards WHERE status = 'ISSUED' "
                "ORDER BY number DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [card_from_row(row) for row in rows]

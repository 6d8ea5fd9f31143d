"""The reprint queue: cards issued but never printed (art. 22), of the SQLCipher file or
of every desk on the server (arts. 154-155), read in one transaction of the store (the
partial index ``cards_unprinted``). Thread-safe as the store itself."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from admission.records import CardRecord
from db.cards import CARD_COLUMNS, card_from_row

__all__ = ["Reads", "UnprintedCards"]
T = TypeVar("T")


class Reads(Protocol):
    """A store's read transaction (db/tx.py)."""

    def read(self, work: Callable[[Any], T]) -> T: ...


class UnprintedCards:
    """Cards issued and not printed, over an open store."""

    def __init__(self, store: Reads) -> None:
        self._store = store

    def unprinted_cards(self, limit: int = 200) -> Sequence[CardRecord]:
        """Cards issued and never printed ("issued, not printed"), newest first. A
        negative ``limit`` is none."""
        rows = self._store.read(
            lambda tx: tx.all(
                f"SELECT {CARD_COLUMNS} FROM cards AS t WHERE t.status = 'ISSUED' "
                "ORDER BY t.number DESC LIMIT ?",
                (None if limit < 0 else limit,),
            )
        )
        return [card_from_row(row) for row in rows]

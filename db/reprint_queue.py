"""The reprint queue: cards issued but never printed (art. 22), of the desk's file or of
every desk on the server (arts. 154-155), read by the partial index ``cards_unprinted``."""

from __future__ import annotations

from collections.abc import Sequence

from admission.records import CardRecord
from db.cards import CARD_COLUMNS, card_from_row
from db.file_ports import FilePorts

__all__ = ["UnprintedCards"]
_UNPRINTED = (
    f"SELECT {CARD_COLUMNS} FROM cards AS t WHERE t.status = 'ISSUED' "
    "ORDER BY t.number DESC LIMIT ?"
)


class UnprintedCards:
    def __init__(self, store: FilePorts) -> None:
        self._store = store

    def unprinted_cards(self, limit: int = 200) -> Sequence[CardRecord]:
        """Newest first; a negative ``limit`` is none."""
        rows = self._store.read(lambda tx: tx.all(_UNPRINTED, (None if limit < 0 else limit,)))
        return [card_from_row(row) for row in rows]

"""The visitor file's ports (admission/ports.py: VisitorFile, CardBook, BanList...),
written once for both stores: each method runs one rule of db/cards.py, db/visitors.py...
in one transaction of the store's dialect (db/tx.py). ``SqlCipherStore`` and ``PgStore``
add only how they open, lock, retry and seal."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any, TypeVar

from admission.identity import IdentityKey
from admission.records import CardRecord
from db import cards

T = TypeVar("T")


class FilePorts:
    """The ports over :meth:`read` and :meth:`write`, which each store provides."""

    def read(self, work: Callable[[Any], T]) -> T:  # pragma: no cover - each store's own
        raise NotImplementedError

    def write(self, work: Callable[[Any], T]) -> T:  # pragma: no cover - each store's own
        raise NotImplementedError

    # -- CardBook (art. 22) ------------------------------------------------------------------

    def open_card(
        self, identity: IdentityKey, on: date, since: date | None = None
    ) -> CardRecord | None:
        """The newest card of this identity, not voided, valid on Madrid date ``on`` or
        on a day from ``since`` (the session's first day) to ``on`` (art. 22)."""
        return self.read(lambda tx: cards.open_card(tx, identity, on, since))

    def card(self, number: int) -> CardRecord | None:
        return self.read(lambda tx: cards.card(tx, number))

    def card_events(self, number: int) -> list[tuple[datetime, str, str, str]]:
        """(at, kind, reason, actor) of one card, oldest first."""
        return self.read(lambda tx: cards.card_events(tx, number))

    def last_card_number(self) -> int:
        """The highest number ever issued (0 when none), even if retention erased it."""
        return self.read(cards.last_card_number)

    def mark_printed(self, number: int, at: datetime) -> None:
        """A successful print: ISSUED/PRINTED -> PRINTED, print_count + 1."""
        self.write(lambda tx: cards.mark_printed(tx, number, at))

    def void_card(self, number: int, reason: str, actor: str, at: datetime) -> None:
        cards.require_reason(reason)
        self.write(lambda tx: cards.void_card(tx, number, reason, actor, at))

    def record_reprint(self, number: int, reason: str, actor: str, at: datetime) -> None:
        """A reprint of the same number is requested (print_count grows on mark_printed)."""
        cards.require_reason(reason)
        self.write(lambda tx: cards.record_reprint(tx, number, reason, actor, at))

"""Entry cards (tarjetas de entrada, art. 22): printing, reprints and voids keep the
number; each is a card_events row with its reason, and each is an audit entry that
commits to the card as it now is, events included (art. 20.4)."""

from __future__ import annotations

import json
import sqlite3
from datetime import date, datetime
from typing import Any

from admission.errors import InvalidStateError, NotFoundError
from admission.identity import IdentityKey
from admission.records import CardRecord, CardStatus, RecordErrorCode
from db import codec
from db.audit_chain import card_content
from db.audit_rows import CoveredTable
from db.visitors import OPEN_CARDS, VisitorsMixin

CARD_COLUMNS = (
    "number, file_number, visit_id, card_type, price_cents, issued_at, valid_from, "
    "valid_until, status, exceptional, private_rooms, authorised_by, print_count, "
    "void_reason"
)


def card_from_row(row: Any) -> CardRecord:
    (
        number,
        fn,
        visit_id,
        card_type,
        price,
        issued,
        v_from,
        v_until,
        status,
        exceptional,
        private,
        authorised,
        prints,
        void_reason,
    ) = row
    valid_from = codec.parse_day(str(v_from))
    valid_until = codec.parse_day(str(v_until))
    assert valid_from is not None and valid_until is not None
    return CardRecord(
        number=int(str(number)),
        file_number=int(str(fn)),
        # 0 once retention erased the visit of a card that is still valid
        visit_id=0 if visit_id is None else int(str(visit_id)),
        card_type=str(card_type),
        price_cents=int(str(price)),
        issued_at=codec.parse_ts(str(issued)),
        valid_from=valid_from,
        valid_until=valid_until,
        status=CardStatus(str(status)),
        exceptional=bool(exceptional),
        private_rooms=bool(private),
        authorised_by=str(authorised),
        print_count=int(str(prints)),
        void_reason=str(void_reason),
    )


# The card row and its events as one JSON array, oldest first, for the chain.
_AUDITED_CARD = (
    ", ".join(f"t.{c.strip()}" for c in CARD_COLUMNS.split(","))
    + ", (SELECT json_group_array(json_array(e.at, e.kind, e.reason, e.actor)) FROM "
    "(SELECT at, kind, reason, actor FROM card_events WHERE card_number = t.number "
    "ORDER BY event_id) AS e)"
)


def _card_content(conn: sqlite3.Connection, row: tuple[object, ...]) -> list[object]:
    events = [
        (codec.parse_ts(str(at)), str(kind), str(reason), str(actor))
        for at, kind, reason, actor in json.loads(str(row[14] or "[]"))
    ]
    return card_content(card_from_row(row[:14]), events)


def _require_reason(reason: str) -> None:
    if not reason.strip():
        raise InvalidStateError("a reason is required", code=RecordErrorCode.REASON_REQUIRED)


class CardsMixin(VisitorsMixin):
    def _covered(self) -> dict[str, CoveredTable]:
        card = CoveredTable("card", "cards", "number", _AUDITED_CARD, _card_content)
        return {**super()._covered(), "card": card}

    def open_card(
        self, identity: IdentityKey, on: date, since: date | None = None
    ) -> CardRecord | None:
        """The newest card of this identity, not voided, valid on Madrid date ``on`` or
        on a day from ``since`` (the session's first day) to ``on`` (art. 22)."""
        first = codec.day(min(since or on, on))
        with self._read() as conn:
            row = conn.execute(OPEN_CARDS, (identity.text, codec.day(on), first)).fetchone()
        return None if row is None else self.card(int(row[0]))

    def card(self, number: int) -> CardRecord | None:
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {CARD_COLUMNS} FROM cards WHERE number = ?", (number,)
            ).fetchone()
        return None if row is None else card_from_row(row)

    def card_events(self, number: int) -> list[tuple[datetime, str, str, str]]:
        """(at, kind, reason, actor) of one card, oldest first."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT at, kind, reason, actor FROM card_events "
                "WHERE card_number = ? ORDER BY event_id",
                (number,),
            ).fetchall()
        return [(codec.parse_ts(at), kind, reason, actor) for at, kind, reason, actor in rows]

    def last_card_number(self) -> int:
        """The highest number ever issued (0 when none), even if retention erased it."""
        with self._read() as conn:
            return int(
                conn.execute("SELECT next - 1 FROM counters WHERE name = 'card'").fetchone()[0]
            )

    def mark_printed(self, number: int, at: datetime) -> None:
        """A successful print: ISSUED/PRINTED → PRINTED, print_count + 1."""
        with self._tx() as conn:
            self._status(conn, number)
            conn.execute(
                "UPDATE cards SET status = 'PRINTED', print_count = print_count + 1 "
                "WHERE number = ?",
                (number,),
            )
            conn.execute(
                "INSERT INTO card_events (card_number, at, kind, reason, actor) "
                "VALUES (?, ?, 'PRINTED', '', '')",
                (number, codec.ts(at)),
            )
            self._audit(
                conn, "card-printer", "CARD_PRINTED", f"card:{number}", at, None, _card(number)
            )

    def void_card(self, number: int, reason: str, actor: str, at: datetime) -> None:
        _require_reason(reason)
        with self._tx() as conn:
            self._status(conn, number)
            conn.execute(
                "UPDATE cards SET status = 'VOIDED', void_reason = ? WHERE number = ?",
                (reason, number),
            )
            conn.execute(
                "INSERT INTO card_events (card_number, at, kind, reason, actor) "
                "VALUES (?, ?, 'VOIDED', ?, ?)",
                (number, codec.ts(at), reason, actor),
            )
            self._audit(conn, actor, "CARD_VOID", f"card:{number}", at, None, _card(number))

    def record_reprint(self, number: int, reason: str, actor: str, at: datetime) -> None:
        """A reprint of the same number is requested (print_count grows on mark_printed)."""
        _require_reason(reason)
        with self._tx() as conn:
            self._status(conn, number)
            conn.execute(
                "INSERT INTO card_events (card_number, at, kind, reason, actor) "
                "VALUES (?, ?, 'REPRINT', ?, ?)",
                (number, codec.ts(at), reason, actor),
            )
            self._audit(conn, actor, "CARD_REPRINT", f"card:{number}", at, None, _card(number))

    @staticmethod
    def _status(conn: sqlite3.Connection, number: int) -> CardStatus:
        """The card's status; a voided or unknown card cannot change."""
        row = conn.execute("SELECT status FROM cards WHERE number = ?", (number,)).fetchone()
        if row is None:
            raise NotFoundError("no such card number")
        status = CardStatus(row[0])
        if status is CardStatus.VOIDED:
            raise InvalidStateError("the card is voided", code=RecordErrorCode.CARD_VOIDED)
        return status


def _card(number: int) -> list[tuple[str, bool]]:
    return [(f"card:{number}", False)]

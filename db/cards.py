"""Entry cards (tarjetas de entrada, art. 22), written once over both dialects (db/tx.py):
printing, reprints and voids keep the number; each is a card_events row with its reason
and an audit entry committing to the card as it now is, events included (art. 20.4)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from admission.errors import InvalidStateError, NotFoundError
from admission.identity import IdentityKey
from admission.records import CardRecord, CardStatus, RecordErrorCode
from db.audit_chain import card_content
from db.audit_rows import Content, Covered
from db.tx import Tx, insert_row, on, scalar, update_row, when

PRINTER_ACTOR = "card-printer"  # the actor of a print's entry (its event names no one)
CARD_COLUMNS = (
    "t.number, t.file_number, t.visit_id, t.card_type, t.price_cents, t.issued_at, "
    "t.valid_from, t.valid_until, t.status, t.exceptional, t.private_rooms, "
    "t.authorised_by, t.print_count, t.void_reason"
)
# The newest card valid on a day from the session's first to the visit's (art. 22: one
# person, one valid card): the identity's condition, then visit's date, session's date.
_OPEN_CARDS = (
    "SELECT {columns} FROM cards AS t JOIN visitors AS v "
    "ON v.file_number = t.file_number WHERE {match} AND t.status <> 'VOIDED' "
    "AND t.valid_from <= ? AND t.valid_until >= ? ORDER BY t.number DESC LIMIT 1"
)


def card_from_row(row: Any) -> CardRecord:
    (number, fn, visit_id, card_type, price, issued, v_from, v_until, status) = row[:9]
    exceptional, private, authorised, prints, void_reason = row[9:14]
    return CardRecord(
        number=int(number),
        file_number=int(fn),
        visit_id=0 if visit_id is None else int(visit_id),  # 0: retention erased the visit
        card_type=str(card_type),
        price_cents=int(price),
        issued_at=when(issued),
        valid_from=on(v_from),
        valid_until=on(v_until),
        status=CardStatus(str(status)),
        exceptional=bool(exceptional),
        private_rooms=bool(private),
        authorised_by=str(authorised),
        print_count=int(prints),
        void_reason=str(void_reason),
    )


def _audited(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    """The chain's content of each card: the row and its events, oldest first (one query
    per batch; sorted here, so the events are found by their card's index)."""
    sub, params = tx.listed([int(row[0]) for row in rows])
    found = tx.all(
        "SELECT card_number, event_id, at, kind, reason, actor FROM card_events "
        f"WHERE card_number IN ({sub})",
        params,
    )
    events: dict[int, list[tuple[int, tuple[datetime, str, str, str]]]] = {}
    for number, event_id, at, kind, reason, actor in found:
        event = (when(at), str(kind), str(reason), str(actor))
        events.setdefault(int(number), []).append((int(event_id), event))
    return [
        (f"card:{c.number}", card_content(c, [e for _, e in sorted(events.get(c.number, []))]))
        for c in map(card_from_row, rows)
    ]


COVERED = Covered("card", "cards", "number", CARD_COLUMNS, _audited)  # art. 20.4


def open_card_read(
    tx: Tx,
    identity: IdentityKey,
    on_day: date,
    since: date | None = None,
    columns: str = "t.number, t.card_type",
) -> tuple[str, list[Any]]:
    """This identity's newest card, not voided, valid on Madrid date ``on_day`` or on a
    day from ``since`` (the session's first day) to it (art. 22), as a read to run with
    others (Tx.fetch): its number and type, or ``columns`` (:data:`CARD_COLUMNS`)."""
    match, params = tx.identity_match("v.identity", identity)
    first = min(since or on_day, on_day)
    sql = _OPEN_CARDS.format(columns=columns, match=match)
    return sql, [*params, tx.day(on_day), tx.day(first)]


def open_card(
    tx: Tx, identity: IdentityKey, on_day: date, since: date | None = None
) -> CardRecord | None:
    row = tx.one(*open_card_read(tx, identity, on_day, since, CARD_COLUMNS))
    return None if row is None else card_from_row(row)


def card(tx: Tx, number: int) -> CardRecord | None:
    row = tx.one(f"SELECT {CARD_COLUMNS} FROM cards AS t WHERE t.number = ?", (number,))
    return None if row is None else card_from_row(row)


def card_events(tx: Tx, number: int) -> list[tuple[datetime, str, str, str]]:
    """(at, kind, reason, actor) of one card, oldest first."""
    rows = tx.all(
        "SELECT at, kind, reason, actor FROM card_events WHERE card_number = ? ORDER BY event_id",
        (number,),
    )
    return [(when(at), str(kind), str(reason), str(actor)) for at, kind, reason, actor in rows]


def last_card_number(tx: Tx) -> int:
    """The highest number ever issued (0 when none), even if retention erased it."""
    return int(scalar(tx, "SELECT next - 1 FROM counters WHERE name = 'card'"))


def issue(tx: Tx, file_number: int, visit_id: int, new: Any, issued: datetime) -> CardRecord:
    """Insert the card of a visit with the next correlative number, in the admission's
    own transaction (art. 22.1: a rollback gives the number back); the card as stored."""
    number = tx.next_number("card")
    values = {
        "number": number,
        "file_number": file_number,
        "visit_id": visit_id,
        "card_type": new.card_type,
        "price_cents": new.price_cents,
        "issued_at": tx.ts(issued),
        "valid_from": tx.day(new.valid_from),
        "valid_until": tx.day(new.valid_until),
        "status": "ISSUED",
        "exceptional": tx.flag(new.exceptional),
        "private_rooms": tx.flag(new.private_rooms),
        "authorised_by": new.authorised_by,
    }
    insert_row(tx, "cards", values)
    if new.exceptional:  # art. 23.5: under the director's named responsibility
        details = {"file": str(file_number), "card_type": new.card_type}
        tx.audit(new.authorised_by, "EXCEPTIONAL_CARD", f"card:{number}", issued, details)
    return card_from_row([*values.values(), 0, ""])  # print_count, void_reason: defaults


def mark_printed(tx: Tx, number: int, at: datetime) -> None:
    """A successful print: ISSUED/PRINTED -> PRINTED, print_count + 1."""
    _live_card(tx, number)
    tx.execute(
        "UPDATE cards SET status = 'PRINTED', print_count = print_count + 1 WHERE number = ?",
        (number,),
    )
    _record(tx, number, at, "PRINTED", "", "", PRINTER_ACTOR, "CARD_PRINTED")


def void_card(tx: Tx, number: int, reason: str, actor: str, at: datetime) -> None:
    _live_card(tx, number, reason)
    update_row(tx, "cards", {"status": "VOIDED", "void_reason": reason}, "number", number)
    _record(tx, number, at, "VOIDED", reason, actor, actor, "CARD_VOID")


def record_reprint(tx: Tx, number: int, reason: str, actor: str, at: datetime) -> None:
    """A reprint of the same number is requested (print_count grows on mark_printed)."""
    _live_card(tx, number, reason)
    _record(tx, number, at, "REPRINT", reason, actor, actor, "CARD_REPRINT")


def _live_card(tx: Tx, number: int, reason: str | None = None) -> None:
    """A voided or unknown card cannot change; a void or a reprint gives a reason."""
    if reason is not None and not reason.strip():
        raise InvalidStateError("a reason is required", code=RecordErrorCode.REASON_REQUIRED)
    row = tx.one("SELECT status FROM cards WHERE number = ?" + tx.lock_rows, (number,))
    if row is None:
        raise NotFoundError("no such card number")
    if CardStatus(str(row[0])) is CardStatus.VOIDED:
        raise InvalidStateError("the card is voided", code=RecordErrorCode.CARD_VOIDED)


def _record(
    tx: Tx, number: int, at: datetime, kind: str, reason: str, actor: str, by: str, action: str
) -> None:
    """The card's event (``kind``, ``reason``, ``actor``) and the entry ``by`` committing
    to the card as it now is."""
    tx.execute(
        "INSERT INTO card_events (card_number, at, kind, reason, actor) VALUES (?, ?, ?, ?, ?)",
        (number, tx.ts(at), kind, reason, actor),
    )
    tx.audit(by, action, f"card:{number}", at, None, [(f"card:{number}", False)])

"""The server's rows as records: the columns each read selects, and the opening of the
sealed values (db/pg/crypto.py) bound to their table, column and row (art. 20.4)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from admission.identity import IdentityKey
from admission.records import (
    CardRecord,
    CardStatus,
    Observation,
    RegistryCheck,
    Visitor,
    VisitRecord,
)
from admission.vouchers.model import Voucher, VoucherStatus
from db import codec
from db.pg.crypto import KeyRing

# first/last seen are derived, as in the SQLCipher store (migration 0011): the visits,
# else the open card, else the ban that keep a visitor without visits.
_SEEN = (
    "coalesce((SELECT {f}(s.at) FROM visits AS s WHERE s.file_number = v.file_number), "
    "(SELECT {f}(c.issued_at) FROM cards AS c WHERE c.file_number = v.file_number), "
    "(SELECT {f}(b.created_at) FROM bans AS b WHERE b.id_index = v.id_index), "
    "'1970-01-01T00:00:00Z'::timestamptz)"
)
VISITOR_BASE = "v.file_number, v.identity, v.surname, v.given_names, v.birth_date, v.nationality"
VISITOR_COLUMNS = VISITOR_BASE + ", " + _SEEN.format(f="min") + ", " + _SEEN.format(f="max")
VISIT_COLUMNS = (
    "v.visit_id, v.file_number, v.at, v.desk_id, v.operator, v.verdict, v.reasons, "
    "v.document_type, v.document_number, v.registry_status, v.registry_source, "
    "v.registry_version, v.registry_age_s, c.number, v.official_capacity"
)
CARD_COLUMNS = (
    "t.number, t.file_number, t.visit_id, t.card_type, t.price_cents, t.issued_at, "
    "t.valid_from, t.valid_until, t.status, t.exceptional, t.private_rooms, "
    "t.authorised_by, t.print_count, t.void_reason"
)
OBSERVATION_COLUMNS = "t.observation_id, t.file_number, t.at, t.author, t.text"
# the provisional vouchers (art. 23.4) and the RIAJ snapshots (art. 20.2) the chain covers
VOUCHER_COLUMNS = (
    "t.number, t.issued_at, t.desk_id, t.operator, t.holder_name, t.document_type, "
    "t.document_number, t.card_type, t.price_cents, t.status, t.card_number, t.closed_at, "
    "t.close_reason"
)
REGISTRY_COLUMNS = (
    "t.snapshot_id, t.version, t.scheme, t.salt, t.scope, t.as_of, t.imported_at, "
    "t.entry_count, t.content_sha256, t.signed, t.feed_as_of, t.feed_applied, t.feed_page, "
    "t.active"
)
# The newest card valid on a day from the session's first to the visit's (art. 22: one
# person, one valid card): parameters identity indexes, visit's date, session's date.
OPEN_CARDS = (
    "SELECT c.number, c.card_type FROM cards AS c JOIN visitors AS v "
    "ON v.file_number = c.file_number WHERE v.id_index = ANY(%s::bytea[]) "
    "AND c.status <> 'VOIDED' AND c.valid_from <= %s AND c.valid_until >= %s "
    "ORDER BY c.number DESC LIMIT 1"
)


def utc(at: datetime) -> datetime:
    return at.astimezone(UTC)


def opt_utc(at: datetime | None) -> datetime | None:
    return None if at is None else at.astimezone(UTC)


class Opener:
    """Opens the sealed values of rows read from the server with one key ring."""

    def __init__(self, ring: KeyRing) -> None:
        self.ring = ring

    def text(self, value: Any, table: str, column: str, row: int | str) -> str:
        return self.ring.open_text(bytes(value), table=table, column=column, row=row)

    def opt_text(self, value: Any, table: str, column: str, row: int | str) -> str | None:
        return None if value is None else self.text(value, table, column, row)

    def visitor_plain(self, row: Sequence[Any]) -> tuple[int, str, str, str, str | None, str]:
        """(file number, identity text, surname, given names, birth ISO date, nationality)."""
        fn = int(row[0])
        return (
            fn,
            self.text(row[1], "visitors", "identity", fn),
            self.text(row[2], "visitors", "surname", fn),
            self.text(row[3], "visitors", "given_names", fn),
            self.opt_text(row[4], "visitors", "birth_date", fn),
            self.text(row[5], "visitors", "nationality", fn),
        )

    def visitor(self, row: Sequence[Any]) -> Visitor:
        fn, identity, surname, given, birth, nationality = self.visitor_plain(row)
        return Visitor(
            fn,
            IdentityKey.parse(identity),
            surname,
            given,
            codec.parse_day(birth),
            nationality,
            utc(row[6]),
            utc(row[7]),
        )

    def visit(self, row: Sequence[Any]) -> VisitRecord:
        (vid, fn, at, desk, operator, verdict, reasons, doc_type, doc_number) = row[:9]
        r_status, r_source, r_version, r_age, card, capacity = row[9:15]
        visit_id = int(vid)
        return VisitRecord(
            visit_id,
            int(fn),
            utc(at),
            str(desk),
            str(operator),
            str(verdict),
            codec.parse_codes(str(reasons)),
            str(doc_type),
            self.text(doc_number, "visits", "document_number", visit_id),
            RegistryCheck(
                str(r_status), str(r_source), str(r_version), None if r_age is None else int(r_age)
            ),
            None if card is None else int(card),
            str(capacity),
        )

    def observation(self, row: Sequence[Any]) -> Observation:
        oid, fn, at, author, text = row
        observation_id = int(oid)
        return Observation(
            int(fn),
            utc(at),
            str(author),
            self.text(text, "observations", "text", observation_id),
            observation_id,
        )


def card_from_row(row: Sequence[Any]) -> CardRecord:
    (number, fn, visit_id, card_type, price, issued, v_from, v_until, status) = row[:9]
    exceptional, private, authorised, prints, void_reason = row[9:14]
    valid_from: date = v_from
    valid_until: date = v_until
    return CardRecord(
        number=int(number),
        file_number=int(fn),
        visit_id=0 if visit_id is None else int(visit_id),  # 0: retention erased the visit
        card_type=str(card_type),
        price_cents=int(price),
        issued_at=utc(issued),
        valid_from=valid_from,
        valid_until=valid_until,
        status=CardStatus(str(status)),
        exceptional=bool(exceptional),
        private_rooms=bool(private),
        authorised_by=str(authorised),
        print_count=int(prints),
        void_reason=str(void_reason),
    )


# -- desk accounts (db/pg/accounts.py writes them; the store's chain verifies them) ------

ACCOUNT_COLUMNS = "t.account_id, t.username, t.record"
ACCOUNT_TABLE, ACCOUNT_COLUMN = "accounts", "record"


def open_account_record(ring: KeyRing, username: str, sealed: Any) -> dict[str, Any]:
    """An account's sealed record, bound to its user name."""
    text = ring.open_text(bytes(sealed), table=ACCOUNT_TABLE, column=ACCOUNT_COLUMN, row=username)
    record: dict[str, Any] = json.loads(text)
    return record


def account_content(ring: KeyRing, row: Sequence[Any]) -> tuple[int, list[object]]:
    """(account_id, content) of a row read with :data:`ACCOUNT_COLUMNS`: the same list
    the SQLCipher chain commits to (db/accounts.py: every column, the hash included, the
    PIN's hash once one is set)."""
    account_id, username = int(row[0]), str(row[1])
    r = open_account_record(ring, username, row[2])
    return account_id, [
        username,
        str(r["display_name"]),
        str(r["roles"]),
        int(bool(r["active"])),
        str(r["password_hash"]),
        int(r["failed_attempts"]),
        r["locked_until"],
        str(r["created_at"]),
        *([] if r.get("pin_hash") is None else [str(r["pin_hash"])]),  # as db/accounts.py
    ]


# -- provisional vouchers (db/pg/voucher_book.py writes them; the chain verifies them) --

VOUCHER_TABLE = "vouchers"


def voucher_from_row(ring: KeyRing, row: Sequence[Any]) -> Voucher:
    (number, issued, desk, operator, holder, doc_type, doc_number) = row[:7]
    (card_type, price, status, card_number, closed, reason) = row[7:13]
    n = int(number)

    def opened(value: Any, column: str) -> str:
        return ring.open_text(bytes(value), table=VOUCHER_TABLE, column=column, row=n)

    return Voucher(
        number=n,
        issued_at=utc(issued),
        desk_id=str(desk),
        operator=str(operator),
        holder_name=opened(holder, "holder_name"),
        document_type=str(doc_type),
        document_number=opened(doc_number, "document_number"),
        card_type=str(card_type),
        price_cents=int(price),
        status=VoucherStatus(str(status)),
        card_number=None if card_number is None else int(card_number),
        closed_at=opt_utc(closed),
        close_reason="" if reason is None else opened(reason, "close_reason"),
    )

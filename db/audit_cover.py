"""The kinds of row the audit chain commits to (art. 20.4), each read once for both
dialects (db/audit_rows.py: :class:`Covered`): the visitor file (art. 20.3), its visits
and observations, cards (art. 22, db/cards.py), bans (art. 21, db/people.py), staff (art. 18), desk
accounts, provisional vouchers (art. 23.4) and the RIAJ snapshots the desk checked
against (art. 20.2).

A reader opens the sealed values with ``tx.open`` (identity on SQLCipher) and gives the
content db/audit_chain.py defines, so a row moved from a desk's file to the server keeps
its mac. On the server the blind index stored beside an identity or a document number is
checked against the opened value (``tx.check_index``: BLIND_INDEX_MISMATCH).

A snapshot is one row (``registry:<snapshot_id>``) whose content ends with the SHA-256 of
its identifier digests in ascending order: an identifier added to or removed from the
register outside an import or a feed page changes it (ROW_CHANGED). The digest is
recomputed only when an import or a feed page commits to the snapshot, and at
verification: an admission never reads the register whole.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from admission.records import Observation, RegistryCheck, VisitRecord
from admission.vouchers.model import Voucher, VoucherStatus
from db import cards, codec, people
from db.audit_chain import (
    KINDS,
    entries_digest,
    observation_content,
    registry_content,
    visit_content,
    visitor_content,
    voucher_content,
)
from db.audit_rows import Content, Covered
from db.tx import Tx, opt_when, when

__all__ = ["COVERED", "registry_digest"]

Rows = Sequence[tuple[Any, ...]]
_INDEX = ", t.id_index, t.key_version"  # the server's blind index beside an identity


def _opt(tx: Tx, value: Any, table: str, column: str, row: int | str) -> str | None:
    return None if value is None else tx.open(value, table, column, row)


def _visitors(tx: Tx, rows: Rows) -> list[Content]:
    found: list[Content] = []
    for fn, identity, surname, given, birth, nationality, *index in rows:
        n = int(fn)
        text = tx.open(identity, "visitors", "identity", n)
        tx.check_index(f"visitor:{n}", index, identity=text)
        content = visitor_content(
            text,
            tx.open(surname, "visitors", "surname", n),
            tx.open(given, "visitors", "given_names", n),
            _opt(tx, birth, "visitors", "birth_date", n),
            tx.open(nationality, "visitors", "nationality", n),
        )
        found.append((f"visitor:{n}", content))
    return found


def _visits(tx: Tx, rows: Rows) -> list[Content]:
    found: list[Content] = []
    for row in rows:
        (vid, fn, at, desk, operator, verdict, reasons, doc_type, number) = row[:9]
        r_status, r_source, r_version, r_age, capacity, *index = row[9:]
        visit_id = int(vid)
        opened = tx.open(number, "visits", "document_number", visit_id)
        if index and index[0] is not None:  # visits recorded before the server's 0060 have none
            tx.check_index(f"visit:{visit_id}", index, number=opened)
        visit = VisitRecord(
            visit_id,
            int(fn),
            when(at),
            str(desk),
            str(operator),
            str(verdict),
            codec.parse_codes(str(reasons)),
            str(doc_type),
            opened,
            RegistryCheck(
                str(r_status), str(r_source), str(r_version), None if r_age is None else int(r_age)
            ),
            None,  # the card links itself to the visit (card_content)
            str(capacity),
        )
        found.append((f"visit:{visit_id}", visit_content(visit)))
    return found


def _observations(tx: Tx, rows: Rows) -> list[Content]:
    found: list[Content] = []
    for oid, fn, at, author, text in rows:
        n = int(oid)
        note = Observation(int(fn), when(at), str(author), tx.open(text, "observations", "text", n))
        found.append((f"observation:{n}", observation_content(note)))
    return found


_ACCOUNT_COLUMNS = (
    "t.account_id, t.username, t.display_name, t.roles, t.active, t.password_hash, "
    "t.failed_attempts, t.locked_until, t.created_at"
)


def _accounts(tx: Tx, rows: Rows) -> list[Content]:
    """Every column, the password hash included (a hash put in by hand would open the
    account), and the PIN's hash once one is set: columns on SQLCipher (a file without
    migration 0041 has no PIN), one record sealed to its user name on the server."""
    if tx.dialect == "pg":
        found: list[Content] = []
        for account_id, username, sealed in rows:
            r = json.loads(tx.open(sealed, "accounts", "record", str(username)))
            pin = [] if r.get("pin_hash") is None else [str(r["pin_hash"])]
            content: list[object] = [
                str(username),
                str(r["display_name"]),
                str(r["roles"]),
                int(bool(r["active"])),
                str(r["password_hash"]),
                int(r["failed_attempts"]),
                r["locked_until"],
                str(r["created_at"]),
                *pin,
            ]
            found.append((f"account:{int(account_id)}", content))
        return found
    pins: dict[int, Any] = {}
    if rows and any(c[1] == "pin_hash" for c in tx.all("PRAGMA table_info(accounts)")):
        sub, params = tx.listed([int(row[0]) for row in rows])
        query = f"SELECT account_id, pin_hash FROM accounts WHERE account_id IN ({sub})"
        pins = {int(i): pin for i, pin in tx.all(query, params)}
    return [
        (
            f"account:{int(row[0])}",
            [*row[1:], *([] if pins.get(int(row[0])) is None else [str(pins[int(row[0])])])],
        )
        for row in rows
    ]


def _vouchers(tx: Tx, rows: Rows) -> list[Content]:
    found: list[Content] = []
    for row in rows:
        (number, issued, desk, operator, holder, doc_type, doc_number) = row[:7]
        (card_type, price, status, card_number, closed, reason) = row[7:13]
        n = int(number)
        voucher = Voucher(
            number=n,
            issued_at=when(issued),
            desk_id=str(desk),
            operator=str(operator),
            holder_name=tx.open(holder, "vouchers", "holder_name", n),
            document_type=str(doc_type),
            document_number=tx.open(doc_number, "vouchers", "document_number", n),
            card_type=str(card_type),
            price_cents=int(price),
            status=VoucherStatus(str(status)),
            card_number=None if card_number is None else int(card_number),
            closed_at=opt_when(closed),
            close_reason=_opt(tx, reason, "vouchers", "close_reason", n) or "",
        )
        found.append((f"voucher:{n}", voucher_content(voucher)))
    return found


def registry_digest(tx: Tx, snapshot_id: int) -> str:
    """The digest of one snapshot's identifiers, read in key order (no sort)."""
    sql = "SELECT digest FROM registry_entry WHERE snapshot_id = ? ORDER BY digest"
    return entries_digest(bytes(d) for rows in tx.batches(sql, (snapshot_id,)) for (d,) in rows)


def _registry(tx: Tx, rows: Rows) -> list[Content]:
    found: list[Content] = []
    for row in rows:
        snapshot_id = int(row[0])
        values = [
            codec.ts(v) if isinstance(v, datetime) else int(v) if isinstance(v, bool) else v
            for v in row[1:]
        ]
        content = registry_content(values, registry_digest(tx, snapshot_id))
        found.append((f"registry:{snapshot_id}", content))
    return found


_VISIT = (
    "t.visit_id, t.file_number, t.at, t.desk_id, t.operator, t.verdict, t.reasons, "
    "t.document_type, t.document_number, t.registry_status, t.registry_source, "
    "t.registry_version, t.registry_age_s, t.official_capacity"
)
_VISITOR = "t.file_number, t.identity, t.surname, t.given_names, t.birth_date, t.nationality"
_VOUCHER = (
    "t.number, t.issued_at, t.desk_id, t.operator, t.holder_name, t.document_type, "
    "t.document_number, t.card_type, t.price_cents, t.status, t.card_number, t.closed_at, "
    "t.close_reason"
)
_SNAPSHOT = (
    "t.snapshot_id, t.version, t.scheme, t.salt, t.scope, t.as_of, t.imported_at, "
    "t.entry_count, t.content_sha256, t.signed, t.feed_as_of, t.feed_applied, {page}t.active"
)

_KINDS = (
    Covered("visitor", "visitors", "file_number", _VISITOR, _visitors, _VISITOR + _INDEX),
    Covered(
        "visit", "visits", "visit_id", _VISIT, _visits, _VISIT + ", t.number_index, t.key_version"
    ),
    cards.COVERED,
    people.COVERED,
    people.STAFF_COVERED,
    Covered(
        "observation",
        "observations",
        "observation_id",
        "t.observation_id, t.file_number, t.at, t.author, t.text",
        _observations,
    ),
    Covered(  # a SQLCipher file older than migration 0040 has none
        "account",
        "accounts",
        "account_id",
        _ACCOUNT_COLUMNS,
        _accounts,
        "t.account_id, t.username, t.record",
        optional=True,
    ),
    Covered("voucher", "vouchers", "number", _VOUCHER, _vouchers, optional=True),
    Covered(  # the server keeps the feed's page too
        "registry",
        "registry_snapshot",
        "snapshot_id",
        _SNAPSHOT.format(page=""),
        _registry,
        _SNAPSHOT.format(page="t.feed_page, "),
        optional=True,
    ),
)
COVERED: dict[str, Covered] = {c.kind: c for c in _KINDS}  # in the order of KINDS
assert tuple(COVERED) == KINDS

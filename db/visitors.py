"""The visitor file (art. 20.3, R2): visitors, visits, observations, name search, and the
admission that also takes the card number (art. 22.1) after looking, in the same
transaction, for the visitor's other valid card (art. 22). Written once over both dialects
(db/tx.py); they differ in the name words searched (plain words by range on SQLite; the key
ring's blind-index tokens on the server, candidates checked once opened) and in the
admission id the server keeps with a visit (a desk that lost a commit's answer asks again)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from enum import unique
from typing import TYPE_CHECKING, Any, cast

from admission.codes import Code
from admission.entry_rules import check_entry, one_card
from admission.errors import InvalidStateError, NotFoundError
from admission.identity import IdentityKey
from admission.ports import DeskFacts, madrid_date
from admission.records import (
    AdmissionEntry,
    AuditHead,
    Observation,
    RecordedAdmission,
    RegistryCheck,
    Visitor,
    VisitRecord,
)
from db import audit_chain, cards, codec, names, people
from db.audit_rows import Content, Covered
from db.tx import Opens, Tx, insert_row, scalar, update_row, when

if TYPE_CHECKING:
    from db.pg.crypto import KeyRing

MAX_SEARCH_LIMIT = 500
RANGE_BOUND = 20_000  # words counted to pick the rarest query word (SQLite)
SCAN_BATCH = 500  # rows opened per batch when the server's candidates must be checked


@unique
class PgAdmissionCode(Code):
    """Why an admission id was refused (the desk's key to an admission whose commit
    outcome it did not learn, art. 22.1: a retry must never take a second number)."""

    ADMISSION_ID_REUSED = "PG_ADMISSION_ID_REUSED"  # the id names another person's or time's


# first/last seen are derived (migration 0011): the visits, else what keeps a visitor
# without visits (open card, ban: by identity on SQLite, by blind index on the server)
_SEEN = (
    "coalesce((SELECT {f}(s.at) FROM visits AS s WHERE s.file_number = v.file_number), "
    "(SELECT {f}(c.issued_at) FROM cards AS c WHERE c.file_number = v.file_number), "
    "(SELECT {f}(b.created_at) FROM bans AS b WHERE b.{key} = v.{key}), {epoch})"
)
VISITOR_BASE = "v.file_number, v.identity, v.surname, v.given_names, v.birth_date, v.nationality"
_DIALECTS = {
    "sqlite": {"key": "identity", "epoch": "'1970-01-01T00:00:00.000000Z'"},
    "pg": {"key": "id_index", "epoch": "'1970-01-01T00:00:00Z'::timestamptz"},
}
VISITOR_COLUMNS = {
    dialect: ", ".join([VISITOR_BASE, _SEEN.format(f="min", **d), _SEEN.format(f="max", **d)])
    for dialect, d in _DIALECTS.items()
}
VISIT_COLUMNS = (
    "v.visit_id, v.file_number, v.at, v.desk_id, v.operator, v.verdict, v.reasons, "
    "v.document_type, v.document_number, v.registry_status, v.registry_source, "
    "v.registry_version, v.registry_age_s, c.number, v.official_capacity"
)
OBSERVATION_COLUMNS = "t.observation_id, t.file_number, t.at, t.author, t.text"
_VISITS = (
    f"SELECT {VISIT_COLUMNS} FROM visits AS v LEFT JOIN cards AS c "
    "ON c.visit_id = v.visit_id WHERE v.file_number = ? ORDER BY v.at, v.visit_id"
)
_OBSERVATIONS = (
    f"SELECT {OBSERVATION_COLUMNS} FROM observations AS t "
    "WHERE t.file_number = ? ORDER BY t.at, t.observation_id"
)


def visitor_plain(opened: Opens, row: Sequence[Any]) -> tuple[int, str, str, str, str | None, str]:
    """(file number, identity text, surname, given names, birth ISO date, nationality) of
    a row read with :data:`VISITOR_BASE` (``opened``: :meth:`Tx.open`)."""
    fn, birth = int(row[0]), row[4]
    return (
        fn,
        opened(row[1], "visitors", "identity", fn),
        opened(row[2], "visitors", "surname", fn),
        opened(row[3], "visitors", "given_names", fn),
        None if birth is None else opened(birth, "visitors", "birth_date", fn),
        opened(row[5], "visitors", "nationality", fn),
    )


def visitor_from_row(opened: Opens, row: Sequence[Any]) -> Visitor:
    """A visitor read with :data:`VISITOR_COLUMNS`."""
    fn, identity, surname, given, birth, nation = visitor_plain(opened, row)
    first, last, key = when(row[6]), when(row[7]), IdentityKey.parse(identity)
    return Visitor(fn, key, surname, given, codec.parse_day(birth), nation, first, last)


def visit_from_row(opened: Opens, row: Sequence[Any]) -> VisitRecord:
    """A visit read with :data:`VISIT_COLUMNS`."""
    (vid, fn, at, desk, operator, verdict, reasons, doc_type, doc_number) = row[:9]
    r_status, r_source, r_version, r_age, card, capacity = row[9:15]
    visit_id = int(vid)
    age = None if r_age is None else int(r_age)
    return VisitRecord(
        visit_id,
        int(fn),
        when(at),
        str(desk),
        str(operator),
        str(verdict),
        codec.parse_codes(str(reasons)),
        str(doc_type),
        opened(doc_number, "visits", "document_number", visit_id),
        RegistryCheck(str(r_status), str(r_source), str(r_version), age),
        None if card is None else int(card),
        str(capacity),
    )


def observation_from_row(opened: Opens, row: Sequence[Any]) -> Observation:
    """An observation read with :data:`OBSERVATION_COLUMNS`."""
    oid, fn, at, author, text = row
    note = int(oid)
    text = opened(text, "observations", "text", note)
    return Observation(int(fn), when(at), str(author), text, note)


# the rows the audit chain covers (art. 20.4, db/audit_rows.py)
def _audited_visitors(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    found: list[Content] = []
    for row in rows:
        fn, identity, surname, given, birth, nationality = visitor_plain(tx.open, row)
        tx.check_index(f"visitor:{fn}", row[6:], identity=identity)  # the server's index
        content = audit_chain.visitor_content(identity, surname, given, birth, nationality)
        found.append((f"visitor:{fn}", content))
    return found


def _audited_visits(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    found: list[Content] = []
    for row in rows:
        visit = visit_from_row(tx.open, row[:15])
        if row[15:] and row[15] is not None:  # the server's visits before its 0060 have none
            tx.check_index(f"visit:{visit.visit_id}", row[15:], number=visit.document_number)
        found.append((f"visit:{visit.visit_id}", audit_chain.visit_content(visit)))
    return found


def _audited_observations(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    notes = [observation_from_row(tx.open, row) for row in rows]
    return [(f"observation:{n.observation_id}", audit_chain.observation_content(n)) for n in notes]


_VISITOR_ROW = VISITOR_BASE.replace("v.", "t.")
_VISIT_ROW = VISIT_COLUMNS.replace("v.", "t.").replace("c.number", "NULL")  # the card links itself
# on the server, the blind index beside a sealed value
_VISITOR_SERVER = _VISITOR_ROW + ", t.id_index, t.key_version"
_VISIT_SERVER = _VISIT_ROW + ", t.number_index, t.key_version"
VISITOR_COVERED = Covered(
    "visitor", "visitors", "file_number", _VISITOR_ROW, _audited_visitors, _VISITOR_SERVER
)
VISIT_COVERED = Covered("visit", "visits", "visit_id", _VISIT_ROW, _audited_visits, _VISIT_SERVER)
OBSERVATION_COVERED = Covered(
    "observation", "observations", "observation_id", OBSERVATION_COLUMNS, _audited_observations
)


def _visitors(tx: Tx, where: str, params: Sequence[Any]) -> list[Visitor]:
    rows = tx.all(f"SELECT {VISITOR_COLUMNS[tx.dialect]} FROM visitors AS v WHERE {where}", params)
    return [visitor_from_row(tx.open, row) for row in rows]


def find_read(tx: Tx, identity: IdentityKey) -> tuple[str, list[Any]]:
    """The read of :func:`find` (with others: Tx.fetch)."""
    match, params = tx.identity_match("v.identity", identity)
    return f"SELECT {VISITOR_COLUMNS[tx.dialect]} FROM visitors AS v WHERE {match} LIMIT 1", params


def find(tx: Tx, identity: IdentityKey) -> Visitor | None:
    return found_visitor(tx, identity, tx.all(*find_read(tx, identity)))


def found_visitor(tx: Tx, identity: IdentityKey, rows: Sequence[tuple[Any, ...]]) -> Visitor | None:
    """The visitor :func:`find_read` read, refused if it is another's row."""
    found = visitor_from_row(tx.open, rows[0]) if rows else None
    if found is not None and found.identity.text != identity.text:  # another's row
        raise audit_chain.IndexMismatch(f"visitor:{found.file_number}")
    return found


def desk_facts(
    tx: Tx, identity: IdentityKey, at: datetime, on: date, since: date | None = None
) -> DeskFacts:
    """The desk's reads of one presentation (admission.ports.FactsReader), together."""
    bans, staff, card, visitor = tx.fetch(
        [
            people.bans_read(tx, identity),
            people.staff_read(tx, identity),
            cards.open_card_read(tx, identity, on, since, cards.CARD_COLUMNS),
            find_read(tx, identity),
        ]
    )
    found = (people.ban_from_row(tx.open, row) for row in bans)
    return DeskFacts(
        tuple(ban for ban in found if ban.active_at(at)),
        people.staff_from_row(tx.open, staff[0]) if staff else None,
        cards.card_from_row(card[0]) if card else None,
        found_visitor(tx, identity, visitor),
    )


def by_number(tx: Tx, file_number: int) -> Visitor | None:
    return next(iter(_visitors(tx, "v.file_number = ?", (file_number,))), None)


def listed(tx: Tx, numbers: Sequence[int]) -> list[Visitor]:
    """The visitors of these file numbers, by folded name then file number."""
    if not numbers:
        return []
    subquery, params = tx.listed(numbers)
    return _by_name(_visitors(tx, f"v.file_number IN ({subquery})", params))


def search(tx: Tx, text: str, limit: int = 50) -> list[Visitor]:
    """Visitors whose name has a word starting with each query word (accents and case
    ignored), at most ``limit``, by folded name then file number. SQLite scans the rarest
    word's range of the name words first; the server narrows by blind-index tokens and
    checks the opened candidates unless the tokens decide alone."""
    words = names.words(text)
    limit = max(0, min(limit, MAX_SEARCH_LIMIT))
    if not words or limit == 0:
        return []
    if tx.dialect == "pg":
        return _by_name(_sealed_search(tx, text, limit))
    return listed(tx, _word_matches(tx, words, limit))


def visits(tx: Tx, file_number: int) -> list[VisitRecord]:
    return [visit_from_row(tx.open, row) for row in tx.all(_VISITS, (file_number,))]


def observations(tx: Tx, file_number: int) -> list[Observation]:
    return [observation_from_row(tx.open, row) for row in tx.all(_OBSERVATIONS, (file_number,))]


def recorded_admission(tx: Tx, admission_id: str) -> RecordedAdmission | None:
    """The admission the server recorded under ``admission_id``, or None. It first waits
    for the chain's head (``FOR SHARE``), so a write still running on the server - the
    lost call's own - finishes before the answer is read. Writes nothing."""
    key = _admission_uuid(admission_id)
    tx.one("SELECT next FROM counters WHERE name = 'audit' FOR SHARE")
    done = _recorded(tx, key)
    return None if done is None else done[0]


def add_observation(tx: Tx, file_number: int, text: str, author: str, at: datetime) -> Observation:
    if tx.one("SELECT 1 FROM visitors WHERE file_number = ?", (file_number,)) is None:
        raise NotFoundError("no such file number")
    oid = tx.new_id("observations", "observation_id")
    values = {
        "observation_id": oid,
        "file_number": file_number,
        "at": tx.ts(at),
        "author": author,
        "text": tx.seal(text, "observations", "text", oid),
        **tx.index_columns(),
    }
    insert_row(tx, "observations", values)
    tx.audit(author, "OBSERVATION", f"file:{file_number}", at, rows=[(f"observation:{oid}", True)])
    return Observation(file_number, when(tx.ts(at)), author, text, oid)


def record_admission(tx: Tx, entry: AdmissionEntry, admission_id: str = "") -> RecordedAdmission:
    """Upsert the visitor, insert the visit and, when given, the card with the next
    gapless number, in ONE transaction (art. 22.1) holding the file or the chain's head,
    where the visitor's other valid card is looked for first: two desks admitting one
    person at once issue one card (art. 22). On the server ``admission_id`` (else the
    entry's) makes it idempotent: one already recorded is returned as it was; one used for
    another identity or instant is refused (``PG_ADMISSION_ID_REUSED``).

    Two round trips on the server (an annex room's desk over a WAN, arts. 154-155): every
    read first, together, under the head's lock; then every write with the COMMIT."""
    check_entry(entry)
    key = None
    if tx.dialect == "pg" and (admission_id or entry.admission_id):
        key = _admission_uuid(admission_id or entry.admission_id)
    indexes = tx.index_columns(identity=entry.identity)
    version = ", v.key_version" if "key_version" in indexes else ""  # the server's
    match, params = tx.identity_match("v.identity", entry.identity)
    reads: list[tuple[str, Sequence[Any]]] = [
        (_HEAD_AND_CARD, ()),
        (f"SELECT {VISITOR_BASE}{version} FROM visitors AS v WHERE {match}", params),
        # a new visitor's file number, drawn only when there is none
        (
            f"SELECT {tx.id_sql('visitors', 'file_number')} "
            f"WHERE NOT EXISTS (SELECT 1 FROM visitors AS v WHERE {match})",
            params,
        ),
        (f"SELECT {tx.id_sql('visits', 'visit_id')}", ()),
    ]
    if entry.card is not None:
        reads.append(
            cards.open_card_read(tx, entry.identity, madrid_date(entry.at), entry.session_day)
        )
    if key is not None:
        reads.append((_RECORDED, (key,)))
    found = tx.fetch(reads)
    if key is not None:
        done = _recorded_from(tx, found[-1])
        if done is not None:
            recorded, identity, at = done
            if identity != entry.identity.text or at != entry.at:
                raise InvalidStateError(
                    "the admission id was used for another admission",
                    code=PgAdmissionCode.ADMISSION_ID_REUSED,
                )
            return recorded
    audit_next, prev, card_next = found[0][0]
    tx.prime(
        {"audit": int(audit_next), "card": int(card_next)},
        AuditHead(int(audit_next) - 1, audit_chain.GENESIS if prev is None else str(prev), None),
    )
    held = None
    if entry.card is not None and found[4]:
        held = (int(found[4][0][0]), str(found[4][0][1]))
    entry, existing = one_card(entry, held)
    row = found[1][0] if found[1] else None
    new_number = int(found[2][0][0]) if found[2] else None
    file_number, new, visitor = _upsert_visitor(tx, entry, row, new_number, indexes)
    visit_id, visit = _insert_visit(tx, file_number, entry, int(found[3][0][0]))
    card = None
    if entry.card is not None:
        card = cards.issue(tx, file_number, visit_id, entry.card, entry.at)
    number = None if card is None else card.number
    details, rows = audit_chain.visit_entry(
        file_number, visit_id, entry.verdict, number, existing, new
    )
    contents: dict[str, Sequence[object]] = {
        f"visitor:{file_number}": visitor,
        f"visit:{visit_id}": audit_chain.visit_content(visit),
    }
    if card is not None and not card.exceptional:  # an exceptional card has its entry
        contents[f"card:{card.number}"] = audit_chain.card_content(card, [])
    if key is not None:
        tx.send(
            "INSERT INTO admissions (admission_id, visit_id, new_visitor, existing_card) "
            "VALUES (?, ?, ?, ?)",
            (key, visit_id, new, existing),
        )
        details["admission"] = str(key)
    tx.audit_written(
        entry.operator, "VISIT", f"file:{file_number}", entry.at, details, rows, contents
    )
    return RecordedAdmission(file_number, visit_id, number, new, existing, card)


# The chain's next entry and the one before it, and the card counter: read under the
# head's lock (the server's LOCK_HEAD; the file's writer), so no other desk moves them
_HEAD_AND_CARD = (
    "SELECT c.next, a.digest, (SELECT next FROM counters WHERE name = 'card') "
    "FROM counters AS c LEFT JOIN audit AS a ON a.seq = c.next - 1 WHERE c.name = 'audit'"
)


def _upsert_visitor(
    tx: Tx,
    entry: AdmissionEntry,
    row: Sequence[Any] | None,
    new_number: int | None,
    indexes: Mapping[str, Any],
) -> tuple[int, bool, list[object]]:
    """The visitor's file number, whether it is new, and its row's content for the chain
    (``row``: as read with :data:`VISITOR_BASE`; ``new_number``: drawn when none was)."""
    birth = None if entry.birth_date is None else codec.day(entry.birth_date)
    renamed = resealed = True
    if row is None:
        assert new_number is not None
        file_number = new_number
    else:
        file_number, identity, surname, given, old_birth, nationality = visitor_plain(tx.open, row)
        if identity != entry.identity.text:  # never rewrite another person's file
            raise audit_chain.IndexMismatch(f"visitor:{file_number}")
        birth = birth or old_birth
        resealed = len(row) > 6 and int(row[6]) != indexes["key_version"]
        renamed = (surname, given) != (entry.surname, entry.given_names)
        if not (resealed or renamed) and (old_birth, nationality) == (birth, entry.nationality):
            content = audit_chain.visitor_content(identity, surname, given, birth, nationality)
            return file_number, False, content
    # the name as on the latest document presented (R2: full name)
    plain = {
        "identity": entry.identity.text,
        "surname": entry.surname,
        "given_names": entry.given_names,
        "birth_date": birth,
        "nationality": entry.nationality,
    }
    values = {
        c: None if v is None else tx.seal(v, "visitors", c, file_number) for c, v in plain.items()
    }
    values.update(indexes)
    if row is None:
        if tx.dialect == "sqlite":  # the sort form in clear: the file is encrypted whole
            values["search_name"] = names.search_name(entry.surname, entry.given_names)
        insert_row(tx, "visitors", {"file_number": file_number, **values})
    else:
        update_row(tx, "visitors", values, "file_number", file_number)
    if resealed or renamed:
        tx.index_name(file_number, entry.surname, entry.given_names, new=row is None)
    content = audit_chain.visitor_content(
        entry.identity.text, entry.surname, entry.given_names, birth, entry.nationality
    )
    return file_number, row is None, content


def _insert_visit(
    tx: Tx, file_number: int, entry: AdmissionEntry, visit_id: int
) -> tuple[int, VisitRecord]:
    """Insert the visit; its id and the visit as the chain reads it (no card: it links
    itself)."""
    r = entry.registry
    values = {
        "visit_id": visit_id,
        "file_number": file_number,
        "at": tx.ts(entry.at),
        "desk_id": entry.desk_id,
        "operator": entry.operator,
        "verdict": entry.verdict,
        "reasons": codec.codes(entry.reasons),
        "document_type": entry.document_type,
        "document_number": tx.seal(entry.document_number, "visits", "document_number", visit_id),
        "registry_status": r.status,
        "registry_source": r.source,
        "registry_version": r.version,
        "registry_age_s": r.age_seconds,
        "official_capacity": entry.official_capacity,
        **tx.index_columns(number=entry.document_number),
    }
    insert_row(tx, "visits", values)
    row = [values[c.removeprefix("v.")] if c != "c.number" else None for c in _VISIT_FIELDS]
    return visit_id, visit_from_row(tx.open, row)


_VISIT_FIELDS = [c.strip() for c in VISIT_COLUMNS.split(",")]


def _word_matches(tx: Tx, words: list[str], limit: int) -> list[int]:
    """SQLite: file numbers whose name words start with every query word."""
    if len(words) > 1:
        words = sorted(words, key=lambda word: _range_size(tx, word))
    sql = [
        "SELECT DISTINCT t0.file_number FROM visitor_tokens AS t0 "
        "WHERE t0.token >= ? AND t0.token < ?"
    ]
    params: list[object] = list(names.prefix_range(words[0]))
    for i, word in enumerate(words[1:], start=1):
        sql.append(
            f" AND EXISTS (SELECT 1 FROM visitor_tokens AS t{i} "
            f"WHERE t{i}.file_number = t0.file_number "
            f"AND t{i}.token >= ? AND t{i}.token < ?)"
        )
        params.extend(names.prefix_range(word))
    sql.append(" LIMIT ?")
    params.append(limit)
    return [int(row[0]) for row in tx.all("".join(sql), params)]


def _range_size(tx: Tx, word: str) -> int:
    """How many name words start with ``word``, counted up to a bound (cheap)."""
    inner = "SELECT 1 FROM visitor_tokens WHERE token >= ? AND token < ? LIMIT ?"
    args = [*names.prefix_range(word), RANGE_BOUND]
    return int(scalar(tx, f"SELECT count(*) FROM ({inner}) AS w", args))


def _sealed_search(tx: Tx, text: str, limit: int) -> list[Visitor]:
    """The server: candidates by blind-index tokens, in file order, checked once opened."""
    ring: KeyRing = cast(Any, tx).ring  # the server transaction's key ring
    query = ring.name_query(text)
    found: list[Visitor] = []
    after = 0
    while len(found) < limit:
        numbers = _candidates(tx, query.tokens, after, SCAN_BATCH)
        if not numbers:
            break
        after = numbers[-1]
        where = "v.file_number = ANY(?::bigint[]) ORDER BY v.file_number"
        for visitor in _visitors(tx, where, (numbers,)):
            if query.exact or query.matches(visitor.surname, visitor.given_names):
                found.append(visitor)
    return found[:limit]


def _candidates(
    tx: Tx, tokens: Mapping[int, tuple[bytes, ...]], after: int, limit: int
) -> list[int]:
    """File numbers above ``after`` holding every token of some key version (every file
    when no token narrows), ascending, at most ``limit``."""
    groups = [list(t) for t in tokens.values() if t]
    part = (
        "SELECT file_number FROM name_tokens WHERE token = ANY(?::bytea[]) "
        "AND file_number > ? GROUP BY file_number HAVING count(DISTINCT token) = ?"
    )
    params: list[Any] = [p for group in groups for p in (group, after, len(group))]
    if groups:
        sql = "SELECT DISTINCT file_number FROM (" + " UNION ".join([part] * len(groups)) + ") AS m"
    else:
        sql, params = "SELECT file_number FROM visitors WHERE file_number > ?", [after]
    rows = tx.all(sql + " ORDER BY file_number LIMIT ?", [*params, limit])
    return [int(r[0]) for r in rows]


def _by_name(found: list[Visitor]) -> list[Visitor]:
    return sorted(found, key=lambda v: (names.search_name(v.surname, v.given_names), v.file_number))


def _admission_uuid(admission_id: str) -> uuid.UUID:
    try:
        return uuid.UUID(admission_id)
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError("an admission id is a UUID") from exc


_RECORDED = (
    "SELECT v.file_number, a.visit_id, c.number, a.new_visitor, a.existing_card, "
    "w.identity, v.at FROM admissions AS a JOIN visits AS v ON v.visit_id = a.visit_id "
    "JOIN visitors AS w ON w.file_number = v.file_number "
    "LEFT JOIN cards AS c ON c.visit_id = a.visit_id WHERE a.admission_id = ?"
)


def _recorded(tx: Tx, key: uuid.UUID) -> tuple[RecordedAdmission, str, datetime] | None:
    """The admission recorded under ``key``, its visitor's identity and its time."""
    return _recorded_from(tx, tx.all(_RECORDED, (key,)))


def _recorded_from(
    tx: Tx, rows: Sequence[tuple[Any, ...]]
) -> tuple[RecordedAdmission, str, datetime] | None:
    if not rows:
        return None
    fn, visit_id, number, new, existing, identity, at = rows[0]
    card = None if number is None else int(number)
    held = None if existing is None else int(existing)
    recorded = RecordedAdmission(int(fn), int(visit_id), card, bool(new), held)
    return recorded, tx.open(identity, "visitors", "identity", int(fn)), when(at)

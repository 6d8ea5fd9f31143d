"""The visitor file (art. 20.3, R2): visitors, visits, observations, name search, and
the admission transaction that also takes the card number (art. 22.1) — after checking,
in the same transaction, that the visitor holds no other valid card (art. 22)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from admission.errors import InvalidStateError, NotFoundError
from admission.identity import IdentityKey
from admission.ports import madrid_date
from admission.records import (
    AdmissionEntry,
    Observation,
    RecordedAdmission,
    RecordErrorCode,
    RegistryCheck,
    Visitor,
    VisitRecord,
)
from admission.verdict import Outcome, Reason
from db import cards, codec, names
from db.audit import AuditMixin
from db.audit_chain import observation_content, visit_content, visit_entry, visitor_content
from db.audit_rows import CoveredTable
from db.connection import SqliteTx
from db.inspection import find_visitors

if TYPE_CHECKING:
    from admission.inspection import SearchCriteria

# first/last seen are derived (migration 0011): the visits, else what keeps a visitor
# without visits (open card, ban). COALESCE stops at the first non-NULL argument.
_SEEN = (
    "coalesce((SELECT {f}(s.at) FROM visits AS s WHERE s.file_number = v.file_number), "
    "(SELECT {f}(c.issued_at) FROM cards AS c WHERE c.file_number = v.file_number), "
    "(SELECT {f}(b.created_at) FROM bans AS b WHERE b.identity = v.identity), "
    "'1970-01-01T00:00:00.000000Z')"
)
VISITOR_COLUMNS = (
    "v.file_number, v.identity, v.surname, v.given_names, v.birth_date, "
    "v.nationality, " + _SEEN.format(f="min") + ", " + _SEEN.format(f="max")
)
VISIT_COLUMNS = (
    "v.visit_id, v.file_number, v.at, v.desk_id, v.operator, v.verdict, v.reasons, "
    "v.document_type, v.document_number, v.registry_status, v.registry_source, "
    "v.registry_version, v.registry_age_s, c.number, v.official_capacity"
)
MAX_SEARCH_LIMIT = 500
RANGE_BOUND = 20_000  # words counted to pick the rarest query word
# The newest card valid on a day from the session's first to the visit's (art. 22: one
# person, one valid card): parameters identity, visit's date, session's first date.
OPEN_CARDS = (
    "SELECT c.number, c.card_type FROM cards AS c JOIN visitors AS v "
    "ON v.file_number = c.file_number WHERE v.identity = ? AND c.status <> 'VOIDED' "
    "AND c.valid_from <= ? AND c.valid_until >= ? ORDER BY c.number DESC LIMIT 1"
)
_AUDITED_VISIT = (
    "t.visit_id, t.file_number, t.at, t.desk_id, t.operator, t.verdict, t.reasons, "
    "t.document_type, t.document_number, t.registry_status, t.registry_source, "
    "t.registry_version, t.registry_age_s, NULL, t.official_capacity"
)


def visitor_from_row(row: Any) -> Visitor:
    fn, identity, surname, given, birth, nationality, first, last = row
    return Visitor(
        int(fn),
        IdentityKey.parse(str(identity)),
        str(surname),
        str(given),
        codec.parse_day(birth if birth is None else str(birth)),
        str(nationality),
        codec.parse_ts(str(first)),
        codec.parse_ts(str(last)),
    )


def visit_from_row(row: Any) -> VisitRecord:
    (
        vid,
        fn,
        at,
        desk,
        operator,
        verdict,
        reasons,
        doc_type,
        doc_number,
        r_status,
        r_source,
        r_version,
        r_age,
        card,
        capacity,
    ) = row
    return VisitRecord(
        int(vid),
        int(fn),
        codec.parse_ts(str(at)),
        str(desk),
        str(operator),
        str(verdict),
        codec.parse_codes(str(reasons)),
        str(doc_type),
        str(doc_number),
        RegistryCheck(
            str(r_status), str(r_source), str(r_version), None if r_age is None else int(str(r_age))
        ),
        None if card is None else int(str(card)),
        str(capacity),
    )


def with_reason(reasons: Sequence[str], reason: Reason) -> tuple[str, ...]:
    """``reasons`` plus ``reason``, in the order the desk shows them (:class:`Reason`)."""
    if reason.value in reasons:
        return tuple(reasons)
    order = [r.value for r in Reason]
    merged = [*reasons, reason.value]
    return tuple(sorted(merged, key=lambda r: order.index(r) if r in order else len(order)))


def second_card(entry: AdmissionEntry, card_type: str) -> AdmissionEntry:
    """The entry of a visitor who already holds a valid card of ``card_type`` (art. 22):
    no second card; admitted on that card when its type admits its holder again, a
    re-entry on it (ALREADY_ADMITTED: neither a refusal nor a visit) otherwise."""
    if card_type in entry.reentry_types:
        return replace(entry, card=None)
    reasons = with_reason(entry.reasons, Reason.ALREADY_ADMITTED)
    return replace(entry, card=None, verdict=Outcome.ALREADY_ADMITTED.value, reasons=reasons)


def check_entry(entry: AdmissionEntry) -> None:
    """Refuse entries the domain should never produce (defence in depth)."""
    card = entry.card
    if card is None:
        return
    if entry.official_capacity:
        raise InvalidStateError(
            "officials on duty get no card (art. 24)", code=RecordErrorCode.OFFICIAL_NO_CARD
        )
    if entry.verdict in (Outcome.DENY, Outcome.ALREADY_ADMITTED, Outcome.NOT_ADMITTED):
        raise InvalidStateError("a refused visitor gets no card", code=RecordErrorCode.CARD_ON_DENY)
    if card.exceptional and not card.authorised_by:
        raise InvalidStateError(
            "an exceptional card needs the director's name (art. 23.5)",
            code=RecordErrorCode.AUTHORISATION_REQUIRED,
        )
    if card.valid_until < card.valid_from:
        raise InvalidStateError(
            "card validity ends before it starts", code=RecordErrorCode.BAD_VALIDITY
        )


def _visit_content(conn: sqlite3.Connection, row: tuple[object, ...]) -> list[object]:
    return visit_content(visit_from_row(row))


def _visitor_content(conn: sqlite3.Connection, row: tuple[object, ...]) -> list[object]:
    identity, surname, given, birth, nationality = row
    return visitor_content(
        str(identity),
        str(surname),
        str(given),
        None if birth is None else str(birth),
        str(nationality),
    )


def _observation_content(conn: sqlite3.Connection, row: tuple[object, ...]) -> list[object]:
    fn, at, author, text = row
    return observation_content(
        Observation(int(str(fn)), codec.parse_ts(str(at)), str(author), str(text))
    )


class VisitorsMixin(AuditMixin):
    def _covered(self) -> dict[str, CoveredTable]:
        return {
            **super()._covered(),
            "visitor": CoveredTable(
                "visitor",
                "visitors",
                "file_number",
                "t.identity, t.surname, t.given_names, t.birth_date, t.nationality",
                _visitor_content,
            ),
            "visit": CoveredTable("visit", "visits", "visit_id", _AUDITED_VISIT, _visit_content),
            "card": cards.COVERED,
            "observation": CoveredTable(
                "observation",
                "observations",
                "observation_id",
                "t.file_number, t.at, t.author, t.text",
                _observation_content,
            ),
        }

    def find_visitor(self, identity: IdentityKey) -> Visitor | None:
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {VISITOR_COLUMNS} FROM visitors AS v WHERE identity = ?", (identity.text,)
            ).fetchone()
        return None if row is None else visitor_from_row(row)

    def visitor(self, file_number: int) -> Visitor | None:
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {VISITOR_COLUMNS} FROM visitors AS v WHERE file_number = ?", (file_number,)
            ).fetchone()
        return None if row is None else visitor_from_row(row)

    def search_visitors(self, text: str, limit: int = 50) -> Sequence[Visitor]:
        """Every query word must be a prefix of a word of the name, accents and case
        ignored. The rarest word drives an index range scan; the others are checked per
        candidate through the (file_number, token) index, rarest first."""
        query = names.words(text)
        limit = max(0, min(limit, MAX_SEARCH_LIMIT))
        if not query or limit == 0:
            return []
        with self._read() as conn:
            if len(query) > 1:
                query.sort(key=lambda word: self._range_size(conn, word))
            sql = [
                "SELECT DISTINCT t0.file_number FROM visitor_tokens AS t0 "
                "WHERE t0.token >= ? AND t0.token < ?"
            ]
            params: list[object] = list(names.prefix_range(query[0]))
            for i, word in enumerate(query[1:], start=1):
                sql.append(
                    f" AND EXISTS (SELECT 1 FROM visitor_tokens AS t{i} "
                    f"WHERE t{i}.file_number = t0.file_number "
                    f"AND t{i}.token >= ? AND t{i}.token < ?)"
                )
                params.extend(names.prefix_range(word))
            sql.append(" LIMIT ?")
            params.append(limit)
            numbers = [row[0] for row in conn.execute("".join(sql), params)]
            if not numbers:
                return []
            marks = ",".join("?" * len(numbers))
            rows = conn.execute(
                f"SELECT {VISITOR_COLUMNS} FROM visitors AS v WHERE file_number IN ({marks}) "
                "ORDER BY search_name, file_number",
                numbers,
            ).fetchall()
        return [visitor_from_row(row) for row in rows]

    def inspect_visitors(self, criteria: SearchCriteria, limit: int) -> Sequence[Visitor]:
        """The gaming inspectors' search (art. 20.4), read only: see db/inspection.py."""
        with self._read() as conn:
            numbers = find_visitors(conn, criteria, limit)
            if not numbers:
                return []
            marks = ",".join("?" * len(numbers))
            rows = conn.execute(
                f"SELECT {VISITOR_COLUMNS} FROM visitors AS v WHERE file_number IN ({marks}) "
                "ORDER BY search_name, file_number",
                list(numbers),
            ).fetchall()
        return [visitor_from_row(row) for row in rows]

    @staticmethod
    def _range_size(conn: sqlite3.Connection, word: str) -> int:
        """How many name words start with ``word``, counted up to a bound (cheap)."""
        return int(
            conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM visitor_tokens WHERE token >= ? AND token < ? "
                f"LIMIT {RANGE_BOUND})",
                names.prefix_range(word),
            ).fetchone()[0]
        )

    def visits(self, file_number: int) -> Sequence[VisitRecord]:
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {VISIT_COLUMNS} FROM visits AS v LEFT JOIN cards AS c "
                "ON c.visit_id = v.visit_id WHERE v.file_number = ? ORDER BY v.at, v.visit_id",
                (file_number,),
            ).fetchall()
        return [visit_from_row(row) for row in rows]

    def observations(self, file_number: int) -> Sequence[Observation]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT file_number, at, author, text, observation_id FROM observations "
                "WHERE file_number = ? ORDER BY at, observation_id",
                (file_number,),
            ).fetchall()
        return [
            Observation(int(fn), codec.parse_ts(at), author, text, int(oid))
            for fn, at, author, text, oid in rows
        ]

    def add_observation(
        self, file_number: int, text: str, author: str, at: datetime
    ) -> Observation:
        with self._tx() as conn:
            if (
                conn.execute(
                    "SELECT 1 FROM visitors WHERE file_number = ?", (file_number,)
                ).fetchone()
                is None
            ):
                raise NotFoundError("no such file number")
            observation_id = conn.execute(
                "INSERT INTO observations (file_number, at, author, text) VALUES (?, ?, ?, ?)",
                (file_number, codec.ts(at), author, text),
            ).lastrowid
            self._audit(
                conn,
                author,
                "OBSERVATION",
                f"file:{file_number}",
                at,
                rows=[(f"observation:{observation_id}", True)],
            )
        assert observation_id is not None
        return Observation(file_number, codec.parse_ts(codec.ts(at)), author, text, observation_id)

    def record_admission(self, entry: AdmissionEntry) -> RecordedAdmission:
        """Upsert the visitor, insert the visit and, when given, the card with the next
        gapless number — all in ONE ``BEGIN IMMEDIATE`` transaction (art. 22.1), where
        the visitor's other valid card is looked for first: two desks admitting the same
        person at the same instant issue one card (art. 22: nominative and personal)."""
        check_entry(entry)
        at = codec.ts(entry.at)
        with self._tx() as conn:
            existing = None
            if entry.card is not None:
                day = madrid_date(entry.at)
                first = codec.day(min(entry.session_day or day, day))
                found = conn.execute(
                    OPEN_CARDS, (entry.identity.text, codec.day(day), first)
                ).fetchone()
                if found is not None:
                    existing = int(found[0])
                    entry = second_card(entry, str(found[1]))
            file_number, new = self._upsert_visitor(conn, entry, at)
            visit_id = self._insert_visit(conn, file_number, entry, at)
            number = None
            if entry.card is not None:
                number = cards.issue(
                    SqliteTx(conn, self._audit), file_number, visit_id, entry.card, entry.at
                )
            details, rows = visit_entry(file_number, visit_id, entry.verdict, number, existing, new)
            self._audit(
                conn, entry.operator, "VISIT", f"file:{file_number}", entry.at, details, rows
            )
        return RecordedAdmission(file_number, visit_id, number, new, existing)

    @staticmethod
    def _insert_visit(
        conn: sqlite3.Connection, file_number: int, entry: AdmissionEntry, at: str
    ) -> int:
        r = entry.registry
        visit_id = conn.execute(
            "INSERT INTO visits (file_number, at, desk_id, operator, verdict, reasons, "
            "document_type, document_number, registry_status, registry_source, "
            "registry_version, registry_age_s, official_capacity) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                file_number,
                at,
                entry.desk_id,
                entry.operator,
                entry.verdict,
                codec.codes(entry.reasons),
                entry.document_type,
                entry.document_number,
                r.status,
                r.source,
                r.version,
                r.age_seconds,
                entry.official_capacity,
            ),
        ).lastrowid
        assert visit_id is not None
        return visit_id

    def _upsert_visitor(
        self, conn: sqlite3.Connection, entry: AdmissionEntry, at: str
    ) -> tuple[int, bool]:
        row = conn.execute(
            "SELECT file_number, surname, given_names, birth_date, nationality "
            "FROM visitors WHERE identity = ?",
            (entry.identity.text,),
        ).fetchone()
        search = names.search_name(entry.surname, entry.given_names)
        birth = None if entry.birth_date is None else codec.day(entry.birth_date)
        if row is None:
            file_number = conn.execute(
                "INSERT INTO visitors (identity, surname, given_names, search_name, "
                "birth_date, nationality) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    entry.identity.text,
                    entry.surname,
                    entry.given_names,
                    search,
                    birth,
                    entry.nationality,
                ),
            ).lastrowid
            assert file_number is not None
            self._write_tokens(conn, file_number, entry.surname, entry.given_names)
            return file_number, True
        file_number, surname, given, old_birth, nationality = row
        birth = birth or old_birth
        if (surname, given, old_birth, nationality) != (
            entry.surname,
            entry.given_names,
            birth,
            entry.nationality,
        ):
            # The name as on the latest document presented (R2: full name).
            conn.execute(
                "UPDATE visitors SET surname = ?, given_names = ?, search_name = ?, "
                "birth_date = ?, nationality = ? WHERE file_number = ?",
                (entry.surname, entry.given_names, search, birth, entry.nationality, file_number),
            )
        if (surname, given) != (entry.surname, entry.given_names):
            conn.execute("DELETE FROM visitor_tokens WHERE file_number = ?", (file_number,))
            self._write_tokens(conn, file_number, entry.surname, entry.given_names)
        return int(file_number), False

    @staticmethod
    def _write_tokens(
        conn: sqlite3.Connection, file_number: int, surname: str, given_names: str
    ) -> None:
        search = names.search_name(surname, given_names)
        conn.executemany(
            "INSERT INTO visitor_tokens (token, search_name, file_number) VALUES (?, ?, ?)",
            [(w, search, file_number) for w in names.words(surname, given_names)],
        )

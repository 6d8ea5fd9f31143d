"""The reads the gaming inspectors' queries need (art. 20.4), over the visitor file.

:class:`SqlInspectionReader` implements :class:`admission.inspection.InspectionReader`
on the store's one connection (held under the store's lock, as the RIAJ replica does).
It only SELECTs. Every criterion is bound as a parameter, never spliced into the SQL
text: the SQL below is fixed, only the number of name-word clauses varies. The name
criterion uses the store's own accent- and case-insensitive word index
(``visitor_tokens``, :mod:`db.names`); an observation is matched with ``instr`` (no
``LIKE``, so ``%`` and ``_`` are plain characters).
"""

from __future__ import annotations

from collections.abc import Sequence

from admission.inspection import SearchCriteria
from admission.records import CardRecord, Visitor, VisitRecord
from db import codec, names
from db.cards import CARD_COLUMNS, card_from_row
from db.store import SqlCipherStore
from db.visitors import VISIT_COLUMNS, VISITOR_COLUMNS, visit_from_row, visitor_from_row

__all__ = ["SqlInspectionReader"]

_VISIT_AT = "EXISTS (SELECT 1 FROM visits AS s WHERE s.file_number = v.file_number AND s.at {op} ?)"


class SqlInspectionReader:
    def __init__(self, store: SqlCipherStore) -> None:
        self._store = store

    def find(self, criteria: SearchCriteria, limit: int) -> Sequence[Visitor]:
        where: list[str] = []
        params: list[object] = []
        if criteria.name is not None:
            query = names.words(criteria.name)
            if not query:  # nothing a name is made of (e.g. only "%" or quotes)
                return []
            for word in query:
                where.append(
                    "EXISTS (SELECT 1 FROM visitor_tokens AS t WHERE t.file_number = "
                    "v.file_number AND t.token >= ? AND t.token < ?)"
                )
                params.extend(names.prefix_range(word))
        if criteria.id_number is not None:
            # the identity's number (KIND:COUNTRY:NUMBER), or a document shown at a visit
            where.append(
                "(substr(v.identity, -length(?) - 1) = ':' || ? OR EXISTS (SELECT 1 FROM "
                "visits AS d WHERE d.file_number = v.file_number AND d.document_number = ?))"
            )
            params.extend([criteria.id_number] * 3)
        if criteria.card is not None:
            where.append(
                "EXISTS (SELECT 1 FROM cards AS c WHERE c.file_number = v.file_number "
                "AND c.number = ?)"
            )
            params.append(criteria.card)
        if criteria.file_number is not None:
            where.append("v.file_number = ?")
            params.append(criteria.file_number)
        if criteria.visits_from is not None and criteria.visits_until is not None:
            where.append(
                "EXISTS (SELECT 1 FROM visits AS s WHERE s.file_number = v.file_number "
                "AND s.at >= ? AND s.at < ?)"
            )
            params.extend([codec.ts(criteria.visits_from), codec.ts(criteria.visits_until)])
        elif criteria.visits_from is not None:
            where.append(_VISIT_AT.format(op=">="))
            params.append(codec.ts(criteria.visits_from))
        elif criteria.visits_until is not None:
            where.append(_VISIT_AT.format(op="<"))
            params.append(codec.ts(criteria.visits_until))
        if criteria.observation is not None:
            where.append(
                "EXISTS (SELECT 1 FROM observations AS o WHERE o.file_number = v.file_number "
                "AND instr(lower(o.text), lower(?)) > 0)"
            )
            params.append(criteria.observation)
        if not where:
            return []
        sql = (
            f"SELECT {VISITOR_COLUMNS} FROM visitors AS v WHERE "
            + " AND ".join(where)
            + " ORDER BY v.search_name, v.file_number LIMIT ?"
        )
        params.append(limit)
        with self._store.lock:
            rows = self._store.connection.execute(sql, params).fetchall()
        return [visitor_from_row(row) for row in rows]

    def visitor(self, file_number: int) -> Visitor | None:
        return self._store.visitor(file_number)

    def visits(self, file_number: int) -> Sequence[VisitRecord]:
        with self._store.lock:
            rows = self._store.connection.execute(
                f"SELECT {VISIT_COLUMNS} FROM visits AS v LEFT JOIN cards AS c "
                "ON c.visit_id = v.visit_id WHERE v.file_number = ? ORDER BY v.at, v.visit_id",
                (file_number,),
            ).fetchall()
        return [visit_from_row(row) for row in rows]

    def card(self, number: int) -> CardRecord | None:
        with self._store.lock:
            row = self._store.connection.execute(
                f"SELECT {CARD_COLUMNS} FROM cards WHERE number = ?", (number,)
            ).fetchone()
        return None if row is None else card_from_row(row)

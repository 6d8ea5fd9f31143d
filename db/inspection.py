"""The reads the gaming inspectors' queries need (art. 20.4), over the visitor file.

:func:`find_visitors` is the search behind
:meth:`db.visitors.VisitorsMixin.inspect_visitors` (the store then satisfies
:class:`admission.inspection.InspectionReader` with its own ``visitor``, ``visits`` and
``card``). It only SELECTs. Every criterion is bound as a parameter, never spliced into
the SQL text: the SQL below is fixed, only the number of name-word clauses varies. The
name criterion uses the store's own accent- and case-insensitive word index
(``visitor_tokens``, :mod:`db.names`); an observation is matched with ``instr`` (no
``LIKE``, so ``%`` and ``_`` are plain characters).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from admission.inspection import SearchCriteria
from db import codec, names

__all__ = ["find_visitors"]

_VISIT_AT = "EXISTS (SELECT 1 FROM visits AS s WHERE s.file_number = v.file_number AND s.at {op} ?)"


def find_visitors(conn: sqlite3.Connection, criteria: SearchCriteria, limit: int) -> Sequence[int]:
    """The file numbers of the visitors matching every criterion given, by folded name
    then file number; none when no criterion is given."""
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
            "EXISTS (SELECT 1 FROM cards AS c WHERE c.file_number = v.file_number AND c.number = ?)"
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
        "SELECT v.file_number FROM visitors AS v WHERE "
        + " AND ".join(where)
        + " ORDER BY v.search_name, v.file_number LIMIT ?"
    )
    params.append(limit)
    rows = conn.execute(sql, params).fetchall()
    return [int(row[0]) for row in rows]

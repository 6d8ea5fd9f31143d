"""The reads the gaming inspectors' queries need (art. 20.4), over the visitor file.

:func:`find_visitors` is the search behind
:meth:`db.visitors.VisitorsMixin.inspect_visitors` (the store then satisfies
:class:`admission.inspection.InspectionReader` with its own ``visitor``, ``visits`` and
``card``). It only SELECTs. Every criterion is bound as a parameter, never spliced into
the SQL text: the SQL below is fixed, only the number of name-word clauses, of identity
prefixes and of candidate numbers varies. The name criterion uses the store's own
accent- and case-insensitive word index (``visitor_tokens``, :mod:`db.names`); an
observation is matched with ``instr`` over SQLite's ``lower`` (ASCII case only), its
candidates found with an escaped ``LIKE``: ``%`` and ``_`` are plain characters.

How it stays fast on a six-month file (art. 20.4: the inspector waits for the answer;
``tests/bench/bench_inspection.py`` measures it on 1,000,000 visitors): the answer is
always "every criterion, by folded name then file number, the first ``limit``" - the
same WHERE clause whatever the path - but the rows it is evaluated on are found one of
two ways (:func:`plan`):

- **driven**: from the rarest criterion's own index - the file number or the card (a
  primary key), the identity (the ``identity`` index, one probe per document kind and
  country, and ``visits_by_document``), the rarest name word (``visitor_tokens``), a
  narrow date range (``visits_by_at``), or the matching observations (one pass over
  them) - then sorted;
- **walked**: when every criterion matches many visitors, the visitors are read in
  name order (``visitors_by_name``, migration 0050) and the first ``limit`` that match
  end the read, with no sort.

The choice weighs the two (:data:`DRIVE_COST` walk steps per candidate against the
visitors the walk reads before ``limit`` match, the criteria taken as independent) from
cheap sizes: a name word's index entries counted up to :data:`COUNT_BOUND`, a date
range told by the ids of its first and last visits, the observations matched by one
``LIKE`` pass. It never changes the result: the driving set holds every visitor that
can match, and the full WHERE clause is applied on it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from admission.inspection import SearchCriteria
from db import codec, names

__all__ = ["Plan", "Route", "conditions", "every_plan", "find_visitors", "plan", "run"]

COUNT_BOUND = 30_000  # index entries counted to size a name word or a date range
DRIVE_MAX = 30_000  # the tests set it to 0 to act as on a big file
DRIVE_COST = 3  # a candidate looked up, checked and sorted costs ~3 steps of the walk
SMALL = 2_000  # a driving set this small is taken without reading the observations
FETCH_MAX = 200_000  # a name word's visitors read to intersect with another word's
MAX_PREFIXES = 1_000  # identity kinds x countries probed before reading every visitor

_VISIT_AT = "EXISTS (SELECT 1 FROM visits AS s WHERE s.file_number = v.file_number AND s.at {op} ?)"


class Route(StrEnum):
    """How the rows the WHERE clause is evaluated on are found."""

    NONE = "none"  # nothing can match (a name made of no word)
    FILE = "file"  # the file number: the visitors' primary key
    CARD = "card"  # the card's primary key
    IDENTITY = "identity"  # the identity index and the documents shown at visits
    NAME = "name"  # the rarest name word's range in visitor_tokens
    NAMES = "names"  # the visitors holding two name words: their ranges intersected
    DATES = "dates"  # the visits in the range (visits_by_at)
    OBSERVATION = "observation"  # the matching observations, one pass
    WALK = "walk"  # every visitor in name order until ``limit`` match


@dataclass(frozen=True, slots=True)
class Plan:
    """The chosen path and the SQL that lists the candidate file numbers (driven paths);
    ``candidates`` when the path already read them (observations)."""

    route: Route
    driver: str = ""
    params: tuple[object, ...] = ()
    candidates: tuple[int, ...] | None = None
    estimate: int = 0
    considered: dict[str, int] = field(default_factory=dict)


def conditions(criteria: SearchCriteria) -> tuple[list[str], list[object]] | None:
    """The WHERE clauses of the search over ``visitors AS v`` and their parameters;
    None when nothing can match."""
    where: list[str] = []
    params: list[object] = []
    if criteria.name is not None:
        query = names.words(criteria.name)
        if not query:  # nothing a name is made of (e.g. only "%" or quotes)
            return None
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
    return where, params


def find_visitors(conn: sqlite3.Connection, criteria: SearchCriteria, limit: int) -> Sequence[int]:
    """The file numbers of the visitors matching every criterion given, by folded name
    then file number; none when no criterion is given."""
    return run(conn, criteria, plan(conn, criteria, limit), limit)


def run(
    conn: sqlite3.Connection, criteria: SearchCriteria, chosen: Plan, limit: int
) -> Sequence[int]:
    """The search evaluated on the rows ``chosen`` finds: the same answer on every route."""
    clauses = conditions(criteria)
    if clauses is None or not clauses[0] or chosen.route is Route.NONE:
        return []
    where, params = clauses
    if chosen.route is Route.WALK:
        # name order straight from the index: the first ``limit`` matches end the read
        sql = (
            "SELECT v.file_number FROM visitors AS v INDEXED BY visitors_by_name WHERE "
            + " AND ".join(where)
            + " ORDER BY v.search_name, v.file_number LIMIT ?"
        )
        args = [*params, limit]
    else:
        driver, driver_params = chosen.driver, list(chosen.params)
        if chosen.candidates is not None:
            driver, driver_params = (
                "SELECT value FROM json_each(?)",
                [json.dumps(chosen.candidates)],
            )
        # ``+v.search_name``: the sort is done on the few candidates, never by walking
        # the name index (the planner would otherwise prefer it to the candidates)
        sql = (
            f"SELECT v.file_number FROM visitors AS v WHERE v.file_number IN ({driver}) AND "
            + " AND ".join(where)
            + " ORDER BY +v.search_name, v.file_number LIMIT ?"
        )
        args = [*driver_params, *params, limit]
    return [int(row[0]) for row in conn.execute(sql, args).fetchall()]


def plan(conn: sqlite3.Connection, criteria: SearchCriteria, limit: int) -> Plan:
    """The cheapest way to find the candidates: an exact key first (file, card,
    identity); else the smallest sized set (rarest name word, date range, matching
    observations - read only when no small set is at hand) when it is small or cheaper
    than the walk in name order; else that walk."""
    exact = _exact(conn, criteria)
    if exact is not None:
        return exact
    if criteria.name is not None and not names.words(criteria.name):
        return Plan(Route.NONE)
    options = [p for p in (_name(conn, criteria), _dates(conn, criteria)) if p is not None]
    if options and options[0].route is Route.NAME and options[0].estimate > SMALL:
        both = _names(conn, criteria)  # two common words: "García López" (art. 20.4)
        if both is not None:
            options[0] = both
    considered = {str(p.route): p.estimate for p in options}
    best = min(options, key=lambda p: p.estimate, default=None)
    if best is not None and best.estimate <= min(SMALL, DRIVE_MAX):
        return _with(best, considered)  # small: no need to read the observations
    observed = _observation(conn, criteria)
    if observed is not None:
        considered[Route.OBSERVATION] = observed.estimate
        options.append(observed)
        best = min(options, key=lambda p: p.estimate)
    if best is not None and (
        best.estimate <= min(SMALL, DRIVE_MAX)
        or DRIVE_COST * best.estimate <= _walk_cost(conn, considered, limit)
    ):
        return _with(best, considered)
    return Plan(Route.WALK, estimate=-1, considered=considered)


def every_plan(conn: sqlite3.Connection, criteria: SearchCriteria) -> list[Plan]:
    """Every route that can answer ``criteria`` (the tests compare their answers)."""
    found = [Plan(Route.WALK)]
    if criteria.file_number is not None:
        found.append(Plan(Route.FILE, "SELECT ?", (criteria.file_number,)))
    if criteria.card is not None:
        found.append(_card(criteria.card))
    if criteria.id_number is not None:
        found.append(_identity(conn, criteria.id_number) or Plan(Route.WALK))
    for route in (
        _name(conn, criteria),
        _names(conn, criteria),
        _dates(conn, criteria),
        _observation(conn, criteria),
    ):
        if route is not None:
            found.append(route)
    return found


def _exact(conn: sqlite3.Connection, criteria: SearchCriteria) -> Plan | None:
    """A primary key or the identity: a handful of rows at most."""
    if criteria.file_number is not None:
        return Plan(Route.FILE, "SELECT ?", (criteria.file_number,), estimate=1)
    if criteria.card is not None:
        return _card(criteria.card)
    if criteria.id_number is not None:
        return _identity(conn, criteria.id_number)
    return None


def _card(number: int) -> Plan:
    return Plan(
        Route.CARD,
        "SELECT c.file_number FROM cards AS c WHERE c.number = ?",
        (number,),
        estimate=1,
    )


def _name(conn: sqlite3.Connection, criteria: SearchCriteria) -> Plan | None:
    """The rarest query word's range of the word index (counted, bounded)."""
    query = names.words(criteria.name) if criteria.name is not None else []
    if not query:
        return None
    size, word = min((_count_tokens(conn, word), word) for word in query)
    return Plan(
        Route.NAME,
        "SELECT t.file_number FROM visitor_tokens AS t WHERE t.token >= ? AND t.token < ?",
        names.prefix_range(word),
        estimate=size,
    )


def _names(conn: sqlite3.Connection, criteria: SearchCriteria) -> Plan | None:
    """The visitors holding the two rarest query words, their index ranges read and
    intersected (each up to :data:`FETCH_MAX` visitors); the rarer word's range when
    only one is that small; None for fewer than two words."""
    query = names.words(criteria.name) if criteria.name is not None else []
    if len(query) < 2:
        return None
    sizes = sorted(
        (
            _count(
                conn,
                "SELECT 1 FROM visitor_tokens AS t WHERE t.token >= ? AND t.token < ?",
                names.prefix_range(word),
                FETCH_MAX + 1,
            ),
            word,
        )
        for word in query
    )
    ranges = [word for size, word in sizes if size <= FETCH_MAX][:2]
    if len(ranges) < 2:  # one very common word: driven by the rarer, counted now
        size, word = sizes[0]
        return Plan(
            Route.NAME,
            "SELECT t.file_number FROM visitor_tokens AS t WHERE t.token >= ? AND t.token < ?",
            names.prefix_range(word),
            estimate=size,
        )
    found: set[int] | None = None
    for word in ranges:
        rows = conn.execute(
            "SELECT t.file_number FROM visitor_tokens AS t WHERE t.token >= ? AND t.token < ?",
            names.prefix_range(word),
        ).fetchall()
        numbers = {int(r[0]) for r in rows}
        found = numbers if found is None else found & numbers
    assert found is not None
    return Plan(Route.NAMES, candidates=tuple(sorted(found)), estimate=len(found))


def _dates(conn: sqlite3.Connection, criteria: SearchCriteria) -> Plan | None:
    """The visits in the range, through ``visits_by_at`` (counted, bounded)."""
    if criteria.visits_from is None and criteria.visits_until is None:
        return None
    low = codec.ts(criteria.visits_from) if criteria.visits_from is not None else ""
    high = codec.ts(criteria.visits_until) if criteria.visits_until is not None else "~"
    size = _visits_between(conn, low, high)
    return Plan(
        Route.DATES,
        "SELECT s.file_number FROM visits AS s WHERE s.at >= ? AND s.at < ?",
        (low, high),
        estimate=size,
    )


def _observation(conn: sqlite3.Connection, criteria: SearchCriteria) -> Plan | None:
    """The visitors with a matching observation: one pass over the observations (a few
    per hundred visitors), read here so their number decides the route."""
    if criteria.observation is None:
        return None
    # LIKE folds ASCII case only, as SQLite's lower() does, and reads the rows in
    # place (no lowered copy): the same rows as instr(lower(...)), a few times faster.
    # The search's WHERE clause still applies instr to every candidate.
    pattern = "%" + _escape_like(criteria.observation) + "%"
    rows = conn.execute(
        "SELECT o.file_number FROM observations AS o NOT INDEXED WHERE o.text LIKE ? ESCAPE '\\'",
        (pattern,),
    ).fetchall()
    found = sorted({int(r[0]) for r in rows})
    return Plan(Route.OBSERVATION, candidates=tuple(found), estimate=len(found))


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _walk_cost(conn: sqlite3.Connection, considered: dict[str, int], limit: int) -> int:
    """Visitors read in name order before ``limit`` match, the criteria taken as
    independent: ``limit`` over the share of visitors matching them all."""
    visitors = int(conn.execute("SELECT max(file_number) FROM visitors").fetchone()[0] or 0)
    if visitors == 0:
        return 0
    share = 1.0
    for size in considered.values():
        share *= min(size, visitors) / visitors
    return int(min(visitors, limit / share if share > 0 else visitors))


def _with(chosen: Plan, considered: dict[str, int]) -> Plan:
    return Plan(
        chosen.route, chosen.driver, chosen.params, chosen.candidates, chosen.estimate, considered
    )


def _count(
    conn: sqlite3.Connection, sql: str, params: Sequence[object], bound: int = COUNT_BOUND
) -> int:
    """Rows of ``sql``, counted up to ``bound`` (an index range: cheap)."""
    return int(
        conn.execute(f"SELECT count(*) FROM ({sql} LIMIT {int(bound)})", list(params)).fetchone()[0]
    )


def _visits_between(conn: sqlite3.Connection, low: str, high: str) -> int:
    """The visits in ``[low, high)``: counted when few, else told by their ids (a visit's
    id grows with its time: the difference of two index probes, no count of a month)."""

    def first_id(at: str) -> int:
        row = conn.execute(
            "SELECT s.visit_id FROM visits AS s WHERE s.at >= ? ORDER BY s.at LIMIT 1", (at,)
        ).fetchone()
        if row is not None:
            return int(row[0])
        return int(conn.execute("SELECT coalesce(max(visit_id), 0) + 1 FROM visits").fetchone()[0])

    told = first_id(high) - first_id(low)
    if told > COUNT_BOUND:
        return told
    return _count(conn, "SELECT 1 FROM visits AS s WHERE s.at >= ? AND s.at < ?", (low, high))


def _count_tokens(conn: sqlite3.Connection, word: str) -> int:
    return _count(
        conn,
        "SELECT 1 FROM visitor_tokens AS t WHERE t.token >= ? AND t.token < ?",
        names.prefix_range(word),
    )


def _identity(conn: sqlite3.Connection, number: str) -> Plan | None:
    """Every visitor whose identity ends in ``:number`` or who showed a document of that
    number: one probe of the identity index per stored ``KIND:COUNTRY:`` prefix (found by
    skipping through that index), and the documents' index. None when the prefixes are
    too many to probe (then another path is taken)."""
    if ":" in number or not number:
        return None
    prefixes: list[str] = []
    low = ""
    while True:
        row = conn.execute(
            "SELECT identity FROM visitors WHERE identity >= ? ORDER BY identity LIMIT 1",
            (low,),
        ).fetchone()
        if row is None:
            break
        identity = str(row[0])
        cut = _prefix_end(identity)
        if cut < 0:  # not KIND:COUNTRY:NUMBER - the identity index cannot answer
            return None
        prefix = identity[:cut]
        prefixes.append(prefix)
        if len(prefixes) > MAX_PREFIXES:
            return None
        low = prefix[:-1] + chr(ord(":") + 1)  # past every identity with this prefix
    marks = ",".join("?" * len(prefixes)) or "NULL"
    return Plan(
        Route.IDENTITY,
        f"SELECT i.file_number FROM visitors AS i WHERE i.identity IN ({marks}) "
        "UNION ALL SELECT d.file_number FROM visits AS d WHERE d.document_number = ?",
        (*(p + number for p in prefixes), number),
        estimate=len(prefixes),
    )


def _prefix_end(identity: str) -> int:
    """Length of ``KIND:COUNTRY:`` in an identity's text, -1 when it is not one: a number
    never holds a colon (admission.identity), so that prefix ends at the second colon and
    nothing after it holds a colon."""
    first = identity.find(":")
    second = identity.find(":", first + 1) if first >= 0 else -1
    if second < 0 or ":" in identity[second + 1 :]:
        return -1
    return second + 1

"""The gaming inspectors' search (art. 20.4) on the SQLCipher file (the server's sealed
names: db/pg/inspection.py): the visitors matching every criterion, by folded name then file
number, the first ``limit``; only SELECTs, every criterion bound, one WHERE clause on every
route. :func:`plan` picks the rows it is evaluated on by the rows each reads (1,000,000
visitors: tests/bench/bench_inspection.py): the rarest name word's index entries in name
order (migration 0051), the rarest criterion's own set sorted, or a name-order walk (0050)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from admission.inspection import SearchCriteria
from admission.records import Visitor
from db import codec, names, visitors
from db.tx import Tx, scalar

COUNT_BOUND = 30_000  # index entries counted to size a name word or a date range
DRIVE_MAX = 30_000  # the tests set it to 0 to act as on a big file
DRIVE_COST = 3  # a candidate looked up, checked and sorted costs ~3 steps of a read in order
SMALL = 2_000  # a driving set this small is taken without reading the observations
SIEVE_COST = 0.1  # an index entry looked up among the candidates, against a walk's step
MERGE_MAX = 48  # words starting with a query word read and merged in name order; more: walk
MAX_PREFIXES = 1_000  # identity kinds x countries probed before reading every visitor
# The letters outside ASCII whose str.lower holds an ASCII letter (tests/db/test_inspection.py
# checks every code point): LATIN CAPITAL LETTER I WITH DOT ABOVE, KELVIN SIGN.
FOLDED_TO_ASCII = ("\u0130", "\u212a")
Finder = Callable[[Tx, SearchCriteria, int], Sequence[int]]  # the file numbers, in order


class Route(StrEnum):
    """How the rows the WHERE clause is evaluated on are found."""

    NONE = "none"  # nothing can match (a name made of no word)
    FILE = "file"  # the file number: the visitors' primary key
    CARD = "card"  # the card's primary key
    IDENTITY = "identity"  # the identity index and the documents shown at visits
    NAME = "name"  # the rarest name word's index entries, read in name order and merged
    DATES = "dates"  # the visits in the range (visits_by_at)
    OBSERVATION = "observation"  # the matching observations, one pass
    WALK = "walk"  # every visitor in name order until ``limit`` match


@dataclass(frozen=True, slots=True)
class Plan:
    """A path: ``driver`` the SQL listing its candidates, or ``candidates`` already read;
    ``words`` the index words read in name order; ``cost`` the rows it should read."""

    route: Route
    driver: str = ""
    params: tuple[object, ...] = ()
    candidates: tuple[int, ...] | None = None
    estimate: int = 0
    considered: dict[str, int] = field(default_factory=dict)
    words: tuple[str, ...] = ()
    cost: float = 0.0
    others: tuple[tuple[str, tuple[str, ...] | None], ...] = ()


def conditions(
    criteria: SearchCriteria,
    row: str = "v",
    *,
    name: bool = True,
    ts: Callable[[datetime], object] = codec.ts,
) -> tuple[list[str], list[object]] | None:
    """The WHERE clauses over ``visitors AS v`` (or a source of ``row.file_number``; the
    identity needs ``v``) and their parameters, without the name's when not ``name``;
    None when nothing can match."""
    where: list[str] = []
    params: list[object] = []
    if criteria.name is not None:
        query = names.words(criteria.name)
        if not query:  # nothing a name is made of (e.g. only "%" or quotes)
            return None
        for word in query if name else ():
            where.append(_exists("visitor_tokens AS w", row, "w.token >= ? AND w.token < ?"))
            params.extend(names.prefix_range(word))
    if criteria.id_number is not None:
        # the identity's number (KIND:COUNTRY:NUMBER), or a document shown at a visit
        shown = _exists("visits AS d", row, "d.document_number = ?")
        where.append(f"(substr(v.identity, -length(?) - 1) = ':' || ? OR {shown})")
        params.extend([criteria.id_number] * 3)
    if criteria.card is not None:
        where.append(_exists("cards AS c", row, "c.number = ?"))
        params.append(criteria.card)
    if criteria.file_number is not None:
        where.append(f"{row}.file_number = ?")
        params.append(criteria.file_number)
    pairs = ((">=", criteria.visits_from), ("<", criteria.visits_until))
    if dated := [(op, at) for op, at in pairs if at is not None]:
        bounds = " AND ".join(f"s.at {op} ?" for op, _ in dated)
        where.append(_exists("visits AS s", row, bounds))
        params.extend(ts(at) for _, at in dated)
    if criteria.observation is not None:
        where.append(_exists("observations AS o", row, "instr(fold(o.text), ?) > 0"))
        params.append(criteria.observation.lower())
    return where, params


def _exists(source: str, row: str, clause: str) -> str:
    """``clause`` holds for a row of ``source`` (``table AS alias``) of ``row``'s visitor."""
    alias = source.rsplit(" ", 1)[-1]
    on = f"{alias}.file_number = {row}.file_number"
    return f"EXISTS (SELECT 1 FROM {source} WHERE {on} AND {clause})"


def find_visitors(tx: Tx, criteria: SearchCriteria, limit: int) -> Sequence[int]:
    """The file numbers of the visitors matching every criterion given (at least one)."""
    return run(tx, criteria, plan(tx, criteria, limit), limit)


def inspect_visitors(tx: Tx, criteria: SearchCriteria, limit: int) -> list[Visitor]:
    """Visitors matching every criterion given, by folded name then file number, at most
    ``limit``; none without criteria."""
    return listed(tx, criteria, limit, find_visitors)


def listed(tx: Tx, criteria: SearchCriteria, limit: int, find: Finder) -> list[Visitor]:
    """The visitors whose file numbers ``find`` gives (the server's: db/pg/inspection.py)."""
    if criteria == SearchCriteria() or limit <= 0:
        return []
    return visitors.listed(tx, find(tx, criteria, limit))


def run(tx: Tx, criteria: SearchCriteria, chosen: Plan, limit: int) -> Sequence[int]:
    """The search evaluated on the rows ``chosen`` finds: the same answer on every route."""
    built = statement(criteria, chosen, limit)
    if built is None:
        return []
    sql, args, column = built
    return [int(row[column]) for row in tx.all(sql, args)]


def statement(
    criteria: SearchCriteria, chosen: Plan, limit: int
) -> tuple[str, list[object], int] | None:
    """The SQL of the search on ``chosen``'s rows, its arguments and the column holding
    the file number; None when nothing can match."""
    clauses = conditions(criteria)
    if clauses is None or not clauses[0] or chosen.route is Route.NONE:
        return None
    where, params = clauses
    if chosen.route is Route.NAME:
        return _name_statement(criteria, chosen, limit)
    dumped: list[object] = [] if chosen.candidates is None else [json.dumps(chosen.candidates)]
    if chosen.route is Route.WALK:
        # name order straight from the index: the first ``limit`` matches end the read;
        # with candidates, each index entry is first sieved through them in memory (the
        # index's sequential pages instead of thousands of visitors' random ones)
        sieve = ["v.file_number IN (SELECT value FROM json_each(?))"] if dumped else []
        sql = (
            "SELECT v.file_number FROM visitors AS v INDEXED BY visitors_by_name WHERE "
            + " AND ".join([*sieve, *where])
            + " ORDER BY v.search_name, v.file_number LIMIT ?"
        )
        return sql, [*dumped, *params, limit], 0
    driver, driver_params = chosen.driver, list(chosen.params)
    if dumped:
        driver, driver_params = "SELECT value FROM json_each(?)", dumped
    # ``+v.search_name``: the sort is done on the few candidates, never by walking
    # the name index (the planner would otherwise prefer it to the candidates)
    sql = (
        f"SELECT v.file_number FROM visitors AS v WHERE v.file_number IN ({driver}) AND "
        + " AND ".join(where)
        + " ORDER BY +v.search_name, v.file_number LIMIT ?"
    )
    return sql, [*driver_params, *params, limit], 0


def _name_statement(
    criteria: SearchCriteria, chosen: Plan, limit: int
) -> tuple[str, list[object], int] | None:
    """The search read in name order from the rarest word's index entries, one read per
    index word starting with it, merged by UNION and ended by LIMIT, no sort; the other
    words probed at the candidate's own place in their entries, on pages already read."""
    if not chosen.words or any(tokens == () for _, tokens in chosen.others):
        return None  # no visitor holds a word starting with some query word
    joined = criteria.id_number is not None  # the identity is the visitor row's own
    clauses = conditions(criteria, "v" if joined else "t", name=False)
    if clauses is None:
        return None
    where, params = clauses
    word_where: list[str] = []
    word_params: list[object] = []
    for word, tokens in chosen.others:
        if tokens is None:  # a short prefix of many words: by the visitor's own words
            word_where.append(_exists("visitor_tokens AS w", "t", "w.token >= ? AND w.token < ?"))
            word_params.extend(names.prefix_range(word))
        else:
            word_where.append(
                "EXISTS (SELECT 1 FROM visitor_tokens AS x WHERE x.token IN "
                f"({','.join('?' * len(tokens))}) AND x.search_name = t.search_name "
                "AND +x.file_number = t.file_number)"  # "+": by the key, not by file
            )
            word_params.extend(tokens)
    source = "visitor_tokens AS t" + (
        " JOIN visitors AS v ON v.file_number = t.file_number" if joined else ""
    )
    arm = " AND ".join(
        [
            f"SELECT t.search_name, t.file_number FROM {source} WHERE t.token = ?",
            *word_where,
            *where,
        ]
    )
    sql = " UNION ".join([arm] * len(chosen.words)) + " ORDER BY 1, 2 LIMIT ?"
    args: list[object] = [a for token in chosen.words for a in (token, *word_params, *params)]
    return sql, [*args, limit], 1


def plan(tx: Tx, criteria: SearchCriteria, limit: int) -> Plan:
    """The cheapest way to the answer: an exact key first (file, card, identity); else
    the way that reads fewest rows (the observations read only when nothing is cheap)."""
    if criteria.file_number is not None:
        return Plan(Route.FILE, "SELECT ?", (criteria.file_number,), estimate=1)
    if criteria.card is not None:
        return card_plan(criteria.card)
    exact = identity_plan(tx, criteria.id_number) if criteria.id_number is not None else None
    if exact is not None:
        return exact
    if criteria.name is not None and not names.words(criteria.name):
        return Plan(Route.NONE)
    visitors = int(scalar(tx, "SELECT max(file_number) FROM visitors") or 0)
    sized = name_sizes(tx, criteria)
    dates = dates_plan(tx, criteria)
    shares = {f"name:{word}": _share(size, visitors) for word, size in sized.items()}
    considered: dict[str, int] = {}
    if dates is not None:
        shares[Route.DATES] = _share(dates.estimate, visitors)
        considered[Route.DATES] = dates.estimate
    options: list[Plan] = []
    named = name_plan(tx, criteria, sized)
    if named is not None:
        considered[Route.NAME] = named.estimate
        if named.words or named.estimate == 0:
            options.append(replace(named, cost=_ordered_cost(named, shares, limit)))
    if dates is not None:
        options.append(replace(dates, cost=DRIVE_COST * dates.estimate))
    best = min(options, key=lambda p: p.cost, default=None)
    if best is None or best.cost > min(SMALL, DRIVE_MAX) * DRIVE_COST:
        observed = observation_plan(tx, criteria)
        if observed is not None:
            considered[Route.OBSERVATION] = observed.estimate
            shares[Route.OBSERVATION] = _share(observed.estimate, visitors)
            options.append(replace(observed, cost=DRIVE_COST * observed.estimate))
            if named is not None and (named.words or named.estimate == 0):
                options[0] = replace(named, cost=_ordered_cost(named, shares, limit))
    walked = _walk_cost(visitors, shares.values(), limit)
    walk = Plan(Route.WALK, estimate=-1, cost=walked)
    small = [p for p in options if p.route is not Route.NAME and p.estimate <= DRIVE_MAX]
    sieved = [
        Plan(Route.WALK, candidates=p.candidates, estimate=p.estimate, cost=SIEVE_COST * walked)
        for p in options
        if p.route is Route.OBSERVATION and p.estimate > 0
    ]
    best = min(
        [*small, *(p for p in options if p.route is Route.NAME), walk, *sieved],
        # fewest rows read first; at equal cost, a read in order before a sort
        key=lambda p: (p.cost, 0 if p.route in (Route.NAME, Route.WALK) else 1),
    )
    return replace(best, considered=considered)


def card_plan(number: int) -> Plan:
    sql = "SELECT c.file_number FROM cards AS c WHERE c.number = ?"
    return Plan(Route.CARD, sql, (number,), estimate=1)


def name_sizes(tx: Tx, criteria: SearchCriteria) -> dict[str, int]:
    """Each query word's index entries, counted up to :data:`COUNT_BOUND`."""
    query = names.words(criteria.name) if criteria.name is not None else []
    tokens = "SELECT 1 FROM visitor_tokens AS t WHERE t.token >= ? AND t.token < ?"
    return {word: count_upto(tx, tokens, names.prefix_range(word)) for word in query}


def name_plan(tx: Tx, criteria: SearchCriteria, sized: dict[str, int]) -> Plan | None:
    """The rarest query word and the index words starting with it (none past
    :data:`MERGE_MAX`: the walk serves a short prefix), and each other word's (or None)."""
    if not sized:
        return None
    size, word = min((size, word) for word, size in sized.items())
    others = tuple(
        (other, _words(tx, other) if sized[other] else ()) for other in sized if other != word
    )
    words = (_words(tx, word) or ()) if size else ()
    return Plan(Route.NAME, params=(word,), estimate=size, words=words, others=others)


def _words(tx: Tx, prefix: str) -> tuple[str, ...] | None:
    """The distinct index words starting with ``prefix``, each found by one seek past the
    previous one; None when more than :data:`MERGE_MAX`."""
    low, high = names.prefix_range(prefix)
    found: list[str] = []
    seek = ">="
    sql = "SELECT token FROM visitor_tokens WHERE token {} ? AND token < ? ORDER BY token LIMIT 1"
    while row := tx.one(sql.format(seek), (low, high)):
        found.append(str(row[0]))
        if len(found) > MERGE_MAX:
            return None
        low, seek = found[-1], ">"
    return tuple(found)


def _ordered_cost(named: Plan, shares: dict[str, float], limit: int) -> float:
    """Index entries of the rarest word read in name order before ``limit`` meet the
    other criteria, at most all of them."""
    own = f"name:{named.params[0]}"
    return _walk_cost(named.estimate, [v for k, v in shares.items() if k != own], limit)


def _walk_cost(rows: int, shares: Iterable[float], limit: int) -> float:
    """Rows read in order before ``limit`` match, the criteria taken as independent:
    ``limit`` over the share of rows matching them all, at most every row."""
    share = math.prod(shares)
    return float(min(rows, limit / share if share > 0 else rows))


def _share(size: int, visitors: int) -> float:
    return min(size, visitors) / visitors if visitors else 0.0


def dates_plan(tx: Tx, criteria: SearchCriteria) -> Plan | None:
    """The visits in the range, through ``visits_by_at`` (counted, bounded)."""
    if criteria.visits_from is None and criteria.visits_until is None:
        return None
    low = codec.ts(criteria.visits_from) if criteria.visits_from is not None else ""
    high = codec.ts(criteria.visits_until) if criteria.visits_until is not None else "~"
    sql = "SELECT s.file_number FROM visits AS s WHERE s.at >= ? AND s.at < ?"
    return Plan(Route.DATES, sql, (low, high), estimate=_visits_between(tx, low, high))


def observation_plan(tx: Tx, criteria: SearchCriteria) -> Plan | None:
    """The visitors with a matching observation: one pass over the observations (a few
    per hundred visitors), read here so their number decides the route."""
    if criteria.observation is None:
        return None
    needle = criteria.observation.lower()
    if needle.isascii():
        like = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        # LIKE folds ASCII case only and reads the rows in place (no folded copy), a few
        # times faster than fold(): exact for an ASCII needle on every text but one
        # holding a letter whose str.lower is ASCII (FOLDED_TO_ASCII), which fold() reads.
        # The search's WHERE clause still applies instr(fold(...)) to every candidate.
        sql = (
            "o.text LIKE ? ESCAPE '\\' OR ((instr(o.text, ?) > 0 OR instr(o.text, ?) > 0) "
            "AND instr(fold(o.text), ?) > 0)"
        )
        args: tuple[str, ...] = (f"%{like}%", *FOLDED_TO_ASCII, needle)
    else:
        sql, args = "instr(fold(o.text), ?) > 0", (needle,)
    rows = tx.all(f"SELECT o.file_number FROM observations AS o NOT INDEXED WHERE {sql}", args)
    found = sorted({int(r[0]) for r in rows})
    return Plan(Route.OBSERVATION, candidates=tuple(found), estimate=len(found))


def count_upto(tx: Tx, sql: str, params: Sequence[object], bound: int = COUNT_BOUND) -> int:
    """Rows of ``sql``, counted up to ``bound`` (both dialects)."""
    return int(scalar(tx, f"SELECT count(*) FROM ({sql} LIMIT {int(bound)}) AS q", list(params)))


def _visits_between(tx: Tx, low: str, high: str) -> int:
    """The visits in ``[low, high)``: counted when few, else told by their ids (a visit's
    id grows with its time: the difference of two index probes, no count of a month)."""

    def first_id(at: str) -> int:
        row = tx.one(
            "SELECT s.visit_id FROM visits AS s WHERE s.at >= ? ORDER BY s.at LIMIT 1", (at,)
        )
        if row is not None:
            return int(row[0])
        return int(scalar(tx, "SELECT coalesce(max(visit_id), 0) + 1 FROM visits"))

    told = first_id(high) - first_id(low)
    if told > COUNT_BOUND:
        return told
    return count_upto(tx, "SELECT 1 FROM visits AS s WHERE s.at >= ? AND s.at < ?", (low, high))


def identity_plan(tx: Tx, number: str) -> Plan | None:
    """Every visitor whose identity ends in ``:number`` or who showed a document of that
    number: one probe per stored ``KIND:COUNTRY:`` prefix (found by skipping through the
    identity index), and the documents' index; None past :data:`MAX_PREFIXES`."""
    if ":" in number or not number:
        return None
    prefixes: list[str] = []
    low = ""
    while True:
        row = tx.one(
            "SELECT identity FROM visitors WHERE identity >= ? ORDER BY identity LIMIT 1",
            (low,),
        )
        if row is None:
            break
        parts = str(row[0]).split(":")  # a number never holds a colon (admission.identity)
        if len(parts) != 3:  # not KIND:COUNTRY:NUMBER - the identity index cannot answer
            return None
        prefix = f"{parts[0]}:{parts[1]}:"
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

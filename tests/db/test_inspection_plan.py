"""The inspectors' search routes (db/inspection.py, art. 20.4): whichever index drives it
- file number, card, identity, name word, date range, observations, or the walk in name
order - the answer is the one the plain WHERE clause gives, limit and order included;
the planner keeps the intended plan on both SQLite builds; and the benchmark's main
path still runs (on a tiny file)."""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from admission.inspection import SearchCriteria
from db import inspection, names
from db.audit_key import ENV_VAR
from db.connection import SqliteTx, configure
from db.inspection import Plan, Route, conditions, find_visitors, plan, run, statement
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.bench import bench_store
from tests.db.factories import entry

VISITORS = 400
_EXTRA = [  # identities of other kinds and countries, and a document shown at a visit
    (401, "PASSPORT:FRA:AB1234", "DUBOIS", "MARIE", "AB1234"),
    (402, "PASSPORT:D:C01X00T47", "MÜLLER", "JÜRGEN", "C01X00T47"),
    (403, "NIE:ESP:X1234567L", "O'BRIEN", "SEÁN", "X1234567L"),
    (404, "ID_CARD:ITA:CA00000AA", "ROSSI", "GIULIA", "AB1234"),  # showed a number like it
    (405, "PASSPORT:ESP:00000007F", "PEÑA", "JOSÉ", "00000007F"),  # visitor 7's number
]


def every_plan(tx: SqliteTx, criteria: SearchCriteria) -> list[Plan]:
    """Every route that can answer ``criteria``: the planner's own, whatever their cost."""
    found = [Plan(Route.WALK)]
    if criteria.file_number is not None:
        found.append(Plan(Route.FILE, "SELECT ?", (criteria.file_number,)))
    if criteria.card is not None:
        found.append(inspection.card_plan(criteria.card))
    if criteria.id_number is not None:
        found.append(inspection.identity_plan(tx, criteria.id_number) or Plan(Route.WALK))
    named = inspection.name_plan(tx, criteria, inspection.name_sizes(tx, criteria))
    observed = inspection.observation_plan(tx, criteria)
    for route in (named, inspection.dates_plan(tx, criteria), observed):
        if route is not None and (
            route.route is not Route.NAME or route.words or not route.estimate
        ):
            found.append(route)
    if observed is not None:
        found.append(Plan(Route.WALK, candidates=observed.candidates))
    return found


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    path = tmp_path_factory.mktemp("plan") / "plain.db"
    bench_store.build_plain(path, VISITORS, 2)
    db = sqlite3.connect(path, isolation_level=None)
    configure(db)  # as every store's connection: fold() among them
    db.execute("BEGIN")
    at = bench_store.stamp(int(bench_store.END.timestamp()) - 86400 * 3 + 17 * 3600)
    for number, identity, surname, given, document in _EXTRA:
        db.execute(
            "INSERT INTO visitors VALUES (?, ?, ?, ?, ?, '1980-01-01', 'ESP')",
            (number, identity, surname, given, names.search_name(surname, given)),
        )
        db.executemany(
            "INSERT INTO visitor_tokens VALUES (?, ?, ?)",
            [(w, names.search_name(surname, given), number) for w in names.words(surname, given)],
        )
        db.execute(
            "INSERT INTO visits (file_number, at, desk_id, operator, verdict, reasons, "
            "document_type, document_number, registry_status, registry_source, "
            "registry_version) VALUES (?, ?, 'desk-1', 'op', 'ADMIT', '[]', 'P', ?, "
            "'NOT_LISTED', 'REPLICA', 'v')",
            (number, at, document),
        )
    db.executemany(
        "INSERT INTO observations (file_number, at, author, text) VALUES (?, ?, 'op', ?)",
        [
            (401, at, "Discusión en la mesa 3 (50% de la apuesta)"),
            (403, at, "Pide hablar con el DIRECTOR de juego"),
            (7, at, "Apuesta_doble en la mesa 30"),
        ],
    )
    db.execute("COMMIT")
    yield db
    db.close()


def _tx(db: sqlite3.Connection) -> SqliteTx:
    """A read of the file's dialect on the test's connection (db/tx.py)."""
    return SqliteTx(db, None)


def _reference(db: sqlite3.Connection, criteria: SearchCriteria, limit: int) -> list[int]:
    """The search as it was first written: the WHERE clause over every visitor, sorted."""
    clauses = conditions(criteria)
    if clauses is None or not clauses[0]:
        return []
    where, params = clauses
    sql = (
        "SELECT v.file_number FROM visitors AS v NOT INDEXED WHERE "
        + " AND ".join(where)
        + " ORDER BY v.search_name, v.file_number LIMIT ?"
    )
    return [int(r[0]) for r in db.execute(sql, [*params, limit])]


def _criteria(rng: random.Random, db: sqlite3.Connection) -> SearchCriteria:
    days = [bench_store.END - timedelta(days=k) for k in range(0, 190, 7)]
    start = rng.choice(days)
    span = rng.choice([timedelta(days=1), timedelta(days=31), timedelta(days=400)])
    picks: dict[str, object] = {
        "name": rng.choice(
            ["pe", "garcia", "garcia lo", "ma jo", "o brien", "muller", "zz", "PEÑA%", "%", "a"]
        ),
        "id_number": rng.choice(
            ["AB1234", "C01X00T47", "X1234567L", "00000007F", "00000012N", "CAA0000010", "NONE1"]
        ),
        "card": rng.randint(1, 5 * VISITORS + 10),
        "file_number": rng.choice([rng.randint(1, VISITORS + 5), 401, 404]),
        "visits_from": start,
        "visits_until": start + span,
        "observation": rng.choice(["mesa", "MESA 3", "50%", "director", "_", "xyz", "mesa 3"]),
    }
    chosen = rng.sample(sorted(picks), rng.choice([1, 1, 2, 2, 3]))
    if "visits_from" in chosen and "visits_until" not in chosen and rng.random() < 0.5:
        chosen.append("visits_until")
    return SearchCriteria(**{k: picks[k] for k in chosen})  # type: ignore[arg-type]


@pytest.mark.parametrize("merge_max", [inspection.MERGE_MAX, 1])
def test_every_route_gives_the_answer_of_the_plain_where_clause(
    conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch, merge_max: int
) -> None:
    """With few index words per query word (read and merged in name order) and with a
    bound of one (short prefixes then checked by the visitor's own words, or walked)."""
    monkeypatch.setattr(inspection, "MERGE_MAX", merge_max)
    rng = random.Random(5 + merge_max)
    routes_seen: set[Route] = set()
    nonempty = 0
    for _ in range(400):
        criteria = _criteria(rng, conn)
        for limit in (3, 200):
            expected = _reference(conn, criteria, limit)
            nonempty += bool(expected)
            assert list(find_visitors(_tx(conn), criteria, limit)) == expected, criteria
            for route in every_plan(_tx(conn), criteria):
                routes_seen.add(route.route)
                assert list(run(_tx(conn), criteria, route, limit)) == expected, (criteria, route)
    assert routes_seen == {
        Route.WALK,
        Route.FILE,
        Route.CARD,
        Route.IDENTITY,
        Route.NAME,
        Route.DATES,
        Route.OBSERVATION,
    }
    assert nonempty > 200  # the comparison is not between empty answers


def test_the_identity_route_finds_every_kind_country_and_document(
    conn: sqlite3.Connection,
) -> None:
    assert find_visitors(_tx(conn), SearchCriteria(id_number="AB1234"), 10) == [401, 404]
    assert find_visitors(_tx(conn), SearchCriteria(id_number="C01X00T47"), 10) == [402]
    assert sorted(find_visitors(_tx(conn), SearchCriteria(id_number="00000007F"), 10)) == [7, 405]
    chosen = plan(_tx(conn), SearchCriteria(id_number="X1234567L"), 10)
    assert (
        chosen.route is Route.IDENTITY and chosen.estimate == 6
    )  # DNI:ESP, ID_CARD:ITA, NIE:ESP, PASSPORT: D, ESP, FRA


def test_the_route_follows_the_rarest_criterion(
    conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    def route(limit: int = 200, **criteria: object) -> Route:
        return plan(_tx(conn), SearchCriteria(**criteria), limit).route  # type: ignore[arg-type]

    day = bench_store.END - timedelta(days=10)
    assert route(file_number=5, name="pe") is Route.FILE
    assert route(card=5, name="pe") is Route.CARD
    assert route(id_number="AB1234", visits_from=day) is Route.IDENTITY
    assert route(name="muller", visits_from=day) is Route.NAME
    assert route(name="a", visits_from=day, visits_until=day + timedelta(days=1)) is Route.DATES
    assert route(observation="director") is Route.OBSERVATION
    assert route(name="%") is Route.NONE
    monkeypatch.setattr(inspection, "DRIVE_MAX", 0)  # as on a big file: every set is large
    assert route(3, name="a") is Route.NAME  # read in name order: never more than the walk
    assert route(3, name="muller") is Route.NAME
    assert route(3, name="muller", visits_from=day) is Route.NAME
    # many visitors with a matching observation: sieved through the name index in order
    monkeypatch.setattr(inspection, "SIEVE_COST", 0.0)
    sieved = plan(_tx(conn), SearchCriteria(observation="mesa"), 3)
    assert sieved.route is Route.WALK and sieved.candidates, sieved
    monkeypatch.setattr(inspection, "SIEVE_COST", 1e9)  # (and no driven set: DRIVE_MAX 0)
    assert plan(_tx(conn), SearchCriteria(observation="mesa"), 3).candidates is None
    monkeypatch.setattr(inspection, "MERGE_MAX", 1)  # a short prefix starts many words
    assert route(3, name="a") is Route.WALK  # the first 3 of many come early in name order


def _plan_text(db: sqlite3.Connection, criteria: SearchCriteria, chosen: inspection.Plan) -> str:
    built = statement(criteria, chosen, 10)
    assert built is not None
    sql, args, _ = built
    rows = db.execute("EXPLAIN QUERY PLAN " + sql, args).fetchall()
    return "\n".join(str(r[3]) for r in rows)


@pytest.mark.parametrize("build", ["plain", "sqlcipher"])
def test_the_planner_keeps_the_intended_plan(
    conn: sqlite3.Connection, tmp_path: Path, build: str
) -> None:
    """The walk reads the name index in order (no sort); the name route reads each word's
    entries in order (no sort) and finds the other words at the candidate's place; a
    driven search looks the candidates up by file number - on stdlib SQLite and on
    SQLCipher's own SQLite."""
    if build == "plain":
        db = conn
        store = None
    else:
        store = SqlCipherStore.open(tmp_path / "visitors.db", DbKey.generate())
        for n, surname in enumerate(["García López", "García Lozano", "Pérez García"], 1):
            store.record_admission(entry(n, surname=surname))
        db = store.connection
    try:
        name = SearchCriteria(name="garcia", visits_from=datetime(2026, 1, 1, tzinfo=UTC))
        walk = _plan_text(db, name, inspection.Plan(Route.WALK))
        assert "USING COVERING INDEX visitors_by_name" in walk and "TEMP B-TREE" not in walk
        sieve = _plan_text(
            db, SearchCriteria(observation="mesa"), inspection.Plan(Route.WALK, candidates=(1, 2))
        )
        assert "SCAN v USING COVERING INDEX visitors_by_name" in sieve, sieve
        assert "TEMP B-TREE" not in sieve, sieve
        for criteria in (
            name,
            SearchCriteria(card=3),
            SearchCriteria(id_number="AB1234"),
            SearchCriteria(observation="mesa"),
            SearchCriteria(visits_from=datetime(2026, 1, 1, tzinfo=UTC)),
        ):
            for chosen in every_plan(_tx(db), criteria):
                if chosen.route is Route.WALK:
                    continue
                text = _plan_text(db, criteria, chosen)
                if chosen.route is Route.NAME:
                    assert "SEARCH t USING PRIMARY KEY (token=?)" in text, text
                    assert "TEMP B-TREE" not in text and "SCAN" not in text, text
                    continue
                assert "SEARCH v USING INTEGER PRIMARY KEY (rowid=?)" in text, (chosen, text)
                assert "SCAN v" not in text, (chosen, text)
        two = SearchCriteria(name="garcia lo", visits_from=datetime(2026, 1, 1, tzinfo=UTC))
        chosen = plan(_tx(db), two, 10)
        text = _plan_text(db, two, chosen)
        assert chosen.route is Route.NAME and "TEMP B-TREE" not in text, text
        assert "USING PRIMARY KEY (token=? AND search_name=?)" in text.replace(
            "SEARCH x EXISTS", "SEARCH x"
        ), text  # the other word at the candidate's place in its entries
        identity = _plan_text(
            db,
            SearchCriteria(id_number="AB1234"),
            every_plan(_tx(db), SearchCriteria(id_number="AB1234"))[1],
        )
        assert "visits_by_document" in identity
    finally:
        if store is not None:
            store.close()


def test_the_benchmark_runs_on_a_tiny_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.bench import bench_inspection

    assert (
        bench_inspection.main(["--visitors", "300", "--queries", "3", "--cache-dir", str(tmp_path)])
        == 0
    )
    out = capsys.readouterr().out
    assert ENV_VAR not in os.environ  # the bench's audit key did not outlive its run
    assert out.count("| PASS |") + out.count("| FAIL |") == 11  # every kind of query
    assert "backup (db/backup.py" in out and "restore (db/backup.py" in out
    assert "daily visitor book" in out

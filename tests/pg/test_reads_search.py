"""The inspectors' search on the shared server (db/pg/inspection.py) against the
SQLite dialect's (db/inspection.py, the in-memory store) on the same people, visits,
cards and observations: random
criteria, alone and together, give the same visitors in the same order - so a search
never returns a visitor that does not meet every criterion, nor misses one - and the
bounds on what a search opens answer ``PG_INSPECT_TOO_BROAD`` (art. 20.4).
"""

from __future__ import annotations

import random
from dataclasses import fields
from datetime import datetime, timedelta
from typing import Any

import pytest

from admission.clock import FixedClock
from admission.errors import StoreError
from admission.inspection import SearchCriteria
from db import names
from db.pg import inspection as pg_inspection
from db.pg.inspection import PgInspectionCode
from db.pg.store import PgStore as ContractStore
from tests.db.factories import T0, card_for, dni, entry
from tests.fake_store import FakeStore
from tests.pg.cluster_fixture import open_store as open_reads

SURNAMES = [
    "PEÑA NÚÑEZ",
    "PEÑALVER",
    "GARCÍA LÓPEZ",
    "GARCÍA",
    "LÓPEZ DE LA O",
    "O'NEILL",
    "ÁLVAREZ",
]
GIVEN = ["JOSÉ", "ANA", "ANA MARÍA", "JOSÉ MARÍA", "LUIS", "MARÍA", "ÍÑIGO"]
NOTES = ["Discutió en la MESA 3", "Pidió hoja de reclamaciones", "ÑANDÚ: 50% de la apuesta"]
PEOPLE = 36
DAYS = 6


def _history(stores: list[Any], seed: int) -> None:
    """The same admissions, voids and observations on every store, in the same order."""
    rnd = random.Random(seed)
    plan: list[tuple[datetime, int, str, str, str, bool]] = []
    for n in range(1, PEOPLE + 1):
        surname, given = rnd.choice(SURNAMES), rnd.choice(GIVEN)
        for _ in range(rnd.randint(1, 3)):
            at = T0 + timedelta(days=rnd.randrange(DAYS), minutes=rnd.randrange(600))
            # a document other than the identity now and then (a passport of a DNI holder)
            doc = dni(n).number if rnd.random() < 0.7 else f"PAS{rnd.randrange(40):04d}"
            plan.append((at, n, surname, given, doc, rnd.random() < 0.2))
    plan.sort()
    for at, n, surname, given, doc, refused in plan:
        kwargs: dict[str, Any] = {"surname": surname, "given_names": given, "document_number": doc}
        if refused:
            kwargs.update(card=False, verdict="DENY", reasons=("MINOR",))
        else:
            kwargs["card"] = card_for(at)
        for store in stores:
            store.record_admission(entry(n, at, **kwargs))
    for n in rnd.sample(range(1, PEOPLE + 1), 8):
        text = rnd.choice(NOTES)
        for store in stores:
            store.add_observation(n, text, "dora", T0 + timedelta(days=DAYS))
    for store in stores:
        store.void_card(3, "mal impresa", "dora", T0 + timedelta(days=DAYS))


def _criteria(rnd: random.Random) -> SearchCriteria:
    """One to three random criteria, from values that match and values that do not."""
    chosen: dict[str, Any] = {}
    for what in rnd.sample(
        ["name", "id", "card", "file", "dates", "observation"], rnd.randint(1, 3)
    ):
        if what == "name":
            words = names.words(rnd.choice(SURNAMES), rnd.choice(GIVEN))
            picked = rnd.sample(words, rnd.randint(1, min(2, len(words))))
            chosen["name"] = " ".join(w[: rnd.randint(1, len(w))].lower() for w in picked)
        elif what == "id":
            chosen["id_number"] = rnd.choice(
                [dni(rnd.randint(1, PEOPLE + 3)).number, f"PAS{rnd.randrange(45):04d}", "2345678"]
            )
        elif what == "card":
            chosen["card"] = rnd.randint(1, 90)
        elif what == "file":
            chosen["file_number"] = rnd.randint(1, PEOPLE + 2)
        elif what == "dates":
            start = T0 + timedelta(days=rnd.randrange(-1, DAYS), hours=rnd.randrange(24))
            if rnd.random() < 0.7:
                chosen["visits_from"] = start
            if rnd.random() < 0.7 or "visits_from" not in chosen:
                chosen["visits_until"] = start + timedelta(hours=rnd.randint(1, 72))
        else:
            note = rnd.choice([*NOTES, "nada de esto"])
            cut = rnd.randrange(len(note) - 2)
            piece = note[cut : cut + rnd.randint(2, 6)]
            chosen["observation"] = piece.lower() if rnd.random() < 0.5 else piece.upper()
    return SearchCriteria(**chosen)


@pytest.fixture
def both(pg_cluster: Any) -> Any:
    clock = FixedClock(T0)
    with open_reads(pg_cluster, clock) as reads:
        fake = FakeStore(clock)
        _history([fake, reads], seed=20260110)
        yield fake, reads


def test_the_same_people_are_numbered_alike(both: tuple[FakeStore, ContractStore]) -> None:
    fake, reads = both
    for n in (1, PEOPLE // 2, PEOPLE):
        assert reads.visitor(n) == fake.visitor(n)
        assert [v.document_number for v in reads.visits(n)] == [
            v.document_number for v in fake.visits(n)
        ]


def test_random_criteria_answer_as_the_fake_store(both: tuple[FakeStore, ContractStore]) -> None:
    fake, reads = both
    rnd = random.Random(7)
    answered = 0
    for _ in range(300):
        criteria = _criteria(rnd)
        limit = rnd.choice([1, 3, 50])
        expected = [v.file_number for v in fake.inspect_visitors(criteria, limit)]
        got = reads.inspect_visitors(criteria, limit)
        assert [v.file_number for v in got] == expected, criteria
        assert got == list(fake.inspect_visitors(criteria, limit))  # the whole records
        answered += bool(expected)
    assert answered > 60  # the criteria are not all misses


def test_each_criterion_alone_answers_as_the_fake_store(
    both: tuple[FakeStore, ContractStore],
) -> None:
    fake, reads = both
    singles = [
        SearchCriteria(name="garcia"),
        SearchCriteria(name="o"),  # a one-letter word: not indexed, checked on every name
        SearchCriteria(name="de la o"),
        SearchCriteria(name="maria ana"),
        SearchCriteria(name="%"),  # no word at all
        SearchCriteria(id_number=dni(5).number),
        SearchCriteria(card=3),
        SearchCriteria(file_number=7),
        SearchCriteria(visits_from=T0 + timedelta(days=2)),
        SearchCriteria(visits_until=T0 + timedelta(days=1)),
        SearchCriteria(observation="ñandú"),
        SearchCriteria(observation="MESA"),
    ]
    for criteria in singles:
        expected = [v.file_number for v in fake.inspect_visitors(criteria, 500)]
        assert [v.file_number for v in reads.inspect_visitors(criteria, 500)] == expected, criteria


def test_a_document_shown_at_a_visit_finds_its_holder(
    both: tuple[FakeStore, ContractStore],
) -> None:
    """The identity number or any document number shown (sealed on the server)."""
    fake, reads = both
    holders = {
        v.file_number: v.document_number
        for n in range(1, PEOPLE + 1)
        for v in fake.visits(n)
        if v.document_number.startswith("PAS")
    }
    assert holders
    for fn, number in holders.items():
        found = [
            v.file_number for v in reads.inspect_visitors(SearchCriteria(id_number=number), 50)
        ]
        assert fn in found
        for other in found:
            shown = {v.document_number for v in reads.visits(other)}
            assert number in shown or reads.visitor(other).identity.number == number  # type: ignore[union-attr]


def test_the_limit_keeps_the_first_by_name(both: tuple[FakeStore, ContractStore]) -> None:
    _fake, reads = both
    everyone = SearchCriteria(visits_from=T0 - timedelta(days=1))
    whole = reads.inspect_visitors(everyone, 500)
    assert len(whole) == PEOPLE
    keys = [(names.search_name(v.surname, v.given_names), v.file_number) for v in whole]
    assert keys == sorted(keys)
    assert reads.inspect_visitors(everyone, 5) == whole[:5]
    assert (
        reads.inspect_visitors(everyone, 0) == []
        and reads.inspect_visitors(SearchCriteria(), 5) == []
    )


def _refused(reads: ContractStore, criteria: SearchCriteria) -> None:
    with pytest.raises(StoreError) as caught:
        reads.inspect_visitors(criteria, 10)
    assert caught.value.code is PgInspectionCode.INSPECT_TOO_BROAD


def test_a_search_that_would_open_too_much_is_refused_with_a_code(
    both: tuple[FakeStore, ContractStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An observation alone opens a whole table, bounded by MAX_SCANNED; any search
    opens at most MAX_CANDIDATES visitors. A narrowing criterion answers again. A number
    alone is found through the identities' blind indexes at any size (the documents
    shown at visits are opened only below MAX_SCANNED)."""
    fake, reads = both
    monkeypatch.setattr(pg_inspection, "MAX_SCANNED", PEOPLE - 1)
    for criteria in (
        SearchCriteria(id_number=dni(5).number),
        SearchCriteria(id_number=dni(5).number, observation="mesa"),
    ):
        assert reads.inspect_visitors(criteria, 10) == list(fake.inspect_visitors(criteria, 10))
    assert len(reads.inspect_visitors(SearchCriteria(id_number=dni(5).number), 10)) == 1
    shown = next(  # a document whose number is not its holder's identity number
        v.document_number
        for n in range(1, PEOPLE + 1)
        for v in fake.visits(n)
        if v.document_number.startswith("PAS")
    )
    monkeypatch.setattr(pg_inspection, "MAX_SCANNED", 1)  # no sealed number is opened
    by_shown = SearchCriteria(id_number=shown)
    assert reads.inspect_visitors(by_shown, 10) == list(fake.inspect_visitors(by_shown, 10))
    assert reads.inspect_visitors(by_shown, 10)
    monkeypatch.setattr(pg_inspection, "MAX_SCANNED", PEOPLE - 1)
    day = SearchCriteria(
        id_number=dni(5).number,
        visits_from=T0 - timedelta(days=1),
        visits_until=T0 + timedelta(days=DAYS),
    )
    found = reads.inspect_visitors(day, 10)
    assert len(found) == 1 and found == list(fake.inspect_visitors(day, 10))
    monkeypatch.setattr(pg_inspection, "MAX_SCANNED", 3)
    _refused(reads, SearchCriteria(observation="mesa"))
    named = SearchCriteria(name="garcia", observation="mesa")
    assert reads.inspect_visitors(named, 50) == list(fake.inspect_visitors(named, 50))
    monkeypatch.setattr(pg_inspection, "MAX_CANDIDATES", 5)
    _refused(reads, SearchCriteria(name="o"))  # every visitor is a candidate
    _refused(reads, SearchCriteria(visits_from=T0))
    assert [v.file_number for v in reads.inspect_visitors(SearchCriteria(file_number=4), 5)] == [4]


def test_every_field_of_the_criteria_is_searched() -> None:
    """A new field of SearchCriteria must be taught to db/pg/inspection.py too."""
    assert [f.name for f in fields(SearchCriteria)] == [
        "name",
        "id_number",
        "card",
        "file_number",
        "visits_from",
        "visits_until",
        "observation",
    ]

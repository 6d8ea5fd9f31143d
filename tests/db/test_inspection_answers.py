"""The inspectors' search (art. 20.4) answers alike on every dialect: the SQLCipher file,
the in-memory SQLite dialect and the PostgreSQL server's sealed search (db/inspection.py,
db/pg/inspection.py), on the same three people, names stored with their accents.
tests/db/test_inspection.py asks the same of a demo desk, whose names come from the MRZ."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from admission.inspection import SearchCriteria
from tests.db.factories import T0, dni, entry

NOW = T0 + timedelta(minutes=5)
PEOPLE = [
    (12345678, "PEÑA NÚÑEZ", "JOSÉ"),
    (23456789, "GARCÍA LÓPEZ", "ANA"),
    (34567890, "PEÑALVER", "MARÍA"),
]


@pytest.fixture
def three(any_store: Any) -> Any:
    for number, surname, given in PEOPLE:
        any_store.record_admission(
            entry(
                number,
                NOW,
                surname=surname,
                given_names=given,
                document_number=dni(number).number,
            )
        )
    return any_store


def _find(store: Any, **criteria: Any) -> list[str]:
    return [v.surname for v in store.inspect_visitors(SearchCriteria(**criteria), 50)]


def test_a_partial_name_is_found_accents_and_case_ignored(three: Any) -> None:
    assert _find(three, name="pena") == ["PEÑA NÚÑEZ", "PEÑALVER"]
    assert _find(three, name="Peña") == ["PEÑA NÚÑEZ", "PEÑALVER"]
    assert _find(three, name="nunez jo") == ["PEÑA NÚÑEZ"]
    assert _find(three, name="garcia") == ["GARCÍA LÓPEZ"]


def test_the_identity_number_card_and_file_number_find_one_person(three: Any) -> None:
    assert _find(three, id_number=dni(23456789).number) == ["GARCÍA LÓPEZ"]
    assert _find(three, id_number="2345678") == []  # a number, not a prefix
    ana = three.inspect_visitors(SearchCriteria(name="ana"), 5)[0]
    visits = three.visits(ana.file_number)
    assert len(visits) == 1 and visits[0].card_number is not None
    assert _find(three, card=visits[0].card_number) == ["GARCÍA LÓPEZ"]
    assert _find(three, file_number=ana.file_number) == ["GARCÍA LÓPEZ"]
    card = three.card(visits[0].card_number)
    assert card is not None and card.file_number == ana.file_number


def test_a_date_range_finds_the_visits_inside_it(three: Any) -> None:
    hour = timedelta(hours=1)
    assert len(_find(three, visits_from=NOW - hour, visits_until=NOW + hour)) == 3
    assert _find(three, visits_until=NOW - timedelta(days=1)) == []
    assert _find(three, visits_from=NOW + timedelta(days=1)) == []
    assert _find(three, name="pena", visits_from=NOW - hour) == ["PEÑA NÚÑEZ", "PEÑALVER"]


def test_an_observation_text_is_found_literally(three: Any) -> None:
    ana = three.inspect_visitors(SearchCriteria(name="ana"), 5)[0]
    three.add_observation(
        ana.file_number, "Discusión en la mesa 3 (50% de la apuesta)", "dora", NOW
    )
    assert _find(three, observation="MESA 3") == ["GARCÍA LÓPEZ"]
    assert _find(three, observation="50%") == ["GARCÍA LÓPEZ"]
    assert _find(three, observation="5_%") == []  # % and _ are characters, not wildcards


@pytest.mark.parametrize(
    "hostile",
    ["%", "_", "%%", "' OR 1=1 --", "'; DROP TABLE visits; --", '"', "\\", "PEÑA%"],
)
def test_hostile_text_is_a_value_never_sql(three: Any, hostile: str) -> None:
    assert _find(three, observation=hostile) == []
    assert _find(three, name=hostile) in ([], ["PEÑA NÚÑEZ", "PEÑALVER"])  # "PEÑA%": PEÑA
    assert _find(three, name="garcia") == ["GARCÍA LÓPEZ"]  # nothing was dropped
    assert len(three.visits(1)) == 1


def test_no_criterion_reads_nothing(three: Any) -> None:
    assert _find(three) == []

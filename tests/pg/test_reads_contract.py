"""The report, data-protection and inspection reads on the shared PostgreSQL server
(db/reports.py, db/data_protection.py, db/inspection.py over the server's dialect) keep
the contract the SQLCipher and in-memory stores keep: every ``any_store`` test of
tests/db/test_reports.py and tests/db/test_data_protection.py runs here, unchanged, on a
``PgStore`` on the test cluster, and the inspection tests' assertions
(tests/db/test_inspection.py runs them on a demo desk) are reproduced on the same people.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest

from admission.clock import FixedClock
from admission.inspection import SearchCriteria
from db.audit_key import AuditKey
from db.pg.crypto import InstallationKey
from db.pg.store import PgStore
from tests.db import test_data_protection, test_reports
from tests.db.factories import T0, dni, entry
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

ContractStore = PgStore  # the reads are the store's own ports (db/file_ports.py)


@contextmanager
def open_reads(cluster: Any, clock: FixedClock) -> Iterator[ContractStore]:
    """A fresh visitor file on the cluster (its own schema), seen through the reads."""
    conninfo = schema_conninfo(cluster, fresh_schema(cluster))
    with PgStore.open(
        conninfo,
        InstallationKey.generate("test"),
        audit_key=AuditKey.generate("test"),
        create=True,
        clock=clock,
        max_connections=2,
    ) as store:
        yield store


@pytest.fixture
def pg_reads(pg_cluster: Any) -> Iterator[ContractStore]:
    with open_reads(pg_cluster, FixedClock(T0)) as reads:
        yield reads


def _cases() -> list[Any]:
    """Every test of the two modules that takes ``any_store`` (and, for some, the
    values of their own ``parametrize``)."""
    cases = []
    for module in (test_reports, test_data_protection):
        short = module.__name__.rsplit(".", 1)[1]
        for name, function in vars(module).items():
            if not name.startswith("test_") or not callable(function):
                continue
            params = list(inspect.signature(function).parameters)
            if not params or params[0] != "any_store":
                continue
            extra = params[1:]
            if not extra:
                cases.append(pytest.param(function, {}, id=f"{short}::{name}"))
                continue
            for mark in getattr(function, "pytestmark", []):
                if mark.name == "parametrize" and mark.args[0] == extra[0] and len(extra) == 1:
                    for i, value in enumerate(mark.args[1]):
                        cases.append(
                            pytest.param(function, {extra[0]: value}, id=f"{short}::{name}[{i}]")
                        )
    return cases


CASES = _cases()


def test_every_store_test_of_the_two_modules_is_taken() -> None:
    assert len(CASES) >= 25  # 15 report tests (one twice) and 10 data-protection tests


@pytest.mark.parametrize(("function", "kwargs"), CASES)
def test_the_store_contract_holds_on_the_server(
    pg_reads: ContractStore, function: Callable[..., None], kwargs: dict[str, Any]
) -> None:
    function(pg_reads, **kwargs)


# -- tests/db/test_inspection.py's assertions, on the same three people --------------------

NOW = T0 + timedelta(minutes=5)
PEOPLE = [
    (12345678, "PEÑA NÚÑEZ", "JOSÉ"),
    (23456789, "GARCÍA LÓPEZ", "ANA"),
    (34567890, "PEÑALVER", "MARÍA"),
]


@pytest.fixture
def three(pg_reads: ContractStore) -> ContractStore:
    for number, surname, given in PEOPLE:
        pg_reads.record_admission(
            entry(
                number,
                NOW,
                surname=surname,
                given_names=given,
                document_number=dni(number).number,
            )
        )
    return pg_reads


def _find(reads: ContractStore, **criteria: Any) -> list[str]:
    return [v.surname for v in reads.inspect_visitors(SearchCriteria(**criteria), 50)]


def test_a_partial_name_is_found_accents_and_case_ignored(three: ContractStore) -> None:
    assert _find(three, name="pena") == ["PEÑA NÚÑEZ", "PEÑALVER"]
    assert _find(three, name="Peña") == ["PEÑA NÚÑEZ", "PEÑALVER"]
    assert _find(three, name="nunez jo") == ["PEÑA NÚÑEZ"]
    assert _find(three, name="garcia") == ["GARCÍA LÓPEZ"]


def test_the_identity_number_card_and_file_number_find_one_person(three: ContractStore) -> None:
    assert _find(three, id_number=dni(23456789).number) == ["GARCÍA LÓPEZ"]
    assert _find(three, id_number="2345678") == []  # a number, not a prefix
    ana = three.inspect_visitors(SearchCriteria(name="ana"), 5)[0]
    visits = three.visits(ana.file_number)
    assert len(visits) == 1 and visits[0].card_number is not None
    assert _find(three, card=visits[0].card_number) == ["GARCÍA LÓPEZ"]
    assert _find(three, file_number=ana.file_number) == ["GARCÍA LÓPEZ"]
    card = three.card(visits[0].card_number)
    assert card is not None and card.file_number == ana.file_number


def test_a_date_range_finds_the_visits_inside_it(three: ContractStore) -> None:
    hour = timedelta(hours=1)
    assert len(_find(three, visits_from=NOW - hour, visits_until=NOW + hour)) == 3
    assert _find(three, visits_until=NOW - timedelta(days=1)) == []
    assert _find(three, visits_from=NOW + timedelta(days=1)) == []
    assert _find(three, name="pena", visits_from=NOW - hour) == ["PEÑA NÚÑEZ", "PEÑALVER"]


def test_an_observation_text_is_found_literally(three: ContractStore) -> None:
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
def test_hostile_text_is_a_value_never_sql(three: ContractStore, hostile: str) -> None:
    assert _find(three, observation=hostile) == []
    assert _find(three, name=hostile) in ([], ["PEÑA NÚÑEZ", "PEÑALVER"])
    assert _find(three, name="garcia") == ["GARCÍA LÓPEZ"]  # nothing was dropped
    assert len(three.visits(1)) == 1


def test_no_criterion_reads_nothing(three: ContractStore) -> None:
    assert _find(three) == []

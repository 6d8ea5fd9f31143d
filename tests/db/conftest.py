"""Fixtures: the encrypted store on a temp file, and ``any_store`` for the contract tests:
every test written against it runs on the SQLCipher file, the in-memory SQLite dialect
(the fake) and the PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from admission.clock import FixedClock
from db.fake import FakeStore
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.db.factories import T0


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def key() -> DbKey:
    return DbKey.generate(source="test")


@pytest.fixture
def store(tmp_path: Path, key: DbKey, clock: FixedClock) -> Iterator[SqlCipherStore]:
    with SqlCipherStore.open(tmp_path / "visitors.db", key, clock=clock) as opened:
        yield opened


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "any_store" in metafunc.fixturenames:
        metafunc.parametrize("any_store", ["sqlcipher", "fake", "postgresql"], indirect=True)


@pytest.fixture
def any_store(
    request: pytest.FixtureRequest, tmp_path: Path, key: DbKey, clock: FixedClock
) -> Iterator[Any]:
    """The real stores and the fake: the same contract must hold for each."""
    if request.param == "fake":
        yield FakeStore(clock)
        return
    if request.param == "postgresql":
        from tests.pg.cluster_fixture import open_store

        with open_store(request.getfixturevalue("pg_cluster"), clock) as opened:
            yield opened
        return
    with SqlCipherStore.open(tmp_path / "visitors.db", key, clock=clock) as opened:
        yield opened

"""Fixtures: the encrypted store on a temp file, and ``any_store`` for the contract tests:
every test written against it runs on the SQLCipher file, the in-memory SQLite dialect
(the fake) and the PostgreSQL server."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from admission.clock import FixedClock
from db.keys import DbKey
from db.store import SqlCipherStore
from tests.db.factories import T0
from tests.fake_store import FakeStore

SCHEMA = pytest.StashKey[str]()  # the server's schema of a test's any_store


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


DIALECTS = ("sqlcipher", "fake", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "any_store" in metafunc.fixturenames:
        known = {
            m.args[0]: m.kwargs["reason"] for m in metafunc.definition.iter_markers("differs_on")
        }
        params = [
            pytest.param(d, marks=pytest.mark.xfail(strict=True, reason=known[d]))
            if d in known
            else d
            for d in DIALECTS
        ]
        metafunc.parametrize("any_store", params, indirect=True)


@pytest.fixture
def any_store(
    request: pytest.FixtureRequest, tmp_path: Path, key: DbKey, clock: FixedClock
) -> Iterator[Any]:
    """The real stores and the fake: the same contract must hold for each."""
    if request.param == "fake":
        yield FakeStore(clock)
        return
    if request.param == "postgresql":
        from tests.pg.cluster_fixture import fresh_schema, open_store

        cluster = request.getfixturevalue("pg_cluster")
        schema = request.node.stash[SCHEMA] = fresh_schema(cluster)
        with open_store(cluster, clock, schema) as opened:
            yield opened
        return
    with SqlCipherStore.open(tmp_path / "visitors.db", key, clock=clock) as opened:
        yield opened


Behind = Callable[..., None]


@pytest.fixture
def behind(request: pytest.FixtureRequest, any_store: Any) -> Behind:
    """``behind(sql, params)`` rewrites any_store's file behind the program's back, its
    append-only triggers out of the way: with the file key on SQLite (the triggers
    dropped), as the server's superuser on PostgreSQL (no trigger firing)."""
    if SCHEMA in request.node.stash:
        from tests.pg.cluster_fixture import superuser_sql

        cluster, schema = request.getfixturevalue("pg_cluster"), request.node.stash[SCHEMA]
        return lambda statement, params=(): superuser_sql(cluster, schema, statement, params)
    conn = any_store.connection
    conn.execute("DROP TRIGGER IF EXISTS audit_no_update")
    conn.execute("DROP TRIGGER IF EXISTS audit_no_delete")

    def rewrite(statement: str, params: Sequence[Any] = ()) -> None:
        conn.execute(statement, params)

    return rewrite

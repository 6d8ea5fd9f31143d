"""Fixtures: the encrypted store on a temp file, the fake, and both for contract tests."""

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


@pytest.fixture(params=["sqlcipher", "fake"])
def any_store(
    request: pytest.FixtureRequest, tmp_path: Path, key: DbKey, clock: FixedClock
) -> Iterator[Any]:
    """The real store and the fake: the same contract must hold for both."""
    if request.param == "fake":
        yield FakeStore(clock)
        return
    with SqlCipherStore.open(tmp_path / "visitors.db", key, clock=clock) as opened:
        yield opened

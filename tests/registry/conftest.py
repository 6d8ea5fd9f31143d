"""Shared fixtures: an encrypted visitor file holding the replica, a settable clock."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.ports import Clock
from db.keys import DbKey
from db.registry_replica import ReplicaRegistry
from db.store import SqlCipherStore

T0 = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)
KEY = DbKey.from_raw(b"\xab" * 32)


def open_store(path: Path, clock: Clock) -> SqlCipherStore:
    """The encrypted visitor file at ``path`` (made on first use), as a desk opens it."""
    return SqlCipherStore.open(path, KEY, clock=clock)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def store(tmp_path: Path, clock: FixedClock) -> Iterator[SqlCipherStore]:
    s = open_store(tmp_path / "visitors.db", clock)
    yield s
    s.close()


@pytest.fixture
def conn(store: SqlCipherStore) -> sqlite3.Connection:
    """The file's one connection, for a test that tampers with it beside the replica."""
    return store.connection


@pytest.fixture
def replica(store: SqlCipherStore, clock: FixedClock) -> ReplicaRegistry:
    return ReplicaRegistry(store, clock)

"""Shared fixtures: an encrypted store with the registry schema, a settable clock."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlcipher3

from admission.clock import FixedClock
from db.registry_replica import ReplicaRegistry

MIGRATION = Path(__file__).resolve().parents[2] / "db" / "migrations" / "0002_registry.sql"
T0 = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)


def open_encrypted(path: Path) -> sqlite3.Connection:
    conn: sqlite3.Connection = sqlcipher3.connect(
        str(path), isolation_level=None, check_same_thread=False
    )
    conn.execute("PRAGMA key = \"x'" + "ab" * 32 + "'\"")
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute("PRAGMA journal_mode = WAL")
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name='registry_snapshot'").fetchone():
        conn.executescript("BEGIN;\n" + MIGRATION.read_text("utf-8") + "\nCOMMIT;")
    return conn


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    c = open_encrypted(tmp_path / "visitors.db")
    yield c
    c.close()


@pytest.fixture
def replica(conn: sqlite3.Connection, clock: FixedClock) -> ReplicaRegistry:
    return ReplicaRegistry(conn, clock)

"""Migration 0002 (STYLE.md rule 17): migrated registry schema == declared, old files upgrade."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

from admission.clock import FixedClock
from admission.identity import IdentityKey, IdKind
from admission.registry.port import RegistryStatus
from db.migrate import migrate
from db.registry_replica import ReplicaRegistry
from tests.db.plain_store import open_plain
from tests.db.schema_dump import schema_dump
from tests.registry.conftest import T0

EXPECTED = Path(__file__).with_name("expected_registry_schema.sql")


def registry_part(conn: sqlite3.Connection) -> str:
    others = set(schema_dump(conn, ("registry_",)).splitlines())
    return "".join(line + "\n" for line in schema_dump(conn).splitlines() if line not in others)


def test_migrated_registry_schema_is_the_declared_one() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    migrate(conn)
    assert registry_part(conn) == EXPECTED.read_text("utf-8")


def test_a_file_from_before_the_registry_upgrades_and_works(tmp_path: Path) -> None:
    conn = sqlite3.connect(str(tmp_path / "old.db"), isolation_level=None)
    migrate(conn, target=1)
    assert "registry_snapshot" not in schema_dump(conn)
    applied = migrate(conn)
    assert 2 in applied
    conn.close()
    clock = FixedClock(T0 + timedelta(hours=1))
    with open_plain(tmp_path / "old.db", clock=clock) as store:
        replica = ReplicaRegistry(store, clock)
        replica.import_lines([b"12345678Z\n"])
        who = IdentityKey.of(IdKind.DNI, "ESP", "12345678Z")
        assert replica.check(who).status is RegistryStatus.LISTED

"""Numbered migrations (STYLE.md rule 17): migrated schema == declared schema, old data
survives an upgrade, a late reserved number is still applied, a failure rolls back."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from admission.errors import StoreError
from admission.inspection import SearchCriteria
from db.connection import configure, connect_encrypted
from db.keys import DbKey
from db.migrate import MIGRATIONS_DIR, available, migrate
from db.store import SqlCipherStore
from tests.db.factories import dni
from tests.db.schema_dump import OTHER_OWNERS, schema_dump

EXPECTED = Path(__file__).with_name("expected_schema.sql")
REGENERATE = ".venv/bin/python -m tests.db.schema_dump --dump-schema > tests/db/expected_schema.sql"


def test_numbering_leaves_0002_to_0009_to_the_registry() -> None:
    mine = [m.version for m in available() if not 2 <= m.version <= 9]
    assert mine[0] == 1 and all(v >= 10 for v in mine[1:])
    assert [m.version for m in available()] == sorted(m.version for m in available())


def test_migrating_from_empty_gives_the_declared_schema(tmp_path: Path) -> None:
    with SqlCipherStore.open(tmp_path / "v.db", DbKey.generate()) as store:
        dumped = schema_dump(store.connection, OTHER_OWNERS)
        assert store.connection.execute("PRAGMA user_version").fetchone()[0] == max(
            m.version for m in available()
        )
    assert dumped == EXPECTED.read_text("utf-8"), f"schema changed: regenerate with {REGENERATE}"


def test_migrator_equals_plain_concatenation() -> None:
    """Every file applied, none twice, whatever owner: same as running them all in order."""
    migrated = sqlite3.connect(":memory:", isolation_level=None)
    migrate(migrated)
    concatenated = sqlite3.connect(":memory:", isolation_level=None)
    concatenated.executescript("\n;\n".join(m.sql for m in available()))
    concatenated.execute("DELETE FROM schema_migrations")
    assert schema_dump(migrated) == schema_dump(concatenated)
    assert migrate(migrated) == []  # idempotent


def test_upgrade_keeps_old_data(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    key = DbKey.generate()
    conn = connect_encrypted(path, key, create=True)
    migrate(conn, target=1)  # a file as the first release left it
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.executescript(f"""
        BEGIN;
        INSERT INTO visitors VALUES (1, '{dni(1).text}', 'Muñoz', 'Íñigo', 'MUNOZ, INIGO',
            '1970-01-01', 'ESP', '2026-01-01T20:00:00.000000Z', '2026-01-01T20:00:00.000000Z');
        INSERT INTO visitor_tokens VALUES ('MUNOZ', 1), ('INIGO', 1);
        INSERT INTO visits VALUES (1, 1, '2026-01-01T20:00:00.000000Z', 'desk-1', 'op', 'ADMIT',
            '[]', 'DNI', 'X1', 'NOT_LISTED', 'REPLICA', 'v1', 5, '');
        INSERT INTO cards VALUES (1, 1, 1, 'STANDARD', 500, '2026-01-01T20:00:00.000000Z',
            '2026-01-01', '2026-01-01', 'PRINTED', 0, 0, '', 1, '');
        UPDATE counters SET next = 2 WHERE name = 'card';
        COMMIT;""")
    conn.close()
    with SqlCipherStore.open(path, key) as store:
        assert schema_dump(store.connection, OTHER_OWNERS) == EXPECTED.read_text("utf-8")
        visitor = store.find_visitor(dni(1))
        assert visitor is not None and visitor.given_names == "Íñigo"
        assert visitor.first_seen == visitor.last_seen == datetime(2026, 1, 1, 20, tzinfo=UTC)
        assert [v.file_number for v in store.search_visitors("munoz inigo")] == [1]
        # 0051 gave the old name words the visitor's sort form: the inspectors' search
        # reads them in name order
        assert store.connection.execute(
            "SELECT DISTINCT search_name FROM visitor_tokens"
        ).fetchall() == [("MUNOZ, INIGO",)]
        found = store.inspect_visitors(SearchCriteria(name="íñigo mu"), 10)
        assert [v.file_number for v in found] == [1]
        assert store.visits(1)[0].card_number == 1
        assert store.card(1).print_count == 1  # type: ignore[union-attr]
        applied = [
            r[0]
            for r in store.connection.execute(
                "SELECT version FROM schema_migrations ORDER BY version"
            )
        ]
        assert applied == [m.version for m in available()]


def _copy_migrations(tmp_path: Path) -> Path:
    directory = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, directory)
    return directory


def test_reserved_number_added_later_is_still_applied(tmp_path: Path) -> None:
    directory = _copy_migrations(tmp_path)
    conn = sqlite3.connect(":memory:", isolation_level=None)
    migrate(conn, directory=directory)
    top = conn.execute("PRAGMA user_version").fetchone()[0]
    (directory / "0009_late_registry.sql").write_text("CREATE TABLE registry_late (x INTEGER);")
    assert migrate(conn, directory=directory) == [9]
    assert conn.execute("SELECT count(*) FROM registry_late").fetchone()[0] == 0
    assert conn.execute("PRAGMA user_version").fetchone()[0] == top


def test_failed_migration_rolls_back_whole(
    tmp_path: Path,
) -> None:
    directory = _copy_migrations(tmp_path)
    path = tmp_path / "v.db"
    key = DbKey.generate()
    SqlCipherStore.open(path, key).close()
    (directory / "0099_broken.sql").write_text(
        "CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);"
    )
    conn = connect_encrypted(path, key, create=False)
    before = conn.execute("PRAGMA user_version").fetchone()[0]
    with pytest.raises(StoreError) as err:
        migrate(conn, directory=directory)
    assert err.value.code == "MIGRATION_FAILED"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == before
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'half_done'").fetchone() is None
    conn.close()
    configure(connect_encrypted(path, key, create=False))  # still opens normally

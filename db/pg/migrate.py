"""Numbered schema migrations of the visitor file on a PostgreSQL server.

``db/pg/migrations/NNNN_name.sql`` files are applied in numeric order, each in its own
transaction together with its ``schema_migrations`` row, under a transaction-level
advisory lock: two desks starting at once apply each file once. A database holding a
migration this program does not know (a newer program migrated it) is refused before
anything is written (``PG_SCHEMA_NEWER``), and so is one whose applied file differs
from ours (``PG_MIGRATION_CHANGED``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg

from admission.errors import StoreError
from db.migrate import Migration, available
from db.pg.codes import PgStoreCode

__all__ = ["MIGRATIONS_DIR", "applied", "check_known", "known", "migrate"]

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_LOCK = 0x61646D6973_01  # pg_advisory_xact_lock key of the migrations ("admis", 1)
_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "version integer PRIMARY KEY, name text NOT NULL, sha256 text NOT NULL, "
    "applied_at timestamptz NOT NULL DEFAULT now())"
)


def known(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """Every migration file this program carries, in numeric order."""
    return available(directory)


def applied(conn: psycopg.Connection[Any]) -> dict[int, str]:
    """version -> sha256 of the migrations applied (empty: no schema yet). Reads only."""
    found = conn.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
        "AND table_name = 'schema_migrations'"
    ).fetchone()
    if found is None:
        return {}
    rows = conn.execute("SELECT version, sha256 FROM schema_migrations").fetchall()
    return {int(version): str(sha) for version, sha in rows}


def check_known(done: dict[int, str], migrations: list[Migration]) -> None:
    """Refuse a schema from a newer program, or one whose applied files are not ours."""
    ours = {m.version: m.sha256 for m in migrations}
    newer = sorted(v for v in done if v not in ours)
    if newer:
        raise StoreError(
            f"the database's schema has migration {newer[-1]:04d}, which this program "
            "does not know: a newer version of the program uses it",
            code=PgStoreCode.SCHEMA_NEWER,
        )
    changed = sorted(v for v, sha in done.items() if ours[v] != sha)
    if changed:
        raise StoreError(
            f"migration {changed[0]:04d} applied to the database differs from this program's",
            code=PgStoreCode.MIGRATION_CHANGED,
        )


def migrate(conn: psycopg.Connection[Any], migrations: list[Migration] | None = None) -> list[int]:
    """Apply the pending migrations (``conn`` in autocommit mode); their numbers."""
    migrations = known() if migrations is None else migrations
    done = applied(conn)
    check_known(done, migrations)
    if all(m.version in done for m in migrations):
        return []  # nothing to write (a desk without the right to create tables opens)
    newly: list[int] = []
    for migration in migrations:
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
                if not applied(conn):
                    conn.execute(_TABLE)
                done = applied(conn)
                check_known(done, migrations)
                if migration.version in done:
                    continue
                conn.execute(migration.sql.encode("utf-8"))
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, sha256) VALUES (%s, %s, %s)",
                    (migration.version, migration.name, migration.sha256),
                )
        except psycopg.Error as exc:
            raise StoreError(
                f"migration {migration.version:04d} failed: {type(exc).__name__}",
                code=PgStoreCode.MIGRATION_FAILED,
            ) from exc
        newly.append(migration.version)
    return newly

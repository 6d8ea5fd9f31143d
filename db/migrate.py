"""Numbered schema migrations (STYLE.md rule 17): ``db/migrations/NNNN_name.sql``, each
in one transaction with its ``schema_migrations`` row and ``PRAGMA user_version`` (the
highest applied). 0002-0009 are the RIAJ replica's and may come after 0010 shipped, so
a file is applied when missing from ``schema_migrations``, not by ``user_version``.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from admission.errors import StoreError, StoreErrorCode

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.sql.encode("utf-8")).hexdigest()


def available(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """Every migration file, in numeric order."""
    named = [(_NAME.match(path.name), path) for path in sorted(directory.iterdir())]
    found = [Migration(int(m[1]), m[2], path.read_text("utf-8")) for m, path in named if m]
    if len({m.version for m in found}) != len(found):
        raise StoreError(
            "two migration files share a number", code=StoreErrorCode.MIGRATION_CONFLICT
        )
    return found


def migrate(
    conn: sqlite3.Connection, *, target: int | None = None, directory: Path = MIGRATIONS_DIR
) -> list[int]:
    """Apply the pending migrations up to ``target`` (all by default); their numbers.
    ``conn`` must be in autocommit mode (``isolation_level=None``)."""
    done: set[int] = set()
    if conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone():
        done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    known = available(directory)
    unknown = sorted(done - {m.version for m in known})
    if unknown:
        # a newer desk migrated this file: an older one must not write to a schema it
        # does not know (nor "fill in" what it thinks is missing) - refused as it is
        raise StoreError(
            f"the visitor file has migration {unknown[-1]:04d}, which this program does not "
            "know: a newer version of the program wrote it",
            code=StoreErrorCode.SCHEMA_NEWER,
        )
    newly: list[int] = []
    for migration in known:
        if migration.version in done or (target is not None and migration.version > target):
            continue
        _apply(conn, migration)
        newly.append(migration.version)
    return newly


def _apply(conn: sqlite3.Connection, migration: Migration) -> None:
    user_version = max(conn.execute("PRAGMA user_version").fetchone()[0], migration.version)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    record = (
        "INSERT INTO schema_migrations (version, name, sha256, applied_at) VALUES "
        f"({migration.version}, '{migration.name}', '{migration.sha256}', '{stamp}');"
    )
    # executescript() commits any open transaction first, so BEGIN goes inside the script.
    script = (
        f"BEGIN IMMEDIATE;\n{migration.sql}\n;\n{record}\n"
        f"PRAGMA user_version = {user_version};\nCOMMIT;"
    )
    try:
        conn.executescript(script)
    except Exception as exc:  # both sqlite3 and sqlcipher3 error classes
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise StoreError(
            f"migration {migration.version:04d} failed: {exc}", code=StoreErrorCode.MIGRATION_FAILED
        ) from exc

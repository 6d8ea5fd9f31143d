"""The visitor file's schema as text, for the migration tests' expected schema:
``python -m tests.db.schema_dump --dump-schema > tests/db/expected_schema.sql``."""

from __future__ import annotations

import sqlite3
import sys

from db.migrate import migrate

# Objects of the RIAJ replica (migrations 0002-0009) are checked by the registry's tests.
OTHER_OWNERS = ("registry_",)


def schema_dump(conn: sqlite3.Connection, exclude: tuple[str, ...] = ()) -> str:
    """The schema as sorted, whitespace-normalised statements (order of creation ignored),
    leaving out objects whose name or table starts with one of ``exclude``."""
    rows = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL "
        "AND name NOT LIKE 'sqlite_%' ORDER BY type, name"
    ).fetchall()
    statements = [
        " ".join(word for line in sql.splitlines() for word in line.split("--", 1)[0].split()) + ";"
        for _, name, table, sql in rows
        if not (name.startswith(exclude) or table.startswith(exclude))
    ]
    return "\n".join(statements) + "\n"


def main(argv: list[str]) -> int:
    if argv != ["--dump-schema"]:
        print("usage: python -m tests.db.schema_dump --dump-schema", file=sys.stderr)
        return 2
    conn = sqlite3.connect(":memory:", isolation_level=None)
    migrate(conn)
    sys.stdout.write(schema_dump(conn, OTHER_OWNERS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

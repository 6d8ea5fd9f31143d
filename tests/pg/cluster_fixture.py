"""The throwaway cluster as a session fixture any test folder can register (the
contract tests of tests/db run on the PostgreSQL store too), and a fresh schema per
test: each store starts on an empty visitor file.

    from tests.pg.cluster_fixture import pg_cluster  # noqa: F401  (registers it)
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

TOOLS = Path(__file__).resolve().parents[2] / "tools"
DESKS = ("desk1", "desk2")


def load_script(name: str) -> ModuleType:
    """tools/ is scripts, not a package: load ``tools/<name>.py`` from its file once. The
    cluster's own tools import ``pg_cluster`` from ``sys.modules``: it is loaded first."""
    if name != "pg_cluster":
        load_script("pg_cluster")
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


def load_tool() -> ModuleType:
    return load_script("pg_cluster")


def load_replication() -> ModuleType:
    """A primary and its synchronous standby (tools/pg_replication.py)."""
    return load_script("pg_replication")


def load_pitr() -> ModuleType:
    """WAL archiving and a restore to an instant (tools/pg_pitr.py)."""
    return load_script("pg_pitr")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """One throwaway TLS cluster for the session; skipped without PostgreSQL."""
    tool = load_tool()
    if tool.find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    cluster = tool.PgCluster(Path(tempfile.mkdtemp(prefix="admission-pg-")), desks=DESKS)
    try:
        cluster.start()
    except BaseException:
        cluster.stop()
        raise
    try:
        yield cluster
    finally:
        cluster.stop()


def fresh_schema(cluster: Any, *, owner: str = "desk1", others: Sequence[str] = ()) -> str:
    """A new empty schema owned by desk ``owner``; ``others`` may use what it creates."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
        conn.execute(
            sql.SQL("CREATE SCHEMA {} AUTHORIZATION {}").format(
                sql.Identifier(name), sql.Identifier(owner)
            )
        )
        for desk in others:
            ident = (sql.Identifier(name), sql.Identifier(desk))
            conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(*ident))
            for kind in ("TABLES", "SEQUENCES"):
                conn.execute(
                    sql.SQL(
                        "ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {} "
                        f"GRANT ALL ON {kind} TO {{}}"
                    ).format(sql.Identifier(owner), *ident)
                )
    return name


def schema_conninfo(cluster: Any, schema: str, desk: str = "desk1") -> str:
    """The desk's TLS connection string, its tables looked up in ``schema``."""
    return str(make_conninfo(cluster.desk_conninfo(desk), options=f"-c search_path={schema}"))


@contextmanager
def open_store(cluster: Any, clock: Any, schema: str | None = None) -> Iterator[Any]:
    """A PgStore on a fresh visitor file of the cluster (its own schema, or ``schema``
    made by fresh_schema), desk1's."""
    from db.audit_key import AuditKey
    from db.pg.crypto import InstallationKey
    from db.pg.store import PgStore

    with PgStore.open(
        schema_conninfo(cluster, schema or fresh_schema(cluster)),
        InstallationKey.generate("test"),
        audit_key=AuditKey.generate("test"),
        create=True,
        clock=clock,
        max_connections=2,
    ) as store:
        yield store


def superuser_sql(cluster: Any, schema: str, statement: str, params: Sequence[Any] = ()) -> None:
    """One statement as the server's superuser in ``schema``, no trigger firing (a
    rewrite behind the program's back); ``?`` placeholders as the program writes them."""
    with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(schema)))
        conn.execute("SET session_replication_role = replica")
        conn.execute(statement.replace("?", "%s").encode(), params)


__all__ = [
    "DESKS",
    "fresh_schema",
    "load_pitr",
    "load_replication",
    "load_script",
    "load_tool",
    "open_store",
    "pg_cluster",
    "schema_conninfo",
    "superuser_sql",
]

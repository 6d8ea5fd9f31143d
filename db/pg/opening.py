"""Opening the visitor file on the server (:meth:`db.pg.store.PgStore.open`): the
checks that write nothing before the database is known to be ours and readable, the
pending migrations (``db/pg/migrations/NNNN_name.sql``) by a login that may run them, the
file's identity and first data key made once, and the key ring from the wrapped keys."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path
from typing import Any

import psycopg

from admission.errors import StoreError
from db import chain
from db.audit_chain import AuditChainCode
from db.audit_key import AuditKey
from db.keys import DbKey
from db.migrate import Migration, available
from db.pg import roles as pg_roles
from db.pg.codes import PgStoreCode
from db.pg.crypto import InstallationKey, KeyRing, WrappedKey
from db.pg.tx import LOCK_HEAD, PgTx

log = logging.getLogger("admission.db.pg")
Conn = psycopg.Connection[Any]
Key = InstallationKey | DbKey
MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_LOCK = 0x61646D6973_01  # pg_advisory_xact_lock key of the migrations ("admis", 1)
_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "version integer PRIMARY KEY, name text NOT NULL, sha256 text NOT NULL, "
    "applied_at timestamptz NOT NULL DEFAULT now())"
)


def prepare(
    conn: Conn, key: Key, expected_id: str | None, create: bool, audit_key: AuditKey
) -> tuple[KeyRing, str]:
    """The file's key ring and database id (see the module docstring)."""
    migrations = available(MIGRATIONS_DIR)
    done = _applied(conn)
    _check_known(done, migrations)
    meta = _meta(conn) if done else None
    if meta is None:
        if not create:
            raise StoreError("the database holds no visitor file", code=PgStoreCode.NO_VISITOR_FILE)
        _migrate(conn, migrations, done)
        return _initialise(conn, key, expected_id, audit_key)
    ring = _load(conn, key, meta, expected_id, audit_key)
    _migrate(conn, migrations, done)
    return ring, meta


def _load(
    conn: Conn, key: Key, database_id: str, expected_id: str | None, audit_key: AuditKey
) -> KeyRing:
    """The ring of the file, once it is the one this desk is configured for and its chain's
    ends verify under ``audit_key`` (db/chain.py)."""
    if expected_id is not None and expected_id != database_id:
        raise StoreError(
            "the server's database is not the visitor file this desk is configured for",
            code=PgStoreCode.DATABASE_OTHER,
        )
    rows = conn.execute(
        "SELECT version, key_tag, wrapping_key_id, blob FROM data_keys ORDER BY version"
    ).fetchall()
    wrapped = [WrappedKey(int(v), int(t), str(w), bytes(b)) for v, t, w, b in rows]
    ring = KeyRing.load(_installation(key, database_id), database_id, wrapped)
    ends = chain.keyed_ends(PgTx(conn))
    if ends and not any(chain.signed_by(audit_key, row) for row in ends):
        raise StoreError(
            "the audit key does not match this file's chain", code=AuditChainCode.AUDIT_KEY_WRONG
        )
    return ring


def _has_table(conn: Conn, name: str) -> bool:
    found = conn.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
        "AND table_name = %s",
        (name,),
    ).fetchone()
    return found is not None


def _applied(conn: Conn) -> dict[int, str]:
    """version -> sha256 of the migrations applied (empty: no schema yet). Reads only."""
    if not _has_table(conn, "schema_migrations"):
        return {}
    rows = conn.execute("SELECT version, sha256 FROM schema_migrations").fetchall()
    return {int(version): str(sha) for version, sha in rows}


def _check_known(done: dict[int, str], migrations: list[Migration]) -> None:
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


def _migrate(conn: Conn, migrations: list[Migration], done: dict[int, str]) -> None:
    """The pending migrations, by a login that may run them (else ``PG_SCHEMA_OLDER``
    before any write, db/pg/roles.py), each in a transaction under an advisory lock: two
    desks starting at once apply each file once. New tables get their groups' rights."""
    if all(m.version in done for m in migrations):
        return
    names = pg_roles.take_owner(conn)
    newly = False
    for migration in migrations:
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
                if not _applied(conn):
                    conn.execute(_TABLE)
                done = _applied(conn)
                _check_known(done, migrations)
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
        newly = True
    if newly and names is not None:
        schema = conn.execute("SELECT current_schema()").fetchone()
        assert schema is not None
        pg_roles.apply_grants(conn, str(schema[0]), names)


def _meta(conn: Conn) -> str | None:
    """The database's id, None when the schema exists but the file was never made."""
    if not _has_table(conn, "database_meta"):
        return None
    row = conn.execute("SELECT database_id FROM database_meta").fetchone()
    return None if row is None else str(row[0])


def _installation(key: Key, database_id: str) -> InstallationKey:
    if isinstance(key, InstallationKey):
        return key
    return InstallationKey.from_db_key(key, database_id=database_id)


def _initialise(
    conn: Conn, key: Key, expected_id: str | None, audit_key: AuditKey
) -> tuple[KeyRing, str]:
    """The file's identity and first data key, once (another desk may race us: the head
    lock orders us, and the second loads what the first made)."""
    with conn.transaction():
        conn.execute(LOCK_HEAD)
        existing = _meta(conn)
        if existing is not None:
            return _load(conn, key, existing, expected_id, audit_key), existing
        database_id = expected_id or uuid.uuid4().hex
        ring, record = KeyRing.create(_installation(key, database_id), database_id)
        conn.execute("INSERT INTO database_meta (database_id) VALUES (%s)", (database_id,))
        conn.execute(
            "INSERT INTO data_keys (version, key_tag, wrapping_key_id, blob) "
            "VALUES (%s, %s, %s, %s)",
            (record.version, record.key_tag, record.wrapping_key_id, record.blob),
        )
    log.info("visitor file created on the server (database %s)", database_id[:8])
    return ring, database_id

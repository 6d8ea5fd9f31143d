"""Opening the visitor file on the server (:meth:`db.pg.store.PgStore.open`): the
checks that write nothing before the database is known to be ours and readable, the
pending migrations by a login that may run them, the file's identity and first data
key made once, and the key ring loaded from the wrapped data keys."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import psycopg

from admission.errors import StoreError
from db import chain
from db.audit_chain import AuditChainCode
from db.audit_key import AuditKey
from db.keys import DbKey
from db.pg import migrate as pg_migrate
from db.pg import roles as pg_roles
from db.pg.codes import PgStoreCode
from db.pg.crypto import InstallationKey, KeyRing, WrappedKey
from db.pg.tx import LOCK_HEAD, PgTx

log = logging.getLogger("admission.db.pg")
Conn = psycopg.Connection[Any]


def prepare(
    conn: Conn,
    key: InstallationKey | DbKey,
    expected_id: str | None,
    create: bool,
    audit_key: AuditKey,
) -> tuple[KeyRing, str]:
    """Every check of :meth:`PgStore.open`, in the order that writes nothing before the
    database is known to be ours and readable; then the pending migrations."""
    migrations = pg_migrate.known()
    done = pg_migrate.applied(conn)
    pg_migrate.check_known(done, migrations)
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
    conn: Conn,
    key: InstallationKey | DbKey,
    database_id: str,
    expected_id: str | None,
    audit_key: AuditKey,
) -> KeyRing:
    """The ring of the file made in ``database_id``, once it is known to be the one this
    desk is configured for and its chain to be under ``audit_key``."""
    if expected_id is not None and expected_id != database_id:
        raise StoreError(
            "the server's database is not the visitor file this desk is configured for",
            code=PgStoreCode.DATABASE_OTHER,
        )
    ring = KeyRing.load(_installation(key, database_id), database_id, _wrapped_keys(conn))
    _check_audit_key(conn, audit_key)
    return ring


def _migrate(conn: Conn, migrations: list[Any], done: dict[int, str]) -> None:
    """The pending migrations, by a login that may run them (db/pg/roles.py: the
    schema's owner, or a member of its owner group acting as it); any other login is
    refused (``PG_SCHEMA_OLDER``) before anything is written. New tables get their
    groups' rights in the same connection."""
    if all(m.version in done for m in migrations):
        return
    names = pg_roles.take_owner(conn)
    newly = pg_migrate.migrate(conn, migrations)
    if newly and names is not None:
        schema = conn.execute("SELECT current_schema()").fetchone()
        assert schema is not None
        pg_roles.apply_grants(conn, str(schema[0]), names)


def _meta(conn: Conn) -> str | None:
    """The database's id, None when the schema exists but the file was never made."""
    exists = conn.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
        "AND table_name = 'database_meta'"
    ).fetchone()
    if exists is None:
        return None
    row = conn.execute("SELECT database_id FROM database_meta").fetchone()
    return None if row is None else str(row[0])


def _installation(key: InstallationKey | DbKey, database_id: str) -> InstallationKey:
    if isinstance(key, InstallationKey):
        return key
    return InstallationKey.from_db_key(key, database_id=database_id)


def _wrapped_keys(conn: Conn) -> list[WrappedKey]:
    rows = conn.execute(
        "SELECT version, key_tag, wrapping_key_id, blob FROM data_keys ORDER BY version"
    ).fetchall()
    return [WrappedKey(int(v), int(t), str(w), bytes(b)) for v, t, w, b in rows]


def _initialise(
    conn: Conn, key: InstallationKey | DbKey, expected_id: str | None, audit_key: AuditKey
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


def _check_audit_key(conn: Conn, key: AuditKey) -> None:
    """The first and the newest entries must verify under ``key`` (db/chain.py)."""
    ends = chain.keyed_ends(PgTx(conn))
    if ends and not any(chain.signed_by(key, row) for row in ends):
        raise StoreError(
            "the audit key does not match this file's chain", code=AuditChainCode.AUDIT_KEY_WRONG
        )

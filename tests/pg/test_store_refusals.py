"""The server's visitor file is refused, with a clear code and before anything is
written, when it is not ours to touch (Decreto 58/2006, art. 20.4: the file is kept whole
and confidential): a schema of a newer program, another casino's database, a wrong
installation key, data keys copied from another database, a wrong audit key, or no
visitor file at all."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg import sql

from admission.clock import FixedClock
from admission.errors import StoreError
from db.audit_chain import AuditChainCode
from db.audit_key import AuditKey
from db.keys import DbKey
from db.pg.codes import PgStoreCode
from db.pg.crypto import InstallationKey, PgCryptoCode
from db.pg.store import PgStore
from tests.db.factories import T0, dni, entry
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo


class Casino:
    """One casino's visitor file in its own schema, with its keys."""

    def __init__(self, cluster: Any, *, key: InstallationKey | DbKey | None = None) -> None:
        self.cluster = cluster
        self.schema = fresh_schema(cluster)
        self.conninfo = schema_conninfo(cluster, self.schema)
        self.key: InstallationKey | DbKey = key or InstallationKey.generate("test")
        self.audit_key = AuditKey.generate("test")
        with self.open(create=True) as store:
            self.database_id = store.database_id
            store.record_admission(entry(1))
            store.add_observation(1, "nota", "op-7", T0)

    def open(self, **options: Any) -> PgStore:
        options.setdefault("audit_key", self.audit_key)
        key = options.pop("key", self.key)
        return PgStore.open(self.conninfo, key, clock=FixedClock(T0), **options)

    def superuser(self, statement: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with psycopg.connect(self.cluster.superuser_conninfo(), autocommit=True) as conn:
            conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(self.schema)))
            cur = conn.execute(statement.encode(), params)
            return list(cur.fetchall()) if cur.description else []

    def snapshot(self) -> dict[str, Any]:
        """Every table of the schema, every row, as bytes: nothing may change."""
        tables = [
            r[0]
            for r in self.superuser(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() ORDER BY table_name"
            )
        ]
        return {t: sorted(map(repr, self.superuser(f'SELECT * FROM "{t}"'))) for t in tables}


def refused(casino: Casino, **options: Any) -> Any:
    before = casino.snapshot()
    with pytest.raises(StoreError) as excinfo:
        casino.open(**options).close()
    assert casino.snapshot() == before  # refused before anything was written
    return excinfo.value.code


def test_a_schema_from_a_newer_program_is_refused(pg_cluster: Any) -> None:
    casino = Casino(pg_cluster)
    casino.superuser(
        "INSERT INTO schema_migrations (version, name, sha256) VALUES (9999, 'future', 'x')"
    )
    assert refused(casino) is PgStoreCode.SCHEMA_NEWER


def test_an_applied_migration_that_differs_from_ours_is_refused(pg_cluster: Any) -> None:
    casino = Casino(pg_cluster)
    casino.superuser("UPDATE schema_migrations SET sha256 = 'edited' WHERE version = 1")
    assert refused(casino) is PgStoreCode.MIGRATION_CHANGED


def test_another_database_than_the_desk_s_is_refused(pg_cluster: Any) -> None:
    casino = Casino(pg_cluster)
    assert refused(casino, database_id="f" * 32) is PgStoreCode.DATABASE_OTHER
    with casino.open(database_id=casino.database_id) as store:  # its own: opens
        assert store.find_visitor(dni(1)) is not None


def test_another_casino_s_installation_key_is_refused(pg_cluster: Any) -> None:
    casino = Casino(pg_cluster)
    other = InstallationKey.generate("other casino")
    assert refused(casino, key=other) is PgCryptoCode.INSTALLATION_KEY_WRONG


def test_data_keys_copied_from_another_database_are_refused(pg_cluster: Any) -> None:
    """Same installation key, two databases: one's wrapped key does not open in the
    other (the database's id is bound into the wrapping)."""
    key = InstallationKey.generate("test")
    ours, theirs = Casino(pg_cluster, key=key), Casino(pg_cluster, key=key)
    [(tag, wrapping, blob)] = theirs.superuser(
        "SELECT key_tag, wrapping_key_id, blob FROM data_keys WHERE version = 1"
    )
    ours.superuser(
        "UPDATE data_keys SET key_tag = %s, wrapping_key_id = %s, blob = %s WHERE version = 1",
        (tag, wrapping, blob),
    )
    assert refused(ours) is PgCryptoCode.WRAPPED_KEY_TAMPERED


def test_a_wrong_audit_key_is_refused(pg_cluster: Any) -> None:
    casino = Casino(pg_cluster)
    assert refused(casino, audit_key=AuditKey.generate("x")) is AuditChainCode.AUDIT_KEY_WRONG


def test_an_empty_database_is_not_made_a_visitor_file_unasked(pg_cluster: Any) -> None:
    schema = fresh_schema(pg_cluster)
    with pytest.raises(StoreError) as excinfo:
        PgStore.open(
            schema_conninfo(pg_cluster, schema),
            InstallationKey.generate("test"),
            audit_key=AuditKey.generate("test"),
        )
    assert excinfo.value.code is PgStoreCode.NO_VISITOR_FILE
    with psycopg.connect(pg_cluster.superuser_conninfo(), autocommit=True) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s", (schema,)
        ).fetchone()
    assert tables == (0,)


def test_the_desk_s_passphrase_opens_its_file_again(pg_cluster: Any) -> None:
    """A passphrase key: the installation key is derived with the database's id."""
    key = DbKey.from_passphrase("correct horse battery staple")
    casino = Casino(pg_cluster, key=key)
    with casino.open(database_id=casino.database_id) as store:
        assert store.find_visitor(dni(1)) is not None
        assert [o.text for o in store.observations(1)] == ["nota"]
    wrong = DbKey.from_passphrase("wrong horse battery staple")
    assert refused(casino, key=wrong) is PgCryptoCode.INSTALLATION_KEY_WRONG

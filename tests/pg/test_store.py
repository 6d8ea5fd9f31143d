"""The PostgreSQL store's own behaviour on the throwaway cluster: what the server holds is
sealed (art. 20.4; GDPR art. 32), a changed or moved value is refused, the audit trail is
append-only even for the superuser, the purge runs one desk at a time, and a connection
the server cut is replaced. What every dialect must do alike (the chain catching a row
changed behind its back, the purge keeping it whole, the name search, the director's
lists) is tests/db's any_store contract, which runs here too."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql

from admission.clock import FixedClock
from admission.records import StaffMember, StaffRole
from db.audit_key import AuditKey
from db.pg.crypto import InstallationKey, PgCryptoCode, PgCryptoError
from db.pg.store import PgStore
from tests.db.factories import T0, dni, entry
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

DAY = timedelta(days=1)
PEOPLE = [
    (1, "Peña Núñez", "José María"),
    (2, "García", "María José"),
    (3, "O'Brien", "Seán"),
    (4, "Zubizarreta", "Ainhoa"),
    (5, "Garcés", "Jon"),
]


@pytest.fixture
def server(pg_cluster: Any) -> Iterator[tuple[PgStore, str]]:
    schema = fresh_schema(pg_cluster)
    with PgStore.open(
        schema_conninfo(pg_cluster, schema),
        InstallationKey.generate("test"),
        audit_key=AuditKey.generate("test"),
        create=True,
        clock=FixedClock(T0 + 200 * DAY),
    ) as store:
        yield store, schema


def superuser(cluster: Any, schema: str, statement: str, params: tuple[Any, ...] = ()) -> Any:
    with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(schema)))
        cur = conn.execute(statement.encode(), params)
        return cur.fetchall() if cur.description else None


def _fill(store: Any) -> None:
    for n, surname, given in PEOPLE:
        store.record_admission(entry(n, surname=surname, given_names=given))
    store.add_observation(1, "Pidió hoja de reclamaciones", "op-7", T0)
    store.add_ban(dni(2), "Altercado en la sala de juego", "director-1", T0)
    store.add_staff(StaffMember(dni(3), "Croupier Secreta", StaffRole.STAFF), "director-1", T0)


def test_the_server_holds_no_personal_value_in_clear(pg_cluster: Any, server: Any) -> None:
    store, schema = server
    _fill(store)
    store.set_setting("casino_id", "MAD01")
    dump = ""
    for (table,) in superuser(
        pg_cluster,
        schema,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()",
    ):
        rows = superuser(pg_cluster, schema, f'SELECT t::text FROM "{table}" AS t')
        dump += "\n".join(r[0] for r in rows)
    assert "op-7" in dump and "desk-1" in dump  # the dump does hold the rows
    needles = ["Peña", "PENA", "María", "MARIA", "García", "GARCIA", "Zubizarreta", "Ainhoa"]
    needles += ["SUP000001", dni(1).number, dni(3).number, "1980-05-17", "reclamaciones"]
    needles += ["Altercado", "Croupier", "MAD01"]
    for needle in needles:
        for form in (needle, needle.upper(), needle.encode("utf-8").hex()):
            assert form not in dump, needle


def test_a_value_changed_or_moved_on_the_server_is_refused(pg_cluster: Any, server: Any) -> None:
    store, schema = server
    _fill(store)
    superuser(  # an administrator swaps two visitors' surnames
        pg_cluster,
        schema,
        "UPDATE visitors SET surname = (SELECT surname FROM visitors WHERE file_number = 2) "
        "WHERE file_number = 1",
    )
    with pytest.raises(PgCryptoError) as excinfo:
        store.visitor(1)
    assert excinfo.value.code is PgCryptoCode.VALUE_TAMPERED
    assert store.visitor(2) is not None


def test_the_audit_trail_is_append_only_on_the_server(pg_cluster: Any, server: Any) -> None:
    store, schema = server
    _fill(store)
    with pytest.raises(psycopg.errors.RaiseException):
        superuser(pg_cluster, schema, "UPDATE audit SET actor = 'x' WHERE seq = 1")
    with pytest.raises(psycopg.errors.RaiseException):
        superuser(pg_cluster, schema, "DELETE FROM audit")


def test_one_desk_purges_at_a_time(pg_cluster: Any, server: Any) -> None:
    store, _schema = server
    store.record_admission(entry(1, T0))
    reports: list[Any] = []
    with psycopg.connect(pg_cluster.superuser_conninfo(), autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", (store.purge_lock_key,))  # another desk
        worker = threading.Thread(target=lambda: reports.append(store.purge(T0 + 30 * DAY)))
        worker.start()
        time.sleep(0.5)
        assert worker.is_alive() and not reports  # waiting for the other desk's purge
        other.execute("SELECT pg_advisory_unlock(%s)", (store.purge_lock_key,))
        worker.join(timeout=30)
    assert [r.visits for r in reports] == [1]
    assert store.verify().ok


def test_connections_cut_by_the_server_are_replaced(pg_cluster: Any, server: Any) -> None:
    """The server restarts a backend (or an administrator ends it): the pool's check
    finds the dead connection and the next call gets a fresh one."""
    store, _schema = server
    store.record_admission(entry(1))
    with psycopg.connect(pg_cluster.superuser_conninfo(), autocommit=True) as conn:
        ended = conn.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE usename = 'desk1' AND pid <> pg_backend_pid()"
        ).fetchone()
    assert ended is not None and ended[0] >= 1
    assert store.find_visitor(dni(1)) is not None
    assert store.record_admission(entry(2)).card_number == 2
    assert store.verify().ok

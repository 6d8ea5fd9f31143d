"""Rewriting the visitor file on the server as its superuser, who holds neither the data
keys nor the audit key: each tamper and the code ``audit verify`` answers (art. 20.4; art.
22.1 and 23.4: correlative numbers; art. 20.2: the register the desks checked against).

The cases are the PostgreSQL half of docs/tamper-table.md (tests/tamper_table.py). Each
runs on a server file where desks admitted visitors, recorded a ban, issued, exchanged
and cancelled vouchers, imported the register and created accounts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql

from admission.clock import FixedClock
from admission.errors import StoreError
from admission.settings import Settings
from admission.settings_record import settings_digests
from db.accounts import Argon2Hasher, StoreAccounts
from db.audit_key import AuditKey
from db.pg.crypto import InstallationKey
from db.pg.store import PgStore
from db.registry_replica import ReplicaRegistry
from db.voucher_book import StoreVoucherBook
from tests.db.factories import T0, dni, entry
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo
from tests.tamper_table import (
    Tamper,
    record_accounts_and_settings,
    record_vouchers,
    tamper_voucher,
    verify_answer,
)

CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}  # tests only


@dataclass
class ServerDesk:
    cluster: Any
    schema: str
    store: PgStore
    settings: Settings  # settings.json as the desk reads it

    def sql(self, *statements: str) -> list[Any]:
        """The server's superuser writes, the append-only triggers out of the way."""
        with psycopg.connect(self.cluster.superuser_conninfo(), autocommit=True) as conn:
            conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(self.schema)))
            conn.execute("SET session_replication_role = replica")  # no triggers fire
            found: list[Any] = []
            for statement in statements:
                cur = conn.execute(statement.encode())
                found = cur.fetchall() if cur.description else []
            return found


def record_history(desk: ServerDesk, clock: FixedClock) -> None:
    store = desk.store
    for n in (1, 2, 3):
        store.record_admission(entry(n))
    store.void_card(2, "wrong type", "director-1", T0)
    store.add_ban(dni(3), "Altercado en la sala de juego", "director-1", T0)
    record_vouchers(StoreVoucherBook(store))
    ReplicaRegistry(store, clock).import_lines([f"{dni(n).number}\n".encode() for n in (7, 8)])
    accounts = StoreAccounts(store, clock, hasher=Argon2Hasher(**CHEAP))
    record_accounts_and_settings(accounts, store, desk.settings)


def _swap_indexes(desk: ServerDesk, table: str, key: str, a: int, b: int) -> None:
    """Two rows' blind indexes exchanged (unique: through a third value)."""
    first = f"(SELECT id_index FROM {table} WHERE {key} = {a})"
    desk.sql(
        f"CREATE TEMP TABLE swap AS SELECT {first} AS ia, "
        f"(SELECT id_index FROM {table} WHERE {key} = {b}) AS ib; "
        f"UPDATE {table} SET id_index = '\\x00' WHERE {key} = {a}; "
        f"UPDATE {table} SET id_index = (SELECT ia FROM swap) WHERE {key} = {b}; "
        f"UPDATE {table} SET id_index = (SELECT ib FROM swap) WHERE {key} = {a}"
    )


def _ban_on_another(desk: ServerDesk) -> None:
    """The ban recorded against visitor 3 moved onto visitor 1's index."""
    desk.sql("UPDATE bans SET id_index = (SELECT id_index FROM visitors WHERE file_number = 1)")


CASES: list[Tamper] = [
    Tamper(
        "index-swap",
        "two visitors' blind indexes swapped (one person then found as the other)",
        "BLIND_INDEX_MISMATCH",
        lambda d: _swap_indexes(d, "visitors", "file_number", 2, 3),
        "visitor:2",
    ),
    Tamper(
        "ban-moved",
        "a ban's blind index replaced by another visitor's (the ban then hits them)",
        "BLIND_INDEX_MISMATCH",
        _ban_on_another,
        "ban:1",
    ),
    Tamper(
        "entry-edited",
        "an audit entry's actor rewritten",
        "DIGEST_MISMATCH",
        lambda d: d.sql("UPDATE audit SET actor = 'nobody' WHERE seq = 2"),
    ),
    Tamper(
        "visit-deleted",
        "a visit and its card deleted",
        "ROWS_MISSING",
        lambda d: d.sql(
            "DELETE FROM card_events WHERE card_number = 3",
            "DELETE FROM admissions WHERE visit_id = 3",
            "DELETE FROM cards WHERE number = 3",
            "DELETE FROM visits WHERE visit_id = 3",
        ),
        "visit",
    ),
    Tamper(
        "card-counter-jump",
        "the card counter moved forward (numbers skipped)",
        "CARD_NUMBER_GAP",
        lambda d: d.sql("UPDATE counters SET next = next + 5 WHERE name = 'card'"),
        "card:9",
    ),
    Tamper(
        "card-counter-back",
        "the newest card deleted and the card counter put back (its number given again)",
        "CARD_NUMBER_GAP",
        lambda d: d.sql(
            "DELETE FROM card_events WHERE card_number = 3",
            "DELETE FROM cards WHERE number = 3",
            "UPDATE counters SET next = 3 WHERE name = 'card'",
        ),
        "card:3",
    ),
    Tamper(
        "voucher-counter-jump",
        "the voucher counter moved forward",
        "VOUCHER_NUMBER_GAP",
        lambda d: d.sql("UPDATE counters SET next = 10 WHERE name = 'voucher'"),
        "voucher:10",
    ),
    Tamper(
        "voucher-deleted",
        "a voucher deleted",
        "ROWS_MISSING",
        lambda d: d.sql("DELETE FROM vouchers WHERE number = 2"),
        "voucher",
    ),
    Tamper(
        "voucher-reopened",
        "a cancelled voucher put back to open",
        "ROW_CHANGED",
        lambda d: d.sql("UPDATE vouchers SET status = 'OPEN', closed_at = NULL WHERE number = 2"),
        "voucher:2",
    ),
    Tamper(
        "register-entry-deleted",
        "an identifier removed from the register (RIAJ)",
        "ROW_CHANGED",
        lambda d: d.sql(
            "DELETE FROM registry_entry WHERE digest = "
            "(SELECT digest FROM registry_entry ORDER BY digest LIMIT 1)"
        ),
        "registry:1",
    ),
    Tamper(
        "register-entry-added",
        "an identifier added to the register",
        "ROW_CHANGED",
        lambda d: d.sql(
            "INSERT INTO registry_entry (snapshot_id, digest) "
            "SELECT snapshot_id, '\\x00000000000000000000000000000000' FROM registry_snapshot"
        ),
        "registry:1",
    ),
    Tamper(
        "register-emptied",
        "the register's snapshot and identifiers deleted",
        "ROWS_MISSING",
        lambda d: d.sql("DELETE FROM registry_entry", "DELETE FROM registry_snapshot"),
        "registry",
    ),
    Tamper(
        "settings-edited",
        "settings.json edited outside the settings screen (the casino's name)",
        "SETTINGS_UNRECORDED",
        lambda d: d.settings.set("casino.name", "Otro casino"),
        "setting:casino.name",
    ),
    Tamper(
        "account-deleted",
        "an account deleted",
        "ROWS_MISSING",
        lambda d: d.sql("DELETE FROM accounts WHERE username = 'clerk'"),
        "account",
    ),
]


@pytest.fixture
def desk(pg_cluster: Any) -> Iterator[ServerDesk]:
    schema = fresh_schema(pg_cluster)
    clock = FixedClock(T0)
    with PgStore.open(
        schema_conninfo(pg_cluster, schema),
        InstallationKey.generate("test"),
        audit_key=AuditKey.generate("test"),
        create=True,
        clock=clock,
        max_connections=2,
    ) as store:
        opened = ServerDesk(pg_cluster, schema, store, Settings())
        record_history(opened, clock)
        yield opened


def test_the_history_verifies(desk: ServerDesk) -> None:
    check = desk.store.verify()
    assert check.ok, check
    kinds = {ref.split(":")[0] for e in desk.store.audit_entries() for ref in e.commits}
    assert {"voucher", "registry", "account", "card", "visit", "ban"} <= kinds


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_tamper_is_named_by_audit_verify(desk: ServerDesk, case: Tamper) -> None:
    case.act(desk)
    code, row, refused = verify_answer(desk.store, desk.settings)
    assert (code, refused) == (case.code, case.error)
    if case.row is not None:
        assert row == case.row


def test_a_desk_never_rewrites_a_file_behind_a_swapped_index(desk: ServerDesk) -> None:
    """Person 2 is not taken for file 3, and file 3 keeps its own identity."""
    _swap_indexes(desk, "visitors", "file_number", 2, 3)
    with pytest.raises(StoreError) as err:
        desk.store.record_admission(entry(2, T0 + timedelta(days=1)))
    assert err.value.code == "BLIND_INDEX_MISMATCH"
    with pytest.raises(StoreError):
        desk.store.find_visitor(dni(2))
    third = desk.store.visitor(3)
    assert third is not None and third.identity == dni(3)


def test_a_desk_whose_server_key_is_gone_is_told_to_restore_it(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a desk's start the server's file exists and its chain is keyed: a missing key
    is AUDIT_KEY_LOST, naming the backup and the keyring, and no key is made."""
    from db.audit_key import ENV_VAR
    from db.pg.desk import desk_audit_key
    from tests.db.test_audit_keyed import MemoryKeyring

    monkeypatch.delenv(ENV_VAR, raising=False)
    keyring = MemoryKeyring()
    with pytest.raises(StoreError) as err:
        desk_audit_key(tmp_path, demo=False, keyring=keyring, create=False)
    assert err.value.code == "AUDIT_KEY_LOST"
    assert "backup" in str(err.value) and "keyring" in str(err.value)
    assert keyring.saved == {}


def test_an_older_server_file_adopts_its_snapshots_once(pg_cluster: Any) -> None:
    """A snapshot imported before the chain covered the register (migration 0070 asks
    for its adoption) is committed to by one AUDIT_COVERAGE entry at the next open."""
    schema = fresh_schema(pg_cluster)
    conninfo = schema_conninfo(pg_cluster, schema)
    installation, audit_key = InstallationKey.generate("test"), AuditKey.generate("test")
    clock = FixedClock(T0)

    def opened() -> PgStore:
        return PgStore.open(conninfo, installation, audit_key=audit_key, clock=clock)

    with PgStore.open(
        conninfo, installation, audit_key=audit_key, create=True, clock=clock
    ) as store:
        store.record_admission(entry(1))
        older = ServerDesk(pg_cluster, schema, store, Settings())
        older.sql(  # as a desk of the previous release imported it, and migration 0070
            "INSERT INTO registry_snapshot (version, scheme, salt, scope, as_of, imported_at, "
            "entry_count, content_sha256, signed, active) VALUES ('v1', 'plain', '\\x00', "
            "'CASINO', now(), now(), 1, '', false, true)",
            "INSERT INTO registry_entry (snapshot_id, digest) SELECT snapshot_id, "
            "'\\x11111111111111111111111111111111' FROM registry_snapshot",
            "INSERT INTO counters (name, next) VALUES ('audit_coverage', 1)",
        )
        assert store.verify().problem == "ROW_UNRECORDED"
    with opened() as store:
        check = store.verify()
        assert check.ok, check
        adopted = [e for e in store.audit_entries() if e.action == "AUDIT_COVERAGE"]
        assert len(adopted) == 1 and list(adopted[0].commits) == ["registry:1"]
        assert adopted[0].details == {"card_next": "2", "voucher_next": "1"}
    with opened() as store:  # once
        assert [e.action for e in store.audit_entries()].count("AUDIT_COVERAGE") == 1


def test_vouchers_purged_on_the_server_are_counted_and_it_verifies(desk: ServerDesk) -> None:
    assert StoreVoucherBook(desk.store).purge_vouchers(T0 + timedelta(days=200)) == 2
    erased = [e for e in desk.store.audit_entries() if e.action == "ERASED"]
    assert erased and erased[-1].details["voucher"] == "2"
    assert desk.store.verify(settings=settings_digests(desk.settings)).ok
    assert StoreVoucherBook(desk.store).issue_voucher(tamper_voucher(9)).number == 4

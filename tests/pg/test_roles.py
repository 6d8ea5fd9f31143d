"""Database roles of the visitor file on the server (db/pg/roles.py; Decreto 58/2006,
art. 20.4: the file is confidential, kept whole, and erased only by the purge).

On the throwaway cluster, with real logins (client certificates): a desk records and
reads but cannot delete; an inspector reads, searches and records its searches in the
audit trail but writes nothing else; only a login admitted to the purge erases, and only
inside the store's purge; the register's replica is swapped by a desk; a desk that may
not migrate is told so (``PG_SCHEMA_OLDER``) and the owner's login migrates with the
grants; the grants are idempotent and cover every table of the migrations.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from psycopg import errors as pg_errors
from psycopg import sql

from admission.accounts import AccountError, Role
from admission.clock import FixedClock
from admission.errors import InvalidStateError, StoreError
from admission.identity import IdentityKey, IdKind
from admission.records import StaffMember, StaffRole
from admission.vouchers.model import NewVoucher
from db.accounts import Argon2Hasher, StoreAccounts
from db.audit_key import AuditKey
from db.pg import roles
from db.pg.crypto import InstallationKey
from db.pg.roles import PgRoleCode, RoleNames
from db.pg.store import PgStore
from db.registry_replica import ReplicaRegistry
from db.voucher_book import StoreVoucherBook
from tests.db.factories import T0, dni, entry
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

DAY = timedelta(days=1)
OWNER, DESK, INSPECTOR, PURGER = "roles_owner", "roles_desk", "roles_inspector", "roles_purger"
CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}  # argon2id, fast for tests
FILE_TABLES = ("visitors", "visits", "cards", "bans", "staff", "audit", "observations")


def superuser(cluster: Any, statement: str, params: tuple[Any, ...] = ()) -> list[Any]:
    with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
        cur = conn.execute(statement.encode(), params)
        return list(cur.fetchall()) if cur.description else []


@dataclass
class Casino:
    """One visitor file whose schema belongs to its owner group, and the logins."""

    cluster: Any
    schema: str
    names: RoleNames
    key: InstallationKey = field(default_factory=lambda: InstallationKey.generate("test"))
    audit_key: AuditKey = field(default_factory=lambda: AuditKey.generate("test"))
    clock: FixedClock = field(default_factory=lambda: FixedClock(T0 + 200 * DAY))
    stores: list[PgStore] = field(default_factory=list)

    def conninfo(self, login: str) -> str:
        return schema_conninfo(self.cluster, self.schema, desk=login)

    def open(self, login: str, *, create: bool = False) -> PgStore:
        store = PgStore.open(
            self.conninfo(login),
            self.key,
            audit_key=self.audit_key,
            create=create,
            clock=self.clock,
            max_connections=2,
        )
        self.stores.append(store)
        return store

    def session(self, login: str) -> psycopg.Connection[Any]:
        """A raw session of ``login`` (autocommit), as any program holding its
        certificate could open."""
        return psycopg.connect(self.conninfo(login), autocommit=True)

    def query(self, statement: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with psycopg.connect(self.cluster.superuser_conninfo(), autocommit=True) as conn:
            conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(self.schema)))
            cur = conn.execute(statement.encode(), params)
            return list(cur.fetchall()) if cur.description else []

    def acl(self) -> list[Any]:
        """Every right and policy on the schema, to compare before and after."""
        return self.query(
            "SELECT c.relname, c.relacl::text, c.relrowsecurity, "
            "(SELECT array_agg(a.attname || '=' || a.attacl::text ORDER BY a.attname) "
            " FROM pg_attribute AS a WHERE a.attrelid = c.oid AND a.attacl IS NOT NULL), "
            "pg_get_userbyid(c.relowner) FROM pg_class AS c "
            "WHERE c.relnamespace = current_schema()::regnamespace ORDER BY c.relname"
        ) + self.query(
            "SELECT tablename, policyname, roles::text, cmd, qual, with_check FROM pg_policies "
            "WHERE schemaname = current_schema() ORDER BY tablename, policyname"
        )


@pytest.fixture
def casino(pg_cluster: Any) -> Iterator[Casino]:
    """A fresh install as the DBA makes it (docs/postgresql.md, "Roles"): the groups, the
    schema owned by the owner group, the logins admitted; the owner's login creates the
    file (migrations, then the grants, in its connection)."""
    for login in (OWNER, DESK, INSPECTOR, PURGER):
        pg_cluster.add_desk(login)
    names = RoleNames("r" + uuid.uuid4().hex[:12])
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_cluster.superuser_conninfo(), autocommit=True) as conn:
        roles.create_groups(conn, names)
        conn.execute(
            sql.SQL("CREATE SCHEMA {} AUTHORIZATION {}").format(
                sql.Identifier(schema), sql.Identifier(names.owner)
            )
        )
        roles.admit_login(conn, OWNER, names.owner)
        roles.admit_login(conn, DESK, names.desk)
        roles.admit_login(conn, INSPECTOR, names.inspector)
        roles.admit_login(conn, PURGER, names.desk)
        roles.admit_login(conn, PURGER, names.purge)
    found = Casino(pg_cluster, schema, names)
    found.open(OWNER, create=True).close()
    try:
        yield found
    finally:
        for store in found.stores:
            store.close()


def _refused(conn: psycopg.Connection[Any], statement: str) -> None:
    with pytest.raises(pg_errors.InsufficientPrivilege):
        conn.execute(statement.encode())


# -- the grants -----------------------------------------------------------------------------


def test_the_owner_group_owns_everything_and_every_table_has_listed_rights(
    casino: Casino,
) -> None:
    owners = {
        str(r[0])
        for r in casino.query(
            "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class "
            "WHERE relnamespace = current_schema()::regnamespace"
        )
    }
    assert owners == {casino.names.owner}
    tables = {
        str(r[0])
        for r in casino.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
    }
    assert tables == set(roles.RIGHTS)  # a new migration's table needs its line in RIGHTS
    rights = casino.query(
        "SELECT has_table_privilege(%s, 'visits', 'SELECT'), "
        "has_table_privilege(%s, 'visits', 'DELETE'), "
        "has_table_privilege(%s, 'visits', 'DELETE'), "
        "has_table_privilege(%s, 'visits', 'INSERT')",
        (casino.names.inspector, casino.names.desk, casino.names.purge, casino.names.inspector),
    )
    assert rights == [(True, False, True, False)]


def test_grants_are_idempotent(casino: Casino) -> None:
    applied_at_migration = casino.acl()
    with psycopg.connect(casino.cluster.superuser_conninfo(), autocommit=True) as conn:
        names = roles.grant_roles(conn, casino.schema, prefix=casino.names.prefix)
        assert names == casino.names
        once = casino.acl()
        roles.grant_roles(conn, casino.schema, prefix=casino.names.prefix)
    assert casino.acl() == once == applied_at_migration


def test_an_existing_desk_owned_schema_is_handed_to_the_groups(pg_cluster: Any) -> None:
    pg_cluster.add_desk(DESK)
    schema = fresh_schema(pg_cluster, owner="desk1", others=("desk2",))
    key, audit_key = InstallationKey.generate("test"), AuditKey.generate("test")
    clock = FixedClock(T0 + DAY)
    with PgStore.open(
        schema_conninfo(pg_cluster, schema), key, audit_key=audit_key, create=True, clock=clock
    ) as store:
        store.record_admission(entry(1))
        assert store.purge_role is None  # the schema's owner: no group, no SET ROLE
    with psycopg.connect(pg_cluster.superuser_conninfo(), autocommit=True) as conn:
        names = roles.grant_roles(conn, schema)
        assert names.prefix == roles.default_prefix(conn, schema)
        roles.admit_login(conn, DESK, names.desk)
        again = roles.grant_roles(conn, schema)
    assert again == names
    owner = superuser(
        pg_cluster,
        "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = %s",
        (schema,),
    )
    assert owner == [(names.owner,)]
    # the desks given rights before roles keep none (desk2's default privileges)
    held = superuser(
        pg_cluster,
        "SELECT has_schema_privilege('desk2', %s, 'USAGE'), "
        "has_table_privilege('desk2', %s, 'SELECT')",
        (schema, f"{schema}.visits"),
    )
    assert held == [(False, False)]
    with PgStore.open(
        schema_conninfo(pg_cluster, schema, desk=DESK), key, audit_key=audit_key, clock=clock
    ) as desk:
        assert desk.find_visitor(dni(1)) is not None
        assert desk.purge_role == names.purge
        assert desk.verify().ok


# -- the desk -------------------------------------------------------------------------------


def test_a_desk_records_and_reads_but_cannot_delete(casino: Casino) -> None:
    store = casino.open(DESK)
    first = store.record_admission(entry(1, T0))
    store.record_admission(entry(1, T0 + DAY, surname="Peña Núñez de Arce"))  # rewrites tokens
    store.record_admission(entry(2, T0, surname="García", given_names="Ana"))
    assert first.card_number is not None
    store.mark_printed(first.card_number, T0)
    store.add_observation(first.file_number, "Pidió hoja de reclamaciones", "op-7", T0)
    ban = store.add_ban(dni(3), "Altercado en la sala de juego", "director-1", T0)
    store.lift_ban(ban.ban_id, "Recurso estimado", "director-1", T0 + DAY)
    store.add_staff(StaffMember(dni(4), "Croupier", StaffRole.STAFF), "director-1", T0)
    store.set_setting("casino_id", "MAD01")
    found = store.find_visitor(dni(1))
    assert found is not None and found.surname == "Peña Núñez de Arce"
    assert [v.file_number for v in store.search_visitors("garc")] == [2]
    assert len(store.visits(first.file_number)) == 2
    assert store.verify().ok
    with casino.session(DESK) as conn:
        for table in FILE_TABLES:
            _refused(conn, f"DELETE FROM {table}")
        _refused(conn, "TRUNCATE visits")
        _refused(conn, "UPDATE cards SET visit_id = NULL")  # only the purge unlinks a card
        _refused(conn, "CREATE TABLE mine (x int)")
        assert conn.execute("SELECT count(*) FROM visits").fetchone() == (3,)
    with pytest.raises(StoreError) as err:
        store.purge(T0 + 100 * DAY)
    assert err.value.code is PgRoleCode.PURGE_NOT_ALLOWED
    assert casino.query("SELECT count(*) FROM visits") == [(3,)]


def test_the_replica_snapshot_swap_works_for_a_desk(casino: Casino) -> None:
    store = casino.open(DESK)
    replica = ReplicaRegistry(store, casino.clock)
    replica.import_lines([b"12345678Z\n", b"99999999R\n"])
    casino.clock.advance(timedelta(hours=1))
    swapped = replica.import_lines([b"11111111H\n"])  # deletes the previous snapshot
    assert swapped.entries == 1 and not swapped.unchanged
    assert casino.query("SELECT count(*) FROM registry_snapshot") == [(1,)]
    listed = replica.check(IdentityKey.of(IdKind.DNI, "ESP", "11111111H"))
    assert listed.status.name == "LISTED"
    assert replica.check(IdentityKey.of(IdKind.DNI, "ESP", "12345678Z")).status.name == (
        "NOT_LISTED"
    )


# -- the inspector --------------------------------------------------------------------------


def test_an_inspector_reads_searches_and_audits_but_writes_nothing_else(casino: Casino) -> None:
    desk = casino.open(DESK)
    desk.record_admission(entry(1, T0, surname="García", given_names="Ana"))
    casino.query("DELETE FROM settings WHERE key = 'secret:audit_subject'")  # none made yet
    inspector = casino.open(INSPECTOR)
    found = inspector.find_visitor(dni(1))
    assert found is not None and found.surname == "García"
    assert [v.file_number for v in inspector.search_visitors("garcia ana")] == [found.file_number]
    seq = inspector.append("inspector-7", "INSPECT", inspector.keyed_hash("garcia"), T0)
    assert inspector.head().seq == seq and inspector.verify().ok  # its search is audited
    assert casino.query("SELECT count(*) FROM settings WHERE key = 'secret:audit_subject'") == [
        (1,)
    ]  # the inspector made the secret that names its searches' subjects
    with pytest.raises(StoreError):
        inspector.record_admission(entry(2, T0))
    with casino.session(INSPECTOR) as conn:
        _refused(
            conn,
            "INSERT INTO visits (visit_id, file_number, at, desk_id, operator, verdict, "
            "reasons, document_type, document_number, registry_status, registry_source, "
            "registry_version, key_version) SELECT 99, file_number, now(), 'd', 'o', 'ADMIT',"
            " '[]', 'DNI', '\\x00', 'NOT_LISTED', 'REPLICA', 'v', 1 FROM visitors",
        )
        _refused(conn, "UPDATE visitors SET key_version = key_version")
        _refused(conn, "DELETE FROM audit")
        _refused(conn, "INSERT INTO settings (key, value, key_version) VALUES ('x', '', 1)")
        # the card number is the desks' alone (art. 22.1): the row is not its to update
        before = conn.execute("SELECT next FROM counters WHERE name = 'card'").fetchone()
        changed = conn.execute("UPDATE counters SET next = next + 1 WHERE name = 'card'")
        assert changed.rowcount == 0
        assert conn.execute("SELECT next FROM counters WHERE name = 'card'").fetchone() == before
    assert desk.last_card_number() == 1


# -- the purge ------------------------------------------------------------------------------


def test_only_a_login_admitted_to_the_purge_erases_and_only_inside_the_purge(
    casino: Casino,
) -> None:
    desk = casino.open(DESK)
    for n in (1, 2, 3):
        desk.record_admission(entry(n, T0))
    with pytest.raises(StoreError) as err:
        desk.purge(T0 + 100 * DAY)
    assert err.value.code is PgRoleCode.PURGE_NOT_ALLOWED
    purger = casino.open(PURGER)
    assert purger.purge_role == casino.names.purge
    with casino.session(PURGER) as conn:  # its ordinary session: the gate is NOINHERIT
        for table in FILE_TABLES:
            _refused(conn, f"DELETE FROM {table}")
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(casino.names.purge)))
        conn.execute("RESET ROLE")  # it may take the role, as the store's purge does
    report = purger.purge(T0 + 100 * DAY)
    assert (report.visits, report.visitors, report.cards) == (3, 3, 3)
    assert casino.query("SELECT count(*) FROM visits") == [(0,)]
    who = purger.read(lambda tx: tx.one("SELECT current_user"))
    assert who == (PURGER,)  # SET LOCAL ROLE ended with the purge's transactions
    assert purger.verify().ok and desk.verify().ok
    with psycopg.connect(casino.cluster.superuser_conninfo(), autocommit=True) as conn:
        roles.admit_login(conn, PURGER, casino.names.purge, admit=False)
    with pytest.raises(StoreError) as err:
        purger.purge(T0 + 100 * DAY)
    assert err.value.code is PgRoleCode.PURGE_NOT_ALLOWED


# -- migrations -----------------------------------------------------------------------------


def test_a_login_that_may_not_migrate_is_told_and_the_owner_migrates_with_the_grants(
    casino: Casino,
) -> None:
    casino.query("DROP TABLE registry_entry, registry_event, registry_snapshot")
    casino.query("DELETE FROM schema_migrations WHERE version = 50")
    for login in (DESK, INSPECTOR, PURGER):
        with pytest.raises(StoreError) as err:
            casino.open(login)
        assert err.value.code is PgRoleCode.SCHEMA_OLDER
    assert casino.query("SELECT count(*) FROM schema_migrations WHERE version = 50") == [(0,)]
    casino.open(OWNER).close()  # a member of the owner group: migrates as the group
    assert casino.query(
        "SELECT DISTINCT tableowner FROM pg_tables WHERE tablename LIKE 'registry%%' "
        "AND schemaname = current_schema()"
    ) == [(casino.names.owner,)]
    desk = casino.open(DESK)
    replica = ReplicaRegistry(desk, casino.clock)
    assert replica.import_lines([b"12345678Z\n"]).entries == 1


# -- names and logins -----------------------------------------------------------------------


def test_names_are_per_file_and_logins_are_checked(casino: Casino) -> None:
    with psycopg.connect(casino.cluster.superuser_conninfo(), autocommit=True) as conn:
        one, two = roles.default_prefix(conn, "mad01"), roles.default_prefix(conn, "bcn02")
        assert one != two and RoleNames(one).desk != RoleNames(two).desk
        long = roles.default_prefix(conn, "a" * 60)
        assert len(long) <= 40 and long != roles.default_prefix(conn, "a" * 61)
        assert len(RoleNames(long).inspector.encode()) < 64  # NAMEDATALEN
        with pytest.raises(StoreError) as err:
            roles.admit_login(conn, "nobody_here", casino.names.desk)
        assert err.value.code is PgRoleCode.ROLE_UNKNOWN
        with pytest.raises(StoreError) as err:
            roles.admit_login(conn, DESK, "desk1")  # not a group of a visitor file
        assert err.value.code is PgRoleCode.ROLE_UNKNOWN
        with pytest.raises(StoreError) as err:
            roles.admit_login(conn, DESK, casino.names.desk[:-1] + "x")
        assert err.value.code is PgRoleCode.ROLE_UNKNOWN
    with pytest.raises(ValueError):
        RoleNames("Bad-Prefix")
    assert RoleNames.of_owner(casino.names.owner) == casino.names
    assert RoleNames.of_owner("desk1") is None


def test_the_printed_grants_are_those_applied(casino: Casino) -> None:
    statements = roles.grant_statements(casino.schema, casino.names)
    assert any("ROW LEVEL SECURITY" in s for s in statements)
    assert not any("DELETE" in s and casino.names.desk in s and '"visits"' in s for s in statements)
    with psycopg.connect(casino.cluster.superuser_conninfo(), autocommit=True) as conn:
        before = casino.acl()
        with conn.transaction():
            for statement in statements:
                conn.execute(statement.encode())
    assert casino.acl() == before


def test_the_desks_other_ports_work_as_a_desk(casino: Casino) -> None:
    store = casino.open(DESK)
    accounts = StoreAccounts(store, casino.clock, hasher=Argon2Hasher(**CHEAP))
    accounts.create_account("admin", "Ana", "admin-password-1", [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", "admin-password-1")
    accounts.create_account("clerk", "Carla", "clerk-password-1", [Role.CLERK], actor=admin)
    with pytest.raises(AccountError):
        accounts.sign_in("clerk", "wrong-password")  # the failure count is an update
    book = StoreVoucherBook(store)
    voucher = book.issue_voucher(
        NewVoucher(T0, "desk-1", "op-1", "Otro", "DNI", "X1", "STANDARD", 500)
    )
    recorded = store.record_admission(entry(1, T0))
    assert recorded.card_number is not None
    assert [c.number for c in store.unprinted_cards()] == [recorded.card_number]
    book.exchange_voucher(voucher.number, recorded.card_number, T0)
    store.add_observation(recorded.file_number, "Nota", "op-7", T0)
    rectify = store
    kw: dict[str, Any] = {"actor": "dora", "role": "DIRECTOR", "reason": "Error", "at": T0}
    rectify.rectify_visitor_name(recorded.file_number, "Pena", "Jose", **kw)
    (note,) = store.observations(recorded.file_number)
    rectify.rectify_observation_text(recorded.file_number, note.observation_id, "Otra", **kw)
    assert [v.file_number for v in store.search_visitors("pena jose")] == [recorded.file_number]
    assert store.verify().ok

    after = T0 + timedelta(days=1)
    with pytest.raises(StoreError) as err:  # the closed vouchers' purge (R3) is the purge's
        book.purge_vouchers(after)
    assert err.value.code is PgRoleCode.PURGE_NOT_ALLOWED
    assert book.voucher(voucher.number) is not None
    assert StoreVoucherBook(casino.open(PURGER)).purge_vouchers(after) == 1
    assert book.voucher(voucher.number) is None


def test_a_key_rotation_runs_only_as_the_owner_group(casino: Casino) -> None:
    """Re-sealing every table and rewriting the data keys is the owner's (art. 20.4): a
    desk login is refused before anything is written, an owner-group login rotates."""
    from db.pg.rotation import KeyRotation, PgRotationCode

    casino.open(OWNER).record_admission(entry(1, T0))
    before = casino.query("SELECT version FROM data_keys ORDER BY version")
    with pytest.raises(InvalidStateError) as refused:
        KeyRotation(casino.open(DESK), casino.key).rotate(mode="reencrypt")
    assert refused.value.code is PgRotationCode.NEEDS_OWNER
    assert casino.query("SELECT version FROM data_keys ORDER BY version") == before
    report = KeyRotation(casino.open(OWNER), casino.key).rotate(mode="reencrypt-retire")
    assert report["complete"] is True
    assert casino.query("SELECT version FROM data_keys ORDER BY version") != before

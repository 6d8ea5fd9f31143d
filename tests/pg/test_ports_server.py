"""The desk's accounts and vouchers on the shared server: what only the server adds to
the contract of tests/pg/test_ports_contract.py. Two desks share one gapless voucher
sequence (art. 23.4) and one account list (art. 20.3); the server's administrator reads
no display name, hash, holder or document (art. 20.4; GDPR art. 32), cannot move a
sealed value, and an account row is never written without its audit entry."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql

from admission.accounts import AccountError, AccountErrorCode, Role
from admission.clock import FixedClock
from admission.errors import ConfigError, StoreError
from admission.vouchers.model import NewVoucher
from db.accounts import Argon2Hasher, StoreAccounts, reseal_accounts
from db.audit_key import AuditKey
from db.chain import COVERED
from db.pg.crypto import InstallationKey, PgCryptoCode
from db.pg.store import PgStore
from db.voucher_book import StoreVoucherBook, reseal_vouchers
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

T0 = datetime(2026, 11, 28, 22, 0, tzinfo=UTC)
CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}
ADMIN_PW = "admin-secret-1"
CLERK_PW = "clerk-secret-1"


class Server:
    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.schema = fresh_schema(cluster, others=("desk2",))
        self.installation = InstallationKey.generate("test")
        self.audit = AuditKey.generate("test")
        self.clock = FixedClock(T0)
        self.stores: list[PgStore] = []

    def desk(self, name: str = "desk1") -> PgStore:
        store = PgStore.open(
            schema_conninfo(self.cluster, self.schema, name),
            self.installation,
            audit_key=self.audit,
            create=True,
            clock=self.clock,
            max_connections=4,
        )
        self.stores.append(store)
        return store

    def superuser(self, statement: str, params: tuple[Any, ...] = ()) -> Any:
        with psycopg.connect(self.cluster.superuser_conninfo(), autocommit=True) as conn:
            conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(self.schema)))
            cur = conn.execute(statement.encode(), params)
            return cur.fetchall() if cur.description else None

    def accounts(self, store: PgStore) -> StoreAccounts:
        return StoreAccounts(store, self.clock, hasher=Argon2Hasher(**CHEAP))


@pytest.fixture
def server(pg_cluster: Any) -> Iterator[Server]:
    made = Server(pg_cluster)
    try:
        yield made
    finally:
        for store in made.stores:
            store.close()


def voucher(n: int, desk: str = "DESK1") -> NewVoucher:
    return NewVoucher(
        issued_at=T0 + timedelta(minutes=n),
        desk_id=desk,
        operator="op-1",
        holder_name=f"Holder Secreto {n}",
        document_type="DNI",
        document_number=f"DOCSECRET{n:04d}",
        card_type="DAY",
        price_cents=1000,
    )


def test_the_server_holds_no_account_or_voucher_value_in_clear(server: Server) -> None:
    store = server.desk()
    accounts = server.accounts(store)
    accounts.create_account("admin", "Ana Secreta", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    accounts.create_account("dir", "Diego Oculto", "director-pw-1", [Role.DIRECTOR], actor=admin)
    book = StoreVoucherBook(store)
    book.issue_voucher(voucher(1))
    book.cancel_voucher(book.issue_voucher(voucher(2)).number, "motivo privado", T0)
    rows = ""  # roles are sealed in the rows; the audit trail names them (as on SQLCipher)
    for table in ("accounts", "vouchers"):
        rows += "\n".join(r[0] for r in server.superuser(f'SELECT t::text FROM "{table}" AS t'))
    audit = "\n".join(r[0] for r in server.superuser("SELECT t::text FROM audit AS t"))
    assert "admin" in rows and "DESK1" in rows and "op-1" in rows  # the rows are there
    assert "DIRECTOR" in audit and "DIRECTOR" not in rows and "ADMIN" not in rows
    for needle in ["Ana Secreta", "Diego", "argon2", "Holder", "Secreto", "DOCSECRET"]:
        assert needle not in rows + audit
    for needle in ["motivo privado", ADMIN_PW]:
        assert needle not in rows + audit
    assert server.superuser("SELECT version FROM schema_migrations WHERE version = 30")


def test_a_moved_or_changed_sealed_value_is_refused(server: Server) -> None:
    store = server.desk()
    accounts = server.accounts(store)
    accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    accounts.create_account("clerk", "Carla", CLERK_PW, [Role.CLERK], actor=admin)
    # the administrator's record put under the clerk's name: the clerk would administer
    server.superuser(
        "UPDATE accounts SET record = (SELECT record FROM accounts WHERE username = 'admin') "
        "WHERE username = 'clerk'"
    )
    with pytest.raises(StoreError) as err:
        accounts.sign_in("clerk", ADMIN_PW)
    assert err.value.code == PgCryptoCode.VALUE_TAMPERED
    with pytest.raises(StoreError):
        accounts.accounts()
    book = StoreVoucherBook(store)
    book.issue_voucher(voucher(1))
    book.issue_voucher(voucher(2))
    server.superuser(
        "UPDATE vouchers SET document_number = "
        "(SELECT document_number FROM vouchers WHERE number = 1) WHERE number = 2"
    )
    with pytest.raises(StoreError) as err:
        book.voucher(2)
    assert err.value.code == PgCryptoCode.VALUE_TAMPERED
    server.superuser(
        "UPDATE vouchers SET holder_name = set_byte(holder_name, 40, "
        "get_byte(holder_name, 40) # 1) WHERE number = 1"
    )
    with pytest.raises(StoreError) as err:
        book.open_vouchers()
    assert err.value.code == PgCryptoCode.VALUE_TAMPERED


def test_two_desks_share_one_gapless_voucher_sequence(server: Server) -> None:
    desks = [server.desk("desk1"), server.desk("desk2")]
    per_desk, numbers = 20, []
    lock, start = threading.Lock(), threading.Barrier(4)
    errors: list[BaseException] = []

    def issue(store: PgStore, name: str) -> None:
        book = StoreVoucherBook(store)
        try:
            start.wait()
            for i in range(per_desk):
                made = book.issue_voucher(voucher(i, name))
                with lock:
                    numbers.append(made.number)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [
        threading.Thread(target=issue, args=(store, f"D{n}")) for n, store in enumerate(desks * 2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert sorted(numbers) == list(range(1, 4 * per_desk + 1))  # no gap, no repeat
    other = StoreVoucherBook(desks[1])
    assert len(other.open_vouchers()) == 4 * per_desk
    assert other.last_voucher_number() == 4 * per_desk


def test_two_desks_creating_one_user_name_at_once_make_one_account(server: Server) -> None:
    first = server.desk("desk1")
    accounts = server.accounts(first)
    accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    services = [accounts, server.accounts(server.desk("desk2"))]
    start = threading.Barrier(2)
    outcomes: list[object] = []

    def create(service: StoreAccounts, display: str) -> None:
        start.wait()
        try:
            service.create_account("clerk", display, CLERK_PW, [Role.CLERK], actor=admin)
            outcomes.append("made")
        except AccountError as exc:
            outcomes.append(exc.code)

    threads = [
        threading.Thread(target=create, args=(s, d)) for s, d in zip(services, "AB", strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(map(str, outcomes)) == ["USERNAME_TAKEN", "made"]
    assert server.superuser("SELECT count(*) FROM accounts WHERE username = 'clerk'") == [(1,)]
    created = [e for e in first.audit_entries() if e.action == "ACCOUNT_CREATED"]
    assert [e.subject for e in created] == ["account:admin", "account:clerk"]
    assert first.verify().ok


def test_a_lockout_on_one_desk_holds_on_the_other(server: Server) -> None:
    one, two = server.desk("desk1"), server.desk("desk2")
    accounts = server.accounts(one)
    accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    for _ in range(5):
        with pytest.raises(AccountError):
            accounts.sign_in("admin", "wrong-password")
    with pytest.raises(AccountError) as err:
        server.accounts(two).sign_in("admin", ADMIN_PW)
    assert err.value.code == AccountErrorCode.ACCOUNT_LOCKED


def test_an_account_row_is_never_written_without_its_audit_entry(server: Server) -> None:
    store = server.desk()
    accounts = server.accounts(store)
    accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    accounts.create_account("clerk", "Carla", CLERK_PW, [Role.CLERK], actor=admin)
    before = store.head().seq
    server.superuser(
        "CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF NEW.action = 'ACCOUNT_CHANGED' THEN RAISE EXCEPTION 'no'; END IF; "
        "RETURN NEW; END; $$"
    )
    server.superuser(
        "CREATE TRIGGER refuse_change BEFORE INSERT ON audit "
        "FOR EACH ROW EXECUTE FUNCTION refuse_change()"
    )
    with pytest.raises(StoreError):
        accounts.set_roles("clerk", [Role.CLERK, Role.DIRECTOR], actor=admin)
    assert accounts.account("clerk").roles == {Role.CLERK}  # type: ignore[union-attr]
    assert store.head().seq == before
    server.superuser("DROP TRIGGER refuse_change ON audit")
    accounts.set_roles("clerk", [Role.CLERK, Role.DIRECTOR], actor=admin)
    assert store.head().seq == before + 1
    assert store.verify().ok


def test_account_content_is_what_the_sqlcipher_chain_commits_to(server: Server) -> None:
    store = server.desk()
    accounts = server.accounts(store)
    made = accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    [(ref, content)] = store.read(lambda tx: list(COVERED["account"].every(tx)))
    assert ref == "account:1" and content[:4] == ["admin", "Ana", "ADMIN", 1]
    assert str(content[4]).startswith("$argon2id$") and content[5:7] == [0, None]
    assert content[7] == "2026-11-28T22:00:00.000000Z" and made.created_at == T0


def test_guesses_from_several_desks_at_once_count_each_failure(server: Server) -> None:
    desks = [server.desk("desk1"), server.desk("desk2")]
    server.accounts(desks[0]).create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    services = [server.accounts(store) for store in desks for _ in range(2)]
    start = threading.Barrier(len(services))
    codes: list[str] = []
    lock = threading.Lock()

    def guess(service: StoreAccounts) -> None:
        start.wait()
        for _ in range(3):
            try:
                service.sign_in("admin", "wrong-password")
            except AccountError as exc:
                with lock:
                    codes.append(str(exc.code))

    threads = [threading.Thread(target=guess, args=(s,)) for s in services]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # 12 guesses: the 5th locks the account, the 7 after it meet the lock (art. 20.3)
    assert len(codes) == 12
    assert codes.count("BAD_CREDENTIALS") == 4 and codes.count("ACCOUNT_LOCKED") == 8
    entries = desks[1].audit_entries()
    assert [e.details["failures"] for e in entries if e.action == "ACCOUNT_LOCKED"] == ["5"]
    failed = [e.details["reason"] for e in entries if e.action == "LOGIN_FAILED"]
    assert failed.count("BAD_CREDENTIALS") == 5 and failed.count("ACCOUNT_LOCKED") == 7
    stored = server.accounts(desks[1]).account("admin")
    assert stored is not None and stored.failed_attempts == 5
    assert desks[0].verify().ok


def test_two_desks_cannot_both_make_the_first_account(server: Server) -> None:
    services = [server.accounts(server.desk(name)) for name in ("desk1", "desk2")]
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def first(service: StoreAccounts, name: str) -> None:
        start.wait()
        try:
            service.create_account(name, "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
            outcomes.append("made")
        except AccountError as exc:
            outcomes.append(str(exc.code))

    threads = [
        threading.Thread(target=first, args=(s, n))
        for s, n in zip(services, ("one", "two"), strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["NOT_SIGNED_IN", "made"]
    assert len(services[0].accounts()) == 1


def test_the_accounts_need_a_store_with_two_connections(server: Server) -> None:
    store = PgStore.open(
        schema_conninfo(server.cluster, server.schema),
        server.installation,
        audit_key=server.audit,
        create=True,
        clock=server.clock,
        max_connections=1,
    )
    server.stores.append(store)
    with pytest.raises(ConfigError):
        StoreAccounts(store, server.clock)


def test_two_administrators_demoting_each_other_at_once_leave_one(server: Server) -> None:
    one, two = server.desk("desk1"), server.desk("desk2")
    accounts = server.accounts(one)
    accounts.create_account("ana", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    ana = accounts.sign_in("ana", ADMIN_PW)
    accounts.create_account("bea", "Bea", CLERK_PW, [Role.ADMIN], actor=ana)
    bea = accounts.sign_in("bea", CLERK_PW)
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def demote(service: StoreAccounts, actor: Any, target: str) -> None:
        start.wait()
        try:
            service.set_roles(target, [Role.CLERK], actor=actor)
            outcomes.append("done")
        except AccountError as exc:
            outcomes.append(str(exc.code))

    threads = [
        threading.Thread(target=demote, args=(accounts, ana, "bea")),
        threading.Thread(target=demote, args=(server.accounts(two), bea, "ana")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["ROLE_REQUIRED", "done"]  # the second is no longer one
    admins = [a for a in accounts.accounts() if Role.ADMIN in a.roles and a.active]
    assert len(admins) == 1


def test_a_new_data_key_reseals_accounts_and_vouchers(server: Server) -> None:
    store = server.desk()
    accounts = server.accounts(store)
    accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    accounts.create_account("clerk", "Carla", CLERK_PW, [Role.CLERK], actor=admin)
    book = StoreVoucherBook(store)
    for n in (1, 2, 3):
        book.issue_voucher(voucher(n))
    book.cancel_voucher(2, "visitor left", T0)
    before = [book.voucher(n) for n in (1, 2, 3)]
    ring, record = store.ring.with_new_version(server.installation)
    server.superuser(  # the new version's record first (db/pg/crypto.py)
        "INSERT INTO data_keys (version, key_tag, wrapping_key_id, blob) VALUES (%s, %s, %s, %s)",
        (record.version, record.key_tag, record.wrapping_key_id, record.blob),
    )
    assert reseal_accounts(store, ring).rows == 2
    assert reseal_vouchers(store, ring, batch_size=2).rows == 3
    assert reseal_accounts(store, ring).rows == reseal_vouchers(store, ring).rows == 0
    for table in ("accounts", "vouchers"):
        assert server.superuser(f"SELECT DISTINCT key_version FROM {table}") == [(2,)]
    reopened = server.desk("desk2")  # loads both versions; the new one is current
    assert reopened.ring.current_version == 2
    assert server.accounts(reopened).sign_in("clerk", CLERK_PW).username == "clerk"
    assert [StoreVoucherBook(reopened).voucher(n) for n in (1, 2, 3)] == before
    assert reopened.verify().ok


def test_a_record_rewritten_during_the_reseal_is_never_put_back(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = server.desk()
    accounts = server.accounts(store)
    accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    accounts.create_account("clerk", "Carla", CLERK_PW, [Role.CLERK], actor=admin)
    ring, record = store.ring.with_new_version(server.installation)
    server.superuser(
        "INSERT INTO data_keys (version, key_tag, wrapping_key_id, blob) VALUES (%s, %s, %s, %s)",
        (record.version, record.key_tag, record.wrapping_key_id, record.blob),
    )
    write = store.write

    def a_desk_writes_first(work: Any) -> Any:  # between the reseal's read and its write
        monkeypatch.setattr(store, "write", write)
        accounts.set_roles("clerk", [Role.CLERK, Role.DIRECTOR], actor=admin)
        return write(work)

    monkeypatch.setattr(store, "write", a_desk_writes_first)
    assert reseal_accounts(store, ring).rows == 3  # the clerk's record read twice
    reopened = server.desk("desk2")
    clerk = server.accounts(reopened).account("clerk")
    assert clerk is not None and clerk.roles == {Role.CLERK, Role.DIRECTOR}
    assert server.superuser("SELECT DISTINCT key_version FROM accounts") == [(2,)]


def test_an_account_record_put_back_by_the_server_administrator_does_not_verify(
    server: Server,
) -> None:
    store = PgStore.open(
        schema_conninfo(server.cluster, server.schema),
        server.installation,
        audit_key=server.audit,
        create=True,
        clock=server.clock,
    )
    server.stores.append(store)
    accounts = server.accounts(store)
    accounts.create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    accounts.create_account("clerk", "Carla", CLERK_PW, [Role.CLERK, Role.DIRECTOR], actor=admin)
    created = [e for e in store.audit_entries() if e.action == "ACCOUNT_CREATED"]
    assert [list(e.commits) for e in created] == [["account:1"], ["account:2"]]
    with pytest.raises(AccountError):
        accounts.sign_in("clerk", "wrong-password")
    assert store.verify().ok
    old = server.superuser("SELECT record FROM accounts WHERE username = 'clerk'")[0][0]
    accounts.set_roles("clerk", [Role.CLERK], actor=admin)  # the director's role removed
    assert store.verify().ok
    # the server's administrator puts the older sealed record back: it opens (same row,
    # same key), but the chain committed to the newer one
    server.superuser("UPDATE accounts SET record = %s WHERE username = 'clerk'", (old,))
    check = store.verify()
    assert not check.ok and check.problem == "ROW_CHANGED" and check.row == "account:2"

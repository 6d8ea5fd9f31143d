"""The desk's other ports - accounts (art. 20.3, 23.5), the reprint queue (art. 22) and
provisional vouchers (art. 23.4) - give the same answers on the SQLCipher file and on
the shared PostgreSQL server (arts. 154-155): every test here runs on both.

The assertions are those of tests/db/test_accounts.py and tests/printer/test_vouchers.py
(the SQLCipher classes' own tests), widened to the rules every account book must keep.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from admission.accounts import (
    AccountError,
    AccountErrorCode,
    AccountService,
    LockoutPolicy,
    Role,
)
from admission.clock import FixedClock
from admission.errors import InvalidStateError, NotFoundError
from admission.vouchers.model import NewVoucher, VoucherStatus
from db.accounts import Argon2Hasher, StoreAccountBook, StoreAccounts
from db.audit_key import AuditKey
from db.keys import DbKey
from db.pg.crypto import InstallationKey
from db.pg.store import PgStore
from db.store import SqlCipherStore
from db.voucher_book import StoreVoucherBook
from tests.pg.cluster_fixture import fresh_schema, schema_conninfo
from tests.printer.factories import admission_entry

T0 = datetime(2026, 11, 28, 22, 0, tzinfo=UTC)
CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}
ADMIN_PW = "admin-secret-1"
CLERK_PW = "clerk-secret-1"
DIRECTOR_PW = "director-secret-1"


@dataclass
class Desk:
    """One backend: its store, and how to open another store on the same file or
    database (a restart, or another desk), and the ports over a store."""

    kind: str
    clock: FixedClock
    opener: Callable[[], Any]
    raw: Callable[[str], Any]  # a statement behind the program's back
    opened: list[Any] = field(default_factory=list)

    def open(self) -> Any:
        store = self.opener()
        self.opened.append(store)
        return store

    @property
    def store(self) -> Any:
        return self.opened[0]

    def accounts(self, store: Any | None = None, **kwargs: Any) -> AccountService:
        kwargs.setdefault("hasher", Argon2Hasher(**CHEAP))
        return StoreAccounts(store or self.store, self.clock, **kwargs)

    def book(self, store: Any | None = None) -> Any:
        return StoreAccountBook(store or self.store)

    def vouchers(self, store: Any | None = None) -> Any:
        return StoreVoucherBook(store or self.store)

    def reprints(self, store: Any | None = None) -> Any:
        return store or self.store

    def close(self) -> None:
        while self.opened:
            self.opened.pop().close()


@pytest.fixture(params=["sqlcipher", "postgresql"])
def desk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Desk]:
    clock = FixedClock(T0)
    if request.param == "postgresql":
        cluster = request.getfixturevalue("pg_cluster")
        schema = fresh_schema(cluster)
        installation, audit = InstallationKey.generate("test"), AuditKey.generate("test")

        def open_pg() -> PgStore:
            return PgStore.open(
                schema_conninfo(cluster, schema),
                installation,
                audit_key=audit,
                create=True,
                clock=clock,
                max_connections=2,
            )

        def raw_pg(statement: str) -> Any:
            with psycopg.connect(cluster.superuser_conninfo(), autocommit=True) as conn:
                conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(schema)))
                return conn.execute(statement.encode()).rowcount

        made = Desk("postgresql", clock, open_pg, raw_pg)
    else:
        key = DbKey.generate(source="test")
        path = tmp_path / "visitors.db"

        def open_sqlite() -> SqlCipherStore:
            return SqlCipherStore.open(path, key, clock=clock)

        def raw_sqlite(statement: str) -> Any:
            with made.store.lock:
                return made.store.connection.execute(statement).rowcount

        made = Desk("sqlcipher", clock, open_sqlite, raw_sqlite)
    made.open()
    try:
        yield made
    finally:
        made.close()


def _entries(store: Any, subject: str) -> list[Any]:
    return [e for e in store.audit_entries() if e.subject == subject]


def _admin_and_clerk(accounts: AccountService) -> Any:
    accounts.create_account("admin", "Ana Admin", ADMIN_PW, [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", ADMIN_PW)
    accounts.create_account("clerk", "Carla Clerk", CLERK_PW, [Role.CLERK], actor=admin)
    return admin


# -- accounts -----------------------------------------------------------------------------


def test_the_first_account_signs_in_and_each_step_is_audited(desk: Desk) -> None:
    accounts = desk.accounts()
    assert not accounts.has_accounts()
    made = accounts.create_account("Admin", "Ana Admin", ADMIN_PW, [Role.ADMIN], actor=None)
    assert made.username == "admin" and made.created_at == T0 and made.active
    admin = accounts.sign_in("admin", ADMIN_PW)
    assert admin.has(Role.ADMIN) and not admin.has(Role.DIRECTOR)
    assert admin.display_name == "Ana Admin" and accounts.has_accounts()
    entries = _entries(desk.store, "account:admin")
    assert [e.action for e in entries] == ["ACCOUNT_CREATED", "LOGIN"]
    assert entries[0].actor == "admin" and entries[0].details == {"roles": "ADMIN"}
    assert "account:1" in entries[0].commits  # the row is committed to the chain
    assert desk.store.verify().ok


def test_who_may_create_accounts(desk: Desk) -> None:
    accounts = desk.accounts()
    with pytest.raises(AccountError) as err:
        accounts.create_account("clerk", "Carla", CLERK_PW, [Role.CLERK], actor=None)
    assert err.value.code == AccountErrorCode.FIRST_ACCOUNT_NOT_ADMIN
    admin = _admin_and_clerk(accounts)
    with pytest.raises(AccountError) as err:
        accounts.create_account("other", "Otro", CLERK_PW, [Role.CLERK], actor=None)
    assert err.value.code == AccountErrorCode.NOT_SIGNED_IN
    with pytest.raises(AccountError) as err:
        accounts.create_account("CLERK", "Otra", CLERK_PW, [Role.CLERK], actor=admin)
    assert err.value.code == AccountErrorCode.USERNAME_TAKEN
    clerk = accounts.sign_in("clerk", CLERK_PW)
    with pytest.raises(AccountError) as err:
        accounts.create_account("other", "Otro", CLERK_PW, [Role.CLERK], actor=clerk)
    assert err.value.code == AccountErrorCode.ROLE_REQUIRED
    made = accounts.create_account(
        "keyholder", "K", CLERK_PW, [Role.CLERK], actor=None, file_key=True
    )
    assert made.username == "keyholder"
    assert _entries(desk.store, "account:keyholder")[0].actor == "file-key"
    assert [a.username for a in accounts.accounts()] == ["admin", "clerk", "keyholder"]
    # the book refuses a second row of one name even when the service's check is passed
    with pytest.raises(AccountError) as err:
        desk.book().save(made, "x", [], created=True)
    assert err.value.code == AccountErrorCode.USERNAME_TAKEN
    assert desk.store.verify().ok


def test_an_unknown_name_and_a_wrong_password_read_alike(desk: Desk) -> None:
    accounts = desk.accounts()
    _admin_and_clerk(accounts)
    codes = []
    for name, password in [("nobody", CLERK_PW), ("clerk", "wrong-password"), ("Bad Name!", "x")]:
        with pytest.raises(AccountError) as err:
            accounts.sign_in(name, password)
        codes.append(err.value.code)
    assert codes == [AccountErrorCode.BAD_CREDENTIALS] * 3
    unknown = _entries(desk.store, "account:?")
    assert [(e.actor, e.action) for e in unknown] == [("-", "LOGIN_FAILED")] * 2
    failed = _entries(desk.store, "account:clerk")[-1]
    assert (failed.action, failed.details) == ("LOGIN_FAILED", {"reason": "BAD_CREDENTIALS"})
    assert accounts.account("clerk") is not None
    assert accounts.account("clerk").failed_attempts == 1  # type: ignore[union-attr]
    assert accounts.account("Bad Name!") is None and accounts.account("nobody") is None
    accounts.sign_in("clerk", CLERK_PW)  # the right password starts the count over
    assert accounts.account("clerk").failed_attempts == 0  # type: ignore[union-attr]


def test_a_lockout_survives_a_restart_and_the_trail_holds_no_secret(desk: Desk) -> None:
    accounts = desk.accounts()
    _admin_and_clerk(accounts)
    for _ in range(4):
        with pytest.raises(AccountError) as err:
            accounts.sign_in("clerk", "wrong-password")
        assert err.value.code == AccountErrorCode.BAD_CREDENTIALS
    with pytest.raises(AccountError) as err:
        accounts.sign_in("clerk", "wrong-password")
    assert err.value.code == AccountErrorCode.ACCOUNT_LOCKED
    desk.close()  # the desk restarts
    desk.clock.advance(timedelta(minutes=5))
    store = desk.open()
    accounts = desk.accounts(store, policy=LockoutPolicy(5, timedelta(minutes=15)))
    with pytest.raises(AccountError) as err:
        accounts.sign_in("clerk", CLERK_PW)  # the right password does not open it
    assert err.value.code == AccountErrorCode.ACCOUNT_LOCKED
    assert err.value.locked_until == T0 + timedelta(minutes=15)
    desk.clock.advance(timedelta(minutes=10))
    assert accounts.sign_in("clerk", CLERK_PW).username == "clerk"
    entries = store.audit_entries()
    actions = [e.action for e in entries if e.subject == "account:clerk"]
    assert actions.count("LOGIN_FAILED") == 6 and actions.count("ACCOUNT_LOCKED") == 1
    locked = next(e for e in entries if e.action == "ACCOUNT_LOCKED")
    assert locked.details == {"failures": "5", "until": (T0 + timedelta(minutes=15)).isoformat()}
    hashes = [desk.book(store).find(n).password_hash for n in ("admin", "clerk")]
    text = repr([(e.actor, e.action, e.subject, e.details) for e in entries])
    for secret in [ADMIN_PW, CLERK_PW, "wrong-password", "Carla Clerk", *hashes]:
        assert secret not in text
    assert store.verify().ok


def test_an_administrator_changes_accounts_and_keeps_one_administrator(desk: Desk) -> None:
    accounts = desk.accounts()
    admin = _admin_and_clerk(accounts)
    changed = accounts.set_roles("clerk", [Role.CLERK, Role.DIRECTOR], actor=admin)
    assert changed.roles == {Role.CLERK, Role.DIRECTOR}
    assert accounts.sign_in("clerk", CLERK_PW).has(Role.DIRECTOR)
    with pytest.raises(AccountError) as err:
        accounts.set_roles("admin", [Role.CLERK], actor=admin)
    assert err.value.code == AccountErrorCode.LAST_ADMIN
    with pytest.raises(AccountError) as err:
        accounts.set_active("admin", False, actor=admin)
    assert err.value.code == AccountErrorCode.LAST_ADMIN
    with pytest.raises(AccountError) as err:
        accounts.set_active("ghost", False, actor=admin)
    assert err.value.code == AccountErrorCode.ACCOUNT_UNKNOWN
    accounts.set_active("clerk", False, actor=admin)
    with pytest.raises(AccountError) as err:
        accounts.sign_in("clerk", "wrong-password")
    assert err.value.code == AccountErrorCode.BAD_CREDENTIALS  # disabled: said to no stranger
    with pytest.raises(AccountError) as err:
        accounts.sign_in("clerk", CLERK_PW)
    assert err.value.code == AccountErrorCode.ACCOUNT_DISABLED
    accounts.set_active("clerk", True, actor=admin)
    assert accounts.account("clerk").failed_attempts == 1  # type: ignore[union-attr]
    accounts.clear_lockout("clerk", actor=admin)
    assert accounts.account("clerk").failed_attempts == 0  # type: ignore[union-attr]
    clerk = accounts.sign_in("clerk", CLERK_PW)
    accounts.set_password("clerk", "a-new-password", actor=clerk)  # one's own password
    with pytest.raises(AccountError) as err:
        accounts.set_password("admin", "taken-over-1", actor=clerk)
    assert err.value.code == AccountErrorCode.ROLE_REQUIRED
    with pytest.raises(AccountError) as err:
        accounts.set_password("clerk", "short", actor=admin)
    assert err.value.code == AccountErrorCode.WEAK_PASSWORD
    assert accounts.sign_in("clerk", "a-new-password").username == "clerk"
    changes = [
        e.details.get("change") for e in _entries(desk.store, "account:clerk")
        if e.action == "ACCOUNT_CHANGED"
    ]  # fmt: skip
    assert changes == ["roles", "inactive", "active", "lockout_cleared", "password"]
    assert desk.store.verify().ok


def test_the_director_authorises_with_own_credentials(desk: Desk) -> None:
    accounts = desk.accounts()
    admin = _admin_and_clerk(accounts)
    accounts.create_account("dir", "Diana", DIRECTOR_PW, [Role.DIRECTOR], actor=admin)
    director = accounts.authorise("dir", DIRECTOR_PW, Role.DIRECTOR, "exceptional card")
    assert director.username == "dir"
    with pytest.raises(AccountError) as err:
        accounts.authorise("clerk", CLERK_PW, Role.DIRECTOR, "exceptional card")
    assert err.value.code == AccountErrorCode.ROLE_REQUIRED
    with pytest.raises(AccountError) as err:
        accounts.authorise("dir", DIRECTOR_PW, Role.DIRECTOR, "  ")
    assert err.value.code == AccountErrorCode.PURPOSE_INVALID
    ok = _entries(desk.store, "account:dir")[-1]
    assert (ok.action, ok.details) == (
        "AUTHORISED",
        {"role": "DIRECTOR", "purpose": "exceptional card"},
    )
    refused = _entries(desk.store, "account:clerk")[-1]
    assert refused.action == "AUTHORISATION_FAILED" and refused.details["reason"] == "ROLE_REQUIRED"


def test_the_session_lock_opens_only_for_its_operator(desk: Desk) -> None:
    accounts = desk.accounts()
    admin = _admin_and_clerk(accounts)
    clerk = accounts.sign_in("clerk", CLERK_PW)
    accounts.lock_session(clerk)
    with pytest.raises(AccountError) as err:
        accounts.unlock_session(admin, ADMIN_PW)
    assert err.value.code == AccountErrorCode.SESSION_OPERATOR_MISMATCH
    with pytest.raises(AccountError):
        accounts.unlock_session(clerk, "wrong-password")
    assert accounts.unlock_session(clerk, CLERK_PW) == clerk
    accounts.sign_out(clerk, "end of shift")
    actions = [e.action for e in _entries(desk.store, "account:clerk")]
    assert actions[-5:] == [
        "LOGIN",
        "SESSION_LOCKED",
        "LOGIN_FAILED",
        "SESSION_UNLOCKED",
        "LOGOUT",
    ]
    assert desk.store.verify().ok


def test_the_quick_unlock_pin_is_kept_hashed_and_committed_to(desk: Desk) -> None:
    """The PIN's argon2id hash is kept with the account (sealed on the server), survives
    a restart and a change of password, opens the locked session on another desk of the
    file, and the chain commits to it: taken out behind the program's back, the file
    does not verify."""
    accounts = desk.accounts()
    _admin_and_clerk(accounts)
    clerk = accounts.sign_in("clerk", CLERK_PW)
    accounts.set_pin(clerk, CLERK_PW, "4821")
    accounts.set_password("clerk", "clerk-secret-2", actor=clerk)  # keeps the PIN
    stored = desk.book().find("clerk")
    assert stored.pin_hash.startswith("$argon2id$v=19$m=8,t=1,p=1$")
    assert "4821" not in stored.pin_hash and stored.password_hash != stored.pin_hash
    changed = [e for e in _entries(desk.store, "account:clerk") if e.action == "ACCOUNT_CHANGED"]
    assert changed[0].details == {"change": "pin"} and "account:2" in changed[0].commits
    assert desk.store.verify().ok
    other = desk.accounts(desk.open())  # another desk, or the same after a restart
    assert other.has_pin("clerk") and not other.has_pin("admin")
    other.lock_session(clerk)
    with pytest.raises(AccountError) as err:
        other.unlock_with_pin(clerk, "4822")
    assert err.value.code == AccountErrorCode.PIN_WRONG
    desk.clock.advance(timedelta(seconds=5))
    assert other.unlock_with_pin(clerk, "4821") == clerk
    assert _entries(desk.store, "account:clerk")[-1].details == {"mode": "pin"}
    assert desk.store.verify().ok
    if desk.kind == "sqlcipher":
        desk.raw("UPDATE accounts SET pin_hash = NULL WHERE username = 'clerk'")
        assert not desk.store.verify().ok
        return
    other.set_pin(clerk, "clerk-secret-2", None)
    assert not desk.accounts().has_pin("clerk") and desk.store.verify().ok


def test_an_old_hash_is_renewed_at_sign_in(desk: Desk) -> None:
    desk.accounts().create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    old = desk.book().find("admin").password_hash
    assert old.startswith("$argon2id$v=19$m=8,t=1,p=1$")
    stronger = desk.accounts(hasher=Argon2Hasher(time_cost=2, memory_cost=16, parallelism=1))
    stronger.sign_in("admin", ADMIN_PW)
    new = desk.book().find("admin").password_hash
    assert new.startswith("$argon2id$v=19$m=16,t=2,p=1$")
    assert stronger.sign_in("admin", ADMIN_PW).username == "admin"
    assert desk.store.verify().ok


def test_accounts_are_never_deleted(desk: Desk) -> None:
    desk.accounts().create_account("admin", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    with pytest.raises(Exception, match="never deleted"):
        desk.raw("DELETE FROM accounts")
    assert desk.accounts().account("admin") is not None


# -- vouchers and the reprint queue (tests/printer/test_vouchers.py) ----------------------


def new_voucher(minutes: int = 0, document: str = "12345678Z") -> NewVoucher:
    return NewVoucher(
        issued_at=T0 + timedelta(minutes=minutes),
        desk_id="DESK1",
        operator="op-1",
        holder_name="José Ángel Muñoz",
        document_type="DNI",
        document_number=document,
        card_type="DAY",
        price_cents=1000,
    )


def test_the_voucher_book(desk: Desk) -> None:
    book, store = desk.vouchers(), desk.store
    first = book.issue_voucher(new_voucher(0))
    second = book.issue_voucher(new_voucher(3, "X1234567L"))
    assert (first.number, second.number) == (1, 2)
    stored = book.voucher(2)
    assert stored is not None and stored.document_number == "X1234567L"
    assert stored.holder_name == "José Ángel Muñoz" and stored.price_cents == 1000
    assert stored == second and stored.status is VoucherStatus.OPEN
    assert book.voucher(3) is None
    card = store.record_admission(admission_entry(1, T0 + timedelta(minutes=30))).card_number
    assert card is not None
    done = book.exchange_voucher(1, card, T0 + timedelta(minutes=31))
    assert book.voucher(1) == done and done.card_number == card
    assert [v.number for v in book.open_vouchers()] == [2]
    assert [v.number for v in book.open_vouchers(T0 + timedelta(minutes=1))] == []
    assert [v.number for v in book.open_vouchers(T0 + timedelta(minutes=4))] == [2]
    cancelled = book.cancel_voucher(2, "visitor left", T0 + timedelta(minutes=40))
    assert book.voucher(2) == cancelled and cancelled.close_reason == "visitor left"
    assert book.open_vouchers() == []
    with pytest.raises(InvalidStateError):
        book.exchange_voucher(2, card, T0)
    with pytest.raises(InvalidStateError):
        book.cancel_voucher(1, "again", T0)
    with pytest.raises(NotFoundError):
        book.exchange_voucher(9, card, T0)
    with pytest.raises(NotFoundError):
        book.cancel_voucher(9, "no such", T0)
    third = book.issue_voucher(new_voucher(50))
    assert third.number == 3
    assert book.purge_vouchers(T0 + timedelta(days=190)) == 2  # the open one is kept
    assert [v.number for v in book.open_vouchers()] == [3]
    assert book.voucher(1) is None


def test_a_purged_voucher_number_is_never_given_again(desk: Desk) -> None:
    book = desk.vouchers()
    assert book.last_voucher_number() == 0
    for n in (1, 2):
        book.cancel_voucher(book.issue_voucher(new_voucher(n)).number, "left", T0)
    assert book.purge_vouchers(T0 + timedelta(days=190)) == 2  # the newest one too
    assert book.last_voucher_number() == 2 and book.voucher(2) is None
    assert book.issue_voucher(new_voucher(3)).number == 3  # art. 23.4: never 1 again
    assert desk.store.verify().ok  # the purge's erasures are counted by its entry


def test_the_reprint_queue_lists_issued_not_printed(desk: Desk) -> None:
    store = desk.store
    queue = desk.reprints()
    numbers = [store.record_admission(admission_entry(n)).card_number for n in (1, 2, 3)]
    assert [c.number for c in queue.unprinted_cards()] == [3, 2, 1]
    assert [c.number for c in queue.unprinted_cards(limit=2)] == [3, 2]
    store.mark_printed(2, T0)
    store.void_card(3, "wrong person", "sup", T0)
    assert [c.number for c in queue.unprinted_cards()] == [1]
    assert queue.unprinted_cards()[0] == store.card(1)
    assert numbers == [1, 2, 3]

"""Desk accounts (art. 20.3, 23.5): the first administrator, sign-in and lockout without
user enumeration, the director's own credentials, the idle lock and the last
administrator - on a fake hasher and a fake book, with an injected clock."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from admission.accounts import (
    Account,
    AccountError,
    AccountErrorCode,
    AccountService,
    AuditNote,
    IdleLock,
    LockoutPolicy,
    Operator,
    Role,
    StoredAccount,
)
from admission.clock import FixedClock
from admission.errors import ConfigError

T0 = datetime(2026, 12, 3, 20, 0, tzinfo=UTC)
ADMIN_PW = "admin-secret-1"
CLERK_PW = "clerk-secret-1"
DIRECTOR_PW = "director-secret-1"


class FakeHasher:
    """Reversible on purpose (tests only); counts the verifications it was asked for."""

    def __init__(self) -> None:
        self.verified = 0
        self.version = "v1"

    def hash(self, password: str) -> str:
        return f"{self.version}${password[::-1]}"

    def verify(self, password_hash: str, password: str) -> bool:
        self.verified += 1
        return password_hash.split("$", 1)[1] == password[::-1]

    def needs_rehash(self, password_hash: str) -> bool:
        return not password_hash.startswith(self.version + "$")


class FakeBook:
    def __init__(self) -> None:
        self.rows: dict[str, StoredAccount] = {}
        self.notes: list[AuditNote] = []
        self.saves = 0

    def account_count(self) -> int:
        return len(self.rows)

    def find(self, username: str) -> StoredAccount | None:
        return self.rows.get(username)

    def all_accounts(self) -> list[Account]:
        return [s.account for _, s in sorted(self.rows.items())]

    def save(
        self,
        account: Account,
        password_hash: str,
        notes: Sequence[AuditNote],
        *,
        created: bool = False,
    ) -> None:
        assert created == (account.username not in self.rows)
        old = self.rows.get(account.username)
        pin = None if old is None else old.pin_hash  # save keeps the PIN as it is
        self.rows[account.username] = StoredAccount(account, password_hash, pin)
        self.notes.extend(notes)
        self.saves += 1

    def record(self, notes: Sequence[AuditNote]) -> None:
        self.notes.extend(notes)

    def set_pin(self, username: str, pin_hash: str | None, notes: Sequence[AuditNote]) -> None:
        old = self.rows[username]
        self.rows[username] = StoredAccount(old.account, old.password_hash, pin_hash)
        self.notes.extend(notes)

    def actions(self) -> list[str]:
        return [str(n.action) for n in self.notes]


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def book() -> FakeBook:
    return FakeBook()


@pytest.fixture
def hasher() -> FakeHasher:
    return FakeHasher()


@pytest.fixture
def service(book: FakeBook, hasher: FakeHasher, clock: FixedClock) -> AccountService:
    return AccountService(book, hasher, clock, LockoutPolicy(5, timedelta(minutes=15)))


@pytest.fixture
def admin(service: AccountService) -> Operator:
    service.create_account("Admin", "Ana Admin", ADMIN_PW, [Role.ADMIN], actor=None)
    return service.sign_in("admin", ADMIN_PW)


@pytest.fixture
def staffed(service: AccountService, admin: Operator) -> AccountService:
    service.create_account("clerk", "Carla Clerk", CLERK_PW, [Role.CLERK], actor=admin)
    service.create_account("director", "Diego Dir", DIRECTOR_PW, [Role.DIRECTOR], actor=admin)
    return service


def _code(exc: pytest.ExceptionInfo[AccountError]) -> str:
    return str(exc.value.code)


# -- the first administrator ----------------------------------------------------------------


def test_the_first_account_needs_no_actor_and_must_administer(service: AccountService) -> None:
    assert not service.has_accounts()
    with pytest.raises(AccountError) as exc:
        service.create_account("clerk", "C", CLERK_PW, [Role.CLERK], actor=None)
    assert _code(exc) == AccountErrorCode.FIRST_ACCOUNT_NOT_ADMIN
    made = service.create_account("  Admin ", "Ana", ADMIN_PW, [Role.ADMIN], actor=None)
    assert made.username == "admin" and made.active and service.has_accounts()
    with pytest.raises(AccountError) as exc:
        service.create_account("other", "O", ADMIN_PW, [Role.ADMIN], actor=None)
    assert _code(exc) == AccountErrorCode.NOT_SIGNED_IN


def test_only_an_administrator_creates_accounts(staffed: AccountService) -> None:
    clerk = staffed.sign_in("clerk", CLERK_PW)
    with pytest.raises(AccountError) as exc:
        staffed.create_account("x", "X", "password-9", [Role.CLERK], actor=clerk)
    assert _code(exc) == AccountErrorCode.ROLE_REQUIRED


@pytest.mark.parametrize(
    ("username", "display", "password", "roles", "code"),
    [
        ("", "X", "password-9", [Role.CLERK], AccountErrorCode.USERNAME_INVALID),
        ("a" * 33, "X", "password-9", [Role.CLERK], AccountErrorCode.USERNAME_INVALID),
        ("ana lópez", "X", "password-9", [Role.CLERK], AccountErrorCode.USERNAME_INVALID),
        ("ana", " ", "password-9", [Role.CLERK], AccountErrorCode.DISPLAY_NAME_INVALID),
        ("ana", "A\x00", "password-9", [Role.CLERK], AccountErrorCode.DISPLAY_NAME_INVALID),
        ("ana", "A", "short", [Role.CLERK], AccountErrorCode.WEAK_PASSWORD),
        ("ana", "A", "x" * 257, [Role.CLERK], AccountErrorCode.WEAK_PASSWORD),
        ("ana", "A", "password-9", [], AccountErrorCode.ROLES_EMPTY),
        ("ADMIN", "A", "password-9", [Role.CLERK], AccountErrorCode.USERNAME_TAKEN),
    ],
)
def test_account_fields_are_checked(
    service: AccountService,
    admin: Operator,
    username: str,
    display: str,
    password: str,
    roles: list[Role],
    code: AccountErrorCode,
) -> None:
    with pytest.raises(AccountError) as exc:
        service.create_account(username, display, password, roles, actor=admin)
    assert _code(exc) == code


# -- signing in, lockout, no enumeration ----------------------------------------------------


def test_sign_in_gives_the_operator_and_audits_it(staffed: AccountService, book: FakeBook) -> None:
    clerk = staffed.sign_in(" CLERK ", CLERK_PW)
    assert clerk == Operator("clerk", "Carla Clerk", frozenset({Role.CLERK}))
    assert book.notes[-1].action == "LOGIN" and book.notes[-1].actor == "clerk"


def test_unknown_user_and_wrong_password_read_the_same_and_cost_the_same(
    staffed: AccountService, book: FakeBook, hasher: FakeHasher
) -> None:
    before = hasher.verified
    with pytest.raises(AccountError) as unknown:
        staffed.sign_in("nobody", CLERK_PW)
    assert hasher.verified == before + 1  # the dummy hash was verified
    with pytest.raises(AccountError) as wrong:
        staffed.sign_in("clerk", "wrong-password")
    assert hasher.verified == before + 2
    assert _code(unknown) == _code(wrong) == AccountErrorCode.BAD_CREDENTIALS
    unknown_note = book.notes[-2]
    assert unknown_note.action == "LOGIN_FAILED"
    assert unknown_note.actor == "-" and "nobody" not in repr(unknown_note)


def test_five_failures_in_a_row_lock_the_account_until_the_time_passes(
    staffed: AccountService, book: FakeBook, clock: FixedClock
) -> None:
    for _ in range(4):
        with pytest.raises(AccountError) as exc:
            staffed.sign_in("clerk", "wrong-password")
        assert _code(exc) == AccountErrorCode.BAD_CREDENTIALS
    with pytest.raises(AccountError) as exc:
        staffed.sign_in("clerk", "wrong-password")
    assert _code(exc) == AccountErrorCode.ACCOUNT_LOCKED
    assert exc.value.locked_until == T0 + timedelta(minutes=15)
    assert book.actions()[-2:] == ["LOGIN_FAILED", "ACCOUNT_LOCKED"]
    with pytest.raises(AccountError) as exc:  # the right password does not open it now
        staffed.sign_in("clerk", CLERK_PW)
    assert _code(exc) == AccountErrorCode.ACCOUNT_LOCKED
    clock.advance(timedelta(minutes=15))
    assert staffed.sign_in("clerk", CLERK_PW).username == "clerk"
    account = staffed.account("clerk")
    assert account is not None and account.failed_attempts == 0 and account.locked_until is None


def test_a_success_starts_the_count_over(staffed: AccountService) -> None:
    for _ in range(4):
        with pytest.raises(AccountError):
            staffed.sign_in("clerk", "wrong-password")
    staffed.sign_in("clerk", CLERK_PW)
    for _ in range(4):
        with pytest.raises(AccountError) as exc:
            staffed.sign_in("clerk", "wrong-password")
        assert _code(exc) == AccountErrorCode.BAD_CREDENTIALS


def test_a_disabled_account_is_said_only_to_whoever_knows_its_password(
    staffed: AccountService, admin: Operator
) -> None:
    staffed.set_active("clerk", False, actor=admin)
    with pytest.raises(AccountError) as exc:
        staffed.sign_in("clerk", "wrong-password")
    assert _code(exc) == AccountErrorCode.BAD_CREDENTIALS
    with pytest.raises(AccountError) as exc:
        staffed.sign_in("clerk", CLERK_PW)
    assert _code(exc) == AccountErrorCode.ACCOUNT_DISABLED


def test_an_old_hash_is_renewed_at_sign_in(
    staffed: AccountService, book: FakeBook, hasher: FakeHasher
) -> None:
    hasher.version = "v2"
    staffed.sign_in("clerk", CLERK_PW)
    assert book.rows["clerk"].password_hash.startswith("v2$")


# -- the director's own credentials (art. 23.5) ---------------------------------------------


def test_authorise_needs_the_director_role(staffed: AccountService, book: FakeBook) -> None:
    director = staffed.authorise("director", DIRECTOR_PW, Role.DIRECTOR, "EXCEPTIONAL_CARD")
    assert director.has(Role.DIRECTOR)
    assert book.notes[-1].action == "AUTHORISED"
    assert book.notes[-1].details == {"role": "DIRECTOR", "purpose": "EXCEPTIONAL_CARD"}
    with pytest.raises(AccountError) as exc:
        staffed.authorise("clerk", CLERK_PW, Role.DIRECTOR, "EXCEPTIONAL_CARD")
    assert _code(exc) == AccountErrorCode.ROLE_REQUIRED
    assert book.notes[-1].action == "AUTHORISATION_FAILED"
    assert book.notes[-1].details["reason"] == "ROLE_REQUIRED"
    with pytest.raises(AccountError) as exc:
        staffed.authorise("director", "wrong-password", Role.DIRECTOR, "EXCEPTIONAL_CARD")
    assert _code(exc) == AccountErrorCode.BAD_CREDENTIALS
    with pytest.raises(AccountError) as exc:
        staffed.authorise("director", DIRECTOR_PW, Role.DIRECTOR, " ")
    assert _code(exc) == AccountErrorCode.PURPOSE_INVALID


def test_admin_is_not_director(staffed: AccountService) -> None:
    with pytest.raises(AccountError) as exc:
        staffed.authorise("admin", ADMIN_PW, Role.DIRECTOR, "OVERRIDE")
    assert _code(exc) == AccountErrorCode.ROLE_REQUIRED


# -- the session lock ------------------------------------------------------------------------


def test_only_the_locked_operator_unlocks(staffed: AccountService, book: FakeBook) -> None:
    clerk = staffed.sign_in("clerk", CLERK_PW)
    director = staffed.sign_in("director", DIRECTOR_PW)
    staffed.lock_session(clerk)
    with pytest.raises(AccountError) as exc:
        staffed.unlock_session(director, DIRECTOR_PW)
    assert _code(exc) == AccountErrorCode.SESSION_OPERATOR_MISMATCH
    with pytest.raises(AccountError) as exc:
        staffed.unlock_session(clerk, "wrong-password")
    assert _code(exc) == AccountErrorCode.BAD_CREDENTIALS
    assert staffed.unlock_session(clerk, CLERK_PW) == clerk
    assert book.actions()[-1] == "SESSION_UNLOCKED"
    staffed.sign_out(clerk, "switch")
    assert book.notes[-1].action == "LOGOUT" and book.notes[-1].details == {"reason": "switch"}


def test_idle_lock_is_due_after_the_timeout_of_no_activity() -> None:
    idle = IdleLock()
    assert not idle.due(T0)  # nobody signed in: nothing to lock
    idle.touch(T0)
    assert not idle.due(T0 + timedelta(minutes=4, seconds=59))
    idle.touch(T0 + timedelta(minutes=4))
    assert not idle.due(T0 + timedelta(minutes=8))
    assert idle.due(T0 + timedelta(minutes=9))
    idle.touch(T0 + timedelta(hours=1))
    assert not idle.due(T0)  # the clock went back: counts from then
    assert idle.due(T0 + timedelta(minutes=5))
    with pytest.raises(ConfigError):
        IdleLock(timedelta(0))
    with pytest.raises(ConfigError):
        LockoutPolicy(0)


# -- administration --------------------------------------------------------------------------


def test_the_last_active_administrator_stays(
    staffed: AccountService, admin: Operator, book: FakeBook
) -> None:
    with pytest.raises(AccountError) as exc:
        staffed.set_active("admin", False, actor=admin)
    assert _code(exc) == AccountErrorCode.LAST_ADMIN
    with pytest.raises(AccountError) as exc:
        staffed.set_roles("admin", [Role.DIRECTOR], actor=admin)
    assert _code(exc) == AccountErrorCode.LAST_ADMIN
    staffed.set_roles("director", [Role.DIRECTOR, Role.ADMIN], actor=admin)
    changed = staffed.set_roles("admin", [Role.CLERK], actor=admin)
    assert changed.roles == {Role.CLERK}
    assert book.notes[-1].details == {"change": "roles", "roles": "CLERK"}
    with pytest.raises(AccountError) as exc:  # the stored account decides, not the value
        staffed.set_active("clerk", False, actor=admin)
    assert _code(exc) == AccountErrorCode.ROLE_REQUIRED


def test_clear_lockout_and_set_password(staffed: AccountService, admin: Operator) -> None:
    for _ in range(5):
        with pytest.raises(AccountError):
            staffed.sign_in("clerk", "wrong-password")
    cleared = staffed.clear_lockout("clerk", actor=admin)
    assert cleared.locked_until is None and cleared.failed_attempts == 0
    staffed.set_password("clerk", "a-new-password", actor=admin)
    assert staffed.sign_in("clerk", "a-new-password").username == "clerk"
    clerk = staffed.sign_in("clerk", "a-new-password")
    staffed.set_password("clerk", "own-password-2", actor=clerk)  # one's own password
    with pytest.raises(AccountError) as exc:
        staffed.set_password("director", "not-yours-123", actor=clerk)
    assert _code(exc) == AccountErrorCode.ROLE_REQUIRED
    with pytest.raises(AccountError) as exc:
        staffed.clear_lockout("ghost", actor=admin)
    assert _code(exc) == AccountErrorCode.ACCOUNT_UNKNOWN


def test_no_password_or_hash_reaches_an_audit_note_or_a_repr(
    staffed: AccountService, book: FakeBook, admin: Operator
) -> None:
    with pytest.raises(AccountError):
        staffed.sign_in("clerk", "wrong-password")
    staffed.sign_in("clerk", CLERK_PW)
    staffed.set_password("clerk", "a-new-password", actor=admin)
    secrets_ = [ADMIN_PW, CLERK_PW, DIRECTOR_PW, "wrong-password", "a-new-password"]
    secrets_ += [s[::-1] for s in secrets_]  # the fake hashes
    text = repr(book.notes) + repr(book.all_accounts()) + repr(list(book.rows.values()))
    assert not [s for s in secrets_ if s in text]
    assert "Carla" not in repr(book.all_accounts())  # no display names in logs either

"""The people who work the desk: roles, accounts, sign-in and the idle lock.

Art. 20.3 makes the game director answer for the admission service; art. 23.5 and
24 give the director decisions (exceptional cards, overrides) the clerk may not take.
So every admission names the operator who signed in, and a director's decision needs
the director's own credentials at that moment, never the clerk's session.

:class:`AccountService` holds the rules (lockout, no user enumeration, the last
administrator, the first account); the store behind :class:`AccountBook` keeps the rows
and the audit entries, and a :class:`PasswordHasher` (argon2id in ``db/accounts.py``)
the password hashes. No password and no hash ever reaches an audit entry or a log.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum, unique
from typing import Protocol

from admission.codes import Code
from admission.errors import AdmissionError, ConfigError
from admission.ports import Clock

__all__ = [
    "ADMIT_ROLES",
    "DEFAULT_IDLE",
    "FILE_KEY_ACTOR",
    "PIN_ATTEMPTS",
    "PIN_PAUSE",
    "RESERVED_USERNAMES",
    "Account",
    "AccountAction",
    "AccountBook",
    "AccountError",
    "AccountErrorCode",
    "AccountService",
    "AuditNote",
    "IdleLock",
    "LockoutPolicy",
    "Operator",
    "PasswordHasher",
    "Role",
    "StoredAccount",
    "may_admit",
    "normal_username",
    "role_list",
]

MIN_PASSWORD = 8
MAX_PASSWORD = 256  # longer input is refused before any hashing (bounded work)
MAX_DISPLAY_NAME = 80
MAX_PURPOSE = 80
MAX_REASON = 40
USERNAME = re.compile(r"[a-z0-9._-]{1,32}")
FILE_KEY_ACTOR = "file-key"  # the actor of an account made with the file's key (user add)
UNKNOWN_ACTOR = "-"  # actor of an attempt on a name that is no account: never the typed text
# Actors the program itself writes into the audit trail (art. 20.4: the trail names who
# did what): an account under one of these names would pass its acts off as the
# program's (``cli`` before the first account, ``init``/``restore``/``migration`` of the
# file, ``system``/``retention`` of the purge, ``card-printer``, the window's ``desk``,
# ``demo``, the register's, the voucher book's and the settings file's own entries), so
# none can become an account. tests/test_cli_access.py finds every actor name written in
# the code and checks it is here.
RESERVED_USERNAMES = frozenset(
    {
        FILE_KEY_ACTOR,
        "cli",
        "system",
        "init",
        "restore",
        "migration",
        "demo",
        "retention",
        "card-printer",
        "desk",
        "registry",
        "voucher-book",
        "settings-file",
        "audit-upgrade",  # the chain's own entries (db/chain.py: keyed, baseline, coverage)
    }
)
DEFAULT_IDLE = timedelta(minutes=5)
# The quick unlock: a short PIN opens the desk its own operator locked (never a sign-in,
# which takes the password). Three wrong PINs and only the password opens it; each wrong
# PIN makes the next attempt wait a little longer (PIN_PAUSE times the failures).
PIN = re.compile(r"[0-9]{4,8}")
PIN_ATTEMPTS = 3
PIN_PAUSE = timedelta(seconds=2)


@unique
class Role(StrEnum):
    CLERK = "CLERK"  # admits visitors, issues cards and vouchers
    DIRECTOR = "DIRECTOR"  # game director (art. 20.3): exceptions, bans, staff, voids
    INSPECTOR = "INSPECTOR"  # gaming inspector of the Comunidad: queries the file
    ADMIN = "ADMIN"  # accounts, settings, devices (no admission decision by itself)
    FLOOR = "FLOOR"  # floor staff: check entry cards on the gaming floor (art. 22.4), no more


@dataclass(frozen=True, slots=True)
class Operator:
    """A person who proved who they are (password checked just now)."""

    username: str
    display_name: str
    roles: frozenset[Role]

    def has(self, role: Role) -> bool:
        """Roles are separate duties: ADMIN does not imply DIRECTOR."""
        return role in self.roles

    def __repr__(self) -> str:  # the user name is not personal data of a visitor
        return f"Operator({self.username!r}, roles={sorted(self.roles)})"


@unique
class AccountErrorCode(Code):
    """Why a sign-in, an authorisation or a change of accounts is refused."""

    BAD_CREDENTIALS = "BAD_CREDENTIALS"  # unknown user or wrong password: never which
    ACCOUNT_LOCKED = "ACCOUNT_LOCKED"  # too many failures in a row; until locked_until
    ACCOUNT_DISABLED = "ACCOUNT_DISABLED"
    ROLE_REQUIRED = "ROLE_REQUIRED"  # the account lacks the role the act needs
    WEAK_PASSWORD = "WEAK_PASSWORD"  # fewer than 8 (or more than 256) characters
    USERNAME_TAKEN = "USERNAME_TAKEN"
    USERNAME_INVALID = "USERNAME_INVALID"  # 1-32 of a-z 0-9 . _ -
    USERNAME_RESERVED = "USERNAME_RESERVED"  # an actor the program writes (RESERVED_USERNAMES)
    DISPLAY_NAME_INVALID = "DISPLAY_NAME_INVALID"  # 1-80 printable characters
    ROLES_EMPTY = "ROLES_EMPTY"
    FIRST_ACCOUNT_NOT_ADMIN = "FIRST_ACCOUNT_NOT_ADMIN"  # the first account administers
    ACCOUNT_UNKNOWN = "ACCOUNT_UNKNOWN"  # an administrator named no account
    NOT_SIGNED_IN = "NOT_SIGNED_IN"
    LAST_ADMIN = "LAST_ADMIN"  # the last active administrator stays one
    SESSION_OPERATOR_MISMATCH = "SESSION_OPERATOR_MISMATCH"  # not the locked operator
    PURPOSE_INVALID = "PURPOSE_INVALID"  # an authorisation names what it is for
    PIN_INVALID = "PIN_INVALID"  # a PIN is 4 to 8 digits
    PIN_NOT_SET = "PIN_NOT_SET"  # the operator has no PIN: the password opens the desk
    PIN_ATTEMPTS_EXHAUSTED = "PIN_ATTEMPTS_EXHAUSTED"  # three wrong PINs: the password now
    PIN_WAIT = "PIN_WAIT"  # too soon after a wrong PIN (retry_at says when)
    PIN_WRONG = "PIN_WRONG"  # not the operator's PIN (the user name is known: no secret)


class AccountAction(StrEnum):
    """Audit actions of the accounts (the trail of art. 20.4 names who did what)."""

    LOGIN = "LOGIN"
    LOGIN_FAILED = "LOGIN_FAILED"
    ACCOUNT_LOCKED = "ACCOUNT_LOCKED"
    LOGOUT = "LOGOUT"
    SESSION_LOCKED = "SESSION_LOCKED"
    SESSION_UNLOCKED = "SESSION_UNLOCKED"
    AUTHORISED = "AUTHORISED"
    AUTHORISATION_FAILED = "AUTHORISATION_FAILED"
    ACCOUNT_CREATED = "ACCOUNT_CREATED"
    ACCOUNT_CHANGED = "ACCOUNT_CHANGED"


class AccountError(AdmissionError):
    """``locked_until`` is set with ACCOUNT_LOCKED (the desk says until when)."""

    code: Code = AccountErrorCode.BAD_CREDENTIALS

    def __init__(
        self, detail: str = "", *, code: Code | None = None, locked_until: datetime | None = None
    ) -> None:
        super().__init__(detail, code=code)
        self.locked_until = locked_until


@dataclass(frozen=True, slots=True)
class Account:
    """A desk account as stored; the password hash is kept apart (:class:`StoredAccount`)."""

    username: str
    display_name: str
    roles: frozenset[Role]
    active: bool
    failed_attempts: int
    locked_until: datetime | None
    created_at: datetime

    def locked_at(self, now: datetime) -> bool:
        return self.locked_until is not None and now < self.locked_until

    def operator(self) -> Operator:
        return Operator(self.username, self.display_name, self.roles)

    def __repr__(self) -> str:  # no display name in logs, and no secret is held here
        return (
            f"Account({self.username!r}, roles={sorted(self.roles)}, active={self.active}, "
            f"failed_attempts={self.failed_attempts}, locked_until={self.locked_until})"
        )


@dataclass(frozen=True, slots=True)
class StoredAccount:
    account: Account
    password_hash: str = field(repr=False)
    pin_hash: str | None = field(default=None, repr=False)  # the quick unlock's, if set


@dataclass(frozen=True, slots=True)
class AuditNote:
    """One audit entry, as ``AuditTrail.append`` takes it."""

    actor: str
    action: AccountAction
    subject: str
    at: datetime
    details: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LockoutPolicy:
    """``max_failures`` wrong passwords in a row lock the account for ``lock_for``."""

    max_failures: int = 5
    lock_for: timedelta = timedelta(minutes=15)

    def __post_init__(self) -> None:
        if not 1 <= self.max_failures <= 100 or not (
            timedelta(minutes=1) <= self.lock_for <= timedelta(days=1)
        ):
            raise ConfigError("lockout: 1-100 failures, 1 minute to 1 day")


class IdleLock:
    """When an unattended desk locks (pure: the caller passes the time)."""

    def __init__(self, timeout: timedelta = DEFAULT_IDLE) -> None:
        if not timedelta(seconds=10) <= timeout <= timedelta(hours=12):
            raise ConfigError("idle lock: 10 seconds to 12 hours")
        self.timeout = timeout
        self._last: datetime | None = None

    def touch(self, now: datetime) -> None:
        self._last = now

    def reset(self) -> None:
        """Nothing to lock (signed out or already locked)."""
        self._last = None

    def due(self, now: datetime) -> bool:
        if self._last is None:
            return False
        if now < self._last:  # the clock went back: count from now, never wait for it
            self._last = now
        return now - self._last >= self.timeout


class PasswordHasher(Protocol):
    def hash(self, password: str) -> str: ...

    def verify(self, password_hash: str, password: str) -> bool: ...

    def needs_rehash(self, password_hash: str) -> bool: ...


class AccountBook(Protocol):
    """Where accounts are kept: a row and its audit entries are written together."""

    def account_count(self) -> int: ...

    def find(self, username: str) -> StoredAccount | None: ...

    def all_accounts(self) -> list[Account]: ...

    def save(
        self,
        account: Account,
        password_hash: str,
        notes: Sequence[AuditNote],
        *,
        created: bool = False,
    ) -> None:
        """Insert (``created``; USERNAME_TAKEN if the name exists) or update the row, and
        append ``notes``, in one transaction."""
        ...

    def record(self, notes: Sequence[AuditNote]) -> None:
        """Append entries that change no row."""
        ...

    def set_pin(self, username: str, pin_hash: str | None, notes: Sequence[AuditNote]) -> None:
        """Keep (or, with None, remove) the account's PIN hash and append ``notes``, the
        last committing to the row, in one transaction; ``save`` keeps the PIN as it is."""
        ...


ADMIT_ROLES = frozenset({Role.CLERK, Role.DIRECTOR})  # who admits (arts. 20.3, 21-23)


def may_admit(operator: Operator | None) -> bool:
    """A clerk or the game director works the desk and admits (art. 20.3: the director
    answers for the admission service); an inspector reads, an administrator manages
    accounts, and neither admits."""
    return operator is not None and any(operator.has(r) for r in ADMIT_ROLES)


def normal_username(text: str) -> str:
    """The user name as stored: trimmed, lower-cased, 1-32 of ``a-z 0-9 . _ -``."""
    name = text.strip().lower() if isinstance(text, str) else ""
    if not USERNAME.fullmatch(name):
        raise AccountError("user name not valid", code=AccountErrorCode.USERNAME_INVALID)
    return name


def _text(value: str, limit: int, code: AccountErrorCode) -> str:
    clean = value.strip() if isinstance(value, str) else ""
    if not 0 < len(clean) <= limit or any(unicodedata.category(c)[0] == "C" for c in clean):
        raise AccountError("text not valid", code=code)
    return clean


def _password(password: str) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError("password too short or too long", code=AccountErrorCode.WEAK_PASSWORD)
    return password


def _roles(roles: Iterable[Role]) -> frozenset[Role]:
    found = frozenset(Role(r) for r in roles)
    if not found:
        raise AccountError("an account needs a role", code=AccountErrorCode.ROLES_EMPTY)
    return found


def _subject(username: str) -> str:
    return f"account:{username}"


def role_list(roles: Iterable[Role]) -> str:
    return ",".join(sorted(str(r) for r in roles))


class AccountService:
    """Accounts, sign-in, director authorisation and the session lock (art. 20.3, 23.5)."""

    def __init__(
        self,
        book: AccountBook,
        hasher: PasswordHasher,
        clock: Clock,
        policy: LockoutPolicy | None = None,
    ) -> None:
        self._book = book
        self._hasher = hasher
        self._clock = clock
        self.policy = policy or LockoutPolicy()
        self._dummy: str | None = None
        self._locked_sessions: set[str] = set()
        # wrong PINs in a row per user name, and when the last one was typed (memory
        # only: a restart asks for the password, as the lock is not kept either)
        self._pin_failures: dict[str, tuple[int, datetime]] = {}

    # -- reading -------------------------------------------------------------------------
    def has_accounts(self) -> bool:
        return self._book.account_count() > 0

    def accounts(self) -> list[Account]:
        return self._book.all_accounts()

    def account(self, username: str) -> Account | None:
        try:
            found = self._book.find(normal_username(username))
        except AccountError:
            return None
        return None if found is None else found.account

    # -- signing in ----------------------------------------------------------------------
    def sign_in(self, username: str, password: str) -> Operator:
        stored = self._check(username, password, AccountAction.LOGIN_FAILED, {})
        self._succeeded(stored, password, AccountAction.LOGIN, {})
        self._locked_sessions.discard(stored.account.username)
        self._pin_failures.pop(stored.account.username, None)
        return stored.account.operator()

    def authorise(self, username: str, password: str, role: Role, purpose: str) -> Operator:
        """The credentials of the person who takes a decision of ``role`` now, e.g. the
        game director's for an exceptional card (art. 23.5): audited with ``purpose``."""
        what = {"role": str(Role(role)), "purpose": _purpose(purpose)}
        stored = self._check(username, password, AccountAction.AUTHORISATION_FAILED, what)
        if role not in stored.account.roles:
            refused = {**what, "reason": str(AccountErrorCode.ROLE_REQUIRED)}
            self._succeeded(stored, password, AccountAction.AUTHORISATION_FAILED, refused)
            raise AccountError("the account lacks the role", code=AccountErrorCode.ROLE_REQUIRED)
        self._succeeded(stored, password, AccountAction.AUTHORISED, what)
        self._pin_failures.pop(stored.account.username, None)  # the password proved it
        return stored.account.operator()

    def sign_out(self, operator: Operator, reason: str) -> None:
        why = _text(reason, MAX_REASON, AccountErrorCode.PURPOSE_INVALID)
        self._locked_sessions.discard(operator.username)
        self._note(operator.username, AccountAction.LOGOUT, {"reason": why})

    def lock_session(self, operator: Operator) -> None:
        """The unattended desk locks; only the same operator's password opens it."""
        self._locked_sessions.add(operator.username)
        self._note(operator.username, AccountAction.SESSION_LOCKED, {})

    def unlock_session(self, operator: Operator, password: str) -> Operator:
        self._check_locked_by(operator)
        failed = {"mode": "unlock"}
        stored = self._check(operator.username, password, AccountAction.LOGIN_FAILED, failed)
        self._succeeded(stored, password, AccountAction.SESSION_UNLOCKED, {})
        self._locked_sessions.discard(operator.username)
        self._pin_failures.pop(operator.username, None)
        return stored.account.operator()

    def _check_locked_by(self, operator: Operator) -> None:
        """Only the operator whose session locked the desk opens it (password or PIN)."""
        if operator.username not in self._locked_sessions:
            raise AccountError(
                "not the locked operator", code=AccountErrorCode.SESSION_OPERATOR_MISMATCH
            )

    # -- the quick unlock: a PIN of the operator's own -------------------------------------
    def has_pin(self, username: str) -> bool:
        found = self._find_quietly(username)
        return found is not None and found.pin_hash is not None

    def set_pin(self, operator: Operator, password: str, pin: str | None) -> None:
        """The operator's own PIN (4-8 digits; None removes it), confirmed with the
        password at that moment: nobody at a desk left open sets a PIN to open it
        later. Kept as an argon2id hash, like the password; audited, never the PIN."""
        chosen = None if pin is None else _pin(pin)  # refused before any hashing
        details = {"mode": "pin"}
        stored = self._check(operator.username, password, AccountAction.LOGIN_FAILED, details)
        self._succeeded(stored, password, AccountAction.AUTHORISED, {"purpose": "PIN"})
        name = stored.account.username
        change = {"change": "pin" if chosen is not None else "pin_removed"}
        note = AuditNote(name, AccountAction.ACCOUNT_CHANGED, _subject(name), self._clock.now(),
                         change)  # fmt: skip
        new_hash = None if chosen is None else self._hasher.hash(chosen)
        self._book.set_pin(name, new_hash, [note])
        self._pin_failures.pop(name, None)

    def unlock_with_pin(self, operator: Operator, pin: str) -> Operator:
        """The locked operator's PIN opens the desk (never a sign-in). After
        :data:`PIN_ATTEMPTS` wrong PINs only the password does (PIN_ATTEMPTS_EXHAUSTED)."""
        self._check_locked_by(operator)
        details = {"mode": "unlock_pin"}
        stored = self._pin_check(operator.username, pin, AccountAction.LOGIN_FAILED, details)
        self._note(stored.account.username, AccountAction.SESSION_UNLOCKED, {"mode": "pin"})
        self._locked_sessions.discard(operator.username)
        return stored.account.operator()

    def authorise_with_pin(
        self, operator: Operator, pin: str, role: Role, purpose: str
    ) -> Operator:
        """The signed-in operator confirms a decision of ``role`` with their PIN (the
        director at their own desk, art. 20.3): audited as :meth:`authorise` is, with
        ``mode: pin``. A locked session confirms nothing."""
        what = {"role": str(Role(role)), "purpose": _purpose(purpose), "mode": "pin"}
        if operator.username in self._locked_sessions:
            raise AccountError("the session is locked", code=AccountErrorCode.NOT_SIGNED_IN)
        failed = AccountAction.AUTHORISATION_FAILED
        stored = self._pin_check(operator.username, pin, failed, what)
        account = stored.account
        if role not in account.roles:
            refused = {**what, "reason": str(AccountErrorCode.ROLE_REQUIRED)}
            self._note(account.username, failed, refused)
            raise AccountError("the account lacks the role", code=AccountErrorCode.ROLE_REQUIRED)
        self._note(account.username, AccountAction.AUTHORISED, what)
        return account.operator()

    def _pin_check(
        self, username: str, pin: str, failed: AccountAction, details: dict[str, str]
    ) -> StoredAccount:
        """The account whose PIN this is, or an audited refusal. A wrong PIN counts
        towards the PIN's own limit (not the password's lockout); a locked or disabled
        account opens with no PIN."""
        now = self._clock.now()
        stored = self._find_quietly(username)
        if stored is None or stored.pin_hash is None:
            raise AccountError("no PIN", code=AccountErrorCode.PIN_NOT_SET)
        account = stored.account
        if account.locked_at(now):
            self._refuse(account, failed, details, AccountErrorCode.ACCOUNT_LOCKED, now)
        if not account.active:
            self._refuse(account, failed, details, AccountErrorCode.ACCOUNT_DISABLED, now)
        failures, last = self._pin_failures.get(account.username, (0, now))
        if failures >= PIN_ATTEMPTS:
            raise AccountError("the password now", code=AccountErrorCode.PIN_ATTEMPTS_EXHAUSTED)
        retry_at = last + PIN_PAUSE * failures
        if now < retry_at:  # not counted: nothing was checked
            raise AccountError("too soon", code=AccountErrorCode.PIN_WAIT, locked_until=retry_at)
        usable = isinstance(pin, str) and PIN.fullmatch(pin) is not None
        if usable and self._hasher.verify(stored.pin_hash, pin):
            self._pin_failures.pop(account.username, None)
            return stored
        failures += 1
        self._pin_failures[account.username] = (failures, now)
        code = (
            AccountErrorCode.PIN_ATTEMPTS_EXHAUSTED
            if failures >= PIN_ATTEMPTS
            else AccountErrorCode.PIN_WRONG
        )
        self._note(account.username, failed, {**details, "reason": str(code)})
        raise AccountError("wrong PIN", code=code)

    # -- the floor: username and PIN on a phone (art. 22.4) ------------------------------
    def sign_in_with_pin(self, username: str, pin: str) -> Operator:
        """A sign-in on the floor's phone page with the account's PIN. Unlike the desk's
        quick unlock, a wrong PIN here counts towards the account's lockout as a wrong
        password does (:class:`LockoutPolicy`), and an unknown user, an account without
        a PIN and a wrong PIN all answer BAD_CREDENTIALS at the same hashing cost.
        The caller checks the roles (the floor's page is for FLOOR, INSPECTOR, DIRECTOR)."""
        details = {"mode": "floor_pin"}
        now = self._clock.now()
        dummy = self._dummy_hash()  # made before the look-up: the first attempt costs alike
        stored = self._find_quietly(username)
        usable = isinstance(pin, str) and PIN.fullmatch(pin) is not None
        pin_hash = None if stored is None else stored.pin_hash
        matches = False
        if pin_hash is not None and usable:
            matches = self._hasher.verify(pin_hash, pin)
        else:
            self._hasher.verify(dummy, "-")
        if stored is None:
            failed = AccountAction.LOGIN_FAILED
            self._book.record([AuditNote(UNKNOWN_ACTOR, failed, "account:?", now, details)])
            raise AccountError("bad credentials", code=AccountErrorCode.BAD_CREDENTIALS)
        account = stored.account
        if account.locked_at(now):  # no attempt counts, nor opens, while locked
            self._refuse(
                account, AccountAction.LOGIN_FAILED, details, AccountErrorCode.ACCOUNT_LOCKED, now
            )
        if not matches:
            self._failed(stored, AccountAction.LOGIN_FAILED, details, now)
        if not account.active:  # said only to whoever knows the PIN
            self._refuse(
                account, AccountAction.LOGIN_FAILED, details, AccountErrorCode.ACCOUNT_DISABLED, now
            )
        note = AuditNote(
            account.username, AccountAction.LOGIN, _subject(account.username), now, details
        )
        if account.failed_attempts or account.locked_until is not None:
            fresh = replace(account, failed_attempts=0, locked_until=None)
            self._book.save(fresh, stored.password_hash, [note])
        else:
            self._book.record([note])
        return account.operator()

    # -- administration (ADMIN) ----------------------------------------------------------
    def create_account(
        self,
        username: str,
        display_name: str,
        password: str,
        roles: Iterable[Role],
        *,
        actor: Operator | None,
        file_key: bool = False,
    ) -> Account:
        """``actor`` None only for the first account, which must administer.
        ``file_key``: made by whoever opened the file with its key (the command line's
        ``user add``): the key opens every record, so its holder acts as the
        administrator; audited under :data:`FILE_KEY_ACTOR`."""
        name = normal_username(username)
        if name in RESERVED_USERNAMES:  # the trail's names for the program, never an account
            raise AccountError("reserved user name", code=AccountErrorCode.USERNAME_RESERVED)
        display = _text(display_name, MAX_DISPLAY_NAME, AccountErrorCode.DISPLAY_NAME_INVALID)
        chosen = _roles(roles)
        _password(password)
        if file_key or actor is None:
            actor, first = None, not self.has_accounts()
            if not (first or file_key):
                raise AccountError("sign in first", code=AccountErrorCode.NOT_SIGNED_IN)
            if first and Role.ADMIN not in chosen:
                raise AccountError(
                    "the first account administers", code=AccountErrorCode.FIRST_ACCOUNT_NOT_ADMIN
                )
        else:
            self._admin(actor)
        if self._book.find(name) is not None:
            raise AccountError("user name taken", code=AccountErrorCode.USERNAME_TAKEN)
        now = self._clock.now()
        account = Account(name, display, chosen, True, 0, None, now)
        note = AuditNote(
            FILE_KEY_ACTOR if file_key else name if actor is None else actor.username,
            AccountAction.ACCOUNT_CREATED,
            _subject(name),
            now,
            {"roles": role_list(chosen)},
        )
        self._book.save(account, self._hasher.hash(password), [note], created=True)
        return account

    def set_password(self, username: str, password: str, *, actor: Operator) -> None:
        """An administrator, or the operator for their own account."""
        stored = self._target(username)
        if actor.username != stored.account.username:
            self._admin(actor)
        new_hash = self._hasher.hash(_password(password))
        self._change(stored, actor, {"change": "password"}, password_hash=new_hash)

    def set_roles(self, username: str, roles: Iterable[Role], *, actor: Operator) -> Account:
        self._admin(actor)
        stored, chosen = self._target(username), _roles(roles)
        if Role.ADMIN not in chosen:
            self._keep_an_admin(stored.account)
        change = {"change": "roles", "roles": role_list(chosen)}
        return self._change(stored, actor, change, roles=chosen)

    def set_active(self, username: str, active: bool, *, actor: Operator) -> Account:
        self._admin(actor)
        stored = self._target(username)
        if not active:
            self._keep_an_admin(stored.account)
            self._locked_sessions.discard(stored.account.username)
        change = {"change": "active" if active else "inactive"}
        return self._change(stored, actor, change, active=bool(active))

    def clear_lockout(self, username: str, *, actor: Operator) -> Account:
        self._admin(actor)
        stored = self._target(username)
        change = {"change": "lockout_cleared"}
        return self._change(stored, actor, change, failed_attempts=0, locked_until=None)

    # -- the checks ----------------------------------------------------------------------
    def _check(
        self, username: str, password: str, failed: AccountAction, details: dict[str, str]
    ) -> StoredAccount:
        """The account whose password this is, or an audited refusal. An unknown name
        costs the same hashing as a known one and reads the same (no user enumeration)."""
        now = self._clock.now()
        dummy = self._dummy_hash()  # made before the look-up: the first attempt costs alike
        stored = self._find_quietly(username)
        usable = isinstance(password, str) and 0 < len(password) <= MAX_PASSWORD
        if stored is None or not usable:
            self._hasher.verify(dummy, "-")
        if stored is None:
            self._book.record([AuditNote(UNKNOWN_ACTOR, failed, "account:?", now, details)])
            raise AccountError("bad credentials", code=AccountErrorCode.BAD_CREDENTIALS)
        account = stored.account
        matches = usable and self._hasher.verify(stored.password_hash, password)
        if account.locked_at(now):  # no attempt counts, nor opens, while locked
            self._refuse(account, failed, details, AccountErrorCode.ACCOUNT_LOCKED, now)
        if not matches:
            self._failed(stored, failed, details, now)
        if not account.active:  # said only to whoever knows the password
            self._refuse(account, failed, details, AccountErrorCode.ACCOUNT_DISABLED, now)
        return stored

    def _refuse(
        self,
        account: Account,
        failed: AccountAction,
        details: dict[str, str],
        code: AccountErrorCode,
        now: datetime,
    ) -> None:
        note = AuditNote(
            account.username, failed, _subject(account.username), now,
            {**details, "reason": str(code)},
        )  # fmt: skip
        self._book.record([note])
        raise AccountError("refused", code=code, locked_until=account.locked_until)

    def _failed(
        self, stored: StoredAccount, failed: AccountAction, details: dict[str, str], now: datetime
    ) -> None:
        account = stored.account
        expired = account.locked_until is not None  # a lock that ran out starts a new count
        attempts = 1 if expired else account.failed_attempts + 1
        reason = {**details, "reason": str(AccountErrorCode.BAD_CREDENTIALS)}
        subject = _subject(account.username)
        notes = [AuditNote(account.username, failed, subject, now, reason)]
        locked_until = None
        if attempts >= self.policy.max_failures:
            locked_until = now + self.policy.lock_for
            notes.append(
                AuditNote(
                    account.username,
                    AccountAction.ACCOUNT_LOCKED,
                    subject,
                    now,
                    {"failures": str(attempts), "until": locked_until.isoformat()},
                )
            )
        changed = replace(account, failed_attempts=attempts, locked_until=locked_until)
        self._book.save(changed, stored.password_hash, notes)
        if locked_until is not None:
            raise AccountError(
                "account locked", code=AccountErrorCode.ACCOUNT_LOCKED, locked_until=locked_until
            )
        raise AccountError("bad credentials", code=AccountErrorCode.BAD_CREDENTIALS)

    def _succeeded(
        self,
        stored: StoredAccount,
        password: str,
        action: AccountAction,
        details: dict[str, str],
    ) -> None:
        """The password was right: the failure count starts over, an old hash is renewed."""
        account, old_hash = stored.account, stored.password_hash
        new_hash = self._hasher.hash(password) if self._hasher.needs_rehash(old_hash) else old_hash
        note = AuditNote(
            account.username, action, _subject(account.username), self._clock.now(), details
        )
        if account.failed_attempts or account.locked_until is not None or new_hash != old_hash:
            fresh = replace(account, failed_attempts=0, locked_until=None)
            self._book.save(fresh, new_hash, [note])
        else:
            self._book.record([note])

    def _admin(self, actor: Operator) -> None:
        """The stored account decides, not the (possibly older) operator value."""
        stored = self._find_quietly(actor.username)
        if stored is None or not stored.account.active or Role.ADMIN not in stored.account.roles:
            raise AccountError("an administrator is needed", code=AccountErrorCode.ROLE_REQUIRED)

    def _keep_an_admin(self, account: Account) -> None:
        if not account.active or Role.ADMIN not in account.roles:
            return
        others = [
            a
            for a in self._book.all_accounts()
            if a.active and Role.ADMIN in a.roles and a.username != account.username
        ]
        if not others:
            raise AccountError("the last administrator", code=AccountErrorCode.LAST_ADMIN)

    def _target(self, username: str) -> StoredAccount:
        stored = self._book.find(normal_username(username))
        if stored is None:
            raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
        return stored

    def _change(
        self,
        stored: StoredAccount,
        actor: Operator,
        details: dict[str, str],
        *,
        password_hash: str | None = None,
        **fields: object,
    ) -> Account:
        changed = replace(stored.account, **fields)  # type: ignore[arg-type]
        name = changed.username
        note = AuditNote(
            actor.username, AccountAction.ACCOUNT_CHANGED, _subject(name), self._clock.now(),
            details,
        )  # fmt: skip
        self._book.save(changed, password_hash or stored.password_hash, [note])
        return changed

    def _note(self, username: str, action: AccountAction, details: dict[str, str]) -> None:
        now = self._clock.now()
        self._book.record([AuditNote(username, action, _subject(username), now, details)])

    def _find_quietly(self, username: str) -> StoredAccount | None:
        try:
            return self._book.find(normal_username(username))
        except AccountError:
            return None

    def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = self._hasher.hash(secrets.token_urlsafe(16))
        return self._dummy


def _pin(pin: str) -> str:
    if not isinstance(pin, str) or PIN.fullmatch(pin) is None:
        raise AccountError("a PIN is 4 to 8 digits", code=AccountErrorCode.PIN_INVALID)
    return pin


def _purpose(purpose: str) -> str:
    return _text(purpose, MAX_PURPOSE, AccountErrorCode.PURPOSE_INVALID)

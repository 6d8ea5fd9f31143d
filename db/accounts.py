"""Desk accounts (art. 20.3; art. 23.5: the director's own credentials), argon2id hashes,
over both dialects (db/tx.py). The chain commits to each row: a role or a hash changed
behind the program's back does not verify. The file keeps a column per field; the server
the user name in clear and the rest as ONE record sealed to it (db/pg/crypto.py): its
administrator can neither read a hash, nor give a role, nor move a record to another name."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from argon2 import DEFAULT_MEMORY_COST, DEFAULT_PARALLELISM, DEFAULT_TIME_COST
from argon2 import PasswordHasher as _Argon2
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from admission.accounts import (
    Account,
    AccountError,
    AccountErrorCode,
    AccountService,
    AuditNote,
    LockoutPolicy,
    Operator,
    PasswordHasher,
    Role,
    StoredAccount,
    normal_username,
    role_list,
)
from admission.ports import Clock
from db import codec
from db.audit_rows import Content, Covered
from db.tx import AuditRows, Tx, scalar, update_row
from db.voucher_book import Store, reseal_rows

if TYPE_CHECKING:
    from db.pg.crypto import KeyRing, RotationReport

ActLocks = Callable[[Sequence[str]], AbstractContextManager[None]]
_ADMIN_LOCK = "administration"  # the lock every change of accounts takes first
# the fields of an account, in the order the chain commits to them after the user name
_FIELDS = (
    "display_name",
    "roles",
    "active",
    "password_hash",
    "failed_attempts",
    "locked_until",
    "created_at",
)


class Argon2Hasher:
    """argon2id (RFC 9106, low memory) through argon2-cffi, its default profile unless tests
    pass cheap costs. A hash made with other costs still verifies, and :meth:`needs_rehash`
    says so, so the next sign-in renews it."""

    def __init__(
        self,
        *,
        time_cost: int = DEFAULT_TIME_COST,
        memory_cost: int = DEFAULT_MEMORY_COST,
        parallelism: int = DEFAULT_PARALLELISM,
    ) -> None:
        self._hasher = _Argon2(time_cost, memory_cost, parallelism)

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        try:
            return bool(self._hasher.verify(password_hash, password))
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, password_hash: str) -> bool:
        try:
            return bool(self._hasher.check_needs_rehash(password_hash))
        except (InvalidHashError, ValueError):
            return False  # it never verifies either: nothing to renew


class AccountStore(Store, Protocol):
    """What the accounts need of a store (``SqlCipherStore``, ``PgStore``)."""

    def act_locks(self) -> ActLocks: ...


def _columns(tx: Tx) -> str:
    """The columns :func:`_fields` reads (table alias ``t``)."""
    if tx.dialect == "pg":
        return "t.account_id, t.username, t.record"
    # a damaged file opens without migrations: it may lack 0041's pin_hash
    pins = any(r[1] == "pin_hash" for r in tx.all("PRAGMA table_info(accounts)"))
    pin = "t.pin_hash" if pins else "NULL"
    return "t.account_id, t.username, " + ", ".join(f"t.{c}" for c in _FIELDS) + ", " + pin


def _file_fields(values: Sequence[Any]) -> dict[str, Any]:
    """The fields of the file's columns (:data:`_FIELDS`, then ``pin_hash`` once set)."""
    fields = dict(zip((*_FIELDS, "pin_hash"), values, strict=True))
    fields["active"] = bool(fields["active"])
    if fields["pin_hash"] is None:  # none set (the server's record has no such key)
        del fields["pin_hash"]
    return fields


def _fields(tx: Tx, row: Sequence[Any]) -> tuple[int, str, dict[str, Any]]:
    """(account_id, user name, the fields as stored)."""
    ident, username = int(row[0]), str(row[1])
    if tx.dialect == "pg":
        return ident, username, json.loads(tx.open(row[2], "accounts", "record", username))
    return ident, username, _file_fields(row[2:])


def _audited(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    """What the chain commits to (art. 20.4): every field, the password hash included (a
    hash put in by hand would open the account), and the PIN's hash once one is set."""
    found: list[Content] = []
    for row in rows:
        ident, username, f = _fields(tx, row)
        content: list[object] = [username, str(f["display_name"]), str(f["roles"])]
        content += [int(bool(f["active"])), str(f["password_hash"]), int(f["failed_attempts"])]
        content += [f["locked_until"], str(f["created_at"])]
        content += [] if f.get("pin_hash") is None else [str(f["pin_hash"])]
        found.append((f"account:{ident}", content))
    return found


# the accounts the chain covers (a file older than migration 0040 has none)
COVERED = Covered("account", "accounts", "account_id", _columns, _audited, optional=True)


def _sealed(tx: Tx, username: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The server's columns of an account: ONE record bound to the user name."""
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {"record": tx.seal(text, "accounts", "record", username), **tx.index_columns()}


def copied_account(tx: Tx, row: Sequence[Any]) -> tuple[int, str, Any, int]:
    """A row of a desk's file (account_id, user name, :data:`_FIELDS`, pin_hash) as the
    server keeps it, for db/pg/copy_file.py: (account_id, user name, record, key_version)."""
    username = str(row[1])
    values = _sealed(tx, username, _file_fields(row[2:]))
    return int(row[0]), username, values["record"], int(values["key_version"])


def _put(tx: Tx, ident: int | None, username: str, fields: dict[str, Any]) -> int:
    """Insert (``ident`` None) or rewrite the row; its account_id."""
    if tx.dialect == "pg":
        values = _sealed(tx, username, fields)
    else:
        values = {c: fields.get(c) for c in (*_FIELDS, "pin_hash")}
    if ident is None:
        marks = ", ".join("?" * (len(values) + 1))
        insert = f"INSERT INTO accounts (username, {', '.join(values)}) VALUES ({marks}) "
        return int(scalar(tx, insert + "RETURNING account_id", (username, *values.values())))
    update_row(tx, "accounts", values, "account_id", ident)
    return ident


def _stored(username: str, f: dict[str, Any]) -> StoredAccount:
    roles = frozenset(Role(r) for r in str(f["roles"]).split(",") if r)
    locked, created = codec.parse_opt_ts(f["locked_until"]), codec.parse_ts(str(f["created_at"]))
    failures = int(f["failed_attempts"])
    account = Account(
        username, str(f["display_name"]), roles, bool(f["active"]), failures, locked, created
    )
    pin = f.get("pin_hash")
    return StoredAccount(account, str(f["password_hash"]), None if pin is None else str(pin))


def _find(tx: Tx, username: str, *, lock: bool = False) -> tuple[int, str, dict[str, Any]] | None:
    sql = f"SELECT {_columns(tx)} FROM accounts AS t WHERE t.username = ?"
    row = tx.one(sql + (tx.lock_rows if lock else ""), (username,))
    return None if row is None else _fields(tx, row)


def _append(tx: Tx, notes: Sequence[AuditNote], rows: AuditRows = ()) -> None:
    """The entries; the last commits to ``rows`` as written."""
    for i, note in enumerate(notes):
        last = rows if i == len(notes) - 1 else ()
        tx.audit(note.actor, str(note.action), note.subject, note.at, dict(note.details), last)


def _save(
    tx: Tx, account: Account, password_hash: str, notes: Sequence[AuditNote], created: bool
) -> None:
    found = _find(tx, account.username, lock=True)
    if created and found is not None:
        raise AccountError("user name taken", code=AccountErrorCode.USERNAME_TAKEN)
    if not created and found is None:
        raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
    fields: dict[str, Any] = {
        "display_name": account.display_name,
        "roles": role_list(account.roles),
        "active": bool(account.active),
        "password_hash": password_hash,
        "failed_attempts": int(account.failed_attempts),
        "locked_until": None if account.locked_until is None else codec.ts(account.locked_until),
        "created_at": codec.ts(account.created_at),
    }
    if found is not None and "pin_hash" in found[2]:  # set_pin changes it, never a save
        fields["pin_hash"] = found[2]["pin_hash"]
    ident = _put(tx, None if found is None else found[0], account.username, fields)
    _append(tx, notes, [(f"account:{ident}", created)])


def _set_pin(tx: Tx, username: str, pin_hash: str | None, notes: Sequence[AuditNote]) -> None:
    found = _find(tx, username, lock=True)
    if found is None:
        raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
    ident, _name, fields = found
    fields.pop("pin_hash", None)
    if pin_hash is not None:
        fields["pin_hash"] = pin_hash
    _put(tx, ident, username, fields)
    _append(tx, notes, [(f"account:{ident}", False)])


class StoreAccountBook:
    """The ``AccountBook`` port over an open store (either dialect)."""

    def __init__(self, store: AccountStore) -> None:
        self._store = store

    def account_count(self) -> int:
        return int(self._store.read(lambda tx: scalar(tx, "SELECT count(*) FROM accounts")))

    def find(self, username: str) -> StoredAccount | None:
        found = self._store.read(lambda tx: _find(tx, username))
        return None if found is None else _stored(username, found[2])

    def all_accounts(self) -> list[Account]:
        def work(tx: Tx) -> list[Account]:
            rows = tx.all(f"SELECT {_columns(tx)} FROM accounts AS t ORDER BY t.username")
            return [_stored(*_fields(tx, row)[1:]).account for row in rows]

        return self._store.read(work)

    def save(
        self,
        account: Account,
        password_hash: str,
        notes: Sequence[AuditNote],
        *,
        created: bool = False,
    ) -> None:
        """Insert or update the row and append ``notes`` in one transaction (on the server
        after the chain's head lock: of two desks creating one user name, the second finds
        it taken)."""
        self._store.write(lambda tx: _save(tx, account, password_hash, notes, created))

    def record(self, notes: Sequence[AuditNote]) -> None:
        """Append entries that change no row (sign-in, refusals, session lock)."""
        self._store.write(lambda tx: _append(tx, notes))

    def set_pin(self, username: str, pin_hash: str | None, notes: Sequence[AuditNote]) -> None:
        """The row with (or without) the PIN's hash, and ``notes``, in one transaction."""
        self._store.write(lambda tx: _set_pin(tx, username, pin_hash, notes))


class StoreAccounts(AccountService):
    """The account service over the visitor file. Each act writing an account holds that
    account's lock for its whole length (``act_locks``; none on one desk's file): else two
    desks could each count one failure where two happened (a lockout bypassed), or put back
    a lock another just set. A change of accounts first holds the administration's (the
    first account, the last administrator)."""

    def __init__(
        self,
        store: AccountStore,
        clock: Clock,
        *,
        policy: LockoutPolicy | None = None,
        hasher: PasswordHasher | None = None,
    ) -> None:
        self._locks = store.act_locks()  # the server's needs a pool of two connections
        super().__init__(StoreAccountBook(store), hasher or Argon2Hasher(), clock, policy)


def _serialised(name: str, admin: bool) -> Callable[..., Any]:
    """The service's act ``name`` holding the lock of its first argument's account (a user
    name or an operator), and first the administration's when ``admin``, until it ends."""
    act = getattr(AccountService, name)

    @functools.wraps(act)
    def serialised(self: StoreAccounts, who: str | Operator, /, *args: Any, **kw: Any) -> Any:
        username = who if isinstance(who, str) else who.username
        names = [_ADMIN_LOCK] if admin else []
        with contextlib.suppress(AccountError):  # no such name: nothing to serialise
            names.append("account:" + normal_username(username))
        with self._locks(names):
            return act(self, who, *args, **kw)

    return serialised


# the acts that write an account row; the changes of accounts take the administration's first
_ACTS = ("sign_in", "authorise", "unlock_session", "set_pin", "unlock_with_pin")
_CHANGES = ("create_account", "set_password", "set_roles", "set_active", "clear_lockout")
for _act in (*_ACTS, "authorise_with_pin", *_CHANGES):
    setattr(StoreAccounts, _act, _serialised(_act, _act in _CHANGES))


def reseal_accounts(store: AccountStore, ring: KeyRing, *, batch_size: int = 500) -> RotationReport:
    """Key rotation: reseal every account record not under ``ring``'s current version."""
    return reseal_rows(store, ring, "accounts", "username", ("record",), batch_size)

"""Desk accounts (art. 20.3: who works the desk; art. 23.5: the director's own
credentials), with argon2id password hashes, written once over both dialects (db/tx.py):
the SQLCipher file of one desk and the server of every desk of the unit (arts. 154-155).

:class:`StoreAccounts` is :class:`admission.accounts.AccountService` over
:class:`StoreAccountBook`, the ``accounts`` table (``db/migrations/0040_accounts.sql``,
``db/pg/migrations/0030_desk_ports.sql``). A row and its audit entries are written in
one transaction, and the keyed audit chain commits to the row (kind ``account``): a role
or a password hash changed behind the program's back does not verify (art. 20.3, 23.5).

How a row is kept is the one thing the dialects do differently:

* the file is encrypted whole: one column per field, the quick unlock's PIN hash in
  ``pin_hash`` (migration 0041);
* on the server the user name stays in clear (the sign-in name, which the audit trail
  names already) and everything else is ONE sealed record bound to it (db/pg/crypto.py):
  the administrator can neither read a hash to attack it offline, nor give an account a
  role, nor move a record to another user name (it does not open). :func:`reseal_accounts`
  reseals the records under a new data key version (key rotation).

Either way the chain commits to the same content (:data:`COVERED`). Several
desks share the server's accounts: each act that writes an account holds that account's
lock across desks from its read to its write (the store's ``act_locks``), so a lockout
counts every failure of every desk.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from argon2 import PasswordHasher as _Argon2
from argon2 import Type
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
from db.tx import AuditRows, Tx

if TYPE_CHECKING:
    from db.pg.crypto import KeyRing, RotationReport

__all__ = [
    "Argon2Hasher",
    "StoreAccountBook",
    "StoreAccounts",
    "copied_account",
    "reseal_accounts",
]

T = TypeVar("T")
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
    """argon2id (RFC 9106) through argon2-cffi. Without arguments, argon2-cffi's default
    profile; tests pass cheap costs. A hash made with other costs still verifies, and
    :meth:`needs_rehash` says so, so the next sign-in renews it."""

    def __init__(
        self,
        *,
        time_cost: int | None = None,
        memory_cost: int | None = None,
        parallelism: int | None = None,
    ) -> None:
        default = _Argon2()  # argon2-cffi's default profile (RFC 9106 low memory)
        self._hasher = _Argon2(
            time_cost=time_cost or default.time_cost,
            memory_cost=memory_cost or default.memory_cost,
            parallelism=parallelism or default.parallelism,
            hash_len=default.hash_len,
            salt_len=default.salt_len,
            type=Type.ID,
        )

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


class AccountStore(Protocol):
    """What the accounts need of a store (``SqlCipherStore``, ``PgStore``)."""

    def read(self, work: Callable[[Any], T]) -> T: ...

    def write(self, work: Callable[[Any], T]) -> T: ...

    def act_locks(self) -> ActLocks: ...


# -- the row, as each dialect keeps it -----------------------------------------------------


def _has_pins(tx: Tx) -> bool:
    """Whether the file has migration 0041 (a damaged file opens without migrations)."""
    return any(r[1] == "pin_hash" for r in tx.all("PRAGMA table_info(accounts)"))


def _columns(tx: Tx) -> str:
    """The columns :func:`_fields` reads (table alias ``t``)."""
    if tx.dialect == "pg":
        return "t.account_id, t.username, t.record"
    pin = "t.pin_hash" if _has_pins(tx) else "NULL"
    return "t.account_id, t.username, " + ", ".join(f"t.{c}" for c in _FIELDS) + ", " + pin


def _file_fields(values: Sequence[Any]) -> dict[str, Any]:
    """The fields of the file's columns (:data:`_FIELDS`, then ``pin_hash``)."""
    fields = dict(zip((*_FIELDS, "pin_hash"), values, strict=True))
    fields["active"] = bool(fields["active"])
    if fields["pin_hash"] is None:  # none set (the server's record has no such key)
        del fields["pin_hash"]
    return fields


def _fields(tx: Tx, row: Sequence[Any]) -> tuple[int, str, dict[str, Any]]:
    """(account_id, user name, the fields as stored, ``pin_hash`` only once set)."""
    ident, username = int(row[0]), str(row[1])
    if tx.dialect == "pg":
        fields: dict[str, Any] = json.loads(tx.open(row[2], "accounts", "record", username))
        return ident, username, fields
    return ident, username, _file_fields(row[2:])


def _audited(tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
    """What the chain commits to (art. 20.4): every field, the password hash included (a
    hash put in by hand would open the account), and the PIN's hash once one is set."""
    found: list[Content] = []
    for row in rows:
        ident, username, f = _fields(tx, row)
        pin = [] if f.get("pin_hash") is None else [str(f["pin_hash"])]
        content: list[object] = [
            username,
            str(f["display_name"]),
            str(f["roles"]),
            int(bool(f["active"])),
            str(f["password_hash"]),
            int(f["failed_attempts"]),
            f["locked_until"],
            str(f["created_at"]),
            *pin,
        ]
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
        marks = ", ".join("?" for _ in range(len(values) + 1))
        found = tx.one(
            f"INSERT INTO accounts (username, {', '.join(values)}) VALUES ({marks}) "
            "RETURNING account_id",
            (username, *values.values()),
        )
        assert found is not None
        return int(found[0])
    changes = ", ".join(f"{column} = ?" for column in values)
    tx.execute(f"UPDATE accounts SET {changes} WHERE account_id = ?", (*values.values(), ident))
    return ident


def _stored(username: str, f: dict[str, Any]) -> StoredAccount:
    account = Account(
        username,
        str(f["display_name"]),
        frozenset(Role(r) for r in str(f["roles"]).split(",") if r),
        bool(f["active"]),
        int(f["failed_attempts"]),
        codec.parse_opt_ts(f["locked_until"]),
        codec.parse_ts(str(f["created_at"])),
    )
    pin = f.get("pin_hash")
    return StoredAccount(account, str(f["password_hash"]), None if pin is None else str(pin))


# -- the rules, over one transaction ------------------------------------------------------


def _find(tx: Tx, username: str, *, lock: bool = False) -> tuple[int, dict[str, Any]] | None:
    row = tx.one(
        f"SELECT {_columns(tx)} FROM accounts AS t WHERE t.username = ?"
        + (tx.lock_rows if lock else ""),
        (username,),
    )
    if row is None:
        return None
    ident, _name, fields = _fields(tx, row)
    return ident, fields


def _append(tx: Tx, notes: Sequence[AuditNote], rows: AuditRows = ()) -> None:
    """The entries; the last commits to ``rows`` as written."""
    for i, note in enumerate(notes):
        last = i == len(notes) - 1
        tx.audit(
            note.actor,
            str(note.action),
            note.subject,
            note.at,
            dict(note.details),
            rows if last else (),
        )


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
    if found is not None and "pin_hash" in found[1]:  # set_pin changes it, never a save
        fields["pin_hash"] = found[1]["pin_hash"]
    ident = _put(tx, None if found is None else found[0], account.username, fields)
    _append(tx, notes, [(f"account:{ident}", created)])


def _set_pin(tx: Tx, username: str, pin_hash: str | None, notes: Sequence[AuditNote]) -> None:
    found = _find(tx, username, lock=True)
    if found is None:
        raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
    ident, fields = found
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
        found = self._store.read(lambda tx: tx.one("SELECT count(*) FROM accounts"))
        assert found is not None
        return int(found[0])

    def find(self, username: str) -> StoredAccount | None:
        def work(tx: Tx) -> StoredAccount | None:
            found = _find(tx, username)
            return None if found is None else _stored(username, found[1])

        return self._store.read(work)

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
        """Insert or update the row and append ``notes`` in one transaction. On the
        server every write first takes the chain's head lock, so two desks creating one
        user name at once are ordered: the second finds it taken."""
        self._store.write(lambda tx: _save(tx, account, password_hash, notes, created))

    def record(self, notes: Sequence[AuditNote]) -> None:
        """Append entries that change no row (sign-in, refusals, session lock)."""
        self._store.write(lambda tx: _append(tx, notes))

    def set_pin(self, username: str, pin_hash: str | None, notes: Sequence[AuditNote]) -> None:
        """The row with (or without) the PIN's hash, and ``notes``, in one transaction."""
        self._store.write(lambda tx: _set_pin(tx, username, pin_hash, notes))


class StoreAccounts(AccountService):
    """The account service over the visitor file (built once by ``main.py``).

    :class:`AccountService` reads an account, checks the password (argon2id, tens of
    milliseconds) and writes the row back: on one desk nothing comes between, but two
    desks on the server could each count one failure where two happened (a lockout
    bypassed by guessing from several desks at once), or a change of roles could put
    back a lock another desk just set. So every act that writes an account holds, for
    its whole length, the store's lock of that account (``act_locks``: none on the file
    of one desk), and every change of accounts (creation, password, roles, active,
    lockout) first the lock of the administration (also: the first account, the last
    administrator). Acts on different accounts do not wait for each other.
    """

    def __init__(
        self,
        store: AccountStore,
        clock: Clock,
        *,
        policy: LockoutPolicy | None = None,
        hasher: PasswordHasher | None = None,
    ) -> None:
        locks = store.act_locks()  # the server's needs a pool of two connections
        super().__init__(StoreAccountBook(store), hasher or Argon2Hasher(), clock, policy)
        self._locks = locks

    @contextlib.contextmanager
    def _serial(self, username: str, *, admin: bool = False) -> Iterator[None]:
        """Hold the account's lock (and first the administration's) until the act ends."""
        names: list[str] = [_ADMIN_LOCK] if admin else []
        with contextlib.suppress(AccountError):  # no such name: nothing to serialise
            names.append("account:" + normal_username(username))
        with self._locks(names):
            yield

    # -- the acts that write an account row, serialised across desks -----------------------

    def sign_in(self, username: str, password: str) -> Operator:
        with self._serial(username):
            return super().sign_in(username, password)

    def authorise(self, username: str, password: str, role: Role, purpose: str) -> Operator:
        with self._serial(username):
            return super().authorise(username, password, role, purpose)

    def unlock_session(self, operator: Operator, password: str) -> Operator:
        with self._serial(operator.username):
            return super().unlock_session(operator, password)

    def set_pin(self, operator: Operator, password: str, pin: str | None) -> None:
        with self._serial(operator.username):
            super().set_pin(operator, password, pin)

    def unlock_with_pin(self, operator: Operator, pin: str) -> Operator:
        with self._serial(operator.username):
            return super().unlock_with_pin(operator, pin)

    def authorise_with_pin(
        self, operator: Operator, pin: str, role: Role, purpose: str
    ) -> Operator:
        with self._serial(operator.username):
            return super().authorise_with_pin(operator, pin, role, purpose)

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
        with self._serial(username, admin=True):
            return super().create_account(
                username, display_name, password, roles, actor=actor, file_key=file_key
            )

    def set_password(self, username: str, password: str, *, actor: Operator) -> None:
        with self._serial(username, admin=True):
            super().set_password(username, password, actor=actor)

    def set_roles(self, username: str, roles: Iterable[Role], *, actor: Operator) -> Account:
        with self._serial(username, admin=True):
            return super().set_roles(username, roles, actor=actor)

    def set_active(self, username: str, active: bool, *, actor: Operator) -> Account:
        with self._serial(username, admin=True):
            return super().set_active(username, active, actor=actor)

    def clear_lockout(self, username: str, *, actor: Operator) -> Account:
        with self._serial(username, admin=True):
            return super().clear_lockout(username, actor=actor)


# -- the server's key rotation ----------------------------------------------------------------


def reseal_accounts(store: AccountStore, ring: KeyRing, *, batch_size: int = 500) -> RotationReport:
    """Key rotation (db/pg/crypto.py ``run_reencrypt``): reseal every account record not
    under ``ring``'s current version, in batches, restartable. ``ring`` holds the new
    version, whose wrapped record is stored first. A record a desk rewrote between the
    read and the write is left for the next batch, never put back."""
    from db.pg.crypto import SealedRow, run_reencrypt

    read: dict[str, bytes] = {}

    def fetch(current: int, limit: int) -> list[SealedRow]:
        rows = store.read(
            lambda tx: tx.all(
                "SELECT username, record, key_version FROM accounts "
                "WHERE key_version <> ? ORDER BY username LIMIT ?",
                (current, limit),
            )
        )
        read.clear()
        read.update((str(name), bytes(record)) for name, record, _v in rows)
        return [SealedRow("accounts", str(n), int(v), {"record": bytes(r)}) for n, r, v in rows]

    def apply(batch: Sequence[SealedRow]) -> None:
        def work(tx: Tx) -> None:
            for row in batch:
                tx.execute(
                    "UPDATE accounts SET record = ?, key_version = ? "
                    "WHERE username = ? AND record = ?",
                    (row.values["record"], row.key_version, row.row, read[str(row.row)]),
                )

        store.write(work)

    return run_reencrypt(fetch, apply, ring, batch_size=batch_size)

"""Desk accounts in the encrypted visitor file, with argon2id password hashes.

:class:`SqlAccounts` is :class:`admission.accounts.AccountService` over
:class:`SqlAccountBook`: the ``accounts`` table of ``db/migrations/0040_accounts.sql``,
read and written on the store's one connection under its lock. A row and its audit
entries are written in one transaction, and the keyed audit chain commits to the row
(kind ``account``, db/audit_cover.py): a role or a password hash changed in the file
by whoever holds only the file key does not verify (art. 20.3, 23.5).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

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
    PasswordHasher,
    Role,
    StoredAccount,
    role_list,
)
from admission.ports import Clock
from db import codec
from db.audit_rows import AppendsIn

__all__ = ["Argon2Hasher", "SqlAccountBook", "SqlAccounts"]

_COLUMNS = (
    "username, display_name, roles, active, password_hash, failed_attempts, locked_until, "
    "created_at"
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


class AccountStore(AppendsIn[sqlite3.Connection], Protocol):
    """What the book needs of ``SqlCipherStore``."""

    def transaction(self) -> AbstractContextManager[Any]: ...

    def reading(self) -> AbstractContextManager[Any]: ...


def _has_pins(conn: sqlite3.Connection) -> bool:
    """Whether the file has migration 0041 (a damaged file opens without migrations)."""
    return any(r[1] == "pin_hash" for r in conn.execute("PRAGMA table_info(accounts)"))


def _pin_hash(conn: sqlite3.Connection, username: str) -> str | None:
    if not _has_pins(conn):
        return None
    row = conn.execute("SELECT pin_hash FROM accounts WHERE username = ?", (username,)).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def _account(row: Sequence[Any], pin_hash: str | None = None) -> StoredAccount:
    name, display, roles, active, pw_hash, failed, locked, created = row
    account = Account(
        str(name),
        str(display),
        frozenset(Role(r) for r in str(roles).split(",") if r),
        bool(active),
        int(failed),
        codec.parse_opt_ts(locked),
        codec.parse_ts(str(created)),
    )
    return StoredAccount(account, str(pw_hash), pin_hash)


class SqlAccountBook:
    """The ``AccountBook`` port over an open ``SqlCipherStore``."""

    def __init__(self, store: AccountStore) -> None:
        self._store = store

    def account_count(self) -> int:
        with self._store.reading() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM accounts").fetchone()[0])

    def find(self, username: str) -> StoredAccount | None:
        with self._store.reading() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM accounts WHERE username = ?", (username,)
            ).fetchone()
            pin = None if row is None else _pin_hash(conn, username)
        return None if row is None else _account(row, pin)

    def all_accounts(self) -> list[Account]:
        with self._store.reading() as conn:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM accounts ORDER BY username").fetchall()
        return [_account(row).account for row in rows]

    def save(
        self,
        account: Account,
        password_hash: str,
        notes: Sequence[AuditNote],
        *,
        created: bool = False,
    ) -> None:
        values = (
            account.display_name,
            role_list(account.roles),
            int(account.active),
            password_hash,
            account.failed_attempts,
            None if account.locked_until is None else codec.ts(account.locked_until),
        )
        with self._store.transaction() as conn:
            exists = conn.execute(
                "SELECT account_id FROM accounts WHERE username = ?", (account.username,)
            ).fetchone()
            if created and exists is not None:
                raise AccountError("user name taken", code=AccountErrorCode.USERNAME_TAKEN)
            if not created and exists is None:
                raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
            if created:
                conn.execute(
                    f"INSERT INTO accounts ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (account.username, *values, codec.ts(account.created_at)),
                )
            else:
                conn.execute(
                    "UPDATE accounts SET display_name = ?, roles = ?, active = ?, "
                    "password_hash = ?, failed_attempts = ?, locked_until = ? "
                    "WHERE username = ?",
                    (*values, account.username),
                )
            ident = conn.execute(
                "SELECT account_id FROM accounts WHERE username = ?", (account.username,)
            ).fetchone()[0]
            ref = [(f"account:{ident}", created)]
            for i, note in enumerate(notes):  # the last entry commits to the row as written
                self._append(conn, note, ref if i == len(notes) - 1 else ())

    def record(self, notes: Sequence[AuditNote]) -> None:
        with self._store.transaction() as conn:
            for note in notes:
                self._append(conn, note, ())

    def set_pin(self, username: str, pin_hash: str | None, notes: Sequence[AuditNote]) -> None:
        with self._store.transaction() as conn:
            found = conn.execute(
                "SELECT account_id FROM accounts WHERE username = ?", (username,)
            ).fetchone()
            if found is None:
                raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
            conn.execute(
                "UPDATE accounts SET pin_hash = ? WHERE account_id = ?", (pin_hash, found[0])
            )
            ref = [(f"account:{found[0]}", False)]
            for i, note in enumerate(notes):  # the last entry commits to the row as written
                self._append(conn, note, ref if i == len(notes) - 1 else ())

    def _append(
        self, conn: sqlite3.Connection, note: AuditNote, rows: Sequence[tuple[str, bool]]
    ) -> None:
        self._store.append_in(
            conn, note.actor, str(note.action), note.subject, note.at, dict(note.details), rows
        )


class SqlAccounts(AccountService):
    """The account service over the visitor file (built once by ``main.py``)."""

    def __init__(
        self,
        store: AccountStore,
        clock: Clock,
        *,
        policy: LockoutPolicy | None = None,
        hasher: PasswordHasher | None = None,
    ) -> None:
        super().__init__(SqlAccountBook(store), hasher or Argon2Hasher(), clock, policy)

"""Desk accounts on the shared PostgreSQL server (art. 20.3: who works the desk; art.
23.5: the director's own credentials), for every desk of one operating unit (arts.
154-155).

:class:`PgAccounts` is :class:`admission.accounts.AccountService` - the same rules as
:class:`db.accounts.SqlAccounts`: argon2id hashes (:class:`db.accounts.Argon2Hasher`),
lockout, no user enumeration, the last administrator - over :class:`PgAccountBook`, the
``accounts`` table of ``db/pg/migrations/0030_desk_ports.sql``. A row and its audit
entries are written in ONE transaction of the store (``PgStore._write``: the chain's head
lock, retried on serialisation failures), the entries appended with ``PgStore._audit``.

What is sealed (db/pg/crypto.py): the user name stays in clear - it is the sign-in name,
not personal data of a visitor, and the audit trail already names the account by it
(``account:<username>``). Everything else is ONE sealed record bound to the user name:
the display name (a person's name: sealed, as the SQLCipher file keeps it encrypted and
``Account.__repr__`` keeps it out of logs), the roles, ``active``, the argon2id hash, the
failure count, the lock and the creation time. So the server's administrator cannot read
a hash to attack it offline, cannot give an account a role or enable it, and cannot move
a record to another user name (it does not open: ``PG_VALUE_TAMPERED``). Accounts are
never deleted (a trigger refuses it).

Not yet as in the SQLCipher file: the keyed chain does not commit to the account row
(``PgStore`` has no ``account`` kind among the rows it verifies), so a record put back to
an older sealed version of itself (an old role, an old hash) is not caught by
``verify()``. :data:`ACCOUNT_COLUMNS` and :func:`account_content` give the content the
SQLCipher chain commits to, for the store to add the kind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

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
from db.accounts import Argon2Hasher
from db.pg.crypto import KeyRing
from db.pg.store import PgStore, _Tx

__all__ = ["ACCOUNT_COLUMNS", "PgAccountBook", "PgAccounts", "account_content"]

ACCOUNT_COLUMNS = "t.account_id, t.username, t.record"
_TABLE, _COLUMN = "accounts", "record"


def _seal(ring: KeyRing, account: Account, password_hash: str) -> bytes:
    record = {
        "display_name": account.display_name,
        "roles": role_list(account.roles),
        "active": bool(account.active),
        "password_hash": password_hash,
        "failed_attempts": int(account.failed_attempts),
        "locked_until": None if account.locked_until is None else codec.ts(account.locked_until),
        "created_at": codec.ts(account.created_at),
    }
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return ring.seal_text(text, table=_TABLE, column=_COLUMN, row=account.username)


def _open(ring: KeyRing, username: str, sealed: Any) -> dict[str, Any]:
    text = ring.open_text(bytes(sealed), table=_TABLE, column=_COLUMN, row=username)
    record: dict[str, Any] = json.loads(text)
    return record


def _stored(ring: KeyRing, username: str, sealed: Any) -> StoredAccount:
    r = _open(ring, username, sealed)
    account = Account(
        username,
        str(r["display_name"]),
        frozenset(Role(x) for x in str(r["roles"]).split(",") if x),
        bool(r["active"]),
        int(r["failed_attempts"]),
        codec.parse_opt_ts(r["locked_until"]),
        codec.parse_ts(str(r["created_at"])),
    )
    return StoredAccount(account, str(r["password_hash"]))


def account_content(ring: KeyRing, row: Sequence[Any]) -> tuple[int, list[object]]:
    """(account_id, content) of a row read with :data:`ACCOUNT_COLUMNS`: the same list
    the SQLCipher chain commits to (db/accounts.py: every column, the hash included)."""
    account_id, username = int(row[0]), str(row[1])
    r = _open(ring, username, row[2])
    return account_id, [
        username,
        str(r["display_name"]),
        str(r["roles"]),
        int(bool(r["active"])),
        str(r["password_hash"]),
        int(r["failed_attempts"]),
        r["locked_until"],
        str(r["created_at"]),
    ]


class PgAccountBook:
    """The ``AccountBook`` port over an open :class:`PgStore`."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

    def account_count(self) -> int:
        found = self._store._read(lambda tx: tx.one("SELECT count(*) FROM accounts"))
        assert found is not None
        return int(found[0])

    def find(self, username: str) -> StoredAccount | None:
        row = self._store._read(
            lambda tx: tx.one(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts AS t WHERE t.username = %s", (username,)
            )
        )
        return None if row is None else _stored(self._store.ring, str(row[1]), row[2])

    def all_accounts(self) -> list[Account]:
        rows = self._store._read(
            lambda tx: tx.all(f"SELECT {ACCOUNT_COLUMNS} FROM accounts AS t ORDER BY t.username")
        )
        ring = self._store.ring
        return [_stored(ring, str(row[1]), row[2]).account for row in rows]

    def save(
        self,
        account: Account,
        password_hash: str,
        notes: Sequence[AuditNote],
        *,
        created: bool = False,
    ) -> None:
        """Insert or update the row and append ``notes`` in one transaction. Every write
        of the store first takes the chain's head lock, so two desks creating one user
        name at once are ordered: the second finds it taken."""
        ring = self._store.ring
        sealed = _seal(ring, account, password_hash)

        def work(tx: _Tx) -> None:
            exists = tx.one(
                "SELECT account_id FROM accounts WHERE username = %s FOR UPDATE",
                (account.username,),
            )
            if created and exists is not None:
                raise AccountError("user name taken", code=AccountErrorCode.USERNAME_TAKEN)
            if not created and exists is None:
                raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
            if created:
                tx.conn.execute(
                    "INSERT INTO accounts (username, record, key_version) VALUES (%s, %s, %s)",
                    (account.username, sealed, ring.current_version),
                )
            else:
                tx.conn.execute(
                    "UPDATE accounts SET record = %s, key_version = %s WHERE username = %s",
                    (sealed, ring.current_version, account.username),
                )
            self._append(tx, notes)

        self._store._write(work)

    def record(self, notes: Sequence[AuditNote]) -> None:
        """Append entries that change no row (sign-in, refusals, session lock)."""
        self._store._write(lambda tx: self._append(tx, notes))

    def _append(self, tx: _Tx, notes: Sequence[AuditNote]) -> None:
        for note in notes:
            self._store._audit(
                tx, note.actor, str(note.action), note.subject, note.at, dict(note.details)
            )


class PgAccounts(AccountService):
    """The account service over the shared visitor file (one per desk process)."""

    def __init__(
        self,
        store: PgStore,
        clock: Clock,
        *,
        policy: LockoutPolicy | None = None,
        hasher: PasswordHasher | None = None,
    ) -> None:
        super().__init__(PgAccountBook(store), hasher or Argon2Hasher(), clock, policy)

"""Desk accounts on the shared PostgreSQL server (art. 20.3: who works the desk; art.
23.5: the director's own credentials), for every desk of one operating unit (arts.
154-155).

:class:`PgAccounts` is :class:`admission.accounts.AccountService` - the same rules as
:class:`db.accounts.SqlAccounts`: argon2id hashes (:class:`db.accounts.Argon2Hasher`),
lockout, no user enumeration, the last administrator - over :class:`PgAccountBook`, the
``accounts`` table of ``db/pg/migrations/0030_desk_ports.sql``. A row and its audit
entries are written in ONE transaction of the store (``PgStore._write``: the chain's head
lock, retried on serialisation failures), the entries appended with ``PgStore._audit``.
Several desks share the accounts: each act that writes an account row holds that
account's advisory lock from its read to its write (:class:`PgAccounts`), so a lockout
counts every failure of every desk. PgStore has no public ``transaction()`` /
``append_in`` as the SQLCipher store has: these ports use its in-package API (``_read``,
``_write``, ``_audit``, ``_pool``, ``_store_error``).

What is sealed (db/pg/crypto.py): the user name stays in clear - it is the sign-in name,
not personal data of a visitor, and the audit trail already names the account by it
(``account:<username>``). Everything else is ONE sealed record bound to the user name:
the display name (a person's name: sealed, as the SQLCipher file keeps it encrypted and
``Account.__repr__`` keeps it out of logs), the roles, ``active``, the argon2id hash, the
failure count, the lock and the creation time. So the server's administrator cannot read
a hash to attack it offline, cannot give an account a role or enable it, and cannot move
a record to another user name (it does not open: ``PG_VALUE_TAMPERED``). Accounts are
never deleted (a trigger refuses it). :func:`reseal_accounts` reseals the records under a
new data key version (key rotation).

As in the SQLCipher file, the keyed chain commits to the account row: the last entry of
each write names it, and ``PgStore.verify()`` reads every account (its ``account`` kind,
from :data:`ACCOUNT_COLUMNS` and :func:`account_content`, the content the SQLCipher
chain commits to), so a record put back to an older sealed version of itself (an old
role, an old hash) is caught.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import psycopg
from psycopg_pool import PoolTimeout

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
from admission.errors import ConfigError, StoreError
from admission.ports import Clock
from db import codec
from db.accounts import Argon2Hasher
from db.pg.codes import PgStoreCode
from db.pg.crypto import KeyRing, RotationReport, SealedRow, run_reencrypt
from db.pg.rows import (
    ACCOUNT_COLUMN,
    ACCOUNT_COLUMNS,
    ACCOUNT_TABLE,
    account_content,
    open_account_record,
)
from db.pg.store import PgStore, _store_error, _Tx

__all__ = [
    "ACCOUNT_COLUMNS",
    "PgAccountBook",
    "PgAccounts",
    "account_content",
    "covers_accounts",
    "reseal_accounts",
]

_LOCK_LABEL = b"admission-desk/pg/account-lock/v1"
_ADMIN_LOCK = "administration"  # the lock every change of accounts takes first


def _seal(
    ring: KeyRing, account: Account, password_hash: str, pin_hash: str | None = None
) -> bytes:
    """The account's one sealed record; the quick unlock's PIN hash only once set (a
    record without one reads, and is committed to, as before)."""
    record: dict[str, object] = {
        "display_name": account.display_name,
        "roles": role_list(account.roles),
        "active": bool(account.active),
        "password_hash": password_hash,
        "failed_attempts": int(account.failed_attempts),
        "locked_until": None if account.locked_until is None else codec.ts(account.locked_until),
        "created_at": codec.ts(account.created_at),
    }
    if pin_hash is not None:
        record["pin_hash"] = pin_hash
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return ring.seal_text(text, table=ACCOUNT_TABLE, column=ACCOUNT_COLUMN, row=account.username)


def _stored(ring: KeyRing, username: str, sealed: Any) -> StoredAccount:
    r = open_account_record(ring, username, sealed)
    account = Account(
        username,
        str(r["display_name"]),
        frozenset(Role(x) for x in str(r["roles"]).split(",") if x),
        bool(r["active"]),
        int(r["failed_attempts"]),
        codec.parse_opt_ts(r["locked_until"]),
        codec.parse_ts(str(r["created_at"])),
    )
    pin = r.get("pin_hash")
    return StoredAccount(account, str(r["password_hash"]), None if pin is None else str(pin))


def covers_accounts(store: PgStore) -> bool:
    """Whether the store's chain commits to account rows and verifies them
    (``PgStore.COVERS_ACCOUNTS``; a store opened by an older program would not)."""
    return bool(getattr(store, "COVERS_ACCOUNTS", False))


def reseal_accounts(store: PgStore, ring: KeyRing, *, batch_size: int = 500) -> RotationReport:
    """Key rotation (db/pg/crypto.py ``run_reencrypt``): reseal every account record not
    under ``ring``'s current version, in batches, restartable. ``ring`` holds the new
    version, whose wrapped record is stored first. A record a desk rewrote between the
    read and the write is left for the next batch, never put back."""
    read: dict[str, bytes] = {}

    def fetch(current: int, limit: int) -> list[SealedRow]:
        rows = store.read(
            lambda tx: tx.all(
                "SELECT username, record, key_version FROM accounts "
                "WHERE key_version <> %s ORDER BY username LIMIT %s",
                (current, limit),
            )
        )
        read.clear()
        read.update((str(name), bytes(record)) for name, record, _v in rows)
        return [
            SealedRow(ACCOUNT_TABLE, str(n), int(v), {ACCOUNT_COLUMN: bytes(r)}) for n, r, v in rows
        ]

    def apply(batch: Sequence[SealedRow]) -> None:
        def work(tx: _Tx) -> None:
            for row in batch:
                tx.conn.execute(
                    "UPDATE accounts SET record = %s, key_version = %s "
                    "WHERE username = %s AND record = %s",
                    (row.values[ACCOUNT_COLUMN], row.key_version, row.row, read[str(row.row)]),
                )

        store.write(work)

    return run_reencrypt(fetch, apply, ring, batch_size=batch_size)


class PgAccountBook:
    """The ``AccountBook`` port over an open :class:`PgStore`."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

    def account_count(self) -> int:
        found = self._store.read(lambda tx: tx.one("SELECT count(*) FROM accounts"))
        assert found is not None
        return int(found[0])

    def find(self, username: str) -> StoredAccount | None:
        row = self._store.read(
            lambda tx: tx.one(
                f"SELECT {ACCOUNT_COLUMNS} FROM accounts AS t WHERE t.username = %s", (username,)
            )
        )
        return None if row is None else _stored(self._store.ring, str(row[1]), row[2])

    def all_accounts(self) -> list[Account]:
        rows = self._store.read(
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

        def work(tx: _Tx) -> None:
            exists = tx.one(
                "SELECT account_id, record FROM accounts WHERE username = %s FOR UPDATE",
                (account.username,),
            )
            if created and exists is not None:
                raise AccountError("user name taken", code=AccountErrorCode.USERNAME_TAKEN)
            if not created and exists is None:
                raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
            # the PIN stays as it is (set_pin changes it): read under the row's lock
            pin = None if exists is None else _stored(ring, account.username, exists[1]).pin_hash
            sealed = _seal(ring, account, password_hash, pin)
            if created:
                found = tx.one(
                    "INSERT INTO accounts (username, record, key_version) VALUES (%s, %s, %s) "
                    "RETURNING account_id",
                    (account.username, sealed, ring.current_version),
                )
                assert found is not None
                ident = int(found[0])
            else:
                assert exists is not None
                ident = int(exists[0])
                tx.conn.execute(
                    "UPDATE accounts SET record = %s, key_version = %s WHERE account_id = %s",
                    (sealed, ring.current_version, ident),
                )
            # the last entry commits to the row as written, once the store verifies the
            # kind (as db/accounts.py does in the SQLCipher chain)
            ref = [(f"account:{ident}", created)] if covers_accounts(self._store) else []
            self._append(tx, notes, ref)

        self._store.write(work)

    def record(self, notes: Sequence[AuditNote]) -> None:
        """Append entries that change no row (sign-in, refusals, session lock)."""
        self._store.write(lambda tx: self._append(tx, notes))

    def set_pin(self, username: str, pin_hash: str | None, notes: Sequence[AuditNote]) -> None:
        """The record resealed with (or without) the PIN's hash, and ``notes``, in one
        transaction; the last entry commits to the row as written."""
        ring = self._store.ring

        def work(tx: _Tx) -> None:
            found = tx.one(
                "SELECT account_id, record FROM accounts WHERE username = %s FOR UPDATE",
                (username,),
            )
            if found is None:
                raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
            stored = _stored(ring, username, found[1])
            sealed = _seal(ring, stored.account, stored.password_hash, pin_hash)
            tx.conn.execute(
                "UPDATE accounts SET record = %s, key_version = %s WHERE account_id = %s",
                (sealed, ring.current_version, int(found[0])),
            )
            ref = [(f"account:{int(found[0])}", False)] if covers_accounts(self._store) else []
            self._append(tx, notes, ref)

        self._store.write(work)

    def _append(
        self, tx: _Tx, notes: Sequence[AuditNote], rows: Sequence[tuple[str, bool]] = ()
    ) -> None:
        for i, note in enumerate(notes):
            last = i == len(notes) - 1
            self._store._audit(
                tx,
                note.actor,
                str(note.action),
                note.subject,
                note.at,
                dict(note.details),
                rows if last else (),
            )


class PgAccounts(AccountService):
    """The account service over the shared visitor file (one per desk process).

    :class:`AccountService` reads an account, checks the password (argon2id, tens of
    milliseconds) and writes the row back: on one desk nothing comes between, but two
    desks could each count one failure where two happened (a lockout bypassed by
    guessing from several desks at once), or a change of roles could put back a lock
    another desk just set. So every act that writes an account holds, for its whole
    length, a transaction-level advisory lock of that account on one pooled connection,
    and every change of accounts (creation, password, roles, active, lockout) first the
    lock of the administration (also: the first account, the last administrator). Acts
    on different accounts do not wait for each other. The store needs two connections
    or more (``max_connections``): the lock's, and the act's.
    """

    def __init__(
        self,
        store: PgStore,
        clock: Clock,
        *,
        policy: LockoutPolicy | None = None,
        hasher: PasswordHasher | None = None,
    ) -> None:
        if store._pool.max_size < 2:
            raise ConfigError("the store's pool needs two connections for the accounts")
        super().__init__(PgAccountBook(store), hasher or Argon2Hasher(), clock, policy)
        self._store = store

    def _key(self, name: str) -> int:
        label = _LOCK_LABEL + b"/" + name.encode("utf-8")
        digest = hmac.new(self._store.database_id.encode("utf-8"), label, hashlib.sha256)
        return int.from_bytes(digest.digest()[:8], "big", signed=True)

    @contextlib.contextmanager
    def _serial(self, username: str, *, admin: bool = False) -> Iterator[None]:
        """Hold the account's lock (and first the administration's) until the act ends."""
        names: list[str] = [_ADMIN_LOCK] if admin else []
        with contextlib.suppress(AccountError):  # no such name: nothing to serialise
            names.append("account:" + normal_username(username))
        try:
            with self._store._pool.connection() as conn, conn.transaction():
                for name in names:  # always the administration's first: no deadlock
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._key(name),))
                yield
        except PoolTimeout as exc:
            raise StoreError("no connection to the server", code=PgStoreCode.BUSY) from exc
        except psycopg.Error as exc:
            raise _store_error(exc, write=True) from exc

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

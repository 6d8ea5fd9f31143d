"""Key rotation of the visitor file on the server (Decreto 58/2006, art. 20.4; GDPR art.
32: keys changed when they may be known), as ``db rotate-key`` runs it. A re-encryption
reseals a write transaction a batch: a killed run is finished by the next; desks opened
before hold only the old keys (restart them, or :func:`refresh_ring`). One rotation at a
time (a session advisory lock), audited with versions and counts, never a personal value."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from enum import unique
from typing import Any, cast

from admission.codes import Code
from admission.errors import InvalidStateError, StoreError
from admission.identity import IdentityKey
from db.accounts import reseal_accounts
from db.keys import DbKey
from db.pg import roles as pg_roles
from db.pg.crypto import (
    InstallationKey,
    KeyRing,
    PgCryptoCode,
    PgCryptoError,
    RotationReport,
    SealedRow,
    WrappedKey,
    reseal_selected,
)
from db.pg.store import PgStore
from db.tx import Tx
from db.voucher_book import reseal_vouchers

# the new desk key of a re-wrap, read as ADMISSION_DB_KEY (64 hex characters: a raw key;
# anything else: a passphrase), never an argument
ENV_NEW_KEY = "ADMISSION_NEW_DB_KEY"
MODES = ("rewrap", "reencrypt", "retire", "reencrypt-retire")
DEFAULT_BATCH = 500
MAX_PASSES = 3  # passes over the tables when desks keep writing under an old version
ACTOR = "key-rotation"
_LOCK_LABEL = b"admission-desk/pg/rotation-lock/v1"


@unique
class PgRotationCode(Code):
    """Why a key rotation of the server's visitor file was refused."""

    MODE_UNKNOWN = "PG_ROTATION_MODE_UNKNOWN"  # neither rewrap, reencrypt nor retire
    NEW_KEY_MISSING = "PG_ROTATION_NEW_KEY_MISSING"  # a re-wrap without ADMISSION_NEW_DB_KEY
    RUNNING = "PG_ROTATION_RUNNING"  # another desk is rotating the keys now
    OLD_VERSION_IN_USE = "PG_ROTATION_OLD_VERSION_IN_USE"  # rows still under an old version
    TABLE_UNKNOWN = "PG_ROTATION_TABLE_UNKNOWN"  # a table with key_version it cannot reseal
    NEEDS_OWNER = "PG_ROTATION_NEEDS_OWNER"  # under the server's roles: an owner-group login


@dataclass(frozen=True, slots=True)
class SealedTable:
    """A table whose rows hold sealed values, and the blind indexes recomputed from them."""

    name: str
    key: str  # the row key column (bound into each value's associated data)
    key_type: str  # its SQL type, for the batch's unnest
    sealed: tuple[str, ...]
    identity: str | None = None  # the sealed IdentityKey.text whose index is id_index
    names: tuple[str, str] | None = None  # (surname, given names): the name_tokens rows
    number: str | None = None  # the sealed document number whose index is number_index

    def reindex(self, ring: KeyRing, plain: Mapping[str, bytes | None]) -> dict[str, Any]:
        """The row's blind indexes under the ring's current version, from its plaintexts."""

        def text(column: str) -> str:
            return (plain[column] or b"").decode("utf-8")

        indexes: dict[str, tuple[bytes, ...]] = {}
        if self.identity is not None:
            assert plain[self.identity] is not None
            identity = IdentityKey.parse(text(self.identity))
            indexes["id_index"] = (ring.identity_index(identity),)
        if self.number is not None:
            assert plain[self.number] is not None
            indexes["number_index"] = (ring.number_index(text(self.number)),)
        if self.names is not None:
            indexes["name_tokens"] = ring.name_tokens(*(text(c) for c in self.names))
        return indexes


# Every table of the store (db/pg/migrations) with sealed values; accounts and vouchers
# are resealed by their ports (db/accounts.py, db/voucher_book.py).
SEALED_TABLES: tuple[SealedTable, ...] = (
    SealedTable("settings", "key", "text", ("value",)),
    SealedTable(
        "visitors",
        "file_number",
        "bigint",
        ("identity", "surname", "given_names", "birth_date", "nationality"),
        identity="identity",
        names=("surname", "given_names"),
    ),
    SealedTable("visits", "visit_id", "bigint", ("document_number",), number="document_number"),
    SealedTable("observations", "observation_id", "bigint", ("text",)),
    SealedTable(
        "bans", "ban_id", "bigint", ("identity", "reason", "lift_reason"), identity="identity"
    ),
    SealedTable("staff", "staff_id", "bigint", ("identity", "name"), identity="identity"),
)
PORTS: dict[str, Callable[..., RotationReport]] = {
    "accounts": reseal_accounts,
    "vouchers": reseal_vouchers,
}
KNOWN_TABLES = frozenset(t.name for t in SEALED_TABLES) | frozenset(PORTS)


def _json(mode: str, report: Any) -> dict[str, object]:
    """A report as the command answers it: its mode, then its fields as JSON values."""
    plain = asdict(report).items()  # mappings copied as dicts
    return {"mode": mode, **{k: list(v) if isinstance(v, tuple) else v for k, v in plain}}


@dataclass(frozen=True, slots=True)
class RewrapReport:
    versions: tuple[int, ...]  # every data key version stored
    rewrapped: tuple[int, ...]  # wrapped again by this run
    kept: tuple[int, ...]  # already under the new key (a run finished before), checked
    key_id: str  # InstallationKey.key_id of the new key (names it, reveals nothing)


@dataclass(frozen=True, slots=True)
class RetireReport:
    version: int  # the current version, kept
    retired: tuple[int, ...]  # records deleted


@dataclass(frozen=True, slots=True)
class ReencryptReport:
    version: int  # the version every row is sealed under now
    added: bool  # this run stored that version (False: it finished an earlier run's)
    old_versions: tuple[int, ...]  # the other versions still stored
    rows: Mapping[str, int]  # table -> rows resealed by this run
    batches: int  # transactions written by this run
    remaining: Mapping[str, int]  # table -> rows still behind (tables with none left out)
    complete: bool  # no row is left behind
    retired: tuple[int, ...]


def _installation(key: InstallationKey | DbKey, database_id: str) -> InstallationKey:
    if isinstance(key, InstallationKey):
        return key
    return InstallationKey.from_db_key(key, database_id=database_id)


def _records(tx: Tx) -> list[WrappedKey]:
    rows = tx.all("SELECT version, key_tag, wrapping_key_id, blob FROM data_keys ORDER BY version")
    return [WrappedKey(int(v), int(t), str(w), bytes(b)) for v, t, w, b in rows]


def _versioned_tables(tx: Tx) -> list[str]:
    """Every table of the file's schema with a ``key_version`` column."""
    rows = tx.all(
        "SELECT table_name FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND column_name = 'key_version' ORDER BY table_name"
    )
    return [str(r[0]) for r in rows]


def _behind(tx: Tx, current: int) -> dict[str, int]:
    query = "SELECT count(*) FROM {} WHERE key_version <> ?"
    return {
        t: tx.all(query.format(pg_roles.ident(t)), (current,))[0][0] for t in _versioned_tables(tx)
    }


def _rotation_lock(store: PgStore) -> AbstractContextManager[None]:
    running = InvalidStateError("another desk is rotating the keys", code=PgRotationCode.RUNNING)
    return store.session_lock(_LOCK_LABEL, cast(StoreError, running))  # raised as it is


def _audit(store: PgStore, tx: Tx, actor: str, action: str, details: Mapping[str, object]) -> None:
    now = store.clock.now()
    tx.audit(actor, action, "visitor-file", now, {k: str(v) for k, v in details.items()})


def _versions_text(versions: Sequence[int]) -> str:
    return ",".join(str(v) for v in versions)


def refresh_ring(store: PgStore, key: InstallationKey | DbKey) -> bool:
    """Load the data key versions another desk stored or retired since ``store`` opened
    (True: the ring changed), so that it seals under the newest and finds resealed rows."""
    ring = store.ring
    found = store.read(lambda tx: tx.all("SELECT version, key_tag FROM data_keys"))
    stored = {int(v): int(t) for v, t in found}
    if set(stored) == set(ring.versions) and all(ring.key_tag(v) == t for v, t in stored.items()):
        return False
    installation = _installation(key, store.database_id)
    fresh = store.read(lambda tx: KeyRing.load(installation, store.database_id, _records(tx)))
    store.adopt_ring(fresh)
    return True


def rewrap_installation_key(
    store: PgStore, new_key: InstallationKey | DbKey, *, actor: str = ACTOR
) -> RewrapReport:
    """Every data key record wrapped again under ``new_key`` in one transaction with its
    audit entry; each must carry the tag of the store's key of its version."""
    new = _installation(new_key, store.database_id)
    ring = store.ring

    def work(tx: Tx) -> RewrapReport:
        records = _records(tx)
        if not records:
            raise PgCryptoError("the database holds no data key", code=PgCryptoCode.NO_DATA_KEY)
        rewrapped: list[int] = []
        for record in records:
            if record.key_tag != ring.key_tag(record.version):
                raise PgCryptoError(
                    f"data key version {record.version} is not the one this desk holds",
                    code=PgCryptoCode.WRAPPED_KEY_TAMPERED,
                )
            if record.wrapping_key_id != new.key_id:  # the others are kept, checked below
                fresh = ring.wrapped(record.version, new)
                tx.execute(
                    "UPDATE data_keys SET wrapping_key_id = ?, blob = ? WHERE version = ?",
                    (fresh.wrapping_key_id, fresh.blob, record.version),
                )
                rewrapped.append(record.version)
        # every record now opens with the new key, before the transaction commits
        KeyRing.load(new, store.database_id, _records(tx))
        if rewrapped:
            details = {"versions": _versions_text(rewrapped), "key_id": new.key_id}
            _audit(store, tx, actor, "DATA_KEYS_REWRAPPED", details)
        versions = tuple(r.version for r in records)
        kept = tuple(v for v in versions if v not in rewrapped)
        return RewrapReport(versions, tuple(rewrapped), kept, new.key_id)

    with _rotation_lock(store):
        return store.write(work)


def _reseal_batch(
    tx: Tx, table: SealedTable, ring: KeyRing, limit: int, after: Any
) -> tuple[int, Any]:
    """One batch of ``table``'s rows behind the current version after row key ``after``
    (keyset order: one walk a table), resealed: how many, and the next batch's ``after``."""
    key = table.key
    rows = tx.all(
        f"SELECT {key}, key_version, {', '.join(table.sealed)} FROM {table.name} "
        "WHERE key_version <> ? "
        + ("" if after is None else f"AND {key} > ? ")
        + f"ORDER BY {key} LIMIT ? FOR UPDATE",
        (ring.current_version, limit) if after is None else (ring.current_version, after, limit),
    )
    if not rows:
        return 0, after
    sealed = [SealedRow.selected(table.name, table.sealed, row) for row in rows]
    batch = reseal_selected(sealed, ring, table.reindex)
    # one UPDATE from arrays (column -> its values, typed): the names are the table's own
    arrays: dict[str, tuple[str, list[Any]]] = {key: (table.key_type, [r.row for r in batch])}
    arrays.update({c: ("bytea", [r.values[c] for r in batch]) for c in table.sealed})
    for index in ("id_index", "number_index"):
        if index in batch[0].indexes:
            arrays[index] = ("bytea", [r.indexes[index][0] for r in batch])
    sets = ", ".join(f"{c} = u.{c}" for c in arrays if c != key)
    unnest = ", ".join(f"?::{kind}[]" for kind, _ in arrays.values())
    tx.execute(
        f"UPDATE {table.name} AS t SET {sets}, key_version = ? FROM unnest({unnest}) "
        f"AS u({', '.join(arrays)}) WHERE t.{key} = u.{key}",
        (ring.current_version, *(values for _, values in arrays.values())),
    )
    if table.names is not None:
        keys = [r.row for r in batch]
        tx.execute("DELETE FROM name_tokens WHERE file_number = ANY(?::bigint[])", (keys,))
        tokens = [(t, r.row) for r in batch for t in r.indexes["name_tokens"]]
        tx.execute(  # empty arrays insert nothing
            "INSERT INTO name_tokens (token, file_number) "
            "SELECT t, f FROM unnest(?::bytea[], ?::bigint[]) AS u(t, f)",
            ([t for t, _ in tokens], [f for _, f in tokens]),
        )
    return len(batch), rows[-1][0]


def _start(store: PgStore, installation: InstallationKey, actor: str) -> tuple[KeyRing, bool]:
    """The stored versions unwrapped with ``installation`` (a wrong key refused before any
    write), plus a new version unless rows are behind the newest (an earlier run to finish)."""

    def check(tx: Tx) -> tuple[KeyRing, dict[str, int]]:
        unknown = [t for t in _versioned_tables(tx) if t not in KNOWN_TABLES]
        if unknown:
            raise InvalidStateError(
                f"tables with sealed values the rotation does not know: {', '.join(unknown)}",
                code=PgRotationCode.TABLE_UNKNOWN,
            )
        ring = KeyRing.load(installation, store.database_id, _records(tx))
        return ring, _behind(tx, ring.current_version)

    ring, behind = store.read(check)
    if any(behind.values()):
        return ring, False

    def add(tx: Tx) -> tuple[KeyRing, bool]:
        records = _records(tx)
        if max(r.version for r in records) != ring.current_version:  # pragma: no cover
            return KeyRing.load(installation, store.database_id, records), False
        new_ring, record = ring.with_new_version(installation)
        tx.execute(
            "INSERT INTO data_keys (version, key_tag, wrapping_key_id, blob) VALUES (?, ?, ?, ?)",
            (record.version, record.key_tag, record.wrapping_key_id, record.blob),
        )
        details = {"version": record.version, "old_versions": _versions_text(ring.versions)}
        _audit(store, tx, actor, "DATA_KEY_ADDED", details)
        return new_ring, True

    return store.write(add)


def reencrypt(
    store: PgStore,
    key: InstallationKey | DbKey,
    *,
    batch_size: int = DEFAULT_BATCH,
    progress: Callable[[str], None] | None = None,
    retire: bool = False,
    actor: str = ACTOR,
) -> ReencryptReport:
    """Reseal every value and blind index under a new data key version wrapped by ``key``
    (or finish an earlier run's); ``progress`` gets a line (counts) a batch and may stop the
    run by raising; ``retire``: then retire the old versions if no row uses them."""
    if batch_size < 1:
        raise ValueError("batch_size must be positive")
    say = progress or (lambda _line: None)
    installation = _installation(key, store.database_id)
    with _rotation_lock(store):
        ring, added = _start(store, installation, actor)
        store.adopt_ring(ring)
        old = tuple(v for v in ring.versions if v != ring.current_version)
        verb = ("stored" if added else "resumed") + "; desks opened before must be restarted"
        say(f"data key version {ring.current_version} {verb}")
        rows = dict.fromkeys([*(t.name for t in SEALED_TABLES), *PORTS], 0)
        batches = 0

        def count(table: str, done: int, written: int) -> int:
            nonlocal batches
            rows[table] += done
            batches += written
            say(f"{table}: {rows[table]} rows resealed")
            return done

        for _ in range(MAX_PASSES):
            moved = 0
            for table in SEALED_TABLES:
                after: Any = None
                while True:
                    reseal = functools.partial(
                        _reseal_batch, table=table, ring=ring, limit=batch_size, after=after
                    )
                    done, after = store.write(reseal)
                    if not done:
                        break
                    moved += count(table.name, done, 1)
            for name, port in PORTS.items():
                report = port(store, ring, batch_size=batch_size)
                if report.rows:
                    moved += count(name, report.rows, report.batches)
            if not moved:
                break
        remaining = store.read(lambda tx: _behind(tx, ring.current_version))
        behind = {t: n for t, n in remaining.items() if n}

        details: dict[str, object] = dict(
            version=ring.current_version, old_versions=_versions_text(old), batches=batches
        )
        details.update({f"rows_{t}": n for t, n in rows.items() if n})
        details.update({f"behind_{t}": n for t, n in behind.items()})
        store.write(lambda tx: _audit(store, tx, actor, "DATA_KEYS_REENCRYPTED", details))
        retired: tuple[int, ...] = ()
        if retire and not behind:
            retired = _retire(store, actor).retired
        say(f"re-encryption under version {ring.current_version} done")
    left = tuple(v for v in old if v not in retired)
    return ReencryptReport(
        ring.current_version, added, left, rows, batches, behind, not behind, retired
    )


def _retire(store: PgStore, actor: str) -> RetireReport:
    ring = store.ring

    def work(tx: Tx) -> RetireReport:
        records = _records(tx)
        newest = max((r.version for r in records), default=0)
        if newest != ring.current_version:
            raise PgCryptoError(
                f"data key version {newest} is not held by this desk",
                code=PgCryptoCode.DATA_KEY_UNKNOWN,
            )
        behind = {t: n for t, n in _behind(tx, newest).items() if n}
        if behind:
            raise InvalidStateError(
                "rows are still sealed under an old key version: "
                + ", ".join(f"{t} {n}" for t, n in sorted(behind.items())),
                code=PgRotationCode.OLD_VERSION_IN_USE,
            )
        retired = tuple(r.version for r in records if r.version != newest)
        if retired:
            tx.execute("DELETE FROM data_keys WHERE version <> ?", (newest,))
            details = {"version": newest, "retired": _versions_text(retired)}
            _audit(store, tx, actor, "DATA_KEYS_RETIRED", details)
        return RetireReport(newest, retired)

    report = store.write(work)
    store.adopt_ring(ring.retaining([report.version]))
    return report


def retire_old_versions(store: PgStore, *, actor: str = ACTOR) -> RetireReport:
    """Delete every data key version but the newest once no row uses them (only when
    every desk runs with the newest: a desk opened before still seals under the old)."""
    with _rotation_lock(store):
        return _retire(store, actor)


@dataclass(repr=False, eq=False)
class KeyRotation:
    """``admission.desk_ports.KeyRotation`` over the open store and its desk key: the report
    as JSON (versions and counts only); refusals raise ``InvalidStateError``."""

    store: PgStore
    key: InstallationKey | DbKey
    environ: Mapping[str, str] | None = field(default=None, kw_only=True)

    def rotate(
        self,
        *,
        mode: str,
        batch: int = DEFAULT_BATCH,
        progress: Callable[[str], None] = lambda _line: None,
        actor: str = ACTOR,
    ) -> dict[str, object]:
        if mode not in MODES:
            raise InvalidStateError(f"unknown rotation {mode!r}", code=PgRotationCode.MODE_UNKNOWN)
        if self.store.read(lambda tx: pg_roles.purge_role(tx.conn)) is not None:
            # not the owner's rights: refused before any write (a desk may not rewrite keys)
            raise InvalidStateError(
                "a rotation runs as a login of the owner group", code=PgRotationCode.NEEDS_OWNER
            )
        if mode in ("rewrap", "retire"):
            refresh_ring(self.store, self.key)  # versions another desk stored since
        if mode == "rewrap":
            text = (os.environ if self.environ is None else self.environ).get(ENV_NEW_KEY)
            if not text:
                raise InvalidStateError(
                    f"no new key: set {ENV_NEW_KEY}", code=PgRotationCode.NEW_KEY_MISSING
                )
            key = DbKey.from_text(text, source="env-new")
            report = rewrap_installation_key(self.store, key, actor=actor)
            self.key = key  # a re-encryption after it wraps under the new key
            progress(
                f"data keys {_versions_text(report.versions)} wrapped under the new key: put "
                "it where every desk keeps its key (ADMISSION_DB_KEY or its keyring entry) "
                "and restart them"
            )
            return _json("rewrap", report)
        if mode == "retire":
            retired = retire_old_versions(self.store, actor=actor)
            progress(f"data key versions retired: {_versions_text(retired.retired) or 'none'}")
            return _json("retire", retired)
        retire = mode == "reencrypt-retire"
        done = reencrypt(
            self.store, self.key, batch_size=batch, progress=progress, retire=retire, actor=actor
        )
        return _json("reencrypt", done)

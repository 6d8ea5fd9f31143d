"""Key rotation of the visitor file on the PostgreSQL server (Decreto 58/2006, art. 20.4:
the file is confidential; GDPR art. 32: its keys are changed when they may be known).

Two operations, over the primitives of :mod:`db.pg.crypto`:

* **Re-wrap** (:func:`rewrap_installation_key`): a new installation key, the same data
  keys. Every record of ``data_keys`` is wrapped again under the new key in ONE
  transaction; a record already under the new key is checked and kept, so a second run
  finishes (or repeats harmlessly) the first. The values and blind indexes are not
  touched: it takes a moment. Afterwards the file opens only with the new key
  (``PG_INSTALLATION_KEY_WRONG`` with the old one). The records are made from the data
  keys the running store holds, so the old key is not asked for again.

  The installation key is derived from the desk key (``ADMISSION_DB_KEY`` or the OS
  keyring entry ``admission-desk`` / ``visitor-file-key``, :func:`db.keys.resolve_key`)
  with the database's id (:meth:`InstallationKey.from_db_key`); every desk of the casino
  holds the same desk key. So a casino changes it in three steps:

  1. make a new desk key (64 hex characters from a random source, or a passphrase);
  2. on one desk: ``ADMISSION_NEW_DB_KEY=<new key> python main.py db rotate-key
     --rewrap`` (:data:`ENV_NEW_KEY`, read as ``ADMISSION_DB_KEY`` is read);
  3. on every desk: put the new key where the old one was (the keyring entry or the
     service's ``ADMISSION_DB_KEY``) and restart it. A desk keeps working until it is
     restarted (it holds the data keys unwrapped); restarted with the old key it is
     refused (``PG_INSTALLATION_KEY_WRONG``) and touches nothing.

  The desk's queue of provisional vouchers (art. 23.4, ``db/offline_queue.py``) is keyed
  from the desk key too: a desk formalises its pending vouchers before its key changes.

* **Re-encrypt** (:func:`reencrypt`): a new data key version. Its wrapped record is
  stored first (with an audit entry), then every row of every table holding sealed
  values is opened and sealed again under it, its blind indexes (``id_index``, the
  ``name_tokens`` of a visitor) recomputed, batch by batch: each batch is ONE write
  transaction of the store (the chain's head lock, as every desk write), the values,
  the indexes and the row's ``key_version`` together. A run killed at any point leaves
  every batch either done or untouched; run again, it finds the rows still under an
  old version and finishes them (no new version is added while any row is behind).
  Lookups work throughout: a desk looks an identity up by its index under every held
  version (``KeyRing.identity_indexes``) and a name by the tokens of every version, and
  a row's indexes are always those of its own version.

  The desks that were open before the new version was stored hold only the old data
  keys: they cannot open the resealed rows nor find them by their new indexes. Run the
  re-encryption with the other desks closed, or restart them as soon as it starts (the
  command says so); a desk that calls :func:`refresh_ring` now and then loads the new
  version by itself. Retiring the old versions (:func:`retire_old_versions`, the
  ``--retire`` flag) deletes their records once no row of any table uses them; do it
  once every desk runs with the new version.

Only one rotation runs at a time (a session advisory lock derived from the database's
id: ``PG_ROTATION_RUNNING``). Every rotation is an entry of the audit chain with its
kind, versions and row counts, never a personal value.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
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
    SealedRow,
    WrappedKey,
    reencrypt_batches,
)
from db.pg.store import PgStore
from db.tx import Tx
from db.voucher_book import reseal_vouchers

__all__ = [
    "ENV_NEW_KEY",
    "MODES",
    "SEALED_TABLES",
    "KeyRotation",
    "PgRotationCode",
    "ReencryptReport",
    "RetireReport",
    "RewrapReport",
    "SealedTable",
    "reencrypt",
    "refresh_ring",
    "retire_old_versions",
    "rewrap_installation_key",
    "rows_behind",
]

ENV_NEW_KEY = "ADMISSION_NEW_DB_KEY"  # the new desk key of a re-wrap (as ADMISSION_DB_KEY)
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
    """A table whose rows hold sealed values: the row key bound into every value, the
    sealed columns, and the blind indexes recomputed from them."""

    name: str
    key: str  # the row key column (bound into each value's associated data)
    key_type: str  # its SQL type, for the batch's unnest
    sealed: tuple[str, ...]
    identity: str | None = None  # the sealed IdentityKey.text whose index is id_index
    names: tuple[str, str] | None = None  # (surname, given names): the name_tokens rows
    number: str | None = None  # the sealed document number whose index is number_index


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
PORT_TABLES = ("accounts", "vouchers")
KNOWN_TABLES = frozenset(t.name for t in SEALED_TABLES) | frozenset(PORT_TABLES)


# -- reports -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RewrapReport:
    versions: tuple[int, ...]  # every data key version stored
    rewrapped: tuple[int, ...]  # wrapped again by this run
    kept: tuple[int, ...]  # already under the new key (a run finished before), checked
    key_id: str  # InstallationKey.key_id of the new key (names it, reveals nothing)

    def as_json(self) -> dict[str, object]:
        return {
            "mode": "rewrap",
            "versions": list(self.versions),
            "rewrapped": list(self.rewrapped),
            "kept": list(self.kept),
            "key_id": self.key_id,
        }


@dataclass(frozen=True, slots=True)
class RetireReport:
    version: int  # the current version, kept
    retired: tuple[int, ...]  # records deleted

    def as_json(self) -> dict[str, object]:
        return {"mode": "retire", "version": self.version, "retired": list(self.retired)}


@dataclass(frozen=True, slots=True)
class ReencryptReport:
    version: int  # the version every row is sealed under now
    added: bool  # this run stored that version (False: it finished an earlier run's)
    old_versions: tuple[int, ...]  # the other versions still stored
    rows: Mapping[str, int]  # table -> rows resealed by this run
    batches: int  # transactions written by this run
    remaining: Mapping[str, int] = field(default_factory=dict)  # rows still behind
    retired: tuple[int, ...] = ()

    @property
    def complete(self) -> bool:
        return not any(self.remaining.values())

    def as_json(self) -> dict[str, object]:
        return {
            "mode": "reencrypt",
            "version": self.version,
            "added": self.added,
            "old_versions": list(self.old_versions),
            "rows": dict(self.rows),
            "batches": self.batches,
            "remaining": dict(self.remaining),
            "complete": self.complete,
            "retired": list(self.retired),
        }


# -- helpers ---------------------------------------------------------------------------------
def _installation(key: InstallationKey | DbKey, database_id: str) -> InstallationKey:
    if isinstance(key, InstallationKey):
        return key
    return InstallationKey.from_db_key(key, database_id=database_id)


def _records(tx: Tx) -> list[WrappedKey]:
    rows = tx.all("SELECT version, key_tag, wrapping_key_id, blob FROM data_keys ORDER BY version")
    return [WrappedKey(int(v), int(t), str(w), bytes(b)) for v, t, w, b in rows]


def _quoted(name: str) -> str:
    """A table's name as an SQL identifier (names read from the server's catalog)."""
    return '"' + name.replace('"', '""') + '"'


def _versioned_tables(tx: Tx) -> list[str]:
    """Every table of the file's schema with a ``key_version`` column."""
    rows = tx.all(
        "SELECT table_name FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND column_name = 'key_version' ORDER BY table_name"
    )
    return [str(r[0]) for r in rows]


def _check_known(tables: Sequence[str]) -> None:
    unknown = [t for t in tables if t not in KNOWN_TABLES]
    if unknown:
        raise InvalidStateError(
            f"tables with sealed values the rotation does not know: {', '.join(unknown)}",
            code=PgRotationCode.TABLE_UNKNOWN,
        )


def _behind(tx: Tx, current: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for table in _versioned_tables(tx):
        found = tx.one(f"SELECT count(*) FROM {_quoted(table)} WHERE key_version <> ?", (current,))
        counts[table] = 0 if found is None else int(found[0])
    return counts


def rows_behind(store: PgStore) -> dict[str, int]:
    """Per table with sealed values, the rows not under the newest stored version."""

    def work(tx: Tx) -> dict[str, int]:
        found = tx.one("SELECT max(version) FROM data_keys")
        current = int(found[0]) if found and found[0] is not None else 0
        return _behind(tx, current)

    return store.read(work)


def _rotation_lock(store: PgStore) -> AbstractContextManager[None]:
    """The rotation's session advisory lock (one rotation at a time across desks)."""
    running = InvalidStateError("another desk is rotating the keys", code=PgRotationCode.RUNNING)
    return store.session_lock(_LOCK_LABEL, cast(StoreError, running))  # raised as it is


def _audit(store: PgStore, tx: Tx, actor: str, action: str, details: Mapping[str, object]) -> None:
    now = store.clock.now()
    tx.audit(actor, action, "visitor-file", now, {k: str(v) for k, v in details.items()})


def _versions_text(versions: Sequence[int]) -> str:
    return ",".join(str(v) for v in versions)


def _quiet(_line: str) -> None:
    return None


def refresh_ring(store: PgStore, key: InstallationKey | DbKey) -> bool:
    """Load the data key versions stored since ``store`` was opened (another desk began
    a re-encryption, or retired old versions): True when the ring changed. One small
    read; a desk may call it before its writes or with its latency probe, so that it
    seals under the newest version and finds resealed rows by their new indexes."""
    ring = store.ring
    found = store.read(lambda tx: tx.all("SELECT version, key_tag FROM data_keys"))
    stored = {int(v): int(t) for v, t in found}
    if set(stored) == set(ring.versions) and all(ring.key_tag(v) == t for v, t in stored.items()):
        return False
    installation = _installation(key, store.database_id)
    fresh = store.read(lambda tx: KeyRing.load(installation, store.database_id, _records(tx)))
    store.adopt_ring(fresh)
    return True


# -- re-wrap ---------------------------------------------------------------------------------
def rewrap_installation_key(
    store: PgStore, new_key: InstallationKey | DbKey, *, actor: str = ACTOR
) -> RewrapReport:
    """Every data key record wrapped again under ``new_key`` (an :class:`InstallationKey`,
    or the new desk key from which it is derived with the database's id), in one
    transaction with its audit entry. A record already under the new key is unwrapped
    with it (checked) and kept. The new records are made from the data keys ``store``
    holds; each stored record must carry the tag of the store's key of its version."""
    new = _installation(new_key, store.database_id)
    ring = store.ring

    def work(tx: Tx) -> RewrapReport:
        records = _records(tx)
        if not records:
            raise PgCryptoError("the database holds no data key", code=PgCryptoCode.NO_DATA_KEY)
        rewrapped: list[int] = []
        kept: list[int] = []
        for record in records:
            if record.key_tag != ring.key_tag(record.version):
                raise PgCryptoError(
                    f"data key version {record.version} is not the one this desk holds",
                    code=PgCryptoCode.WRAPPED_KEY_TAMPERED,
                )
            if record.wrapping_key_id == new.key_id:
                KeyRing.load(new, store.database_id, [record])  # checked, kept
                kept.append(record.version)
                continue
            fresh = ring.wrapped(record.version, new)
            tx.execute(
                "UPDATE data_keys SET wrapping_key_id = ?, blob = ? WHERE version = ?",
                (fresh.wrapping_key_id, fresh.blob, record.version),
            )
            rewrapped.append(record.version)
        # every record now opens with the new key, before the transaction commits
        KeyRing.load(new, store.database_id, _records(tx))
        report = RewrapReport(
            tuple(r.version for r in records), tuple(rewrapped), tuple(kept), new.key_id
        )
        if rewrapped:
            _audit(
                store,
                tx,
                actor,
                "DATA_KEYS_REWRAPPED",
                {"versions": _versions_text(rewrapped), "key_id": new.key_id},
            )
        return report

    with _rotation_lock(store):
        return store.write(work)


# -- re-encrypt ------------------------------------------------------------------------------
def _reindex(table: SealedTable) -> Callable[[KeyRing, Mapping[str, bytes | None]], dict[str, Any]]:
    def reindex(ring: KeyRing, plain: Mapping[str, bytes | None]) -> dict[str, Any]:
        indexes: dict[str, tuple[bytes, ...]] = {}
        if table.identity is not None:
            text = plain[table.identity]
            assert text is not None
            identity = IdentityKey.parse(text.decode("utf-8"))
            indexes["id_index"] = (ring.identity_index(identity),)
        if table.number is not None:
            number = plain[table.number]
            assert number is not None
            indexes["number_index"] = (ring.number_index(number.decode("utf-8")),)
        if table.names is not None:
            surname, given = (plain[c] for c in table.names)
            indexes["name_tokens"] = ring.name_tokens(
                (surname or b"").decode("utf-8"), (given or b"").decode("utf-8")
            )
        return indexes

    return reindex


def _reseal_batch(
    tx: Tx, table: SealedTable, ring: KeyRing, limit: int, after: Any
) -> tuple[int, Any]:
    """One batch of ``table``: the rows after row key ``after`` (None: from the first)
    not under the current version (locked), opened, sealed again, written with their
    indexes and version. Returns how many and the last row key: the next batch starts
    there (keyset order: a table is walked once, not once per batch)."""
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
    sealed = [
        SealedRow(
            table.name,
            row[0] if table.key_type == "text" else int(row[0]),
            int(row[1]),
            {
                c: None if v is None else bytes(v)
                for c, v in zip(table.sealed, row[2:], strict=True)
            },
        )
        for row in rows
    ]
    reindex = _reindex(table) if (table.identity or table.names or table.number) else None
    batch = next(reencrypt_batches(sealed, ring, batch_size=len(sealed), reindex=reindex), [])
    if not batch:
        raise PgCryptoError(
            "the store returned only rows already at the current key version",
            code=PgCryptoCode.ROTATION_STUCK,
        )
    # one UPDATE from arrays (column -> its values, typed): the names are the table's own
    arrays: dict[str, tuple[str, list[Any]]] = {key: (table.key_type, [r.row for r in batch])}
    arrays.update({c: ("bytea", [r.values[c] for r in batch]) for c in table.sealed})
    if table.identity is not None:
        arrays["id_index"] = ("bytea", [r.indexes["id_index"][0] for r in batch])
    if table.number is not None:
        arrays["number_index"] = ("bytea", [r.indexes["number_index"][0] for r in batch])
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
        if tokens:
            tx.execute(
                "INSERT INTO name_tokens (token, file_number) "
                "SELECT t, f FROM unnest(?::bytea[], ?::bigint[]) AS u(t, f)",
                ([t for t, _ in tokens], [f for _, f in tokens]),
            )
    return len(batch), rows[-1][0]


def _start(store: PgStore, installation: InstallationKey, actor: str) -> tuple[KeyRing, bool]:
    """The ring to reseal under: the stored versions unwrapped with ``installation``
    (a wrong key is refused here, before anything is written), plus a new version
    when no row is behind the newest one (otherwise an earlier run is finished)."""

    def check(tx: Tx) -> tuple[KeyRing, dict[str, int]]:
        _check_known(_versioned_tables(tx))
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
        _audit(
            store,
            tx,
            actor,
            "DATA_KEY_ADDED",
            {"version": record.version, "old_versions": _versions_text(ring.versions)},
        )
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
    """Reseal every sealed value and recompute every blind index under a new data key
    version (or finish an earlier run's), batch by batch, each batch one transaction.
    ``key``: the installation key in use (or the desk key it comes from): it wraps the
    new version. ``progress`` gets one line per batch (counts only); an exception it
    raises stops the run after a committed batch (the next run finishes). ``retire``:
    then delete the old versions' records when no row uses them."""
    if batch_size < 1:
        raise ValueError("batch_size must be positive")
    say = progress or _quiet
    installation = _installation(key, store.database_id)
    with _rotation_lock(store):
        ring, added = _start(store, installation, actor)
        store.adopt_ring(ring)
        old = tuple(v for v in ring.versions if v != ring.current_version)
        say(
            f"data key version {ring.current_version} "
            + ("stored" if added else "resumed")
            + "; desks opened before must be restarted"
        )
        rows: dict[str, int] = {t.name: 0 for t in SEALED_TABLES}
        rows.update({t: 0 for t in PORT_TABLES})
        batches = 0
        for _ in range(MAX_PASSES):
            moved = 0
            for table in SEALED_TABLES:
                after: Any = None
                while True:
                    done, after = store.write(
                        functools.partial(
                            _reseal_batch, table=table, ring=ring, limit=batch_size, after=after
                        )
                    )
                    if not done:
                        break
                    rows[table.name] += done
                    batches += 1
                    moved += done
                    say(f"{table.name}: {rows[table.name]} rows resealed")
            accounts = reseal_accounts(store, ring, batch_size=batch_size)
            vouchers = reseal_vouchers(store, ring, batch_size=batch_size)
            for name, report in (("accounts", accounts), ("vouchers", vouchers)):
                if report.rows:
                    rows[name] += report.rows
                    batches += report.batches
                    moved += report.rows
                    say(f"{name}: {rows[name]} rows resealed")
            if not moved:
                break
        remaining = store.read(lambda tx: _behind(tx, ring.current_version))

        def finish(tx: Tx) -> None:
            details: dict[str, object] = {
                "version": ring.current_version,
                "old_versions": _versions_text(old),
                "batches": batches,
            }
            details.update({f"rows_{t}": n for t, n in rows.items() if n})
            details.update({f"behind_{t}": n for t, n in remaining.items() if n})
            _audit(store, tx, actor, "DATA_KEYS_REENCRYPTED", details)

        store.write(finish)
        retired: tuple[int, ...] = ()
        if retire and not any(remaining.values()):
            retired = _retire(store, actor).retired
        say(f"re-encryption under version {ring.current_version} done")
    return ReencryptReport(
        ring.current_version,
        added,
        tuple(v for v in old if v not in retired),
        rows,
        batches,
        {t: n for t, n in remaining.items() if n},
        retired,
    )


# -- retire ----------------------------------------------------------------------------------
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
            _audit(
                store,
                tx,
                actor,
                "DATA_KEYS_RETIRED",
                {"version": newest, "retired": _versions_text(retired)},
            )
        return RetireReport(newest, retired)

    report = store.write(work)
    store.adopt_ring(ring.retaining([report.version]))
    return report


def retire_old_versions(store: PgStore, *, actor: str = ACTOR) -> RetireReport:
    """Delete the records of every data key version but the newest, once no row of any
    table is sealed under them (``PG_ROTATION_OLD_VERSION_IN_USE`` otherwise). Only when
    every desk runs with the newest version: a desk opened before still seals under the
    old one."""
    with _rotation_lock(store):
        return _retire(store, actor)


# -- the command's entry point ---------------------------------------------------------------
class KeyRotation:
    """The rotation the command line calls (``admission.desk_ports.KeyRotation``), made by the
    composition root with the open store and the desk key it was opened with.

    ``rotate(mode=...)``: ``"rewrap"`` (the new desk key from ``new_key`` or the
    environment's :data:`ENV_NEW_KEY`), ``"reencrypt"``, ``"retire"`` or
    ``"reencrypt-retire"``. Answers the report as JSON (versions and counts only);
    refusals raise ``InvalidStateError`` with a :class:`PgRotationCode`."""

    def __init__(
        self,
        store: PgStore,
        key: InstallationKey | DbKey,
        *,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._store = store
        self._key = key
        self._environ = environ

    def new_key(self) -> DbKey:
        """The new desk key of a re-wrap, from :data:`ENV_NEW_KEY` (64 hex characters: a
        raw key; anything else: a passphrase, as ``ADMISSION_DB_KEY``)."""
        value = (os.environ if self._environ is None else self._environ).get(ENV_NEW_KEY, "")
        if not value:
            raise InvalidStateError(
                f"no new key: set {ENV_NEW_KEY}", code=PgRotationCode.NEW_KEY_MISSING
            )
        return DbKey.from_text(value, source="env-new")

    def rotate(
        self,
        *,
        mode: str,
        batch: int = DEFAULT_BATCH,
        progress: Callable[[str], None] = _quiet,
        actor: str = ACTOR,
        new_key: InstallationKey | DbKey | None = None,
    ) -> dict[str, object]:
        if mode not in MODES:
            raise InvalidStateError(f"unknown rotation {mode!r}", code=PgRotationCode.MODE_UNKNOWN)
        if not self._store.read(lambda tx: pg_roles.owns_schema(tx.conn)):
            # refused before anything is written: a desk login may not rewrite data keys
            raise InvalidStateError(
                "a rotation runs as a login of the owner group", code=PgRotationCode.NEEDS_OWNER
            )
        if mode in ("rewrap", "retire"):
            refresh_ring(self._store, self._key)  # versions another desk stored since
        if mode == "rewrap":
            key = new_key if new_key is not None else self.new_key()
            report = rewrap_installation_key(self._store, key, actor=actor)
            self._key = key  # a re-encryption after it wraps under the new key
            progress(
                f"data keys {_versions_text(report.versions)} wrapped under the new key: put "
                "it where every desk keeps its key (ADMISSION_DB_KEY or its keyring entry) "
                "and restart them"
            )
            return report.as_json()
        if mode == "retire":
            retired = retire_old_versions(self._store, actor=actor)
            progress(f"data key versions retired: {_versions_text(retired.retired) or 'none'}")
            return retired.as_json()
        return reencrypt(
            self._store,
            self._key,
            batch_size=batch,
            progress=progress,
            retire=mode == "reencrypt-retire",
            actor=actor,
        ).as_json()

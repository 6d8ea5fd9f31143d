"""Moving a desk's SQLCipher visitor file onto the shared PostgreSQL server, verified and
restartable (Decreto 58/2006: art. 20.4, the file is kept whole for six months; art.
22, card numbers correlative and never reused; arts. 154-155, one file for the unit).

    report = copy_to_server(source, target)   # SqlCipherStore -> a fresh PgStore
    if not report.ok: ...                     # report.code, report.differences

What is carried, with its own numbers: visitors (file numbers), their visits, the
observations, the cards with their prints, reprints and voids (card numbers; the card
counter continues after the source's last number, erased numbers included), the bans,
the staff, the desk accounts, the provisional vouchers (the voucher counter continues
after the last), the generated secrets (the card-code key: printed cards still verify;
the audit-subject key: the chain's staff references still match) and the other settings
but the file's own id. Not carried: the RIAJ replica (the server keeps its own), the
SQLCipher file's id (the server has its database id).

The audit trail is carried ENTRY BY ENTRY, verbatim (seq, time, actor, action, subject,
details, refs, previous digest, digest): the chain's digests are HMACs under the audit
key over values, never over how a store keeps them (db/audit_chain.py), and each row's
digest is over its opened content, which both stores give alike. So with the same audit
key the chain verifies on the server, and the heads printed outside the file before the
move (``audit head``) still anchor it. The move itself is then audited on the server by
one ``FILE_MIGRATED`` entry, chained after the source's head, naming the source file's id,
its head (seq and digest) and the count of each table. A target opened with another
audit key is refused (``PG_COPY_AUDIT_KEY_DIFFERS``): a fresh chain under a new key
would cut the record the inspectors check against the printed heads.

Sealing: every value is sealed as :class:`db.pg.store.PgStore` seals it (same table,
column and row binding; the accounts' record by :mod:`db.pg.accounts`); the proof is the
verification at the end, which reads the copied rows back through the store's opening
code and the chain's row digests.

Restartable: each batch is one transaction of the server (after the chain's head lock);
the first one also writes the ``copy.source`` setting naming the source (its id and
head). A second run on a target holding that setting for the same source and head
continues where the first stopped (each table from its highest key copied); for another
source, or a target holding anything without that setting, it is refused
(``PG_COPY_TARGET_NOT_EMPTY``). When the source's chain grew since the copy began, the
copy goes on only if the new entries record no row and erase none (a sign-in, such as
the command line's own, is carried up to the new head); otherwise the desk kept working
and ``PG_COPY_SOURCE_CHANGED`` says the copy must be made again into a fresh database
(the server's audit trail cannot be rolled back, by design). A finished copy run again
is only verified again. One copy at a time
per database (a session advisory lock, ``PG_COPY_RUNNING``). No desk may use the target
before the copy has verified: the copy writes with the source's numbers.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from enum import unique
from typing import Any

import psycopg
from psycopg_pool import PoolTimeout

from admission.codes import Code
from admission.errors import ConfigError, StoreError
from admission.identity import IdentityKey
from admission.records import AuditAnchor, AuditCheck, AuditHead
from db import codec
from db.accounts import _account as _source_account
from db.audit_chain import (
    ERASED,
    GENESIS,
    NOT_CARRIED,
    entry_mac,
)
from db.audit_key import AuditKey
from db.file_guard import FILE_ID_SETTING
from db.pg import accounts as pg_accounts
from db.pg.codes import PgStoreCode
from db.pg.store import PgStore, _store_error, _Tx
from db.pg.voucher_book import PgVoucherBook
from db.store import SqlCipherStore
from db.voucher_book import SqlVoucherBook

__all__ = [
    "COPY_ACTION",
    "COPY_MARKER",
    "TABLES",
    "CopyCode",
    "CopyProgress",
    "CopyReport",
    "copy_to_server",
    "source_audit_key",
    "verify_copy",
]

log = logging.getLogger("admission.db.pg.copy")

COPY_ACTION = "FILE_MIGRATED"  # the server's audit entry recording the move
COPY_MARKER = "copy.source"  # the server's setting naming the source being copied
COPY_ACTOR = "migration"
DEFAULT_BATCH = 2000
_LOCK_LABEL = b"admission-desk/pg/copy-lock/v1"
_SKIPPED_SETTINGS = frozenset({FILE_ID_SETTING})  # the server has its own database id
# Tables compared row for row (counts); the audit trail is compared apart (+1 entry).
TABLES = (
    "visitors",
    "visits",
    "observations",
    "cards",
    "card_events",
    "bans",
    "staff",
    "accounts",
    "vouchers",
    "audit_refs",
)
_SEQUENCES = {  # server sequence -> source table and id column
    "visitors_file_number_seq": ("visitors", "file_number"),
    "visits_visit_id_seq": ("visits", "visit_id"),
    "observations_observation_id_seq": ("observations", "observation_id"),
    "bans_ban_id_seq": ("bans", "ban_id"),
    "card_events_event_id_seq": ("card_events", "event_id"),
    "accounts_account_id_seq": ("accounts", "account_id"),
}


@unique
class CopyCode(Code):
    """Why a copy of the visitor file onto the server was refused or did not verify."""

    TARGET_NOT_EMPTY = "PG_COPY_TARGET_NOT_EMPTY"  # the server holds another file already
    SOURCE_CHANGED = "PG_COPY_SOURCE_CHANGED"  # the source was written since the copy began
    SOURCE_UNVERIFIED = "PG_COPY_SOURCE_UNVERIFIED"  # the source's own chain does not verify
    AUDIT_KEY_DIFFERS = "PG_COPY_AUDIT_KEY_DIFFERS"  # the server store has another audit key
    RUNNING = "PG_COPY_RUNNING"  # another copy into this database is running
    MISMATCH = "PG_COPY_MISMATCH"  # the copy does not verify against the source


@dataclass(frozen=True, slots=True)
class CopyProgress:
    """After each committed batch: the step (a table), rows copied in it by this run,
    and batches committed by this run in all."""

    step: str
    rows: int
    batches: int


@dataclass
class CopyReport:
    """What the copy did and what its verification found (``ok`` and ``code`` "" when
    every check held; else ``code`` is ``PG_COPY_MISMATCH`` and ``differences`` says
    what differs)."""

    ok: bool = False
    code: str = ""
    source_file_id: str = ""
    source_head_seq: int = 0
    source_head_digest: str = GENESIS
    resumed: bool = False  # a previous run had begun this copy
    already_copied: bool = False  # a previous run had finished it: only verified now
    batches: int = 0
    copied: dict[str, int] = field(default_factory=dict)  # rows written by this run
    source_counts: dict[str, int] = field(default_factory=dict)
    target_counts: dict[str, int] = field(default_factory=dict)
    last_card_number: int = 0  # the highest number ever issued (the counter), on the server
    card_numbers_equal: bool = False
    card_gaps: int = 0  # numbers up to the last that no card holds (erased by retention)
    last_voucher_number: int = 0
    migrated_seq: int = 0  # the server's FILE_MIGRATED entry
    # entries the source holds after the head copied (none records a row: sign-ins)
    source_entries_after: int = 0
    audit: AuditCheck | None = None  # the whole chain on the server, accounts included
    differences: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- the source ----------------------------------------------------------------------------


def source_audit_key(source: SqlCipherStore) -> AuditKey:
    """The source file's audit key (as its store resolved it: given, environment, OS
    keyring or key file): the server store must be opened with the same one."""
    with source.reading() as conn:
        return source._key(conn, create=False)


def _identity(source: SqlCipherStore, head: AuditHead) -> str:
    """The source's id (the marker's file id; a file without one: its first entry)."""
    if source.file_id:
        return source.file_id
    first = _src(source, "SELECT digest FROM audit ORDER BY seq LIMIT 1")
    return "chain:" + (str(first[0][0]) if first else head.digest)


def _src(source: SqlCipherStore, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with source.reading() as conn:
        return [tuple(r) for r in conn.execute(sql, tuple(params)).fetchall()]


def _src_one(source: SqlCipherStore, sql: str, params: Sequence[Any] = ()) -> Any:
    rows = _src(source, sql, params)
    return rows[0][0] if rows else None


def _has_table(source: SqlCipherStore, table: str) -> bool:
    return bool(
        _src(source, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))
    )


def _source_counts(source: SqlCipherStore, head_seq: int) -> dict[str, int]:
    """Rows per table; the audit trail's entries up to ``head_seq`` (those copied)."""
    counts = {}
    for table in TABLES:
        exists = _has_table(source, table)
        counts[table] = int(_src_one(source, f"SELECT count(*) FROM {table}")) if exists else 0
    counts["audit"] = int(
        _src_one(source, "SELECT count(*) FROM audit WHERE seq <= ?", (head_seq,))
    )
    counts["settings"] = len(_carried_settings(source))
    return counts


def _carried_settings(source: SqlCipherStore) -> list[tuple[str, Any]]:
    rows = _src(source, "SELECT key, value FROM settings ORDER BY key")
    return [(str(k), v) for k, v in rows if str(k) not in _SKIPPED_SETTINGS]


def _counter(source: SqlCipherStore, name: str) -> int:
    found = _src_one(source, "SELECT next FROM counters WHERE name = ?", (name,))
    return 1 if found is None else int(found)


def _high_water(source: SqlCipherStore, table: str, column: str) -> int:
    """The highest id the source ever gave: the rows present, and for an AUTOINCREMENT
    table (visitors: file numbers never reused, art. 22.3) SQLite's own high-water mark."""
    if not _has_table(source, table):
        return 0
    top = int(_src_one(source, f"SELECT coalesce(max({column}), 0) FROM {table}"))
    if _has_table(source, "sqlite_sequence"):
        mark = _src_one(source, "SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
        top = max(top, int(mark or 0))
    return top


# -- the copy ------------------------------------------------------------------------------


def copy_to_server(
    source: SqlCipherStore,
    target: PgStore,
    *,
    batch: int = DEFAULT_BATCH,
    progress: Callable[[CopyProgress], None] | None = None,
    actor: str = COPY_ACTOR,
) -> CopyReport:
    """Copy ``source`` into ``target`` (a PgStore opened with ``create=True`` on an
    empty database, with the source's audit key: :func:`source_audit_key`), then verify.

    Raises StoreError before writing anything: ``PG_COPY_SOURCE_UNVERIFIED`` (the
    source's chain or rows do not verify: fix the source first), ``PG_COPY_AUDIT_KEY_DIFFERS``,
    ``PG_COPY_TARGET_NOT_EMPTY``, ``PG_COPY_SOURCE_CHANGED``, ``PG_COPY_RUNNING``; the
    stores' own codes (a lost connection, a damaged source...). An interruption (an
    exception from ``progress``, a killed process, a cut network) leaves whole batches;
    the next call continues. Returns the report of the verification.
    """
    if batch < 1:
        raise ValueError("batch must be at least 1")
    if target._pool.max_size < 2:
        raise ConfigError("the server store's pool needs two connections for the copy")
    check = source.verify()  # (keys a chain older than the keyed one first, once)
    if not check.ok:
        raise StoreError(
            f"the source's audit trail does not verify ({check.problem} at {check.first_bad_seq})",
            code=CopyCode.SOURCE_UNVERIFIED,
        )
    head = source.head()
    _check_same_audit_key(source, target)
    copier = _Copier(source, target, batch, progress, head, _identity(source, head))
    with _CopyLock(target):
        copier.begin()
        if not copier.report.already_copied:
            copier.copy_rows()
            _entries_after(source, copier.head)  # written during the copy: refused
            copier.finish(actor)
    return verify_copy(source, target, copier.report)


def _check_same_audit_key(source: SqlCipherStore, target: PgStore) -> None:
    rows = _src(
        source,
        "SELECT seq, at, actor, action, subject, details, prev_digest, digest, refs "
        "FROM audit ORDER BY seq DESC LIMIT 1",
    )
    if not rows:
        return
    seq, at, who, action, subject, details, prev, dig, refs = rows[0]
    mine = entry_mac(target._audit_key, prev, int(seq), at, who, action, subject, details, refs)
    if not hmac.compare_digest(mine, str(dig)):
        raise StoreError(
            "the server store was opened with another audit key than the source's",
            code=CopyCode.AUDIT_KEY_DIFFERS,
        )


class _CopyLock:
    """A session advisory lock of the target database for the copy's length (one copy
    at a time); a killed process's session ends and frees it."""

    def __init__(self, target: PgStore) -> None:
        digest = hmac.new(target.database_id.encode("utf-8"), _LOCK_LABEL, hashlib.sha256)
        self._key = int.from_bytes(digest.digest()[:8], "big", signed=True)
        self._target = target
        self._conn: Any = None
        self._ctx: Any = None

    def __enter__(self) -> None:
        try:
            self._ctx = self._target._pool.connection()
            self._conn = self._ctx.__enter__()
            got = self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self._key,)).fetchone()
        except PoolTimeout as exc:
            raise StoreError("no connection to the server", code=PgStoreCode.BUSY) from exc
        except psycopg.Error as exc:
            raise _store_error(exc, write=True) from exc
        if not got or not got[0]:
            self._ctx.__exit__(None, None, None)
            raise StoreError("another copy into this database is running", code=CopyCode.RUNNING)

    def __exit__(self, *exc: object) -> None:
        try:
            self._conn.execute("SELECT pg_advisory_unlock(%s)", (self._key,))
        except psycopg.Error:
            pass  # a broken connection: its session, and the lock, end with it
        finally:
            self._ctx.__exit__(None, None, None)


_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {  # table -> (column, type) in row order
    "settings": (("key", "text"), ("value", "bytea"), ("key_version", "integer")),
    "visitors": (
        ("id_index", "bytea"),
        ("identity", "bytea"),
        ("surname", "bytea"),
        ("given_names", "bytea"),
        ("birth_date", "bytea"),
        ("nationality", "bytea"),
        ("key_version", "integer"),
        ("file_number", "bigint"),
    ),
    "name_tokens": (("token", "bytea"), ("file_number", "bigint")),
    "visits": (
        ("visit_id", "bigint"),
        ("file_number", "bigint"),
        ("at", "timestamptz"),
        ("desk_id", "text"),
        ("operator", "text"),
        ("verdict", "text"),
        ("reasons", "text"),
        ("document_type", "text"),
        ("document_number", "bytea"),
        ("registry_status", "text"),
        ("registry_source", "text"),
        ("registry_version", "text"),
        ("registry_age_s", "bigint"),
        ("official_capacity", "text"),
        ("key_version", "integer"),
        ("number_index", "bytea"),
    ),
    "observations": (
        ("observation_id", "bigint"),
        ("file_number", "bigint"),
        ("at", "timestamptz"),
        ("author", "text"),
        ("text", "bytea"),
        ("key_version", "integer"),
    ),
    "cards": (
        ("number", "bigint"),
        ("file_number", "bigint"),
        ("visit_id", "bigint"),
        ("card_type", "text"),
        ("price_cents", "bigint"),
        ("issued_at", "timestamptz"),
        ("valid_from", "date"),
        ("valid_until", "date"),
        ("status", "text"),
        ("exceptional", "boolean"),
        ("private_rooms", "boolean"),
        ("authorised_by", "text"),
        ("print_count", "integer"),
        ("void_reason", "text"),
    ),
    "card_events": (
        ("event_id", "bigint"),
        ("card_number", "bigint"),
        ("at", "timestamptz"),
        ("kind", "text"),
        ("reason", "text"),
        ("actor", "text"),
    ),
    "bans": (
        ("ban_id", "bigint"),
        ("id_index", "bytea"),
        ("identity", "bytea"),
        ("reason", "bytea"),
        ("decided_by", "text"),
        ("created_at", "timestamptz"),
        ("expires_at", "timestamptz"),
        ("lifted_at", "timestamptz"),
        ("lift_reason", "bytea"),
        ("key_version", "integer"),
    ),
    "staff": (
        ("id_index", "bytea"),
        ("identity", "bytea"),
        ("name", "bytea"),
        ("role", "text"),
        ("active", "boolean"),
        ("key_version", "integer"),
        ("staff_id", "bigint"),
    ),
    "accounts": (
        ("account_id", "bigint"),
        ("username", "text"),
        ("record", "bytea"),
        ("key_version", "integer"),
    ),
    "vouchers": (
        ("number", "bigint"),
        ("issued_at", "timestamptz"),
        ("desk_id", "text"),
        ("operator", "text"),
        ("holder_name", "bytea"),
        ("document_type", "text"),
        ("document_number", "bytea"),
        ("card_type", "text"),
        ("price_cents", "bigint"),
        ("status", "text"),
        ("card_number", "bigint"),
        ("closed_at", "timestamptz"),
        ("close_reason", "bytea"),
        ("key_version", "integer"),
    ),
    "audit": tuple(
        (c, "text")
        for c in ("at", "actor", "action", "subject", "details", "prev_digest", "digest", "refs")
    ),
    "audit_refs": (("ref", "text"), ("seq", "bigint")),
}
_COLUMNS["audit"] = (("seq", "bigint"), *_COLUMNS["audit"])


def _insert(tx: _Tx, table: str, rows: Sequence[Sequence[Any]]) -> None:
    """The batch's rows in ONE statement (one array per column): no psycopg pipeline is
    left open inside the transaction that holds the chain's head, so a network that dies
    mid-batch leaves a session the server's idle-in-transaction timeout ends."""
    if not rows:
        return
    columns = _COLUMNS[table]
    names = ", ".join(name for name, _ in columns)
    arrays = ", ".join(f"%s::{kind}[]" for _, kind in columns)
    values = [list(column) for column in zip(*rows, strict=True)]
    tx.conn.execute(f"INSERT INTO {table} ({names}) SELECT * FROM unnest({arrays})", values)


def _analyse(target: PgStore) -> None:
    """Fresh statistics after the bulk load: without them the planner takes the copied
    tables for empty, and the chain's verification joins them row by row."""
    tables = ", ".join([*TABLES, "audit", "name_tokens", "settings", "counters"])
    try:
        with target._pool.connection() as conn:
            conn.execute(f"ANALYZE {tables}")
    except (psycopg.Error, PoolTimeout) as exc:  # statistics only: autovacuum will do it
        log.warning("ANALYZE after the copy failed (%s)", type(exc).__name__)


def _marker(identity: str, head: AuditHead) -> str:
    return json.dumps(
        {"source": identity, "head_seq": head.seq, "head_digest": head.digest},
        sort_keys=True,
        separators=(",", ":"),
    )


def _entries_after(source: SqlCipherStore, head: AuditHead) -> int:
    """How many entries the source holds after ``head``, which must still be in it with
    its digest; each of them must record no row and erase none (a sign-in, a reading:
    what the copy's own command line writes). Else ``PG_COPY_SOURCE_CHANGED``."""
    found = _src(source, "SELECT digest FROM audit WHERE seq = ?", (head.seq,))
    same = (found and str(found[0][0]) == head.digest) or (head.seq == 0 and not found)
    changed = _src(
        source,
        "SELECT count(*) FROM audit WHERE seq > ? AND (refs <> '{}' OR action = ?)",
        (head.seq, ERASED),
    )
    if not same or int(changed[0][0]):
        raise StoreError(
            "the source's records changed since its copy began: copy it into a fresh database",
            code=CopyCode.SOURCE_CHANGED,
        )
    return int(_src_one(source, "SELECT count(*) FROM audit WHERE seq > ?", (head.seq,)))


def _bound(
    write: Callable[[_Tx, list[tuple[Any, ...]]], None], rows: list[tuple[Any, ...]]
) -> Callable[[_Tx], None]:
    return lambda tx: write(tx, rows)


def _count(target: PgStore, table: str) -> int:
    found = target._read(lambda tx: tx.one(f"SELECT count(*) FROM {table}"))
    return 0 if found is None else int(found[0])


class _Copier:
    def __init__(
        self,
        source: SqlCipherStore,
        target: PgStore,
        batch: int,
        progress: Callable[[CopyProgress], None] | None,
        head: AuditHead,
        identity: str,
    ) -> None:
        self.source = source
        self.target = target
        self.ring = target.ring
        self.batch = batch
        self.progress = progress
        self.head = head
        self.head_now = head
        self.report = CopyReport(
            source_file_id=identity, source_head_seq=head.seq, source_head_digest=head.digest
        )
        self.marker = _marker(identity, head)

    # -- where the target stands ---------------------------------------------------------

    def _t(self, sql: str, params: Sequence[Any] = ()) -> Any:
        found = self.target._read(lambda tx: tx.one(sql, params))
        return None if found is None else found[0]

    def begin(self) -> None:
        """Fresh target: nothing to do yet. Our own unfinished copy: resume. Anything
        else: refused before any write."""
        found = self.target.get_setting(COPY_MARKER)
        if found is None:
            held = [t for t in (*TABLES, "audit", "settings") if _count(self.target, t)]
            if held:
                raise StoreError(
                    f"the server's database already holds records ({', '.join(held)})",
                    code=CopyCode.TARGET_NOT_EMPTY,
                )
            return
        marker = json.loads(found)
        if marker.get("source") != self.report.source_file_id:
            raise StoreError(
                "the server's database holds a copy of another visitor file",
                code=CopyCode.TARGET_NOT_EMPTY,
            )
        began = AuditHead(int(marker["head_seq"]), str(marker["head_digest"]), None)
        self.report.resumed = True
        self._set_head(began)
        if self._migrated_seq() > 0:  # done: verified again, what changed since reported
            self.report.already_copied = True
            return
        self.report.source_entries_after = _entries_after(self.source, began)
        if began.seq != self.head_now.seq:  # only entries that record no row: go on
            self._set_head(self.head_now)
            sealed = self.ring.seal_text(
                self.marker, table="settings", column="value", row=COPY_MARKER
            )
            self.target._write(
                lambda tx: tx.conn.execute(
                    "UPDATE settings SET value = %s WHERE key = %s", (sealed, COPY_MARKER)
                )
            )

    def _set_head(self, head: AuditHead) -> None:
        self.head = head
        self.report.source_head_seq, self.report.source_head_digest = head.seq, head.digest
        self.marker = _marker(self.report.source_file_id, head)

    def _migrated_seq(self) -> int:
        row = self.target._read(
            lambda tx: tx.one(
                "SELECT seq FROM audit WHERE seq = %s AND action = %s",
                (self.head.seq + 1, COPY_ACTION),
            )
        )
        return 0 if row is None else int(row[0])

    # -- the rows ------------------------------------------------------------------------

    def _done(self, step: str, rows: int) -> None:
        self.report.batches += 1
        self.report.copied[step] = self.report.copied.get(step, 0) + rows
        if self.progress is not None:
            self.progress(CopyProgress(step, self.report.copied[step], self.report.batches))

    def _steps(
        self,
        step: str,
        source_sql: str,
        target_last: str,
        write: Callable[[_Tx, list[tuple[Any, ...]]], None],
        *,
        empty: Any = 0,
    ) -> None:
        """Copy the rows ``source_sql`` selects after a key (``?``, then ``LIMIT ?``),
        in batches of one transaction each, from the highest key already on the server."""
        last = self._t(target_last)
        last = empty if last is None else last
        while True:
            rows = _src(self.source, source_sql, (last, self.batch))
            if not rows:
                return
            self.target._write(_bound(write, rows))
            last = rows[-1][0]
            self._done(step, len(rows))

    def copy_rows(self) -> None:
        if not self.report.resumed:
            self.target._write(self._settings)
            self._done("settings", len(_carried_settings(self.source)))
        self._steps(
            "visitors",
            "SELECT file_number, identity, surname, given_names, birth_date, nationality "
            "FROM visitors WHERE file_number > ? ORDER BY file_number LIMIT ?",
            "SELECT max(file_number) FROM visitors",
            self._visitors,
        )
        self._steps(
            "visits",
            "SELECT visit_id, file_number, at, desk_id, operator, verdict, reasons, "
            "document_type, document_number, registry_status, registry_source, "
            "registry_version, registry_age_s, official_capacity FROM visits "
            "WHERE visit_id > ? ORDER BY visit_id LIMIT ?",
            "SELECT max(visit_id) FROM visits",
            self._visits,
        )
        self._steps(
            "observations",
            "SELECT observation_id, file_number, at, author, text FROM observations "
            "WHERE observation_id > ? ORDER BY observation_id LIMIT ?",
            "SELECT max(observation_id) FROM observations",
            self._observations,
        )
        self._steps(
            "cards",
            "SELECT number, file_number, visit_id, card_type, price_cents, issued_at, "
            "valid_from, valid_until, status, exceptional, private_rooms, authorised_by, "
            "print_count, void_reason FROM cards WHERE number > ? ORDER BY number LIMIT ?",
            "SELECT max(number) FROM cards",
            self._cards,
        )
        self._steps(
            "bans",
            "SELECT ban_id, identity, reason, decided_by, created_at, expires_at, lifted_at, "
            "lift_reason FROM bans WHERE ban_id > ? ORDER BY ban_id LIMIT ?",
            "SELECT max(ban_id) FROM bans",
            self._bans,
        )
        self._staff()
        if _has_table(self.source, "accounts"):
            self._steps(  # the source is opened migrated: pin_hash is there (0041)
                "accounts",
                "SELECT account_id, username, display_name, roles, active, password_hash, "
                "failed_attempts, locked_until, created_at, pin_hash FROM accounts "
                "WHERE account_id > ? ORDER BY account_id LIMIT ?",
                "SELECT max(account_id) FROM accounts",
                self._accounts,
            )
        if _has_table(self.source, "vouchers"):
            self._steps(
                "vouchers",
                "SELECT number, issued_at, desk_id, operator, holder_name, document_type, "
                "document_number, card_type, price_cents, status, card_number, closed_at, "
                "close_reason FROM vouchers WHERE number > ? ORDER BY number LIMIT ?",
                "SELECT max(number) FROM vouchers",
                self._vouchers,
            )
        self._steps(
            "audit",
            "SELECT seq, at, actor, action, subject, details, prev_digest, digest, refs, keyed "
            f"FROM audit WHERE seq > ? AND seq <= {int(self.head.seq)} ORDER BY seq LIMIT ?",
            "SELECT max(seq) FROM audit",
            self._audit,
        )
        self._steps(  # refs are ASCII: SQLite's BINARY order is the "C" collation's
            "audit_refs",
            f"SELECT ref, seq FROM audit_refs WHERE ref > ? AND seq <= {int(self.head.seq)} "
            "ORDER BY ref LIMIT ?",
            'SELECT max(ref COLLATE "C") FROM audit_refs',
            self._audit_refs,
            empty="",
        )

    def _settings(self, tx: _Tx) -> None:
        """The marker naming the source, and the settings carried (sealed as PgStore's
        ``secret`` and ``set_setting`` seal them: bound to the setting's key)."""
        rows: list[tuple[str, bytes, int]] = []
        for key, value in [(COPY_MARKER, self.marker), *_carried_settings(self.source)]:
            if key.startswith("secret:") or isinstance(value, bytes):
                sealed = self.ring.seal(bytes(value), table="settings", column="value", row=key)
            else:
                sealed = self.ring.seal_text(str(value), table="settings", column="value", row=key)
            rows.append((key, sealed, self.ring.current_version))
        _insert(tx, "settings", rows)

    def _seal(self, text: str, table: str, column: str, row: int | str) -> bytes:
        return self.ring.seal_text(text, table=table, column=column, row=row)

    def _visitors(self, tx: _Tx, rows: list[tuple[Any, ...]]) -> None:
        v = self.ring.current_version
        values, tokens = [], []
        for fn, identity, surname, given, birth, nationality in rows:
            n = int(fn)
            values.append(
                (
                    self.ring.identity_index(IdentityKey.parse(str(identity))),
                    self._seal(str(identity), "visitors", "identity", n),
                    self._seal(str(surname), "visitors", "surname", n),
                    self._seal(str(given), "visitors", "given_names", n),
                    None if birth is None else self._seal(str(birth), "visitors", "birth_date", n),
                    self._seal(str(nationality), "visitors", "nationality", n),
                    v,
                    n,
                )
            )
            tokens += [(t, n) for t in self.ring.name_tokens(str(surname), str(given))]
        _insert(tx, "visitors", values)
        if tokens:
            _insert(tx, "name_tokens", tokens)

    def _visits(self, tx: _Tx, rows: list[tuple[Any, ...]]) -> None:
        v = self.ring.current_version
        values = [
            (
                int(r[0]),
                int(r[1]),
                codec.parse_ts(str(r[2])),
                *r[3:8],
                self._seal(str(r[8]), "visits", "document_number", int(r[0])),
                *r[9:14],
                v,
                self.ring.number_index(str(r[8])),
            )
            for r in rows
        ]
        _insert(tx, "visits", values)

    def _observations(self, tx: _Tx, rows: list[tuple[Any, ...]]) -> None:
        v = self.ring.current_version
        values = [
            (
                int(oid),
                int(fn),
                codec.parse_ts(str(at)),
                str(author),
                self._seal(str(text), "observations", "text", int(oid)),
                v,
            )
            for oid, fn, at, author, text in rows
        ]
        _insert(tx, "observations", values)

    def _cards(self, tx: _Tx, rows: list[tuple[Any, ...]]) -> None:
        """The cards and, in the same transaction, their prints, reprints and voids in
        their order (their event ids: the chain's card content lists them in order)."""
        values = [
            (
                int(r[0]),
                int(r[1]),
                None if r[2] is None else int(r[2]),
                str(r[3]),
                int(r[4]),
                codec.parse_ts(str(r[5])),
                date.fromisoformat(str(r[6])),
                date.fromisoformat(str(r[7])),
                str(r[8]),
                bool(r[9]),
                bool(r[10]),
                str(r[11]),
                int(r[12]),
                str(r[13]),
            )
            for r in rows
        ]
        events = _src(
            self.source,
            "SELECT event_id, card_number, at, kind, reason, actor FROM card_events "
            "WHERE card_number BETWEEN ? AND ? ORDER BY event_id",
            (int(rows[0][0]), int(rows[-1][0])),
        )
        _insert(tx, "cards", values)
        if events:
            _insert(
                tx,
                "card_events",
                [(int(e), int(c), codec.parse_ts(str(a)), *rest) for e, c, a, *rest in events],
            )
        self.report.copied["card_events"] = self.report.copied.get("card_events", 0) + len(events)

    def _bans(self, tx: _Tx, rows: list[tuple[Any, ...]]) -> None:
        v = self.ring.current_version
        values = []
        for ban_id, identity, reason, decided_by, created, expires, lifted, lift_reason in rows:
            n = int(ban_id)
            values.append(
                (
                    n,
                    self.ring.identity_index(IdentityKey.parse(str(identity))),
                    self._seal(str(identity), "bans", "identity", n),
                    self._seal(str(reason), "bans", "reason", n),
                    str(decided_by),
                    codec.parse_ts(str(created)),
                    codec.parse_opt_ts(expires),
                    codec.parse_opt_ts(lifted),
                    None
                    if lifted is None
                    else self._seal(str(lift_reason or ""), "bans", "lift_reason", n),
                    v,
                )
            )
        _insert(tx, "bans", values)

    def _staff(self) -> None:
        """Staff rows have no number in the source (keyed by identity): the server's
        ``staff_id`` is their place in identity order, so a resumed run continues."""
        done = int(self._t("SELECT coalesce(max(staff_id), 0) FROM staff"))
        v = self.ring.current_version
        while True:
            rows = _src(
                self.source,
                "SELECT identity, name, role, active FROM staff ORDER BY identity LIMIT ? OFFSET ?",
                (self.batch, done),
            )
            if not rows:
                return
            values = []
            for i, (identity, name, role, active) in enumerate(rows, start=done + 1):
                values.append(
                    (
                        self.ring.identity_index(IdentityKey.parse(str(identity))),
                        self._seal(str(identity), "staff", "identity", i),
                        self._seal(str(name), "staff", "name", i),
                        str(role),
                        bool(active),
                        v,
                        i,
                    )
                )

            def work(tx: _Tx, values: list[tuple[Any, ...]] = values) -> None:
                _insert(tx, "staff", values)

            self.target._write(work)
            done += len(rows)
            self._done("staff", len(rows))

    def _accounts(self, tx: _Tx, rows: list[tuple[Any, ...]]) -> None:
        """Each account as db/pg/accounts.py seals it: one record bound to the user name,
        with the source's ``account_id`` (the chain names the row ``account:<id>``)."""
        values = []
        for row in rows:
            stored = _source_account(row[1:9], None if row[9] is None else str(row[9]))
            sealed = pg_accounts._seal(
                self.ring, stored.account, stored.password_hash, stored.pin_hash
            )
            values.append((int(row[0]), str(row[1]), sealed, self.ring.current_version))
        _insert(tx, "accounts", values)

    def _vouchers(self, tx: _Tx, rows: list[tuple[Any, ...]]) -> None:
        """As db/pg/voucher_book.py seals them: holder, document number and closing
        reason bound to the voucher's number; no closing reason is NULL."""
        v = self.ring.current_version
        values = []
        for r in rows:
            n = int(r[0])
            reason = str(r[12] or "")
            values.append(
                (
                    n,
                    codec.parse_ts(str(r[1])),
                    str(r[2]),
                    str(r[3]),
                    self._seal(str(r[4]), "vouchers", "holder_name", n),
                    str(r[5]),
                    self._seal(str(r[6]), "vouchers", "document_number", n),
                    str(r[7]),
                    int(r[8]),
                    str(r[9]),
                    None if r[10] is None else int(r[10]),
                    codec.parse_opt_ts(r[11]),
                    self._seal(reason, "vouchers", "close_reason", n)
                    if reason or str(r[9]) == "CANCELLED"
                    else None,
                    v,
                )
            )
        _insert(tx, "vouchers", values)

    def _audit(self, tx: _Tx, rows: list[tuple[Any, ...]]) -> None:
        """The entries verbatim: their digests are the chain (db/audit_chain.py)."""
        if any(not r[9] for r in rows):
            raise StoreError(
                "the source holds entries of the unkeyed chain", code=CopyCode.SOURCE_UNVERIFIED
            )
        _insert(tx, "audit", [tuple(r[:9]) for r in rows])

    def _audit_refs(self, tx: _Tx, rows: list[tuple[Any, ...]]) -> None:
        _insert(tx, "audit_refs", [(str(ref), int(seq)) for ref, seq in rows])

    # -- the counters and the audited act ------------------------------------------------

    def finish(self, actor: str) -> None:
        """The counters continue the source's (art. 22.1: the card after the last ever
        issued, erased ones included), the id sequences after the highest id, and one
        ``FILE_MIGRATED`` entry records the move, chained after the source's head."""
        source = self.source
        card_next = _counter(source, "card")
        audit_next = self.head.seq + 1
        # past every voucher the source's chain numbered, the purged newest ones included
        voucher_next = max(
            _high_water(source, "vouchers", "number") + 1, _counter(source, "voucher")
        )
        snapshots = (
            int(_src_one(source, "SELECT count(*) FROM registry_snapshot"))
            if _has_table(source, "registry_snapshot")
            else 0
        )
        marks = {seq: _high_water(source, t, c) for seq, (t, c) in _SEQUENCES.items()}
        marks["staff_staff_id_seq"] = int(_src_one(source, "SELECT count(*) FROM staff"))
        counts = _source_counts(source, self.head.seq)

        def work(tx: _Tx) -> int:
            top = tx.one("SELECT coalesce(max(seq), 0) FROM audit")
            if top is None or int(top[0]) != self.head.seq:
                raise StoreError(
                    "the server's audit trail is not the source's", code=CopyCode.MISMATCH
                )
            for name, value in (("card", card_next), ("audit", audit_next)):
                tx.conn.execute("UPDATE counters SET next = %s WHERE name = %s", (value, name))
            tx.conn.execute(
                "INSERT INTO counters (name, next) VALUES ('voucher', %s) ON CONFLICT (name) "
                "DO UPDATE SET next = greatest(counters.next, excluded.next)",
                (voucher_next,),
            )
            for seq, mark in marks.items():
                tx.conn.execute("SELECT setval(%s, %s, %s)", (seq, max(mark, 1), mark > 0))
            details = {
                "source_file": self.report.source_file_id,
                "source_head_seq": str(self.head.seq),
                "source_head_digest": self.head.digest,
                **{f"rows_{k}": str(n) for k, n in counts.items()},
            }
            if snapshots:  # the desk's RIAJ snapshots stay behind: the server has its own
                details[f"{NOT_CARRIED}registry"] = str(snapshots)
            return self.target._audit(
                tx, actor, COPY_ACTION, "visitor-file", self.target._now(), details
            )

        self.report.migrated_seq = self.target._write(work)
        _analyse(self.target)
        log.info("visitor file copied to the server: %d entries carried", self.head.seq)


# -- the verification ----------------------------------------------------------------------


def verify_copy(
    source: SqlCipherStore,
    target: PgStore,
    report: CopyReport | None = None,
) -> CopyReport:
    """Compare the server's copy with the source: counts per table, the card number set
    and counter, the voucher counter, the carried settings and vouchers as both stores
    read them, and the whole audit chain on the server (every row present checked
    against it, accounts included: ``PgStore.verify``, as the desks run it) anchored at
    the source's head."""
    if report is None:
        head = source.head()
        marker = target.get_setting(COPY_MARKER)
        if marker is not None:  # the head the copy was made from
            found = json.loads(marker)
            head = AuditHead(int(found["head_seq"]), str(found["head_digest"]), None)
        report = CopyReport(
            source_file_id=_identity(source, head),
            source_head_seq=head.seq,
            source_head_digest=head.digest,
        )
    diffs: list[str] = []
    copied = AuditHead(report.source_head_seq, report.source_head_digest, None)
    try:
        report.source_entries_after = _entries_after(source, copied)
    except StoreError:
        diffs.append("source: rows recorded or erased after the head copied")
    report.source_counts = _source_counts(source, report.source_head_seq)
    report.target_counts = _target_counts(target, report.source_counts)
    migrated = target._read(
        lambda tx: tx.one(
            "SELECT seq FROM audit WHERE seq = %s AND action = %s",
            (report.source_head_seq + 1, COPY_ACTION),
        )
    )
    report.migrated_seq = 0 if migrated is None else int(migrated[0])
    if not report.migrated_seq:
        diffs.append("audit: no FILE_MIGRATED entry after the source's head")
    for table, count in report.source_counts.items():
        found = report.target_counts.get(table, 0)
        if table == "audit":
            found -= 1 if report.migrated_seq else 0
        if found != count:
            diffs.append(f"{table}: {count} in the source, {found} on the server")
    report.card_numbers_equal, report.card_gaps, card_diffs = _compare_cards(source, target)
    diffs += card_diffs
    report.last_card_number = target.last_card_number()
    source_last = _counter(source, "card") - 1
    if report.last_card_number != source_last:
        diffs.append(
            f"card counter: last {source_last} in the source, "
            f"{report.last_card_number} on the server"
        )
    report.last_voucher_number = PgVoucherBook(target).last_voucher_number()
    source_voucher = max(_high_water(source, "vouchers", "number"), _counter(source, "voucher") - 1)
    if report.last_voucher_number != source_voucher:
        diffs.append(
            f"voucher counter: last {source_voucher} in the source, "
            f"{report.last_voucher_number} on the server"
        )
    diffs += _compare_vouchers(source, target)
    diffs += _compare_settings(source, target)
    anchors = [AuditAnchor(report.source_head_seq, report.source_head_digest)]
    if report.source_head_seq == 0:
        anchors = []
    report.audit = target.verify(anchors)  # the desk accounts included, as in the source
    if not report.audit.ok:
        diffs.append(
            f"audit chain on the server: {report.audit.problem} "
            f"(seq {report.audit.first_bad_seq}, {report.audit.row or '-'})"
        )
    report.differences = diffs
    report.ok = not diffs
    report.code = "" if report.ok else str(CopyCode.MISMATCH)
    return report


def _target_counts(target: PgStore, wanted: dict[str, int]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for table in wanted:
        if table == "settings":
            continue
        counts[table] = _count(target, table)
    keys = [k for k, _ in _carried_settings_of_target(target)]
    counts["settings"] = len(keys)
    return counts


def _carried_settings_of_target(target: PgStore) -> list[tuple[str, Any]]:
    rows = target._read(
        lambda tx: tx.all("SELECT key, value FROM settings WHERE key <> %s", (COPY_MARKER,))
    )
    return [(str(k), v) for k, v in rows]


def _numbers(rows: Iterator[list[int]]) -> Iterator[int]:
    for batch in rows:
        yield from batch


def _compare_cards(source: SqlCipherStore, target: PgStore) -> tuple[bool, int, list[str]]:
    """The card numbers present on both sides, in order, batch by batch (art. 22.1)."""

    def source_batches() -> Iterator[list[int]]:
        last = 0
        while rows := _src(
            source, "SELECT number FROM cards WHERE number > ? ORDER BY number LIMIT 5000", (last,)
        ):
            yield [int(r[0]) for r in rows]
            last = int(rows[-1][0])

    def after(last: int) -> Callable[[_Tx], list[tuple[Any, ...]]]:
        sql = "SELECT number FROM cards WHERE number > %s ORDER BY number LIMIT 5000"
        return lambda tx: tx.all(sql, (last,))

    def target_batches() -> Iterator[list[int]]:
        last = 0
        while True:
            rows = target._read(after(last))
            if not rows:
                return
            yield [int(r[0]) for r in rows]
            last = int(rows[-1][0])

    count, top, first_diff = 0, 0, None
    src, dst = _numbers(source_batches()), _numbers(target_batches())
    while True:
        a, b = next(src, None), next(dst, None)
        if a is None and b is None:
            break
        if a != b:
            first_diff = a if b is None else (b if a is None else min(a, b))
            break
        assert a is not None
        count, top = count + 1, a
    last = _counter(source, "card") - 1
    gaps = max(last, top) - count
    if first_diff is not None:
        return False, gaps, [f"cards: the number sets differ from {first_diff}"]
    return True, gaps, []


def _compare_vouchers(source: SqlCipherStore, target: PgStore) -> list[str]:
    if not _has_table(source, "vouchers"):
        return []
    mine, theirs = SqlVoucherBook(source), PgVoucherBook(target)
    numbers = [int(r[0]) for r in _src(source, "SELECT number FROM vouchers ORDER BY number")]
    for number in numbers:
        if mine.voucher(number) != theirs.voucher(number):
            return [f"vouchers: number {number} differs"]
    return []


def _compare_settings(source: SqlCipherStore, target: PgStore) -> list[str]:
    diffs = []
    stored = _carried_settings_of_target(target)
    for key, value in _carried_settings(source):
        if key.startswith("secret:"):  # opened as PgStore.secret opens it
            held = dict(stored).get(key)
            same = held is not None and target.ring.open(
                bytes(held), table="settings", column="value", row=key
            ) == bytes(value)
        else:
            same = target.get_setting(key) == (
                value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            )
        if not same:
            diffs.append(f"settings: {key} differs")
    return diffs

"""Moving a desk's SQLCipher visitor file onto the shared PostgreSQL server, verified and
restartable (Decreto 58/2006: art. 20.4, the file kept whole; art. 22, card numbers never
reused; arts. 154-155, one file for the unit). Rows keep their numbers and the audit trail
is carried verbatim (HMACs over values, db/audit_chain.py): under the same audit key the
heads printed before still verify. No desk may use the target before the copy verified:
the copy writes with the source's numbers."""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import InitVar, asdict, dataclass, field
from datetime import date
from enum import unique
from typing import Any

from admission.codes import Code
from admission.errors import StoreError
from admission.identity import IdentityKey
from admission.records import AuditAnchor, AuditCheck, AuditHead
from db import codec
from db.accounts import copied_account
from db.audit_chain import ERASED, GENESIS, NOT_CARRIED
from db.audit_key import AuditKey
from db.chain import CHAIN_COLUMNS
from db.file_guard import FILE_ID_SETTING
from db.pg.rotation import SEALED_TABLES, SealedTable
from db.pg.store import PgStore
from db.store import SqlCipherStore
from db.tx import Tx
from db.voucher_book import VOUCHER_COLUMNS, StoreVoucherBook

log = logging.getLogger("admission.db.pg.copy")

COPY_ACTION = "FILE_MIGRATED"  # the server's audit entry recording the move
COPY_MARKER = "copy.source"  # the server's setting naming the source being copied
COPY_ACTOR = "migration"
DEFAULT_BATCH = 2000
NUMBERS_BATCH = 5000  # card numbers compared per read
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
_LOCK_LABEL = b"admission-desk/pg/copy-lock/v1"
_AUDIT_COLUMNS = CHAIN_COLUMNS.split(", ")
_TYPES = (  # a server table's columns and their types, in the statement's casts
    "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
    "WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped"
)
# The source's columns of each table copied row for row, its key first (the source is
# opened migrated: pin_hash is there, 0041). The server seals them as its key rotation
# reseals them (db/pg/rotation.py SEALED_TABLES), vouchers as db/voucher_book.py does.
COLUMNS = {
    "visitors": "file_number, identity, surname, given_names, birth_date, nationality",
    "visits": "visit_id, file_number, at, desk_id, operator, verdict, reasons, document_type, "
    "document_number, registry_status, registry_source, registry_version, registry_age_s, "
    "official_capacity",
    "observations": "observation_id, file_number, at, author, text",
    "cards": "number, file_number, visit_id, card_type, price_cents, issued_at, valid_from, "
    "valid_until, status, exceptional, private_rooms, authorised_by, print_count, void_reason",
    "bans": "ban_id, identity, reason, decided_by, created_at, expires_at, lifted_at, lift_reason",
    "staff": "staff_id, identity, name, role, active",
    "accounts": "account_id, username, display_name, roles, active, password_hash, "
    "failed_attempts, locked_until, created_at, pin_hash",
    "vouchers": VOUCHER_COLUMNS,
}
# The server's id sequences ({table}_{id column}_seq), continued after the source's ids
SEQUENCED = {"card_events": "event_id"} | {
    t: COLUMNS[t].split(",")[0] for t in ("visitors", "visits", "observations", "bans", "accounts")
}
# Staff rows have no number in the source (keyed by identity): the server's ``staff_id``
# is their place in identity order, so a resumed run continues.
_FROM = {"staff": "(SELECT row_number() OVER (ORDER BY identity) AS staff_id, * FROM staff)"}
SEALED = {t.name: t for t in SEALED_TABLES} | {
    "vouchers": SealedTable(
        "vouchers", "number", "bigint", ("holder_name", "document_number", "close_reason")
    )
}
Rows = list[tuple[Any, ...]]


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
    """After each committed batch: the step (a table), its rows and all batches, this run's."""

    step: str
    rows: int
    batches: int


@dataclass
class CopyReport:
    """What the copy did and its verification found (else ``code`` and ``differences``)."""

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


def copy_to_server(
    source: SqlCipherStore,
    target: PgStore,
    *,
    batch: int = DEFAULT_BATCH,
    progress: Callable[[CopyProgress], None] | None = None,
    actor: str = COPY_ACTOR,
) -> CopyReport:
    """Copy ``source`` into ``target`` (created empty under :func:`source_audit_key`: a new
    key would cut the chain from the printed heads), then verify. Refusals (``CopyCode``)
    come before any write; an interruption leaves whole batches and the next call continues."""
    if batch < 1:
        raise ValueError("batch must be at least 1")
    check = source.verify()  # (keys a chain older than the keyed one first, once)
    if not check.ok:
        raise StoreError(
            f"the source's audit trail does not verify ({check.problem} at {check.first_bad_seq})",
            code=CopyCode.SOURCE_UNVERIFIED,
        )
    head = source.head()
    newest = _select(source, f"SELECT {CHAIN_COLUMNS} FROM audit ORDER BY seq DESC LIMIT 1")
    if newest and not target.chained_under_key(newest[0]):
        raise StoreError(
            "the server store was opened with another audit key than the source's",
            code=CopyCode.AUDIT_KEY_DIFFERS,
        )
    copier = Copier(source, target, batch, progress, head, file_identity(source, head))
    with copy_lock(target):
        copier.begin()
        if not copier.report.already_copied:
            copier.copy_rows()
            _entries_after(source, copier.head)  # written during the copy: refused
            copier.finish(actor)
    return verify_copy(source, target, copier.report)


def copy_lock(target: PgStore) -> contextlib.AbstractContextManager[None]:
    """One copy at a time per database: a killed process's session ends and frees it."""
    busy = StoreError("another copy into this database is running", code=CopyCode.RUNNING)
    return target.session_lock(_LOCK_LABEL, busy)


def source_audit_key(source: SqlCipherStore) -> AuditKey:
    """The source's audit key, as its store resolved it: open the server store with it."""
    return source.chain_key()


def _select(source: SqlCipherStore, sql: str, params: Sequence[Any] = ()) -> Rows:
    with source.reading() as conn:
        return [tuple(r) for r in conn.execute(sql, tuple(params)).fetchall()]


def _value(source: SqlCipherStore, sql: str, params: Sequence[Any] = ()) -> Any:
    rows = _select(source, sql, params)
    return rows[0][0] if rows else None


def _has_table(source: SqlCipherStore, table: str) -> bool:
    found = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return bool(_select(source, found, (table,)))


def _count(source: SqlCipherStore, table: str) -> int:
    return int(_value(source, f"SELECT count(*) FROM {table}")) if _has_table(source, table) else 0


def file_identity(source: SqlCipherStore, head: AuditHead) -> str:
    """The source's id (the marker's file id; a file without one: its first entry)."""
    if source.file_id:
        return source.file_id
    first = _select(source, "SELECT digest FROM audit ORDER BY seq LIMIT 1")
    return "chain:" + (str(first[0][0]) if first else head.digest)


def _source_counts(source: SqlCipherStore, head_seq: int) -> dict[str, int]:
    """Rows per table; the audit trail's entries up to ``head_seq`` (those copied)."""
    counts = {table: _count(source, table) for table in TABLES}
    counts["audit"] = int(_value(source, "SELECT count(*) FROM audit WHERE seq <= ?", (head_seq,)))
    counts["settings"] = len(_carried_settings(source))
    return counts


def _carried_settings(source: SqlCipherStore) -> list[tuple[str, Any]]:
    """The settings but the file's own id (the server has its own database id)."""
    rows = _select(source, "SELECT key, value FROM settings ORDER BY key")
    return [(str(k), v) for k, v in rows if str(k) != FILE_ID_SETTING]


def _counter(source: SqlCipherStore, name: str) -> int:
    found = _value(source, "SELECT next FROM counters WHERE name = ?", (name,))
    return 1 if found is None else int(found)


def _high_water(source: SqlCipherStore, table: str, column: str) -> int:
    """The highest id the source gave, AUTOINCREMENT mark included (art. 22.3: no reuse)."""
    if not _has_table(source, table):
        return 0
    top = int(_value(source, f"SELECT coalesce(max({column}), 0) FROM {table}"))
    # sqlite_sequence exists in every file: 0001 declares visitors AUTOINCREMENT
    mark = _value(source, "SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
    return max(top, int(mark or 0))


def _last_voucher(source: SqlCipherStore) -> int:
    """The last voucher number the source's chain numbered, purged newest ones included."""
    return max(_high_water(source, "vouchers", "number"), _counter(source, "voucher") - 1)


def _entries_after(source: SqlCipherStore, head: AuditHead) -> int:
    """How many entries the source holds after ``head`` (still in it), none recording or
    erasing a row (a sign-in, as the copy's own command line writes); else refused."""
    found = _select(source, "SELECT digest FROM audit WHERE seq = ?", (head.seq,))
    same = (found and str(found[0][0]) == head.digest) or (head.seq == 0 and not found)
    changed = _value(
        source,
        "SELECT count(*) FROM audit WHERE seq > ? AND (refs <> '{}' OR action = ?)",
        (head.seq, ERASED),
    )
    if not same or int(changed):
        raise StoreError(
            "the source's records changed since its copy began: copy it into a fresh database",
            code=CopyCode.SOURCE_CHANGED,
        )
    return int(_value(source, "SELECT count(*) FROM audit WHERE seq > ?", (head.seq,)))


def _server_count(target: PgStore, table: str) -> int:
    found = target.read(lambda tx: tx.one(f"SELECT count(*) FROM {table}"))
    return 0 if found is None else int(found[0])


def _migrated_seq(target: PgStore, head_seq: int) -> int:
    """The server's ``FILE_MIGRATED`` entry after the source's head ``head_seq``, or 0."""
    sql = "SELECT seq FROM audit WHERE seq = ? AND action = ?"
    row = target.read(lambda tx: tx.one(sql, (head_seq + 1, COPY_ACTION)))
    return 0 if row is None else int(row[0])


# A value of the source as the server's column of a type holds it (format_type's names)
_AS_TYPE: dict[str, Callable[[Any], Any]] = {
    "timestamp with time zone": lambda v: codec.parse_ts(str(v)),
    "date": lambda v: date.fromisoformat(str(v)),
    "boolean": bool,
}


def _typed(kind: str, value: Any) -> Any:
    return value if value is None or kind not in _AS_TYPE else _AS_TYPE[kind](value)


def sealed_row(tx: Tx, table: str, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (plain values) as the server keeps it: sealed to the row's key (None stays
    NULL), with its blind indexes and key version (:meth:`db.tx.Tx.index_columns`)."""
    spec = SEALED[table]
    key = row[spec.key]
    identity = None if spec.identity is None else IdentityKey.parse(str(row[spec.identity]))
    number = None if spec.number is None else str(row[spec.number])
    for column in spec.sealed:
        if row[column] is not None:
            row[column] = tx.seal(str(row[column]), table, column, key)
    return {**row, **tx.index_columns(identity=identity, number=number)}


@dataclass(eq=False)
class Copier:
    """One run of the copy up to ``head``: :meth:`begin`, :meth:`copy_rows`, :meth:`finish`."""

    source: SqlCipherStore
    target: PgStore
    batch: int
    progress: Callable[[CopyProgress], None] | None
    head: AuditHead
    identity: InitVar[str]

    def __post_init__(self, identity: str) -> None:
        self.head_now = self.head
        self.report = CopyReport(source_file_id=identity)
        self._types: dict[str, dict[str, str]] = {}
        self.set_head(self.head)

    def begin(self) -> None:
        """A fresh target, or our own unfinished copy (resumed); anything else is refused."""
        found = self.target.get_setting(COPY_MARKER)
        if found is None:
            held = [t for t in (*TABLES, "audit", "settings") if _server_count(self.target, t)]
            if held:
                raise StoreError(
                    f"the server's database already holds records ({', '.join(held)})",
                    code=CopyCode.TARGET_NOT_EMPTY,
                )
            return
        began_at = json.loads(found)
        if began_at.get("source") != self.report.source_file_id:
            raise StoreError(
                "the server's database holds a copy of another visitor file",
                code=CopyCode.TARGET_NOT_EMPTY,
            )
        began = AuditHead(int(began_at["head_seq"]), str(began_at["head_digest"]), None)
        self.report.resumed = True
        self.set_head(began)
        if _migrated_seq(self.target, self.head.seq) > 0:  # done: verified again
            self.report.already_copied = True
            return
        self.report.source_entries_after = _entries_after(self.source, began)
        if began.seq != self.head_now.seq:  # only entries that record no row: go on
            self.set_head(self.head_now)
            self.target.write(lambda tx: tx.put_setting(COPY_MARKER, self.marker))

    def set_head(self, head: AuditHead) -> None:
        """Copy the chain up to ``head``, which the marker names."""
        self.head = head
        self.report.source_head_seq, self.report.source_head_digest = head.seq, head.digest
        began = {"source": self.report.source_file_id, "head_seq": head.seq}
        began["head_digest"] = head.digest
        self.marker = json.dumps(began, sort_keys=True, separators=(",", ":"))

    def _done(self, step: str, rows: int) -> None:
        self.report.batches += 1
        self.report.copied[step] = self.report.copied.get(step, 0) + rows
        if self.progress is not None:
            self.progress(CopyProgress(step, self.report.copied[step], self.report.batches))

    def _insert(self, tx: Tx, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """The batch in ONE statement (an array per column): no psycopg pipeline stays open in
        the chain head's transaction, so a dead network's session times out idle."""
        if not rows:
            return
        types = self._types_of(tx, table)
        columns = list(rows[0])
        arrays = ", ".join(f"?::{types[c]}[]" for c in columns)
        values = [[row[c] for row in rows] for c in columns]
        tx.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT * FROM unnest({arrays})", values
        )

    def _types_of(self, tx: Tx, table: str) -> dict[str, str]:
        if table not in self._types:
            self._types[table] = {str(n): str(t) for n, t in tx.all(_TYPES, (table,))}
        return self._types[table]

    def _typed_rows(self, tx: Tx, table: str, columns: str, rows: Rows) -> list[dict[str, Any]]:
        types, names = self._types_of(tx, table), columns.split(", ")
        return [{c: _typed(types[c], v) for c, v in zip(names, r, strict=True)} for r in rows]

    def _steps(
        self, step: str, source_sql: str, target_last: str, write: Callable[[Rows, Tx], None]
    ) -> None:
        """``source_sql``'s rows after the highest key on the server, a transaction a batch."""
        found = self.target.read(lambda tx: tx.one(target_last))
        last = 0 if found is None else found[0]
        while rows := _select(self.source, source_sql, (last, self.batch)):
            self.target.write(functools.partial(write, rows))
            last = rows[-1][0]
            self._done(step, len(rows))

    def copy_rows(self) -> None:
        if not self.report.resumed:
            self.target.write(self._settings)
            self._done("settings", len(_carried_settings(self.source)))
        for table, columns in COLUMNS.items():
            if table in ("accounts", "vouchers") and not _has_table(self.source, table):
                continue
            key = columns.split(",")[0]
            self._steps(
                table,
                f"SELECT {columns} FROM {_FROM.get(table, table)} "
                f"WHERE {key} > ? ORDER BY {key} LIMIT ?",
                f"SELECT coalesce(max({key}), 0) FROM {table}",
                functools.partial(self._rows, table=table),
            )
        seq = int(self.head.seq)
        self._steps(
            "audit",
            f"SELECT {CHAIN_COLUMNS}, keyed "
            f"FROM audit WHERE seq > ? AND seq <= {seq} ORDER BY seq LIMIT ?",
            "SELECT coalesce(max(seq), 0) FROM audit",
            self._audit,
        )
        self._steps(  # refs are ASCII: SQLite's BINARY order is the "C" collation's
            "audit_refs",
            f"SELECT ref, seq FROM audit_refs WHERE ref > ? AND seq <= {seq} ORDER BY ref LIMIT ?",
            """SELECT coalesce(max(ref COLLATE "C"), '') FROM audit_refs""",
            self._audit_refs,
        )

    def _settings(self, tx: Tx) -> None:
        """The marker naming the source, and the settings carried (secrets sealed)."""
        for key, value in [(COPY_MARKER, self.marker), *_carried_settings(self.source)]:
            secret = key.startswith("secret:") or isinstance(value, bytes)
            tx.put_setting(key, bytes(value) if secret else str(value))

    def _rows(self, rows: Rows, tx: Tx, table: str) -> None:
        """A batch of ``table``'s rows, each personal value sealed as the rules seal it."""
        if table == "accounts":  # one record sealed to the user name (db/accounts.py)
            names = ("account_id", "username", "record", "key_version")
            values = [dict(zip(names, copied_account(tx, r), strict=True)) for r in rows]
        else:
            values = self._typed_rows(tx, table, COLUMNS[table], rows)
        for row in values:  # not lifted, not closed: no reason (NULL)
            if table == "bans" and row["lifted_at"] is None:
                row["lift_reason"] = None
            if table == "vouchers" and not (row["close_reason"] or row["status"] == "CANCELLED"):
                row["close_reason"] = None
        if table in SEALED:
            values = [sealed_row(tx, table, row) for row in values]
        self._insert(tx, table, values)
        if table == "visitors":
            tokens = [
                {"token": t, "file_number": int(r[0])}
                for r in rows
                for t in self.target.ring.name_tokens(str(r[2]), str(r[3]))
            ]
            self._insert(tx, "name_tokens", tokens)
        if table == "cards":
            self._card_events(tx, rows)

    def _card_events(self, tx: Tx, rows: Rows) -> None:
        """The cards' prints, reprints and voids, with their ids: the chain lists them in order."""
        columns = "event_id, card_number, at, kind, reason, actor"
        events = _select(
            self.source,
            f"SELECT {columns} FROM card_events "
            "WHERE card_number BETWEEN ? AND ? ORDER BY event_id",
            (int(rows[0][0]), int(rows[-1][0])),
        )
        self._insert(tx, "card_events", self._typed_rows(tx, "card_events", columns, events))
        self.report.copied["card_events"] = self.report.copied.get("card_events", 0) + len(events)

    def _audit(self, rows: Rows, tx: Tx) -> None:
        """The entries verbatim: their digests are the chain (db/audit_chain.py)."""
        if any(not r[9] for r in rows):
            raise StoreError(
                "the source holds entries of the unkeyed chain", code=CopyCode.SOURCE_UNVERIFIED
            )
        self._insert(tx, "audit", [dict(zip(_AUDIT_COLUMNS, r[:9], strict=True)) for r in rows])

    def _audit_refs(self, rows: Rows, tx: Tx) -> None:
        self._insert(tx, "audit_refs", [{"ref": str(ref), "seq": int(seq)} for ref, seq in rows])

    def finish(self, actor: str) -> None:
        """The counters continue the source's (art. 22.1: erased numbers included), and one
        ``FILE_MIGRATED`` entry after the source's head records the move."""
        source = self.source
        card_next = _counter(source, "card")
        voucher_next = _last_voucher(source) + 1
        snapshots = _count(source, "registry_snapshot")
        marks = {f"{t}_{c}_seq": _high_water(source, t, c) for t, c in SEQUENCED.items()}
        marks["staff_staff_id_seq"] = int(_value(source, "SELECT count(*) FROM staff"))
        counts = _source_counts(source, self.head.seq)

        def work(tx: Tx) -> int:
            top = tx.one("SELECT coalesce(max(seq), 0) FROM audit")
            if top is None or int(top[0]) != self.head.seq:
                raise StoreError(
                    "the server's audit trail is not the source's", code=CopyCode.MISMATCH
                )
            for name, value in (("card", card_next), ("audit", self.head.seq + 1)):
                tx.execute("UPDATE counters SET next = ? WHERE name = ?", (value, name))
            tx.execute(
                "INSERT INTO counters (name, next) VALUES ('voucher', ?) ON CONFLICT (name) "
                "DO UPDATE SET next = greatest(counters.next, excluded.next)",
                (voucher_next,),
            )
            for seq, mark in marks.items():
                tx.one("SELECT setval(?, ?, ?)", (seq, max(mark, 1), mark > 0))
            details = {
                "source_file": self.report.source_file_id,
                "source_head_seq": str(self.head.seq),
                "source_head_digest": self.head.digest,
                **{f"rows_{k}": str(n) for k, n in counts.items()},
            }
            if snapshots:  # the desk's RIAJ snapshots stay behind: the server has its own
                details[f"{NOT_CARRIED}registry"] = str(snapshots)
            return tx.audit(actor, COPY_ACTION, "visitor-file", self.target.clock.now(), details)

        self.report.migrated_seq = self.target.write(work)
        # Fresh statistics after the bulk load: without them the planner takes the copied
        # tables for empty, and the chain's verification joins them row by row.
        tables = ", ".join([*TABLES, "audit", "name_tokens", "settings", "counters"])
        try:
            self.target.bulk_write(lambda tx: tx.execute(f"ANALYZE {tables}"))
        except StoreError as exc:  # statistics only: autovacuum will do it
            log.warning("ANALYZE after the copy failed (%s)", exc.code)
        log.info("visitor file copied to the server: %d entries carried", self.head.seq)


def verify_copy(source: SqlCipherStore, target: PgStore, report: CopyReport) -> CopyReport:
    """Compare the copy with the source: counts, card numbers (art. 22.1) and counters,
    vouchers and settings, and the server's whole chain anchored at the source's head."""
    diffs: list[str] = []
    copied = AuditHead(report.source_head_seq, report.source_head_digest, None)
    try:
        report.source_entries_after = _entries_after(source, copied)
    except StoreError:
        diffs.append("source: rows recorded or erased after the head copied")
    report.source_counts = _source_counts(source, report.source_head_seq)
    sql = "SELECT key, value FROM settings WHERE key <> ?"
    settings = {str(k): v for k, v in target.read(lambda tx: tx.all(sql, (COPY_MARKER,)))}
    counted = [t for t in report.source_counts if t != "settings"]
    report.target_counts = {t: _server_count(target, t) for t in counted}
    report.target_counts["settings"] = len(settings)
    report.migrated_seq = _migrated_seq(target, report.source_head_seq)
    if not report.migrated_seq:
        diffs.append("audit: no FILE_MIGRATED entry after the source's head")
    for table, count in report.source_counts.items():
        found = report.target_counts.get(table, 0)
        if table == "audit":
            found -= 1 if report.migrated_seq else 0
        if found != count:
            diffs.append(f"{table}: {count} in the source, {found} on the server")
    last, count, top, first = _counter(source, "card") - 1, 0, 0, None
    for a, b in itertools.zip_longest(_numbers(source), _numbers(target)):
        if a != b:
            first = b if a is None else (a if b is None else min(a, b))
            diffs.append(f"cards: the number sets differ from {first}")
            break
        count, top = count + 1, a
    report.card_numbers_equal, report.card_gaps = first is None, max(last, top) - count
    report.last_card_number = target.last_card_number()
    report.last_voucher_number = StoreVoucherBook(target).last_voucher_number()
    for name, mine, theirs in (
        ("card", last, report.last_card_number),
        ("voucher", _last_voucher(source), report.last_voucher_number),
    ):
        if mine != theirs:
            diffs.append(f"{name} counter: last {mine} in the source, {theirs} on the server")
    if _has_table(source, "vouchers"):
        book, server_book = StoreVoucherBook(source), StoreVoucherBook(target)
        for (number,) in _select(source, "SELECT number FROM vouchers ORDER BY 1"):
            if book.voucher(int(number)) != server_book.voucher(int(number)):
                diffs.append(f"vouchers: number {int(number)} differs")
                break
    for key, value in _carried_settings(source):
        if key.startswith("secret:"):  # opened as PgStore.secret opens it
            held = settings.get(key)
            same = held is not None and target.ring.open(
                bytes(held), table="settings", column="value", row=key
            ) == bytes(value)
        else:
            same = target.get_setting(key) == (
                value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            )
        if not same:
            diffs.append(f"settings: {key} differs")
    anchors = [AuditAnchor(report.source_head_seq, report.source_head_digest)]
    report.audit = target.verify(anchors if report.source_head_seq else [])
    if not report.audit.ok:
        diffs.append(
            f"audit chain on the server: {report.audit.problem} "
            f"(seq {report.audit.first_bad_seq}, {report.audit.row or '-'})"
        )
    report.differences = diffs
    report.ok = not diffs
    report.code = "" if report.ok else str(CopyCode.MISMATCH)
    return report


def _numbers(store: SqlCipherStore | PgStore) -> Iterator[int]:
    """The store's card numbers in order, read in batches."""
    last = 0

    def after(tx: Tx) -> Rows:
        sql = "SELECT number FROM cards WHERE number > ? ORDER BY number LIMIT ?"
        return tx.all(sql, (last, NUMBERS_BATCH))

    while rows := store.read(after):
        yield from (int(r[0]) for r in rows)
        last = int(rows[-1][0])

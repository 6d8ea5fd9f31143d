"""The rows of a desk's file written onto the server (db/pg/copy_file.py): each table in
batches from the highest key already there, every personal value sealed by the server's
transaction as its rules seal it (:meth:`db.tx.Tx.seal`, bound to table, column and row;
the blind indexes and key version of :meth:`db.tx.Tx.index_columns`; the accounts'
record by :func:`db.accounts.copied_account`), the audit trail verbatim, then the
counters and the ``FILE_MIGRATED`` entry chained after the source's head."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from admission.errors import StoreError
from admission.identity import IdentityKey
from admission.records import AuditHead
from db import codec
from db.accounts import copied_account
from db.audit_chain import NOT_CARRIED
from db.chain import CHAIN_COLUMNS
from db.pg import copy_source as src
from db.pg.copy_report import COPY_ACTION, COPY_MARKER, TABLES, CopyCode, CopyProgress, CopyReport
from db.pg.rotation import SEALED_TABLES, SealedTable
from db.pg.store import PgStore
from db.store import SqlCipherStore
from db.tx import Tx

log = logging.getLogger("admission.db.pg.copy")

Row = dict[str, Any]
Rows = list[tuple[Any, ...]]
SEQUENCES = {  # server sequence -> source table and id column
    "visitors_file_number_seq": ("visitors", "file_number"),
    "visits_visit_id_seq": ("visits", "visit_id"),
    "observations_observation_id_seq": ("observations", "observation_id"),
    "bans_ban_id_seq": ("bans", "ban_id"),
    "card_events_event_id_seq": ("card_events", "event_id"),
    "accounts_account_id_seq": ("accounts", "account_id"),
}
_AUDIT_COLUMNS = CHAIN_COLUMNS.split(", ")
_TYPES = (  # a server table's columns and their types, in the statement's casts
    "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
    "WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped"
)
# The source's columns of each table copied row for row, its key first (the source is
# opened migrated: the accounts' pin_hash is there, 0041). The server seals the columns
# its key rotation reseals (db/pg/rotation.py SEALED_TABLES), vouchers as
# db/voucher_book.py seals them.
COLUMNS = {
    "visitors": "file_number, identity, surname, given_names, birth_date, nationality",
    "visits": "visit_id, file_number, at, desk_id, operator, verdict, reasons, document_type, "
    "document_number, registry_status, registry_source, registry_version, registry_age_s, "
    "official_capacity",
    "observations": "observation_id, file_number, at, author, text",
    "cards": "number, file_number, visit_id, card_type, price_cents, issued_at, valid_from, "
    "valid_until, status, exceptional, private_rooms, authorised_by, print_count, void_reason",
    "bans": "ban_id, identity, reason, decided_by, created_at, expires_at, lifted_at, lift_reason",
    "accounts": "account_id, username, display_name, roles, active, password_hash, "
    "failed_attempts, locked_until, created_at, pin_hash",
    "vouchers": "number, issued_at, desk_id, operator, holder_name, document_type, "
    "document_number, card_type, price_cents, status, card_number, closed_at, close_reason",
}
SEALED = {t.name: t for t in SEALED_TABLES} | {
    "vouchers": SealedTable(
        "vouchers", "number", "bigint", ("holder_name", "document_number", "close_reason")
    )
}


def _typed(kind: str, value: Any) -> Any:
    """A value of the source as the server's column of type ``kind`` holds it."""
    if value is None:
        return None
    if kind == "timestamp with time zone":
        return codec.parse_ts(str(value))
    if kind == "date":
        return date.fromisoformat(str(value))
    return bool(value) if kind == "boolean" else value


def sealed_row(tx: Tx, table: str, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (plain values by column) as the server keeps it: the table's sealed
    columns sealed to the row's key (None stays NULL), its blind indexes and key version
    (:meth:`db.tx.Tx.index_columns`)."""
    spec = SEALED[table]
    key = row[spec.key]
    identity = None if spec.identity is None else IdentityKey.parse(str(row[spec.identity]))
    number = None if spec.number is None else str(row[spec.number])
    for column in spec.sealed:
        if row[column] is not None:
            row[column] = tx.seal(str(row[column]), table, column, key)
    return {**row, **tx.index_columns(identity=identity, number=number)}


def server_count(target: PgStore, table: str) -> int:
    found = target.read(lambda tx: tx.one(f"SELECT count(*) FROM {table}"))
    return 0 if found is None else int(found[0])


def migrated_seq(target: PgStore, head_seq: int) -> int:
    """The server's ``FILE_MIGRATED`` entry after the source's head ``head_seq``, or 0."""
    row = target.read(
        lambda tx: tx.one(
            "SELECT seq FROM audit WHERE seq = ? AND action = ?", (head_seq + 1, COPY_ACTION)
        )
    )
    return 0 if row is None else int(row[0])


def marker(identity: str, head: AuditHead) -> str:
    return json.dumps(
        {"source": identity, "head_seq": head.seq, "head_digest": head.digest},
        sort_keys=True,
        separators=(",", ":"),
    )


class Copier:
    """One run of the copy of ``source`` into ``target`` from ``head`` (its chain's head
    when the copy began): :meth:`begin`, :meth:`copy_rows`, :meth:`finish`."""

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
        self.batch = batch
        self.progress = progress
        self.head = head
        self.head_now = head
        self.report = CopyReport(
            source_file_id=identity, source_head_seq=head.seq, source_head_digest=head.digest
        )
        self.marker = marker(identity, head)
        self._types: dict[str, dict[str, str]] = {}

    # -- where the target stands ---------------------------------------------------------

    def begin(self) -> None:
        """Fresh target: nothing to do yet. Our own unfinished copy: resume. Anything
        else: refused before any write."""
        found = self.target.get_setting(COPY_MARKER)
        if found is None:
            held = [t for t in (*TABLES, "audit", "settings") if server_count(self.target, t)]
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
        if migrated_seq(self.target, self.head.seq) > 0:  # done: verified again
            self.report.already_copied = True
            return
        self.report.source_entries_after = src.entries_after(self.source, began)
        if began.seq != self.head_now.seq:  # only entries that record no row: go on
            self.set_head(self.head_now)
            self.target.write(lambda tx: tx.put_setting(COPY_MARKER, self.marker))

    def set_head(self, head: AuditHead) -> None:
        """Copy the chain up to ``head`` (the marker names it)."""
        self.head = head
        self.report.source_head_seq, self.report.source_head_digest = head.seq, head.digest
        self.marker = marker(self.report.source_file_id, head)

    # -- the rows ------------------------------------------------------------------------

    def _done(self, step: str, rows: int) -> None:
        self.report.batches += 1
        self.report.copied[step] = self.report.copied.get(step, 0) + rows
        if self.progress is not None:
            self.progress(CopyProgress(step, self.report.copied[step], self.report.batches))

    def _types_of(self, tx: Tx, table: str) -> dict[str, str]:
        """The server's columns of ``table`` and their types (format_type's names)."""
        types = self._types.get(table)
        if types is None:
            types = self._types[table] = {str(n): str(t) for n, t in tx.all(_TYPES, (table,))}
        return types

    def _insert(self, tx: Tx, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """The batch's rows in ONE statement (one array per column): no psycopg pipeline
        is left open inside the transaction that holds the chain's head, so a network
        that dies mid-batch leaves a session the server's idle-in-transaction timeout
        ends. The arrays' types are the server's columns' own."""
        if not rows:
            return
        types = self._types_of(tx, table)
        columns = list(rows[0])
        arrays = ", ".join(f"?::{types[c]}[]" for c in columns)
        values = [[row[c] for row in rows] for c in columns]
        tx.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT * FROM unnest({arrays})", values
        )

    def _steps(
        self,
        step: str,
        source_sql: str,
        target_last: str,
        write: Callable[[Tx, Rows], None],
        *,
        empty: Any = 0,
    ) -> None:
        """Copy the rows ``source_sql`` selects after a key (``?``, then ``LIMIT ?``),
        in batches of one transaction each, from the highest key already on the server."""
        found = self.target.read(lambda tx: tx.one(target_last))
        last = empty if found is None or found[0] is None else found[0]
        while True:
            rows = src.select(self.source, source_sql, (last, self.batch))
            if not rows:
                return

            def batch(tx: Tx, rows: Rows = rows) -> None:
                write(tx, rows)

            self.target.write(batch)
            last = rows[-1][0]
            self._done(step, len(rows))

    def copy_rows(self) -> None:
        if not self.report.resumed:
            self.target.write(self._settings)
            self._done("settings", len(src.carried_settings(self.source)))
        for table in ("visitors", "visits", "observations", "cards", "bans"):
            self._table(table)
        self._staff()
        for table in ("accounts", "vouchers"):
            if src.has_table(self.source, table):
                self._table(table)
        self._steps(
            "audit",
            f"SELECT {CHAIN_COLUMNS}, keyed "
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

    def _settings(self, tx: Tx) -> None:
        """The marker naming the source, and the settings carried, sealed as the
        server's settings are (bound to the setting's key)."""
        for key, value in [(COPY_MARKER, self.marker), *src.carried_settings(self.source)]:
            secret = key.startswith("secret:") or isinstance(value, bytes)
            tx.put_setting(key, bytes(value) if secret else str(value))

    def _table(self, table: str) -> None:
        key = COLUMNS[table].split(",")[0]
        self._steps(
            table,
            f"SELECT {COLUMNS[table]} FROM {table} WHERE {key} > ? ORDER BY {key} LIMIT ?",
            f"SELECT max({key}) FROM {table}",
            functools.partial(self._rows, table=table),
        )

    def _rows(self, tx: Tx, rows: Rows, table: str) -> None:
        """A batch of ``table``'s rows, typed as the server's columns, each personal value
        sealed as the rules seal it."""
        if table == "accounts":  # one record sealed to the user name (db/accounts.py)
            names = ("account_id", "username", "record", "key_version")
            values = [dict(zip(names, copied_account(tx, r), strict=True)) for r in rows]
        else:
            types, columns = self._types_of(tx, table), COLUMNS[table].split(", ")
            values = [
                {c: _typed(types[c], v) for c, v in zip(columns, r, strict=True)} for r in rows
            ]
        for row in values:  # not lifted, not closed: no reason (NULL)
            if table == "bans" and row["lifted_at"] is None:
                row["lift_reason"] = None
            if table == "vouchers" and not (row["close_reason"] or row["status"] == "CANCELLED"):
                row["close_reason"] = None
        if table in SEALED:
            values = [sealed_row(tx, table, row) for row in values]
        self._insert(tx, table, values)
        if table == "visitors":
            ring = self.target.ring
            tokens = [
                {"token": t, "file_number": int(r[0])}
                for r in rows
                for t in ring.name_tokens(str(r[2]), str(r[3]))
            ]
            self._insert(tx, "name_tokens", tokens)
        if table == "cards":
            self._card_events(tx, rows)

    def _card_events(self, tx: Tx, rows: Rows) -> None:
        """The cards' prints, reprints and voids in their order, in the cards' transaction
        (their event ids: the chain's card content lists them in order)."""
        events = src.select(
            self.source,
            "SELECT event_id, card_number, at, kind, reason, actor FROM card_events "
            "WHERE card_number BETWEEN ? AND ? ORDER BY event_id",
            (int(rows[0][0]), int(rows[-1][0])),
        )
        columns = ("event_id", "card_number", "at", "kind", "reason", "actor")
        events = [(int(e), int(c), codec.parse_ts(str(a)), *rest) for e, c, a, *rest in events]
        self._insert(tx, "card_events", [dict(zip(columns, e, strict=True)) for e in events])
        self.report.copied["card_events"] = self.report.copied.get("card_events", 0) + len(events)

    def _staff(self) -> None:
        """Staff rows have no number in the source (keyed by identity): the server's
        ``staff_id`` is their place in identity order, so a resumed run continues."""
        found = self.target.read(lambda tx: tx.one("SELECT coalesce(max(staff_id), 0) FROM staff"))
        done = 0 if found is None else int(found[0])
        while True:
            rows = src.select(
                self.source,
                "SELECT identity, name, role, active FROM staff ORDER BY identity LIMIT ? OFFSET ?",
                (self.batch, done),
            )
            if not rows:
                return

            def work(tx: Tx, rows: Rows = rows, first: int = done + 1) -> None:
                columns = ("staff_id", "identity", "name", "role", "active")
                values = [
                    sealed_row(
                        tx, "staff", dict(zip(columns, (i, *r[:3], bool(r[3])), strict=True))
                    )
                    for i, r in enumerate(rows, start=first)
                ]
                self._insert(tx, "staff", values)

            self.target.write(work)
            done += len(rows)
            self._done("staff", len(rows))

    def _audit(self, tx: Tx, rows: Rows) -> None:
        """The entries verbatim: their digests are the chain (db/audit_chain.py)."""
        if any(not r[9] for r in rows):
            raise StoreError(
                "the source holds entries of the unkeyed chain", code=CopyCode.SOURCE_UNVERIFIED
            )
        self._insert(tx, "audit", [dict(zip(_AUDIT_COLUMNS, r[:9], strict=True)) for r in rows])

    def _audit_refs(self, tx: Tx, rows: Rows) -> None:
        self._insert(tx, "audit_refs", [{"ref": str(ref), "seq": int(seq)} for ref, seq in rows])

    # -- the counters and the audited act ------------------------------------------------

    def finish(self, actor: str) -> None:
        """The counters continue the source's (art. 22.1: the card after the last ever
        issued, erased ones included), the id sequences after the highest id, and one
        ``FILE_MIGRATED`` entry records the move, chained after the source's head."""
        source = self.source
        card_next = src.counter(source, "card")
        voucher_next = src.last_voucher(source) + 1
        snapshots = (
            int(src.value(source, "SELECT count(*) FROM registry_snapshot"))
            if src.has_table(source, "registry_snapshot")
            else 0
        )
        marks = {seq: src.high_water(source, t, c) for seq, (t, c) in SEQUENCES.items()}
        marks["staff_staff_id_seq"] = int(src.value(source, "SELECT count(*) FROM staff"))
        counts = src.source_counts(source, self.head.seq)

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
            now = self.target.clock.now()
            return tx.audit(actor, COPY_ACTION, "visitor-file", now, details)

        self.report.migrated_seq = self.target.write(work)
        _analyse(self.target)
        log.info("visitor file copied to the server: %d entries carried", self.head.seq)


def _analyse(target: PgStore) -> None:
    """Fresh statistics after the bulk load: without them the planner takes the copied
    tables for empty, and the chain's verification joins them row by row."""
    tables = ", ".join([*TABLES, "audit", "name_tokens", "settings", "counters"])
    try:
        target.bulk_write(lambda tx: tx.execute(f"ANALYZE {tables}"))
    except StoreError as exc:  # statistics only: autovacuum will do it
        log.warning("ANALYZE after the copy failed (%s)", exc.code)

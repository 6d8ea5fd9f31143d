"""The desk's SQLCipher file as its copy onto the server reads it (db/pg/copy_file.py):
its rows, counters and high-water marks, the settings carried, and the check that its
chain did not record or erase a row after the head being copied."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from admission.errors import StoreError
from admission.records import AuditHead
from db.audit_chain import ERASED
from db.audit_key import AuditKey
from db.file_guard import FILE_ID_SETTING
from db.pg.copy_report import TABLES, CopyCode
from db.store import SqlCipherStore

SKIPPED_SETTINGS = frozenset({FILE_ID_SETTING})  # the server has its own database id


def source_audit_key(source: SqlCipherStore) -> AuditKey:
    """The source file's audit key (as its store resolved it: given, environment, OS
    keyring or key file): the server store must be opened with the same one."""
    return source.chain_key()


def select(source: SqlCipherStore, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with source.reading() as conn:
        return [tuple(r) for r in conn.execute(sql, tuple(params)).fetchall()]


def value(source: SqlCipherStore, sql: str, params: Sequence[Any] = ()) -> Any:
    rows = select(source, sql, params)
    return rows[0][0] if rows else None


def has_table(source: SqlCipherStore, table: str) -> bool:
    found = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return bool(select(source, found, (table,)))


def file_identity(source: SqlCipherStore, head: AuditHead) -> str:
    """The source's id (the marker's file id; a file without one: its first entry)."""
    if source.file_id:
        return source.file_id
    first = select(source, "SELECT digest FROM audit ORDER BY seq LIMIT 1")
    return "chain:" + (str(first[0][0]) if first else head.digest)


def source_counts(source: SqlCipherStore, head_seq: int) -> dict[str, int]:
    """Rows per table; the audit trail's entries up to ``head_seq`` (those copied)."""
    counts = {}
    for table in TABLES:
        exists = has_table(source, table)
        counts[table] = int(value(source, f"SELECT count(*) FROM {table}")) if exists else 0
    counts["audit"] = int(value(source, "SELECT count(*) FROM audit WHERE seq <= ?", (head_seq,)))
    counts["settings"] = len(carried_settings(source))
    return counts


def carried_settings(source: SqlCipherStore) -> list[tuple[str, Any]]:
    rows = select(source, "SELECT key, value FROM settings ORDER BY key")
    return [(str(k), v) for k, v in rows if str(k) not in SKIPPED_SETTINGS]


def counter(source: SqlCipherStore, name: str) -> int:
    found = value(source, "SELECT next FROM counters WHERE name = ?", (name,))
    return 1 if found is None else int(found)


def high_water(source: SqlCipherStore, table: str, column: str) -> int:
    """The highest id the source ever gave: the rows present, and for an AUTOINCREMENT
    table (visitors: file numbers never reused, art. 22.3) SQLite's own high-water mark."""
    if not has_table(source, table):
        return 0
    top = int(value(source, f"SELECT coalesce(max({column}), 0) FROM {table}"))
    if has_table(source, "sqlite_sequence"):
        mark = value(source, "SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
        top = max(top, int(mark or 0))
    return top


def last_voucher(source: SqlCipherStore) -> int:
    """The last voucher number the source's chain numbered, purged newest ones included."""
    return max(high_water(source, "vouchers", "number"), counter(source, "voucher") - 1)


def entries_after(source: SqlCipherStore, head: AuditHead) -> int:
    """How many entries the source holds after ``head``, which must still be in it with
    its digest; each of them must record no row and erase none (a sign-in, a reading:
    what the copy's own command line writes). Else ``PG_COPY_SOURCE_CHANGED``."""
    found = select(source, "SELECT digest FROM audit WHERE seq = ?", (head.seq,))
    same = (found and str(found[0][0]) == head.digest) or (head.seq == 0 and not found)
    changed = value(
        source,
        "SELECT count(*) FROM audit WHERE seq > ? AND (refs <> '{}' OR action = ?)",
        (head.seq, ERASED),
    )
    if not same or int(changed):
        raise StoreError(
            "the source's records changed since its copy began: copy it into a fresh database",
            code=CopyCode.SOURCE_CHANGED,
        )
    return int(value(source, "SELECT count(*) FROM audit WHERE seq > ?", (head.seq,)))

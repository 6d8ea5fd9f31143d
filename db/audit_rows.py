"""The rows the audit chain commits to, as the SQLCipher store reads them (art. 20.4).

Each mixin declares the tables it writes as :class:`CoveredTable` (db/visitors.py,
db/cards.py, db/people.py); the chain reads them here, one row when an entry commits to
it, every row when it is verified or first keyed. Temporary triggers on the store's own
connection note the rows its transactions erase (db/audit.py counts them in an
``ERASED`` entry before the commit), whoever's code erased them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, TypeVar

from db.audit_chain import CoveredRow

RowContent = Callable[[sqlite3.Connection, tuple[object, ...]], list[object]]

Conn_contra = TypeVar("Conn_contra", contravariant=True)


def aliased(columns: str) -> str:
    """An adapter's column list (``"a, b"``) as :class:`CoveredTable` reads it
    (``"t.a, t.b"``), in the order the adapter's row reader takes them."""
    return ", ".join(f"t.{c.strip()}" for c in columns.split(","))


class AppendsIn(Protocol[Conn_contra]):
    """The store's audit entry appended inside a transaction an adapter beside it holds
    (``SqlCipherStore.append_in`` on its connection, ``PgStore.append_in`` in its write),
    committing to ``rows`` (``("account:3", created)``) as they are now: the row and its
    entry commit together (art. 20.4)."""

    def append_in(
        self,
        conn: Conn_contra,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
        rows: Sequence[tuple[str, bool]] = (),
    ) -> int: ...


# Rows erased (1) or changed without an entry of their own (0: a card losing its erased
# visit) by this connection, noted until the commit. Staff rows are named by identity
# here and by its keyed hash in the chain (db/audit.py converts).
ERASURE_TRIGGERS = (
    "CREATE TEMP TABLE IF NOT EXISTS audit_erased (ref TEXT PRIMARY KEY, erased INTEGER)",
    *(
        f"CREATE TEMP TRIGGER IF NOT EXISTS audit_erase_{table} AFTER DELETE ON main.{table} "
        f"BEGIN INSERT INTO audit_erased VALUES ('{kind}:' || OLD.{column}, 1) "
        "ON CONFLICT (ref) DO UPDATE SET erased = 1; END"
        for kind, table, column in (
            ("visitor", "visitors", "file_number"),
            ("visit", "visits", "visit_id"),
            ("card", "cards", "number"),
            ("ban", "bans", "ban_id"),
            ("staffid", "staff", "identity"),
            ("observation", "observations", "observation_id"),
            ("voucher", "vouchers", "number"),
            ("registry", "registry_snapshot", "snapshot_id"),
        )
    ),
    "CREATE TEMP TRIGGER IF NOT EXISTS audit_unlink_card AFTER UPDATE OF visit_id ON main.cards "
    "WHEN NEW.visit_id IS NOT OLD.visit_id BEGIN INSERT OR IGNORE INTO audit_erased "
    "VALUES ('card:' || NEW.number, 0); END",
)


@dataclass(frozen=True)
class CoveredTable:
    """How one kind of row is read for the chain: ``columns`` (aliased ``t``) of ``table``
    keyed by ``id_column``, turned into the values its digest covers by ``content``."""

    kind: str
    table: str
    id_column: str
    columns: str
    content: RowContent

    def one(self, conn: sqlite3.Connection, ident: int) -> list[object] | None:
        row = conn.execute(
            f"SELECT {self.columns} FROM {self.table} AS t WHERE t.{self.id_column} = ?",
            (ident,),
        ).fetchone()
        return None if row is None else self.content(conn, tuple(row))

    def every(self, conn: sqlite3.Connection) -> Iterator[tuple[str, list[object]]]:
        """Every row, without joining audit_refs (which the upgrade writes to)."""
        cursor = conn.execute(
            f"SELECT t.{self.id_column}, {self.columns} FROM {self.table} AS t "
            f"ORDER BY t.{self.id_column}"
        )
        for row in cursor:
            yield f"{self.kind}:{row[0]}", self.content(conn, tuple(row[1:]))

    def pointed(self, conn: sqlite3.Connection) -> Iterator[CoveredRow]:
        """Every row with the newest entry committing to it (verification). The entry's
        refs are read once per run of rows pointing to it, not once per row: a baseline
        entry commits to hundreds of rows and its refs are tens of kilobytes."""
        cursor = conn.execute(
            f"SELECT t.{self.id_column}, r.seq, {self.columns} FROM {self.table} AS t "
            f"LEFT JOIN audit_refs AS r ON r.ref = '{self.kind}:' || t.{self.id_column} "
            f"ORDER BY t.{self.id_column}"
        )
        refs = _EntryRefs(conn)
        for row in cursor:
            content = self.content(conn, tuple(row[2:]))
            yield CoveredRow(f"{self.kind}:{row[0]}", content, row[1], refs.of(row[1]))


class _EntryRefs:
    """An entry's refs by its seq, the last few kept (rows come in runs per entry)."""

    KEPT = 8

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._kept: dict[int, str | None] = {}

    def of(self, seq: int | None) -> str | None:
        if seq is None:
            return None
        if seq not in self._kept:
            if len(self._kept) >= self.KEPT:
                del self._kept[next(iter(self._kept))]
            row = self._conn.execute("SELECT refs FROM audit WHERE seq = ?", (seq,)).fetchone()
            self._kept[seq] = None if row is None else str(row[0])
        return self._kept[seq]


def pointed(
    conn: sqlite3.Connection, rows: Iterable[tuple[str, list[object]]]
) -> Iterator[CoveredRow]:
    """``rows`` (ref, content) with the newest entry committing to each."""
    for ref, content in rows:
        found = conn.execute(
            "SELECT r.seq, a.refs FROM audit_refs AS r LEFT JOIN audit AS a "
            "ON a.seq = r.seq WHERE r.ref = ?",
            (ref,),
        ).fetchone()
        yield CoveredRow(ref, content, *(found or (None, None)))


class OptionalTable(CoveredTable):
    """A table read as nothing where it does not exist: a file older than the migration
    that made it, or a damaged file (opened read-only, without its migrations)."""

    def _present(self, conn: sqlite3.Connection) -> bool:
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (self.table,)
        ).fetchone()
        return found is not None

    def every(self, conn: sqlite3.Connection) -> Iterator[tuple[str, list[object]]]:
        return super().every(conn) if self._present(conn) else iter(())

    def pointed(self, conn: sqlite3.Connection) -> Iterator[CoveredRow]:
        return super().pointed(conn) if self._present(conn) else iter(())

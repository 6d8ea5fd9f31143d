"""How a kind of row registers its coverage by the audit chain (art. 20.4), for both
dialects: its table, key and columns, and a reader turning rows into the content the row
mac covers (db/audit_chain.py); db/chain.py lists the kinds."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from db.audit_chain import CoveredRow
from db.pg.crypto import PgCryptoCode, PgCryptoError
from db.tx import Tx

Content = tuple[str, list[object]]  # (ref, the values its row mac covers)
UNREADABLE = "\x00unreadable"  # content of a row whose sealed value cannot be opened
# a value changed behind the store's back; a retired key (DATA_KEY_UNKNOWN) is not one
_UNOPENED = {
    PgCryptoCode.VALUE_TRUNCATED,
    PgCryptoCode.VALUE_FORMAT_UNKNOWN,
    PgCryptoCode.VALUE_WRONG_KEY,
    PgCryptoCode.VALUE_TAMPERED,
}
# A batch of rows read with a kind's columns -> their refs and contents.
Reader = Callable[[Tx, Sequence[tuple[Any, ...]]], list[Content]]


@dataclass(frozen=True)
class Covered:
    """``columns`` (aliased ``t``, the id ``key`` first) of ``table``, turned into refs
    and contents by ``read``; ``server_columns`` where the server's differ. ``optional``:
    a table an older (or damaged) SQLCipher file lacks, read as empty. ``named``: the ref
    is not ``kind:key`` (staff rows, named by a keyed hash)."""

    kind: str
    table: str
    key: str
    columns: str | Callable[[Tx], str]
    read: Reader
    server_columns: str | None = None
    optional: bool = False
    named: bool = False

    def _select(self, tx: Tx) -> str:
        chosen = (self.server_columns if tx.dialect == "pg" else None) or self.columns
        return f"SELECT {chosen if isinstance(chosen, str) else chosen(tx)}"

    def _present(self, tx: Tx) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return not self.optional or tx.dialect == "pg" or tx.one(sql, (self.table,)) is not None

    def one(self, tx: Tx, ref: str) -> list[object] | None:
        """The content of the row ``ref`` names, None when there is none."""
        if self.named:
            return next((content for found, content in self.every(tx) if found == ref), None)
        rows = tx.all(
            f"{self._select(tx)} FROM {self.table} AS t WHERE t.{self.key} = ?",
            (int(ref.split(":", 1)[1]),),
        )
        return next((content for _ref, content in self.read(tx, rows)), None)

    def every(self, tx: Tx) -> Iterator[Content]:
        """Every row, without joining audit_refs (which the upgrade writes to)."""
        if not self._present(tx):
            return
        sql = f"{self._select(tx)} FROM {self.table} AS t ORDER BY t.{self.key}"
        for rows in tx.batches(sql):
            yield from self.read(tx, rows)

    def pointed(self, tx: Tx) -> Iterator[CoveredRow]:
        """Every row with the newest entry committing to it (verification). Each batch
        reads the refs of the entries it points to once: a baseline or a purge entry
        commits to hundreds of rows and its refs are kilobytes."""
        if not self._present(tx):
            return
        if self.named:
            yield from _pointed(tx, list(self.every(tx)), {})
            return
        sql = (
            f"{self._select(tx)}, r.seq FROM {self.table} AS t LEFT JOIN audit_refs AS r "
            f"ON r.ref = '{self.kind}:' || t.{self.key} ORDER BY t.{self.key}"
        )
        for rows in tx.batches(sql):
            read = self._read_each(tx, [row[:-1] for row in rows])
            seqs = {f"{self.kind}:{row[0]}": row[-1] for row in rows}
            yield from _pointed(tx, read, seqs)

    def _read_each(self, tx: Tx, rows: Sequence[tuple[Any, ...]]) -> list[Content]:
        """The batch's contents. On the server a sealed value written behind the desk's
        back (in clear, cut, moved to another row) cannot be opened: that row is read as
        :data:`UNREADABLE`, so the walk names it changed (art. 20.4) instead of stopping
        at the first one."""
        try:
            return self.read(tx, rows)
        except PgCryptoError as exc:
            if exc.code not in _UNOPENED:
                raise
        if len(rows) == 1:
            return [(f"{self.kind}:{rows[0][0]}", [UNREADABLE])]
        return [content for row in rows for content in self._read_each(tx, [row])]


def _pointed(tx: Tx, rows: Sequence[Content], seqs: dict[str, int | None]) -> Iterator[CoveredRow]:
    """``rows`` with the newest entry committing to each: its seq (``seqs``, else read
    from audit_refs) and its refs, read once per batch."""
    if not seqs and rows:
        sub, params = tx.listed([ref for ref, _ in rows])
        seqs = dict(tx.all(f"SELECT ref, seq FROM audit_refs WHERE ref IN ({sub})", params))
    wanted = sorted({int(seq) for seq in seqs.values() if seq is not None})
    refs: dict[int, str] = {}
    if wanted:
        sub, params = tx.listed(wanted)
        found = tx.all(f"SELECT seq, refs FROM audit WHERE seq IN ({sub})", params)
        refs = {int(seq): str(text) for seq, text in found}
    for ref, content in rows:
        seq = seqs.get(ref)
        pointer = None if seq is None else int(seq)
        yield CoveredRow(ref, content, pointer, None if pointer is None else refs.get(pointer))

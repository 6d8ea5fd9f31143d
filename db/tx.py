"""The visitor file's transaction: what the file's rules need of a database, written once
over two dialects (the SQLCipher file of one desk, db/connection.py; the PostgreSQL server
of several desks, db/pg/store.py).

The rules (db/cards.py, db/visitors.py...) are functions of a :class:`Tx`. They write
their SQL once, with ``?`` placeholders and the schema both dialects share, and leave to
the dialect what differs between a file and a server:

* placeholders (``?`` on SQLite, ``%s`` on the server: the server's transaction rewrites);
* values: instants and days (ISO text on SQLite, ``timestamptz``/``date`` on the server),
  flags (0/1, booleans);
* sealing (art. 20.4, R3): on SQLite the whole file is encrypted and a sealed value is its
  text (identity); the server seals each personal value with its key ring, bound to
  table, column and row, and finds identities by blind index;
* row locks (``FOR UPDATE`` on the server; SQLite's write transaction holds the file);
* the audit chain's append in the same transaction (art. 20.4).

A store runs a rule with ``store.read(work)`` or ``store.write(work)``: one transaction,
retried by the dialect where it retries, errors mapped to the store's codes.

    number = store.write(lambda tx: cards.void(tx, 17, "lost", "director-1", at))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any, Protocol

from admission.identity import IdentityKey

AuditRows = Sequence[tuple[str, bool]]  # (ref, created), e.g. ("card:17", False)
# the text of a value read from table.column of a row: Tx.open (a row reader serves both)
Opens = Callable[[Any, str, str, int | str], str]


class Tx(Protocol):
    """One transaction of one store (see the module's text)."""

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"pg"``: for the few statements written twice."""
        ...

    @property
    def lock_rows(self) -> str:
        """Suffix of a SELECT that is about to change the rows it reads (`` FOR UPDATE``
        on the server; empty on SQLite, whose write transaction holds the file)."""
        ...

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None: ...

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        ...

    def many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    def load(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Insert a great many rows at once, streamed (the register's snapshot, art.
        20.2): ``executemany`` on SQLite, ``COPY`` on the server."""
        ...

    def next_number(self, counter: str) -> int:
        """Take the next number of a gapless counter (``counters`` row): the card's
        (art. 22.1), the chain's, the vouchers'. A rollback gives it back."""
        ...

    def ts(self, at: datetime) -> Any:
        """An instant as stored."""
        ...

    def day(self, value: date) -> Any:
        """A Madrid date as stored."""
        ...

    def flag(self, value: bool) -> Any: ...

    def seal(self, text: str, table: str, column: str, row: int | str) -> Any:
        """A personal value as stored in ``table.column`` of ``row``."""
        ...

    def open(self, value: Any, table: str, column: str, row: int | str) -> str:
        """The text of a value read from ``table.column`` of ``row``."""
        ...

    def identity_match(self, column: str, identity: IdentityKey) -> tuple[str, list[Any]]:
        """A condition selecting the rows whose ``column`` holds ``identity`` (``alias.``
        prefix included), and its parameters: the text on SQLite, the blind indexes of
        every held key version on the server. The caller checks the row it opens."""
        ...

    def new_id(self, table: str, column: str) -> int:
        """The id the next row of ``table`` will take, known before its values are sealed
        to it: the server's sequence ``{table}_{column}_seq``; on SQLite the id the row
        would be given (one above the highest)."""
        ...

    def index_columns(
        self, *, identity: IdentityKey | None = None, number: str | None = None
    ) -> dict[str, Any]:
        """The columns the server keeps beside a sealed row, to add to its INSERT or
        UPDATE: the blind index of its ``identity`` (``id_index``) or document ``number``
        (``number_index``), and the ``key_version`` sealing it; none on SQLite."""
        ...

    def keyed_hash(self, text: str) -> str:
        """``hmac:`` + 16 hex under the file's subject secret: the audit names an identity
        without showing it (write transactions)."""
        ...

    # -- what the audit chain needs of a dialect (db/chain.py) ------------------------------

    def listed(self, values: Sequence[int] | Sequence[str]) -> tuple[str, list[Any]]:
        """A subquery of ``values`` as its one column ``value`` (``x IN (subquery)``), and
        its parameter: one statement for a list of ids or refs in both dialects."""
        ...

    def batches(self, sql: str, params: Sequence[Any] = ()) -> Iterator[list[tuple[Any, ...]]]:
        """The rows of a whole-table read in batches, never all in memory (verification)."""
        ...

    def erasures(self) -> tuple[list[str], list[str]]:
        """The refs this transaction erased, and those it changed without an entry of their
        own (a card losing its erased visit), since the last call: counted by an
        ``ERASED`` entry (art. 20.4). SQLite notes them with temporary triggers (a staff
        row as ``staffid:<identity>``); the server as its statements erase them."""
        ...

    def setting(self, key: str) -> str | bytes | None:
        """A value of ``settings`` (sealed on the server, bound to its key)."""
        ...

    def put_setting(self, key: str, value: str | bytes, *, replace: bool = True) -> None:
        """Write a value of ``settings``; with ``replace=False`` one already there stays."""
        ...

    def check_index(
        self, ref: str, stored: Sequence[Any], *, identity: str = "", number: str = ""
    ) -> None:
        """The server's blind index read beside a sealed value (``stored``: index, key
        version) is the one the opened value gives, else BLIND_INDEX_MISMATCH (a row
        swapped by the server's administrator). Nothing to check on SQLite."""
        ...

    # -- retention and rectification (db/retention.py, db/data_protection.py) -------------

    def note_erased(self, erased: Iterable[str], changed: Iterable[str] = ()) -> None:
        """Rows a statement of this transaction erased, and rows it changed without an
        entry of their own (a card losing its erased visit), for :meth:`erasures`: noted
        here on the server; SQLite's temporary triggers have noted them already."""
        ...

    def index_name(
        self, file_number: int, surname: str, given_names: str, *, new: bool = False
    ) -> None:
        """Index a visitor's name anew (written or rectified): the search name and word
        index on the file (db/names.py); the blind name tokens on the server. ``new``: a
        visitor just inserted (its row holds the search name, no old words to delete)."""
        ...

    def audit(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
        rows: AuditRows = (),
    ) -> int:
        """Append an entry to the chain in this transaction, committing to ``rows`` as
        they are now; its ``seq``."""
        ...


def insert_row(tx: Tx, table: str, values: Mapping[str, Any]) -> None:
    """``INSERT INTO table`` of ``values`` by column (with :meth:`Tx.index_columns`)."""
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    tx.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(values.values()))


def when(value: Any) -> datetime:
    """An instant read back: ISO text (SQLite) or ``timestamptz`` (server), in UTC."""
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    text = str(value)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text).astimezone(UTC)


def opt_when(value: Any) -> datetime | None:
    return None if value is None else when(value)


def on(value: Any) -> date:
    """A date read back: ISO text (SQLite) or ``date`` (server)."""
    if isinstance(value, datetime):  # pragma: no cover - no column mixes them
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value))

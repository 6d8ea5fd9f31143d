"""The visitor file's transaction: what its rules (db/cards.py, db/visitors.py...) need of
a database, over two dialects (the desk's SQLCipher file, db/connection.py; the casino's
PostgreSQL server, db/pg/). Rules write ``?`` SQL once; the dialect owns placeholders,
stored instants/days/flags, sealing (art. 20.4, R3: identity on the encrypted file, the
key ring and blind indexes on the server), row locks and the audit chain's append."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any, Protocol

from admission.identity import IdentityKey
from admission.records import AuditHead

AuditRows = Sequence[tuple[str, bool]]  # (ref, created), e.g. ("card:17", False)
# the text of a value read from table.column of a row: Tx.open (a row reader serves both)
Opens = Callable[[Any, str, str, int | str], str]


class Tx(Protocol):
    """One transaction of one store."""

    @property
    def dialect(self) -> str: ...  # "sqlite" or "pg": for the few statements written twice

    @property
    def lock_rows(self) -> str:
        """`` FOR UPDATE`` on the server; empty on SQLite, whose writer holds the file."""

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None: ...

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int: ...  # rows changed

    def send(self, sql: str, params: Sequence[Any] = ()) -> None:
        """A write whose count nobody reads: pipelined on the server, it travels with the
        next round trip; an error it meets surfaces there and rolls everything back."""

    def fetch(self, reads: Sequence[tuple[str, Sequence[Any]]]) -> list[list[tuple[Any, ...]]]:
        """The rows of several reads none of which needs another's answer: on the server
        they travel together (one round trip), on the file one after another."""

    def prime(self, counters: Mapping[str, int], head: AuditHead | None) -> None:
        """Counters read under the chain head's lock, and the chain's newest entry:
        ``next_number`` and the next entry take them without asking the database again."""

    def load(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Insert a great many rows, streamed (the register's snapshot, art. 20.2)."""

    def next_number(self, counter: str) -> int:
        """The next number of a gapless counter (art. 22.1); a rollback gives it back."""

    def ts(self, at: datetime) -> Any: ...

    def day(self, value: date) -> Any: ...

    def flag(self, value: bool) -> Any: ...

    def seal(self, text: str, table: str, column: str, row: int | str) -> Any:
        """A personal value as stored in ``table.column`` of ``row``."""

    def open(self, value: Any, table: str, column: str, row: int | str) -> str:
        """The text of a value read from ``table.column`` of ``row``."""

    def identity_match(self, column: str, identity: IdentityKey) -> tuple[str, list[Any]]:
        """A condition on ``column`` holding ``identity`` and its parameters (the text on
        SQLite, every held key version's blind index on the server); the caller checks."""

    @property
    def head(self) -> AuditHead | None:
        """The chain's newest entry as this transaction knows it (primed, or appended)."""

    def appended(self, head: AuditHead) -> None:
        """Told of each audit entry this transaction appends (db/chain.py)."""

    def new_id(self, table: str, column: str) -> int:
        """The id the next row of ``table`` will take, known before it is sealed to it."""

    def id_sql(self, table: str, column: str) -> str:
        """An expression giving :meth:`new_id`'s id, to read it with others (:meth:`fetch`)."""

    def index_columns(
        self, *, identity: IdentityKey | None = None, number: str | None = None
    ) -> dict[str, Any]:
        """The server's blind-index and key-version columns of a sealed row; none on SQLite."""

    def keyed_hash(self, text: str) -> str:
        """``hmac:`` + 16 hex under the file's subject secret: names without showing."""

    def listed(self, values: Sequence[int] | Sequence[str]) -> tuple[str, list[Any]]:
        """A subquery of ``values`` as its column ``value`` (``x IN (subquery)``)."""

    def batches(self, sql: str, params: Sequence[Any] = ()) -> Iterator[list[tuple[Any, ...]]]:
        """The rows of a whole-table read in batches, never all in memory."""

    def erasures(self) -> tuple[list[str], list[str]]:
        """The refs erased, and those changed without an entry of their own, since the
        last call: counted by an ``ERASED`` entry (art. 20.4)."""

    def setting(self, key: str) -> str | bytes | None: ...

    def put_setting(self, key: str, value: str | bytes, *, replace: bool = True) -> None: ...

    def check_index(
        self, ref: str, stored: Sequence[Any], *, identity: str = "", number: str = ""
    ) -> None:
        """The server's blind index beside a sealed value matches the opened value, else
        BLIND_INDEX_MISMATCH (a row swapped by the server's administrator)."""

    def note_erased(self, erased: Iterable[str], changed: Iterable[str] = ()) -> None:
        """Rows a statement erased or changed, for :meth:`erasures` (SQLite's triggers
        note them themselves)."""

    def index_name(
        self, file_number: int, surname: str, given_names: str, *, new: bool = False
    ) -> None:
        """Index a visitor's name anew (db/names.py on the file, blind tokens on the server);
        ``new``: a row just inserted, with no old words to delete."""

    def audit(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
        rows: AuditRows = (),
    ) -> int:
        """Append to the chain in this transaction, committing to ``rows``; its ``seq``."""

    def audit_written(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None,
        rows: AuditRows,
        contents: Mapping[str, Sequence[object]],
    ) -> int:
        """:meth:`audit` given the content of rows just written (not read back)."""


def insert_row(tx: Tx, table: str, values: Mapping[str, Any]) -> None:
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    tx.send(f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(values.values()))


def update_row(tx: Tx, table: str, values: Mapping[str, Any], key: str, row: object) -> None:
    sets = ", ".join(f"{column} = ?" for column in values)
    tx.send(f"UPDATE {table} SET {sets} WHERE {key} = ?", [*values.values(), row])


def scalar(tx: Tx, sql: str, params: Sequence[Any] = ()) -> Any:
    """The one value of an aggregate's one row."""
    row = tx.one(sql, params)
    assert row is not None
    return row[0]


def when(value: Any) -> datetime:
    """An instant read back (ISO text or ``timestamptz``), in UTC."""
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.fromisoformat(str(value)).astimezone(UTC)  # 3.11 reads a "Z"


def opt_when(value: Any) -> datetime | None:
    return None if value is None else when(value)


def on(value: Any) -> date:
    """A date read back (ISO text or ``date``)."""
    if isinstance(value, date):  # no column mixes it with an instant
        return value
    return date.fromisoformat(str(value))

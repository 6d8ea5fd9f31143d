"""The server's transaction (:class:`PgTx`, the server's :class:`db.tx.Tx`): the rules'
SQL with psycopg's placeholders, sealing under the key ring, the audit chain's entries and
erasures of one attempt of one transaction of db/pg/store.py."""

from __future__ import annotations

import contextlib
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql as pg_sql

from admission.identity import IdentityKey
from admission.records import AuditHead
from db import chain
from db.audit_chain import IndexMismatch
from db.audit_key import AuditKey
from db.pg.crypto import KeyRing

Conn = psycopg.Connection[Any]

LOCK_HEAD = "SELECT next FROM counters WHERE name = 'audit' FOR UPDATE"
STREAM_BATCH = 2000  # rows per fetch of a whole-table read (PgTx.batches)
_CURSORS = itertools.count()  # names of the server-side cursors of those reads


@functools.lru_cache(maxsize=1024)
def _pg_sql(sql: str) -> str:
    """The rules' ``?`` placeholders as psycopg's ``%s``; the server's own statements,
    already written with ``%s``, pass unchanged (no statement holds a literal ``?``)."""
    return sql.replace("?", "%s")


class PgTx(chain.Chained):
    """One attempt of one transaction: the rules' statements take ``?`` placeholders,
    ``conn`` psycopg's; the rows it erased are counted by an ``ERASED`` entry."""

    __slots__ = (
        "changed",
        "conn",
        "deferred",
        "erased",
        "key",
        "known",
        "now",
        "pipeline",
        "sealing",
        "secrets",
    )
    dialect = "pg"
    lock_rows = " FOR UPDATE"

    def __init__(
        self,
        conn: Conn,
        ring: KeyRing | None = None,
        key: AuditKey | None = None,
        now: Callable[[], datetime] | None = None,
        known: Mapping[str, bytes] | None = None,
    ) -> None:
        # no ring, key nor clock: a bare read of the chain's ends (db/pg/opening.py)
        self.conn = conn
        self.sealing = ring
        self.key = key
        self.now = now
        self.known = known or {}
        self.erased: set[str] = set()
        self.changed: set[str] = set()  # cards that lost the link to an erased visit
        self.secrets: dict[str, bytes] = {}  # read or made here: kept once committed
        # pipelined (PgStore._run): the writes held for the next round trip, and the
        # pipeline whose sync() ends each one (PgTx.fetch)
        self.pipeline: psycopg.Pipeline | None = None
        self.deferred: list[tuple[Any, Sequence[Any]]] = []
        self.primed: dict[str, int] = {}  # counters read under the head's lock (Tx.prime)
        self.head: AuditHead | None = None  # the chain's newest entry as known here

    def pipelined(self, pipeline: psycopg.Pipeline, setup: Sequence[Any]) -> None:
        """Work in ``pipeline``: ``setup`` (the head's lock...) goes with the first read."""
        self.pipeline = pipeline
        self.deferred = [(statement, ()) for statement in setup]

    def flush(self) -> None:
        """Send the writes held so far, without waiting for their answers."""
        held, self.deferred = self.deferred, []
        for statement, params in held:
            self.conn.execute(statement, params)

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        if self.pipeline is not None:
            return next(iter(self.all(sql, params)), None)
        return self.conn.execute(_pg_sql(sql), params).fetchone()

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self.pipeline is not None:
            return self.fetch([(sql, params)])[0]
        return self.conn.execute(_pg_sql(sql), params).fetchall()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        self.flush()
        cursor = self.conn.execute(_pg_sql(sql), params)
        if self.pipeline is not None:
            self.pipeline.sync()  # the count comes with the answer
        return cursor.rowcount

    def send(self, sql: str, params: Sequence[Any] = ()) -> None:
        if self.pipeline is None:
            self.conn.execute(_pg_sql(sql), params)
        else:
            self.deferred.append((_pg_sql(sql), params))

    def fetch(self, reads: Sequence[tuple[str, Sequence[Any]]]) -> list[list[tuple[Any, ...]]]:
        """The reads (after the writes held) in one round trip. Pipelined, it ends with
        a Sync and no flush request after it: the server, idle inside the transaction
        while this desk computes, then has its idle-in-transaction timeout armed, so a
        desk whose link goes silent never holds the chain's head for long (PostgreSQL
        documentation, "Pipeline Mode" and "Message Flow")."""
        if self.pipeline is None:  # leaving the pipeline sends the Sync and reads
            with self.conn.pipeline():
                cursors = [self.conn.execute(_pg_sql(sql), params) for sql, params in reads]
        else:
            self.flush()
            cursors = [self.conn.execute(_pg_sql(sql), params) for sql, params in reads]
            self.pipeline.sync()
        return [cursor.fetchall() for cursor in cursors]

    def load(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        self.flush()
        names = pg_sql.SQL(", ").join(pg_sql.Identifier(c) for c in columns)
        statement = pg_sql.SQL("COPY {} ({}) FROM STDIN").format(pg_sql.Identifier(table), names)
        with self.conn.cursor() as cur, cur.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)

    def next_number(self, counter: str) -> int:
        primed = self.primed_number(counter)
        if primed is not None:
            return primed
        found = self.one(
            "UPDATE counters SET next = next + 1 WHERE name = ? RETURNING next - 1", (counter,)
        )
        assert found is not None
        return int(found[0])

    ts = day = flag = staticmethod(lambda value: value)  # instants, days, flags: the server's

    @property
    def ring(self) -> KeyRing:
        assert self.sealing is not None
        return self.sealing

    def seal(self, text: str, table: str, column: str, row: int | str) -> bytes:
        return self.ring.seal_text(text, table=table, column=column, row=row)

    def open(self, value: Any, table: str, column: str, row: int | str) -> str:
        return self.ring.open_text(bytes(value), table=table, column=column, row=row)

    def identity_match(self, column: str, identity: IdentityKey) -> tuple[str, list[Any]]:
        row, dot, _ = column.rpartition(".")
        return f"{row}{dot}id_index = ANY(?::bytea[])", [list(self.ring.identity_indexes(identity))]

    @staticmethod
    def id_sql(table: str, column: str) -> str:
        return f"nextval('{table}_{column}_seq')"

    def index_columns(
        self, *, identity: IdentityKey | None = None, number: str | None = None
    ) -> dict[str, Any]:
        ring = self.ring
        columns: dict[str, Any] = {"key_version": ring.current_version}
        if identity is not None:
            columns["id_index"] = ring.identity_index(identity)
        if number is not None:
            columns["number_index"] = ring.number_index(number)
        return columns

    def keyed_hash(self, text: str) -> str:
        return chain.keyed_hash_in(self, text)

    @staticmethod
    def listed(values: Sequence[int] | Sequence[str]) -> tuple[str, list[Any]]:
        kind = "bigint" if all(isinstance(v, int) for v in values) else "text"
        return f"SELECT unnest(?::{kind}[]) AS value", [list(values)]

    def batches(self, sql: str, params: Sequence[Any] = ()) -> Iterator[list[tuple[Any, ...]]]:
        self.flush()
        # a server-side cursor lives in a transaction; a plain read has none of its own
        idle = self.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with (
            self.conn.transaction() if idle else contextlib.nullcontext(),
            self.conn.cursor(name=f"walk_{next(_CURSORS)}") as cur,
        ):
            cur.execute(_pg_sql(sql), params)
            while rows := cur.fetchmany(STREAM_BATCH):
                yield rows

    def erasures(self) -> tuple[list[str], list[str]]:
        erased, changed = sorted(self.erased), sorted(self.changed - self.erased)
        self.erased, self.changed = set(), set()
        return erased, changed

    def setting(self, key: str) -> str | bytes | None:
        name = key.removeprefix("secret:")
        secret = name != key
        cached = self.known.get(name) or self.secrets.get(name)
        if secret and cached is not None:
            return cached  # a secret never changes once made
        row = self.one("SELECT value FROM settings WHERE key = ?", (key,))
        if row is None:
            return None
        if not secret:
            return self.open(row[0], "settings", "value", key)
        value = self.ring.open(bytes(row[0]), table="settings", column="value", row=key)
        self.secrets[name] = value  # kept by the store once committed
        return value

    def put_setting(self, key: str, value: str | bytes, *, replace: bool = True) -> None:
        ring = self.ring
        plain = value if isinstance(value, bytes) else value.encode("utf-8")
        sealed = ring.seal(plain, table="settings", column="value", row=key)
        self.execute(
            "INSERT INTO settings (key, value, key_version) VALUES (?, ?, ?) ON CONFLICT (key) "
            + (
                "DO UPDATE SET value = excluded.value, key_version = excluded.key_version"
                if replace
                else "DO NOTHING"
            ),
            (key, sealed, ring.current_version),
        )

    def check_index(
        self, ref: str, stored: Sequence[Any], *, identity: str = "", number: str = ""
    ) -> None:
        index, version = stored
        ring, held = self.ring, int(version)
        if held not in ring.versions:
            return  # a version this desk no longer holds: its value did not open either
        expected = (
            ring.identity_index(IdentityKey.parse(identity), version=held)
            if identity
            else ring.number_index(number, version=held)
        )
        if bytes(index) != expected:
            raise IndexMismatch(ref)

    def note_erased(self, erased: Iterable[str], changed: Iterable[str] = ()) -> None:
        self.erased.update(erased)
        self.changed.update(changed)

    def index_name(
        self, file_number: int, surname: str, given_names: str, *, new: bool = False
    ) -> None:
        if not new:  # a new visitor has none to delete
            self.send("DELETE FROM name_tokens WHERE file_number = %s", (file_number,))
        tokens = self.ring.name_tokens(surname, given_names)
        if tokens:
            self.send(
                "INSERT INTO name_tokens (token, file_number) "
                "SELECT t, %s FROM unnest(%s::bytea[]) AS t",
                (file_number, list(tokens)),
            )

    def chain_key(self) -> AuditKey:
        assert self.key is not None  # a write of the store's: its audit key
        return self.key

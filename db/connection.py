"""Opening the visitor file: key, file checks, pragmas, transactions, error mapping. WAL
with ``synchronous=FULL``: a commit is one append and one fsync, a reader never blocks the
desk's writer, a SIGKILL leaves all of a transaction or none, and a printed card number
survives a power cut (FULL, not NORMAL). WAL needs a local disk.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from admission.errors import StoreError, StoreErrorCode, WrongKeyError
from admission.identity import IdentityKey
from admission.records import AuditHead
from db import chain, codec, names
from db.audit_key import AuditKey
from db.file_guard import Marker, disk_is_read_only, os_error, salt_of
from db.integrity import hmac_check
from db.keys import DbKey
from db.migrate import migrate

try:
    import sqlcipher3
    from sqlcipher3 import dbapi2 as _cipher_api

    DB_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, _cipher_api.Error)
except ImportError:  # pragma: no cover - the package is a hard requirement in production
    sqlcipher3 = None
    DB_ERRORS = (sqlite3.Error,)

PAGE_SIZE = 4096  # SQLCipher 4 default
_PLAIN_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000
CACHE_KIB = 131072
BATCH_ROWS = 2000  # rows per fetch of a whole-table read (SqliteTx.batches)


# SQLite primary result codes (https://sqlite.org/rescode.html).
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN = 10, 11, 13, 14
_SQLITE_NOTADB = 26
_BY_RESULT: dict[int | None, StoreErrorCode] = {
    _SQLITE_FULL: StoreErrorCode.DISK_FULL,
    _SQLITE_READONLY: StoreErrorCode.READ_ONLY_DISK,
    _SQLITE_PERM: StoreErrorCode.READ_ONLY_DISK,
    _SQLITE_CORRUPT: StoreErrorCode.DAMAGED_FILE,
    _SQLITE_NOTADB: StoreErrorCode.DAMAGED_FILE,
    _SQLITE_BUSY: StoreErrorCode.STORE_BUSY,
    _SQLITE_LOCKED: StoreErrorCode.STORE_BUSY,
}
_BACKUP = "restore it (and its marker) from the backup"


def _primary(exc: BaseException) -> int | None:
    result = getattr(exc, "sqlite_errorcode", None)
    return result & 0xFF if isinstance(result, int) else None


def error_code(
    exc: BaseException, default: StoreErrorCode, path: Path | None = None
) -> StoreErrorCode:
    """The store's code for a sqlite3/sqlcipher3 error, ``default`` when none fits; an
    I/O or open error on a folder that turned read-only is READ_ONLY_DISK."""
    primary = _primary(exc)
    if primary in _BY_RESULT:
        return _BY_RESULT[primary]
    unreadable = primary in (_SQLITE_IOERR, _SQLITE_CANTOPEN, None)
    if unreadable and path is not None and disk_is_read_only(path):
        return StoreErrorCode.READ_ONLY_DISK
    return default


_MEANING = {
    StoreErrorCode.DISK_FULL: "the disk is full; nothing of this act was recorded",
    StoreErrorCode.READ_ONLY_DISK: "the visitor file's disk or folder is read-only",
    StoreErrorCode.DAMAGED_FILE: f"the visitor file is damaged: {_BACKUP}",
    StoreErrorCode.STORE_BUSY: "the visitor file is busy",
}


def store_error(
    exc: BaseException, default: StoreErrorCode, what: str, path: Path | None = None
) -> StoreError:
    code = error_code(exc, default, path)
    return StoreError(f"{what}: {_MEANING.get(code, str(exc))}", code=code)


def check_file(path: Path, *, known: bool = False) -> bool:
    """True when ``path`` holds data; raise for what cannot be SQLCipher 4 (whole pages
    of random-looking bytes): CORRUPT_FILE, or - when the folder's marker says a visitor
    file was here (``known``) - FILE_REPLACED (plain SQLite) or DAMAGED_FILE (cut, wiped)."""
    if not path.exists():
        return False
    if not path.is_file():
        not_file = "the visitor file path is not a regular file"
        raise StoreError(not_file, code=StoreErrorCode.CORRUPT_FILE)
    size = path.stat().st_size
    if size == 0:
        return False  # created but never written (e.g. killed before the first commit)
    with path.open("rb") as handle:
        head = handle.read(PAGE_SIZE)
    if head.startswith(_PLAIN_HEADER):
        raise StoreError(
            "the file is an unencrypted SQLite database",
            code=StoreErrorCode.FILE_REPLACED if known else StoreErrorCode.CORRUPT_FILE,
        )
    if size % PAGE_SIZE or len(set(head)) < 160:  # random bytes: ~255 distinct values
        if known:
            cut = f"the visitor file is cut short or overwritten: {_BACKUP}"
            raise StoreError(cut, code=StoreErrorCode.DAMAGED_FILE)
        not_ours = "the file is not an encrypted visitor file"
        raise StoreError(not_ours, code=StoreErrorCode.CORRUPT_FILE)
    return True


def connect_encrypted(
    path: Path, key: DbKey, *, create: bool, marker: Marker | None = None
) -> sqlite3.Connection:
    """Connect and decrypt the first page, or raise the code that says why not; with
    the folder's ``marker`` a failing first page is told apart (:func:`_first_read_error`),
    without it reported as WRONG_KEY."""
    if sqlcipher3 is None:  # pragma: no cover
        raise StoreError("sqlcipher3 is not installed", code=StoreErrorCode.NO_SQLCIPHER)
    exists = check_file(path, known=marker is not None)
    if not exists and not create:
        raise StoreError("no visitor file at the given path", code=StoreErrorCode.NO_FILE)
    if not exists and create and not path.exists():
        # Owner-only from the first byte; SQLite gives -wal/-shm the same mode.
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except OSError as exc:
            raise os_error(exc, path, "cannot create the visitor file") from exc
    target = str(path) if create else path.resolve().as_uri() + "?mode=rw"
    try:
        opened = sqlcipher3.connect(
            target, uri=not create, isolation_level=None, check_same_thread=False
        )
    except DB_ERRORS as exc:
        what = "cannot open the visitor file"
        raise store_error(exc, StoreErrorCode.OPEN_FAILED, what, path) from exc
    conn = cast(sqlite3.Connection, opened)
    try:
        # SQLCipher would print "hmac check failed" to stderr on a wrong key; the
        # WrongKeyError below says it once, without noise in the CLI's output.
        conn.execute("PRAGMA cipher_log_level = NONE")
        conn.execute(f"PRAGMA key = {key.pragma_value()}")  # no I/O yet
        # First read: decrypts page 1 or fails without writing anything.
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except DB_ERRORS as exc:
        error = _first_read_error(exc, conn, path, key, marker)
        conn.close()
        raise error from exc
    return conn


def _first_read_error(
    exc: BaseException, conn: sqlite3.Connection, path: Path, key: DbKey, marker: Marker | None
) -> StoreError:
    """SQLCipher fails page 1 alike for a wrong key and for damage (SQLITE_NOTADB): the
    marker's salt (FILE_REPLACED) and key-check value (WRONG_KEY) tell them apart.
    SQLITE_CORRUPT: page 1 decrypted and a later page of the schema is damaged."""
    code = error_code(exc, StoreErrorCode.CORRUPT_FILE, path)
    if code is not StoreErrorCode.DAMAGED_FILE:
        return store_error(exc, code, "cannot read the visitor file", path)
    if _primary(exc) == _SQLITE_CORRUPT:
        shown = pages_text(find_damage(conn)) or "unknown"
        return StoreError(
            f"the visitor file is damaged (page(s) {shown}) where its tables are listed; "
            f"nothing can be read: {_BACKUP}",
            code=StoreErrorCode.DAMAGED_FILE,
        )
    wrong_key = WrongKeyError(
        "the visitor file cannot be decrypted with this key "
        f"(key source: {key.source or 'unknown'}); the file was not modified"
    )
    if marker is None:
        return wrong_key
    if salt_of(path) != marker.salt:
        return StoreError(
            "the visitor file is not the one this folder created (its header differs): " + _BACKUP,
            code=StoreErrorCode.FILE_REPLACED,
        )
    if not hmac.compare_digest(key.check_value(marker.file_id), marker.key_check):
        return wrong_key
    return StoreError(
        f"the first page of the visitor file is damaged (the key is right): {_BACKUP}",
        code=StoreErrorCode.DAMAGED_FILE,
    )


def find_damage(conn: sqlite3.Connection) -> tuple[int, ...]:
    """The pages failing their HMAC check; () when even that cannot be read."""
    with contextlib.suppress(*DB_ERRORS):
        return hmac_check(conn)
    return ()


def pages_text(pages: tuple[int, ...]) -> str:
    return ", ".join(str(p) for p in pages[:10])


def configure(conn: sqlite3.Connection, *, writable: bool = True) -> list[int]:
    """Per-connection pragmas, then pending migrations (their numbers are returned). A
    damaged file (not ``writable``) gets the reading pragmas only, ``query_only`` and no
    migration. A file with a migration this program does not know is refused
    (SCHEMA_NEWER) before anything is written."""
    try:
        # fold(text): every letter's case folded as str.lower does, as the server's
        # inspectors' search folds an observation (art. 20.4; db/inspection.py)
        conn.create_function(
            "fold", 1, lambda text: None if text is None else str(text).lower(), deterministic=True
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # 128 MiB of decrypted pages: the name-word index and the hot visit/card index
        # pages stay in memory; measured on 1M visitors, name search p95 110 -> 25 ms
        # (every cache miss costs a page decryption + HMAC check).
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        conn.execute("PRAGMA temp_store = MEMORY")  # sort/DISTINCT scratch never on disk
        if not writable:
            conn.execute("PRAGMA query_only = ON")
            return []
        conn.execute("PRAGMA secure_delete = ON")  # R3: erased rows zeroed, not left in free pages
        conn.execute("PRAGMA foreign_keys = ON")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() not in ("wal", "memory"):  # "memory": db/memory.py's store
            raise StoreError(
                "cannot switch the visitor file to WAL", code=StoreErrorCode.OPEN_FAILED
            )
        conn.execute("PRAGMA synchronous = FULL")
        return migrate(conn)
    except DB_ERRORS as exc:
        what = "cannot prepare the visitor file"
        raise store_error(exc, StoreErrorCode.OPEN_FAILED, what) from exc


@contextmanager
def immediate_transaction(
    conn: sqlite3.Connection,
    *,
    busy: Callable[[BaseException], Exception],
    failed: Callable[[BaseException], Exception],
) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception; database errors
    become ``busy(exc)`` (cannot begin) or ``failed(exc)`` (during or at commit)."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except DB_ERRORS as exc:
        raise busy(exc) from exc
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException as exc:
        if conn.in_transaction:
            # SQLite has already rolled back after SQLITE_FULL or an I/O error; a
            # failing ROLLBACK must not hide the error that caused it.
            with contextlib.suppress(*DB_ERRORS):
                conn.execute("ROLLBACK")
        if isinstance(exc, DB_ERRORS):
            raise failed(exc) from exc
        raise


class SqliteTx(chain.Chained):
    """The SQLCipher file's :class:`db.tx.Tx`. The file is encrypted whole: a sealed value
    is its text. ``key`` (resolved when first needed) and ``now``: a write's; none in a
    read, which appends nothing and keys no hash."""

    __slots__ = ("conn", "key", "now")
    dialect = "sqlite"
    lock_rows = ""

    def __init__(
        self,
        conn: sqlite3.Connection,
        key: Callable[[], AuditKey] | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.conn = conn
        self.key = key
        self.now = now
        self.head: AuditHead | None = None
        self.primed: dict[str, int] = {}

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        return cast("tuple[Any, ...] | None", self.conn.execute(sql, params).fetchone())

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, params).fetchall()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self.conn.execute(sql, params).rowcount

    def send(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(sql, params)

    def fetch(self, reads: Sequence[tuple[str, Sequence[Any]]]) -> list[list[tuple[Any, ...]]]:
        return [self.all(sql, params) for sql, params in reads]

    def load(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        marks = ", ".join("?" for _ in columns)
        self.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    def next_number(self, counter: str) -> int:
        primed = self.primed_number(counter)
        if primed is not None:
            return primed
        found = self.conn.execute(
            "UPDATE counters SET next = next + 1 WHERE name = ? RETURNING next - 1", (counter,)
        ).fetchall()
        return int(found[0][0])

    ts = staticmethod(codec.ts)
    day = staticmethod(codec.day)
    flag = staticmethod(int)

    @staticmethod
    def seal(text: str, table: str, column: str, row: int | str) -> str:
        return text

    @staticmethod
    def open(value: Any, table: str, column: str, row: int | str) -> str:
        return str(value)

    @staticmethod
    def identity_match(column: str, identity: IdentityKey) -> tuple[str, list[Any]]:
        return f"{column} = ?", [identity.text]

    @staticmethod
    def id_sql(table: str, column: str) -> str:
        # SQLite's own choice: one above the highest, and for AUTOINCREMENT (a file number
        # is never reused, art. 22.3) above the highest it ever gave, even if erased
        return (
            f"(SELECT max(coalesce(max({column}), 0), coalesce((SELECT seq FROM "
            f"sqlite_sequence WHERE name = '{table}'), 0)) + 1 FROM {table})"
        )

    @staticmethod
    def index_columns(
        *, identity: IdentityKey | None = None, number: str | None = None
    ) -> dict[str, Any]:
        return {}

    def keyed_hash(self, text: str) -> str:
        if self.key is None:
            raise StoreError("this transaction keys no hash", code=StoreErrorCode.WRITE_FAILED)
        return chain.keyed_hash_in(self, text)

    @staticmethod
    def listed(values: Sequence[int] | Sequence[str]) -> tuple[str, list[Any]]:
        return "SELECT value FROM json_each(?)", [json.dumps(list(values))]

    def batches(self, sql: str, params: Sequence[Any] = ()) -> Iterator[list[tuple[Any, ...]]]:
        cursor = self.conn.execute(sql, params)
        while rows := cursor.fetchmany(BATCH_ROWS):
            yield rows

    def erasures(self) -> tuple[list[str], list[str]]:
        # noted by the store's temporary triggers (db/audit_rows.py: ERASURE_TRIGGERS)
        found = self.conn.execute("SELECT ref, erased FROM temp.audit_erased").fetchall()
        if not found:
            return [], []
        self.conn.execute("DELETE FROM temp.audit_erased")
        return [str(r) for r, e in found if e], [str(r) for r, e in found if not e]

    def setting(self, key: str) -> str | bytes | None:
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else cast("str | bytes", row[0])

    def put_setting(self, key: str, value: str | bytes, *, replace: bool = True) -> None:
        self.conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) "
            + ("DO UPDATE SET value = excluded.value" if replace else "DO NOTHING"),
            (key, value),
        )

    @staticmethod
    def check_index(
        ref: str, stored: Sequence[Any], *, identity: str = "", number: str = ""
    ) -> None:
        return None

    @staticmethod
    def note_erased(erased: Iterable[str], changed: Iterable[str] = ()) -> None:
        return None  # the store's temporary triggers noted them (db/audit_rows.py)

    def index_name(
        self, file_number: int, surname: str, given_names: str, *, new: bool = False
    ) -> None:
        search = names.search_name(surname, given_names)
        if not new:  # a new visitor's row was inserted with its search name
            self.conn.execute(
                "UPDATE visitors SET search_name = ? WHERE file_number = ?", (search, file_number)
            )
            self.conn.execute("DELETE FROM visitor_tokens WHERE file_number = ?", (file_number,))
        self.conn.executemany(
            "INSERT INTO visitor_tokens (token, search_name, file_number) VALUES (?, ?, ?)",
            [(w, search, file_number) for w in names.words(surname, given_names)],
        )

    def chain_key(self) -> AuditKey:
        if self.key is None:
            raise StoreError(chain.NO_TRAIL, code=StoreErrorCode.WRITE_FAILED)
        return self.key()


def damaged_error(pages: tuple[int, ...]) -> StoreError:
    """DAMAGED_FILE for a file whose ``pages`` failed: it takes no more writes."""
    return StoreError(
        f"the visitor file is damaged (page(s) {pages_text(pages)}); it takes no more "
        f"writes: read what is needed, then {_BACKUP}",
        code=StoreErrorCode.DAMAGED_FILE,
    )

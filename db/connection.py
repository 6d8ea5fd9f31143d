"""Opening the visitor file: key, file checks, pragmas, transactions, error mapping.

Journal: WAL with ``synchronous=FULL``. A commit is one append + one fsync of the
``-wal`` file (rollback journal: at least two fsyncs on two files), so the admission
transaction stays short at a Saturday-night queue; a reader (inspector query on
another connection) never blocks the desk's writer; a SIGKILL at any point leaves
either the whole transaction or none of it (the WAL frames of an uncommitted
transaction are ignored on recovery). FULL, not NORMAL: a committed card number has
been printed, so it must survive a power cut or the number would be issued twice.
Trade-off: WAL needs a local disk (not a network share). After a purge the WAL is
checkpointed and truncated so erased rows do not linger in it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from admission.errors import NotFoundError, StoreError, StoreErrorCode, WrongKeyError
from db.keys import DbKey
from db.migrate import migrate

try:
    import sqlcipher3
    from sqlcipher3 import dbapi2 as _cipher_api

    _ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, _cipher_api.Error)
except ImportError:  # pragma: no cover - the package is a hard requirement in production
    sqlcipher3 = None
    _ERRORS = (sqlite3.Error,)

DB_ERRORS = _ERRORS
PAGE_SIZE = 4096  # SQLCipher 4 default
_PLAIN_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000
CACHE_KIB = 131072


def check_file(path: Path) -> bool:
    """True when ``path`` holds data; raise CORRUPT_FILE for what cannot be SQLCipher 4.

    An encrypted file is whole pages of random-looking bytes (salt then ciphertext);
    anything else is refused before SQLCipher sees it. Only reads the file.
    """
    if not path.exists():
        return False
    if not path.is_file():
        raise StoreError(
            "the visitor file path is not a regular file", code=StoreErrorCode.CORRUPT_FILE
        )
    size = path.stat().st_size
    if size == 0:
        return False  # created but never written (e.g. killed before the first commit)
    with path.open("rb") as handle:
        head = handle.read(PAGE_SIZE)
    if head.startswith(_PLAIN_HEADER):
        raise StoreError(
            "the file is an unencrypted SQLite database", code=StoreErrorCode.CORRUPT_FILE
        )
    if size % PAGE_SIZE or len(set(head)) < 160:
        # 4096 random bytes show ~255 distinct values; text or zeros far fewer.
        raise StoreError(
            "the file is not an encrypted visitor file", code=StoreErrorCode.CORRUPT_FILE
        )
    return True


def connect_encrypted(path: Path, key: DbKey, *, create: bool) -> sqlite3.Connection:
    if sqlcipher3 is None:  # pragma: no cover
        raise StoreError("sqlcipher3 is not installed", code=StoreErrorCode.NO_SQLCIPHER)
    exists = check_file(path)
    if not exists and not create:
        raise NotFoundError("no visitor file at the given path")
    if not exists and create and not path.exists():
        # Owner-only from the first byte; SQLite gives -wal/-shm the same mode.
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    target = str(path) if create else path.resolve().as_uri() + "?mode=rw"
    try:
        conn = cast(
            sqlite3.Connection,
            sqlcipher3.connect(
                target, uri=not create, isolation_level=None, check_same_thread=False
            ),
        )
    except DB_ERRORS as exc:
        raise StoreError(
            f"cannot open the visitor file: {exc}", code=StoreErrorCode.OPEN_FAILED
        ) from exc
    try:
        # SQLCipher would print "hmac check failed" to stderr on a wrong key; the
        # WrongKeyError below says it once, without noise in the CLI's output.
        conn.execute("PRAGMA cipher_log_level = NONE")
        conn.execute(f"PRAGMA key = {key.pragma_value()}")  # no I/O yet
        # First read: decrypts page 1 or fails without writing anything.
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except DB_ERRORS as exc:
        conn.close()
        if "not a database" in str(exc):
            raise WrongKeyError(
                "the visitor file cannot be decrypted with this key "
                f"(key source: {key.source or 'unknown'}); the file was not modified"
            ) from exc
        raise StoreError(
            f"cannot read the visitor file: {exc}", code=StoreErrorCode.CORRUPT_FILE
        ) from exc
    return conn


def connect_plain(path: Path) -> sqlite3.Connection:
    """Unencrypted stdlib SQLite with the same schema: benchmarks and wipe tests only."""
    return sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)


def configure(conn: sqlite3.Connection) -> None:
    """Per-connection pragmas, then pending migrations."""
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA secure_delete = ON")  # R3: erased rows zeroed, not left in free pages
        conn.execute("PRAGMA foreign_keys = ON")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(
                "cannot switch the visitor file to WAL", code=StoreErrorCode.OPEN_FAILED
            )
        conn.execute("PRAGMA synchronous = FULL")
        # 128 MiB of decrypted pages: the name-word index and the hot visit/card index
        # pages stay in memory; measured on 1M visitors, name search p95 110 -> 25 ms
        # (every cache miss costs a page decryption + HMAC check).
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        conn.execute("PRAGMA temp_store = MEMORY")  # sort/DISTINCT scratch never on disk
        migrate(conn)
    except DB_ERRORS as exc:
        raise StoreError(
            f"cannot prepare the visitor file: {exc}", code=StoreErrorCode.OPEN_FAILED
        ) from exc


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
            conn.execute("ROLLBACK")
        if isinstance(exc, DB_ERRORS):
            raise failed(exc) from exc
        raise


class StoreBase:
    """The one connection, its lock and the transaction helpers shared by the mixins."""

    _conn: sqlite3.Connection
    _lock: threading.RLock

    def __init__(self, conn: sqlite3.Connection, path: Path | None, *, encrypted: bool) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self.path = path
        self.encrypted = encrypted
        self._closed = False

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``: the write lock is taken up front, so two
        desks never both read the same next card number."""
        with self._lock:
            self._check_open()
            with immediate_transaction(
                self._conn,
                busy=lambda exc: StoreError(
                    f"visitor file busy: {exc}", code=StoreErrorCode.STORE_BUSY
                ),
                failed=lambda exc: StoreError(
                    f"write failed: {exc}", code=StoreErrorCode.WRITE_FAILED
                ),
            ) as conn:
                yield conn

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction on the one connection, for adapters stored in the same
        file (reprint queue, vouchers): same lock, same error codes as the store's own."""
        return self._tx()

    def reading(self) -> AbstractContextManager[sqlite3.Connection]:
        """Reads under the store's lock, errors mapped to READ_FAILED."""
        return self._read()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._check_open()
            try:
                yield self._conn
            except DB_ERRORS as exc:
                raise StoreError(f"read failed: {exc}", code=StoreErrorCode.READ_FAILED) from exc

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the visitor file is closed", code=StoreErrorCode.STORE_CLOSED)

    def _now(self) -> datetime:
        """Stamp of the store's own audit entries; the store class injects a clock."""
        return datetime.now(UTC)

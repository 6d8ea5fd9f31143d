"""``SqlCipherStore``: the encrypted visitor file behind every storage port.

Implements VisitorFile, CardBook, BanList, StaffList, AuditTrail and Retention
(``admission/ports.py``) over ONE SQLCipher connection kept open for the life of the
app (key derivation costs ~0.1 s per connection). The methods are grouped in mixins,
one module per responsibility: visitors.py, cards.py, people.py, audit.py, retention.py.
Calls are serialised by a lock; the app drives the store from one worker thread.

    with SqlCipherStore.open(path, resolve_key(database_exists=path.exists())) as store:
        store.record_admission(entry)
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from types import TracebackType

from admission.clock import SystemClock
from admission.errors import StoreError, StoreErrorCode
from admission.ports import Clock
from db.connection import DB_ERRORS, configure, connect_encrypted, connect_plain
from db.keys import DbKey
from db.retention import RetentionMixin


class SqlCipherStore(RetentionMixin):
    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path | None,
        *,
        encrypted: bool,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(conn, path, encrypted=encrypted)
        self._clock: Clock = clock or SystemClock()

    @classmethod
    def open(
        cls, path: Path, key: DbKey, *, create: bool = True, clock: Clock | None = None
    ) -> SqlCipherStore:
        """Open (or with ``create``, create) the encrypted file and apply migrations.

        Raises WrongKeyError (file untouched), StoreError (``CORRUPT_FILE``) for a file
        that is not an encrypted visitor file (untouched), NotFoundError when the file is
        missing and ``create`` is false. ``clock`` stamps the store's own audit entries.
        """
        path = Path(path)
        conn = connect_encrypted(path, key, create=create)
        try:
            configure(conn)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, encrypted=True, clock=clock)

    @classmethod
    def open_plain(cls, path: Path, *, clock: Clock | None = None) -> SqlCipherStore:
        """BENCHMARKS AND WIPE TESTS ONLY: the same schema on unencrypted stdlib SQLite."""
        conn = connect_plain(Path(path))
        try:
            configure(conn)
        except BaseException:
            conn.close()
            raise
        return cls(conn, Path(path), encrypted=False, clock=clock)

    @property
    def connection(self) -> sqlite3.Connection:
        """The one open connection, for adapters stored in the same file (the RIAJ
        replica). Hold :attr:`lock` around every use; never change its pragmas."""
        self._check_open()
        return self._conn

    @property
    def lock(self) -> threading.RLock:
        return self._lock

    def _now(self) -> datetime:
        return self._clock.now()

    def close(self) -> None:
        """Checkpoint and close; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._conn.close()
            except DB_ERRORS as exc:
                raise StoreError(f"close failed: {exc}", code=StoreErrorCode.CLOSE_FAILED) from exc

    def __enter__(self) -> SqlCipherStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        kind = "encrypted" if self.encrypted else "PLAIN"
        return f"<SqlCipherStore {kind} {state}>"

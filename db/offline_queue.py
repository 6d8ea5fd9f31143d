"""Provisional vouchers given while the server cannot be reached (art. 23.4, R11): no
number can be taken off the server (one gapless sequence, arts. 22.1, 154-155), so each
gets a local reference ``<desk>-P<000001>`` and waits in the desk's own SQLCipher 4 file
(WAL, FULL sync, ``secure_delete``; one process, by ``flock``), keyed from the desk's key.
:func:`formalise` issues each on the server once: marked SENDING with the server's last
number, it is looked for above it before a resend."""

from __future__ import annotations

import contextlib
import hmac
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from enum import unique
from pathlib import Path
from typing import Any

from admission.codes import Code
from admission.errors import AdmissionError, StoreError, StoreErrorCode
from admission.ports import Clock
from admission.vouchers.model import NewVoucher, Voucher, VoucherBook
from admission.vouchers.offline import FormaliseReport, QueuedVoucher, QueueState
from db import codec
from db.connection import DB_ERRORS, connect_encrypted, immediate_transaction, store_error
from db.file_guard import lock_exclusively
from db.keys import DbKey

log = logging.getLogger("admission.db.offline_queue")
SCHEMA_VERSION = 1
_KEY_LABEL = b"admission-desk/offline-voucher-queue/v1"
_MAX_DESK_ID = 16
_SCAN_LIMIT = 100_000  # vouchers above the floor looked at before giving up (bounded)


@unique
class OfflineQueueCode(Code):
    OFFLINE_QUEUE_OTHER_DESK = "OFFLINE_QUEUE_OTHER_DESK"  # the file is another desk's queue
    OFFLINE_QUEUE_IN_USE = "OFFLINE_QUEUE_IN_USE"  # another process holds the queue
    OFFLINE_QUEUE_NEWER = "OFFLINE_QUEUE_NEWER"  # written by a newer program
    OFFLINE_QUEUE_BAD_DESK = "OFFLINE_QUEUE_BAD_DESK"  # desk id empty, too long or odd
    OFFLINE_QUEUE_WRONG_VOUCHER_DESK = "OFFLINE_QUEUE_WRONG_VOUCHER_DESK"  # not this desk's
    # the server did not take the voucher (link lost, refused): it stays queued
    OFFLINE_VOUCHER_NOT_FORMALISED = "OFFLINE_VOUCHER_NOT_FORMALISED"


def queue_key(desk_key: DbKey) -> DbKey:
    """HMAC-SHA256(raw key, label); a passphrase as it is (stretched with this file's salt)."""
    if desk_key.is_raw:
        derived = hmac.digest(bytes.fromhex(desk_key.hex()), _KEY_LABEL, "sha256")
        return DbKey.from_raw(derived, source=f"{desk_key.source}/offline-queue")
    return desk_key


_SCHEMA = """
CREATE TABLE queue_meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    desk_id TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE offline_vouchers (
    seq INTEGER PRIMARY KEY CHECK (seq >= 1),
    local_ref TEXT NOT NULL UNIQUE,
    issued_at TEXT NOT NULL UNIQUE,
    operator TEXT NOT NULL,
    holder_name TEXT NOT NULL,
    document_type TEXT NOT NULL,
    document_number TEXT NOT NULL,
    card_type TEXT NOT NULL,
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    state TEXT NOT NULL CHECK (state IN ('QUEUED', 'SENDING', 'FORMALISED')),
    floor INTEGER,
    server_number INTEGER UNIQUE,
    formalised_at TEXT,
    CHECK ((state = 'FORMALISED') = (server_number IS NOT NULL))
);
"""
_INSERT = (
    "INSERT INTO offline_vouchers (seq, local_ref, issued_at, operator, holder_name, "
    "document_type, document_number, card_type, price_cents, state) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'QUEUED')"
)
_COLUMNS = (
    "seq, local_ref, issued_at, operator, holder_name, document_type, document_number, "
    "card_type, price_cents, state, server_number, formalised_at"
)


class OfflineVoucherQueue(contextlib.AbstractContextManager["OfflineVoucherQueue"]):
    """The desk's queue (art. 23.4): thread-safe, one connection under a lock."""

    def __init__(self, conn: sqlite3.Connection, path: Path, desk_id: str, lock_fd: int) -> None:
        self._conn = conn
        self._path = path
        self._lock = threading.RLock()
        self._lock_fd = lock_fd
        self._closed = False
        self.desk_id = desk_id
        self.formalising = threading.Lock()  # one formalisation at a time (see formalise)

    @classmethod
    def open(
        cls, path: Path, key: DbKey, *, desk_id: str, create: bool = False
    ) -> OfflineVoucherQueue:
        """Open (``create``: or make) the queue file; StoreError (NO_FILE, CORRUPT_FILE,
        OFFLINE_QUEUE_*) or WrongKeyError (the file is left untouched)."""
        if not desk_id or len(desk_id) > _MAX_DESK_ID or not desk_id.isprintable():
            raise StoreError("bad desk id", code=OfflineQueueCode.OFFLINE_QUEUE_BAD_DESK)
        path = Path(path)
        lock_fd = _hold_lock(path)
        with contextlib.ExitStack() as undo:  # on any failure: the connection, then the lock
            undo.callback(os.close, lock_fd)
            conn = connect_encrypted(path, key, create=create)
            undo.callback(conn.close)
            _prepare(conn, path, desk_id)
            undo.pop_all()
        return cls(conn, path, desk_id, lock_fd)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._checkpoint()
                self._conn.close()
                os.close(self._lock_fd)

    def _checkpoint(self) -> None:
        """The WAL truncated: no erased row lingers in it (R3)."""
        with self._lock, contextlib.suppress(*DB_ERRORS):
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def __exit__(self, *exc: object) -> None:
        self.close()

    def enqueue(self, new: NewVoucher) -> QueuedVoucher:
        """Record a provisional voucher, committed and fsync'd; it has its local reference
        (to print). Its instant is moved on by a microsecond when not later than the
        previous entry's, so that it identifies the voucher on the server."""
        if new.desk_id != self.desk_id:
            raise StoreError(
                "the voucher names another desk",
                code=OfflineQueueCode.OFFLINE_QUEUE_WRONG_VOUCHER_DESK,
            )
        clean = new.numbered(0)  # the text cleaning the voucher book applies (art. 23.4)
        with self._tx() as conn:
            last = conn.execute("SELECT max(seq), max(issued_at) FROM offline_vouchers").fetchone()
            seq = int(last[0] or 0) + 1
            at = new.issued_at
            if last[1] is not None and codec.ts(at) <= str(last[1]):
                at = codec.parse_ts(str(last[1])) + timedelta(microseconds=1)
            ref = f"{self.desk_id}-P{seq:06d}"
            values = (new.operator, *_texts(clean), new.card_type, new.price_cents)
            conn.execute(_INSERT, (seq, ref, codec.ts(at), *values))
        made = self.entry(ref)
        assert made is not None
        return made

    def mark_sending(self, seq: int, floor: int) -> None:
        """Before the server is asked: a re-run will look the voucher up above ``floor``."""
        self._write(
            "UPDATE offline_vouchers SET state = 'SENDING', floor = ? "
            "WHERE seq = ? AND state <> 'FORMALISED'",
            (floor, seq),
        )

    def mark_formalised(self, seq: int, server_number: int, at: datetime) -> None:
        self._write(
            "UPDATE offline_vouchers SET state = 'FORMALISED', server_number = ?, "
            "formalised_at = ? WHERE seq = ? AND state <> 'FORMALISED'",
            (server_number, codec.ts(at), seq),
        )

    def purge_formalised(self, cutoff: datetime) -> int:
        """Erase formalised entries issued before ``cutoff`` (R3: the server keeps the
        voucher, with its own retention). Pending entries are never erased."""
        erased = self._write(
            "DELETE FROM offline_vouchers WHERE state = 'FORMALISED' AND issued_at < ?",
            (codec.ts(cutoff),),
        )
        self._checkpoint()
        return erased

    def pending(self) -> list[QueuedVoucher]:
        """Entries not yet formalised, in local order (the closing list: documents and
        money held against a voucher with no server number yet)."""
        return self._select("state <> 'FORMALISED'", ())

    def entry(self, local_ref: str) -> QueuedVoucher | None:
        found = self._select("local_ref = ?", (local_ref,))
        return found[0] if found else None

    def floor_of(self, seq: int) -> int | None:
        rows = self._rows("SELECT floor FROM offline_vouchers WHERE seq = ?", (seq,))
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    def highest_server_number(self) -> int:
        return int(self._rows("SELECT max(server_number) FROM offline_vouchers")[0][0] or 0)

    def _select(self, where: str, args: tuple[object, ...]) -> list[QueuedVoucher]:
        sql = f"SELECT {_COLUMNS} FROM offline_vouchers WHERE {where} ORDER BY seq"
        return [_entry(row, self.desk_id) for row in self._rows(sql, args)]

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._check_open()
            with _transaction(self._conn, self._path, "queue write failed") as conn:
                yield conn

    def _write(self, sql: str, args: tuple[object, ...]) -> int:
        with self._tx() as conn:
            return int(conn.execute(sql, args).rowcount)

    def _rows(self, sql: str, args: tuple[object, ...] = ()) -> list[Any]:
        with self._lock:
            self._check_open()
            try:
                return self._conn.execute(sql, args).fetchall()
            except DB_ERRORS as exc:
                raise store_error(
                    exc, StoreErrorCode.READ_FAILED, "queue read failed", self._path
                ) from exc

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the voucher queue is closed", code=StoreErrorCode.STORE_CLOSED)


def _transaction(
    conn: sqlite3.Connection, path: Path, failed: str
) -> contextlib.AbstractContextManager[sqlite3.Connection]:
    """One write of the queue: STORE_BUSY when it cannot begin, else WRITE_FAILED."""
    return immediate_transaction(
        conn,
        busy=lambda exc: store_error(exc, StoreErrorCode.STORE_BUSY, "queue busy"),
        failed=lambda exc: store_error(exc, StoreErrorCode.WRITE_FAILED, failed, path),
    )


def _hold_lock(path: Path) -> int:
    try:
        fd = os.open(path.with_name(path.name + ".lock"), os.O_CREAT | os.O_RDWR, 0o600)
    except OSError as exc:
        raise StoreError(
            "cannot open the queue's lock file", code=StoreErrorCode.OPEN_FAILED
        ) from exc
    try:
        lock_exclusively(fd, wait=False)
    except OSError as exc:
        os.close(fd)
        raise StoreError(
            "another process holds the voucher queue", code=OfflineQueueCode.OFFLINE_QUEUE_IN_USE
        ) from exc
    return fd


def _prepare(conn: sqlite3.Connection, path: Path, desk_id: str) -> None:
    """Pragmas (as db/connection.py ``configure``, which would also run the visitor
    file's migrations), the schema on a new file, the desk."""
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("PRAGMA secure_delete = ON")  # R3: erased rows zeroed
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError("cannot switch the queue to WAL", code=StoreErrorCode.OPEN_FAILED)
        # FULL: a voucher handed to a visitor must survive a power cut (art. 23.4)
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA temp_store = MEMORY")
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                "the queue was written by a newer program",
                code=OfflineQueueCode.OFFLINE_QUEUE_NEWER,
            )
        if version == 0:
            with _transaction(conn, path, "queue creation failed"):
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO queue_meta (id, desk_id, created_at) "
                    "VALUES (1, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                    (desk_id,),
                )
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        found = conn.execute("SELECT desk_id FROM queue_meta WHERE id = 1").fetchone()
    except DB_ERRORS as exc:
        raise store_error(
            exc, StoreErrorCode.OPEN_FAILED, "cannot prepare the queue", path
        ) from exc
    if found is None or str(found[0]) != desk_id:
        raise StoreError(
            "the voucher queue belongs to another desk",
            code=OfflineQueueCode.OFFLINE_QUEUE_OTHER_DESK,
        )


def _texts(voucher: NewVoucher | Voucher) -> tuple[str, str, str]:
    """The texts the voucher book cleans (art. 23.4)."""
    return voucher.holder_name, voucher.document_type, voucher.document_number


def _entry(row: Sequence[Any], desk_id: str) -> QueuedVoucher:
    seq, ref, issued, *texts, price, state, server_number, formalised = row
    operator, holder, doc_type, doc_number, card_type = map(str, texts)
    at = codec.parse_ts(str(issued))
    voucher = NewVoucher(at, desk_id, operator, holder, doc_type, doc_number, card_type, int(price))
    return QueuedVoucher(
        seq=int(seq),
        local_ref=str(ref),
        voucher=voucher,
        state=QueueState(str(state)),
        server_number=None if server_number is None else int(server_number),
        formalised_at=codec.parse_opt_ts(None if formalised is None else str(formalised)),
    )


ServerVoucherBook = VoucherBook  # the server's, which formalise() issues on


def formalise(
    queue: OfflineVoucherQueue,
    book: ServerVoucherBook,
    clock: Clock,
    *,
    on_progress: Callable[[QueuedVoucher], None] | None = None,
) -> FormaliseReport:
    """Issue every pending voucher on the server's ``book``, in local order, each exactly
    once even after an interrupted run; the first failure stops it (later vouchers wait,
    so the server numbers follow the order given). One run at a time per queue: a second
    returns at once with everything waiting. ``on_progress``: each entry formalised."""
    if not queue.formalising.acquire(blocking=False):
        return FormaliseReport(waiting=tuple(e.local_ref for e in queue.pending()))
    try:
        done: list[tuple[str, int]] = []
        found: list[tuple[str, int]] = []
        duplicates: list[int] = []
        pending = queue.pending()
        for i, entry in enumerate(pending):
            try:
                number, recovered = _formalise_one(queue, book, clock, entry, duplicates)
            except AdmissionError as exc:
                code = exc.code or OfflineQueueCode.OFFLINE_VOUCHER_NOT_FORMALISED
                log.warning("offline voucher %s not formalised: %s", entry.local_ref, code)
                return FormaliseReport(
                    tuple(done),
                    tuple(found),
                    ((entry.local_ref, code),),
                    tuple(e.local_ref for e in pending[i + 1 :]),
                    tuple(duplicates),
                )
            (found if recovered else done).append((entry.local_ref, number))
            if on_progress is not None:
                on_progress(entry)
        return FormaliseReport(tuple(done), tuple(found), duplicates_cancelled=tuple(duplicates))
    finally:
        queue.formalising.release()


def _formalise_one(
    queue: OfflineVoucherQueue,
    book: ServerVoucherBook,
    clock: Clock,
    entry: QueuedVoucher,
    duplicates: list[int],
) -> tuple[int, bool]:
    """The entry's server number, and whether it was already on the server."""
    resend = entry.state is QueueState.SENDING
    if resend:
        # an earlier run sent it and did not record the answer: look before resending
        on_server = _look_up(book, entry, queue.floor_of(entry.seq) or 0)
        if on_server is not None:
            queue.mark_formalised(entry.seq, on_server.number, clock.now())
            return on_server.number, True
    floor = _floor(book, queue)
    queue.mark_sending(entry.seq, floor)
    issued = book.issue_voucher(entry.voucher)
    # The earlier send may have been committing while we looked (holding the voucher
    # counter): it is numbered below ours and keeps its number; ours is cancelled, first,
    # with a reason, so the sequence stays gapless and no number serves twice (art. 23.4).
    if resend:
        first = _find(book, entry.voucher, range(floor + 1, issued.number))
        if first is not None:
            book.cancel_voucher(
                issued.number,
                f"Duplicado del volante nº {first.number} al formalizar el volante "
                f"provisional {entry.local_ref} (art. 23.4)",
                clock.now(),
            )
            duplicates.append(issued.number)
            queue.mark_formalised(entry.seq, first.number, clock.now())
            return first.number, True
    queue.mark_formalised(entry.seq, issued.number, clock.now())
    return issued.number, False


def _floor(book: ServerVoucherBook, queue: OfflineVoucherQueue) -> int:
    """Every voucher issued from now on is numbered above this: the book's
    ``last_voucher_number()`` when it has one, else the highest number this queue saw."""
    last = getattr(book, "last_voucher_number", None)
    return int(last()) if callable(last) else queue.highest_server_number()


def _look_up(book: ServerVoucherBook, entry: QueuedVoucher, floor: int) -> Voucher | None:
    """The server's voucher for ``entry``, if it was issued: the numbers above ``floor``
    (gapless: the first missing one ends the walk), then the open vouchers."""
    numbers = range(floor + 1, floor + _SCAN_LIMIT + 1)
    found = _find(book, entry.voucher, numbers, gapless=True)
    return found or next((v for v in book.open_vouchers() if _same(v, entry.voucher)), None)


def _find(
    book: ServerVoucherBook, new: NewVoucher, numbers: range, *, gapless: bool = False
) -> Voucher | None:
    for number in numbers:
        candidate = book.voucher(number)
        if candidate is not None and _same(candidate, new):
            return candidate
        if candidate is None and gapless:
            break
    return None


def _same(found: Voucher, new: NewVoucher) -> bool:
    clean = new.numbered(found.number)
    return _texts(found) == _texts(clean) and all(
        getattr(found, name) == getattr(clean, name)
        for name in ("desk_id", "issued_at", "operator", "card_type", "price_cents")
    )

"""Provisional vouchers given while the server cannot be reached (volantes provisionales,
art. 23.4, R11), kept in a small encrypted queue on the desk until the server is back.

A desk of a shared server (arts. 154-155, R17) admits nobody on its own when the server
is unreachable: the card sequence is one and gapless for the operating unit (art. 22.1),
so no card number can be taken locally. Art. 23.4 lets the desk hand the visitor a
provisional voucher against the deposit of the document and of the price, the card being
formalised later. Such a voucher cannot take a server voucher number either, so it gets a
**local provisional reference** - ``<desk>-P<000001>``, the desk's id and a gapless local
sequence, never a bare number that could be mistaken for a server voucher number - and
waits here. :func:`formalise` later issues each one on the
server's voucher book, in order and exactly once; the queue then keeps the server number
against the local reference.

The file: SQLCipher 4 (db/connection.py ``connect_encrypted``), its own schema (not the
visitor file's migrations), WAL with ``synchronous = FULL``: every write is one
transaction, fsync'd at commit, and a process killed mid-write leaves the queue as it
was before or after that write, readable. ``secure_delete`` on (R3). One process holds
the file at a time (an exclusive ``flock`` on ``<file>.lock``).

Key (:func:`queue_key`): derived from the desk's own key (``db.keys.resolve_key``: the
visitor file's key, or the key from which a server desk derives its installation key).
A raw key gives HMAC-SHA256(key, label): the queue never shares the AES key of the
visitor file nor of the server's key hierarchy. A passphrase is used as it is: SQLCipher
stretches it (PBKDF2-HMAC-SHA512) with the queue file's own random salt, so the two
files' keys differ.

Idempotency of :func:`formalise`: before the server is asked, the
entry is marked SENDING (committed) with the server's last voucher number at that moment
(``floor``). A re-run that finds an entry SENDING looks for its voucher on the server
before issuing it again: the vouchers numbered above ``floor`` (gapless: the walk ends
at the first missing number) and the open vouchers are compared with the entry field by
field (desk, instant of issue to the microsecond, operator, holder, document, card type,
price). The queue makes each entry's instant unique on the desk, so the comparison
identifies it. When it is resent, the numbers between ``floor`` and the new one are
looked at again: a first send whose commit was still under way during the lookup held
the voucher counter, so it is numbered below; the new copy is then cancelled with a
reason (the sequence stays gapless, the holder keeps the first number).

This is an approximation: the server's voucher table has no column for the local
reference. A ``local_ref`` column with a UNIQUE constraint, written in the issuing
transaction (``issue_voucher(new, local_ref=...)`` returning the existing voucher on a
conflict), would make the issue idempotent by construction, as ``admission_id`` does for
admissions (db/pg/store.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from enum import unique
from pathlib import Path
from typing import Any, Protocol

from admission.codes import Code
from admission.errors import AdmissionError, StoreError, StoreErrorCode
from admission.ports import Clock
from admission.vouchers.model import NewVoucher, Voucher
from admission.vouchers.offline import FormaliseReport, QueuedVoucher, QueueState
from db import codec
from db.connection import DB_ERRORS, connect_encrypted, immediate_transaction, store_error
from db.keys import DbKey

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: the single-process rule is the caller's
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "OfflineQueueCode",
    "OfflineVoucherQueue",
    "ServerVoucherBook",
    "formalise",
    "queue_key",
]

log = logging.getLogger("admission.db.offline_queue")
SCHEMA_VERSION = 1
_KEY_LABEL = b"admission-desk/offline-voucher-queue/v1"
_MAX_DESK_ID = 16
_SCAN_LIMIT = 100_000  # vouchers above the floor looked at before giving up (bounded)


@unique
class OfflineQueueCode(Code):
    """What the offline voucher queue and its formalisation answer (art. 23.4)."""

    OFFLINE_QUEUE_OTHER_DESK = "OFFLINE_QUEUE_OTHER_DESK"  # the file is another desk's queue
    OFFLINE_QUEUE_IN_USE = "OFFLINE_QUEUE_IN_USE"  # another process holds the queue
    OFFLINE_QUEUE_NEWER = "OFFLINE_QUEUE_NEWER"  # written by a newer program
    OFFLINE_QUEUE_BAD_DESK = "OFFLINE_QUEUE_BAD_DESK"  # desk id empty, too long or odd
    OFFLINE_QUEUE_WRONG_VOUCHER_DESK = "OFFLINE_QUEUE_WRONG_VOUCHER_DESK"  # not this desk's
    # the server did not take the voucher (link lost, refused): it stays queued
    OFFLINE_VOUCHER_NOT_FORMALISED = "OFFLINE_VOUCHER_NOT_FORMALISED"


def queue_key(desk_key: DbKey) -> DbKey:
    """The queue's key from the desk's key (see the module's docstring)."""
    if desk_key.is_raw:
        raw = bytes.fromhex(desk_key.hex())
        derived = hmac.new(raw, _KEY_LABEL, hashlib.sha256).digest()
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
_COLUMNS = (
    "seq, local_ref, issued_at, operator, holder_name, document_type, document_number, "
    "card_type, price_cents, state, server_number, formalised_at"
)


class OfflineVoucherQueue(contextlib.AbstractContextManager["OfflineVoucherQueue"]):
    """The desk's queue of provisional vouchers awaiting the server (art. 23.4).

    Thread-safe (one connection under a lock); one process at a time."""

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
        """Open (``create``: or make) the desk's queue file with ``queue_key(desk key)``.

        Raises StoreError: NO_FILE, WrongKeyError (the file is left untouched),
        CORRUPT_FILE, OFFLINE_QUEUE_OTHER_DESK, OFFLINE_QUEUE_IN_USE, OFFLINE_QUEUE_NEWER,
        OFFLINE_QUEUE_BAD_DESK."""
        if not desk_id or len(desk_id) > _MAX_DESK_ID or not desk_id.isprintable():
            raise StoreError("bad desk id", code=OfflineQueueCode.OFFLINE_QUEUE_BAD_DESK)
        path = Path(path)
        lock_fd = _hold_lock(path)
        try:
            conn = connect_encrypted(path, key, create=create)
        except BaseException:
            os.close(lock_fd)
            raise
        try:
            _prepare(conn, path, desk_id)
        except BaseException:
            conn.close()
            os.close(lock_fd)
            raise
        return cls(conn, path, desk_id, lock_fd)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(*DB_ERRORS):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
            os.close(self._lock_fd)

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------

    def enqueue(self, new: NewVoucher) -> QueuedVoucher:
        """Record a provisional voucher given while the server is unreachable; returns it
        with its local reference (to print). Committed and fsync'd when this returns.

        The instant is the desk clock's, moved on by microseconds when it is not later
        than the previous entry's, so that it identifies the voucher on the server."""
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
            conn.execute(
                "INSERT INTO offline_vouchers (seq, local_ref, issued_at, operator, "
                "holder_name, document_type, document_number, card_type, price_cents, state) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'QUEUED')",
                (
                    seq,
                    ref,
                    codec.ts(at),
                    new.operator,
                    clean.holder_name,
                    clean.document_type,
                    clean.document_number,
                    new.card_type,
                    new.price_cents,
                ),
            )
        made = self.entry(ref)
        assert made is not None
        return made

    def mark_sending(self, seq: int, floor: int) -> None:
        """Before the server is asked: a re-run will look the voucher up above ``floor``."""
        with self._tx() as conn:
            conn.execute(
                "UPDATE offline_vouchers SET state = 'SENDING', floor = ? "
                "WHERE seq = ? AND state <> 'FORMALISED'",
                (floor, seq),
            )

    def mark_formalised(self, seq: int, server_number: int, at: datetime) -> None:
        """The server holds this voucher under ``server_number``."""
        with self._tx() as conn:
            conn.execute(
                "UPDATE offline_vouchers SET state = 'FORMALISED', server_number = ?, "
                "formalised_at = ? WHERE seq = ? AND state <> 'FORMALISED'",
                (server_number, codec.ts(at), seq),
            )

    def purge_formalised(self, cutoff: datetime) -> int:
        """Erase formalised entries issued before ``cutoff`` (R3: the server keeps the
        voucher, with its own retention). Pending entries are never erased."""
        with self._tx() as conn:
            cur = conn.execute(
                "DELETE FROM offline_vouchers WHERE state = 'FORMALISED' AND issued_at < ?",
                (codec.ts(cutoff),),
            )
            erased = int(cur.rowcount)
        with self._lock, contextlib.suppress(*DB_ERRORS):
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # no erased row in the WAL
        return erased

    # -- reading -----------------------------------------------------------------------------

    def entries(self) -> list[QueuedVoucher]:
        """Every entry, in local order."""
        return self._select("1 = 1", ())

    def pending(self) -> list[QueuedVoucher]:
        """Entries not yet formalised on the server, in local order (the closing list:
        documents and money held against a voucher with no server number yet)."""
        return self._select("state <> 'FORMALISED'", ())

    def entry(self, local_ref: str) -> QueuedVoucher | None:
        found = self._select("local_ref = ?", (local_ref,))
        return found[0] if found else None

    def floor_of(self, seq: int) -> int | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT floor FROM offline_vouchers WHERE seq = ?", (seq,)
            ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def highest_server_number(self) -> int:
        with self._read() as conn:
            row = conn.execute("SELECT max(server_number) FROM offline_vouchers").fetchone()
        return int(row[0] or 0)

    def _select(self, where: str, args: tuple[object, ...]) -> list[QueuedVoucher]:
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM offline_vouchers WHERE {where} ORDER BY seq", args
            ).fetchall()
        return [_entry(row, self.desk_id) for row in rows]

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._check_open()
            with _transaction(self._conn, self._path, "queue write failed") as conn:
                yield conn

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._check_open()
            try:
                yield self._conn
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
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o600)
    except OSError as exc:
        raise StoreError(
            "cannot open the queue's lock file", code=StoreErrorCode.OPEN_FAILED
        ) from exc
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            raise StoreError(
                "another process holds the voucher queue",
                code=OfflineQueueCode.OFFLINE_QUEUE_IN_USE,
            ) from exc
    return fd


def _prepare(conn: sqlite3.Connection, path: Path, desk_id: str) -> None:
    """Pragmas (as db/connection.py ``configure``), the schema on a new file, the desk."""
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
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
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


def _entry(row: Sequence[Any], desk_id: str) -> QueuedVoucher:
    (seq, ref, issued, operator, holder, doc_type, doc_number) = row[:7]
    (card_type, price, state, server_number, formalised) = row[7:12]
    return QueuedVoucher(
        seq=int(seq),
        local_ref=str(ref),
        voucher=NewVoucher(
            issued_at=codec.parse_ts(str(issued)),
            desk_id=desk_id,
            operator=str(operator),
            holder_name=str(holder),
            document_type=str(doc_type),
            document_number=str(doc_number),
            card_type=str(card_type),
            price_cents=int(price),
        ),
        state=QueueState(str(state)),
        server_number=None if server_number is None else int(server_number),
        formalised_at=codec.parse_opt_ts(None if formalised is None else str(formalised)),
    )


# -- formalisation on the server once it is back (arts. 154-155) -----------------------


class ServerVoucherBook(Protocol):
    """What :func:`formalise` needs of the server's book: the ``VoucherBook`` port's
    ``issue_voucher``, ``voucher``, ``open_vouchers`` and ``cancel_voucher``
    (db/voucher_book.py's ``StoreVoucherBook``). A ``last_voucher_number()`` method, when
    the book has one (``StoreVoucherBook`` has), bounds the lookup after an interruption."""

    def issue_voucher(self, new: NewVoucher) -> Voucher: ...

    def voucher(self, number: int) -> Voucher | None: ...

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]: ...

    def cancel_voucher(self, number: int, reason: str, at: datetime) -> Voucher: ...


def formalise(
    queue: OfflineVoucherQueue,
    book: ServerVoucherBook,
    clock: Clock,
    *,
    on_progress: Callable[[QueuedVoucher], None] | None = None,
) -> FormaliseReport:
    """Issue every pending voucher of ``queue`` on the server's ``book``, in local order,
    each exactly once, even when a previous run was interrupted (see the module's
    docstring). Stops at the first failure: later vouchers wait, so the server numbers
    follow the order the vouchers were given. Safe to call again at any time; one run
    at a time per queue (a second concurrent call returns at once with everything
    waiting). ``on_progress`` is told of each entry once it is formalised."""
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
    if resend:
        # The earlier send may have been committing while we looked (its transaction
        # still held the voucher counter): it is then numbered below ours. The voucher
        # the holder was first given keeps its number; ours is cancelled with a reason,
        # so the sequence stays gapless and no number serves twice (art. 23.4).
        first = _earlier_copy(book, entry, floor, issued.number)
        if first is not None:
            # cancelled first: a run stopped between the two finds the first copy (the
            # lower number) by its lookup
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


def _earlier_copy(
    book: ServerVoucherBook, entry: QueuedVoucher, floor: int, issued: int
) -> Voucher | None:
    for number in range(floor + 1, issued):
        candidate = book.voucher(number)
        if candidate is not None and _same(candidate, entry.voucher):
            return candidate
    return None


def _floor(book: ServerVoucherBook, queue: OfflineVoucherQueue) -> int:
    """Every voucher issued from now on is numbered above this."""
    last = getattr(book, "last_voucher_number", None)
    if callable(last):
        return int(last())
    # a book that cannot tell: at least the highest number this queue saw
    return queue.highest_server_number()


def _look_up(book: ServerVoucherBook, entry: QueuedVoucher, floor: int) -> Voucher | None:
    """The server's voucher for ``entry``, if it was issued: the numbers above ``floor``
    (gapless: the first missing one ends the walk), then the open vouchers."""
    number = floor + 1
    while number <= floor + _SCAN_LIMIT:
        candidate = book.voucher(number)
        if candidate is None:
            break
        if _same(candidate, entry.voucher):
            return candidate
        number += 1
    for candidate in book.open_vouchers():
        if _same(candidate, entry.voucher):
            return candidate
    return None


def _same(found: Voucher, new: NewVoucher) -> bool:
    clean = new.numbered(found.number)
    return (
        found.desk_id == clean.desk_id
        and found.issued_at == clean.issued_at
        and found.operator == clean.operator
        and found.holder_name == clean.holder_name
        and found.document_type == clean.document_type
        and found.document_number == clean.document_number
        and found.card_type == clean.card_type
        and found.price_cents == clean.price_cents
    )

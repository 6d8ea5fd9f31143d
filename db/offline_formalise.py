"""Formalising the provisional vouchers of the desk's offline queue (art. 23.4, R11) on
the server's voucher book once it is back (arts. 154-155): each issued in order and
exactly once. The queue itself, and how a re-run finds a voucher an interrupted run
issued: :mod:`db.offline_queue`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from admission.errors import AdmissionError
from admission.ports import Clock
from admission.vouchers.model import NewVoucher, Voucher
from admission.vouchers.offline import FormaliseReport, QueuedVoucher, QueueState
from db.offline_queue import OfflineQueueCode, OfflineVoucherQueue

__all__ = ["ServerVoucherBook", "formalise"]

log = logging.getLogger("admission.db.offline_queue")
_SCAN_LIMIT = 100_000  # vouchers above the floor looked at before giving up (bounded)


class ServerVoucherBook(Protocol):
    """What :func:`formalise` needs of the server's book: the ``VoucherBook`` port's
    ``issue_voucher``, ``voucher``, ``open_vouchers`` and ``cancel_voucher``
    (db/voucher_book.py's ``StoreVoucherBook``). A ``last_voucher_number()`` method, when
    the book has one (``StoreVoucherBook`` has), bounds the lookup after an interruption."""

    def issue_voucher(self, new: NewVoucher) -> Voucher: ...

    def voucher(self, number: int) -> Voucher | None: ...

    def open_vouchers(self, issued_before: datetime | None = None) -> Sequence[Voucher]: ...

    def cancel_voucher(self, number: int, reason: str, at: datetime) -> Voucher: ...


# -- formalisation ---------------------------------------------------------------------------


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
        return _run(queue, book, clock, on_progress)
    finally:
        queue.formalising.release()


def _run(
    queue: OfflineVoucherQueue,
    book: ServerVoucherBook,
    clock: Clock,
    on_progress: Callable[[QueuedVoucher], None] | None,
) -> FormaliseReport:
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

"""Provisional vouchers given while the server cannot be reached (art. 23.4, R11): the
port of the desk's offline queue and what it answers.

A desk of a shared server (arts. 154-155) takes no card number while the server is
away (art. 22.1: one gapless sequence); it hands the visitor a provisional voucher with
a local reference (``<desk>-P000001``), queued on the desk and formalised on the
server's voucher book, in order and once, when it answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from admission.codes import Code
from admission.vouchers.model import NewVoucher

__all__ = ["FormaliseReport", "OfflineVouchers", "QueueState", "QueuedVoucher"]


class QueueState(StrEnum):
    QUEUED = "QUEUED"  # given to the visitor, not yet sent to the server
    SENDING = "SENDING"  # sent (or about to be): its outcome is looked up before a resend
    FORMALISED = "FORMALISED"  # on the server, with its server voucher number


@dataclass(frozen=True, slots=True)
class QueuedVoucher:
    """One provisional voucher of the queue. ``voucher.desk_id`` is this desk."""

    seq: int  # the desk's local sequence: 1, 2, 3... never a server number
    local_ref: str  # printed on the provisional voucher: "<desk>-P000001"
    voucher: NewVoucher
    state: QueueState
    server_number: int | None = None
    formalised_at: datetime | None = None

    def __repr__(self) -> str:  # no name or document number in logs
        return f"QueuedVoucher({self.local_ref}, {self.state}, server={self.server_number})"


@dataclass(frozen=True, slots=True)
class FormaliseReport:
    """What one run of the formalisation did, each list in local order."""

    formalised: tuple[tuple[str, int], ...] = ()  # (local ref, server number) issued now
    # (local ref, server number) found on the server: issued by an interrupted run
    already_formalised: tuple[tuple[str, int], ...] = ()
    failed: tuple[tuple[str, Code], ...] = ()  # (local ref, code): stays queued
    waiting: tuple[str, ...] = ()  # not tried: an earlier one failed
    # server numbers issued twice for one queued voucher (an earlier send committed
    # while this run looked for it) and cancelled with a reason: rare, shown to the
    # game director
    duplicates_cancelled: tuple[int, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.failed and not self.waiting


class OfflineVouchers(Protocol):
    """The provisional vouchers of art. 23.4 a desk of the server gives while the server
    cannot be reached: recorded in the desk's encrypted queue with a local reference,
    formalised on the server's voucher book, in order and once, when it answers."""

    def issue(self, new: NewVoucher) -> QueuedVoucher: ...

    def pending(self) -> list[QueuedVoucher]: ...

    def formalise(self) -> FormaliseReport: ...

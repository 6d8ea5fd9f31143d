"""The retention sweep (art. 20.4, R3): what the app erases after six months, and when.

The visitor file erases its own rows (``Retention``); the sweep adds what lives beside
them and holds the same personal data: closed provisional vouchers (a name and a
document number, art. 23.4) and the card PDFs of the cards this purge erased - exactly
those, named by the purge's report, never "every file whose card is not in the file"
(an emptied or replaced file would have taken every PDF with it). It runs at start-up
and daily (:meth:`RetentionSweep.purge_if_due`), and on demand (``purge``). A damaged
visitor file takes no writes, so the daily run waits until it is restored.

A clock that cannot be trusted destroys nothing. The automatic run always reads the
system clock, never an instant given by hand. And a purge whose cutoff runs more than
:data:`SUSPECT_GAP` ahead of the six months before the newest event in the file would
erase visits a clock jump made old: it is refused (``SUSPECT_CLOCK``) and the refusal
is audited. After a real closure that long, the game director confirms the date
(``purge --confirm-clock``), also audited.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from typing import Protocol

from admission.clock import ClockCode
from admission.errors import InvalidStateError
from admission.ports import AuditTrail, Clock
from admission.records import PurgeReport
from admission.retention import RETENTION_MONTHS, purge_due, retention_cutoff

__all__ = [
    "LAST_PURGE",
    "SUSPECT_GAP",
    "CardArchive",
    "PurgeStamps",
    "RetentionSweep",
    "VoucherPurge",
]

LAST_PURGE = "retention.last_purge"  # the visitor file's setting: when the sweep last ran
# How far the clock may run ahead of the newest event before a purge is suspect: more
# than a casino's usual days closed, far less than a mistyped year or a clock reset.
SUSPECT_GAP = timedelta(days=14)


class VoucherPurge(Protocol):
    def purge_vouchers(self, cutoff: datetime) -> int: ...


class CardArchive(Protocol):
    """Card files kept outside the visitor file (the PDF folder)."""

    def sweep(self, purged: Collection[int]) -> int:
        """Delete the files of the cards ``purged`` (and stray temporary files left by an
        interrupted write); return how many were deleted."""
        ...


class PurgeStamps(AuditTrail, Protocol):
    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...

    @property
    def damaged(self) -> bool:
        """The visitor file is damaged: it takes no writes until restored."""
        ...

    def newest_event(self) -> datetime | None: ...


class RetentionSweep:
    """Erase what is past retention: the file's rows, closed vouchers, the files of the
    cards erased; and remember when, so that the daily run is not repeated."""

    def __init__(
        self,
        purge_file: Callable[[datetime], PurgeReport],
        store: PurgeStamps,
        vouchers: VoucherPurge,
        card_files: CardArchive,
        clock: Clock,
        system_clock: Clock,
        months: int = RETENTION_MONTHS,
        automatic: Callable[[], bool] = lambda: True,
    ) -> None:
        self._purge_file = purge_file  # erases the file's rows older than a cutoff
        # this desk runs the daily purge itself: on a shared server only the desks
        # admitted to the purge do; the others leave it to them
        self._automatic = automatic
        self._store = store
        self._vouchers = vouchers
        self._files = card_files
        self._clock = clock  # the command's: ``purge --at`` (tests, replays)
        self._system_clock = system_clock  # the automatic run's, always
        self._months = months

    def purge(
        self, *, confirm_clock: bool = False, actor: str = "system", now: datetime | None = None
    ) -> PurgeReport:
        """Erase what is older than six months before ``now`` (the command's clock by
        default). Raises InvalidStateError(SUSPECT_CLOCK), audited, when the clock runs
        ahead of the file, unless ``confirm_clock``."""
        now = now or self._clock.now()
        cutoff = retention_cutoff(now, self._months)
        newest = self._store.newest_event()
        if newest is not None and cutoff - retention_cutoff(newest, self._months) > SUSPECT_GAP:
            details = {"cutoff": cutoff.isoformat(), "newest_event": newest.isoformat()}
            if not confirm_clock:
                self._store.append(actor, "PURGE_REFUSED", ClockCode.SUSPECT_CLOCK, now, details)
                raise InvalidStateError(
                    f"the clock is {now - newest} ahead of the newest event in the file",
                    code=ClockCode.SUSPECT_CLOCK,
                )
            self._store.append(actor, "PURGE_CLOCK_CONFIRMED", "clock", now, details)
        report = self._purge_file(cutoff)
        self._store.set_setting(LAST_PURGE, now.isoformat())
        # Closed provisional vouchers carry a name and a document number (art. 23.4).
        self._vouchers.purge_vouchers(report.cutoff)
        self._files.sweep(report.purged_cards)
        return report

    def purge_if_due(self) -> PurgeReport | None:
        """At start-up and daily, on the system clock: any command that opens the file
        calls this. Not on a damaged file (it erases nothing until restored, and stays
        readable meanwhile), and not on a suspect clock (refused and audited, once a
        day: the refusal counts as the day's run)."""
        if self._store.damaged or not self._automatic():
            return None
        now = self._system_clock.now()
        stamp = self._store.get_setting(LAST_PURGE)
        last = datetime.fromisoformat(stamp) if stamp else None
        if not purge_due(last, now):
            return None
        try:
            return self.purge(now=now)
        except InvalidStateError as refused:
            if refused.code is not ClockCode.SUSPECT_CLOCK:
                raise
            self._store.set_setting(LAST_PURGE, now.isoformat())
            return None

"""The retention sweep (art. 20.4, R3): what the app erases after six months, and when.

The visitor file erases its own rows (``Retention``); the sweep adds what lives beside
them and holds the same personal data: closed provisional vouchers (a name and a
document number, art. 23.4) and the card PDFs of the cards this purge erased - exactly
those, named by the purge's report, never "every file whose card is not in the file"
(an emptied or replaced file would have taken every PDF with it). It runs at start-up
and daily (:meth:`RetentionSweep.purge_if_due`), and on demand (``purge``). A damaged
visitor file takes no writes, so the daily run waits until it is restored.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime
from typing import Protocol

from admission.ports import Clock
from admission.records import PurgeReport
from admission.retention import purge_due

__all__ = ["LAST_PURGE", "CardArchive", "PurgeStamps", "RetentionSweep", "VoucherPurge"]

LAST_PURGE = "retention.last_purge"  # the visitor file's setting: when the sweep last ran


class VoucherPurge(Protocol):
    def purge_vouchers(self, cutoff: datetime) -> int: ...


class CardArchive(Protocol):
    """Card files kept outside the visitor file (the PDF folder)."""

    def sweep(self, purged: Collection[int]) -> int:
        """Delete the files of the cards ``purged`` (and stray temporary files left by an
        interrupted write); return how many were deleted."""
        ...


class PurgeStamps(Protocol):
    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...

    @property
    def damaged(self) -> bool:
        """The visitor file is damaged: it takes no writes until restored."""
        ...


class RetentionSweep:
    """Erase what is past retention: the file's rows, closed vouchers, the files of the
    cards erased; and remember when, so that the daily run is not repeated."""

    def __init__(
        self,
        purge_file: Callable[[], PurgeReport],
        store: PurgeStamps,
        vouchers: VoucherPurge,
        card_files: CardArchive,
        clock: Clock,
    ) -> None:
        self._purge_file = purge_file
        self._store = store
        self._vouchers = vouchers
        self._files = card_files
        self._clock = clock

    def purge(self) -> PurgeReport:
        report = self._purge_file()
        self._store.set_setting(LAST_PURGE, self._clock.now().isoformat())
        # Closed provisional vouchers carry a name and a document number (art. 23.4).
        self._vouchers.purge_vouchers(report.cutoff)
        self._files.sweep(report.purged_cards)
        return report

    def purge_if_due(self) -> PurgeReport | None:
        """At start-up and daily: any command that opens the file calls this. Not on a
        damaged file: it erases nothing until restored, and stays readable meanwhile."""
        if self._store.damaged:
            return None
        stamp = self._store.get_setting(LAST_PURGE)
        last = datetime.fromisoformat(stamp) if stamp else None
        if purge_due(last, self._clock.now()):
            return self.purge()
        return None

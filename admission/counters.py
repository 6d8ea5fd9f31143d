"""The desk's counters: admissions today and in the last hour, cards valid now.

The numbers shown on the desk window's counters panel (art. 20.3: the visits of the
day are the visitor file's; art. 22: the cards valid now). The file answers them
(``db.reports.desk_counters``); the window receives a :class:`CounterReader` built by the
composition root and never opens the file itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

__all__ = ["CounterReader", "DeskCounters"]


@dataclass(frozen=True, slots=True)
class DeskCounters:
    admitted_today: int  # visits recorded as ADMIT since Madrid midnight
    admitted_last_hour: int
    cards_valid_now: int  # not voided, today within validity (art. 22)


class CounterReader(Protocol):
    """The counters at ``now`` (a read of the visitor file: run it off the GUI thread)."""

    def __call__(self, now: datetime) -> DeskCounters: ...

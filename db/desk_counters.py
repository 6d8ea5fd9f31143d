"""The desk's counters read from the visitor file (``admission.counters.DeskCounters``),
for the counters panel of the desk window, written once over both dialects (db/tx.py).

On the server every desk of the operating unit (arts. 154-155) counts the whole unit's
visits: the visits of the day are the one visitor file's (art. 20.3), the cards valid now
are the one card sequence's (art. 22). Three counts over clear columns in one statement
(``visits_by_at``; the card table holds about six months of cards, art. 20.4): nothing
is opened.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from admission.counters import DeskCounters
from admission.ports import madrid_date, madrid_day_start
from db.tx import Tx

__all__ = ["DeskCounters", "desk_counters"]
T = TypeVar("T")


class Reads(Protocol):
    def read(self, work: Callable[[Any], T]) -> T: ...


def counts(tx: Tx, now: datetime) -> DeskCounters:
    """Admissions since Madrid midnight and in the last hour (both up to ``now``
    inclusive), and the cards not voided whose validity holds today."""
    today = madrid_date(now)
    midnight, hour_ago = madrid_day_start(today), now - timedelta(hours=1)
    row = tx.one(
        "SELECT count(*) FILTER (WHERE at >= ?), count(*) FILTER (WHERE at >= ?), "
        "(SELECT count(*) FROM cards WHERE status <> 'VOIDED' AND valid_from <= ? "
        "AND valid_until >= ?) FROM visits WHERE at >= ? AND at <= ? AND verdict = 'ADMIT'",
        (
            tx.ts(midnight),
            tx.ts(hour_ago),
            tx.day(today),
            tx.day(today),
            tx.ts(min(midnight, hour_ago)),
            tx.ts(now),
        ),
    )
    assert row is not None
    return DeskCounters(int(row[0]), int(row[1]), int(row[2]))


def desk_counters(store: Reads, now: datetime) -> DeskCounters:
    """The counters at ``now`` (an :class:`admission.counters.CounterReader` once the
    composition root binds the store; called off the GUI thread)."""
    return store.read(lambda tx: counts(tx, now))

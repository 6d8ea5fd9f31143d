"""The desk's counters read from the visitor file (``admission.counters.DeskCounters``).

Three cheap index reads (``visits_by_at``; the cards table is small: one row per card
of the last six months, art. 20.4) for the counters panel of the desk window. Times are
compared as the file's fixed-width UTC text, so text order is time order.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any, Protocol

from admission.counters import DeskCounters
from admission.ports import madrid_date, madrid_day_start
from db import codec

__all__ = ["DeskCounters", "desk_counters"]


class CounterStore(Protocol):
    def reading(self) -> AbstractContextManager[Any]: ...


def desk_counters(store: CounterStore, now: datetime) -> DeskCounters:
    today = madrid_date(now)
    midnight = madrid_day_start(today)
    with store.reading() as conn:
        day = conn.execute(
            "SELECT COUNT(*) FROM visits WHERE at >= ? AND at <= ? AND verdict = 'ADMIT'",
            (codec.ts(midnight), codec.ts(now)),
        ).fetchone()[0]
        hour = conn.execute(
            "SELECT COUNT(*) FROM visits WHERE at >= ? AND at <= ? AND verdict = 'ADMIT'",
            (codec.ts(now - timedelta(hours=1)), codec.ts(now)),
        ).fetchone()[0]
        valid = conn.execute(
            "SELECT COUNT(*) FROM cards WHERE status <> 'VOIDED'"
            " AND valid_from <= ? AND valid_until >= ?",
            (codec.day(today), codec.day(today)),
        ).fetchone()[0]
    return DeskCounters(int(day), int(hour), int(valid))

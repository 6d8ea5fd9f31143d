"""The desk's counters panel read from the visitor file (``admission.counters``), written
once over both dialects (db/tx.py): on the server, the whole operating unit's (arts.
154-155). Three counts over clear columns in one statement (``visits_by_at``): nothing
is opened."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from admission.counters import DeskCounters
from admission.ports import madrid_date, madrid_day_start
from db.tx import Tx

T = TypeVar("T")


class Reads(Protocol):
    def read(self, work: Callable[[Any], T]) -> T: ...


def counts(tx: Tx, now: datetime) -> DeskCounters:
    """Admissions since Madrid midnight and in the last hour (both up to ``now``
    inclusive), and the cards not voided whose validity holds today."""
    today = madrid_date(now)
    midnight, hour_ago = madrid_day_start(today), now - timedelta(hours=1)
    day, since = tx.day(today), tx.ts(min(midnight, hour_ago))
    row = tx.one(
        "SELECT count(*) FILTER (WHERE at >= ?), count(*) FILTER (WHERE at >= ?), "
        "(SELECT count(*) FROM cards WHERE status <> 'VOIDED' AND valid_from <= ? "
        "AND valid_until >= ?) FROM visits WHERE at >= ? AND at <= ? AND verdict = 'ADMIT'",
        (tx.ts(midnight), tx.ts(hour_ago), day, day, since, tx.ts(now)),
    )
    assert row is not None
    return DeskCounters(int(row[0]), int(row[1]), int(row[2]))


def desk_counters(store: Reads, now: datetime) -> DeskCounters:
    """The counters at ``now`` (a ``CounterReader`` once bound to the store)."""
    return store.read(lambda tx: counts(tx, now))

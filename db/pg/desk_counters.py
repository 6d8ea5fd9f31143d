"""The desk's counters read from the visitor file on the shared PostgreSQL server
(``admission.counters.DeskCounters``): the same three counts as db/desk_counters.py, for
the counters panel of the desk window.

Every desk of the operating unit (arts. 154-155) counts the whole unit's visits: the
visits of the day are the one visitor file's (art. 20.3), the cards valid now are the
one card sequence's (art. 22). Three counts over clear columns in one transaction
(``visits_by_at``; the card table holds about six months of cards, art. 20.4): nothing
is opened.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from admission.counters import DeskCounters
from admission.ports import madrid_date, madrid_day_start
from db.pg.store import PgStore, _Tx

__all__ = ["PgDeskCounters", "pg_desk_counters"]


def pg_desk_counters(store: PgStore, now: datetime) -> DeskCounters:
    """Admissions since Madrid midnight and in the last hour (both up to ``now``
    inclusive), and the cards not voided whose validity holds today."""
    today = madrid_date(now)
    midnight = madrid_day_start(today)

    def work(tx: _Tx) -> DeskCounters:
        row = tx.one(
            "SELECT count(*) FILTER (WHERE at >= %s), count(*) FILTER (WHERE at >= %s), "
            "(SELECT count(*) FROM cards WHERE status <> 'VOIDED' AND valid_from <= %s "
            "AND valid_until >= %s) FROM visits "
            "WHERE at >= least(%s, %s) AND at <= %s AND verdict = 'ADMIT'",
            (
                midnight,
                now - timedelta(hours=1),
                today,
                today,
                midnight,
                now - timedelta(hours=1),
                now,
            ),
        )
        assert row is not None
        return DeskCounters(int(row[0]), int(row[1]), int(row[2]))

    return store.read(work)


class PgDeskCounters:
    """An :class:`admission.counters.CounterReader` over an open :class:`PgStore`: the
    composition root hands it to the desk window (called off the GUI thread)."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

    def __call__(self, now: datetime) -> DeskCounters:
        return pg_desk_counters(self._store, now)

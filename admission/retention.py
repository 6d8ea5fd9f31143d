"""Retention policy (art. 20.4, R3): the visitor file keeps six months, then erases."""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta

from admission.hours import MADRID

RETENTION_MONTHS = 6


def months_before(at: datetime, months: int) -> datetime:
    """The same Madrid wall-clock time ``months`` calendar months earlier (day clamped
    to the month's length: 31 August minus six months is 28/29 February)."""
    local = at.astimezone(MADRID)
    index = local.year * 12 + (local.month - 1) - months
    year, month = divmod(index, 12)
    day = min(local.day, calendar.monthrange(year, month + 1)[1])
    earlier = local.replace(year=year, month=month + 1, day=day)
    return earlier.astimezone(UTC)


def retention_cutoff(now: datetime, months: int = RETENTION_MONTHS) -> datetime:
    """Visits strictly older than this instant are erased."""
    return months_before(now, months)


PURGE_EVERY = timedelta(days=1)


def purge_due(last: datetime | None, now: datetime) -> bool:
    """At start-up and daily (art. 20.4): due when never run, a day has passed, or the
    clock went back (a restored machine) — erasing too often is harmless, too late is not."""
    return last is None or now < last or now - last >= PURGE_EVERY

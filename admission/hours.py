"""Opening hours per day type and the last-hour rule (art. 21.4, art. 27; R6).

A session opens on a Madrid calendar day and may close after midnight
(e.g. 20:00-05:00). Hours are configured per day type: each weekday, plus
eves of public holidays and public holidays, which override the weekday.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

MADRID = ZoneInfo("Europe/Madrid")
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class SessionState(StrEnum):
    OPEN = "OPEN"
    LAST_HOUR = "LAST_HOUR"  # within the last hour before the games end
    CLOSED = "CLOSED"


@dataclass(frozen=True, slots=True)
class Session:
    opens: time
    closes: time  # earlier than or equal to ``opens`` means the next day

    def bounds(self, day: date) -> tuple[datetime, datetime]:
        start = datetime.combine(day, self.opens, MADRID)
        end_day = day if self.closes > self.opens else day + timedelta(days=1)
        return start, datetime.combine(end_day, self.closes, MADRID)


@dataclass(frozen=True, slots=True)
class OpeningHours:
    """``by_day`` maps a day type (``mon``..``sun``, ``eve``, ``holiday``) to a session
    or None (closed that day)."""

    by_day: Mapping[str, Session | None]
    holidays: frozenset[date] = field(default_factory=frozenset)

    def session_for(self, day: date) -> Session | None:
        if day in self.holidays and "holiday" in self.by_day:
            return self.by_day["holiday"]
        if day + timedelta(days=1) in self.holidays and "eve" in self.by_day:
            return self.by_day["eve"]
        return self.by_day.get(WEEKDAYS[day.weekday()])

    def state_at(self, at: datetime) -> SessionState:
        local = at.astimezone(MADRID)
        # A session that started yesterday may still be running after midnight.
        for day in (local.date() - timedelta(days=1), local.date()):
            session = self.session_for(day)
            if session is None:
                continue
            start, end = session.bounds(day)
            if start <= local < end:
                if end - local <= timedelta(hours=1):
                    return SessionState.LAST_HOUR
                return SessionState.OPEN
        return SessionState.CLOSED

    def closing_at(self, at: datetime) -> datetime | None:
        """End of the session running at ``at`` (vouchers not exchanged are listed then)."""
        local = at.astimezone(MADRID)
        for day in (local.date() - timedelta(days=1), local.date()):
            session = self.session_for(day)
            if session is not None:
                start, end = session.bounds(day)
                if start <= local < end:
                    return end
        return None


def parse_hours(
    config: Mapping[str, str | None], holidays: frozenset[date] = frozenset()
) -> OpeningHours:
    """Build hours from ``{"mon": "20:00-05:00", "sun": None, ...}``; raises ValueError."""
    by_day: dict[str, Session | None] = {}
    for key, value in config.items():
        if key not in (*WEEKDAYS, "eve", "holiday"):
            raise ValueError(f"unknown day type {key!r}")
        if value is None or value.strip().lower() in ("", "closed"):
            by_day[key] = None
            continue
        opens, closes = (time.fromisoformat(part.strip()) for part in value.split("-", 1))
        by_day[key] = Session(opens, closes)
    return OpeningHours(by_day, holidays)


ALWAYS_OPEN = OpeningHours({d: Session(time(0, 0), time(0, 0)) for d in WEEKDAYS})

from datetime import UTC, date, datetime

import pytest

from admission.hours import SessionState, parse_hours
from admission.retention import months_before, purge_due, retention_cutoff

HOURS = parse_hours(
    {
        "mon": "closed",
        "tue": "20:00-04:00",
        "sat": "20:00-05:00",
        "fri": "20:00-05:00",
        "sun": "18:00-23:00",
        "holiday": "12:00-02:00",
    },
    holidays=frozenset({date(2026, 12, 8)}),
)


def madrid(y: int, mo: int, d: int, h: int, mi: int = 0) -> datetime:
    from zoneinfo import ZoneInfo

    return datetime(y, mo, d, h, mi, tzinfo=ZoneInfo("Europe/Madrid"))


@pytest.mark.parametrize(
    ("at", "state"),
    [
        (madrid(2026, 11, 28, 19, 59), SessionState.CLOSED),  # Saturday before opening
        (madrid(2026, 11, 28, 20, 0), SessionState.OPEN),
        (madrid(2026, 11, 29, 3, 59), SessionState.OPEN),  # Saturday's session after midnight
        (madrid(2026, 11, 29, 4, 0), SessionState.LAST_HOUR),
        (madrid(2026, 11, 29, 5, 0), SessionState.CLOSED),
        (madrid(2026, 11, 30, 21, 0), SessionState.CLOSED),  # Monday closed
        (madrid(2026, 11, 29, 22, 30), SessionState.LAST_HOUR),  # Sunday closes 23:00
        (madrid(2026, 12, 8, 13, 0), SessionState.OPEN),  # holiday overrides Tuesday
    ],
)
def test_session_state(at: datetime, state: SessionState) -> None:
    assert HOURS.state_at(at) is state


def test_closing_time_of_the_running_session() -> None:
    assert HOURS.closing_at(madrid(2026, 11, 28, 23, 0)) == madrid(2026, 11, 29, 5, 0)
    assert HOURS.closing_at(madrid(2026, 11, 30, 21, 0)) is None


def test_bad_hours_are_refused() -> None:
    with pytest.raises(ValueError):
        parse_hours({"someday": "20:00-04:00"})
    with pytest.raises(ValueError):
        parse_hours({"mon": "8pm-4am"})


def test_six_months_are_calendar_months_in_madrid() -> None:
    now = madrid(2026, 8, 31, 12, 0)
    assert months_before(now, 6) == madrid(2026, 2, 28, 12, 0)
    # the Madrid wall-clock time is kept across the DST change
    cutoff = retention_cutoff(datetime(2026, 11, 29, 12, tzinfo=UTC))
    assert cutoff == madrid(2026, 5, 29, 13, 0)


def test_purge_is_due_at_start_up_daily_and_after_the_clock_goes_back() -> None:
    now = datetime(2026, 11, 29, 12, tzinfo=UTC)
    assert purge_due(None, now)
    assert not purge_due(now.replace(hour=1), now)
    assert purge_due(datetime(2026, 11, 28, 12, tzinfo=UTC), now)
    assert purge_due(datetime(2026, 11, 30, 12, tzinfo=UTC), now)

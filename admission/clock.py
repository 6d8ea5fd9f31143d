"""Clocks: the system clock for the app, a settable one for tests and simulations, and
the codes of a clock that cannot be trusted.

Visit dates, card numbers and the six-month retention (art. 20.4, 22.1) all hang on
the clock: an instant given by hand (``--at``) may not lie in the future unless
``ADMISSION_CLOCK_OVERRIDE=1`` (tests, demos, replays), and the automatic purge always
runs on the system clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from admission.codes import Code

CLOCK_OVERRIDE_ENV = "ADMISSION_CLOCK_OVERRIDE"
# how far ahead of the system clock a hand-given instant may be: clocks of two
# machines at one casino differ by seconds, a typo by days or years
FUTURE_TOLERANCE = timedelta(minutes=5)


class ClockCode(Code):
    FUTURE_INSTANT = "FUTURE_INSTANT"  # a hand-given instant ahead of the system clock
    SUSPECT_CLOCK = "SUSPECT_CLOCK"  # a purge would erase visits a clock jump made old
    CLOCK_BEHIND_FILE = "CLOCK_BEHIND_FILE"  # the clock is behind the newest record


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """A clock that only moves when told to (tests, simulations, ``--at``)."""

    def __init__(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("FixedClock needs an aware datetime")
        self._at = at.astimezone(UTC)

    def now(self) -> datetime:
        return self._at

    def set(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("FixedClock needs an aware datetime")
        self._at = at.astimezone(UTC)

    def advance(self, delta: timedelta) -> None:
        self._at += delta

"""Conversions between records and stored text (UTC instants, Madrid dates, codes)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def ts(at: datetime) -> str:
    """Fixed-width UTC text: text order is time order."""
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError("timestamps must be timezone-aware")
    return at.astimezone(UTC).strftime(_FORMAT)


def parse_ts(text: str) -> datetime:
    return datetime.strptime(text, _FORMAT).replace(tzinfo=UTC)


def parse_opt_ts(text: str | None) -> datetime | None:
    return None if text is None else parse_ts(text)


def day(value: date) -> str:
    return value.isoformat()


def parse_day(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


def codes(values: tuple[str, ...]) -> str:
    return json.dumps(list(values), separators=(",", ":"))


def parse_codes(text: str) -> tuple[str, ...]:
    return tuple(str(v) for v in json.loads(text))

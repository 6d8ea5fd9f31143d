"""Token buckets: how often one phone, one address or one device may ask (art. 22.4 checks
are many, a guessed PIN must not be). Pure: the caller passes the monotonic time."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

__all__ = ["Buckets", "Rate"]

MAX_KEYS = 10_000  # buckets kept at most; full ones are forgotten first


@dataclass(frozen=True, slots=True)
class Rate:
    """``per_second`` tokens come back each second, up to ``burst``."""

    per_second: float
    burst: int


class Buckets:
    """One token bucket per key (a client address, a session, a device token)."""

    def __init__(self, rate: Rate) -> None:
        self.rate = rate
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def take(self, key: str, now: float) -> float:
        """0 when ``key`` may go on (a token taken); else the seconds until it may."""
        with self._lock:
            tokens, at = self._buckets.get(key, (float(self.rate.burst), now))
            tokens = min(float(self.rate.burst), tokens + max(0.0, now - at) * self.rate.per_second)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                self._forget(now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate.per_second

    def _forget(self, now: float) -> None:
        if len(self._buckets) <= MAX_KEYS:
            return
        full = self.rate.burst / self.rate.per_second
        for key, (_, at) in list(self._buckets.items()):
            if now - at >= full:
                del self._buckets[key]
        while len(self._buckets) > MAX_KEYS:  # all busy: the oldest go
            del self._buckets[next(iter(self._buckets))]


def retry_after(seconds: float) -> str:
    """The ``Retry-After`` header: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))

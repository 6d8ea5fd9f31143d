"""Keyboard-wedge feeder: the Qt-free half of the application-wide key filter.

The GUI's event filter (``ui/desk/wedge_filter.py``) calls :meth:`WedgeFeeder.key` for every
key press that carries one character and no Ctrl/Alt/Meta. The feeder says whether to
swallow it (always, for such keys: it may be the start of a burst) and which earlier
keys to give back to the widgets, in order, because they turned out to be a person
typing. Keys are held for at most ``max_key_gap`` (35 ms by default) -- not noticeable.

``token`` is whatever the filter needs to replay a key (a copy of the Qt key event and
its receiver); the feeder keeps tokens only while undecided, so at most
``min_burst_chars`` of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from admission.mrz.burst import BurstConfig, BurstEvent, MrzBurstAssembler, Passthrough

__all__ = ["CONTROL_MARK", "WedgeFeeder", "WedgeResult"]

T = TypeVar("T")

# What a chord (Ctrl+X, F-keys...) inside a reader burst counts as: a control character,
# so the burst is rejected (BURST_CONTROL_CHARS) instead of firing app shortcuts.
CONTROL_MARK = "\x1a"


@dataclass(frozen=True, slots=True)
class WedgeResult(Generic[T]):
    swallow: bool = False  # eat the key just given
    release: tuple[T, ...] = ()  # earlier keys to give back to the widgets, in order
    events: tuple[BurstEvent, ...] = field(default=())  # MRZ / code / discarded bursts


class WedgeFeeder(Generic[T]):
    """Holds undecided keys; turns reader bursts into events."""

    def __init__(self, config: BurstConfig | None = None) -> None:
        self._asm = MrzBurstAssembler(config)
        self._held: list[T] = []

    @property
    def config(self) -> BurstConfig:
        return self._asm.config

    @property
    def in_burst(self) -> bool:
        """A reader burst is under way (every key is swallowed until it ends)."""
        return self._asm.holding and not self._asm.undecided

    def key(self, char: str, token: T, at: float) -> WedgeResult[T]:
        """A plain key press (one character) at ``at`` seconds (monotonic)."""
        if len(char) != 1:
            return self.other_key(token)
        release, events = self._split(self._asm.feed(char, at))
        if self._asm.undecided:
            self._held.append(token)
        else:
            self._held.clear()  # the reader's keys are consumed by the burst
        return WedgeResult(True, release, events)

    def other_key(self, token: T) -> WedgeResult[T]:
        """A chord, an auto-repeat or a key without text.

        Inside a reader burst it is swallowed and spoils the burst; otherwise a person is
        at the keyboard: give back what was held, then let this key through.
        """
        if self.in_burst:
            self._asm.feed(CONTROL_MARK, self._last_at())
            return WedgeResult(True)
        release, events = self._split(self._asm.interrupt())
        return WedgeResult(False, release, events)

    def poll(self, now: float) -> WedgeResult[T]:
        """Call at :meth:`deadline` (a single-shot timer): releases or finishes."""
        release, events = self._split(self._asm.poll(now))
        return WedgeResult(False, release, events)

    def deadline(self) -> float | None:
        return self._asm.deadline()

    def _last_at(self) -> float:
        deadline = self._asm.deadline()
        return 0.0 if deadline is None else deadline - self._asm.config.end_gap

    def _split(self, events: list[BurstEvent]) -> tuple[tuple[T, ...], tuple[BurstEvent, ...]]:
        release: tuple[T, ...] = ()
        others: list[BurstEvent] = []
        for event in events:
            if isinstance(event, Passthrough):
                release, self._held = (*release, *self._held), []
            else:
                self._held.clear()
                others.append(event)
        return release, tuple(others)

"""Fake document reader: replays recorded bursts with their timing (tests, demo mode).

A recording is JSON: a list of ``[char, seconds]`` pairs, as written by
``tests/scanner/make_bursts.py``. A script is a list of steps: a recording to type, a
status change to report (device lost / back), or a pause. ``sleep`` is injected: tests
pass a no-op and the events come out instantly, still carrying the recorded timestamps.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from admission.devices import DeviceStatus, ReaderStatusChanged, ScannerEvent
from admission.mrz.burst import BurstConfig, MrzBurstAssembler

__all__ = ["FakeDocumentReader", "Pause", "Recording", "load_recording"]

MAX_RECORDING = 100_000  # events; a corrupt or hostile file cannot exhaust memory


@dataclass(frozen=True, slots=True)
class Recording:
    events: tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class Pause:
    seconds: float


Step = Recording | ReaderStatusChanged | Pause


def load_recording(path: Path | str) -> Recording:
    """Read a ``[[char, t], ...]`` JSON file; raises ValueError when it is not one."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(raw, list) or len(raw) > MAX_RECORDING:
        raise ValueError("recording must be a list of at most 100000 [char, t] pairs")
    events: list[tuple[str, float]] = []
    for item in raw:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not isinstance(item[0], str)
            or len(item[0]) != 1
            or not isinstance(item[1], int | float)
        ):
            raise ValueError("each event must be [one character, seconds]")
        events.append((item[0], float(item[1])))
    return Recording(tuple(events))


@dataclass
class FakeDocumentReader:
    """Plays ``script`` once; records what it was asked (``preflights``, ``listens``)."""

    script: Sequence[Step]
    config: BurstConfig = field(default_factory=BurstConfig)
    status: DeviceStatus = DeviceStatus.READY
    sleep: Callable[[float], None] = time.sleep
    preflights: int = 0
    listens: int = 0

    @property
    def name(self) -> str:
        return "fake"

    def preflight(self) -> DeviceStatus:
        self.preflights += 1
        return self.status

    def listen(self, stop: threading.Event) -> Iterator[ScannerEvent]:
        self.listens += 1
        assembler = MrzBurstAssembler(self.config)
        now = 0.0  # recordings restart their clocks; keep ours increasing
        for step in self.script:
            if stop.is_set():
                return
            if isinstance(step, ReaderStatusChanged):
                yield from assembler.interrupt()
                self.status = step.status
                yield step
            elif isinstance(step, Pause):
                self.sleep(step.seconds)
                now += step.seconds
            else:
                now = yield from self._play(step, assembler, now, stop)
                now += self.config.end_gap  # the silence after a burst ends it
                yield from assembler.poll(now)
        yield from assembler.interrupt()

    def _play(
        self,
        recording: Recording,
        assembler: MrzBurstAssembler,
        now: float,
        stop: threading.Event,
    ) -> Generator[ScannerEvent, None, float]:
        if not recording.events:
            return now
        t0 = previous = recording.events[0][1]
        for char, t in recording.events:
            if stop.is_set():
                break
            if t > previous:
                self.sleep(t - previous)
            previous = t
            yield from assembler.feed(char, now + (t - t0))
        return now + (previous - t0)

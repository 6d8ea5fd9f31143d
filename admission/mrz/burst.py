"""Reader-agnostic MRZ burst assembler: keystrokes or serial bytes in, whole MRZs out.

Document readers (full-page passport readers, 2D imagers) read the MRZ themselves and
send it either as keystrokes (USB keyboard emulation, "wedge") or over a serial port.
This module turns a stream of ``(character, timestamp)`` events into:

* :class:`MrzScanned` -- a complete MRZ (3x30 TD1, 2x36 TD2, 2x44 TD3) to hand to
  ``admission.mrz.parse.parse_mrz`` exactly like the camera's lines;
* :class:`CodeScanned` -- a fast burst that is not an MRZ (a card code or a barcode read
  by a handheld wedge reader); the text is bounded and free of control characters;
* :class:`BurstDiscarded` -- a burst that cannot be trusted, with a hint code for the
  screen ("scan again"): ``BURST_PARTIAL``, ``BURST_TOO_LONG``, ``BURST_CONTROL_CHARS``,
  ``BURST_BAD_CHARS``;
* :class:`Passthrough` -- keystrokes typed by a person, released unchanged and in order
  so the focused widget still receives them.

Scanner or person? A reader types a whole burst with a few milliseconds between keys; a
person, even a fast one, rarely keeps eight keys in a row under ``max_key_gap``. Keys are
held while undecided (at most ``min_burst_chars`` of them, for at most ``max_key_gap``
seconds), then either released as :class:`Passthrough` or taken as a burst. A burst ends
after ``end_gap`` seconds of silence (readers pause between lines, so this is longer than
``max_key_gap``).

The assembler never invents or repairs characters: an MRZ is emitted only when the
characters the reader sent, minus framing (prefix/suffix codes, AIM identifier, STX/ETX,
line terminators), are exactly the lines of one MRZ format. Memory is bounded by
``max_burst_chars``. Pure: no clock, no I/O; the caller supplies timestamps and calls
:meth:`MrzBurstAssembler.poll` at :meth:`MrzBurstAssembler.deadline`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum, auto, unique

from admission.codes import Code

__all__ = [
    "BURST_BAD_CHARS",
    "BURST_CONTROL_CHARS",
    "BURST_PARTIAL",
    "BURST_TOO_LONG",
    "MRZ_FORMATS",
    "BurstConfig",
    "BurstDiscarded",
    "BurstEvent",
    "BurstHint",
    "CodeScanned",
    "MrzBurstAssembler",
    "MrzScanned",
    "Passthrough",
    "split_mrz",
]


@unique
class BurstHint(Code):
    """Why a burst was discarded; the screen asks for a new scan."""

    BURST_PARTIAL = "BURST_PARTIAL"  # looked like an MRZ but was incomplete: scan again
    BURST_TOO_LONG = "BURST_TOO_LONG"  # more than max_burst_chars: dropped unread
    BURST_CONTROL_CHARS = "BURST_CONTROL_CHARS"  # control characters other than framing
    BURST_BAD_CHARS = "BURST_BAD_CHARS"  # non-printable or non-ASCII text in a code burst


# The members under their module-level names, for the readers and tests that import them.
BURST_PARTIAL = BurstHint.BURST_PARTIAL
BURST_TOO_LONG = BurstHint.BURST_TOO_LONG
BURST_CONTROL_CHARS = BurstHint.BURST_CONTROL_CHARS
BURST_BAD_CHARS = BurstHint.BURST_BAD_CHARS

# (name, lines, line length) -- ICAO 9303 parts 4-6
MRZ_FORMATS: tuple[tuple[str, int, int], ...] = (("TD1", 3, 30), ("TD2", 2, 36), ("TD3", 2, 44))

_MRZ_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<")
_FRAMING = frozenset("\x02\x03")  # STX / ETX sent by serial readers around a message
_AIM_ID = re.compile(r"^\][A-Za-z][0-9A-Za-z]")  # ISO/IEC 15424 symbology identifier
_PRINTABLE = frozenset(chr(c) for c in range(0x20, 0x7F))


@dataclass(frozen=True, slots=True)
class BurstConfig:
    """Reader settings (one per configured device)."""

    terminators: frozenset[str] = frozenset("\r\n")
    prefixes: tuple[str, ...] = ()  # configured codes the reader sends before the data
    suffixes: tuple[str, ...] = ()  # ... and after it
    max_code_len: int = 4  # short unknown leading/trailing segments are reader codes
    max_key_gap: float = 0.035  # seconds between keys inside a burst
    end_gap: float = 0.25  # silence that ends a burst (readers pause between lines)
    min_burst_chars: int = 8  # fast keys in a row before a burst is believed
    max_burst_chars: int = 300  # TD1 is 90 characters; anything near this is hostile
    assume_scanner: bool = False  # serial readers: no person types on that line

    def __post_init__(self) -> None:
        if not 0 < self.max_key_gap <= self.end_gap:
            raise ValueError("need 0 < max_key_gap <= end_gap")
        if not 2 <= self.min_burst_chars <= self.max_burst_chars <= 10_000:
            raise ValueError("need 2 <= min_burst_chars <= max_burst_chars <= 10000")
        if any(len(t) != 1 for t in self.terminators):
            raise ValueError("terminators are single characters")


@dataclass(frozen=True, slots=True)
class MrzScanned:
    """A complete MRZ, exactly as scanned (``format`` is TD1, TD2 or TD3)."""

    format: str
    lines: tuple[str, ...]
    started_at: float
    ended_at: float


@dataclass(frozen=True, slots=True)
class CodeScanned:
    """A fast burst that is not an MRZ: printable ASCII only, framing removed."""

    text: str
    started_at: float
    ended_at: float


@dataclass(frozen=True, slots=True)
class BurstDiscarded:
    """A burst thrown away; ``code`` says why, for the screen."""

    code: BurstHint
    started_at: float
    ended_at: float
    length: int  # characters received (not kept), for diagnostics without content


@dataclass(frozen=True, slots=True)
class Passthrough:
    """Keys a person typed, released in order to the focused widget."""

    text: str


BurstEvent = MrzScanned | CodeScanned | BurstDiscarded | Passthrough


class _State(Enum):
    IDLE = auto()
    PENDING = auto()  # holding keys, not yet sure it is a reader
    BURST = auto()  # a reader is typing
    OVERFLOW = auto()  # too long: swallowing until silence, nothing kept


@dataclass(slots=True)
class _Buffer:
    chars: list[str] = field(default_factory=list)
    started_at: float = 0.0
    last_at: float = 0.0
    received: int = 0
    complete: bool = False  # ends with a terminator after exactly one MRZ


class MrzBurstAssembler:
    """Feed characters with timestamps (seconds, monotonic); collect :data:`BurstEvent`."""

    def __init__(self, config: BurstConfig | None = None) -> None:
        self.config = config or BurstConfig()
        self._state = _State.IDLE
        self._buf = _Buffer()

    # -- input -----------------------------------------------------------------------

    def feed(self, char: str, at: float) -> list[BurstEvent]:
        """One character (a key's text or one decoded byte) received at ``at``."""
        if len(char) != 1:
            return [e for c in char for e in self.feed(c, at)] if char else []
        events = self.poll(at)
        if self._state is _State.IDLE:
            self._start(char, at)
            if self.config.assume_scanner:
                self._state = _State.BURST
        elif self._state is _State.PENDING:
            self._add(char, at)
            if len(self._buf.chars) >= self.config.min_burst_chars:
                self._state = _State.BURST
        else:
            self._add(char, at)
        return events

    def feed_all(self, events: Iterable[tuple[str, float]]) -> list[BurstEvent]:
        """Feed many ``(char, t)`` pairs and poll well after the last one."""
        out: list[BurstEvent] = []
        last = 0.0
        for char, at in events:
            out.extend(self.feed(char, at))
            last = at
        out.extend(self.poll(last + self.config.end_gap + 1.0))
        return out

    def poll(self, now: float) -> list[BurstEvent]:
        """Close what ``now`` has timed out; call it at :meth:`deadline` (or any time)."""
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return []
        if self._state is _State.PENDING:
            text = "".join(self._buf.chars)
            self._reset()
            return [Passthrough(text)]
        return [self._finish()]

    def deadline(self) -> float | None:
        """When :meth:`poll` next has something to decide, or None when idle."""
        if self._state is _State.IDLE:
            return None
        if self._state is _State.PENDING or self._buf.complete:
            # a whole MRZ and its line end: no more lines can belong to it, so a short
            # silence ends it (trailing reader codes arrive within ``max_key_gap``)
            return self._buf.last_at + self.config.max_key_gap
        return self._buf.last_at + self.config.end_gap

    def interrupt(self) -> list[BurstEvent]:
        """A person did something a reader never does (auto-repeat, a modifier chord):
        release held keys, or end the current burst now."""
        if self._state is _State.IDLE:
            return []
        if self._state is _State.PENDING:
            text = "".join(self._buf.chars)
            self._reset()
            return [Passthrough(text)]
        return [self._finish()]

    @property
    def undecided(self) -> bool:
        """True while keys are held without knowing yet whether a reader sent them."""
        return self._state is _State.PENDING

    @property
    def holding(self) -> bool:
        """True while keys are being held or swallowed (the wedge filter eats keys then)."""
        return self._state is not _State.IDLE

    # -- internals -------------------------------------------------------------------

    def _start(self, char: str, at: float) -> None:
        self._state = _State.PENDING
        self._buf = _Buffer([char], at, at, 1)

    def _add(self, char: str, at: float) -> None:
        buf = self._buf
        buf.last_at = at
        buf.received += 1
        if self._state is _State.OVERFLOW:
            return
        if len(buf.chars) >= self.config.max_burst_chars:
            buf.chars.clear()  # bounded memory: nothing of a hostile burst is kept
            self._state = _State.OVERFLOW
            return
        buf.chars.append(char)
        buf.complete = (
            self._state is _State.BURST and char in self.config.terminators and self._whole_mrz()
        )

    def _whole_mrz(self) -> bool:
        """The burst so far is exactly one MRZ (no configured suffix to wait for)."""
        if self.config.suffixes:
            return False
        text = _strip_framing("".join(self._buf.chars), self.config)
        return split_mrz(_segments(text, self.config.terminators)) is not None

    def _reset(self) -> None:
        self._state = _State.IDLE
        self._buf = _Buffer()

    def _finish(self) -> BurstEvent:
        buf, overflow = self._buf, self._state is _State.OVERFLOW
        self._reset()
        if overflow:
            return BurstDiscarded(
                BurstHint.BURST_TOO_LONG, buf.started_at, buf.last_at, buf.received
            )
        return _classify("".join(buf.chars), buf, self.config)


def _strip_framing(text: str, config: BurstConfig) -> str:
    text = text.strip("".join(_FRAMING))
    for prefix in config.prefixes:
        if prefix and text.startswith(prefix):
            text = text[len(prefix) :]
            break
    aim = _AIM_ID.match(text)
    if aim:
        text = text[aim.end() :]
    for suffix in config.suffixes:
        if suffix and text.endswith(suffix):
            text = text[: -len(suffix)]
            break
    return text.strip("".join(_FRAMING))


def _segments(text: str, terminators: frozenset[str]) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    for c in text:
        if c in terminators:
            if current:
                out.append("".join(current))
            current = []
        else:
            current.append(c)
    if current:
        out.append("".join(current))
    return out


def split_mrz(segments: list[str]) -> tuple[str, tuple[str, ...]] | None:
    """Lines of one MRZ format from the reader's segments, or None.

    Segments may split a line (extra boundaries), but every line boundary must be a
    segment boundary -- unless the reader sent everything as one run without terminators.
    Characters are never changed.
    """
    if not segments or any(set(s) - _MRZ_CHARS for s in segments):
        return None
    joined = "".join(segments)
    boundaries: set[int] = set()
    pos = 0
    for s in segments[:-1]:
        pos += len(s)
        boundaries.add(pos)
    for name, count, width in MRZ_FORMATS:
        if len(joined) != count * width:
            continue
        needed = {width * i for i in range(1, count)}
        if len(segments) == 1 or needed <= boundaries:
            return name, tuple(joined[width * i : width * (i + 1)] for i in range(count))
    return None


def _find_mrz(segments: list[str], max_code: int) -> tuple[str, tuple[str, ...]] | None:
    """Try the segments as sent, then without a short leading and/or trailing code."""
    n = len(segments)
    lead = 1 if n > 1 and len(segments[0]) <= max_code else 0
    trail = 1 if n > 1 and len(segments[-1]) <= max_code else 0
    for a, b in ((0, 0), (lead, 0), (0, trail), (lead, trail)):
        if a + b >= n:
            continue
        found = split_mrz(segments[a : n - b])
        if found:
            return found
    return None


def _classify(raw: str, buf: _Buffer, config: BurstConfig) -> BurstEvent:
    start, end = buf.started_at, buf.last_at
    text = _strip_framing(raw, config)
    allowed = config.terminators | _FRAMING
    if any((c < " " or c == "\x7f") and c not in allowed for c in text):
        return BurstDiscarded(BurstHint.BURST_CONTROL_CHARS, start, end, buf.received)
    segments = _segments(text, config.terminators)
    found = _find_mrz(segments, config.max_code_len)
    if found:
        return MrzScanned(found[0], found[1], start, end)
    joined = "".join(segments)
    mrz_like = bool(joined) and set(joined) <= _MRZ_CHARS and ("<" in joined or len(joined) >= 30)
    if mrz_like:
        return BurstDiscarded(BurstHint.BURST_PARTIAL, start, end, buf.received)
    code = "\n".join(segments)
    if not segments or any(c not in _PRINTABLE for c in joined):
        return BurstDiscarded(BurstHint.BURST_BAD_CHARS, start, end, buf.received)
    return CodeScanned(code, start, end)

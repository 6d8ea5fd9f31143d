"""The scripted chip reader for the demo and the desk's tests (STYLE.md rules 6-9).

:class:`FakeChipReader` has :class:`~hardware.chip.pcsc.PcscChipReader`'s surface
(``preflight``, ``readers``, ``wait_for_card``, ``connect``, ``watch``) over a queue of
:class:`~hardware.chip.virtual_chip.VirtualChip` documents: each card put on the reader
is the next one of the script (``None``: no card comes; a :class:`ChipError`: the
connection fails with it). It records what it was asked. The chips speak real APDUs, so
the desk's read goes through BAC/PACE, secure messaging and passive authentication as
with a real card.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from admission.chip import ChipCode
from admission.devices import DeviceStatus, ReaderStatusChanged
from hardware.chip.apdu import ChipError
from hardware.chip.virtual_chip import VirtualChip

__all__ = ["FakeCard", "FakeChipReader", "FakeWatch"]

Script = VirtualChip | ChipError | None


class FakeCard:
    """A connected fake card: the chip as a transport, ``close`` takes it off."""

    def __init__(self, chip: VirtualChip, reader: FakeChipReader) -> None:
        self.chip = chip
        self._reader = reader
        self.atr = chip.atr()
        self.closed = False

    def transmit(self, apdu: bytes) -> bytes:
        if self.closed:
            raise ChipError(ChipCode.CHIP_SILENT, "the card was closed")
        self._reader.apdus += 1
        return self.chip.transmit(apdu)

    def close(self) -> None:
        self.closed = True
        self._reader.remove()


@dataclass
class FakeWatch:
    reader: FakeChipReader
    on_status: Callable[[ReaderStatusChanged], None]
    on_card: Callable[[bool], None] | None
    stopped: bool = False

    def stop(self, timeout: float = 2.0) -> None:
        self.stopped = True


@dataclass
class FakeChipReader:
    """A reader named ``names[0]`` whose cards are ``script``, one per wait.

    Records: ``preflights``, ``waits`` (the timeouts asked), ``connects``, ``apdus``.
    ``plug(status)`` plays a reader plugged or unplugged to the watches (hot-plug)."""

    script: list[Script] = field(default_factory=list)
    status: DeviceStatus = DeviceStatus.READY
    names: tuple[str, ...] = ("Fake Chip Reader 00 00",)
    preflights: int = 0
    waits: list[float] = field(default_factory=list)
    connects: int = 0
    apdus: int = 0
    watches: list[FakeWatch] = field(default_factory=list)
    current: Script = None

    @classmethod
    def of(cls, chips: Iterable[Script], **kwargs: object) -> FakeChipReader:
        return cls(list(chips), **kwargs)  # type: ignore[arg-type]

    def preflight(self) -> DeviceStatus:
        self.preflights += 1
        return self.status

    def readers(self) -> list[str]:
        return [] if self.status is DeviceStatus.NOT_FOUND else list(self.names)

    def wait_for_card(self, timeout: float) -> bool:
        """The next scripted card comes at once (never sleeps)."""
        self.waits.append(timeout)
        if self.status is DeviceStatus.NOT_FOUND:
            raise ChipError(ChipCode.READER_ERROR, "no PC/SC reader")
        if self.current is None and self.script:
            self.current = self.script.pop(0)
            if self.current is not None:
                self._card(True)
        return self.current is not None

    def connect(self) -> FakeCard:
        self.connects += 1
        current = self.current
        if current is None:
            raise ChipError(ChipCode.NO_CHIP, "no card on the reader")
        if isinstance(current, ChipError):
            self.current = None
            raise current
        current.reset()
        return FakeCard(current, self)

    def remove(self) -> None:
        """Take the card off the reader."""
        if self.current is not None:
            self.current = None
            self._card(False)

    def put(self, chip: VirtualChip) -> None:
        """Put ``chip`` on the reader now (ahead of the script)."""
        self.current = chip
        self._card(True)

    def watch(
        self,
        on_status: Callable[[ReaderStatusChanged], None],
        on_card: Callable[[bool], None] | None = None,
        *,
        interval: float = 0.5,
    ) -> FakeWatch:
        watch = FakeWatch(self, on_status, on_card)
        self.watches.append(watch)
        on_status(ReaderStatusChanged(self.status))
        return watch

    def plug(self, status: DeviceStatus) -> None:
        """The reader's status changes (plugged: READY, unplugged: NOT_FOUND -> LOST)."""
        was = self.status
        self.status = status
        lost = was is DeviceStatus.READY and status is DeviceStatus.NOT_FOUND
        back = was is DeviceStatus.NOT_FOUND and status is DeviceStatus.READY
        shown = DeviceStatus.LOST if lost else status
        for watch in self._live():
            watch.on_status(ReaderStatusChanged(shown, reconnected=back))

    def _card(self, present: bool) -> None:
        for watch in self._live():
            if watch.on_card is not None:
                watch.on_card(present)

    def _live(self) -> list[FakeWatch]:
        return [watch for watch in self.watches if not watch.stopped]

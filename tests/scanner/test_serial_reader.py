"""Serial reader adapter on a scripted fake port: bursts, loss and reconnection."""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from admission.devices import DeviceStatus, ReaderStatusChanged, ScannerEvent
from admission.mrz.burst import BURST_PARTIAL, BurstDiscarded, MrzScanned
from hardware.scanner.serial_reader import SerialDocumentReader, classify_open_error

pytestmark = pytest.mark.timeout(20)

TD3 = (
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
)


class Unplugged(OSError):
    pass


@dataclass
class ScriptedPort:
    """Each read returns the next item; an exception item is raised (device lost)."""

    reads: list[bytes | BaseException]
    closed: bool = False

    @property
    def in_waiting(self) -> int:
        return 0

    def read(self, size: int = 1) -> bytes:
        if not self.reads:
            return b""
        item = self.reads.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item

    def close(self) -> None:
        self.closed = True


@dataclass
class ScriptedFactory:
    opens: list[ScriptedPort | BaseException]
    asked: list[tuple[str, int]] = field(default_factory=list)

    def __call__(self, port: str, baudrate: int) -> ScriptedPort:
        self.asked.append((port, baudrate))
        item = self.opens.pop(0) if self.opens else OSError(errno.ENOENT, "gone")
        if isinstance(item, BaseException):
            raise item
        return item


class StepClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        self.t += 0.1  # every read call takes 100 ms: bursts end after a few empty reads
        return self.t


def collect(reader: SerialDocumentReader, limit: int) -> list[ScannerEvent]:
    stop = threading.Event()
    out: list[ScannerEvent] = []
    events: Iterator[ScannerEvent] = reader.listen(stop)
    for event in events:
        out.append(event)
        if len(out) >= limit:
            stop.set()
    return out


def mrz_bytes() -> bytes:
    return ("\x02" + "\r\n".join(TD3) + "\r\n\x03").encode("ascii")


def make(factory: ScriptedFactory) -> SerialDocumentReader:
    return SerialDocumentReader(
        "/dev/ttyFAKE", retry_interval=0.0, clock=StepClock(), serial_factory=factory
    )


def test_mrz_in_chunks() -> None:
    data = mrz_bytes()
    chunks: list[bytes | BaseException] = [data[i : i + 7] for i in range(0, len(data), 7)]
    factory = ScriptedFactory([ScriptedPort(chunks)])
    events = collect(make(factory), 2)
    assert events[0] == ReaderStatusChanged(DeviceStatus.READY)
    assert isinstance(events[1], MrzScanned)
    assert events[1].lines == TD3
    assert factory.asked == [("/dev/ttyFAKE", 9600)]


def test_loss_mid_burst_then_reconnect() -> None:
    data = mrz_bytes()
    first = ScriptedPort([data[:30], Unplugged(errno.EIO, "I/O error")])
    second = ScriptedPort([data])
    factory = ScriptedFactory([first, OSError(errno.ENOENT, "no such file"), second])
    events = collect(make(factory), 5)
    assert events[0] == ReaderStatusChanged(DeviceStatus.READY)
    assert isinstance(events[1], BurstDiscarded) and events[1].code == BURST_PARTIAL
    assert isinstance(events[2], ReaderStatusChanged) and events[2].status is DeviceStatus.LOST
    assert first.closed  # still away at the next attempt: LOST is not repeated
    assert events[3] == ReaderStatusChanged(DeviceStatus.READY, reconnected=True)
    assert isinstance(events[4], MrzScanned)
    assert len(factory.asked) == 3


def test_not_found_at_start_reported_once() -> None:
    stop = threading.Event()
    factory = ScriptedFactory([OSError(errno.ENOENT, "x")] * 5)

    def opener(port: str, baudrate: int) -> ScriptedPort:
        if len(factory.asked) >= 4:
            stop.set()  # as the GUI would, from another thread
        return factory(port, baudrate)

    reader = SerialDocumentReader("/dev/ttyFAKE", retry_interval=0.0, serial_factory=opener)
    seen = list(reader.listen(stop))
    assert seen == [ReaderStatusChanged(DeviceStatus.NOT_FOUND, "FileNotFoundError")]
    assert len(factory.asked) == 5


def test_hostile_bytes_never_raise() -> None:
    junk: list[bytes | BaseException] = [bytes(range(256)) * 40, b"\xff" * 5000]
    events = collect(make(ScriptedFactory([ScriptedPort(junk)])), 2)
    assert isinstance(events[1], BurstDiscarded)


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (OSError(errno.ENOENT, "x"), DeviceStatus.NOT_FOUND),
        (OSError(errno.EBUSY, "x"), DeviceStatus.BUSY),
        (PermissionError(errno.EACCES, "x"), DeviceStatus.ERROR),
        (ValueError("bad baudrate"), DeviceStatus.ERROR),
    ],
)
def test_classify_open_error(exc: BaseException, status: DeviceStatus) -> None:
    assert classify_open_error(exc) is status


def test_classify_wrapped_pyserial_error() -> None:
    serial = pytest.importorskip("serial")
    try:
        serial.Serial("/dev/definitely-not-a-reader-xyz")
    except serial.SerialException as exc:
        assert classify_open_error(exc) is DeviceStatus.NOT_FOUND
    reader = SerialDocumentReader("/dev/definitely-not-a-reader-xyz")
    assert reader.preflight() is DeviceStatus.NOT_FOUND


def test_loopback_port_with_real_pyserial() -> None:
    serial = pytest.importorskip("serial")
    port = serial.serial_for_url("loop://", timeout=0.05)
    port.write(mrz_bytes())
    reader = SerialDocumentReader("loop://", serial_factory=lambda _p, _b: port)
    events = collect(reader, 2)
    assert isinstance(events[1], MrzScanned)


@pytest.mark.hardware
def test_real_reader_scans_an_mrz() -> None:
    """Set ADMISSION_SERIAL_PORT, put a passport on the reader within 20 s."""
    reader = SerialDocumentReader(os.environ.get("ADMISSION_SERIAL_PORT", "/dev/ttyACM0"))
    assert reader.preflight() is DeviceStatus.READY
    stop = threading.Event()
    timer = threading.Timer(20.0, stop.set)
    timer.start()
    try:
        assert any(isinstance(e, MrzScanned) for e in reader.listen(stop))
    finally:
        stop.set()
        timer.cancel()

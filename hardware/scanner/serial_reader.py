"""Serial / USB-CDC document readers (pyserial).

The reader sends the MRZ (or a barcode) as bytes, usually with CR/LF and sometimes STX/ETX
framing. Every byte becomes one character (latin-1, so a stray high byte is still one
character and is rejected by the assembler, never decoded into something else) fed to
:class:`admission.mrz.burst.MrzBurstAssembler` in scanner mode: nobody types on this
line, so timing only tells where a burst ends.

Unplugging the reader, a driver error or a port held by another program is reported as
:class:`ReaderStatusChanged` (LOST, NOT_FOUND, BUSY, ERROR) and the port is reopened every
``retry_interval`` seconds; READY with ``reconnected=True`` follows when it is back.
``serial_factory`` is the seam for tests (a scripted fake port) -- by default
``serial.Serial``.
"""

from __future__ import annotations

import contextlib
import errno
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, Protocol

from admission.devices import DeviceStatus, ReaderStatusChanged, ScannerEvent
from admission.mrz.burst import BurstConfig, MrzBurstAssembler

__all__ = ["SerialDocumentReader", "SerialPortLike", "classify_open_error"]

READ_TIMEOUT = 0.05  # seconds a read blocks: bounds how late stop is noticed
MAX_READ = 512  # bytes per read


class SerialPortLike(Protocol):
    """The part of ``serial.Serial`` this adapter uses."""

    def read(self, size: int = 1) -> bytes: ...

    def close(self) -> None: ...

    @property
    def in_waiting(self) -> int: ...


def _default_factory(port: str, baudrate: int) -> SerialPortLike:
    # pyserial, imported here so the module loads without it; it ships no type hints
    import serial  # type: ignore[import-untyped]

    port_obj: SerialPortLike = serial.Serial(port, baudrate=baudrate, timeout=READ_TIMEOUT)
    return port_obj


def classify_open_error(exc: BaseException) -> DeviceStatus:
    """Which status an exception raised while opening the port means."""
    err: Any = exc
    while err is not None:
        number = getattr(err, "errno", None)
        if number in (errno.ENOENT, errno.ENODEV, errno.ENXIO):
            return DeviceStatus.NOT_FOUND
        if number == errno.EBUSY:
            return DeviceStatus.BUSY
        if number in (errno.EACCES, errno.EPERM):
            return DeviceStatus.ERROR
        err = err.__cause__ or err.__context__
    text = str(exc).lower()
    if "could not open port" in text and ("no such file" in text or "not found" in text):
        return DeviceStatus.NOT_FOUND
    if "busy" in text or "access is denied" in text:  # Windows: port open elsewhere
        return DeviceStatus.BUSY
    return DeviceStatus.ERROR


class SerialDocumentReader:
    """A reader on ``port`` (``/dev/ttyACM0``, ``COM3``...)."""

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = 9600,
        config: BurstConfig | None = None,
        retry_interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        serial_factory: Callable[[str, int], SerialPortLike] = _default_factory,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.config = replace(config or BurstConfig(), assume_scanner=True)
        self.retry_interval = retry_interval
        self._clock = clock
        self._factory = serial_factory

    @property
    def name(self) -> str:
        return f"serial:{self.port}"

    def preflight(self) -> DeviceStatus:
        """Open and close the port once (not while :meth:`listen` holds it)."""
        try:
            self._factory(self.port, self.baudrate).close()
        except Exception as exc:  # pyserial raises SerialException/OSError/ValueError
            return classify_open_error(exc)
        return DeviceStatus.READY

    def listen(self, stop: threading.Event) -> Iterator[ScannerEvent]:
        assembler = MrzBurstAssembler(self.config)
        was_ready = False
        last_status: DeviceStatus | None = None
        while not stop.is_set():
            try:
                port = self._factory(self.port, self.baudrate)
            except Exception as exc:
                status = classify_open_error(exc)
                if was_ready and status is DeviceStatus.NOT_FOUND:
                    status = DeviceStatus.LOST
                if status is not last_status:
                    last_status = status
                    yield ReaderStatusChanged(status, type(exc).__name__)
                stop.wait(self.retry_interval)
                continue
            yield ReaderStatusChanged(DeviceStatus.READY, "", reconnected=was_ready)
            was_ready, last_status = True, DeviceStatus.READY
            try:
                yield from self._pump(port, assembler, stop)
            except Exception as exc:  # unplugged mid-read: SerialException / OSError
                yield from assembler.interrupt()  # a burst cut by the loss is partial
                last_status = DeviceStatus.LOST
                yield ReaderStatusChanged(DeviceStatus.LOST, type(exc).__name__)
                stop.wait(self.retry_interval)
            finally:
                with contextlib.suppress(Exception):  # closing a vanished port may fail too
                    port.close()
        yield from assembler.interrupt()

    def _pump(
        self, port: SerialPortLike, assembler: MrzBurstAssembler, stop: threading.Event
    ) -> Iterator[ScannerEvent]:
        while not stop.is_set():
            data = port.read(min(max(port.in_waiting, 1), MAX_READ))
            now = self._clock()
            if data:
                for char in data.decode("latin-1"):
                    yield from assembler.feed(char, now)
            yield from assembler.poll(now)

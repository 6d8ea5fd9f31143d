"""A client of vpcd's socket protocol: puts a :class:`VirtualChip` on ``pcscd``'s
"Virtual PCD" reader (Debian's ``vsmartcard-vpcd``), so the product's code reads it through
pyscard -> pcscd -> libifdvpcd -> this bridge, as it reads a card on a real reader.

The protocol (vsmartcard's vpcd, as ``libifdvpcd`` speaks it): vpcd LISTENS on TCP port
``CHANNELID`` of its reader.conf; a virtual card CONNECTS to it, and while connected the
card is on the reader. Every message either way is a 2-byte big-endian length and the
payload. A 1-byte payload from vpcd is a control: 0x00 power off, 0x01 power on, 0x02
reset, 0x04 "send your ATR" (answered with the ATR); any longer payload is a command APDU,
answered with the response APDU. Closing the connection takes the card off the reader.

A test tool: never shipped with the product.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time

from admission.chip import ChipCode
from hardware.chip.apdu import ChipError
from hardware.chip.virtual_chip import VirtualChip

__all__ = ["VpcdBridge"]

_POWER_OFF, _POWER_ON, _RESET, _ATR = 0x00, 0x01, 0x02, 0x04


class VpcdBridge:
    """One virtual card slot on vpcd at ``host:port``: :meth:`insert` a chip, :meth:`remove`
    it. A chip that goes silent (``ChipError(CHIP_SILENT)``) gets no answer sent: vpcd and
    pcscd wait as they would for a card that left the field mid-command."""

    def __init__(self, host: str = "127.0.0.1", port: int = 40000) -> None:
        self.host = host
        self.port = port
        self.chip: VirtualChip | None = None
        self.apdus = 0
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def insert(self, chip: VirtualChip, timeout: float = 5.0) -> None:
        """Connect to vpcd with ``chip`` (retrying while vpcd is not listening yet)."""
        self.remove()
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.create_connection((self.host, self.port), timeout=1.0)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.chip, self._sock = chip, sock
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="vpcd-bridge", daemon=True)
        self._thread.start()

    def remove(self) -> None:
        """Take the card off the reader (close the connection)."""
        self._stop.set()
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._sock, self._thread, self.chip = None, None, None

    def _serve(self) -> None:
        sock, chip = self._sock, self.chip
        assert sock is not None and chip is not None
        silent = False
        while not self._stop.is_set():
            try:
                payload = _receive(sock, self._stop)
            except OSError:
                return
            if payload is None:
                return
            if len(payload) == 1:
                if payload[0] == _ATR:
                    answer: bytes | None = chip.atr()
                elif payload[0] in (_POWER_OFF, _POWER_ON, _RESET):
                    chip.reset()
                    answer = None
                else:
                    answer = None
            elif silent:
                answer = None
            else:
                self.apdus += 1
                try:
                    answer = chip.transmit(payload)
                except ChipError as error:
                    if error.code is not ChipCode.CHIP_SILENT:
                        raise
                    silent, answer = True, None
            if answer is not None:
                try:
                    sock.sendall(len(answer).to_bytes(2, "big") + answer)
                except OSError:
                    return


def _receive(sock: socket.socket, stop: threading.Event) -> bytes | None:
    header = _exactly(sock, 2, stop)
    if header is None:
        return None
    return _exactly(sock, int.from_bytes(header, "big"), stop)


def _exactly(sock: socket.socket, size: int, stop: threading.Event) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        if stop.is_set():
            return None
        ready, _, _ = select.select([sock], [], [], 0.2)
        if not ready:
            continue
        chunk = sock.recv(size - len(data))
        # vpcd writes the length and the APDU in two sends: ack at once, or its Nagle
        # waits out our delayed ACK (40 ms per APDU on Linux)
        with contextlib.suppress(OSError, AttributeError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        if not chunk:
            return None
        data += chunk
    return bytes(data)

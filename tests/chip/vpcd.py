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
import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from admission.chip import ChipCode
from hardware.chip.apdu import ChipError
from hardware.chip.virtual_chip import VirtualChip

__all__ = ["VpcdBridge", "VpcdUnavailable", "pcscd_with_vpcd"]

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


VPCD_DRIVER = Path("/usr/lib/pcsc/drivers/serial/libifdvpcd.so")
OUR_CHANNEL = 0x9C40  # vpcd listens on the port numbered as the channel (40000, 40001)
DEBIAN_CHANNEL = 0x8C7B  # /etc/reader.conf.d/vpcd of vsmartcard-vpcd (35963)
READER_CONF = f"""FRIENDLYNAME "Virtual PCD"
DEVICENAME   /dev/null:0x{OUR_CHANNEL:04X}
LIBPATH      {VPCD_DRIVER}
CHANNELID    0x{OUR_CHANNEL:04X}
"""


class VpcdUnavailable(Exception):
    """Why no pcscd with a Virtual PCD reader can be had here (the tests skip with it)."""


def _listening(port: int) -> bool:
    """A TCP socket LISTENs on ``port`` (read from /proc: connecting would put a card on
    vpcd's reader)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    return True
    return False


def _readers() -> list[str]:
    from smartcard.System import readers  # type: ignore[import-untyped]

    with contextlib.suppress(Exception):
        return [str(r) for r in readers()]
    return []


def _virtual_readers() -> list[str]:
    return [name for name in _readers() if name.startswith("Virtual PCD")]


@contextlib.contextmanager
def pcscd_with_vpcd() -> Iterator[int]:
    """The TCP port of vpcd's first slot on a running pcscd: a running one with a Virtual
    PCD reader is reused; else ``pcscd -f -c CONFDIR`` is started with vpcd on channel
    0x9C40 (ports 40000, 40001) and stopped at the end. pcscd ignores
    PCSCLITE_CSOCK_NAME (its socket is /run/pcscd/pcscd.comm), so it needs root.
    Raises :class:`VpcdUnavailable` saying why when it cannot."""
    if shutil.which("pcscd") is None:
        raise VpcdUnavailable("pcscd is not installed (scripts/system-packages.sh installs it)")
    if not VPCD_DRIVER.exists():
        raise VpcdUnavailable("vpcd is not installed (Debian's vsmartcard-vpcd)")
    try:
        import smartcard  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        raise VpcdUnavailable("pyscard is not installed") from None
    for channel in (OUR_CHANNEL, DEBIAN_CHANNEL):
        if _listening(channel) and _virtual_readers():
            yield channel  # a pcscd already runs with a Virtual PCD reader: reuse it
            return
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        raise VpcdUnavailable("starting pcscd needs root (it creates /run/pcscd)")
    if _readers():
        raise VpcdUnavailable("a pcscd without a Virtual PCD reader is running")
    confdir = Path(tempfile.mkdtemp(prefix="pcscd-vpcd-"))
    (confdir / "vpcd").write_text(READER_CONF)
    daemon = subprocess.Popen(
        ["pcscd", "--foreground", "--config", str(confdir)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10
        while not (_listening(OUR_CHANNEL) and _virtual_readers()):
            if daemon.poll() is not None:
                raise VpcdUnavailable(f"pcscd exited at start ({daemon.returncode})")
            if time.monotonic() > deadline:
                raise VpcdUnavailable("pcscd did not list the Virtual PCD reader in 10 s")
            time.sleep(0.05)
        yield OUR_CHANNEL
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=5)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait(timeout=5)
        shutil.rmtree(confdir, ignore_errors=True)

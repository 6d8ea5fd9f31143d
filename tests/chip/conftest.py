"""Chip tests: the real PC/SC path (pyscard -> pcscd -> vpcd -> a virtual chip), and the
physical reader's tests, which run only with ADMISSION_HARDWARE=1 (or ``--hardware`` where
a root conftest defines that option), as the serial reader's do.

``pcscd_vpcd`` (session) gives the TCP port of a Virtual PCD slot: it reuses a running
pcscd whose vpcd reader listens, else starts its own ``pcscd -f -c CONFDIR`` with a
reader.conf on channel 0x9C40 (vpcd then listens on ports 40000 and 40001; pcscd always
uses /run/pcscd/pcscd.comm, whatever PCSCLITE_CSOCK_NAME says) and stops it at the end.
It skips, saying why, when pcscd, vpcd or pyscard is missing or we are not root.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chip.vpcd import VpcdBridge

VPCD_DRIVER = Path("/usr/lib/pcsc/drivers/serial/libifdvpcd.so")
OUR_CHANNEL = 0x9C40  # vpcd listens on the port numbered as the channel (40000, 40001)
DEBIAN_CHANNEL = 0x8C7B  # /etc/reader.conf.d/vpcd of vsmartcard-vpcd (35963)
READER_CONF = f"""FRIENDLYNAME "Virtual PCD"
DEVICENAME   /dev/null:0x{OUR_CHANNEL:04X}
LIBPATH      {VPCD_DRIVER}
CHANNELID    0x{OUR_CHANNEL:04X}
"""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests here marked ``hardware`` need a physical contactless reader."""
    wanted = os.environ.get("ADMISSION_HARDWARE") == "1"
    with contextlib.suppress(ValueError):  # unless a root conftest defines --hardware
        wanted = wanted or bool(config.getoption("--hardware"))
    if wanted:
        return
    skip = pytest.mark.skip(reason="needs a physical chip reader (set ADMISSION_HARDWARE=1)")
    here = Path(__file__).parent
    for item in items:
        if "hardware" in item.keywords and here in Path(str(item.fspath)).parents:
            item.add_marker(skip)


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


def _virtual_readers() -> list[str]:
    from smartcard.System import readers  # type: ignore[import-untyped]

    with contextlib.suppress(Exception):
        return [str(r) for r in readers() if str(r).startswith("Virtual PCD")]
    return []


@pytest.fixture(scope="session")
def pcscd_vpcd() -> Iterator[int]:
    """The port of the first Virtual PCD slot of a pcscd that runs during the session."""
    if shutil.which("pcscd") is None:
        pytest.skip("pcscd is not installed (scripts/system-packages.sh installs it)")
    if not VPCD_DRIVER.exists():
        pytest.skip("vpcd is not installed (Debian's vsmartcard-vpcd)")
    pytest.importorskip("smartcard", reason="pyscard is not installed")
    for channel in (OUR_CHANNEL, DEBIAN_CHANNEL):
        if _listening(channel) and _virtual_readers():
            yield channel  # a pcscd already runs with a Virtual PCD reader: reuse it
            return
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        pytest.skip("starting pcscd needs root (it creates /run/pcscd)")
    if Path("/run/pcscd/pcscd.comm").exists() and _virtual_readers() == []:
        with contextlib.suppress(Exception):
            from smartcard.System import readers

            if readers():
                pytest.skip("a pcscd without a Virtual PCD reader is running")
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
                pytest.skip(f"pcscd exited at start ({daemon.returncode})")
            if time.monotonic() > deadline:
                pytest.skip("pcscd did not list the Virtual PCD reader in 10 s")
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


@pytest.fixture
def vpcd_bridge(pcscd_vpcd: int) -> Iterator[VpcdBridge]:
    """A card slot on the Virtual PCD reader; the card is taken off after the test."""
    from hardware.chip.pcsc import PcscChipReader

    bridge = VpcdBridge(port=pcscd_vpcd)
    try:
        yield bridge
    finally:
        bridge.remove()
        # pcscd polls the card's presence: wait until it saw this one go, or the next
        # test would find it "present" still
        PcscChipReader("Virtual PCD").wait_for_removal(3.0)

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
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chip.vpcd import VpcdBridge, VpcdUnavailable, pcscd_with_vpcd


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


@pytest.fixture(scope="session")
def pcscd_vpcd() -> Iterator[int]:
    """The port of the first Virtual PCD slot of a pcscd that runs during the session."""
    try:
        with pcscd_with_vpcd() as port:
            yield port
    except VpcdUnavailable as why:
        pytest.skip(str(why))


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

"""The real PC/SC path: the product's PcscChipReader (pyscard) -> pcscd -> Debian's vpcd
driver -> tests/chip/vpcd.py -> a VirtualChip, exactly as with a card on a real reader."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from admission.chip import ChipCode, ChipStatus
from admission.devices import DeviceStatus, ReaderStatusChanged
from hardware.chip.access import CanKey
from hardware.chip.apdu import ChipError, command
from hardware.chip.document_pki import DocumentPki, make_pki
from hardware.chip.pcsc import PcscChipReader
from hardware.chip.reader import ReaderStation, mrz_key, read_chip
from hardware.chip.virtual_chip import PlainSecurity, VirtualChip, make_document
from tests.chip.vpcd import VpcdBridge

MRZ = "IDESPXYZ123456<99999999R<<<<<<8001014F3101017ESP<<<<<<<<<<<8PRUEBA<INVENTADA<<ANA<<<<<<<<<"
AT = datetime(2026, 12, 1, 12, tzinfo=UTC)
PHOTO = b"\xff\xd8\xff\xe0" + os.urandom(20_000)
READER = "Virtual PCD 00 00"


@pytest.fixture(scope="module")
def pki() -> DocumentPki:
    return make_pki("ES", now=AT)


def test_the_virtual_reader_is_listed(pcscd_vpcd: int) -> None:
    reader = PcscChipReader(READER)
    assert READER in reader.readers()
    assert reader.preflight() is DeviceStatus.READY
    assert PcscChipReader("no such reader").preflight() is DeviceStatus.NOT_FOUND


def test_a_card_put_on_and_taken_off(vpcd_bridge: VpcdBridge, pki: DocumentPki) -> None:
    reader = PcscChipReader(READER)
    cards: list[bool] = []
    statuses: list[ReaderStatusChanged] = []
    seen = threading.Event()

    def on_card(present: bool) -> None:
        cards.append(present)
        seen.set()

    watch = reader.watch(statuses.append, on_card, interval=0.05)
    try:
        assert not reader.wait_for_card(0.1)
        with pytest.raises(ChipError) as caught:
            reader.connect()
        assert caught.value.code is ChipCode.NO_CHIP
        vpcd_bridge.insert(make_document(MRZ, PHOTO, access="BAC", pki=pki)[0])
        assert reader.wait_for_card(3.0)
        assert seen.wait(3.0) and cards == [True]
        seen.clear()
        with reader.connect() as card:
            assert card.atr == bytes.fromhex("3B80800101")
            select = command(0, 0xA4, 0x04, 0x0C, bytes.fromhex("A0000002471001"))
            assert card.transmit(select) == b"\x90\x00"
        vpcd_bridge.remove()
        assert seen.wait(3.0) and cards == [True, False]
        assert not reader.wait_for_card(0.1)
    finally:
        watch.stop()
    assert [s.status for s in statuses] == [DeviceStatus.READY]


@pytest.mark.parametrize("access", ["BAC", "PACE"])
def test_a_whole_document_through_pcscd(
    vpcd_bridge: VpcdBridge, pki: DocumentPki, access: str
) -> None:
    chip, trust = make_document(MRZ, PHOTO, access=access, pki=pki)
    vpcd_bridge.insert(chip)
    reader = PcscChipReader(READER)
    assert reader.wait_for_card(3.0)
    key = CanKey("123456") if access == "PACE" else mrz_key(MRZ)
    with reader.connect() as card:
        result = read_chip(card, key, trust, printed_mrz=MRZ, at=AT)
    assert result.check.status is ChipStatus.GENUINE and result.check.access == access
    assert (result.mrz, result.photo) == (MRZ, PHOTO)
    assert result.apdus == vpcd_bridge.apdus == chip.received


def test_the_station_over_pcsc(vpcd_bridge: VpcdBridge, pki: DocumentPki) -> None:
    chip, trust = make_document(MRZ, PHOTO, access="PACE", pki=pki)
    station = ReaderStation(PcscChipReader(READER), lambda: trust, card_timeout=0.2)
    no_card = station.read(
        document_number="", birth="", expiry="", can="123456", printed_mrz=MRZ, at=AT
    )
    assert no_card.check.code is ChipCode.NO_CHIP
    vpcd_bridge.insert(chip)
    station.card_timeout = 3.0
    read = station.read(
        document_number="", birth="", expiry="", can="123456", printed_mrz=MRZ, at=AT
    )
    assert read.check.genuine and read.photo == PHOTO


def test_a_chip_that_stops_answering_mid_read_is_silent_not_a_hang(
    vpcd_bridge: VpcdBridge, pki: DocumentPki
) -> None:
    chip, trust = make_document(MRZ, PHOTO, access="PACE", pki=pki, silent_after=12)
    vpcd_bridge.insert(chip)
    reader = PcscChipReader(READER, apdu_timeout=0.5)
    assert reader.wait_for_card(3.0)
    card = reader.connect()
    start = time.monotonic()
    result = read_chip(card, CanKey("123456"), trust, printed_mrz=MRZ, at=AT)
    elapsed = time.monotonic() - start
    card.close()  # never blocks on the transmit still waiting in pcscd
    assert result.check.code is ChipCode.CHIP_SILENT
    assert result.check.status is ChipStatus.NOT_VERIFIABLE and result.photo == b""
    assert elapsed < 3.0
    with pytest.raises(ChipError) as caught:
        card.transmit(b"\x00\xb0\x00\x00\x01")
    assert caught.value.code is ChipCode.CHIP_SILENT


def test_a_card_taken_off_mid_read_is_silent_at_once(vpcd_bridge: VpcdBridge) -> None:
    vpcd_bridge.insert(VirtualChip({}, PlainSecurity()))
    reader = PcscChipReader(READER, apdu_timeout=5.0)
    assert reader.wait_for_card(3.0)
    select = command(0, 0xA4, 0x04, 0x0C, bytes.fromhex("A0000002471001"))
    with reader.connect() as card:
        assert card.transmit(select) == b"\x90\x00"
        vpcd_bridge.remove()
        start = time.monotonic()
        with pytest.raises(ChipError) as caught:
            card.transmit(select)
        assert time.monotonic() - start < 1.0  # pcscd's own error, not our deadline
    assert caught.value.code is ChipCode.CHIP_SILENT


@pytest.mark.hardware
def test_a_physical_reader() -> None:
    """With a contactless reader plugged in (and a document on it, if one is at hand)."""
    names = [n for n in PcscChipReader().readers() if not n.startswith("Virtual PCD")]
    assert names, "no physical PC/SC reader"
    reader = PcscChipReader(names[0])
    assert reader.preflight() in (DeviceStatus.READY, DeviceStatus.BUSY)
    if reader.wait_for_card(5.0):
        with reader.connect() as card:
            select = command(0, 0xA4, 0x04, 0x0C, bytes.fromhex("A0000002471001"))
            assert card.transmit(select)[-2:] in (b"\x90\x00", b"\x6a\x82")


def test_without_the_pcsc_service() -> None:
    """No pcscd at the socket the client is told to use: NOT_FOUND, no readers, and a
    wait is READER_ERROR (pcsc-lite's client reads PCSCLITE_CSOCK_NAME, the daemon does
    not; a child process, since the client keeps the name once read)."""
    pytest.importorskip("smartcard", reason="pyscard is not installed")
    script = (
        "from hardware.chip.pcsc import PcscChipReader\n"
        "from hardware.chip.apdu import ChipError\n"
        "r = PcscChipReader()\n"
        "print(r.preflight().value, r.readers())\n"
        "try:\n"
        "    r.wait_for_card(0.1)\n"
        "except ChipError as e:\n"
        "    print(e.code.value)\n"
    )
    env = dict(os.environ, PCSCLITE_CSOCK_NAME="/nonexistent/pcscd.comm")
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout.split("\n")[:2] == ["NOT_FOUND []", "CHIP_READER_ERROR"]

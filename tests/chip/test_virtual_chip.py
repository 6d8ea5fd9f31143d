"""The virtual chip's file system in the clear: SELECT by AID and file id, READ BINARY by
short file id and offset, the odd INS B1 beyond 32767, extended length, the fault hooks."""

from __future__ import annotations

import pytest

from admission.chip import ChipCode
from hardware.chip.apdu import ChipError, command, split_response
from hardware.chip.virtual_chip import EMRTD_AID, PlainSecurity, VirtualChip

BIG = bytes(i % 251 for i in range(40000))


def chip(**kwargs: object) -> VirtualChip:
    files = {"CardAccess": b"\x31\x00", "COM": b"\x60\x03\x5c\x01\x61", "DG2": BIG}
    return VirtualChip(files, PlainSecurity(), require_channel=False, **kwargs)  # type: ignore[arg-type]


def ask(card: VirtualChip, apdu: bytes) -> tuple[bytes, int]:
    return split_response(card.transmit(apdu))


def select_applet(card: VirtualChip) -> None:
    assert ask(card, command(0, 0xA4, 0x04, 0x0C, EMRTD_AID)) == (b"", 0x9000)


def test_application_files_need_the_applet() -> None:
    card = chip()
    assert ask(card, command(0, 0xB0, 0x9E, 0, le=5))[1] == 0x6A82  # COM by SFI, MF
    assert ask(card, command(0, 0xB0, 0x9C, 0, le=2)) == (b"\x31\x00", 0x9000)  # CardAccess
    assert ask(card, command(0, 0xA4, 0x04, 0x0C, bytes(7)))[1] == 0x6A82  # another AID
    select_applet(card)
    assert ask(card, command(0, 0xB0, 0x9E, 0, le=5)) == (b"\x60\x03\x5c\x01\x61", 0x9000)


def test_read_by_file_id_offsets_and_end_of_file() -> None:
    card = chip()
    select_applet(card)
    assert ask(card, command(0, 0xA4, 0x02, 0x0C, b"\x01\x02"))[1] == 0x9000
    assert ask(card, command(0, 0xB0, 0x01, 0x00, le=4)) == (BIG[256:260], 0x9000)
    data, sw = ask(card, command(0, 0xB0, 0x7F, 0xFF, le=0))  # the last short offset
    assert data == BIG[32767 : 32767 + 256] and sw == 0x9000
    assert ask(card, command(0, 0xA4, 0x02, 0x0C, b"\x01\x1e"))[1] == 0x9000
    assert ask(card, command(0, 0xB0, 0, 2, le=10)) == (b"\x5c\x01\x61", 0x6282)
    assert ask(card, command(0, 0xB0, 0, 9, le=1))[1] == 0x6B00  # beyond the end
    assert ask(card, command(0, 0xA4, 0x02, 0x0C, b"\x01\x05"))[1] == 0x6A82  # no DG5


def test_odd_ins_reads_beyond_32767_in_a_do53() -> None:
    card = chip()
    select_applet(card)
    offset = (40000 - 100).to_bytes(2, "big")
    data, sw = ask(card, command(0, 0xB1, 0x01, 0x02, b"\x54\x02" + offset, le=0))
    assert sw == 0x6282 and data == b"\x53\x64" + BIG[-100:]  # the file ends first
    data, sw = ask(card, command(0, 0xB1, 0, 0, b"\x54\x02\x80\x00", le=0x1004))
    assert sw == 0x9000 and data == b"\x53\x82\x10\x00" + BIG[0x8000:0x9000]


def test_extended_length_and_a_chip_without_it() -> None:
    card = chip()
    select_applet(card)
    data, sw = ask(card, command(0, 0xB0, 0x82, 0, le=0))
    assert len(data) == 256
    data, sw = ask(card, command(0, 0xB0, 0x82, 0, le=40000))
    assert (data, sw) == (BIG, 0x9000)
    short = chip(extended=False)
    select_applet(short)
    assert ask(short, command(0, 0xB0, 0x82, 0, le=40000))[1] == 0x6700
    assert ask(chip(max_le=1000), command(0, 0xB0, 0x9C, 0, le=4000))[1] == 0x6282


def test_the_channel_is_required_for_application_files() -> None:
    card = VirtualChip({"DG1": b"\x61\x00", "CardAccess": b"\x31\x00"}, PlainSecurity())
    assert ask(card, command(0, 0xB0, 0x9C, 0, le=2))[1] == 0x9000  # EF.CardAccess is free
    select_applet(card)
    assert ask(card, command(0, 0xB0, 0x81, 0, le=2))[1] == 0x6982
    assert ask(card, command(0x0C, 0xB0, 0x81, 0, le=2))[1] == 0x6988  # SM with no channel


def test_unknown_commands_and_bad_lengths() -> None:
    card = chip()
    assert ask(card, command(0, 0xCA, 0, 0, le=0))[1] == 0x6D00
    assert ask(card, command(0x80, 0xB0, 0, 0, le=0))[1] == 0x6E00
    assert ask(card, b"\x00\xb0\x00\x00\x05\x01")[1] == 0x6700
    assert ask(card, b"\x00")[1] == 0x6700
    with pytest.raises(ValueError, match="unknown files"):
        VirtualChip({"DG3": b""}, PlainSecurity())


def test_silent_after_n_apdus() -> None:
    card = chip(silent_after=2)
    select_applet(card)
    card.transmit(command(0, 0xB0, 0x9E, 0, le=1))
    with pytest.raises(ChipError) as caught:
        card.transmit(command(0, 0xB0, 0x9E, 0, le=1))
    assert caught.value.code is ChipCode.CHIP_SILENT and card.received == 3
    assert chip().atr() == bytes.fromhex("3B80800101")

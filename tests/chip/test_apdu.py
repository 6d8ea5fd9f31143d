"""ISO 7816-4 APDUs: short and extended forms, status words, 61xx and 6Cxx."""

from __future__ import annotations

import pytest

from admission.chip import ChipCode
from hardware.chip.apdu import ChipError, CountingTransport, command, exchange, split_response


def test_short_forms() -> None:
    assert command(0x00, 0xB0, 0x81, 0x00) == bytes.fromhex("00B08100")  # case 1
    assert command(0x00, 0xB0, 0x81, 0x00, le=8) == bytes.fromhex("00B0810008")  # case 2
    assert command(0x00, 0xB0, 0, 0, le=256) == bytes.fromhex("00B0000000")  # Le 256 = 00
    select = command(0x00, 0xA4, 0x02, 0x0C, b"\x01\x1e")  # case 3
    assert select == bytes.fromhex("00A4020C02011E")
    assert command(0, 0x88, 0, 0, b"\x01" * 8, le=0) == bytes.fromhex(
        "0088000008" + "01" * 8 + "00"
    )


def test_extended_forms() -> None:
    assert command(0, 0xB0, 0, 0, le=1000) == bytes.fromhex("00B000000003E8")  # case 2E
    assert command(0, 0xB0, 0, 0, le=65536) == bytes.fromhex("00B00000000000")
    data = bytes(300)
    case3 = command(0, 0xD6, 0, 0, data)
    assert case3[:7] == bytes.fromhex("00D60000" + "00012C") and len(case3) == 7 + 300
    case4 = command(0, 0x86, 0, 0, data, le=0x1000)
    assert case4[-2:] == b"\x10\x00" and len(case4) == 7 + 300 + 2
    # a short Lc with an extended Le goes extended as a whole (ISO 7816-4 §5.1)
    assert command(0, 0xB1, 0, 0, b"\x54\x02\x80\x00", le=0x400) == bytes.fromhex(
        "00B1000000000454028000" + "0400"
    )


@pytest.mark.parametrize(
    "args", [(0x100, 0, 0, 0), (0, 0, 0, -1)], ids=["cla too big", "p2 negative"]
)
def test_bad_header(args: tuple[int, int, int, int]) -> None:
    with pytest.raises(ValueError, match="out of range"):
        command(*args)


def test_split_response() -> None:
    assert split_response(b"\x01\x02\x90\x00") == (b"\x01\x02", 0x9000)
    with pytest.raises(ChipError) as caught:
        split_response(b"\x90")
    assert caught.value.code is ChipCode.CHIP_SILENT


class Scripted:
    def __init__(self, *answers: bytes) -> None:
        self.answers = list(answers)
        self.sent: list[bytes] = []

    def transmit(self, apdu: bytes) -> bytes:
        self.sent.append(apdu)
        return self.answers.pop(0)


def test_exchange_repeats_with_the_le_of_6cxx() -> None:
    card = Scripted(b"\x6c\x04", b"abcd\x90\x00")
    assert exchange(card, command(0, 0xB0, 0, 0, le=8)) == (b"abcd", 0x9000)
    assert card.sent[1] == bytes.fromhex("00B0000004")


def test_exchange_follows_61xx_with_get_response() -> None:
    card = Scripted(b"ab\x61\x02", b"cd\x61\x00", b"ef\x90\x00")
    assert exchange(card, command(0, 0x88, 0, 0, b"x", le=0)) == (b"abcdef", 0x9000)
    assert card.sent[1] == bytes.fromhex("00C0000002")
    assert card.sent[2] == bytes.fromhex("00C0000000")  # 6100: up to 256 more


def test_counting_transport() -> None:
    counting = CountingTransport(Scripted(b"ab\x90\x00", b"\x6a\x82"))
    counting.transmit(b"\x00\xb0\x00\x00\x02")
    counting.transmit(b"\x00\xa4\x02\x0c\x02\x01\x01")
    assert (counting.apdus, counting.bytes_sent, counting.bytes_received) == (2, 12, 6)


def test_chip_error_carries_its_code() -> None:
    error = ChipError(ChipCode.NO_CHIP, "no card")
    assert (error.code, error.detail, str(error)) == (
        ChipCode.NO_CHIP,
        "no card",
        "CHIP_NO_CHIP: no card",
    )

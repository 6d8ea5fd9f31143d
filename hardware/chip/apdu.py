"""ISO/IEC 7816-4 command and response APDUs, the transport port and the chip's error.

A command is ``CLA INS P1 P2 [Lc data] [Le]``: short form when the data fits 255 bytes
and Le 256, extended form (a 0x00 marker, two-byte Lc/Le) otherwise (ISO 7816-4 §5.1).
A response is the data followed by the status word SW1 SW2; ``61xx`` says more data waits
for GET RESPONSE and ``6Cxx`` says to repeat the command with Le = xx (ISO 7816-4 §5.1.3),
both handled by :func:`exchange`.
"""

from __future__ import annotations

from typing import Protocol

from admission.chip import ChipCode

__all__ = [
    "SW_OK",
    "ChipError",
    "CountingTransport",
    "Transport",
    "command",
    "exchange",
    "split_response",
]

SW_OK = 0x9000
_GET_RESPONSE = 0xC0


class Transport(Protocol):
    """Something that carries one APDU to a chip and brings its answer back: the PC/SC
    card, the in-process virtual chip, or a secure-messaging session over either."""

    def transmit(self, apdu: bytes) -> bytes:
        """The response to ``apdu``: its data followed by SW1 SW2. Raises
        :class:`ChipError` (``CHIP_SILENT`` when the chip gives no answer)."""
        ...


class ChipError(Exception):
    """Every failure of the chip layer; ``code`` says which, ``detail`` is English for the
    log and never carries a data group's content."""

    def __init__(self, code: ChipCode, detail: str = "") -> None:
        super().__init__(f"{code.value}: {detail}" if detail else code.value)
        self.code = code
        self.detail = detail


def command(
    cla: int, ins: int, p1: int, p2: int, data: bytes = b"", le: int | None = None
) -> bytes:
    """The APDU bytes; ``le`` 0 means "as much as there is" (256 short, 65536 extended).

    The extended form is used when the data exceeds 255 bytes or ``le`` exceeds 256.
    """
    for name, value in (("cla", cla), ("ins", ins), ("p1", p1), ("p2", p2)):
        if not 0 <= value <= 0xFF:
            raise ValueError(f"{name} out of range: {value}")
    if len(data) > 0xFFFF:
        raise ValueError("command data longer than 65535 bytes")
    if le is not None and not 0 <= le <= 0x10000:
        raise ValueError(f"le out of range: {le}")
    header = bytes((cla, ins, p1, p2))
    extended = len(data) > 0xFF or (le is not None and le > 0x100)
    if not extended:
        body = bytes((len(data),)) + data if data else b""
        if le is not None:
            body += bytes((le & 0xFF,))  # 256 -> 0x00
        return header + body
    body = b"\x00" + len(data).to_bytes(2, "big") + data if data else b""
    if le is not None:
        le_field = (le & 0xFFFF).to_bytes(2, "big")  # 65536 -> 0x0000
        body += le_field if data else b"\x00" + le_field
    return header + body


def split_response(resp: bytes) -> tuple[bytes, int]:
    """``(data, sw)`` with ``sw`` as one integer (``0x9000``)."""
    if len(resp) < 2:
        raise ChipError(ChipCode.CHIP_SILENT, f"response of {len(resp)} bytes, no status word")
    return resp[:-2], int.from_bytes(resp[-2:], "big")


def exchange(transport: Transport, apdu: bytes) -> tuple[bytes, int]:
    """Transmit ``apdu`` and follow ``6Cxx`` (repeat with the right Le) and ``61xx``
    (GET RESPONSE until done); ``(data, sw)`` of the whole answer."""
    data, sw = split_response(transport.transmit(apdu))
    if sw >> 8 == 0x6C:
        apdu = _with_short_le(apdu, sw & 0xFF)
        data, sw = split_response(transport.transmit(apdu))
    collected = bytearray(data)
    rounds = 0
    while sw >> 8 == 0x61:
        rounds += 1
        if rounds > 256:
            raise ChipError(ChipCode.READER_ERROR, "endless GET RESPONSE chain")
        more = command(apdu[0] & 0x0F, _GET_RESPONSE, 0, 0, le=(sw & 0xFF) or 0x100)
        data, sw = split_response(transport.transmit(more))
        collected += data
    return bytes(collected), sw


def _with_short_le(apdu: bytes, le: int) -> bytes:
    """``apdu`` with its Le replaced by the short ``le`` the chip asked for (6Cxx)."""
    if len(apdu) <= 4:
        return apdu + bytes((le,))
    if apdu[4] == 0 and len(apdu) > 5:  # extended: rebuild in short form
        lc = int.from_bytes(apdu[5:7], "big") if len(apdu) > 7 else 0
        data = apdu[7 : 7 + lc] if len(apdu) > 7 else b""
        return command(apdu[0], apdu[1], apdu[2], apdu[3], data, le or 0x100)
    lc = apdu[4]
    if len(apdu) == 5:  # only Le
        return apdu[:4] + bytes((le,))
    return apdu[: 5 + lc] + bytes((le,))


class CountingTransport:
    """Wraps a transport and counts what crosses it: ``apdus`` sent, ``bytes_sent``
    (commands) and ``bytes_received`` (responses with their status words)."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.apdus = 0
        self.bytes_sent = 0
        self.bytes_received = 0

    def transmit(self, apdu: bytes) -> bytes:
        self.apdus += 1
        self.bytes_sent += len(apdu)
        resp = self.inner.transmit(apdu)
        self.bytes_received += len(resp)
        return resp

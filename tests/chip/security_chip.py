"""A minimal chip for the access-control tests: security commands go to
:class:`CardSecurity`, SELECT and READ BINARY are answered from a few files, secure
messaging is unwrapped and wrapped around them. (The product's virtual chip is
``hardware.chip.virtual_chip``; this one only serves the protocol tests.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from hardware.chip.apdu import ChipError
from hardware.chip.card_security import CardSecurity
from hardware.chip.sm import parse_command


def scripted(*chunks: bytes) -> Callable[[int], bytes]:
    """An rng that hands out the given byte strings in order (each of the asked length)."""
    it: Iterator[bytes] = iter(chunks)

    def rng(n: int) -> bytes:
        chunk = next(it)
        assert len(chunk) == n, (len(chunk), n)
        return chunk

    return rng


class SecurityChip:
    """A Transport; ``files`` maps a short file id to its content; ``log`` records every
    (command, response); ``mangle`` may rewrite a command before the chip sees it and
    ``mangle_response`` a response before the reader does."""

    def __init__(self, security: CardSecurity, files: dict[int, bytes] | None = None) -> None:
        self.security = security
        self.files = files or {}
        self.log: list[tuple[bytes, bytes]] = []
        self.mangle: Callable[[bytes], bytes] | None = None
        self.mangle_response: Callable[[bytes], bytes] | None = None
        self._current: int | None = None

    def transmit(self, apdu: bytes) -> bytes:
        if self.mangle is not None:
            apdu = self.mangle(apdu)
        resp = self._answer(apdu)
        if self.mangle_response is not None:
            resp = self.mangle_response(resp)
        self.log.append((apdu, resp))
        return resp

    def _answer(self, apdu: bytes) -> bytes:
        answer = self.security.handle(apdu)
        if answer is not None:
            return answer
        if self.security.secure:
            try:
                plain = self.security.unwrap_command(apdu)
            except ChipError:
                return b"\x69\x88"
            data, sw = self._plain(plain)
            return self.security.wrap_response(data, sw)
        data, sw = self._plain(apdu)
        return data + sw.to_bytes(2, "big")

    def _plain(self, apdu: bytes) -> tuple[bytes, int]:
        cmd = parse_command(apdu)
        if cmd.ins == 0xA4:
            if cmd.p1 == 0x02 and len(cmd.data) == 2:
                self._current = cmd.data[1] & 0x1F
            return b"", 0x9000
        if cmd.ins == 0xB0:
            if cmd.p1 & 0x80:
                self._current = cmd.p1 & 0x1F
                offset = cmd.p2
            else:
                offset = (cmd.p1 << 8) | cmd.p2
            content = self.files.get(self._current or 0)
            if content is None:
                return b"", 0x6A82
            return content[offset : offset + (cmd.ne or 0)], 0x9000
        return b"", 0x6D00

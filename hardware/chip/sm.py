"""Secure messaging (ICAO 9303-11 §9.8): every APDU after BAC, PACE or chip
authentication is encrypted and MACed with the session keys KSenc and KSmac.

A protected command is ``CLA|0C INS P1 P2 Lc [DO87|DO85] [DO97] DO8E Le``: DO87 holds
``01`` and the padded data encrypted (DO85, without the ``01``, for an odd INS), DO97 the
expected length, DO8E the 8-byte MAC over ``pad(SSC || pad(header) || DO87 || DO97)``. A
protected response is ``[DO87] DO99 DO8E SW1 SW2``, DO99 holding the status word and the
MAC covering ``pad(SSC || DO87 || DO99)``. The send sequence counter SSC is incremented
before each command and each response; for AES the CBC IV is ``E(KSenc, SSC)``, for 3DES
zero. Both ends live here: :class:`SecureMessaging` protects and unprotects commands and
responses, :class:`SmSession` is the reader's open channel.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Protocol

from admission.chip import ChipCode
from hardware.chip.apdu import ChipError, Transport, command, exchange, split_response
from hardware.chip.crypto import CipherSpec, decrypt, ecb_encrypt_block, encrypt, mac, pad, unpad
from hardware.chip.lds import build_tlv as tlv
from hardware.chip.lds import read_tlv

__all__ = [
    "ParsedCommand",
    "SecureMessaging",
    "Session",
    "SmSession",
    "parse_command",
    "parse_tlvs",
    "read_tlv",
    "tlv",
]

# Status words of a chip that refuses secure messaging (ISO 7816-4 §5.1.3).
SW_SM_MISSING = 0x6987
SW_SM_INCORRECT = 0x6988


class Session(Protocol):
    """An open secure channel: plain APDUs in, plain responses (data + SW) out."""

    access: str  # "BAC" or "PACE"
    cipher: str  # "3DES" | "AES-128" | "AES-192" | "AES-256"

    def transmit(self, apdu: bytes) -> bytes: ...


# -- BER-TLV (ISO 7816-4 §5.2): lds.read_tlv and lds.build_tlv ---------------------------


def parse_tlvs(data: bytes) -> list[tuple[int, bytes, bytes]]:
    """Every data object of ``data`` as ``(tag, value, raw bytes)``."""
    out: list[tuple[int, bytes, bytes]] = []
    while data:
        tag, value, rest = read_tlv(data)
        out.append((tag, value, data[: len(data) - len(rest)]))
        data = rest
    return out


# -- command APDUs ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    """A command APDU's parts; ``ne`` is the expected length (256/65536 for a zero Le)."""

    cla: int
    ins: int
    p1: int
    p2: int
    data: bytes
    ne: int | None
    extended: bool

    @property
    def header(self) -> bytes:
        return bytes((self.cla, self.ins, self.p1, self.p2))


def parse_command(apdu: bytes) -> ParsedCommand:
    """ISO 7816-4 §5.1: the four cases, short and extended; ValueError when malformed."""
    if len(apdu) < 4:
        raise ValueError("an APDU has at least four bytes")
    cla, ins, p1, p2 = apdu[:4]
    body = apdu[4:]
    if not body:
        return ParsedCommand(cla, ins, p1, p2, b"", None, False)
    if len(body) == 1:
        return ParsedCommand(cla, ins, p1, p2, b"", body[0] or 256, False)
    if body[0] == 0 and len(body) >= 3:
        if len(body) == 3:
            return ParsedCommand(
                cla, ins, p1, p2, b"", int.from_bytes(body[1:3], "big") or 65536, True
            )
        lc = int.from_bytes(body[1:3], "big")
        data = body[3 : 3 + lc]
        rest = body[3 + lc :]
        if lc == 0 or len(data) != lc or len(rest) not in (0, 2):
            raise ValueError("malformed extended APDU")
        ne = (int.from_bytes(rest, "big") or 65536) if rest else None
        return ParsedCommand(cla, ins, p1, p2, data, ne, True)
    lc = body[0]
    data = body[1 : 1 + lc]
    rest = body[1 + lc :]
    if lc == 0 or len(data) != lc or len(rest) > 1:
        raise ValueError("malformed short APDU")
    return ParsedCommand(cla, ins, p1, p2, data, (rest[0] or 256) if rest else None, False)


# -- secure messaging ------------------------------------------------------------------


def _broken(detail: str) -> ChipError:
    # The channel broke: a chip moved away mid-APDU gives corrupt bytes as well as a
    # tampered answer does; nothing read through it can be trusted, so the read stops.
    return ChipError(ChipCode.SM_BROKEN, f"secure messaging: {detail}")


class SecureMessaging:
    """The session keys and the send sequence counter of one channel (either end)."""

    def __init__(self, ks_enc: bytes, ks_mac: bytes, ssc: int, cipher: CipherSpec) -> None:
        self.ks_enc = ks_enc
        self.ks_mac = ks_mac
        self.ssc = ssc
        self.cipher = cipher
        self._last_ins = 0

    def _ssc_bytes(self) -> bytes:
        return (self.ssc % (1 << (8 * self.cipher.block))).to_bytes(self.cipher.block, "big")

    def _iv(self) -> bytes:
        if self.cipher.aes:
            return ecb_encrypt_block(self.ks_enc, self._ssc_bytes(), self.cipher)
        return b"\x00" * 8

    def _mac(self, data: bytes) -> bytes:
        return mac(self.ks_mac, pad(self._ssc_bytes() + data, self.cipher.block), self.cipher)

    def _encrypt(self, data: bytes) -> bytes:
        return encrypt(self.ks_enc, pad(data, self.cipher.block), self.cipher, self._iv())

    def _decrypt(self, data: bytes) -> bytes:
        return unpad(decrypt(self.ks_enc, data, self.cipher, self._iv()))

    # -- the reader's side ---------------------------------------------------------------

    def protect_command(self, apdu: bytes) -> bytes:
        """The protected form of a plain command APDU (increments the SSC)."""
        cmd = parse_command(apdu)
        if cmd.cla & 0x0C:
            raise ValueError("the command already carries secure messaging")
        self.ssc += 1
        cla = cmd.cla | 0x0C
        header = bytes((cla, cmd.ins, cmd.p1, cmd.p2))
        do87 = b""
        if cmd.data:
            encrypted = self._encrypt(cmd.data)
            do87 = tlv(0x85, encrypted) if cmd.ins & 1 else tlv(0x87, b"\x01" + encrypted)
        do97 = b""
        if cmd.ne is not None:
            le = bytes((cmd.ne & 0xFF,)) if cmd.ne <= 256 else (cmd.ne & 0xFFFF).to_bytes(2, "big")
            do97 = tlv(0x97, le)
        cc = self._mac(pad(header, self.cipher.block) + do87 + do97)
        body = do87 + do97 + tlv(0x8E, cc)
        extended = cmd.extended or len(body) > 255
        return command(cla, cmd.ins, cmd.p1, cmd.p2, body, le=65536 if extended else 256)

    def unprotect_response(self, resp: bytes) -> bytes:
        """The plain response (data + SW) of a protected one; ChipError when its MAC fails,
        when it lacks the MAC or when the chip refused the secure messaging."""
        data, sw = split_response(resp)
        self.ssc += 1
        if not data:
            if sw in (SW_SM_MISSING, SW_SM_INCORRECT):
                raise _broken(f"the chip refused the command ({sw:04X})")
            if sw == 0x9000:
                raise _broken("a response without its MAC")
            return resp  # an error some chips answer in the clear (6A82, 6982, ...)
        try:
            objects = parse_tlvs(data)
        except ValueError as exc:
            raise _broken(f"malformed response ({exc})") from None
        if not objects or objects[-1][0] != 0x8E:
            raise _broken("a response without its MAC")
        covered = b"".join(raw for _, _, raw in objects[:-1])
        if not hmac.compare_digest(self._mac(covered), objects[-1][1]):
            raise _broken("the response's MAC does not verify")
        plain = b""
        status: bytes | None = None
        for tag, value, _ in objects[:-1]:
            if tag == 0x87:
                if not value or value[0] != 0x01:
                    raise _broken("unknown padding indicator")
                plain = self._decrypt_checked(value[1:])
            elif tag == 0x85:
                plain = self._decrypt_checked(value)
            elif tag == 0x99:
                status = value
        if status is None or len(status) != 2:
            raise _broken("a response without its status word")
        return plain + status

    def _decrypt_checked(self, data: bytes) -> bytes:
        try:
            return self._decrypt(data)
        except ValueError as exc:
            raise _broken(f"undecipherable data ({exc})") from None

    # -- the chip's side -----------------------------------------------------------------

    def unprotect_command(self, apdu: bytes) -> bytes:
        """The plain command of a protected one (increments the SSC); ChipError when it is
        not protected, is malformed or its MAC fails."""
        try:
            cmd = parse_command(apdu)
            objects = parse_tlvs(cmd.data)
        except ValueError as exc:
            raise _broken(f"malformed command ({exc})") from None
        if cmd.cla & 0x0C != 0x0C:
            raise _broken("a plain command inside the channel")
        self.ssc += 1
        if not objects or objects[-1][0] != 0x8E:
            raise _broken("a command without its MAC")
        covered = b"".join(raw for _, _, raw in objects[:-1])
        if not hmac.compare_digest(
            self._mac(pad(cmd.header, self.cipher.block) + covered), objects[-1][1]
        ):
            raise _broken("the command's MAC does not verify")
        data = b""
        ne: int | None = None
        for tag, value, _ in objects[:-1]:
            if tag == 0x87:
                if not value or value[0] != 0x01:
                    raise _broken("unknown padding indicator")
                data = self._decrypt_checked(value[1:])
            elif tag == 0x85:
                data = self._decrypt_checked(value)
            elif tag == 0x97:
                raw = int.from_bytes(value, "big")
                ne = raw or (256 if len(value) <= 1 else 65536)
            else:
                raise _broken(f"unexpected data object {tag:02X}")
        self._last_ins = cmd.ins
        return command(cmd.cla & 0xF3, cmd.ins, cmd.p1, cmd.p2, data, ne)

    def protect_response(self, data: bytes, sw: int) -> bytes:
        """The protected response to the last command (increments the SSC)."""
        self.ssc += 1
        do87 = b""
        if data:
            encrypted = self._encrypt(data)
            do87 = tlv(0x85, encrypted) if self._last_ins & 1 else tlv(0x87, b"\x01" + encrypted)
        do99 = tlv(0x99, sw.to_bytes(2, "big"))
        return do87 + do99 + tlv(0x8E, self._mac(do87 + do99)) + sw.to_bytes(2, "big")


class SmSession:
    """The reader's secure channel over a transport (implements :class:`Session`)."""

    def __init__(self, transport: Transport, sm: SecureMessaging, access: str) -> None:
        self.transport = transport
        self.sm = sm
        self.access = access
        self.cipher = sm.cipher.name

    def transmit(self, apdu: bytes) -> bytes:
        protected = self.sm.protect_command(apdu)
        data, sw = exchange(self.transport, protected)
        return self.sm.unprotect_response(data + sw.to_bytes(2, "big"))

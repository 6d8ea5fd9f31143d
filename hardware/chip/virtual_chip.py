"""An ICAO 9303 chip in Python that speaks APDUs: the tests' and the demo's document.

It is a :class:`~hardware.chip.apdu.Transport`, so the reader talks to it exactly as to a
card behind PC/SC (and ``tests/chip/vpcd.py`` puts it behind ``pcscd``). It keeps a file
system (EF.CardAccess in the master file, the eMRTD application ``A0000002471001`` with
EF.COM, the data groups and EF.SOD), answers SELECT and READ BINARY (by file id, by short
file id, at offsets beyond 32767 with the odd INS ``B1``, with extended length when asked)
and leaves access control, secure messaging and chip authentication to a
:class:`ChipSecurity` (``card_security.CardSecurity`` in the product): once a channel is
open every other command is unwrapped and every answer wrapped by it.

Fault hooks for the tampering tests: ``silent_after`` (stop answering after N APDUs, as a
card taken off the reader mid-read), ``files`` can be replaced after signing, and
``extended=False`` behaves like a chip without extended length.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Protocol

from admission.chip import ChipCode
from hardware.chip.access import CanKey
from hardware.chip.apdu import ChipError, split_response
from hardware.chip.card_security import CardSecurity
from hardware.chip.document_pki import DocumentPki, make_pki
from hardware.chip.lds import FILE_IDS, JPEG, SHORT_IDS, build_com, build_dg1, build_dg2
from hardware.chip.passive import TrustStore
from hardware.chip.reader import EMRTD_AID, mrz_key

__all__ = [
    "EMRTD_AID",
    "ChipSecurity",
    "PlainSecurity",
    "VirtualChip",
    "make_document",
]

_MASTER_FILE_ONLY = frozenset({"CardAccess"})  # 9303-10 §3.11: EF.CardAccess sits in the MF

SW_OK = 0x9000
SW_END_OF_FILE = 0x6282  # fewer bytes than Le: the end of the file was reached
SW_WRONG_LENGTH = 0x6700
SW_SECURITY_NOT_SATISFIED = 0x6982
SW_SM_OBJECTS_WRONG = 0x6988
SW_FILE_NOT_FOUND = 0x6A82
SW_WRONG_P1P2 = 0x6B00
SW_INS_NOT_SUPPORTED = 0x6D00
SW_CLA_NOT_SUPPORTED = 0x6E00


class ChipSecurity(Protocol):
    """The chip's side of access control and secure messaging (``CardSecurity``)."""

    def handle(self, apdu: bytes) -> bytes | None: ...

    @property
    def secure(self) -> bool: ...

    def unwrap_command(self, apdu: bytes) -> bytes: ...

    def drop(self) -> None: ...

    def wrap_response(self, data: bytes, sw: int) -> bytes: ...


class PlainSecurity:
    """No access control at all: every file reads in the clear (an ISO 14443 card with an
    unprotected application; the plumbing's tests)."""

    secure = False

    def handle(self, apdu: bytes) -> bytes | None:
        return None

    def unwrap_command(self, apdu: bytes) -> bytes:
        return apdu

    def wrap_response(self, data: bytes, sw: int) -> bytes:
        return data + sw.to_bytes(2, "big")

    def drop(self) -> None:
        """Nothing to forget: no channel is ever open."""


class VirtualChip:
    """A chip holding ``files`` (names of ``lds.FILE_IDS`` -> content).

    ``require_channel``: every application file needs the secure channel open (an eMRTD
    always does; PlainSecurity chips do not). ``silent_after``: after that many APDUs it
    answers nothing (``ChipError(CHIP_SILENT)`` in process). ``max_le``: the most a
    single READ BINARY returns (a real chip's buffer)."""

    def __init__(
        self,
        files: Mapping[str, bytes],
        security: ChipSecurity,
        *,
        silent_after: int | None = None,
        extended: bool = True,
        require_channel: bool = True,
        max_le: int = 0x10000,
        atr: bytes | None = None,
    ) -> None:
        unknown = set(files) - set(FILE_IDS)
        if unknown:
            raise ValueError(f"unknown files: {sorted(unknown)}")
        self.files = dict(files)
        self.security = security
        self.silent_after = silent_after
        self.extended = extended
        self.require_channel = require_channel
        self.max_le = max_le
        self._atr = atr or _contactless_atr()
        self.received = 0  # APDUs seen, answered or not
        self._applet = False
        self._current: str | None = None

    def atr(self) -> bytes:
        return self._atr

    def reset(self) -> None:
        """A new field: the master file selected, no file, no channel kept by us."""
        self._applet = False
        self._current = None
        self.security.drop()

    def transmit(self, apdu: bytes) -> bytes:
        self.received += 1
        if self.silent_after is not None and self.received > self.silent_after:
            raise ChipError(ChipCode.CHIP_SILENT, "the virtual chip stopped answering")
        if len(apdu) < 4:
            return _sw(SW_WRONG_LENGTH)
        answer = self.security.handle(apdu)
        if answer is not None:
            return answer
        if self.security.secure:
            try:
                plain = self.security.unwrap_command(apdu)
            except ChipError:
                return _sw(SW_SM_OBJECTS_WRONG)
            data, sw = split_response(self._plain(plain, secured=True))
            return self.security.wrap_response(data, sw)
        if apdu[0] & 0x0C:  # an SM command with no channel open
            return _sw(SW_SM_OBJECTS_WRONG)
        return self._plain(apdu, secured=False)

    # -- the file system -------------------------------------------------------------------

    def _plain(self, apdu: bytes, *, secured: bool) -> bytes:
        try:
            parsed = _parse(apdu)
        except ValueError:
            return _sw(SW_WRONG_LENGTH)
        cla, ins, p1, p2, data, le, extended = parsed
        if extended and not self.extended:
            return _sw(SW_WRONG_LENGTH)
        if cla & 0xF3 != 0:
            return _sw(SW_CLA_NOT_SUPPORTED)
        if ins == 0xA4:
            return self._select(p1, p2, data)
        if ins in (0xB0, 0xB1):
            return self._read(ins, p1, p2, data, le, secured=secured)
        return _sw(SW_INS_NOT_SUPPORTED)

    def _select(self, p1: int, p2: int, data: bytes) -> bytes:
        if p1 == 0x04:  # by DF name (ISO 7816-4 §11.2.2)
            if data == EMRTD_AID:
                self._applet, self._current = True, None
                return _sw(SW_OK)
            return _sw(SW_FILE_NOT_FOUND)
        if p1 in (0x00, 0x02) and len(data) == 2:
            fid = int.from_bytes(data, "big")
            if p1 == 0x00 and fid == 0x3F00:
                self._applet, self._current = False, None
                return _sw(SW_OK)
            name = self._by_fid(fid)
            if name is None:
                return _sw(SW_FILE_NOT_FOUND)
            self._current = name
            return _sw(SW_OK)
        if p1 == 0x00 and not data:  # the MF
            self._applet, self._current = False, None
            return _sw(SW_OK)
        return _sw(SW_WRONG_P1P2)

    def _by_fid(self, fid: int) -> str | None:
        for name, value in FILE_IDS.items():
            if value == fid and name in self.files and self._visible(name):
                return name
        return None

    def _by_sfi(self, sfi: int) -> str | None:
        for name, value in SHORT_IDS.items():
            if value == sfi and name in self.files and self._visible(name):
                return name
        return None

    def _visible(self, name: str) -> bool:
        # EF.CardAccess is read from the MF; an application's files only inside it
        return name in _MASTER_FILE_ONLY or self._applet

    def _read(
        self, ins: int, p1: int, p2: int, data: bytes, le: int | None, *, secured: bool
    ) -> bytes:
        if ins == 0xB0:
            if p1 & 0x80:  # P1 = 100xxxxx: short file id, offset in P2
                name = self._by_sfi(p1 & 0x1F)
                if name is None:
                    return _sw(SW_FILE_NOT_FOUND)
                self._current, offset = name, p2
            else:
                offset = ((p1 & 0x7F) << 8) | p2
        else:  # odd INS: offset in a DO 54 (ISO 7816-4 §11.3.3), file id in P1 P2
            if (p1, p2) != (0, 0):
                name = self._by_fid((p1 << 8) | p2)
                if name is None:
                    return _sw(SW_FILE_NOT_FOUND)
                self._current = name
            if len(data) < 3 or data[0] != 0x54 or data[1] != len(data) - 2:
                return _sw(SW_WRONG_P1P2)
            offset = int.from_bytes(data[2:], "big")
        if self._current is None:
            return _sw(0x6986)  # command not allowed: no current EF
        if self.require_channel and not secured and self._current not in _MASTER_FILE_ONLY:
            return _sw(SW_SECURITY_NOT_SATISFIED)
        content = self.files[self._current]
        if offset > len(content):
            return _sw(SW_WRONG_P1P2)
        want = 0x10000 if le is None else le
        want = min(want, self.max_le)
        if ins == 0xB1:
            # the answer is a DO 53 (ISO 7816-4 §11.3.3): its tag and length fit within Le
            room = _do53_room(want)
            chunk = content[offset : offset + room]
            body = b"\x53" + _der_length(len(chunk)) + chunk
        else:
            room = want
            chunk = content[offset : offset + want]
            body = chunk
        sw = SW_END_OF_FILE if le is not None and len(chunk) < room else SW_OK
        return body + sw.to_bytes(2, "big")


def make_document(
    mrz: str,
    photo: bytes,
    *,
    access: str = "PACE",
    can: str = "123456",
    pki: DocumentPki | None = None,
    country: str = "ES",
    photo_mime: str = JPEG,
    chip_auth: bool = False,
    pace_curve: str = "brainpoolP256r1",
    pace_cipher: str = "AES-128",
    replace: Mapping[str, bytes] | None = None,
    silent_after: int | None = None,
    extended: bool = True,
    at: datetime | None = None,
) -> tuple[VirtualChip, TrustStore]:
    """A signed document's chip and the trust store that verifies it.

    ``access``: ``"PACE"`` (the CAN only, as a DNIe 3.0/4.0), ``"BAC"`` (the MRZ only, an
    older passport) or ``"PACE+BAC"`` (the MRZ opens both, a recent passport). ``pki``:
    the signer (a CSCA and DSC of ``country`` made at ``at`` when None). ``chip_auth``:
    a DG14 with a chip authentication key. ``replace``: files swapped in AFTER signing
    (the tampering tests: a changed DG1 byte, another DG2, a truncated SOD).
    """
    key = mrz_key(mrz)
    if access == "PACE":
        security = CardSecurity(
            CanKey(can),
            pace=True,
            bac=False,
            pace_curve=pace_curve,
            pace_cipher=pace_cipher,
            chip_auth_private_key=_chip_auth_key(pace_curve) if chip_auth else None,
        )
    elif access in ("BAC", "PACE+BAC"):
        security = CardSecurity(
            key,
            pace=access != "BAC",
            bac=True,
            pace_curve=pace_curve,
            pace_cipher=pace_cipher,
            chip_auth_private_key=_chip_auth_key(pace_curve) if chip_auth else None,
        )
    else:
        raise ValueError(f"unknown access {access!r}")
    groups = {1: build_dg1(mrz), 2: build_dg2(photo, photo_mime)}
    dg14 = security.dg14()
    if dg14:
        groups[14] = dg14
    signer = pki or make_pki(country, now=at)
    files = {f"DG{n}": content for n, content in groups.items()}
    files["COM"] = build_com(sorted(groups))
    files["SOD"] = signer.sod(groups)
    card_access = security.card_access()
    if card_access:
        files["CardAccess"] = card_access
    files.update(replace or {})
    chip = VirtualChip(files, security, silent_after=silent_after, extended=extended)
    trust: TrustStore = signer.trust()
    return chip, trust


def _chip_auth_key(curve: str) -> bytes:
    """A fresh chip authentication private key (the raw scalar) on ``curve``."""
    from cryptography.hazmat.primitives.asymmetric import ec

    curves: dict[str, ec.EllipticCurve] = {
        "brainpoolP256r1": ec.BrainpoolP256R1(),
        "brainpoolP384r1": ec.BrainpoolP384R1(),
        "brainpoolP512r1": ec.BrainpoolP512R1(),
        "secp256r1": ec.SECP256R1(),
        "secp384r1": ec.SECP384R1(),
        "secp521r1": ec.SECP521R1(),
    }
    private = ec.generate_private_key(curves[curve])
    size = (private.curve.key_size + 7) // 8
    return private.private_numbers().private_value.to_bytes(size, "big")


def _parse(apdu: bytes) -> tuple[int, int, int, int, bytes, int | None, bool]:
    """(CLA, INS, P1, P2, data, Le, extended) of a command (ISO 7816-4 §5.1); Le ``None``
    when absent, 256 or 65536 for a zero Le."""
    cla, ins, p1, p2 = apdu[:4]
    body = apdu[4:]
    if not body:
        return cla, ins, p1, p2, b"", None, False
    if len(body) == 1:
        return cla, ins, p1, p2, b"", body[0] or 0x100, False
    if body[0] != 0:  # short Lc
        lc = body[0]
        rest = body[1:]
        if len(rest) == lc:
            return cla, ins, p1, p2, rest, None, False
        if len(rest) == lc + 1:
            return cla, ins, p1, p2, rest[:lc], rest[lc] or 0x100, False
        raise ValueError("bad short APDU")
    if len(body) == 3:  # extended Le only
        return cla, ins, p1, p2, b"", int.from_bytes(body[1:], "big") or 0x10000, True
    lc = int.from_bytes(body[1:3], "big")
    rest = body[3:]
    if lc == 0:
        raise ValueError("bad extended APDU")
    if len(rest) == lc:
        return cla, ins, p1, p2, rest, None, True
    if len(rest) == lc + 2:
        return cla, ins, p1, p2, rest[:lc], int.from_bytes(rest[lc:], "big") or 0x10000, True
    raise ValueError("bad extended APDU")


def _do53_room(le: int) -> int:
    """The most content a DO 53 of at most ``le`` bytes carries."""
    for header in (2, 3, 4, 5):
        room = le - header
        if len(_der_length(room)) + 1 == header:
            return max(0, room)
    return max(0, le - 5)


def _der_length(n: int) -> bytes:
    if n < 0x80:
        return bytes((n,))
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes((0x80 | len(raw),)) + raw


def _sw(sw: int) -> bytes:
    return sw.to_bytes(2, "big")


def _contactless_atr() -> bytes:
    """The ATR a PC/SC reader makes up for an ISO 14443-4 card without historical bytes
    (PC/SC part 3 §3.1.3.2.3): 3B 80 80 01 and the check byte."""
    atr = bytes.fromhex("3B808001")
    check = 0
    for byte in atr[1:]:
        check ^= byte
    return atr + bytes((check,))

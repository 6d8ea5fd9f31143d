"""The chip's side of access control, secure messaging and chip authentication (ICAO
9303-11 §4.3 BAC, §4.4 PACE, §6.2 chip authentication, §9.8 secure messaging), for the
virtual chip of the tests and the demo.

:class:`CardSecurity` answers the security commands (GET CHALLENGE, MUTUAL AUTHENTICATE,
MSE:Set AT / KAT, GENERAL AUTHENTICATE) and, once a channel is open, unwraps every other
command and wraps its response. Like a real chip it answers ``6988`` to a command whose
secure messaging fails and drops the channel.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable
from dataclasses import dataclass

from admission.chip import ChipCode
from hardware.chip.access import AccessKey, MrzKey, bac_key_seed, password_reference
from hardware.chip.apdu import ChipError
from hardware.chip.bac import (
    GET_CHALLENGE,
    MUTUAL_AUTHENTICATE,
    bac_keys,
    cryptogram,
    open_cryptogram,
    session_messaging,
)
from hardware.chip.crypto import ENC, MAC, cipher_spec, encrypt, kdf
from hardware.chip.ec import curve_by_name, decode_point, encode_point, multiply
from hardware.chip.pace import (
    GENERAL_AUTHENTICATE,
    MSE,
    auth_token,
    generate_key,
    map_generator,
    pace_keys,
    password_key,
)
from hardware.chip.securityinfo import (
    build_card_access,
    build_dg14,
    ca_oid,
    decode_oid,
    pace_oid,
)
from hardware.chip.sm import SW_SM_INCORRECT, SecureMessaging, parse_command, read_tlv, tlv

__all__ = ["CardSecurity"]

# Status words (ISO 7816-4 §5.1.3).
SW_OK = 0x9000
SW_AUTH_FAILED = 0x6300
SW_WRONG_LENGTH = 0x6700
SW_CONDITIONS = 0x6985
SW_WRONG_DATA = 0x6A80
SW_REFERENCE_NOT_FOUND = 0x6A88
SW_INS_NOT_SUPPORTED = 0x6D00


def _sw(sw: int, data: bytes = b"") -> bytes:
    return data + sw.to_bytes(2, "big")


def _fields(data: bytes) -> dict[int, bytes]:
    """The data objects of an MSE or of a 7C template (ValueError when malformed)."""
    out: dict[int, bytes] = {}
    while data:
        tag, value, data = read_tlv(data)
        out[tag] = value
    return out


@dataclass
class _PaceRun:
    """The chip's state between the GENERAL AUTHENTICATE steps of one PACE run."""

    step: int = 1
    nonce: bytes = b""
    mapped: tuple[int, int] | None = None
    terminal_key: tuple[int, int] | None = None
    chip_key: tuple[int, int] | None = None
    ks_enc: bytes = b""
    ks_mac: bytes = b""


class CardSecurity:
    """One chip's secrets and the state of its channel."""

    def __init__(
        self,
        key: AccessKey,
        *,
        pace: bool,
        bac: bool,
        pace_curve: str = "brainpoolP256r1",
        pace_cipher: str = "AES-128",
        chip_auth_private_key: bytes | None = None,
        rng: Callable[[int], bytes] = os.urandom,
    ) -> None:
        if bac and not isinstance(key, MrzKey):
            raise ValueError("BAC needs the MRZ key")
        self.key = key
        self.pace = pace
        self.bac = bac
        self.curve = curve_by_name(pace_curve)
        self.cipher = cipher_spec(pace_cipher)
        self.chip_auth_private_key = chip_auth_private_key
        self.rng = rng
        self._sm: SecureMessaging | None = None
        self._challenge: bytes | None = None
        self._pace: _PaceRun | None = None
        self._ca_cipher: str | None = None

    # -- the files this chip's security puts on it ----------------------------------------

    def card_access(self) -> bytes:
        """EF.CardAccess: the SecurityInfos offering PACE (empty when PACE is off)."""
        return build_card_access(self.curve, self.cipher) if self.pace else b""

    def dg14(self) -> bytes | None:
        """DG14 (tag 0x6E) with the chip authentication key, None when it has none."""
        if self.chip_auth_private_key is None:
            return None
        return build_dg14(self.curve, self.cipher, self.chip_auth_private_key)

    # -- the channel ------------------------------------------------------------------------

    @property
    def secure(self) -> bool:
        """A channel is open: every command but a new access control is protected."""
        return self._sm is not None

    def drop(self) -> None:
        """The field went away (a reset, the card lifted): no channel, no half-done access
        control survives it, as on a real chip whose RAM loses power."""
        self._sm = None
        self._pace = None
        self._ca_cipher = None

    def unwrap_command(self, apdu: bytes) -> bytes:
        """The plain command inside a protected one; on any secure messaging error the
        channel is dropped and ``ChipError`` raised (the chip then answers 6988)."""
        if self._sm is None:
            raise ChipError(ChipCode.CHIP_SILENT, "secure messaging: no channel is open")
        try:
            return self._sm.unprotect_command(apdu)
        except ChipError:
            self._sm = None
            raise

    def wrap_response(self, data: bytes, sw: int) -> bytes:
        """The protected response (data + SW) to the last unwrapped command."""
        if self._sm is None:
            return _sw(sw, data)
        return self._sm.protect_response(data, sw)

    def handle(self, apdu: bytes) -> bytes | None:
        """The answer to a security command, None for any other command."""
        if len(apdu) < 4:
            return None
        cla, ins = apdu[0], apdu[1]
        if cla & 0x0C == 0x0C:
            if self._sm is not None and ins in (MSE, GENERAL_AUTHENTICATE):
                return self._chip_authentication(apdu)
            return None
        if ins == MSE and apdu[2:4] == b"\xc1\xa4":
            self._sm = None
            return self._set_pace(apdu)
        if ins == GENERAL_AUTHENTICATE:
            self._sm = None
            return self._pace_step(apdu)
        if ins == GET_CHALLENGE:
            self._sm = None
            return self._get_challenge(apdu)
        if ins == MUTUAL_AUTHENTICATE:
            self._sm = None
            return self._mutual_authenticate(apdu)
        return None

    # -- BAC (§4.3) ---------------------------------------------------------------------------

    def _get_challenge(self, apdu: bytes) -> bytes:
        try:
            cmd = parse_command(apdu)
        except ValueError:
            return _sw(SW_WRONG_LENGTH)
        if cmd.ne != 8:
            return _sw(SW_WRONG_LENGTH)
        self._challenge = self.rng(8)
        return _sw(SW_OK, self._challenge)

    def _mutual_authenticate(self, apdu: bytes) -> bytes:
        challenge, self._challenge = self._challenge, None
        if not self.bac or not isinstance(self.key, MrzKey):
            return _sw(SW_INS_NOT_SUPPORTED)
        if challenge is None:
            return _sw(SW_CONDITIONS)
        try:
            cmd = parse_command(apdu)
        except ValueError:
            return _sw(SW_WRONG_LENGTH)
        k_enc, k_mac = bac_keys(bac_key_seed(self.key))
        plain = open_cryptogram(k_enc, k_mac, cmd.data)
        if plain is None or plain[8:16] != challenge:
            return _sw(SW_AUTH_FAILED)
        rnd_ifd, k_ifd = plain[:8], plain[16:]
        k_ic = self.rng(16)
        answer = cryptogram(k_enc, k_mac, challenge + rnd_ifd + k_ic)
        self._sm = session_messaging(k_ifd, k_ic, challenge, rnd_ifd)
        return _sw(SW_OK, answer)

    # -- PACE (§4.4) ----------------------------------------------------------------------------

    def _set_pace(self, apdu: bytes) -> bytes:
        self._pace = None
        if not self.pace:
            return _sw(SW_INS_NOT_SUPPORTED)
        try:
            fields = _fields(parse_command(apdu).data)
            oid = decode_oid(fields[0x80])
            reference = fields[0x83]
        except (ValueError, KeyError):
            return _sw(SW_WRONG_DATA)
        if oid != pace_oid(self.cipher):
            return _sw(SW_REFERENCE_NOT_FOUND)
        if 0x84 in fields and fields[0x84] != bytes((self.curve.parameter_id,)):
            return _sw(SW_REFERENCE_NOT_FOUND)
        if reference != bytes((password_reference(self.key),)):
            return _sw(SW_REFERENCE_NOT_FOUND)  # this chip does not know that password
        self._pace = _PaceRun()
        return _sw(SW_OK)

    def _pace_step(self, apdu: bytes) -> bytes:
        run = self._pace
        if run is None:
            return _sw(SW_CONDITIONS)
        try:
            cmd = parse_command(apdu)
            tag, template, _ = read_tlv(cmd.data)
            if tag != 0x7C:
                raise ValueError("not dynamic authentication data")
            fields = _fields(template)
            answer = self._pace_answer(run, cmd.cla, fields)
        except (ValueError, KeyError):
            self._pace = None
            return _sw(SW_WRONG_DATA)
        if answer is None:
            self._pace = None
            return _sw(SW_AUTH_FAILED)
        return _sw(SW_OK, tlv(0x7C, answer))

    def _pace_answer(self, run: _PaceRun, cla: int, fields: dict[int, bytes]) -> bytes | None:
        curve, cipher = self.curve, self.cipher
        chained = cla & 0x10 == 0x10
        if run.step == 1 and not fields and chained:
            run.nonce = self.rng(cipher.block)
            run.step = 2
            return tlv(0x80, encrypt(password_key(self.key, cipher), run.nonce, cipher))
        if run.step == 2 and 0x81 in fields and chained:
            terminal_map = decode_point(fields[0x81], curve)
            private, public = generate_key(self.rng, curve)
            run.mapped = map_generator(run.nonce, private, terminal_map, curve)
            if run.mapped is None:
                return None
            run.step = 3
            return tlv(0x82, encode_point(public, curve))
        if run.step == 3 and 0x83 in fields and chained and run.mapped is not None:
            run.terminal_key = decode_point(fields[0x83], curve)
            private, run.chip_key = generate_key(self.rng, curve, run.mapped)
            keys = pace_keys(private, run.terminal_key, curve, cipher)
            if keys is None or run.terminal_key == run.chip_key:
                return None
            run.ks_enc, run.ks_mac = keys
            run.step = 4
            return tlv(0x84, encode_point(run.chip_key, curve))
        if run.step == 4 and 0x85 in fields and not chained and run.chip_key and run.terminal_key:
            oid = pace_oid(cipher)
            expected = auth_token(run.ks_mac, oid, run.chip_key, curve, cipher)
            if not hmac.compare_digest(fields[0x85], expected):
                return None
            self._pace = None
            self._sm = SecureMessaging(run.ks_enc, run.ks_mac, 0, cipher)
            return tlv(0x86, auth_token(run.ks_mac, oid, run.terminal_key, curve, cipher))
        raise ValueError("out of order")

    # -- chip authentication (§6.2) ----------------------------------------------------------

    def _chip_authentication(self, apdu: bytes) -> bytes:
        """MSE:Set AT + GENERAL AUTHENTICATE (AES) or MSE:Set KAT (3DES), inside the
        channel; the answer goes under the old keys, then the new keys take over."""
        try:
            plain = self.unwrap_command(apdu)
        except ChipError:
            return _sw(SW_SM_INCORRECT)
        cmd = parse_command(plain)
        try:
            fields = _fields(cmd.data)
            if cmd.ins == MSE and cmd.p1 == 0x41 and cmd.p2 == 0xA4:
                cipher_name = self._ca_protocol(decode_oid(fields[0x80]))
                if cipher_name is None:
                    return self.wrap_response(b"", SW_REFERENCE_NOT_FOUND)
                self._ca_cipher = cipher_name
                return self.wrap_response(b"", SW_OK)
            if cmd.ins == MSE and cmd.p1 == 0x41 and cmd.p2 == 0xA6:
                return self._ca_agree(fields[0x91], "3DES", b"")
            if cmd.ins == GENERAL_AUTHENTICATE and self._ca_cipher is not None:
                tag, template, _ = read_tlv(cmd.data)
                if tag != 0x7C:
                    raise ValueError("not dynamic authentication data")
                return self._ca_agree(_fields(template)[0x80], self._ca_cipher, tlv(0x7C, b""))
        except (ValueError, KeyError):
            return self.wrap_response(b"", SW_WRONG_DATA)
        return self.wrap_response(b"", SW_CONDITIONS)

    def _ca_protocol(self, oid: str) -> str | None:
        """The cipher of the chip authentication protocol asked, None when not this chip's."""
        if self.chip_auth_private_key is None or oid != ca_oid(self.cipher):
            return None
        return self.cipher.name

    def _ca_agree(self, terminal_public: bytes, cipher_name: str, data: bytes) -> bytes:
        if self.chip_auth_private_key is None or cipher_name != self.cipher.name:
            return self.wrap_response(b"", SW_CONDITIONS)
        point = decode_point(terminal_public, self.curve)
        shared = multiply(int.from_bytes(self.chip_auth_private_key, "big"), point, self.curve)
        if shared is None:
            return self.wrap_response(b"", SW_WRONG_DATA)
        answer = self.wrap_response(data, SW_OK)
        secret = shared[0].to_bytes(self.curve.size, "big")
        cipher = self.cipher
        self._sm = SecureMessaging(kdf(secret, ENC, cipher), kdf(secret, MAC, cipher), 0, cipher)
        self._ca_cipher = None
        return answer

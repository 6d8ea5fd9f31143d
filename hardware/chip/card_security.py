"""The chip's side of access control, secure messaging and chip authentication (ICAO
9303-11 §4.3 BAC, §4.4 PACE, §6.2 chip authentication, §9.8 secure messaging), for the
virtual chip of the tests and the demo.

:class:`CardSecurity` answers the security commands (GET CHALLENGE, MUTUAL AUTHENTICATE,
MSE:Set AT / KAT, GENERAL AUTHENTICATE) and, once a channel is open, unwraps every other
command and wraps its response. Like a real chip it answers ``6988`` to a command whose
secure messaging fails and drops the channel.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from admission.chip import ChipCode
from hardware.chip.access import AccessKey, MrzKey, bac_key_seed
from hardware.chip.apdu import ChipError
from hardware.chip.bac import (
    GET_CHALLENGE,
    MUTUAL_AUTHENTICATE,
    bac_keys,
    cryptogram,
    open_cryptogram,
    session_messaging,
)
from hardware.chip.crypto import cipher_spec
from hardware.chip.ec import curve_by_name
from hardware.chip.sm import SW_SM_INCORRECT, SecureMessaging, parse_command

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

    # -- the files this chip's security puts on it ----------------------------------------

    def card_access(self) -> bytes:
        """EF.CardAccess: the SecurityInfos offering PACE (empty when PACE is off)."""
        return b""

    def dg14(self) -> bytes | None:
        """DG14 (tag 0x6E) with the chip authentication key, None when it has none."""
        return None

    # -- the channel ------------------------------------------------------------------------

    @property
    def secure(self) -> bool:
        """A channel is open: every command but a new access control is protected."""
        return self._sm is not None

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
            return None
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


# Kept for the secure messaging refusal the virtual chip sends after unwrap_command fails.
SM_REFUSED = _sw(SW_SM_INCORRECT)

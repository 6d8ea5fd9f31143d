"""Basic Access Control (ICAO 9303-11 §4.3), the terminal's side.

The keys come from the MRZ (``K_seed`` -> KEnc, KMAC, §9.7.2). The terminal asks the
chip's challenge RND.IC (GET CHALLENGE), sends ``E(KEnc, RND.IFD || RND.IC || K.IFD)``
and its retail MAC (MUTUAL AUTHENTICATE), and checks the chip's answer ``E(KEnc, RND.IC ||
RND.IFD || K.IC)``. The session keys derive from ``K.IFD xor K.IC``; the SSC starts at
the last four bytes of RND.IC followed by the last four of RND.IFD (§9.8.1).
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable

from admission.chip import ChipCode
from hardware.chip.access import MrzKey, bac_key_seed
from hardware.chip.apdu import ChipError, Transport, command, split_response
from hardware.chip.crypto import CIPHERS, ENC, MAC, decrypt, encrypt, kdf, mac, pad
from hardware.chip.sm import SecureMessaging, SmSession

__all__ = [
    "GET_CHALLENGE",
    "MUTUAL_AUTHENTICATE",
    "bac_keys",
    "cryptogram",
    "open_bac",
    "open_cryptogram",
    "session_messaging",
]

GET_CHALLENGE = 0x84
MUTUAL_AUTHENTICATE = 0x82
_TDES = CIPHERS["3DES"]


def bac_keys(key_seed: bytes) -> tuple[bytes, bytes]:
    """(KEnc, KMAC) of a key seed (§9.7.1)."""
    return kdf(key_seed, ENC, _TDES), kdf(key_seed, MAC, _TDES)


def cryptogram(k_enc: bytes, k_mac: bytes, plain: bytes) -> bytes:
    """``E(KEnc, plain) || MAC(KMAC, E(...))``: 40 bytes of MUTUAL AUTHENTICATE."""
    encrypted = encrypt(k_enc, plain, _TDES)
    return encrypted + mac(k_mac, pad(encrypted, 8), _TDES)


def open_cryptogram(k_enc: bytes, k_mac: bytes, data: bytes) -> bytes | None:
    """The 32 plain bytes of a cryptogram, None when its length or MAC is wrong."""
    if len(data) != 40:
        return None
    if not hmac.compare_digest(mac(k_mac, pad(data[:32], 8), _TDES), data[32:]):
        return None
    return decrypt(k_enc, data[:32], _TDES)


def session_messaging(k_ifd: bytes, k_ic: bytes, rnd_ic: bytes, rnd_ifd: bytes) -> SecureMessaging:
    """The channel's keys (from ``K.IFD xor K.IC``) and its starting SSC (§9.8.1)."""
    seed = bytes(a ^ b for a, b in zip(k_ifd, k_ic, strict=True))
    ks_enc, ks_mac = bac_keys(seed)
    ssc = int.from_bytes(rnd_ic[4:] + rnd_ifd[4:], "big")
    return SecureMessaging(ks_enc, ks_mac, ssc, _TDES)


def open_bac(
    transport: Transport, key: MrzKey, rng: Callable[[int], bytes] = os.urandom
) -> SmSession:
    """BAC with ``key``; a refusal is ``ChipError(ACCESS_DENIED)``."""
    k_enc, k_mac = bac_keys(bac_key_seed(key))
    data, sw = split_response(transport.transmit(command(0x00, GET_CHALLENGE, 0, 0, le=8)))
    if sw != 0x9000 or len(data) != 8:
        raise ChipError(ChipCode.ACCESS_DENIED, f"BAC: GET CHALLENGE refused ({sw:04X})")
    rnd_ic = data
    rnd_ifd = rng(8)
    k_ifd = rng(16)
    challenge = cryptogram(k_enc, k_mac, rnd_ifd + rnd_ic + k_ifd)
    data, sw = split_response(
        transport.transmit(command(0x00, MUTUAL_AUTHENTICATE, 0, 0, challenge, le=40))
    )
    if sw != 0x9000:
        raise ChipError(ChipCode.ACCESS_DENIED, f"BAC: MUTUAL AUTHENTICATE refused ({sw:04X})")
    plain = open_cryptogram(k_enc, k_mac, data)
    if plain is None or plain[:8] != rnd_ic or plain[8:16] != rnd_ifd:
        raise ChipError(ChipCode.ACCESS_DENIED, "BAC: the chip's cryptogram does not verify")
    return SmSession(transport, session_messaging(k_ifd, plain[16:], rnd_ic, rnd_ifd), "BAC")

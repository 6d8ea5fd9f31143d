"""Chip Authentication v1 with ECDH (ICAO 9303-11 §6.2): the chip proves it holds the
private key whose public half DG14 carries (and passive authentication signed), so a
copied chip, which cannot have that key, is found out.

The terminal sends an ephemeral public key on the key's curve (MSE:Set AT + GENERAL
AUTHENTICATE for AES, MSE:Set KAT for 3DES), both sides derive ``KSenc``/``KSmac`` from
the x-coordinate of the ECDH secret and restart secure messaging with SSC = 0. The proof
is implicit: only the genuine chip can MAC its next answer under the new keys, so the
terminal sends one protected SELECT of EF.COM (P2 = 0C, no data back) and checks it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric import ec as _ec

from admission.chip import ChipCode
from hardware.chip.apdu import ChipError, Transport, command, split_response
from hardware.chip.crypto import ENC, MAC, kdf
from hardware.chip.ec import encode_point, multiply
from hardware.chip.pace import GENERAL_AUTHENTICATE, MSE, generate_key
from hardware.chip.securityinfo import ChipAuthKey, chip_auth_keys, encode_oid
from hardware.chip.sm import SecureMessaging, Session, SmSession, read_tlv, tlv

__all__ = ["chip_authenticate"]

_SELECT_EF_COM = bytes.fromhex("00A4020C02011E")


def _failed(detail: str) -> ChipError:
    return ChipError(ChipCode.CHIP_AUTH_FAILED, f"chip authentication: {detail}")


def _shared_x(private: int, key: ChipAuthKey) -> bytes:
    library = key.curve.library_curve()
    if library is not None:
        mine = _ec.derive_private_key(private, library)
        theirs = _ec.EllipticCurvePublicNumbers(*key.public_point, library).public_key()
        return mine.exchange(_ec.ECDH(), theirs)
    shared = multiply(private, key.public_point, key.curve)
    if shared is None:
        raise _failed("the shared secret is the point at infinity")
    return shared[0].to_bytes(key.curve.size, "big")


def chip_authenticate(
    session: Session,
    transport: Transport,
    dg14: bytes,
    *,
    rng: Callable[[int], bytes] = os.urandom,
) -> Session:
    """A new session under the chip authentication keys; ``ChipError(CHIP_AUTH_FAILED)``
    when DG14 has no usable key, the chip refuses, or it cannot speak the new keys."""
    try:
        keys = chip_auth_keys(dg14)
    except (ValueError, IndexError) as exc:
        raise _failed(f"DG14 is malformed ({exc})") from None
    if not keys:
        raise _failed("DG14 holds no ECDH chip authentication key")
    key = keys[0]
    private, public = generate_key(rng, key.curve)
    point = encode_point(public, key.curve)
    key_id = (
        tlv(0x84, key.key_id.to_bytes(max(1, (key.key_id.bit_length() + 7) // 8), "big"))
        if key.key_id is not None
        else b""
    )
    try:
        if key.cipher.aes:
            mse = tlv(0x80, encode_oid(key.oid)) + key_id
            _expect_ok(session.transmit(command(0x00, MSE, 0x41, 0xA4, mse)), "MSE:Set AT")
            ga = tlv(0x7C, tlv(0x80, point))
            _expect_ok(
                session.transmit(command(0x00, GENERAL_AUTHENTICATE, 0, 0, ga, le=256)),
                "GENERAL AUTHENTICATE",
            )
        else:
            kat = tlv(0x91, point) + key_id
            _expect_ok(session.transmit(command(0x00, MSE, 0x41, 0xA6, kat)), "MSE:Set KAT")
    except ChipError as exc:
        if exc.code is ChipCode.CHIP_AUTH_FAILED:
            raise
        raise _failed(exc.detail) from None
    secret = _shared_x(private, key)
    sm = SecureMessaging(kdf(secret, ENC, key.cipher), kdf(secret, MAC, key.cipher), 0, key.cipher)
    new = SmSession(transport, sm, session.access)
    try:
        _expect_ok(new.transmit(_SELECT_EF_COM), "the first command under the new keys")
    except ChipError as exc:
        if exc.code is ChipCode.CHIP_AUTH_FAILED:
            raise
        raise _failed(f"the chip does not hold DG14's key ({exc.detail})") from None
    return new


def _expect_ok(resp: bytes, what: str) -> bytes:
    data, sw = split_response(resp)
    if sw != 0x9000:
        raise _failed(f"{what} refused ({sw:04X})")
    if data:
        try:
            read_tlv(data)
        except ValueError:
            raise _failed(f"{what}: malformed answer") from None
    return data

"""PACE v2 with the Generic Mapping over ECDH (ICAO 9303-11 §4.4), the terminal's side,
and the computations both ends share.

1. MSE:Set AT selects the protocol, the password (1 MRZ, 2 CAN) and the curve.
2. GENERAL AUTHENTICATE (chained, CLA 10) four times: the chip's nonce ``s`` encrypted
   with ``K_pi = KDF(pi, 3)``; the mapping keys, whose shared point ``H`` gives the new
   generator ``G' = s*G + H``; the ephemeral keys on ``G'``, whose shared x-coordinate
   ``K`` gives ``KSenc = KDF(K, 1)`` and ``KSmac = KDF(K, 2)``; the authentication
   tokens, the MAC over the other side's key (``7F49 {06 OID, 86 point}``).
3. Secure messaging with the new keys and SSC = 0.

A wrong MRZ or CAN decrypts another nonce, so the keys differ and the chip refuses the
terminal's token (6300): :class:`ChipError` ``ACCESS_DENIED``.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric import ec as _ec

from admission.chip import ChipCode
from hardware.chip.access import AccessKey, pace_password, password_reference
from hardware.chip.apdu import ChipError, Transport, command, split_response
from hardware.chip.crypto import ENC, MAC, PACE_PI, CipherSpec, decrypt, kdf, mac, pad
from hardware.chip.ec import (
    Curve,
    Point,
    add,
    decode_point,
    encode_point,
    multiply,
    scalar_from_random,
)
from hardware.chip.securityinfo import PaceInfo, encode_oid
from hardware.chip.sm import SecureMessaging, SmSession, read_tlv, tlv

__all__ = [
    "GENERAL_AUTHENTICATE",
    "MSE",
    "PasswordRefused",
    "auth_token",
    "generate_key",
    "map_generator",
    "open_pace",
    "pace_keys",
    "password_key",
    "public_key_on_generator",
]

MSE = 0x22
GENERAL_AUTHENTICATE = 0x86


class PasswordRefused(ChipError):
    """MSE:Set AT refused: the chip does not take this kind of password (or protocol)."""


def password_key(key: AccessKey, cipher: CipherSpec) -> bytes:
    """``K_pi = KDF(pi, 3)`` (§4.4.3.1)."""
    return kdf(pace_password(key), PACE_PI, cipher)


def generate_key(
    rng: Callable[[int], bytes], curve: Curve, generator: tuple[int, int] | None = None
) -> tuple[int, tuple[int, int]]:
    """A private scalar and its public point on ``generator`` (the curve's own by
    default: computed by ``cryptography``; on a mapped ``G'`` by :mod:`ec`)."""
    while True:
        scalar = scalar_from_random(rng(curve.size), curve)
        if scalar is not None:
            break
    if generator is None or generator == curve.generator:
        return scalar, public_key_on_generator(scalar, curve)
    point = multiply(scalar, generator, curve)
    assert point is not None  # 0 < scalar < n and G' has order n
    return scalar, point


def public_key_on_generator(scalar: int, curve: Curve) -> tuple[int, int]:
    """``scalar * G`` on the curve's own generator."""
    library = curve.library_curve()
    if library is None:
        point = multiply(scalar, curve.generator, curve)
        assert point is not None
        return point
    numbers = _ec.derive_private_key(scalar, library).public_key().public_numbers()
    return (numbers.x, numbers.y)


def map_generator(nonce: bytes, private_key: int, other_public: Point, curve: Curve) -> Point:
    """Generic Mapping (§4.4.3.3.1): ``G' = s*G + H`` with ``H = sk * PK_other``; None
    when ``H`` is the point at infinity (the run must stop)."""
    shared = multiply(private_key, other_public, curve)
    if shared is None:
        return None
    mapped = add(multiply(int.from_bytes(nonce, "big"), curve.generator, curve), shared, curve)
    return mapped


def pace_keys(
    private_key: int, other_public: tuple[int, int], curve: Curve, cipher: CipherSpec
) -> tuple[bytes, bytes] | None:
    """(KSenc, KSmac) from the x-coordinate of ``sk * PK_other``; None at infinity."""
    shared = multiply(private_key, other_public, curve)
    if shared is None:
        return None
    secret = shared[0].to_bytes(curve.size, "big")
    return kdf(secret, ENC, cipher), kdf(secret, MAC, cipher)


def auth_token(
    ks_mac: bytes, oid: str, public: tuple[int, int], curve: Curve, cipher: CipherSpec
) -> bytes:
    """The authentication token over the other side's ephemeral key (§4.4.3.4): the MAC
    of ``7F49 { 06 OID, 86 point }`` (padded first for 3DES's retail MAC)."""
    data = tlv(0x7F49, tlv(0x06, encode_oid(oid)) + tlv(0x86, encode_point(public, curve)))
    return mac(ks_mac, data if cipher.aes else pad(data, 8), cipher)


def _dynamic(data: bytes, tag: int) -> bytes:
    """The value of ``tag`` inside the Dynamic Authentication Data ``7C``."""
    outer, value, _ = read_tlv(data)
    if outer != 0x7C:
        raise ValueError("not dynamic authentication data")
    while value:
        inner, content, value = read_tlv(value)
        if inner == tag:
            return content
    raise ValueError(f"no data object {tag:02X}")


def _denied(detail: str) -> ChipError:
    return ChipError(ChipCode.ACCESS_DENIED, f"PACE: {detail}")


def _general_authenticate(
    transport: Transport, last: bool, tag: int, value: bytes, answer: int
) -> bytes:
    apdu = command(
        0x00 if last else 0x10,
        GENERAL_AUTHENTICATE,
        0,
        0,
        tlv(0x7C, tlv(tag, value) if value or tag else b""),
        le=256,
    )
    data, sw = split_response(transport.transmit(apdu))
    if sw != 0x9000:
        raise _denied(f"GENERAL AUTHENTICATE refused ({sw:04X})")
    try:
        return _dynamic(data, answer)
    except ValueError as exc:
        raise _denied(str(exc)) from None


def open_pace(
    transport: Transport,
    key: AccessKey,
    info: PaceInfo,
    rng: Callable[[int], bytes] = os.urandom,
) -> SmSession:
    """PACE with ``key`` as ``info`` says; ``ChipError(ACCESS_DENIED)`` on a refusal
    (:class:`PasswordRefused` when the chip refuses the password type at MSE:Set AT)."""
    curve, cipher = info.curve, info.cipher
    mse = (
        tlv(0x80, encode_oid(info.oid))
        + tlv(0x83, bytes((password_reference(key),)))
        + tlv(0x84, bytes((info.parameter_id,)))
    )
    _, sw = split_response(transport.transmit(command(0x00, MSE, 0xC1, 0xA4, mse)))
    if sw != 0x9000:
        raise PasswordRefused(ChipCode.ACCESS_DENIED, f"PACE: MSE:Set AT refused ({sw:04X})")

    # 1. the encrypted nonce
    encrypted = _general_authenticate(transport, False, 0, b"", 0x80)
    if len(encrypted) != cipher.block:
        raise _denied("the nonce is not one block")
    nonce = decrypt(password_key(key, cipher), encrypted, cipher)

    # 2. the mapping
    map_private, map_public = generate_key(rng, curve)
    chip_map = _general_authenticate(transport, False, 0x81, encode_point(map_public, curve), 0x82)
    try:
        chip_map_public = decode_point(chip_map, curve)
    except ValueError as exc:
        raise _denied(f"the chip's mapping key: {exc}") from None
    mapped = map_generator(nonce, map_private, chip_map_public, curve)
    if mapped is None:
        raise _denied("the mapping gives the point at infinity")

    # 3. the key agreement on G'
    eph_private, eph_public = generate_key(rng, curve, mapped)
    chip_eph = _general_authenticate(transport, False, 0x83, encode_point(eph_public, curve), 0x84)
    try:
        chip_eph_public = decode_point(chip_eph, curve)
    except ValueError as exc:
        raise _denied(f"the chip's ephemeral key: {exc}") from None
    if chip_eph_public == eph_public:
        raise _denied("the chip echoed the terminal's key")
    keys = pace_keys(eph_private, chip_eph_public, curve, cipher)
    if keys is None:
        raise _denied("the shared secret is the point at infinity")
    ks_enc, ks_mac = keys

    # 4. mutual authentication
    token = auth_token(ks_mac, info.oid, chip_eph_public, curve, cipher)
    chip_token = _general_authenticate(transport, True, 0x85, token, 0x86)
    expected = auth_token(ks_mac, info.oid, eph_public, curve, cipher)
    if not hmac.compare_digest(chip_token, expected):
        raise _denied("the chip's authentication token does not verify")
    return SmSession(transport, SecureMessaging(ks_enc, ks_mac, 0, cipher), "PACE")

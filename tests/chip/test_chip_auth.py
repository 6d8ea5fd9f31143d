"""Chip Authentication v1 with ECDH (ICAO 9303-11 §6.2) between the reader and the chip
side: AES (MSE:Set AT + GENERAL AUTHENTICATE) and 3DES (MSE:Set KAT), the channel
restarting under the new keys, and a chip whose key is not DG14's."""

from __future__ import annotations

import pytest

from admission.chip import ChipCode
from hardware.chip.access import CanKey, MrzKey
from hardware.chip.apdu import ChipError
from hardware.chip.card_security import CardSecurity
from hardware.chip.chip_auth import chip_authenticate
from hardware.chip.securityinfo import chip_auth_keys
from hardware.chip.session import open_session
from tests.chip.security_chip import SecurityChip

H = bytes.fromhex
MRZ = MrzKey("X1234567", "900101", "300101")
COM = H("60145F0104303130365F36063034303030305C026175")
CA_KEY = H("1F3C5B7A99B8D7F6E5D4C3B2A1908F7E6D5C4B3A29180F1E2D3C4B5A69788796")
OTHER_KEY = H("2F3C5B7A99B8D7F6E5D4C3B2A1908F7E6D5C4B3A29180F1E2D3C4B5A69788796")


def _chip(
    key: MrzKey | CanKey,
    ca_key: bytes | None,
    *,
    pace: bool,
    bac: bool,
    pace_curve: str = "brainpoolP256r1",
    pace_cipher: str = "AES-128",
) -> SecurityChip:
    security = CardSecurity(
        key,
        pace=pace,
        bac=bac,
        pace_curve=pace_curve,
        pace_cipher=pace_cipher,
        chip_auth_private_key=ca_key,
    )
    return SecurityChip(security, {0x1E: COM})


@pytest.mark.parametrize(
    ("curve", "cipher"),
    [("brainpoolP256r1", "AES-128"), ("secp256r1", "AES-256"), ("brainpoolP384r1", "AES-192")],
)
def test_chip_authentication_over_pace_aes(curve: str, cipher: str) -> None:
    chip = _chip(
        CanKey("123456"), CA_KEY, pace=True, bac=False, pace_curve=curve, pace_cipher=cipher
    )
    dg14 = chip.security.dg14()
    assert dg14 is not None and dg14[0] == 0x6E
    (key,) = chip_auth_keys(dg14)
    assert key.curve.name == curve and key.cipher.name == cipher
    session = open_session(chip, CanKey("123456"), chip.security.card_access())
    before = len(chip.log)
    authenticated = chip_authenticate(session, chip, dg14)
    assert [apdu[1] for apdu, _ in chip.log[before:]] == [0x22, 0x86, 0xA4]
    assert authenticated.access == "PACE" and authenticated.cipher == cipher
    assert authenticated.transmit(H("00B09E0004")) == COM[:4] + H("9000")


def test_chip_authentication_over_bac_3des() -> None:
    chip = _chip(MRZ, CA_KEY, pace=False, bac=True, pace_curve="secp256r1", pace_cipher="3DES")
    dg14 = chip.security.dg14()
    assert dg14 is not None
    session = open_session(chip, MRZ, None)
    before = len(chip.log)
    authenticated = chip_authenticate(session, chip, dg14)
    assert [(apdu[1], apdu[3]) for apdu, _ in chip.log[before:]] == [(0x22, 0xA6), (0xA4, 0x0C)]
    assert authenticated.access == "BAC" and authenticated.cipher == "3DES"
    assert authenticated.transmit(H("00B09E0016")) == COM + H("9000")


def test_a_chip_without_dg14s_key_fails() -> None:
    """A clone: DG14 (signed, copied) names a key this chip does not hold."""
    genuine = CardSecurity(CanKey("123456"), pace=True, bac=False, chip_auth_private_key=CA_KEY)
    dg14 = genuine.dg14()
    assert dg14 is not None
    clone = _chip(CanKey("123456"), OTHER_KEY, pace=True, bac=False)
    session = open_session(clone, CanKey("123456"), clone.security.card_access())
    with pytest.raises(ChipError) as caught:
        chip_authenticate(session, clone, dg14)
    assert caught.value.code is ChipCode.CHIP_AUTH_FAILED
    assert clone.log[-1][1] == H("6988")


def test_a_chip_without_any_key_fails() -> None:
    dg14 = CardSecurity(MRZ, pace=False, bac=True, chip_auth_private_key=CA_KEY).dg14()
    assert dg14 is not None
    chip = _chip(MRZ, None, pace=False, bac=True)
    session = open_session(chip, MRZ, None)
    with pytest.raises(ChipError) as caught:
        chip_authenticate(session, chip, dg14)
    assert caught.value.code is ChipCode.CHIP_AUTH_FAILED


def test_a_malformed_dg14_fails() -> None:
    chip = _chip(MRZ, CA_KEY, pace=False, bac=True)
    session = open_session(chip, MRZ, None)
    for dg14 in (b"", H("6E03310130"), H("6E023100")):
        with pytest.raises(ChipError) as caught:
            chip_authenticate(session, chip, dg14)
        assert caught.value.code is ChipCode.CHIP_AUTH_FAILED


def _der(tag: int, value: bytes) -> bytes:
    n = len(value)
    length = bytes((n,)) if n < 0x80 else bytes((0x81, n)) if n < 0x100 else b"\x82" + n.to_bytes(2)
    return bytes((tag,)) + length + value


def _int(value: int) -> bytes:
    return _der(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))


def test_dg14_with_explicit_domain_parameters() -> None:
    """Real passports spell the curve out (ECParameters, RFC 3279) instead of naming it;
    the key is found on the named curve those parameters are, and it authenticates."""
    from hardware.chip.ec import CURVES, encode_point
    from hardware.chip.pace import public_key_on_generator
    from hardware.chip.securityinfo import encode_oid

    curve = CURVES["brainpoolP256r1"]
    size = curve.size
    parameters = _der(
        0x30,
        _int(1)
        + _der(0x30, _der(0x06, encode_oid("1.2.840.10045.1.1")) + _int(curve.p))
        + _der(0x30, _der(0x04, curve.a.to_bytes(size)) + _der(0x04, curve.b.to_bytes(size)))
        + _der(0x04, encode_point(curve.generator, curve))
        + _int(curve.n)
        + _int(1),
    )
    public = public_key_on_generator(int.from_bytes(CA_KEY, "big"), curve)
    spki = _der(
        0x30,
        _der(0x30, _der(0x06, encode_oid("1.2.840.10045.2.1")) + parameters)
        + _der(0x03, b"\x00" + encode_point(public, curve)),
    )
    ca_info = _der(0x30, _der(0x06, encode_oid("0.4.0.127.0.7.2.2.3.2.2")) + _int(1) + _int(7))
    pk_info = _der(0x30, _der(0x06, encode_oid("0.4.0.127.0.7.2.2.1.2")) + spki + _int(7))
    dg14 = _der(0x6E, _der(0x31, ca_info + pk_info))
    (key,) = chip_auth_keys(dg14)
    assert (key.curve.name, key.cipher.name, key.key_id) == ("brainpoolP256r1", "AES-128", 7)
    assert key.public_point == public

    chip = _chip(CanKey("123456"), CA_KEY, pace=True, bac=False)
    session = open_session(chip, CanKey("123456"), chip.security.card_access())
    authenticated = chip_authenticate(session, chip, dg14)
    assert authenticated.transmit(H("00B09E0004")) == COM[:4] + H("9000")
    assert [apdu[1] for apdu, _ in chip.log[-4:]] == [0x22, 0x86, 0xA4, 0xB0]

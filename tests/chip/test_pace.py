"""PACE ECDH Generic Mapping against the worked example of ICAO Doc 9303-11 Appendix G
(brainpoolP256r1, AES-128, the MRZ T22000129 / 640812 / 101031), and reader/chip round
trips on every curve and cipher we support."""

from __future__ import annotations

import time

import pytest

from admission.chip import ChipCode
from hardware.chip.access import CanKey, MrzKey
from hardware.chip.apdu import ChipError
from hardware.chip.card_security import CardSecurity
from hardware.chip.crypto import CIPHERS, decrypt
from hardware.chip.ec import CURVES, decode_point, encode_point, multiply
from hardware.chip.pace import auth_token, map_generator, pace_keys, password_key
from hardware.chip.securityinfo import build_card_access, supported_pace
from hardware.chip.session import open_session
from tests.chip.security_chip import SecurityChip, scripted

H = bytes.fromhex
BP256 = CURVES["brainpoolP256r1"]
AES128 = CIPHERS["AES-128"]
OID = "0.4.0.127.0.7.2.2.4.2.2"  # id-PACE-ECDH-GM-AES-CBC-CMAC-128

# -- Appendix G (PACE ECDH-GM worked example) ------------------------------------------
G_KEY = MrzKey("T22000129", "640812", "101031")
G_CARD_ACCESS = H("31143012060A04007F0007020204020202010202010D")
G_K_PI = H("89DED1B26624EC1E634C1989302849DD")
G_ENCRYPTED_NONCE = H("95A3A016522EE98D01E76CB6B98B42C3")
G_NONCE = H("3F00C4D39D153F2B2A214A078D899B22")
G_SK_MAP_IFD = H("7F4EF07B9EA82FD78AD689B38D0BC78CF21F249D953BC46F4C6E19259C010F99")
G_PK_MAP_IFD = H(
    "047ACF3EFC982EC45565A4B155129EFBC74650DCBFA6362D896FC70262E0C2CC5E"
    "544552DCB6725218799115B55C9BAA6D9F6BC3A9618E70C25AF71777A9C4922D"
)
G_SK_MAP_IC = H("498FF49756F2DC1587840041839A85982BE7761D14715FB091EFA7BCE9058560")
G_PK_MAP_IC = H(
    "04824FBA91C9CBE26BEF53A0EBE7342A3BF178CEA9F45DE0B70AA601651FBA3F57"
    "30D8C879AAA9C9F73991E61B58F4D52EB87A0A0C709A49DC63719363CCD13C54"
)
G_SHARED_H = (
    0x60332EF2450B5D247EF6D3868397D398852ED6E8CAF6FFEEF6BF85CA57057FD5,
    0x0840CA7415BAF3E43BD414D35AA4608B93A2CAF3A4E3EA4E82C9C13D03EB7181,
)
G_MAPPED = H(
    "048CED63C91426D4F0EB1435E7CB1D74A46723A0AF21C89634F65A9AE87A9265E2"
    "8C879506743F8611AC33645C5B985C80B5F09A0B83407C1B6A4D857AE76FE522"
)
G_SK_DH_IFD = H("A73FB703AC1436A18E0CFA5ABB3F7BEC7A070E7A6788486BEE230C4A22762595")
G_PK_DH_IFD = H(
    "042DB7A64C0355044EC9DF190514C625CBA2CEA48754887122F3A5EF0D5EDD301C"
    "3556F3B3B186DF10B857B58F6A7EB80F20BA5DC7BE1D43D9BF850149FBB36462"
)
G_SK_DH_IC = H("107CF58696EF6155053340FD633392BA81909DF7B9706F226F32086C7AFF974A")
G_PK_DH_IC = H(
    "049E880F842905B8B3181F7AF7CAA9F0EFB743847F44A306D2D28C1D9EC65DF6DB"
    "7764B22277A2EDDC3C265A9F018F9CB852E111B768B326904B59A0193776F094"
)
G_SHARED_K = H("28768D20701247DAE81804C9E780EDE582A9996DB4A315020B2733197DB84925")
G_KS_ENC = H("F5F0E35C0D7161EE6724EE513A0D9A7F")
G_KS_MAC = H("FE251C7858B356B24514B3BD5F4297D1")
G_T_IFD = H("C2B0BD78D94BA866")
G_T_IC = H("3ABB9674BCE93C08")


def test_appendix_g_step_by_step() -> None:
    assert build_card_access(BP256, AES128) == G_CARD_ACCESS
    info = supported_pace(G_CARD_ACCESS)
    assert info is not None and (info.oid, info.parameter_id) == (OID, 13)
    assert password_key(G_KEY, AES128) == G_K_PI
    assert decrypt(G_K_PI, G_ENCRYPTED_NONCE, AES128) == G_NONCE
    sk_map_ifd = int.from_bytes(G_SK_MAP_IFD, "big")
    assert encode_point(multiply(sk_map_ifd, BP256.generator, BP256), BP256) == G_PK_MAP_IFD
    pk_map_ic = decode_point(G_PK_MAP_IC, BP256)
    assert multiply(sk_map_ifd, pk_map_ic, BP256) == G_SHARED_H
    mapped = map_generator(G_NONCE, sk_map_ifd, pk_map_ic, BP256)
    assert encode_point(mapped, BP256) == G_MAPPED
    sk_dh_ifd = int.from_bytes(G_SK_DH_IFD, "big")
    assert encode_point(multiply(sk_dh_ifd, mapped, BP256), BP256) == G_PK_DH_IFD
    pk_dh_ic = decode_point(G_PK_DH_IC, BP256)
    shared = multiply(sk_dh_ifd, pk_dh_ic, BP256)
    assert shared is not None and shared[0].to_bytes(32, "big") == G_SHARED_K
    assert pace_keys(sk_dh_ifd, pk_dh_ic, BP256, AES128) == (G_KS_ENC, G_KS_MAC)
    assert auth_token(G_KS_MAC, OID, pk_dh_ic, BP256, AES128) == G_T_IFD
    assert auth_token(G_KS_MAC, OID, decode_point(G_PK_DH_IFD, BP256), BP256, AES128) == G_T_IC


def test_appendix_g_exchange_byte_for_byte() -> None:
    """Both ends with the example's keys: every APDU carries the published values."""
    security = CardSecurity(
        G_KEY, pace=True, bac=False, rng=scripted(G_NONCE, G_SK_MAP_IC, G_SK_DH_IC)
    )
    chip = SecurityChip(security)
    session = open_session(chip, G_KEY, G_CARD_ACCESS, rng=scripted(G_SK_MAP_IFD, G_SK_DH_IFD))
    (mse, ok), (ga1, nonce), (ga2, map_ic), (ga3, dh_ic), (ga4, token_ic) = chip.log
    assert mse == H("0022C1A412800A04007F0007020204020283010184010D")
    assert ok == H("9000")
    assert (ga1, nonce) == (H("10860000027C0000"), H("7C128010") + G_ENCRYPTED_NONCE + H("9000"))
    assert ga2 == H("10860000457C438141") + G_PK_MAP_IFD + H("00")
    assert map_ic == H("7C438241") + G_PK_MAP_IC + H("9000")
    assert ga3 == H("10860000457C438341") + G_PK_DH_IFD + H("00")
    assert dh_ic == H("7C438441") + G_PK_DH_IC + H("9000")
    assert ga4 == H("008600000C7C0A8508") + G_T_IFD + H("00")
    assert token_ic == H("7C0A8608") + G_T_IC + H("9000")
    assert (session.access, session.cipher) == ("PACE", "AES-128")
    assert security.secure


ROUND_TRIPS = [
    ("brainpoolP256r1", "AES-128"),
    ("brainpoolP256r1", "AES-192"),
    ("brainpoolP256r1", "AES-256"),
    ("brainpoolP256r1", "3DES"),
    ("secp256r1", "AES-128"),
    ("secp256r1", "AES-192"),
    ("secp256r1", "AES-256"),
    ("secp256r1", "3DES"),
]
BIG_CURVES = ["secp384r1", "secp521r1", "brainpoolP384r1", "brainpoolP512r1"]


def _round_trip(curve: str, cipher: str, key: MrzKey | CanKey) -> None:
    security = CardSecurity(key, pace=True, bac=False, pace_curve=curve, pace_cipher=cipher)
    com = bytes(range(40))
    chip = SecurityChip(security, {0x1E: com})
    session = open_session(chip, key, security.card_access())
    assert (session.access, session.cipher) == ("PACE", cipher)
    assert session.transmit(H("00B09E0028")) == com + H("9000")
    assert session.transmit(H("00B0000005")) == com[:5] + H("9000")


@pytest.mark.parametrize(("curve", "cipher"), ROUND_TRIPS)
def test_round_trip_256_bit_curves(curve: str, cipher: str) -> None:
    _round_trip(curve, cipher, MrzKey("X1234567", "900101", "300101"))


@pytest.mark.parametrize("curve", BIG_CURVES)
def test_round_trip_big_curve_every_cipher(curve: str) -> None:
    start = time.perf_counter()
    for cipher in CIPHERS:
        _round_trip(curve, cipher, CanKey("123456"))
    assert time.perf_counter() - start < 5


def test_can_opens_a_can_only_chip() -> None:
    security = CardSecurity(CanKey("654321"), pace=True, bac=False)
    session = open_session(SecurityChip(security), CanKey("654321"), security.card_access())
    assert session.access == "PACE"


def test_wrong_can_is_access_denied() -> None:
    security = CardSecurity(CanKey("654321"), pace=True, bac=False)
    chip = SecurityChip(security)
    with pytest.raises(ChipError) as caught:
        open_session(chip, CanKey("654322"), security.card_access())
    assert caught.value.code is ChipCode.ACCESS_DENIED
    assert chip.log[-1][1] == H("6300") and not security.secure


def test_wrong_mrz_is_access_denied() -> None:
    key = MrzKey("X1234567", "900101", "300101")
    security = CardSecurity(key, pace=True, bac=True)
    with pytest.raises(ChipError) as caught:
        open_session(
            SecurityChip(security), MrzKey("X1234567", "900102", "300101"), security.card_access()
        )
    assert caught.value.code is ChipCode.ACCESS_DENIED


def test_mrz_on_a_can_only_chip_asks_for_the_can() -> None:
    security = CardSecurity(CanKey("654321"), pace=True, bac=False)
    with pytest.raises(ChipError) as caught:
        open_session(
            SecurityChip(security), MrzKey("X1234567", "900101", "300101"), security.card_access()
        )
    assert caught.value.code is ChipCode.CAN_NEEDED


def test_can_without_pace_is_access_denied() -> None:
    key = MrzKey("X1234567", "900101", "300101")
    with pytest.raises(ChipError) as caught:
        open_session(SecurityChip(CardSecurity(key, pace=False, bac=True)), CanKey("123456"), None)
    assert caught.value.code is ChipCode.ACCESS_DENIED


def test_unsupported_card_access_falls_back_to_bac() -> None:
    key = MrzKey("X1234567", "900101", "300101")
    # a PACEInfo of DH-GM (id-PACE-DH-GM-AES-CBC-CMAC-128, MODP group 0): not ours
    other = H("31143012060A04007F00070202040102020102020100")
    session = open_session(SecurityChip(CardSecurity(key, pace=False, bac=True)), key, other)
    assert session.access == "BAC"


def test_tampered_mac_on_an_aes_channel() -> None:
    security = CardSecurity(CanKey("654321"), pace=True, bac=False, pace_cipher="AES-256")
    chip = SecurityChip(security, {0x1E: b"\x60\x01\x00"})
    session = open_session(chip, CanKey("654321"), security.card_access())
    chip.mangle = lambda apdu: apdu[:-3] + bytes((apdu[-3] ^ 0x80,)) + apdu[-2:]
    with pytest.raises(ChipError):
        session.transmit(H("00B09E0003"))
    assert chip.log[-1][1] == H("6988") and not security.secure

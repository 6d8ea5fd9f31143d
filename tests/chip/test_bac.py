"""BAC and 3DES secure messaging against the worked example of ICAO Doc 9303-11
Appendix D (D.2 keys from the MRZ, D.3 mutual authentication and session keys, D.4 the
secured SELECT and READ BINARY of EF.COM), and a reader/chip round trip."""

from __future__ import annotations

import pytest

from admission.chip import ChipCode
from hardware.chip.access import MrzKey, bac_key_seed, mrz_information
from hardware.chip.apdu import ChipError, command
from hardware.chip.bac import bac_keys, open_bac
from hardware.chip.card_security import CardSecurity
from hardware.chip.crypto import CIPHERS, mac, pad
from hardware.chip.session import open_session
from hardware.chip.sm import SecureMessaging
from tests.chip.security_chip import SecurityChip, scripted

H = bytes.fromhex
# Appendix D.2: the MRZ of the example (document L898902C<, born 690806, expires 940623).
KEY = MrzKey("L898902C<", "690806", "940623")
# Appendix D.4: EF.COM of the example (LDS 1.7, Unicode 4.0.0, DG1 DG2).
EF_COM = H("60145F0104303130365F36063034303030305C026175")
# Appendix D.3: the terminal's RND.IFD and K.IFD, the chip's RND.IC and K.IC.
RND_IFD = H("781723860C06C226")
K_IFD = H("0B795240CB7049B01C19B33E32804F0B")
RND_IC = H("4608F91988702212")
K_IC = H("0B4F80323EB3191CB04970CB4052790B")


def test_key_seed_and_basic_keys_of_appendix_d2() -> None:
    assert mrz_information(KEY) == "L898902C<369080619406236"
    assert bac_key_seed(KEY) == H("239AB9CB282DAF66231DC5A4DF6BFBAE")
    assert bac_keys(H("239AB9CB282DAF66231DC5A4DF6BFBAE")) == (
        H("AB94FDECF2674FDFB9B391F85D7F76F2"),
        H("7962D9ECE03D1ACD4C76089DCE131543"),
    )
    # a short number is filled with '<' (the same key as the MRZ's own filler)
    assert bac_key_seed(MrzKey("L898902C", "690806", "940623")) == bac_key_seed(KEY)


def test_retail_mac_of_appendix_d3() -> None:
    e_ifd = H("72C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F2")
    assert mac(H("7962D9ECE03D1ACD4C76089DCE131543"), pad(e_ifd, 8), CIPHERS["3DES"]) == H(
        "5F1448EEA8AD90A7"
    )


def test_worked_example_of_appendix_d3_and_d4() -> None:
    """The whole exchange, byte for byte: both ends run with the example's random values."""
    chip = SecurityChip(
        CardSecurity(KEY, pace=False, bac=True, rng=scripted(RND_IC, K_IC)), {0x1E: EF_COM}
    )
    session = open_bac(chip, KEY, scripted(RND_IFD, K_IFD))
    (challenge, rnd_ic), (mutual, answer) = chip.log
    assert challenge == H("0084000008") and rnd_ic == RND_IC + H("9000")
    assert mutual == H(
        "008200002872C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F2"
        "5F1448EEA8AD90A728"
    )
    assert answer == H(
        "46B9342A41396CD7386BF5803104D7CEDC122B9132139BAF2EEDC94EE178534F2F2D235D074D74499000"
    )
    # D.3: session keys from K.IFD xor K.IC, the SSC from the challenges
    assert session.sm.ks_enc == H("979EC13B1CBFE9DCD01AB0FED307EAE5")
    assert session.sm.ks_mac == H("F1CB1F1FB5ADF208806B89DC579DC1F8")
    assert session.sm.ssc == 0x887022120C06C226
    assert (session.access, session.cipher) == ("BAC", "3DES")

    # D.4: SELECT EF.COM, READ BINARY of its first 4 bytes, then of the remaining 18
    assert session.transmit(H("00A4020C02011E")) == H("9000")
    assert chip.log[2] == (
        H("0CA4020C158709016375432908C044F68E08BF8B92D635FF24F800"),
        H("990290008E08FA855A5D4C50A8ED9000"),
    )
    assert session.transmit(H("00B0000004")) == H("60145F01") + H("9000")
    assert chip.log[3] == (
        H("0CB000000D9701048E08ED6705417E96BA5500"),
        H("8709019FF0EC34F9922651990290008E08AD55CC17140B2DED9000"),
    )
    assert session.transmit(H("00B0000412")) == EF_COM[4:] + H("9000")
    assert chip.log[4] == (
        H("0CB000040D9701128E082EA28A70F3C7B53500"),
        H("871901FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A990290008E08C8B2787EAEA07D749000"),
    )
    assert session.sm.ssc == 0x887022120C06C22C


def test_sm_of_appendix_d4_on_its_own() -> None:
    sm = SecureMessaging(
        H("979EC13B1CBFE9DCD01AB0FED307EAE5"),
        H("F1CB1F1FB5ADF208806B89DC579DC1F8"),
        0x887022120C06C226,
        CIPHERS["3DES"],
    )
    assert sm.protect_command(H("00A4020C02011E")) == H(
        "0CA4020C158709016375432908C044F68E08BF8B92D635FF24F800"
    )
    assert sm.unprotect_response(H("990290008E08FA855A5D4C50A8ED9000")) == H("9000")


def test_round_trip_with_random_values_and_extended_length() -> None:
    big = bytes(range(256)) * 8
    chip = SecurityChip(CardSecurity(KEY, pace=False, bac=True), {0x02: big})
    session = open_session(chip, MrzKey("L898902C<", "690806", "940623"), None)
    assert session.access == "BAC"
    assert session.transmit(command(0, 0xB0, 0x82, 0, le=223)) == big[:223] + H("9000")
    # extended length: 1000 bytes in one READ BINARY (Le 03E8 in the protected DO97)
    assert session.transmit(command(0, 0xB0, 0, 223, le=1000)) == big[223:1223] + H("9000")
    protected = chip.log[-1][0]
    assert protected[4] == 0 and H("970203E8") in protected


def test_wrong_mrz_is_access_denied() -> None:
    chip = SecurityChip(CardSecurity(KEY, pace=False, bac=True))
    with pytest.raises(ChipError) as caught:
        open_session(chip, MrzKey("L898902C<", "690806", "940624"), None)
    assert caught.value.code is ChipCode.ACCESS_DENIED
    assert chip.log[-1][1] == H("6300")
    assert not chip.security.secure


def test_tampered_command_mac_is_refused_with_6988() -> None:
    chip = SecurityChip(CardSecurity(KEY, pace=False, bac=True), {0x1E: EF_COM})
    session = open_session(chip, KEY, None)
    chip.mangle = lambda apdu: apdu[:-2] + bytes((apdu[-2] ^ 1,)) + apdu[-1:]
    with pytest.raises(ChipError) as caught:
        session.transmit(H("00B09E0004"))
    assert caught.value.code is ChipCode.SM_BROKEN
    assert chip.log[-1][1] == H("6988")
    assert not chip.security.secure  # the chip dropped the channel


def test_tampered_response_mac_raises() -> None:
    chip = SecurityChip(CardSecurity(KEY, pace=False, bac=True), {0x1E: EF_COM})
    session = open_session(chip, KEY, None)
    chip.mangle_response = lambda resp: resp[:-3] + bytes((resp[-3] ^ 1,)) + resp[-2:]
    with pytest.raises(ChipError) as caught:
        session.transmit(H("00B09E0004"))
    assert caught.value.code is ChipCode.SM_BROKEN

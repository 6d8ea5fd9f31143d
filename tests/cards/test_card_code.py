"""The code printed on entry cards (art. 22.4, R8): forged, mistyped or foreign codes fail."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from admission.card_code import (
    CODE_MALFORMED,
    CODE_OTHER_CASINO,
    CODE_TAMPERED,
    CardCode,
    CardCodeError,
    encode_card_code,
    looks_like_card_code,
    parse_card_code,
)

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))


def _code(err: pytest.ExceptionInfo[CardCodeError]) -> str:
    return err.value.code


def test_round_trip() -> None:
    text = encode_card_code("MAD01", 1234567, KEY)
    assert text.startswith("ADM1-MAD01-1234567-")
    assert len(text) <= 32
    assert parse_card_code(text, KEY, casino_id="MAD01") == CardCode("MAD01", 1234567, text)


def test_alphabet_is_qr_alphanumeric_and_code128_safe() -> None:
    for n in (1, 42, 9_999_999_999):
        text = encode_card_code("Z9", n, KEY)
        assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
        assert text == text.upper()


def test_encoding_is_deterministic_and_key_dependent() -> None:
    assert encode_card_code("MAD01", 7, KEY) == encode_card_code("MAD01", 7, KEY)
    assert encode_card_code("MAD01", 7, KEY) != encode_card_code("MAD01", 7, OTHER_KEY)


def test_forged_number_is_tampered() -> None:
    text = encode_card_code("MAD01", 1000, KEY)
    mac = text.rsplit("-", 1)[1]
    with pytest.raises(CardCodeError) as err:
        parse_card_code(f"ADM1-MAD01-1001-{mac}", KEY)
    assert _code(err) == CODE_TAMPERED


def test_other_key_is_tampered() -> None:
    with pytest.raises(CardCodeError) as err:
        parse_card_code(encode_card_code("MAD01", 5, OTHER_KEY), KEY)
    assert _code(err) == CODE_TAMPERED


def test_other_casino() -> None:
    with pytest.raises(CardCodeError) as err:
        parse_card_code(encode_card_code("BCN02", 5, KEY), KEY, casino_id="MAD01")
    assert _code(err) == CODE_OTHER_CASINO


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ADM1",
        "ADM2-MAD01-5-ABCDEFGH",
        "ADM1-MAD01-05-ABCDEFGH",  # leading zero: not canonical
        "ADM1-MAD01-0-ABCDEFGH",
        "ADM1-MAD01-12345678901-ABCDEFGH",  # 11 digits
        "ADM1-MAD01-5-ABCDEFG",
        "ADM1-MAD01-5-ABCDEFGHJ",
        "ADM1-MAD001234-5-ABCDEFGH",
        "ADM1-MAD01-5-ABCDEFGH-X",
        "ADM1-MAD 01-5-ABCDEFGH",
        "ADM1-MAD01-5-ABCD\x00FGH",
        "ADM1-MAD01-5-ABCDÉFGH",
        "<b>ADM1-MAD01-5-ABCDEFGH</b>",
        "A" * 10_000,
    ],
)
def test_malformed(text: str) -> None:
    with pytest.raises(CardCodeError) as err:
        parse_card_code(text, KEY)
    assert _code(err) == CODE_MALFORMED
    assert not looks_like_card_code(text)


def test_reader_noise_is_tolerated() -> None:
    text = encode_card_code("MAD01", 77, KEY)
    assert parse_card_code(f"  {text.lower()}\r\n", KEY).text == text
    # US-configured reader on a Spanish keyboard layout types ' for -
    assert parse_card_code(text.replace("-", "'"), KEY).number == 77
    assert looks_like_card_code(text.replace("-", "'"))


def test_crockford_lookalikes_are_read_as_digits() -> None:
    for n in range(1, 400):
        text = encode_card_code("MAD01", n, KEY)
        mac = text.rsplit("-", 1)[1]
        if "0" in mac or "1" in mac:
            typed = text[: -len(mac)] + mac.replace("0", "O").replace("1", "I")
            assert parse_card_code(typed, KEY).number == n
            return
    pytest.fail("no MAC with 0 or 1 in 400 samples")


def test_every_single_character_mistype_is_detected() -> None:
    text = encode_card_code("MAD01", 123456, KEY)
    alphabet = "ABCDEFGHJKMNPQRSTVWXYZ0123456789"
    for i, original in enumerate(text):
        if original == "-":
            continue
        for c in alphabet:
            if c == original or {c, original} <= set("01IL") or {c, original} <= set("0O"):
                continue
            typed = text[:i] + c + text[i + 1 :]
            with pytest.raises(CardCodeError):
                parse_card_code(typed, KEY, casino_id="MAD01")


def test_adjacent_transpositions_are_detected() -> None:
    text = encode_card_code("MAD01", 987654, KEY)
    for i in range(len(text) - 1):
        if text[i] == text[i + 1] or "-" in text[i : i + 2]:
            continue
        typed = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        with pytest.raises(CardCodeError):
            parse_card_code(typed, KEY, casino_id="MAD01")


def test_bad_arguments_to_encode() -> None:
    with pytest.raises(ValueError):
        encode_card_code("MAD01", 1, b"short")
    with pytest.raises(ValueError):
        encode_card_code("mad01", 1, KEY)
    with pytest.raises(ValueError):
        encode_card_code("MAD01", 0, KEY)
    with pytest.raises(TypeError):
        encode_card_code("MAD01", True, KEY)


@given(st.text(max_size=80))
def test_arbitrary_text_never_crashes(text: str) -> None:
    try:
        parse_card_code(text, KEY)
    except CardCodeError as err:
        assert err.code in {CODE_MALFORMED, CODE_TAMPERED}


@given(st.from_regex(r"[A-Z0-9]{1,8}", fullmatch=True), st.integers(1, 9_999_999_999))
def test_round_trip_property(casino: str, number: int) -> None:
    text = encode_card_code(casino, number, KEY)
    assert parse_card_code(text, KEY, casino_id=casino).number == number


@pytest.mark.parametrize("symbology", ["QRCode", "Code128"])
def test_both_decoders_read_the_printed_code(symbology: str) -> None:
    zxingcpp = pytest.importorskip("zxingcpp")
    np = pytest.importorskip("numpy")
    pyzbar = pytest.importorskip("pyzbar.pyzbar")
    text = encode_card_code("MAD01", 1234567, KEY)
    barcode = zxingcpp.create_barcode(text, getattr(zxingcpp.BarcodeFormat, symbology))
    img = np.ascontiguousarray(np.array(zxingcpp.write_barcode_to_image(barcode, size_hint=400)))
    assert [r.text for r in zxingcpp.read_barcodes(img)] == [text]
    zbar = pyzbar.decode((img.tobytes(), img.shape[1], img.shape[0]))
    assert [d.data.decode("ascii") for d in zbar] == [text]
    assert parse_card_code(zbar[0].data.decode("ascii"), KEY).number == 1234567

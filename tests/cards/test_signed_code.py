"""The signed card code, format ADM2 (art. 22.4): known answers, the signature checked
with ``cryptography`` itself, garbage never raising anything but CardCodeError, and one
changed character never verifying."""

from __future__ import annotations

import contextlib
from datetime import date

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from admission.cards.code import CODE_MALFORMED, CardCodeError, looks_like_card_code
from admission.cards.signed import (
    MAX_SIGNED_TEXT,
    SignedFields,
    decode_signed_code,
    encode_payload,
    encode_signed_code,
    holder_digest,
    key_id_of,
    looks_like_signed_code,
    signed_message,
)
from db.card_keys import ed25519_check

SEED = bytes(range(32))
PRIVATE = Ed25519PrivateKey.from_private_bytes(SEED)
PUBLIC = PRIVATE.public_key().public_bytes_raw()
HOLDER_KEY = b"h" * 32
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

# computed once from the fixed seed (Ed25519 is deterministic), the payload checked field
# by field below and the signature with cryptography over b"ADM2\0" + payload
KEY_ID = "56475aa7"
PAYLOAD_HEX = (
    "56475aa7"  # key id
    "05" + b"MAD01".hex() + "000012d687"  # casino id; card number 1234567
    "03" + b"DAY".hex() + "2664" + "2666"  # type; 9828 and 9830 days since 2000-01-01
    "d9af735c"  # holder digest of file 4711
)
KNOWN_TEXT = (
    "ADM2-AS3NN9R59N0M8C1H00015NM70D242P96CGK6DPDFEDE7YGGNE8C3RZ3YY4DNYYEF444ERCTT2XSD1B7"
    "9KZHBCYW9B08H4VA483MCQX18KCC31SQNB5WRM5PJZX11E28DTH1TXW66R5R103GN14"
)


def _fields(**changes: object) -> SignedFields:
    values: dict[str, object] = {
        "key_id": key_id_of(PUBLIC),
        "casino_id": "MAD01",
        "number": 1234567,
        "card_type": "DAY",
        "valid_from": date(2026, 11, 28),
        "valid_until": date(2026, 11, 30),
        "holder_digest": holder_digest(HOLDER_KEY, 4711),
    }
    values.update(changes)
    return SignedFields(**values)  # type: ignore[arg-type]


def _sign(fields: SignedFields) -> str:
    payload = encode_payload(fields)
    return encode_signed_code(payload, PRIVATE.sign(signed_message(payload)))


def _verifies(text: str) -> bool:
    try:
        code = decode_signed_code(text)
    except CardCodeError:
        return False
    return code.fields.key_id == KEY_ID and ed25519_check(PUBLIC, code.signature, code.signed_bytes)


def test_known_answer() -> None:
    assert key_id_of(PUBLIC) == KEY_ID
    assert holder_digest(HOLDER_KEY, 4711).hex() == "d9af735c"
    payload = encode_payload(_fields())
    assert payload.hex() == PAYLOAD_HEX
    assert _sign(_fields()) == KNOWN_TEXT


def test_known_text_signature_verifies_with_cryptography_directly() -> None:
    """Decoded by hand (Crockford base-32, MSB first), not by the module under test."""
    body = KNOWN_TEXT.removeprefix("ADM2-")
    value = 0
    for ch in body:
        value = value * 32 + ALPHABET.index(ch)
    bits = len(body) * 5
    size = bits // 8
    assert value & ((1 << (bits - size * 8)) - 1) == 0  # padding bits are zero
    data = (value >> (bits - size * 8)).to_bytes(size, "big")
    payload, signature = data[:-64], data[-64:]
    assert payload.hex() == PAYLOAD_HEX
    PRIVATE.public_key().verify(signature, b"ADM2\x00" + payload)  # raises if not
    assert b"ADM2\x00" + payload == signed_message(payload)


def test_decode_round_trip() -> None:
    code = decode_signed_code(KNOWN_TEXT)
    assert code.fields == _fields()
    assert code.text == KNOWN_TEXT
    assert code.signed_bytes == b"ADM2\x00" + bytes.fromhex(PAYLOAD_HEX)
    assert _verifies(KNOWN_TEXT)


def test_readers_variants_fold() -> None:
    """Lower case, O/I/L for 0/1/1, ' for - (a US keyboard wedge), surrounding space."""
    typed = "  " + KNOWN_TEXT.lower().replace("-", "'") + "\r\n"
    assert decode_signed_code(typed).text == KNOWN_TEXT
    body = KNOWN_TEXT.removeprefix("ADM2-")
    lookalike = "ADM2-" + body.replace("0", "O").replace("1", "I").replace("I", "l", 2)
    assert decode_signed_code(lookalike).text == KNOWN_TEXT
    assert looks_like_signed_code(typed) and looks_like_card_code(typed)


@pytest.mark.parametrize(
    "fields",
    [
        _fields(casino_id="Z", number=1, card_type="", holder_digest=b"\0\0\0\0"),
        _fields(casino_id="ABCDEFGH", number=9_999_999_999, card_type="A_VERY_LONG_TYPE1"[:16]),
        _fields(valid_from=date(2000, 1, 1), valid_until=date(2179, 6, 6)),
    ],
)
def test_extremes_round_trip(fields: SignedFields) -> None:
    text = _sign(fields)
    assert len(text) <= MAX_SIGNED_TEXT
    assert set(text) <= set(ALPHABET + "ADM-")
    assert decode_signed_code(text).fields == fields


@pytest.mark.parametrize(
    "changes",
    [
        {"casino_id": "mad01"},
        {"casino_id": "ABCDEFGHI"},
        {"number": 0},
        {"number": 10_000_000_000},
        {"card_type": "AÑO"},
        {"card_type": "X" * 17},
        {"valid_until": date(2026, 11, 27)},
        {"valid_from": date(1999, 12, 31)},
        {"holder_digest": b"abc"},
        {"key_id": "56475AA7"},
    ],
)
def test_what_the_format_cannot_carry_is_refused(changes: dict[str, object]) -> None:
    with pytest.raises((ValueError, TypeError)):
        encode_payload(_fields(**changes))


def test_lengths_must_agree() -> None:
    data = bytes.fromhex(PAYLOAD_HEX) + bytes(64)
    for cut in (1, 5, 8):  # fewer bytes than the payload's lengths say
        with pytest.raises(CardCodeError):
            decode_signed_code(encode_signed_code(data[:-cut], bytes(64)))
    with pytest.raises(CardCodeError):  # one more
        decode_signed_code(encode_signed_code(data + b"\0", bytes(64)))
    with pytest.raises(CardCodeError):  # a stray character after the last
        decode_signed_code(KNOWN_TEXT + "0")
    last = ALPHABET.index(KNOWN_TEXT[-1])
    with pytest.raises(CardCodeError):  # a padding bit set
        decode_signed_code(KNOWN_TEXT[:-1] + ALPHABET[last | 1])


@pytest.mark.parametrize(
    "text",
    ["", "ADM2", "ADM2-", "ADM2-U", "ADM1-MAD01-1-00000000", "ADM2-" + "Z" * 200, "ADM2-é"],
)
def test_malformed(text: str) -> None:
    with pytest.raises(CardCodeError) as err:
        decode_signed_code(text)
    assert err.value.code == CODE_MALFORMED


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=220))
def test_fuzz_any_text(text: str) -> None:
    with contextlib.suppress(CardCodeError):  # nothing else may escape
        decode_signed_code(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET + "OILoil'-", min_size=0, max_size=190))
def test_fuzz_base32_bodies(body: str) -> None:
    try:
        code = decode_signed_code("ADM2-" + body)
    except CardCodeError:
        return
    assert decode_signed_code(code.text) == code  # what decodes is canonical again


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=0, max_size=120))
def test_fuzz_bytes_under_the_format(data: bytes) -> None:
    with contextlib.suppress(CardCodeError):
        decode_signed_code(encode_signed_code(data, bytes(64)))


@pytest.mark.parametrize("position", range(5, len(KNOWN_TEXT)))
def test_any_flipped_character_does_not_verify(position: int) -> None:
    original = KNOWN_TEXT[position]
    for other in ALPHABET:
        if other == original:
            continue
        flipped = KNOWN_TEXT[:position] + other + KNOWN_TEXT[position + 1 :]
        assert not _verifies(flipped), (position, other)


@pytest.mark.parametrize("prefix", ["ADM3-", "ADM1-", "ADN2-", "AM2-", "ADM2+"])
def test_another_prefix_is_not_this_format(prefix: str) -> None:
    with pytest.raises(CardCodeError):
        decode_signed_code(prefix + KNOWN_TEXT[5:])

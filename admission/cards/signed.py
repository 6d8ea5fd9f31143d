"""The signed card code, format 2 (art. 22.4: staff and inspectors verify a card anywhere).

Printed in the card's QR (QR alphanumeric mode: upper-case letters, digits and '-')::

    ADM2-<Crockford base-32 of (payload || signature)>

The payload, big-endian, in this order:

=========  ==================================================================
bytes      field
=========  ==================================================================
4          key id: the first 4 bytes of SHA-256 of the raw Ed25519 public key
1 + n      casino id: n (1..8), then n ASCII bytes ``[A-Z0-9]``
5          card number, unsigned (1 .. 9,999,999,999)
1 + m      card type code: m (0..16), then m ASCII bytes (the catalogue's code)
2          valid_from: days since 2000-01-01
2          valid_until: days since 2000-01-01 (>= valid_from)
4          holder digest: HMAC-SHA256 under the file's secret ``card_holder`` of
           the card's file number in decimal, first 4 bytes (never a name or a
           DNI, and not computable without the casino's secret)
=========  ==================================================================

The signature is Ed25519 (RFC 8032, pure) over ``b"ADM2\\0" + payload``, 64 bytes.
Everything a phone needs offline is in the code; anyone holding the casino's public key
can check it. Base-32 bits are taken most significant first, 5 per character, the last
character zero-padded on the right; a reader requires those padding bits to be zero and
the decoded length to be exactly what the payload's own lengths say plus 64.

This module is the format only (standard library): signing and the signature check are
given to it (:class:`SignatureCheck`), so the domain stays pure; the keys live in the
visitor file (``db/card_keys.py``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from admission.cards.code import (
    CODE_MALFORMED,
    MAX_CARD_NUMBER,
    MAX_SIGNED_SHAPE,
    CardCodeError,
    canonical_text,
)

if TYPE_CHECKING:
    from admission.records import CardRecord

__all__ = [
    "DOMAIN",
    "HOLDER_SECRET",
    "MAX_SIGNED_TEXT",
    "PREFIX2",
    "SIGNATURE_BYTES",
    "CardKey",
    "CardKeyRing",
    "CardPublicKeys",
    "SignatureCheck",
    "SignedCode",
    "SignedFields",
    "decode_signed_code",
    "encode_payload",
    "encode_signed_code",
    "holder_digest",
    "key_id_of",
    "looks_like_signed_code",
    "signed_message",
]

PREFIX2 = "ADM2"
DOMAIN = b"ADM2\x00"  # what the signature covers first: never valid as another format
HOLDER_SECRET = "card_holder"  # the file's secret behind the holder digest
SIGNATURE_BYTES = 64
KEY_ID_BYTES = 4
HOLDER_BYTES = 4
MAX_CASINO = 8
MAX_TYPE = 16
EPOCH = date(2000, 1, 1)
MAX_DAYS = 0xFFFF
_MAX_PAYLOAD = KEY_ID_BYTES + 1 + MAX_CASINO + 5 + 1 + MAX_TYPE + 2 + 2 + HOLDER_BYTES
# "ADM2-" and ceil(8 * (payload + signature) / 5) characters, with room for a reader's
# surrounding whitespace; longer input is rejected before any parsing (untrusted text)
MAX_SIGNED_TEXT = 5 + (8 * (_MAX_PAYLOAD + SIGNATURE_BYTES) + 4) // 5 + 8
assert MAX_SIGNED_TEXT <= MAX_SIGNED_SHAPE  # looks_like_card_code routes each one here

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_VALUE = {ch: i for i, ch in enumerate(_CROCKFORD)} | {"O": 0, "I": 1, "L": 1}
_CASINO = re.compile(r"[A-Z0-9]{1,8}")
_TYPE = re.compile(r"[A-Za-z0-9_]{0,16}")


class SignatureCheck(Protocol):
    """True when ``signature`` is a valid Ed25519 signature of ``message`` under the raw
    32-byte ``public_key`` (``db/card_keys.py`` gives the one over ``cryptography``)."""

    def __call__(self, public_key: bytes, signature: bytes, message: bytes) -> bool: ...


@dataclass(frozen=True, slots=True)
class CardPublicKeys:
    """What a check of an ADM2 code needs from the file: the public keys by key id (old
    ones included: cards signed with them keep verifying), the holder-digest secret and
    the signature check."""

    by_id: Mapping[str, bytes]
    holder_key: bytes = field(repr=False)
    check: SignatureCheck = field(repr=False)


@dataclass(frozen=True, slots=True)
class CardKey:
    """One signing key, as anybody may see it (the private seed is never here)."""

    key_id: str  # 8 lower-case hex
    public_key: bytes  # raw 32 bytes
    created_at: datetime
    current: bool  # the key new cards are signed with


class CardKeyRing(Protocol):
    """The file's card-signing keys, as the desk, the CLI and the floor use them
    (``db/card_keys.py`` over the store's transactions)."""

    def card_public_keys(self) -> CardPublicKeys:
        """What an ADM2 check needs; never makes a key."""
        ...

    def signed_card_code(self, casino_id: str, card: CardRecord) -> str:
        """The ADM2 text of ``card``, signed with the current key (made on first use)."""
        ...

    def card_signing_keys(self) -> list[CardKey]:
        """Every key, newest first (generation 1 made on first use)."""
        ...

    def rotate_card_key(self, actor: str, at: datetime) -> CardKey:
        """The next key made current, audited (``CARD_KEY_ROTATED``)."""
        ...

    def sign_with_card_key(self, data: bytes) -> tuple[str, bytes]:
        """``data`` signed with the current key: (key id, 64-byte signature); the floor's
        list of voided cards is signed so."""
        ...

    def voided_cards(self) -> list[tuple[int, date]]:
        """(number, Madrid date it was voided) of the voided cards in the file, ascending."""
        ...


@dataclass(frozen=True, slots=True)
class SignedFields:
    """The signed fields of one card (``key_id`` as 8 lower-case hex)."""

    key_id: str
    casino_id: str
    number: int
    card_type: str
    valid_from: date
    valid_until: date
    holder_digest: bytes = field(repr=False)


@dataclass(frozen=True, slots=True)
class SignedCode:
    """A decoded ADM2 text; its signature is not checked yet."""

    fields: SignedFields
    signature: bytes = field(repr=False)
    signed_bytes: bytes = field(repr=False)  # DOMAIN + payload: what the signature covers
    text: str  # canonical form


def key_id_of(public_key: bytes) -> str:
    """The key id: the first 4 bytes of SHA-256 of the raw public key, as 8 hex."""
    return hashlib.sha256(public_key).digest()[:KEY_ID_BYTES].hex()


def holder_digest(secret: bytes, file_number: int) -> bytes:
    """The 4-byte holder digest of the card's file number under ``secret``."""
    return hmac.new(secret, str(file_number).encode("ascii"), hashlib.sha256).digest()[
        :HOLDER_BYTES
    ]


def _days(day: date) -> int:
    days = (day - EPOCH).days
    if not 0 <= days <= MAX_DAYS:
        raise ValueError("date out of the code's range")
    return days


def encode_payload(fields: SignedFields) -> bytes:
    """The payload to sign; raises ValueError for a field the format cannot carry."""
    if not re.fullmatch(r"[0-9a-f]{8}", fields.key_id):
        raise ValueError("key id must be 8 lower-case hex")
    if not _CASINO.fullmatch(fields.casino_id):
        raise ValueError("casino id must be 1-8 upper-case letters or digits")
    number = fields.number
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError("card number must be an int")
    if not 1 <= number <= MAX_CARD_NUMBER:
        raise ValueError("card number out of range")
    if not _TYPE.fullmatch(fields.card_type):
        raise ValueError("card type code must be 0-16 ASCII letters, digits or '_'")
    if fields.valid_until < fields.valid_from:
        raise ValueError("valid_until before valid_from")
    if len(fields.holder_digest) != HOLDER_BYTES:
        raise ValueError("holder digest must be 4 bytes")
    casino, kind = fields.casino_id.encode("ascii"), fields.card_type.encode("ascii")
    return b"".join(
        (
            bytes.fromhex(fields.key_id),
            bytes((len(casino),)),
            casino,
            number.to_bytes(5, "big"),
            bytes((len(kind),)),
            kind,
            _days(fields.valid_from).to_bytes(2, "big"),
            _days(fields.valid_until).to_bytes(2, "big"),
            fields.holder_digest,
        )
    )


def signed_message(payload: bytes) -> bytes:
    """What the Ed25519 signature covers."""
    return DOMAIN + payload


def _base32(data: bytes) -> str:
    bits = len(data) * 8
    chars = -(-bits // 5)
    value = int.from_bytes(data, "big") << (chars * 5 - bits)  # zero-padded on the right
    return "".join(_CROCKFORD[(value >> (5 * i)) & 31] for i in range(chars - 1, -1, -1))


def encode_signed_code(payload: bytes, signature: bytes) -> str:
    """The text printed in the QR: ``ADM2-`` and the base-32 of payload || signature."""
    if len(signature) != SIGNATURE_BYTES:
        raise ValueError("an Ed25519 signature is 64 bytes")
    return f"{PREFIX2}-{_base32(payload + signature)}"


def _canonical(text: str) -> str:
    return canonical_text(text, MAX_SIGNED_TEXT)


def looks_like_signed_code(text: str) -> bool:
    """True when ``text`` has the shape of an ADM2 code (no key needed)."""
    try:
        cleaned = _canonical(text)
    except CardCodeError:
        return False
    body = cleaned.removeprefix(PREFIX2 + "-")
    return body != cleaned and bool(body) and all(ch in _VALUE for ch in body)


def _unbase32(body: str) -> bytes:
    """The bytes of ``body``; the padding bits after them must be zero."""
    value = 0
    for ch in body:
        digit = _VALUE.get(ch)
        if digit is None:
            raise CardCodeError(CODE_MALFORMED, "not a base-32 character")
        value = (value << 5) | digit
    bits = len(body) * 5
    size, pad = divmod(bits, 8)
    if value & ((1 << pad) - 1):
        raise CardCodeError(CODE_MALFORMED, "padding bits set")
    return (value >> pad).to_bytes(size, "big")


def _day(raw: bytes) -> date:
    return EPOCH + timedelta(days=int.from_bytes(raw, "big"))


def decode_signed_code(text: str) -> SignedCode:
    """Decode an ADM2 text into its fields, signature and signed bytes.

    Raises :class:`CardCodeError` with ``CODE_MALFORMED`` for anything that is not
    exactly one well-formed ADM2 code; the signature is the caller's to check.
    """
    cleaned = _canonical(text)
    body = cleaned.removeprefix(PREFIX2 + "-")
    if body == cleaned or not body:
        raise CardCodeError(CODE_MALFORMED, "not an ADM2 card code")
    data = _unbase32(body)
    if len(data) > _MAX_PAYLOAD + SIGNATURE_BYTES:
        raise CardCodeError(CODE_MALFORMED, "too long")
    try:
        at = KEY_ID_BYTES
        n = data[at]
        casino = data[at + 1 : at + 1 + n]
        at += 1 + n
        number = int.from_bytes(data[at : at + 5], "big")
        at += 5
        m = data[at]
        kind = data[at + 1 : at + 1 + m]
        at += 1 + m
    except IndexError:
        raise CardCodeError(CODE_MALFORMED, "truncated") from None
    payload_size = at + 2 + 2 + HOLDER_BYTES
    if len(data) != payload_size + SIGNATURE_BYTES:
        raise CardCodeError(CODE_MALFORMED, "length does not match the payload's")
    if len(body) != -(-len(data) * 8 // 5):  # a padding of 5 bits or more: a stray char
        raise CardCodeError(CODE_MALFORMED, "not the canonical length")
    if not 1 <= n <= MAX_CASINO or not _CASINO.fullmatch(casino.decode("latin-1")):
        raise CardCodeError(CODE_MALFORMED, "casino id")
    if m > MAX_TYPE or not _TYPE.fullmatch(kind.decode("latin-1")):
        raise CardCodeError(CODE_MALFORMED, "card type code")
    if not 1 <= number <= MAX_CARD_NUMBER:
        raise CardCodeError(CODE_MALFORMED, "card number out of range")
    valid_from, valid_until = _day(data[at : at + 2]), _day(data[at + 2 : at + 4])
    if valid_until < valid_from:
        raise CardCodeError(CODE_MALFORMED, "validity ends before it starts")
    payload = data[:payload_size]
    fields = SignedFields(
        key_id=data[:KEY_ID_BYTES].hex(),
        casino_id=casino.decode("ascii"),
        number=number,
        card_type=kind.decode("ascii"),
        valid_from=valid_from,
        valid_until=valid_until,
        holder_digest=data[at + 4 : payload_size],
    )
    return SignedCode(
        fields=fields,
        signature=data[payload_size:],
        signed_bytes=signed_message(payload),
        text=f"{PREFIX2}-{_base32(data)}",
    )

"""The code printed on our entry cards (tarjeta de entrada, art. 22), verified under R8 (art. 22.4).

Format (version 1)::

    ADM1-<casino id>-<card number>-<MAC>
    e.g. ADM1-MAD01-1234567-7QX2KD9M

* ``ADM1`` names the format, so a later version can change the MAC or the fields.
* ``casino id``: 1-8 upper-case letters or digits (one id per operating unit: annex rooms
  share the casino's id and card sequence, art. 154-155, R17).
* ``card number``: decimal, 1-10 digits, no leading zero (one canonical text per card).
* ``MAC``: the first 40 bits of HMAC-SHA256(key, "ADM1\\0<casino id>\\0<number>") written as
  8 Crockford base-32 characters (no I, L, O, U, so a person typing it cannot confuse them
  with 1 and 0; when reading, I/L are taken as 1 and O as 0).

Why a MAC and not a check digit: a check digit catches typing mistakes but anybody can
compute it, so a forged card with a real number would verify. Forty bits of HMAC catch
every typing mistake but one in 10^12, and a forger without the casino's key (kept inside
the encrypted visitor file, ``secret("card_code")``) must guess online, where every check
is recorded in the audit trail.

Why this alphabet: upper-case letters, digits and '-' are all in QR's alphanumeric mode
(5.5 bits per character, a small symbol) and in Code 128, so both printed symbologies
carry the code and both decoders (zbar, zxing-cpp) read it back byte for byte. A handheld
reader configured for a US keyboard on a Spanish-layout PC types "'" for '-': that is
accepted as a separator too (the MAC still decides).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from enum import unique

from admission.codes import Code
from admission.errors import AdmissionError

__all__ = [
    "CODE_MALFORMED",
    "CODE_OTHER_CASINO",
    "CODE_TAMPERED",
    "MAX_CARD_NUMBER",
    "PREFIX",
    "CardCode",
    "CardCodeError",
    "CardCodeErrorCode",
    "canonical_text",
    "encode_card_code",
    "looks_like_card_code",
    "parse_card_code",
]

PREFIX = "ADM1"


@unique
class CardCodeErrorCode(Code):
    """Why a scanned or typed card code cannot be trusted (R8, art. 22.4)."""

    CODE_MALFORMED = "CODE_MALFORMED"  # not one of our codes at all
    CODE_TAMPERED = "CODE_TAMPERED"  # the MAC does not match: forged or mistyped
    CODE_OTHER_CASINO = "CODE_OTHER_CASINO"  # ours, but issued under another casino id


# The members under their short names, for callers and tests that import them.
CODE_MALFORMED = CardCodeErrorCode.CODE_MALFORMED
CODE_TAMPERED = CardCodeErrorCode.CODE_TAMPERED
CODE_OTHER_CASINO = CardCodeErrorCode.CODE_OTHER_CASINO

MAX_CARD_NUMBER = 9_999_999_999
MAC_CHARS = 8  # 8 x 5 = 40 bits
MIN_KEY_BYTES = 16
MAX_TEXT = 64  # longer input is rejected before any parsing (untrusted reader text)

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_CASINO = re.compile(r"^[A-Z0-9]{1,8}$")
_CODE = re.compile(
    r"^ADM1-(?P<casino>[A-Z0-9]{1,8})-(?P<number>[1-9][0-9]{0,9})-(?P<mac>[0-9A-Z]{8})$"
)
# the shape of a signed code (ADM2, admission/cards/signed.py, which reads it), bounded
MAX_SIGNED_SHAPE = 200
_SIGNED_SHAPE = re.compile(r"^ADM2-[0-9A-Z]+$")
_LOOKALIKES = str.maketrans({"O": "0", "I": "1", "L": "1"})


class CardCodeError(AdmissionError):
    """A card code that cannot be trusted; ``code`` is a :class:`CardCodeErrorCode`."""

    code: Code = CardCodeErrorCode.CODE_MALFORMED

    def __init__(self, code: CardCodeErrorCode, detail: str = "") -> None:
        super().__init__(detail or code, code=code)


@dataclass(frozen=True, slots=True)
class CardCode:
    """A verified card code: the MAC matched, so casino id and number are ours."""

    casino_id: str
    number: int
    text: str  # canonical printed form


def _mac(casino_id: str, number: int, key: bytes) -> str:
    message = f"{PREFIX}\0{casino_id}\0{number}".encode("ascii")
    digest = hmac.new(key, message, hashlib.sha256).digest()
    bits = int.from_bytes(digest[:5], "big")  # first 40 bits
    return "".join(_CROCKFORD[(bits >> shift) & 31] for shift in range(35, -1, -5))


def _check_key(key: bytes) -> None:
    if not isinstance(key, bytes) or len(key) < MIN_KEY_BYTES:
        raise ValueError(f"card code key must be at least {MIN_KEY_BYTES} bytes")


def encode_card_code(casino_id: str, number: int, key: bytes) -> str:
    """The text to print (as Code 128 and/or QR) on card ``number`` of ``casino_id``."""
    _check_key(key)
    if not _CASINO.match(casino_id):
        raise ValueError("casino id must be 1-8 upper-case letters or digits")
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError("card number must be an int")
    if not 1 <= number <= MAX_CARD_NUMBER:
        raise ValueError("card number out of range")
    return f"{PREFIX}-{casino_id}-{number}-{_mac(casino_id, number, key)}"


def canonical_text(text: str, limit: int = MAX_TEXT) -> str:
    """Trim what readers add around a scan, fold case and take ``'`` for ``-`` (a US
    keyboard wedge on a Spanish PC); never widens the alphabet. Text longer than
    ``limit`` is refused before anything else (untrusted reader text)."""
    if not isinstance(text, str) or len(text) > limit:
        raise CardCodeError(CODE_MALFORMED, "not text or too long")
    cleaned = text.strip(" \t\r\n").upper().replace("'", "-")
    if not cleaned.isascii():
        raise CardCodeError(CODE_MALFORMED, "non-ASCII characters")
    return cleaned


def looks_like_card_code(text: str) -> bool:
    """True when ``text`` has the shape of one of our codes (no key needed).

    Lets a reader's output be routed to card verification rather than to a search.
    The signed codes of format 2 (admission/cards/signed.py) are ours too.
    """
    try:
        cleaned = canonical_text(text, MAX_SIGNED_SHAPE)
    except CardCodeError:
        return False
    if _SIGNED_SHAPE.match(cleaned):
        return True
    return len(text) <= MAX_TEXT and _CODE.match(cleaned) is not None  # ADM1's own bound


def parse_card_code(text: str, key: bytes, *, casino_id: str | None = None) -> CardCode:
    """Verify a scanned or typed code.

    Raises :class:`CardCodeError` with ``CODE_MALFORMED`` (not our format),
    ``CODE_OTHER_CASINO`` (well-formed, but for a different casino id than ``casino_id``,
    when given) or ``CODE_TAMPERED`` (the MAC does not match: forged or mistyped).
    """
    _check_key(key)
    match = _CODE.match(canonical_text(text))
    if match is None:
        raise CardCodeError(CODE_MALFORMED, "not an ADM1 card code")
    code_casino = match["casino"]
    number = int(match["number"])
    if casino_id is not None and code_casino != casino_id:
        raise CardCodeError(CODE_OTHER_CASINO, "card issued under another casino id")
    given = match["mac"].translate(_LOOKALIKES)
    if any(c not in _CROCKFORD for c in given):  # 'U' is never produced
        raise CardCodeError(CODE_TAMPERED, "MAC alphabet")
    expected = _mac(code_casino, number, key)
    if not hmac.compare_digest(given, expected):
        raise CardCodeError(CODE_TAMPERED, "MAC mismatch")
    return CardCode(code_casino, number, f"{PREFIX}-{code_casino}-{number}-{expected}")

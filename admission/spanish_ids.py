"""Spanish identity numbers: DNI and NIE check letters (Real Decreto 1553/2005).

The DNI number is 8 digits followed by a check letter: the number mod 23
indexes ``TRWAGMYFPDXBNJZSQVHLCKE``. The NIE (número de identidad de
extranjero) starts with X, Y or Z, which count as 0, 1 and 2 in front of its
7 digits for the same computation.
"""

from __future__ import annotations

import re

from admission.identity import normalise_number

_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_DNI = re.compile(r"^[0-9]{8}[A-Z]$")
_NIE = re.compile(r"^[XYZ][0-9]{7}[A-Z]$")
_NIE_PREFIX = {"X": "0", "Y": "1", "Z": "2"}


def dni_check_letter(n: int) -> str:
    """The check letter of DNI number ``n`` (0 <= n <= 99 999 999)."""
    if not 0 <= n <= 99_999_999:
        raise ValueError("DNI number must have at most 8 digits")
    return _LETTERS[n % 23]


def normalise(raw: str) -> str:
    """Upper case without spaces, dashes, dots or fillers; a 7-digit DNI is zero-padded.

    ``"1234567-l"`` -> ``"01234567L"``; ``"x-1234567-l"`` -> ``"X1234567L"``.
    """
    text = normalise_number(raw)
    if re.fullmatch(r"[0-9]{1,7}[A-Z]", text):
        text = text.zfill(9)
    elif re.fullmatch(r"[XYZ][0-9]{1,6}[A-Z]", text):
        text = text[0] + text[1:].zfill(8)
    return text


def looks_like_dni(number: str) -> bool:
    """Shape only: 8 digits + letter (the letter is not checked)."""
    return bool(_DNI.match(number))


def looks_like_nie(number: str) -> bool:
    """Shape only: X/Y/Z + 7 digits + letter (the letter is not checked)."""
    return bool(_NIE.match(number))


def is_valid_dni(number: str) -> bool:
    """8 digits and the right check letter (already normalised text)."""
    return looks_like_dni(number) and dni_check_letter(int(number[:8])) == number[8]


def is_valid_nie(number: str) -> bool:
    """X/Y/Z, 7 digits and the right check letter (already normalised text)."""
    if not looks_like_nie(number):
        return False
    return dni_check_letter(int(_NIE_PREFIX[number[0]] + number[1:8])) == number[8]

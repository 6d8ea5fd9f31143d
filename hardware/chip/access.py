"""The access keys a chip is opened with: the MRZ's document number, birth and expiry
dates (BAC and PACE), or the 6-digit card access number printed on the card (PACE).

ICAO 9303-11 §9.7.2: the MRZ information is the document number, the date of birth and
the date of expiry, each followed by its check digit; BAC's key seed is the first 16
bytes of its SHA-1, PACE's password ``pi`` is the whole SHA-1 (§4.4.4.1); a CAN is used
as it is (its ASCII digits).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from admission.mrz.check import check_digit

__all__ = [
    "AccessKey",
    "CanKey",
    "MrzKey",
    "bac_key_seed",
    "mrz_information",
    "pace_password",
    "password_reference",
]


@dataclass(frozen=True, slots=True)
class MrzKey:
    """The MRZ fields that open the chip: the document number as printed (without its
    check digit; ``<`` filler kept), the dates of birth and expiry as YYMMDD."""

    document_number: str
    birth_date: str
    expiry_date: str

    def __post_init__(self) -> None:
        for value in (self.birth_date, self.expiry_date):
            if len(value) != 6 or not value.isdigit():
                raise ValueError("dates are YYMMDD")
        if not self.document_number or check_digit(self.document_number) is None:
            raise ValueError("the document number holds a non-MRZ character")

    def __repr__(self) -> str:  # never a document number in a log
        return "MrzKey(...)"


@dataclass(frozen=True, slots=True)
class CanKey:
    """The card access number: 6 digits printed on the card's front (DNIe, EU ID cards)."""

    can: str

    def __post_init__(self) -> None:
        if len(self.can) != 6 or not self.can.isdigit():
            raise ValueError("a CAN is 6 digits")

    def __repr__(self) -> str:
        return "CanKey(...)"


AccessKey = MrzKey | CanKey


def _with_check(field: str) -> str:
    digit = check_digit(field)
    if digit is None:
        raise ValueError("not an MRZ field")
    return f"{field}{digit}"


def mrz_information(key: MrzKey) -> str:
    """9303-11 §9.7.2: number + check digit, birth + check digit, expiry + check digit.

    A document number shorter than the MRZ's 9 characters is filled with ``<`` (its check
    digit covers the filler); a longer one is used whole (TD1's optional data carries the
    rest, its check digit covering all of it).
    """
    number = key.document_number.upper()
    if len(number) < 9:
        number = number.ljust(9, "<")
    return _with_check(number) + _with_check(key.birth_date) + _with_check(key.expiry_date)


def bac_key_seed(key: MrzKey) -> bytes:
    """BAC's K_seed: the first 16 bytes of SHA-1 of the MRZ information (§9.7.2)."""
    return hashlib.sha1(mrz_information(key).encode("ascii"), usedforsecurity=True).digest()[:16]


def pace_password(key: AccessKey) -> bytes:
    """PACE's shared secret ``pi`` (§4.4.4.1): SHA-1 of the MRZ information, or the CAN."""
    if isinstance(key, CanKey):
        return key.can.encode("ascii")
    return hashlib.sha1(mrz_information(key).encode("ascii"), usedforsecurity=True).digest()


def password_reference(key: AccessKey) -> int:
    """The PACE password reference of MSE:Set AT (§4.4.4.1): 1 MRZ, 2 CAN."""
    return 2 if isinstance(key, CanKey) else 1

"""The canonical identity key used everywhere: visitor file, bans and registry.

A person is identified by (kind, issuing country, normalised number). Spanish
documents are keyed by the DNI or NIE number, whatever document carried it
(ID card, passport, residence card, driving licence), because that is the
number the Registro de Interdicciones holds (art. 20.2).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum


class IdKind(StrEnum):
    """What the normalised number is."""

    DNI = "DNI"  # Spanish national identity number, 8 digits + letter
    NIE = "NIE"  # Spanish foreigner's number, X/Y/Z + 7 digits + letter
    PASSPORT = "PASSPORT"  # passport number as printed
    ID_CARD = "ID_CARD"  # foreign national identity card number
    RESIDENCE = "RESIDENCE"  # foreign residence permit number
    DRIVING_LICENCE = "DRIVING_LICENCE"  # driving licence number (art. 23.1)
    OTHER = "OTHER"


_STRIP = re.compile(r"[\s\-./<]+")
_VALID_NUMBER = re.compile(r"^[A-Z0-9]{1,20}$")
_COUNTRY = re.compile(r"^[A-Z]{1,3}$")


def normalise_number(raw: str) -> str:
    """Upper case, accents folded, spaces, dashes, dots and fillers removed."""
    folded = unicodedata.normalize("NFKD", raw)
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return _STRIP.sub("", folded).upper()


@dataclass(frozen=True, slots=True)
class IdentityKey:
    """Canonical identity: (kind, issuing country, normalised number)."""

    kind: IdKind
    country: str  # ICAO 9303 three-letter code ("ESP", "D" for Germany, "UTO"...)
    number: str

    def __post_init__(self) -> None:
        if not _VALID_NUMBER.match(self.number):
            raise ValueError("identity number must be 1-20 upper-case letters or digits")
        if not _COUNTRY.match(self.country):
            raise ValueError("country must be an ICAO code of 1-3 letters")

    @classmethod
    def of(cls, kind: IdKind | str, country: str, number: str) -> IdentityKey:
        """Build a key from untrusted text, normalising every part."""
        return cls(IdKind(kind), normalise_number(country), normalise_number(number))

    @property
    def text(self) -> str:
        """Stable text form, e.g. ``DNI:ESP:12345678Z`` (stored and hashed)."""
        return f"{self.kind.value}:{self.country}:{self.number}"

    @classmethod
    def parse(cls, text: str) -> IdentityKey:
        kind, country, number = text.split(":", 2)
        return cls(IdKind(kind), country, number)

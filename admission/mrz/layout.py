"""Field positions of the machine readable zones (ICAO Doc 9303 parts 4-7).

All positions are 0-based ``(line, start, end)`` with ``end`` exclusive. The
layouts are plain data so the parser, the corrector and the builder
(:mod:`admission.generators.mrz_build`) share one description of every format.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum, unique

from admission.codes import Code


class MrzFormat(StrEnum):
    """Geometry of the zone. ``FR_CNI`` is the pre-2021 French national ID card."""

    TD1 = "TD1"  # 3 x 30, ID cards (Doc 9303 part 5)
    TD2 = "TD2"  # 2 x 36 (part 6)
    TD3 = "TD3"  # 2 x 44, passports (part 4)
    MRVA = "MRVA"  # 2 x 44, visa type A (part 7)
    MRVB = "MRVB"  # 2 x 36, visa type B (part 7)
    FR_CNI = "FR_CNI"  # 2 x 36, French CNI 1995-2021: national layout, not ICAO


@unique
class MrzCheckError(Code):
    """The check digit that fails (7-3-1, Doc 9303 part 3, 4.9): a misread or a forgery."""

    CHECK_DOCUMENT_NUMBER = "CHECK_DOCUMENT_NUMBER"
    CHECK_BIRTH_DATE = "CHECK_BIRTH_DATE"
    CHECK_EXPIRY_DATE = "CHECK_EXPIRY_DATE"
    CHECK_PERSONAL_NUMBER = "CHECK_PERSONAL_NUMBER"  # TD3 (passports)
    CHECK_COMPOSITE = "CHECK_COMPOSITE"  # over the whole zone: TD1, TD2, TD3, French CNI


class Kind(Enum):
    """What characters a field may hold; drives look-alike correction."""

    CODE = "code"  # document code: letters and filler
    COUNTRY = "country"  # ICAO country code: letters and filler
    NAME = "name"  # letters and filler
    ALNUM = "alnum"  # document number, optional data: letters, digits, filler
    DATE = "date"  # YYMMDD digits
    CHECK = "check"  # one check digit
    SEX = "sex"  # M, F, < (and X as printed by some states)


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    line: int
    start: int
    end: int
    kind: Kind


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """A check digit at ``target`` over the concatenation of ``ranges``."""

    error: MrzCheckError  # reported when it fails
    target: tuple[int, int]
    ranges: tuple[tuple[int, int, int], ...]
    filler_ok: bool = False  # '<' allowed as check digit when the data is all filler
    # A national variant honoured beside the rule above: the check digit may instead
    # cover these ranges (only for the issuer that prints it, see check.effective_checks).
    alternative: tuple[tuple[int, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Layout:
    format: MrzFormat
    line_count: int
    line_length: int
    fields: tuple[FieldSpec, ...]
    checks: tuple[CheckSpec, ...]

    def field(self, name: str) -> FieldSpec:
        for spec in self.fields:
            if spec.name == name:
                return spec
        raise KeyError(name)


F = FieldSpec
K = Kind

_TD1 = Layout(
    MrzFormat.TD1,
    3,
    30,
    (
        F("document_code", 0, 0, 2, K.CODE),
        F("issuer", 0, 2, 5, K.COUNTRY),
        F("document_number", 0, 5, 14, K.ALNUM),
        F("document_number_check", 0, 14, 15, K.CHECK),
        F("optional_data_1", 0, 15, 30, K.ALNUM),
        F("birth_date", 1, 0, 6, K.DATE),
        F("birth_date_check", 1, 6, 7, K.CHECK),
        F("sex", 1, 7, 8, K.SEX),
        F("expiry_date", 1, 8, 14, K.DATE),
        F("expiry_date_check", 1, 14, 15, K.CHECK),
        F("nationality", 1, 15, 18, K.COUNTRY),
        F("optional_data_2", 1, 18, 29, K.ALNUM),
        F("composite_check", 1, 29, 30, K.CHECK),
        F("names", 2, 0, 30, K.NAME),
    ),
    (
        CheckSpec(MrzCheckError.CHECK_DOCUMENT_NUMBER, (0, 14), ((0, 5, 14),)),
        CheckSpec(MrzCheckError.CHECK_BIRTH_DATE, (1, 6), ((1, 0, 6),)),
        CheckSpec(MrzCheckError.CHECK_EXPIRY_DATE, (1, 14), ((1, 8, 14),)),
        CheckSpec(
            MrzCheckError.CHECK_COMPOSITE, (1, 29), ((0, 5, 30), (1, 0, 7), (1, 8, 15), (1, 18, 29))
        ),
    ),
)


def _two_line(fmt: MrzFormat, length: int) -> Layout:
    """TD2, TD3, MRV-A and MRV-B share the line-2 layout up to column 28."""
    visa = fmt in (MrzFormat.MRVA, MrzFormat.MRVB)
    fields = [
        F("document_code", 0, 0, 2, K.CODE),
        F("issuer", 0, 2, 5, K.COUNTRY),
        F("names", 0, 5, length, K.NAME),
        F("document_number", 1, 0, 9, K.ALNUM),
        F("document_number_check", 1, 9, 10, K.CHECK),
        F("nationality", 1, 10, 13, K.COUNTRY),
        F("birth_date", 1, 13, 19, K.DATE),
        F("birth_date_check", 1, 19, 20, K.CHECK),
        F("sex", 1, 20, 21, K.SEX),
        F("expiry_date", 1, 21, 27, K.DATE),
        F("expiry_date_check", 1, 27, 28, K.CHECK),
    ]
    checks = [
        CheckSpec(MrzCheckError.CHECK_DOCUMENT_NUMBER, (1, 9), ((1, 0, 9),)),
        CheckSpec(MrzCheckError.CHECK_BIRTH_DATE, (1, 19), ((1, 13, 19),)),
        CheckSpec(MrzCheckError.CHECK_EXPIRY_DATE, (1, 27), ((1, 21, 27),)),
    ]
    if visa:
        # Visas have no composite check digit (Doc 9303 part 7).
        fields.append(F("optional_data_2", 1, 28, length, K.ALNUM))
    elif fmt is MrzFormat.TD3:
        fields += [
            F("personal_number", 1, 28, 42, K.ALNUM),
            F("personal_number_check", 1, 42, 43, K.CHECK),
            F("composite_check", 1, 43, 44, K.CHECK),
        ]
        checks += [
            # Part 4: the check digit may be '<' when the personal number is empty.
            CheckSpec(MrzCheckError.CHECK_PERSONAL_NUMBER, (1, 42), ((1, 28, 42),), filler_ok=True),
            CheckSpec(
                MrzCheckError.CHECK_COMPOSITE, (1, 43), ((1, 0, 10), (1, 13, 20), (1, 21, 43))
            ),
        ]
    else:  # TD2
        fields += [
            F("optional_data_2", 1, 28, 35, K.ALNUM),
            F("composite_check", 1, 35, 36, K.CHECK),
        ]
        checks.append(
            CheckSpec(
                MrzCheckError.CHECK_COMPOSITE, (1, 35), ((1, 0, 10), (1, 13, 20), (1, 21, 35))
            )
        )
    return Layout(fmt, 2, length, tuple(fields), tuple(checks))


# French CNI (1995-2021), 2 x 36: line 1 "IDFRA" + surname (25) + administrative
# code (6); line 2 card number (12) + check, given names (14), birth date +
# check, sex, and a global check digit over line 1 and line 2 columns 0-34.
_FR_CNI = Layout(
    MrzFormat.FR_CNI,
    2,
    36,
    (
        F("document_code", 0, 0, 2, K.CODE),
        F("issuer", 0, 2, 5, K.COUNTRY),
        F("surname", 0, 5, 30, K.NAME),
        F("optional_data_1", 0, 30, 36, K.ALNUM),
        F("document_number", 1, 0, 12, K.ALNUM),
        F("document_number_check", 1, 12, 13, K.CHECK),
        F("given_names", 1, 13, 27, K.NAME),
        F("birth_date", 1, 27, 33, K.DATE),
        F("birth_date_check", 1, 33, 34, K.CHECK),
        F("sex", 1, 34, 35, K.SEX),
        F("composite_check", 1, 35, 36, K.CHECK),
    ),
    (
        CheckSpec(MrzCheckError.CHECK_DOCUMENT_NUMBER, (1, 12), ((1, 0, 12),)),
        CheckSpec(MrzCheckError.CHECK_BIRTH_DATE, (1, 33), ((1, 27, 33),)),
        CheckSpec(MrzCheckError.CHECK_COMPOSITE, (1, 35), ((0, 0, 36), (1, 0, 35))),
    ),
)

LAYOUTS: dict[MrzFormat, Layout] = {
    MrzFormat.TD1: _TD1,
    MrzFormat.TD2: _two_line(MrzFormat.TD2, 36),
    MrzFormat.TD3: _two_line(MrzFormat.TD3, 44),
    MrzFormat.MRVA: _two_line(MrzFormat.MRVA, 44),
    MrzFormat.MRVB: _two_line(MrzFormat.MRVB, 36),
    MrzFormat.FR_CNI: _FR_CNI,
}


def detect_format(lines: list[str]) -> MrzFormat | None:
    """The format from line count and lengths (all lines must have the same length)."""
    lengths = {len(line) for line in lines}
    if len(lengths) != 1:
        return None
    length = lengths.pop()
    if len(lines) == 3 and length == 30:
        return MrzFormat.TD1
    if len(lines) != 2:
        return None
    visa = lines[0].startswith("V")
    if length == 44:
        return MrzFormat.MRVA if visa else MrzFormat.TD3
    if length == 36:
        if visa:
            return MrzFormat.MRVB
        # France never issued ICAO TD2 identity cards; its 2 x 36 cards use
        # the national layout.
        return MrzFormat.FR_CNI if lines[0].startswith("IDFRA") else MrzFormat.TD2
    return None


def expected_shape(line_count: int) -> tuple[int, ...]:
    """Line lengths a zone with this many lines may have."""
    return (30,) if line_count == 3 else (36, 44)

"""MRZ geometry and check-digit groups (ICAO 9303 parts 4-7), for the recogniser only.

The domain (``admission.mrz.layout``) owns the formats: where every field and check digit
is. This module derives from it what the decoder needs - the characters each position may
hold, the check groups, the country fields - so the decoder can let the check digits
settle ambiguous characters (``decode.py``) before the lines are handed to the parser.
"""

from __future__ import annotations

from dataclasses import dataclass

from admission.mrz import check as mrz_check
from admission.mrz.layout import LAYOUTS, Kind, MrzFormat, detect_format

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
DIGITS = frozenset("0123456789")
LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ<")
ANY = frozenset(ALPHABET)
NUMERIC = frozenset("0123456789<")
SEX = frozenset("MFX<")
# the document code's first character (ICAO 9303 parts 4-7): P for a passport (TD3), V
# for a visa, A, C or I for a TD1/TD2 card. P is allowed on a TD2 as well: the rules are
# not older than every passport still in a drawer
CODE_TD3 = frozenset("P")
CODE_VISA = frozenset("V")
CODE_CARD = frozenset("ACI")
CODE_TD2 = frozenset("ACIP")


def char_value(c: str) -> int:
    """ICAO value of one MRZ character: digits, A=10..Z=35, '<'=0."""
    value = mrz_check.char_value(c)
    if value is None:
        raise ValueError(f"not an MRZ character: {c!r}")
    return value


def check_digit(text: str) -> str:
    """ICAO 9303 check digit (weights 7, 3, 1) of ``text``."""
    digit = mrz_check.check_digit(text)
    if digit is None:
        raise ValueError("not MRZ characters")
    return str(digit)


Span = tuple[int, int, int]  # (line, start, end exclusive)
Cell = tuple[int, int]  # (line, column)


@dataclass(frozen=True)
class CheckGroup:
    """Characters covered by a check digit, and where that digit sits."""

    name: str
    spans: tuple[Span, ...]
    check: Cell
    may_be_filler: bool = False  # an all-'<' field may carry '<' as its check digit


@dataclass(frozen=True)
class Layout:
    name: str  # TD1, TD2, TD3, MRVA, MRVB, FRA
    line_length: int
    line_count: int
    classes: tuple[tuple[frozenset[str], ...], ...]  # allowed characters per position
    groups: tuple[CheckGroup, ...]  # field groups first, composite last
    countries: tuple[Span, ...]  # issuer and nationality: listed country codes
    fields: dict[str, Span]  # the domain's fields by name
    unchecked: tuple[Cell, ...]  # identity characters no field check digit covers

    def allowed(self, line: int, col: int) -> frozenset[str]:
        return self.classes[line][col]


# what each kind of field may hold. The nationality is left open: a national specimen
# prints digits there (the Romanian specimen of the real set reads 132), and the reader
# reports what is printed
_KIND_CLASSES = {
    Kind.CODE: LETTERS,
    Kind.COUNTRY: LETTERS,
    Kind.NAME: LETTERS,
    Kind.ALNUM: ANY,
    Kind.DATE: NUMERIC,
    Kind.CHECK: NUMERIC,
    Kind.SEX: SEX,
}
_OPEN_FIELDS = frozenset({"nationality"})
# identity characters: document code, issuer, names, nationality, sex (optional data is
# left to the composite digit and to the document's own checks, e.g. the DNI letter)
_IDENTITY_KINDS = frozenset({Kind.CODE, Kind.COUNTRY, Kind.NAME, Kind.SEX})
_NAMES = {
    MrzFormat.TD1: "TD1",
    MrzFormat.TD2: "TD2",
    MrzFormat.TD3: "TD3",
    MrzFormat.MRVA: "MRVA",
    MrzFormat.MRVB: "MRVB",
    MrzFormat.FR_CNI: "FRA",
}
_FIRST_CODE = {
    MrzFormat.TD1: CODE_CARD,
    MrzFormat.TD2: CODE_TD2,
    MrzFormat.TD3: CODE_TD3,
    MrzFormat.MRVA: CODE_VISA,
    MrzFormat.MRVB: CODE_VISA,
    MrzFormat.FR_CNI: frozenset("I"),
}


def _derived(fmt: MrzFormat) -> Layout:
    spec = LAYOUTS[fmt]
    classes = [[ANY] * spec.line_length for _ in range(spec.line_count)]
    for f in spec.fields:
        cls = ANY if f.name in _OPEN_FIELDS else _KIND_CLASSES[f.kind]
        classes[f.line][f.start : f.end] = [cls] * (f.end - f.start)
    classes[0][0] = _FIRST_CODE[fmt]
    groups = tuple(
        CheckGroup(c.error.removeprefix("CHECK_").lower(), c.ranges, c.target, c.filler_ok)
        for c in spec.checks
    )
    return Layout(
        name=_NAMES[fmt],
        line_length=spec.line_length,
        line_count=spec.line_count,
        classes=tuple(tuple(row) for row in classes),
        groups=groups,
        countries=tuple((f.line, f.start, f.end) for f in spec.fields if f.kind is Kind.COUNTRY),
        fields={f.name: (f.line, f.start, f.end) for f in spec.fields},
        unchecked=tuple(
            (f.line, c)
            for f in spec.fields
            if f.kind in _IDENTITY_KINDS
            for c in range(f.start, f.end)
        ),
    )


_BY_FORMAT = {fmt: _derived(fmt) for fmt in MrzFormat}
TD1 = _BY_FORMAT[MrzFormat.TD1]
TD2 = _BY_FORMAT[MrzFormat.TD2]
TD3 = _BY_FORMAT[MrzFormat.TD3]
MRVA = _BY_FORMAT[MrzFormat.MRVA]
MRVB = _BY_FORMAT[MrzFormat.MRVB]
FRA = _BY_FORMAT[MrzFormat.FR_CNI]


def layouts_for(line_count: int, line_length: int) -> tuple[Layout, ...]:
    """Candidate layouts for a geometry; the first line's code picks among them later."""
    if line_count == 3 and line_length == 30:
        return (TD1,)
    if line_count == 2 and line_length == 44:
        return (TD3, MRVA)
    if line_count == 2 and line_length == 36:
        return (TD2, MRVB, FRA)
    return ()


def layout_for_lines(lines: list[str]) -> Layout | None:
    """The layout a set of read lines follows (by geometry and document code)."""
    fmt = detect_format(lines)
    return None if fmt is None else _BY_FORMAT[fmt]


def group_ok(group: CheckGroup, lines: list[str]) -> bool:
    """Whether ``group``'s check digit passes on ``lines``."""
    text = "".join(lines[ln][a:b] for ln, a, b in group.spans)
    got = lines[group.check[0]][group.check[1]]
    if group.may_be_filler and got == "<" and set(text) <= {"<"}:
        return True
    return got == check_digit(text)


def checks_pass(lines: list[str], layout: Layout) -> list[str]:
    """Names of the check groups that fail on ``lines``."""
    return [group.name for group in layout.groups if not group_ok(group, lines)]

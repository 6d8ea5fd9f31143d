"""Check digits and look-alike correction for machine readable zones.

Check digits follow ICAO Doc 9303 part 3, 4.9: characters valued ``0-9`` for
digits, ``A``=10 ... ``Z``=35, ``<``=0, weighted 7, 3, 1 repeating, sum mod 10.

Correction policy (why it is this strict: a corrected MRZ must never name a
different person than the one on the document):

* A look-alike is replaced only where the field type forbids the character
  read: a letter in a date or check digit becomes its digit
  (O/D/Q->0, I/L->1, Z->2, S->5, G->6, B->8; K->'<' in the TD3 personal-number
  check digit, which may be a filler); a digit in a name, country or
  document code becomes its letter (0->O, 1->I, 2->Z, 5->S, 6->G, 8->B).
  If such a position is covered by a check digit, the change is kept only when
  the narrowest check digit covering it then passes.
* Alphanumeric fields (document number, personal number) are corrected only
  on request (``alnum=True``), only in formats with a composite check digit
  (so a misread check digit cannot be "explained" by changing the number),
  and only when the zone fails its check digits and EXACTLY ONE reading that
  differs by a single look-alike substitution in those fields satisfies every
  check digit of the zone. Substitutions are limited to pairs a check digit
  tells apart: {0, O, D, Q}, {1, I}, {2, Z}, {5, S}, {8, B}. Pairs whose
  values differ by a multiple of 10 (G/6, L/1, K/<, A/0 ...) give the same
  check digit in every position, so they are never corrected in those fields.
  Off by default: if the OCR misread a character for a non-look-alike one
  (3 for 4), a look-alike change elsewhere in the same number can satisfy the
  same check digit, e.g. L898902C3 misread as L898902C4 would be "corrected"
  to LB98902C4 - a different person. One mod-10 check digit cannot rule that
  out, so by default only type-forced corrections are made: in check-digit
  protected fields those can never turn one misread character into a
  different valid reading. Names, country codes and document codes have no
  check digit: a digit there is replaced by its letter as the only reading
  the field type allows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from admission.mrz.layout import CheckSpec, Kind, Layout, MrzCheckError, MrzFormat

MRZ_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<")
_WEIGHTS = (7, 3, 1)

LETTER_TO_DIGIT = {
    "O": "0",
    "D": "0",
    "Q": "0",
    "I": "1",
    "L": "1",
    "Z": "2",
    "S": "5",
    "G": "6",
    "B": "8",
}
DIGIT_TO_LETTER = {"0": "O", "1": "I", "2": "Z", "5": "S", "6": "G", "8": "B"}
_ALNUM_CLASSES = ("0ODQ", "1I", "2Z", "5S", "8B")
ALNUM_ALTERNATIVES: dict[str, str] = {
    ch: cls.replace(ch, "") for cls in _ALNUM_CLASSES for ch in cls
}

Grid = list[list[str]]
GridView = Sequence[Sequence[str]]  # a Grid or the lines themselves


def char_value(ch: str) -> int | None:
    if "0" <= ch <= "9":
        return ord(ch) - 48
    if "A" <= ch <= "Z":
        return ord(ch) - 55
    if ch == "<":
        return 0
    return None


def check_digit(data: str) -> int | None:
    """ICAO 7-3-1 check digit of ``data``; None if it holds a non-MRZ character."""
    total = 0
    for i, ch in enumerate(data):
        value = char_value(ch)
        if value is None:
            return None
        total += value * _WEIGHTS[i % 3]
    return total % 10


@dataclass(frozen=True, slots=True)
class Correction:
    """One character changed by the parser (0-based line and column)."""

    line: int
    column: int
    found: str
    corrected: str
    field: str

    def to_json(self) -> dict[str, object]:
        return {
            "line": self.line,
            "column": self.column,
            "found": self.found,
            "corrected": self.corrected,
            "field": self.field,
        }


# National variants of the long-number check digit (ICAO 9303 part 5, 4.2.2),
# by issuing state. A variant is honoured only for its issuer: the same zone from any
# other state is checked by the ICAO rule alone, so a variant cannot excuse a misread
# of another state's document.
# BEL: Belgian cards print both rules. The card of PRADO BEL-BO-03003 (REINARTZ ULRIKE
#   KATIA E, expiry 2013) computes the check digit over the number as printed with its
#   filler ("000590240<601" -> 3; the ICAO rule gives 1). The 2020 model follows the
#   ICAO rule: its published specimen (SPECIMEN SPECIMEN, card 000001115702, expiry
#   2030; zone transcribed in ruledicaprio/SynthPass samples/ocr_fixtures/
#   Belgium_ID_Specimen_2021_back_mrz) prints "000001115<7027": the ICAO rule over
#   000001115702 gives 7, the filler variant 1. So a Belgian long number passes under
#   either rule; the composite check digit, which covers the whole of line 1, still
#   has to pass as well.
# PRT: the Cartão de Cidadão of PRADO (CARLOS MONTEIRO AMELIA VANESSA, number
#   000024759ZZ7) prints "000024759<ZZ72": 2 is the check digit over the number with its
#   filler (the ICAO rule gives 0), and the printed composite 8 matches that line (zone
#   as quoted in the JMRTD test suite, ElMostafaIdrassi/jmrtd MRZInfoTest.testPRTFromPrado,
#   and a C# MRZ library's tests). The 2024 specimen (426349253ZY8) and the others
#   published give the same digit under both rules, so the ICAO rule is kept too.
LONG_NUMBER_WITH_FILLER = frozenset({"BEL", "PRT"})


def issuer_of(grid: GridView) -> str:
    """The issuing state as printed (columns 2-4 of line 1 in every format), fillers removed."""
    return "".join(grid[0][2:5]).replace("<", "")


def effective_checks(layout: Layout, grid: GridView) -> tuple[CheckSpec, ...]:
    """The layout's checks, with the document-number check moved on overflow.

    TD1/TD2: a document number longer than 9 characters has a filler in the
    check-digit position; its remaining characters and then its check digit
    continue in the optional data, ended by a filler (Doc 9303 part 5, 4.2.2;
    part 6, 4.2.2). The check digit covers the 9 characters and the overflow; for
    the issuers in :data:`LONG_NUMBER_WITH_FILLER` it may instead cover the filler too.
    """
    if layout.format not in (MrzFormat.TD1, MrzFormat.TD2):
        return layout.checks
    line, col, opt_start, opt_end = (
        (0, 14, 15, 30) if layout.format is MrzFormat.TD1 else (1, 9, 28, 35)
    )
    if grid[line][col] != "<":
        return layout.checks
    row = grid[line]
    end = opt_start
    while end < opt_end and row[end] != "<":
        end += 1
    if end - opt_start < 2:  # no extra character + check digit: malformed
        return layout.checks
    overflow = (line, opt_start, end - 1)
    with_filler = ((line, col - 9, col + 1), overflow)
    doc = CheckSpec(
        MrzCheckError.CHECK_DOCUMENT_NUMBER,
        (line, end - 1),
        ((line, col - 9, col), overflow),
        alternative=with_filler if issuer_of(grid) in LONG_NUMBER_WITH_FILLER else (),
    )
    return (doc, *(c for c in layout.checks if c.error is not MrzCheckError.CHECK_DOCUMENT_NUMBER))


def check_passes(spec: CheckSpec, grid: GridView) -> bool:
    target = grid[spec.target[0]][spec.target[1]]
    for ranges in (spec.ranges, spec.alternative):
        if not ranges:
            continue
        data = "".join("".join(grid[ln][s:e]) for ln, s, e in ranges)
        if target == "<":
            if spec.filler_ok and set(data) <= {"<"}:
                return True
        elif target.isdigit() and check_digit(data) == int(target):
            return True
    return False


def failing_checks(layout: Layout, grid: GridView) -> list[MrzCheckError]:
    return [c.error for c in effective_checks(layout, grid) if not check_passes(c, grid)]


def _positions(layout: Layout, kinds: set[Kind]) -> Iterator[tuple[int, int, str, Kind]]:
    for spec in layout.fields:
        if spec.kind in kinds:
            for col in range(spec.start, spec.end):
                yield spec.line, col, spec.name, spec.kind


def _covering(layout: Layout, grid: Grid, line: int, col: int) -> list[CheckSpec]:
    """Checks whose data or target include (line, col), narrowest first."""
    found = [
        c
        for c in effective_checks(layout, grid)
        if c.target == (line, col) or any(ln == line and s <= col < e for ln, s, e in c.ranges)
    ]
    return sorted(found, key=lambda c: sum(e - s for _, s, e in c.ranges))


_DOUBLY_CHECKED = frozenset({"document_number", "personal_number"})
_NAME_FILLER_K = re.compile(r"K{3,}$")


def _name_filler_fixes(text: str) -> str:
    """Undo '<' read as 'K' where the position can only be filler.

    After the given names, the first '<<' (or a leading '<') starts the
    filler; a filler region made only of '<' and 'K' becomes all '<'. A run of
    three or more K's ending the field is filler too.
    """
    sep = text.find("<<")
    if sep >= 0:
        rest_start = sep + 2
        rest = text[rest_start:]
        stop = 0 if rest.startswith("<") else rest.find("<<")
        if stop >= 0:
            filler = rest[stop:]
            if set(filler) <= {"<", "K"}:
                text = text[: rest_start + stop] + "<" * len(filler)
    match = _NAME_FILLER_K.search(text)
    if match:
        text = text[: match.start()] + "<" * len(match.group())
    return text


def _forced(ch: str, kind: Kind) -> str | None:
    if kind in (Kind.DATE, Kind.CHECK):
        return LETTER_TO_DIGIT.get(ch)
    if kind in (Kind.NAME, Kind.COUNTRY, Kind.CODE):
        return DIGIT_TO_LETTER.get(ch)
    return None


def correct(
    layout: Layout, lines: list[str], *, alnum: bool = False
) -> tuple[list[str], list[Correction]]:
    """Apply the correction policy of this module; returns the lines and changes."""
    original: Grid = [list(line) for line in lines]
    grid = [row[:] for row in original]
    _apply_type_forced(layout, grid)
    if failing_checks(layout, grid):
        candidate = _single_substitution(layout, grid) if alnum else None
        if candidate is not None:
            grid = candidate
        else:
            _revert_unconfirmed(layout, grid, original)

    field_at = {(ln, col): name for ln, col, name, _ in _positions(layout, set(Kind))}
    corrections = [
        Correction(ln, col, original[ln][col], grid[ln][col], field_at.get((ln, col), ""))
        for ln in range(len(grid))
        for col in range(len(grid[ln]))
        if grid[ln][col] != original[ln][col]
    ]
    return ["".join(row) for row in grid], corrections


def _apply_type_forced(layout: Layout, grid: Grid) -> None:
    """Changes the field type alone dictates (confirmed or undone by the caller)."""
    for spec in layout.fields:  # name fillers read as K
        if spec.kind is Kind.NAME:
            fixed = _name_filler_fixes("".join(grid[spec.line][spec.start : spec.end]))
            grid[spec.line][spec.start : spec.end] = list(fixed)
    for ln, col, name, kind in _positions(layout, {Kind.DATE, Kind.CHECK, Kind.NAME, Kind.CODE}):
        if kind is Kind.CODE and col != 0:
            continue  # the second code character is the issuer's choice ("C1" in the USA)
        new = _forced(grid[ln][col], kind)
        if name == "personal_number_check" and grid[ln][col] == "K":
            new = "<"  # the only non-digit this check digit may be (empty number)
        if new is not None:
            grid[ln][col] = new
    for spec in layout.fields:  # a country code is corrected only as a whole
        if spec.kind is Kind.COUNTRY:
            text = "".join(grid[spec.line][spec.start : spec.end])
            fixed = "".join(DIGIT_TO_LETTER.get(ch, ch) for ch in text)
            if all(ch.isalpha() or ch == "<" for ch in fixed):
                grid[spec.line][spec.start : spec.end] = list(fixed)


def _single_substitution(layout: Layout, grid: Grid) -> Grid | None:
    """The only one-look-alike change in alphanumeric fields passing every check."""
    if not any(c.error is MrzCheckError.CHECK_COMPOSITE for c in layout.checks):
        return None
    found: list[Grid] = []
    for ln, col, name, _ in _positions(layout, {Kind.ALNUM}):
        if name not in _DOUBLY_CHECKED:
            continue  # optional data is covered by the composite alone
        for alt in ALNUM_ALTERNATIVES.get(grid[ln][col], ""):
            trial = [row[:] for row in grid]
            trial[ln][col] = alt
            if not failing_checks(layout, trial):
                found.append(trial)
                if len(found) > 1:
                    return None
    return found[0] if found else None


def _revert_unconfirmed(layout: Layout, grid: Grid, original: Grid) -> None:
    """Undo forced changes whose narrowest covering check digit still fails."""
    for ln in range(len(grid)):
        for col in range(len(grid[ln])):
            if grid[ln][col] == original[ln][col]:
                continue
            covering = _covering(layout, grid, ln, col)
            if covering and not check_passes(covering[0], grid):
                grid[ln][col] = original[ln][col]

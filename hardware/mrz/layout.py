"""MRZ geometry and check-digit groups (ICAO 9303 parts 4-6), for the recogniser only.

The domain parser (``admission.mrz``) owns the meaning of the fields; this module only
knows *where* the check digits are, so the decoder can let them settle ambiguous
characters (``decode.py``) before the lines are handed to the parser.
"""

from __future__ import annotations

from dataclasses import dataclass

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
_WEIGHTS = (7, 3, 1)


def char_value(c: str) -> int:
    """ICAO value of one MRZ character: digits, A=10..Z=35, '<'=0."""
    if c.isdigit():
        return ord(c) - 48
    if c == "<":
        return 0
    return ord(c) - 55


def check_digit(text: str) -> str:
    """ICAO 9303 check digit (weights 7, 3, 1) of ``text``."""
    return str(sum(char_value(c) * _WEIGHTS[i % 3] for i, c in enumerate(text)) % 10)


Span = tuple[int, int, int]  # (line, start, end exclusive)


@dataclass(frozen=True)
class CheckGroup:
    """Characters covered by a check digit, and where that digit sits."""

    name: str
    spans: tuple[Span, ...]
    check: tuple[int, int]  # (line, column)
    may_be_filler: bool = False  # an all-'<' field may carry '<' as its check digit


@dataclass(frozen=True)
class Layout:
    name: str  # TD1, TD2, TD3, MRVA, MRVB, FRA
    line_length: int
    line_count: int
    classes: tuple[tuple[frozenset[str], ...], ...]  # allowed characters per position
    groups: tuple[CheckGroup, ...]  # field groups first, composite last
    countries: tuple[Span, ...] = ()  # issuer and nationality: listed country codes

    def allowed(self, line: int, col: int) -> frozenset[str]:
        return self.classes[line][col]


def _classes(length: int, runs: list[tuple[int, int, frozenset[str]]]
             ) -> tuple[frozenset[str], ...]:
    out = [ANY] * length
    for start, end, cls in runs:
        for i in range(start, end):
            out[i] = cls
    return tuple(out)


def _names_line(length: int, code: frozenset[str]) -> tuple[frozenset[str], ...]:
    # document code (P<, PO, ID, V<...), issuer and names: letters and fillers only
    return _classes(length, [(0, length, LETTERS), (0, 1, code)])


def _td3(visa: bool) -> Layout:
    line2 = _classes(44, [(9, 10, NUMERIC), (13, 20, NUMERIC), (20, 21, SEX), (21, 28, NUMERIC)]
                     + ([] if visa else [(42, 44, NUMERIC)]))
    groups = [
        CheckGroup("document_number", ((1, 0, 9),), (1, 9)),
        CheckGroup("birth_date", ((1, 13, 19),), (1, 19)),
        CheckGroup("expiry_date", ((1, 21, 27),), (1, 27)),
    ]
    if not visa:
        groups.append(CheckGroup("personal_number", ((1, 28, 42),), (1, 42), may_be_filler=True))
        groups.append(CheckGroup("composite", ((1, 0, 10), (1, 13, 20), (1, 21, 43)), (1, 43)))
    line1 = _names_line(44, CODE_VISA if visa else CODE_TD3)
    return Layout("MRVA" if visa else "TD3", 44, 2, (line1, line2), tuple(groups),
                  ((0, 2, 5), (1, 10, 13)))


def _td2(visa: bool) -> Layout:
    line2 = _classes(36, [(9, 10, NUMERIC), (13, 20, NUMERIC), (20, 21, SEX), (21, 28, NUMERIC)]
                     + ([] if visa else [(35, 36, NUMERIC)]))
    groups = [
        CheckGroup("document_number", ((1, 0, 9),), (1, 9)),
        CheckGroup("birth_date", ((1, 13, 19),), (1, 19)),
        CheckGroup("expiry_date", ((1, 21, 27),), (1, 27)),
    ]
    if not visa:
        groups.append(CheckGroup("composite", ((1, 0, 10), (1, 13, 20), (1, 21, 35)), (1, 35)))
    line1 = _names_line(36, CODE_VISA if visa else CODE_TD2)
    return Layout("MRVB" if visa else "TD2", 36, 2, (line1, line2), tuple(groups),
                  ((0, 2, 5), (1, 10, 13)))


def _td1() -> Layout:
    line1 = _classes(30, [(0, 5, LETTERS), (0, 1, CODE_CARD), (14, 15, NUMERIC)])  # code, issuer
    line2 = _classes(30, [(0, 7, NUMERIC), (7, 8, SEX), (8, 15, NUMERIC), (29, 30, NUMERIC)])
    line3 = _classes(30, [(0, 30, LETTERS)])
    groups = (
        CheckGroup("document_number", ((0, 5, 14),), (0, 14)),
        CheckGroup("birth_date", ((1, 0, 6),), (1, 6)),
        CheckGroup("expiry_date", ((1, 8, 14),), (1, 14)),
        CheckGroup("composite", ((0, 5, 30), (1, 0, 7), (1, 8, 15), (1, 18, 29)), (1, 29)),
    )
    return Layout("TD1", 30, 3, (line1, line2, line3), groups, ((0, 2, 5), (1, 15, 18)))


def _fra() -> Layout:
    """Pre-2021 French national ID card: 2x36, its own fields and checks."""
    line1 = _classes(36, [(0, 30, LETTERS), (0, 1, frozenset("I"))])
    line2 = _classes(36, [(12, 13, NUMERIC), (13, 27, LETTERS), (27, 34, NUMERIC), (34, 35, SEX),
                          (35, 36, NUMERIC)])
    groups = (
        CheckGroup("document_number", ((1, 0, 12),), (1, 12)),
        CheckGroup("birth_date", ((1, 27, 33),), (1, 33)),
        CheckGroup("composite", ((0, 0, 36), (1, 0, 35)), (1, 35)),
    )
    return Layout("FRA", 36, 2, (line1, line2), groups)


TD1 = _td1()
TD2 = _td2(False)
TD3 = _td3(False)
MRVA = _td3(True)
MRVB = _td2(True)
FRA = _fra()


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
    options = layouts_for(len(lines), len(lines[0]) if lines else 0)
    if not options:
        return None
    first = lines[0]
    if len(options) == 1:
        return options[0]
    if first.startswith("V"):
        return options[1]
    if len(options) == 3 and first.startswith("IDFRA"):
        return options[2]
    return options[0]


def checks_pass(lines: list[str], layout: Layout) -> list[str]:
    """Names of the check groups that fail on ``lines``."""
    failed = []
    for group in layout.groups:
        text = "".join(lines[ln][a:b] for ln, a, b in group.spans)
        got = lines[group.check[0]][group.check[1]]
        if group.may_be_filler and got == "<" and set(text) <= {"<"}:
            continue
        if got != check_digit(text):
            failed.append(group.name)
    return failed

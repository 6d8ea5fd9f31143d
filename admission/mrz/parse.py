"""Machine readable zone parsing (ICAO Doc 9303 parts 3-7) with Spanish DNI/NIE rules.

``parse_mrz`` never raises: every problem is reported as a stable code in
``MrzResult.errors`` and ``valid`` is true only when there is none.

Error codes
-----------
Input shape (no fields are extracted):
  MRZ_EMPTY             nothing but whitespace
  MRZ_INPUT_TOO_LONG    more than 400 characters of raw input
  MRZ_TOO_MANY_LINES    more than 3 non-empty lines
  MRZ_LINE_TOO_LONG     a line longer than 60 characters
  MRZ_BAD_CHARACTER     a character outside A-Z, 0-9 and '<' (after NFKC folding,
                        upper-casing, and reading OCR guillemets as fillers)
  MRZ_UNKNOWN_FORMAT    not 2 or 3 lines
  MRZ_BAD_LENGTH        2 or 3 lines, but not 3x30, 2x36 or 2x44
Check digits (7-3-1, part 3 section 4.9):
  CHECK_DOCUMENT_NUMBER, CHECK_BIRTH_DATE, CHECK_EXPIRY_DATE,
  CHECK_PERSONAL_NUMBER (TD3), CHECK_COMPOSITE (TD1, TD2, TD3, French CNI)
Field content:
  INVALID_DOCUMENT_CODE first character not A, C, I, P or V (V only for visas)
  INVALID_ISSUER        issuing state is not 1-3 letters
  UNKNOWN_ISSUER        issuing state is not a code of Doc 9303 part 3, section 5
                        (``unknown_code_fields`` names "issuer")
  UNKNOWN_NATIONALITY   nationality is not a code of Doc 9303 part 3, section 5
                        (``unknown_code_fields`` names "nationality")
  INVALID_BIRTH_DATE    not a calendar date (also fillers for an unknown date)
  INVALID_EXPIRY_DATE   not a calendar date
  INVALID_SEX           not M, F, X or '<'
  INVALID_NAME          empty name field or a digit left in it
  DNI_CHECK_LETTER      Spanish DNI or NIE with a wrong check letter

Specimens (:mod:`admission.specimens`) parse valid when their check digits are right:
``specimen`` is true and ``specimen_reason`` says which published marker matched. The
verdict refuses them (art. 23.1: a specimen identifies nobody).

Two-digit years (``today`` is injected, never read from the clock):
  birth date: the latest century that does not put it after ``today``;
  expiry date: the year within 50 years of ``today`` (2000+yy for years up to
  today+50, so a 2-digit year more than 50 years ahead means last century).

Look-alike corrections are described in :mod:`admission.mrz.check`. Whatever
is corrected is listed in ``corrections`` and reflected in ``lines``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from enum import unique

from admission.codes import Code
from admission.country_codes import MRZ_COUNTRY_CODES
from admission.identity import IdentityKey, IdKind
from admission.mrz.check import MRZ_CHARS, Correction, correct, failing_checks
from admission.mrz.layout import LAYOUTS, Kind, Layout, MrzCheckError, MrzFormat, detect_format
from admission.spanish_ids import is_valid_dni, is_valid_nie, looks_like_dni, looks_like_nie
from admission.specimens import SpecimenReason, specimen_reason

__all__ = [
    "Correction",
    "MrzCheckError",
    "MrzError",
    "MrzFormat",
    "MrzResult",
    "document_kind",
    "parse_mrz",
]

MAX_INPUT_CHARS = 400
MAX_LINES = 3
MAX_LINE_CHARS = 60
RESIDENCE_CODES = frozenset({"IR", "AR", "CR", "C1"})
# Doc 9303 part 5: "AC" is the crew member certificate, a travel
# document for crews on duty, not an identity document for admission (art. 23.1).
CREW_CODES = frozenset({"AC"})
# OCR engines print filler runs as guillemets; full-width forms fold under NFKC.
_OCR_FILLERS = str.maketrans({"«": "<<", "‹": "<"})
_JOINED = {90: 30, 72: 36, 88: 44}  # 3x30 (TD1), 2x36 (TD2, MRV-B), 2x44 (TD3, MRV-A)


@unique
class MrzError(Code):
    """Input shape and field content errors (the module docstring says what each means);
    a failing check digit is a :class:`~admission.mrz.layout.MrzCheckError`."""

    MRZ_EMPTY = "MRZ_EMPTY"
    MRZ_INPUT_TOO_LONG = "MRZ_INPUT_TOO_LONG"
    MRZ_TOO_MANY_LINES = "MRZ_TOO_MANY_LINES"
    MRZ_LINE_TOO_LONG = "MRZ_LINE_TOO_LONG"
    MRZ_BAD_CHARACTER = "MRZ_BAD_CHARACTER"
    MRZ_UNKNOWN_FORMAT = "MRZ_UNKNOWN_FORMAT"
    MRZ_BAD_LENGTH = "MRZ_BAD_LENGTH"
    INVALID_DOCUMENT_CODE = "INVALID_DOCUMENT_CODE"
    INVALID_ISSUER = "INVALID_ISSUER"
    UNKNOWN_ISSUER = "UNKNOWN_ISSUER"
    UNKNOWN_NATIONALITY = "UNKNOWN_NATIONALITY"
    INVALID_BIRTH_DATE = "INVALID_BIRTH_DATE"
    INVALID_EXPIRY_DATE = "INVALID_EXPIRY_DATE"
    INVALID_SEX = "INVALID_SEX"
    INVALID_NAME = "INVALID_NAME"
    DNI_CHECK_LETTER = "DNI_CHECK_LETTER"


@dataclass(frozen=True)
class MrzResult:
    valid: bool
    format: MrzFormat | None
    lines: tuple[str, ...]  # after corrections
    document_code: str = ""
    issuer: str = ""
    document_number: str = ""
    personal_number: str = ""
    id_number: str = ""
    surname: str = ""
    given_names: str = ""
    nationality: str = ""
    birth_date: date | None = None
    expiry_date: date | None = None
    sex: str = "X"
    corrections: tuple[Correction, ...] = ()
    errors: tuple[MrzError | MrzCheckError, ...] = ()
    unknown_code_fields: tuple[str, ...] = ()  # "issuer", "nationality": not in part 3
    specimen_reason: SpecimenReason | None = None

    @property
    def specimen(self) -> bool:
        """A published specimen or a Doc 9303 example: it identifies nobody."""
        return self.specimen_reason is not None

    def to_json(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "format": self.format.value if self.format else None,
            "document_code": self.document_code,
            "issuer": self.issuer,
            "document_number": self.document_number,
            "personal_number": self.personal_number,
            "id_number": self.id_number,
            "surname": self.surname,
            "given_names": self.given_names,
            "nationality": self.nationality,
            "birth_date": self.birth_date.isoformat() if self.birth_date else None,
            "expiry_date": self.expiry_date.isoformat() if self.expiry_date else None,
            "sex": self.sex,
            "corrections": [c.to_json() for c in self.corrections],
            "errors": list(self.errors),
            "unknown_code_fields": list(self.unknown_code_fields),
            "specimen": self.specimen,
            "specimen_reason": self.specimen_reason,
        }

    @property
    def name_truncated(self) -> bool:
        """The name field is full to its last column, so the name may be cut."""
        if self.format is None:
            return False
        layout = LAYOUTS[self.format]
        names = [f for f in layout.fields if f.kind is Kind.NAME]
        return any(self.lines[f.line][f.end - 1] != "<" for f in names)

    def identity_key(self) -> IdentityKey | None:
        """The visitor's canonical identity; None unless the zone is valid."""
        if not self.valid or not self.id_number:
            return None
        if self.issuer == "ESP" and is_valid_dni(self.id_number):
            kind = IdKind.DNI
        elif self.issuer == "ESP" and is_valid_nie(self.id_number):
            kind = IdKind.NIE
        elif self.format in (MrzFormat.MRVA, MrzFormat.MRVB):
            kind = IdKind.OTHER
        elif self.document_code.startswith("P"):
            kind = IdKind.PASSPORT
        elif self.document_code in RESIDENCE_CODES:
            kind = IdKind.RESIDENCE
        else:
            kind = IdKind.ID_CARD
        try:
            return IdentityKey.of(kind, self.issuer, self.id_number)
        except ValueError:
            return None


def _normalise(raw: Sequence[str] | str) -> tuple[list[str], MrzError | None]:
    if raw is None:  # untyped callers: still no exception
        return [], MrzError.MRZ_EMPTY
    if not isinstance(raw, Sequence):
        return [], MrzError.MRZ_BAD_CHARACTER
    parts = [raw] if isinstance(raw, str) else list(raw[: MAX_LINES * 4])
    if not isinstance(raw, str) and len(raw) > MAX_LINES * 4:
        return [], MrzError.MRZ_TOO_MANY_LINES
    if not all(isinstance(p, str) for p in parts):
        return [], MrzError.MRZ_BAD_CHARACTER
    if sum(len(p) for p in parts) > MAX_INPUT_CHARS:
        return [], MrzError.MRZ_INPUT_TOO_LONG
    text = unicodedata.normalize("NFKC", "\n".join(parts)).translate(_OCR_FILLERS)
    lines = ["".join(ch for ch in line if not ch.isspace()).upper() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return [], MrzError.MRZ_EMPTY
    if len(lines) == 1 and len(lines[0]) in _JOINED:
        # A whole zone on one line (a reader without line terminators, or the lines
        # pasted with spaces between them): the total length fixes the layout.
        width = _JOINED[len(lines[0])]
        lines = [lines[0][i : i + width] for i in range(0, len(lines[0]), width)]
    if len(lines) > MAX_LINES:
        return [], MrzError.MRZ_TOO_MANY_LINES
    if any(len(line) > MAX_LINE_CHARS for line in lines):
        return [], MrzError.MRZ_LINE_TOO_LONG
    if any(ch not in MRZ_CHARS for line in lines for ch in line):
        return lines, MrzError.MRZ_BAD_CHARACTER
    return lines, None


def _parse_date(text: str, *, today: date, birth: bool) -> date | None:
    if not re.fullmatch(r"[0-9]{6}", text):
        return None
    yy, month, day = int(text[:2]), int(text[2:4]), int(text[4:6])
    year = today.year // 100 * 100 + yy
    if not birth:
        if year > today.year + 50:
            year -= 100
        elif year < today.year - 50:
            year += 100
    try:
        value = date(year, month, day)
        if birth and value > today:
            value = date(year - 100, month, day)
    except ValueError:
        return None
    return value


def _words(text: str) -> str:
    return " ".join(part for part in text.split("<") if part)


def _field(layout: Layout, lines: Sequence[str], name: str) -> str:
    spec = layout.field(name)
    return lines[spec.line][spec.start : spec.end]


def _names(layout: Layout, lines: Sequence[str]) -> tuple[str, str, bool]:
    if layout.format is MrzFormat.FR_CNI:
        raw = _field(layout, lines, "surname") + _field(layout, lines, "given_names")
        return (
            _words(_field(layout, lines, "surname")),
            _words(_field(layout, lines, "given_names")),
            _name_ok(raw),
        )
    raw = _field(layout, lines, "names")
    surname, _, given = raw.partition("<<")
    return _words(surname), _words(given), _name_ok(raw)


def _name_ok(raw: str) -> bool:
    return any(ch.isalpha() for ch in raw) and not any(ch.isdigit() for ch in raw)


def _document_number(layout: Layout, lines: Sequence[str]) -> tuple[str, str]:
    """(document number, remaining optional data) with TD1/TD2 overflow joined."""
    number = _field(layout, lines, "document_number")
    check = _field(layout, lines, "document_number_check")
    optional_name = "optional_data_1" if layout.format is MrzFormat.TD1 else "optional_data_2"
    optional = (
        _field(layout, lines, optional_name)
        if optional_name in {f.name for f in layout.fields}
        else ""
    )
    if layout.format in (MrzFormat.TD1, MrzFormat.TD2) and check == "<":
        extra, _, rest = optional.partition("<")
        if len(extra) >= 2:
            return number.replace("<", "") + extra[:-1], rest
    return number.replace("<", ""), optional


def _spanish_id(document_number: str, personal: str) -> str | None:
    """The DNI or NIE a Spanish document carries, if any (checked later)."""
    for text in (personal, document_number):
        candidate = text.strip("<")[:9]
        if looks_like_dni(candidate) or looks_like_nie(candidate):
            return candidate
    return None


def _content_errors(layout: Layout, lines: Sequence[str], sex_raw: str) -> list[MrzError]:
    errors: list[MrzError] = []
    code = _field(layout, lines, "document_code")
    visa = layout.format in (MrzFormat.MRVA, MrzFormat.MRVB)
    if (code[0] != "V") if visa else (code[0] not in "ACIP"):
        errors.append(MrzError.INVALID_DOCUMENT_CODE)
    if not re.fullmatch(r"[A-Z]{1,3}<{0,2}", _field(layout, lines, "issuer")):
        errors.append(MrzError.INVALID_ISSUER)
    if sex_raw not in ("M", "F", "X", "<"):
        errors.append(MrzError.INVALID_SEX)
    return errors


def _unknown_codes(layout: Layout, lines: Sequence[str]) -> list[tuple[str, MrzError]]:
    """Country fields holding a code that Doc 9303 part 3, section 5 does not list."""
    found: list[tuple[str, MrzError]] = []
    issuer = _field(layout, lines, "issuer")
    if re.fullmatch(r"[A-Z]{1,3}<{0,2}", issuer) and issuer not in MRZ_COUNTRY_CODES:
        found.append(("issuer", MrzError.UNKNOWN_ISSUER))
    if layout.format is not MrzFormat.FR_CNI:  # the French CNI has no nationality field
        nationality = _field(layout, lines, "nationality")
        if nationality not in MRZ_COUNTRY_CODES:
            found.append(("nationality", MrzError.UNKNOWN_NATIONALITY))
    return found


def parse_mrz(lines: Sequence[str] | str, *, today: date, correct_alnum: bool = False) -> MrzResult:
    """Parse a machine readable zone read by OCR, a scanner or typed in.

    ``lines`` may be a sequence of lines or one string with newlines; spaces
    and lower case are tolerated. Never raises. ``correct_alnum`` enables
    look-alike correction of document and personal numbers (see
    :mod:`admission.mrz.check` for why it is off by default).
    """
    clean, error = _normalise(lines)
    if error is not None:
        return MrzResult(valid=False, format=None, lines=tuple(clean), errors=(error,))
    fmt = detect_format(clean)
    if fmt is None:
        code = MrzError.MRZ_UNKNOWN_FORMAT if len(clean) not in (2, 3) else MrzError.MRZ_BAD_LENGTH
        return MrzResult(valid=False, format=None, lines=tuple(clean), errors=(code,))
    layout = LAYOUTS[fmt]
    fixed, corrections = correct(layout, clean, alnum=correct_alnum)
    result = _build_result(layout, fixed, corrections, today)
    if fmt is MrzFormat.FR_CNI and not result.valid:
        # An "IDFRA" 2 x 36 zone that only checks out under the ICAO TD2 layout.
        td2 = LAYOUTS[MrzFormat.TD2]
        fixed, corrections = correct(td2, clean, alnum=correct_alnum)
        other = _build_result(td2, fixed, corrections, today)
        if other.valid:
            return other
    return result


def _build_result(
    layout: Layout, fixed: list[str], corrections: list[Correction], today: date
) -> MrzResult:
    errors: list[MrzError | MrzCheckError] = [*failing_checks(layout, fixed)]
    sex_raw = _field(layout, fixed, "sex")
    errors += _content_errors(layout, fixed, sex_raw)
    unknown = _unknown_codes(layout, fixed)
    errors += [code for _, code in unknown]
    birth = _parse_date(_field(layout, fixed, "birth_date"), today=today, birth=True)
    if birth is None:
        errors.append(MrzError.INVALID_BIRTH_DATE)
    expiry: date | None = None
    if layout.format is not MrzFormat.FR_CNI:  # the French CNI has no expiry field
        expiry = _parse_date(_field(layout, fixed, "expiry_date"), today=today, birth=False)
        if expiry is None:
            errors.append(MrzError.INVALID_EXPIRY_DATE)
    surname, given, name_ok = _names(layout, fixed)
    if not name_ok:
        errors.append(MrzError.INVALID_NAME)
    number, optional = _document_number(layout, fixed)
    if layout.format is MrzFormat.TD3:
        personal = _field(layout, fixed, "personal_number")
    elif layout.format is MrzFormat.TD1 and not optional.strip("<"):
        personal = _field(layout, fixed, "optional_data_2")
    else:
        personal = optional
    issuer = _field(layout, fixed, "issuer").replace("<", "")
    id_number = number
    if issuer == "ESP":
        spanish = _spanish_id(number, personal)
        if spanish is not None:
            id_number = spanish
            if not (is_valid_dni(spanish) or is_valid_nie(spanish)):
                errors.append(MrzError.DNI_CHECK_LETTER)
    result = MrzResult(
        valid=not errors,
        format=layout.format,
        lines=tuple(fixed),
        document_code=_field(layout, fixed, "document_code").replace("<", ""),
        issuer=issuer,
        document_number=number,
        personal_number=personal.strip("<"),
        id_number=id_number,
        surname=surname,
        given_names=given,
        nationality=_nationality(layout, fixed),
        birth_date=birth,
        expiry_date=expiry,
        sex="X" if sex_raw in ("<", "X") else sex_raw,
        corrections=tuple(corrections),
        errors=tuple(dict.fromkeys(errors)),
        unknown_code_fields=tuple(name for name, _ in unknown),
    )
    reason = specimen_reason(
        issuer=result.issuer,
        document=document_kind(result),
        document_number=result.document_number,
        id_number=result.id_number,
        surname=result.surname,
        given_names=result.given_names,
    )
    return replace(result, specimen_reason=reason) if reason else result


def document_kind(result: MrzResult) -> str:
    """What the zone's document code says the document is, as a ``DocumentType`` value
    (art. 23.1 accepts ID_CARD, PASSPORT, RESIDENCE_CARD; VISA and CREW_CARD are not
    identity documents). Doc 9303 part 4-7: the first character names the type."""
    code = result.document_code
    if result.format in (MrzFormat.MRVA, MrzFormat.MRVB) or code.startswith("V"):
        return "VISA"
    if code.startswith("P"):
        return "PASSPORT"
    if code in CREW_CODES:
        return "CREW_CARD"
    if (result.issuer == "ESP" and looks_like_nie(result.id_number)) or code in RESIDENCE_CODES:
        return "RESIDENCE_CARD"
    if code[:1] in ("I", "A", "C"):
        return "ID_CARD"
    return "OTHER"


def _nationality(layout: Layout, lines: Sequence[str]) -> str:
    if layout.format is MrzFormat.FR_CNI:
        return "FRA"
    return _field(layout, lines, "nationality").replace("<", "")

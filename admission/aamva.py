"""North-American driving licences: the AAMVA DL/ID PDF417 barcode (art. 23.1, R9).

Tourists' US and Canadian licences carry their holder's data in a PDF417 symbol laid
out by the AAMVA DL/ID Card Design Standard (versions 01-10). :func:`parse_aamva` turns
the decoded text into the same :class:`admission.documents.IdentityDocument` as an MRZ
(``source=BARCODE``), with its own validation.

Layout: header ``@`` + data-element separator (LF) + record separator (RS) + segment
terminator (CR) + ``ANSI `` (``AAMVA`` in early cards) + issuer IIN (6 digits) + AAMVA
version (2) + jurisdiction version (2, from version 02) + number of entries (2), then one
designator per subfile: type (``DL``, ``ID``, ``Z?``) + offset (4) + length (4). A subfile
is its type followed by elements ``<3-letter id><value>`` ended by the separator.

Fields used: DAQ licence number, DCS family name, DAC/DAD first/middle names (DCT given
names in version 02, DAA/DAB in version 01), DBB birth date, DBA expiry date, DBC sex,
DAJ jurisdiction, DCG country. Dates are MMDDCCYY on US cards and CCYYMMDD on Canadian
ones (the country is DCG, else the jurisdiction: a Canadian province means Canada).

Identity key (documented rule): licence numbers are unique only within the issuing
state or province, so the key is ``DRIVING_LICENCE:<USA|CAN>:<jurisdiction><number>``,
e.g. ``DRIVING_LICENCE:USA:CAD1234567``. A card with only an ``ID`` subfile is a state
identity card: ``ID_CARD`` with the same rule. Numbers that would make the key longer
than 20 characters are an error.

Error codes (``IdentityDocument.errors``; ``valid`` is False when any is present):
  AAMVA_BAD_HEADER        separators are not LF/RS/CR, or the file type is unknown
  AAMVA_BAD_VERSION       version not 00-10 / IIN not 6 digits
  AAMVA_BAD_DESIGNATOR    entry count, designator format or a subfile not at its offset
  AAMVA_MISSING_<ID>      a required element (DAQ, DCS, DBB, DBA, DAJ) is absent
  AAMVA_BAD_CHARS         an element holds control or non-ASCII characters
  AAMVA_BAD_NAME          a name holds something other than letters, space, ' - .
  AAMVA_BAD_NUMBER        licence number not letters/digits, or too long for the key
  AAMVA_BAD_JURISDICTION  DAJ is not a US state/territory or Canadian province code
  AAMVA_BAD_COUNTRY       DCG is not USA/CAN or contradicts the jurisdiction
  AAMVA_BAD_BIRTH_DATE    not a date in the country's format, in the future or > 130 y
  AAMVA_BAD_EXPIRY_DATE   not a date in the country's format, or not after birth
  AAMVA_BAD_SEX           DBC not 1/2/9 (or M/F/X)
Expiry is not an error here: the verdict refuses expired documents.
:func:`parse_aamva` raises ``DocumentError(AamvaError.AAMVA_UNUSABLE)`` when the text is not an
AAMVA barcode at all, is over :data:`MAX_TEXT` characters, or has no usable number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import unique

from admission.codes import Code
from admission.documents import DocumentError, DocumentSource, DocumentType, IdentityDocument
from admission.identity import IdentityKey, IdKind, normalise_number

__all__ = ["MAX_TEXT", "AamvaError", "AamvaFile", "looks_like_aamva", "parse_aamva", "read_file"]

MAX_TEXT = 4096  # a PDF417 symbol holds at most ~1850 bytes
MAX_ELEMENT = 128
_START = re.compile(r"@(.)(.)(.)(ANSI |AAMVA)", re.DOTALL)
_ELEMENT_ID = re.compile(r"^[A-Z]{3}$")
_NAME_OK = re.compile(r"^[A-Z][A-Z '\-.]*$")

US_JURISDICTIONS = frozenset(
    {  # 50 states, DC and the territories
        "AL",
        "AK",
        "AZ",
        "AR",
        "CA",
        "CO",
        "CT",
        "DE",
        "DC",
        "FL",
        "GA",
        "HI",
        "ID",
        "IL",
        "IN",
        "IA",
        "KS",
        "KY",
        "LA",
        "ME",
        "MD",
        "MA",
        "MI",
        "MN",
        "MS",
        "MO",
        "MT",
        "NE",
        "NV",
        "NH",
        "NJ",
        "NM",
        "NY",
        "NC",
        "ND",
        "OH",
        "OK",
        "OR",
        "PA",
        "RI",
        "SC",
        "SD",
        "TN",
        "TX",
        "UT",
        "VT",
        "VA",
        "WA",
        "WV",
        "WI",
        "WY",
        "AS",
        "GU",
        "MP",
        "PR",
        "VI",
    }
)
CA_JURISDICTIONS = frozenset(
    {  # provinces and territories
        "AB",
        "BC",
        "MB",
        "NB",
        "NL",
        "NS",
        "NT",
        "NU",
        "ON",
        "PE",
        "QC",
        "SK",
        "YT",
    }
)


@unique
class AamvaError(Code):
    """What is wrong with a licence's barcode; the module docstring says when each applies."""

    AAMVA_UNUSABLE = "AAMVA_UNUSABLE"  # raised: no document at all
    AAMVA_BAD_HEADER = "AAMVA_BAD_HEADER"
    AAMVA_BAD_VERSION = "AAMVA_BAD_VERSION"
    AAMVA_BAD_DESIGNATOR = "AAMVA_BAD_DESIGNATOR"
    AAMVA_MISSING_DAQ = "AAMVA_MISSING_DAQ"  # licence number
    AAMVA_MISSING_DCS = "AAMVA_MISSING_DCS"  # family name
    AAMVA_MISSING_DBB = "AAMVA_MISSING_DBB"  # birth date
    AAMVA_MISSING_DBA = "AAMVA_MISSING_DBA"  # expiry date
    AAMVA_MISSING_DAJ = "AAMVA_MISSING_DAJ"  # jurisdiction (state or province)
    AAMVA_BAD_CHARS = "AAMVA_BAD_CHARS"
    AAMVA_BAD_NAME = "AAMVA_BAD_NAME"
    AAMVA_BAD_NUMBER = "AAMVA_BAD_NUMBER"
    AAMVA_BAD_JURISDICTION = "AAMVA_BAD_JURISDICTION"
    AAMVA_BAD_COUNTRY = "AAMVA_BAD_COUNTRY"
    AAMVA_BAD_BIRTH_DATE = "AAMVA_BAD_BIRTH_DATE"
    AAMVA_BAD_EXPIRY_DATE = "AAMVA_BAD_EXPIRY_DATE"
    AAMVA_BAD_SEX = "AAMVA_BAD_SEX"


# The elements every licence must carry (DCS, the family name, is checked with the names).
_REQUIRED = {
    "DAQ": AamvaError.AAMVA_MISSING_DAQ,
    "DBB": AamvaError.AAMVA_MISSING_DBB,
    "DBA": AamvaError.AAMVA_MISSING_DBA,
    "DAJ": AamvaError.AAMVA_MISSING_DAJ,
}
_TRUNCATION_VALUES = frozenset({"NONE", "UNAVL", "UNAVAILABLE"})


@dataclass(frozen=True, slots=True)
class AamvaFile:
    """The structure of one barcode: header fields and the elements of its subfiles."""

    iin: str
    version: int
    jurisdiction_version: int
    subfile_types: tuple[str, ...]  # the one read (DL, else ID) first
    elements: dict[str, str]  # of the DL (else ID) subfile; first value wins
    errors: tuple[AamvaError, ...]


def looks_like_aamva(text: str) -> bool:
    """A decoded PDF417 that should go to :func:`parse_aamva` (no validation)."""
    return _START.search(text[:16]) is not None


def _digits(text: str, start: int, length: int) -> int | None:
    part = text[start : start + length]
    return int(part) if len(part) == length and part.isdigit() else None


def read_file(text: str) -> AamvaFile:
    """Header, designators and elements; structural problems become error codes."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise DocumentError(AamvaError.AAMVA_UNUSABLE, "barcode", "not AAMVA text or too long")
    start = _START.search(text[:16])  # readers sometimes prepend a symbology id
    if start is None:
        raise DocumentError(AamvaError.AAMVA_UNUSABLE, "barcode", "no AAMVA header")
    base = start.start()
    errors: list[AamvaError] = []
    sep, rec, seg = start.group(1), start.group(2), start.group(3)
    if (sep, rec, seg) != ("\n", "\x1e", "\r"):
        errors.append(AamvaError.AAMVA_BAD_HEADER)
    pos = start.end()
    iin = text[pos : pos + 6]
    version = _digits(text, pos + 6, 2)
    if not iin.isdigit() or len(iin) != 6 or version is None or version > 10:
        errors.append(AamvaError.AAMVA_BAD_VERSION)
        version = version if version is not None and version <= 10 else 0
    pos += 8
    jurisdiction_version = 0
    if version >= 2:
        jurisdiction_version = _digits(text, pos, 2) or 0
        pos += 2
    entries = _digits(text, pos, 2)
    pos += 2
    designators: list[tuple[str, int, int]] = []
    for i in range(entries or 0):
        kind = text[pos + 10 * i : pos + 10 * i + 2]
        offset, length = _digits(text, pos + 10 * i + 2, 4), _digits(text, pos + 10 * i + 6, 4)
        if offset is None or length is None or not re.fullmatch(r"[A-Z][A-Z0-9]", kind):
            errors.append(AamvaError.AAMVA_BAD_DESIGNATOR)
            break
        designators.append((kind, offset, length))
    if not entries:
        errors.append(AamvaError.AAMVA_BAD_DESIGNATOR)
    body_from = pos + 10 * len(designators)
    chosen = _choose_subfile(text, base, body_from, designators, errors)
    if chosen is None:
        raise DocumentError(AamvaError.AAMVA_UNUSABLE, "barcode", "no DL or ID subfile")
    kind, content = chosen
    elements = _elements(content, sep, seg, errors)
    types = (kind, *(d[0] for d in designators if d[0] != kind))
    return AamvaFile(
        iin, version, jurisdiction_version, types, elements, tuple(dict.fromkeys(errors))
    )


def _choose_subfile(
    text: str,
    base: int,
    body_from: int,
    designators: list[tuple[str, int, int]],
    errors: list[AamvaError],
) -> tuple[str, str] | None:
    """The DL subfile (else ID) as ``(type, content up to the end of the text)``.

    Real cards often get offsets wrong by a few characters (counting the header
    differently); the subfile type is looked for within 4 of the declared offset, then
    anywhere after the designators (flagged AAMVA_BAD_DESIGNATOR). Declared lengths are
    not trusted either: a subfile ends at its segment terminator.
    """
    for wanted in ("DL", "ID"):
        for kind, offset, _length in designators:
            if kind != wanted:
                continue
            for delta in (0, -1, 1, -2, 2, -3, 3, -4, 4):
                at = base + offset + delta
                if at >= body_from and text.startswith(wanted, at):
                    return wanted, text[at + 2 :]
    for wanted in ("DL", "ID"):
        found = re.compile(re.escape(wanted) + r"(?=[A-Z]{3})").search(text, body_from)
        if found:
            if designators:
                errors.append(AamvaError.AAMVA_BAD_DESIGNATOR)
            return wanted, text[found.start() + 2 :]
    return None


def _elements(content: str, sep: str, seg: str, errors: list[AamvaError]) -> dict[str, str]:
    content = content.split(seg, 1)[0]  # the subfile ends at the segment terminator
    out: dict[str, str] = {}
    for raw in content.split(sep):
        raw = raw.strip("\r\n")
        if len(raw) < 3:
            continue
        element, value = raw[:3], raw[3:]
        if not _ELEMENT_ID.match(element):
            continue  # not an element (padding, jurisdiction junk)
        if len(value) > MAX_ELEMENT or any(not (" " <= c <= "~") for c in value):
            errors.append(AamvaError.AAMVA_BAD_CHARS)
            value = "".join(c for c in value[:MAX_ELEMENT] if " " <= c <= "~")
        out.setdefault(element, value.strip())
    return out


def _country_of(elements: dict[str, str], errors: list[AamvaError]) -> str:
    jurisdiction = elements.get("DAJ", "")
    by_jurisdiction = "CAN" if jurisdiction in CA_JURISDICTIONS else "USA"
    declared = elements.get("DCG", "").upper()
    if not declared:
        return by_jurisdiction
    if declared not in ("USA", "CAN") or (
        jurisdiction in US_JURISDICTIONS | CA_JURISDICTIONS and declared != by_jurisdiction
    ):
        errors.append(AamvaError.AAMVA_BAD_COUNTRY)
        return by_jurisdiction
    return declared


def _date(raw: str, country: str) -> date | None:
    """MMDDCCYY (USA) or CCYYMMDD (Canada); None when not a calendar date."""
    if len(raw) != 8 or not raw.isdigit():
        return None
    if country == "CAN":
        year, month, day = int(raw[:4]), int(raw[4:6]), int(raw[6:])
    else:
        month, day, year = int(raw[:2]), int(raw[2:4]), int(raw[4:])
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _clean_name(raw: str, errors: list[AamvaError]) -> str:
    text = " ".join(raw.replace(",", " ").split()).upper()
    if text in _TRUNCATION_VALUES:
        return ""
    if text and (len(text) > 60 or not _NAME_OK.match(text)):
        errors.append(AamvaError.AAMVA_BAD_NAME)
        return ""
    return text


def _names(e: dict[str, str], errors: list[AamvaError]) -> tuple[str, str]:
    """(surname, given names) across versions: DCS/DAC/DAD, DCT (v02), DAA/DAB (v01)."""
    surname = e.get("DCS") or e.get("DAB") or ""
    first, middle = e.get("DAC", ""), e.get("DAD", "")
    if not first and "DCT" in e:
        first = e["DCT"]
    if not surname and "DAA" in e:  # v01: "FAMILY,FIRST,MIDDLE"
        parts = [p.strip() for p in e["DAA"].split(",")]
        surname = parts[0]
        first = first or " ".join(parts[1:])
    if not surname:
        errors.append(AamvaError.AAMVA_MISSING_DCS)
    given = " ".join(p for p in (_clean_name(first, errors), _clean_name(middle, errors)) if p)
    return _clean_name(surname, errors), given


_SEX = {"1": "M", "2": "F", "9": "X", "M": "M", "F": "F", "X": "X"}


def parse_aamva(text: str, *, today: date) -> IdentityDocument:
    """The driving licence (or state ID card) in a decoded AAMVA PDF417 barcode."""
    file = read_file(text)
    errors = list(file.errors)
    e = file.elements
    errors.extend(code for name, code in _REQUIRED.items() if not e.get(name))
    jurisdiction = e.get("DAJ", "").upper()
    if jurisdiction and jurisdiction not in US_JURISDICTIONS | CA_JURISDICTIONS:
        errors.append(AamvaError.AAMVA_BAD_JURISDICTION)
    country = _country_of(e, errors)
    surname, given = _names(e, errors)

    birth = _date(e.get("DBB", ""), country)
    if e.get("DBB") and (birth is None or birth > today or birth.year < today.year - 130):
        errors.append(AamvaError.AAMVA_BAD_BIRTH_DATE)
        birth = None if birth is None or birth > today else birth
    expiry = _date(e.get("DBA", ""), country)
    if e.get("DBA") and (expiry is None or (birth is not None and expiry <= birth)):
        errors.append(AamvaError.AAMVA_BAD_EXPIRY_DATE)
    sex = _SEX.get(e.get("DBC", "9").strip().upper()[:1], "")
    if not sex:
        errors.append(AamvaError.AAMVA_BAD_SEX)
        sex = "X"

    number = normalise_number(e.get("DAQ", ""))
    prefix = jurisdiction if jurisdiction in US_JURISDICTIONS | CA_JURISDICTIONS else ""
    if number and (not re.fullmatch(r"[A-Z0-9]+", number) or len(prefix + number) > 20):
        errors.append(AamvaError.AAMVA_BAD_NUMBER)
    key_number = re.sub(r"[^A-Z0-9]", "", prefix + number)[:20]
    if not number or not key_number:
        raise DocumentError(AamvaError.AAMVA_UNUSABLE, "barcode", "no usable licence number")
    is_licence = file.subfile_types[0] == "DL"  # the subfile read comes first
    doc_type = DocumentType.DRIVING_LICENCE if is_licence else DocumentType.ID_CARD
    kind = IdKind.DRIVING_LICENCE if is_licence else IdKind.ID_CARD
    errors = list(dict.fromkeys(errors))
    return IdentityDocument(
        doc_type=doc_type,
        source=DocumentSource.BARCODE,
        issuer=country,
        document_number=number[:40],
        id_number="",
        identity=IdentityKey(kind, country, key_number),
        surname=surname,
        given_names=given,
        nationality="",  # a licence does not state nationality
        birth_date=birth,
        expiry_date=expiry,
        sex=sex,
        valid=not errors,
        errors=tuple(errors),
    )

"""Identity documents presented at the desk (art. 23.1, obligation R9).

A document comes from a machine readable zone (:func:`document_from_mrz`) or is
typed in by the clerk (:func:`manual_document`, e.g. a driving licence, which
has no MRZ). Both give an :class:`IdentityDocument` whose ``identity`` is the
canonical key: Spanish documents are keyed by the DNI or NIE they carry.

Manual-entry error codes (``DocumentError.code``; ``field`` names the input):
  MANUAL_BAD_TYPE         not a DocumentType
  MANUAL_BAD_ISSUER       issuer is not a code of ICAO Doc 9303 part 3, section 5
                          (the MRZ's codes; "DEU" is read as Germany's "D")
  MANUAL_BAD_NUMBER       empty, too long or characters other than letters/digits
  DNI_CHECK_LETTER        Spanish DNI or NIE with a wrong check letter
  MANUAL_BAD_NAME         empty surname, over 60 characters, or a character that
                          is not a letter, space, apostrophe, hyphen or dot
  MANUAL_BAD_DATE         birth in the future or over 130 years ago; expiry not
                          after birth or more than 50 years ahead
  MANUAL_BAD_NATIONALITY  not empty and not a code of ICAO Doc 9303 part 3, section 5
  MANUAL_BAD_SEX          not M, F or X
:func:`document_from_mrz` raises ``MRZ_UNUSABLE`` when the zone yields no
usable number or issuer at all.

Both paths flag specimens (:mod:`admission.specimens`): the document is built, with
``specimen_reason`` set, and the verdict refuses it (``Reason.SPECIMEN``). Visas and crew
member certificates are documents but not identity documents for admission (art. 23.1):
``not_identity`` gives the detail code beside the verdict's ``DOCUMENT_NOT_ACCEPTED``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum, unique

from admission.chip import ChipCheck
from admission.codes import Code
from admission.country_codes import MRZ_COUNTRY_CODES
from admission.identity import IdentityKey, IdKind, normalise_number
from admission.mrz.parse import MrzResult, document_kind
from admission.spanish_ids import (
    is_valid_dni,
    is_valid_nie,
    looks_like_dni,
    looks_like_nie,
    normalise,
)
from admission.specimens import SpecimenReason, specimen_reason


class DocumentType(StrEnum):
    ID_CARD = "ID_CARD"
    PASSPORT = "PASSPORT"
    DRIVING_LICENCE = "DRIVING_LICENCE"
    RESIDENCE_CARD = "RESIDENCE_CARD"
    VISA = "VISA"
    CREW_CARD = "CREW_CARD"  # crew member certificate, document code AC (Doc 9303 part 5)
    OTHER = "OTHER"


# art. 23.1 (R9): DNI, passport, driving licence or residence card.
ACCEPTED_TYPES: frozenset[DocumentType] = frozenset(
    {
        DocumentType.ID_CARD,
        DocumentType.PASSPORT,
        DocumentType.DRIVING_LICENCE,
        DocumentType.RESIDENCE_CARD,
    }
)


@unique
class NotIdentityCode(Code):
    """Why a document of a known kind is not one of art. 23.1's (the detail beside
    ``Reason.DOCUMENT_NOT_ACCEPTED``)."""

    VISA_NOT_IDENTITY = "VISA_NOT_IDENTITY"  # a visa (V, Doc 9303 part 7) identifies no one
    CREW_CARD_NOT_IDENTITY = "CREW_CARD_NOT_IDENTITY"  # crew member certificate (AC)
    DOCUMENT_KIND_NOT_IDENTITY = "DOCUMENT_KIND_NOT_IDENTITY"  # any other kind


def not_identity(doc_type: DocumentType) -> NotIdentityCode | None:
    """None for the documents art. 23.1 accepts, else why the document is not one."""
    if doc_type in ACCEPTED_TYPES:
        return None
    if doc_type is DocumentType.VISA:
        return NotIdentityCode.VISA_NOT_IDENTITY
    if doc_type is DocumentType.CREW_CARD:
        return NotIdentityCode.CREW_CARD_NOT_IDENTITY
    return NotIdentityCode.DOCUMENT_KIND_NOT_IDENTITY


class DocumentSource(StrEnum):
    MRZ = "MRZ"
    MANUAL = "MANUAL"
    BARCODE = "BARCODE"


@unique
class DocumentErrorCode(Code):
    """Why typed-in document data (or a zone) is refused; the module docstring says when."""

    MANUAL_BAD_TYPE = "MANUAL_BAD_TYPE"
    MANUAL_BAD_ISSUER = "MANUAL_BAD_ISSUER"
    MANUAL_BAD_NUMBER = "MANUAL_BAD_NUMBER"
    DNI_CHECK_LETTER = "DNI_CHECK_LETTER"
    MANUAL_BAD_NAME = "MANUAL_BAD_NAME"
    MANUAL_BAD_DATE = "MANUAL_BAD_DATE"
    MANUAL_BAD_NATIONALITY = "MANUAL_BAD_NATIONALITY"
    MANUAL_BAD_SEX = "MANUAL_BAD_SEX"
    MRZ_UNUSABLE = "MRZ_UNUSABLE"


class DocumentError(ValueError):
    """Rejected document data; ``code`` is a :class:`DocumentErrorCode` (or, for a driving
    licence's barcode, an :class:`admission.aamva.AamvaError`); the message is English."""

    def __init__(self, code: Code, field: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.field = field


@dataclass(frozen=True)
class IdentityDocument:
    doc_type: DocumentType
    source: DocumentSource
    issuer: str
    document_number: str
    id_number: str
    identity: IdentityKey
    surname: str
    given_names: str
    nationality: str
    birth_date: date | None
    expiry_date: date | None
    sex: str
    valid: bool
    errors: tuple[str, ...]
    specimen_reason: SpecimenReason | None = None
    # what the document's chip proved when the desk read it (ICAO 9303, art. 23.1); it
    # travels with the document, so every later evaluation of it - the exceptional card,
    # a stale verdict evaluated again - sees the same chip. None: not read
    chip: ChipCheck | None = None

    @property
    def specimen(self) -> bool:
        """A published specimen: it identifies nobody and is always refused (art. 23.1)."""
        return self.specimen_reason is not None

    @property
    def not_identity(self) -> NotIdentityCode | None:
        """Why this kind of document is not accepted for admission; None if it is."""
        return not_identity(self.doc_type)

    @property
    def full_name(self) -> str:
        """Given names then surname(s), as the card and the visitor file show them."""
        return " ".join(part for part in (self.given_names, self.surname) if part)


_KIND_OF_TYPE = {
    DocumentType.ID_CARD: IdKind.ID_CARD,
    DocumentType.PASSPORT: IdKind.PASSPORT,
    DocumentType.DRIVING_LICENCE: IdKind.DRIVING_LICENCE,
    DocumentType.RESIDENCE_CARD: IdKind.RESIDENCE,
    DocumentType.VISA: IdKind.OTHER,
    DocumentType.CREW_CARD: IdKind.OTHER,
    DocumentType.OTHER: IdKind.OTHER,
}


def _mrz_doc_type(result: MrzResult) -> DocumentType:
    return DocumentType(document_kind(result))


def document_from_mrz(result: MrzResult) -> IdentityDocument:
    """The document a parsed zone describes; ``valid``/``errors`` are the zone's.

    An invalid zone still gives a best-effort identity for display; callers
    must not admit on it (``valid`` is false).
    """
    doc_type = _mrz_doc_type(result)
    identity = result.identity_key()
    if identity is None:
        identity = _best_effort_key(result, doc_type)
    return IdentityDocument(
        doc_type=doc_type,
        source=DocumentSource.MRZ,
        issuer=result.issuer,
        document_number=result.document_number,
        id_number=result.id_number,
        identity=identity,
        surname=result.surname,
        given_names=result.given_names,
        nationality=result.nationality,
        birth_date=result.birth_date,
        expiry_date=result.expiry_date,
        sex=result.sex,
        valid=result.valid,
        errors=result.errors,
        specimen_reason=result.specimen_reason,
    )


def _best_effort_key(result: MrzResult, doc_type: DocumentType) -> IdentityKey:
    kind = _KIND_OF_TYPE[doc_type]
    if result.issuer == "ESP" and looks_like_dni(result.id_number):
        kind = IdKind.DNI
    elif result.issuer == "ESP" and looks_like_nie(result.id_number):
        kind = IdKind.NIE
    try:
        return IdentityKey.of(kind, result.issuer, result.id_number)
    except ValueError:
        raise DocumentError(
            DocumentErrorCode.MRZ_UNUSABLE, "mrz", "the MRZ has no usable number"
        ) from None


_COUNTRY = re.compile(r"^[A-Z]{1,3}$")
_NAME_PUNCTUATION = frozenset(" '-.’")
MAX_NAME = 60
MAX_RAW_NUMBER = 40
# The MRZ writes Germany as "D"; a clerk may type the ISO code.
_COUNTRY_ALIASES = {"DEU": "D"}


def _country(raw: str, field: str, code: DocumentErrorCode) -> str:
    text = raw.strip().upper()[:10]
    text = _COUNTRY_ALIASES.get(text, text)
    if not _COUNTRY.match(text):
        raise DocumentError(code, field, f"{field} must be a 1-3 letter country code")
    # The same list as the MRZ (ICAO 9303 part 3, section 5), padded as printed ("D<<").
    if text.ljust(3, "<") not in MRZ_COUNTRY_CODES:
        raise DocumentError(code, field, f"{field} is not an ICAO 9303 country code")
    return text


def _name(raw: str, field: str, *, required: bool) -> str:
    if len(raw) > 4 * MAX_NAME:
        raise DocumentError(DocumentErrorCode.MANUAL_BAD_NAME, field, f"{field} is too long")
    text = " ".join(unicodedata.normalize("NFC", raw).split())
    if len(text) > MAX_NAME or (required and not text):
        raise DocumentError(
            DocumentErrorCode.MANUAL_BAD_NAME, field, f"{field} must have 1-{MAX_NAME} characters"
        )
    if not all(ch.isalpha() or ch in _NAME_PUNCTUATION for ch in text):
        raise DocumentError(
            DocumentErrorCode.MANUAL_BAD_NAME, field, f"{field} may hold only letters"
        )
    if text and not any(ch.isalpha() for ch in text):
        raise DocumentError(
            DocumentErrorCode.MANUAL_BAD_NAME, field, f"{field} must contain a letter"
        )
    return text


def _as_date(value: date) -> date:
    return value.date() if isinstance(value, datetime) else value


def _check_dates(birth: date, expiry: date | None, today: date) -> None:
    oldest = date(today.year - 130, today.month, 28 if today.month == 2 else today.day)
    if not oldest <= birth <= today:
        raise DocumentError(
            DocumentErrorCode.MANUAL_BAD_DATE, "birth_date", "birth date is not plausible"
        )
    if expiry is not None and not birth < expiry <= date(today.year + 50, 12, 31):
        raise DocumentError(
            DocumentErrorCode.MANUAL_BAD_DATE, "expiry_date", "expiry date is not plausible"
        )


def _spanish_identity(doc_type: DocumentType, number: str) -> tuple[IdKind, str] | None:
    """The DNI/NIE key of a Spanish document typed in; None for a passport number."""
    spanish = normalise(number)
    if looks_like_dni(spanish) or looks_like_nie(spanish):
        if not (is_valid_dni(spanish) or is_valid_nie(spanish)):
            raise DocumentError(
                DocumentErrorCode.DNI_CHECK_LETTER, "number", "wrong DNI/NIE check letter"
            )
        return (IdKind.DNI if looks_like_dni(spanish) else IdKind.NIE), spanish
    if doc_type is DocumentType.PASSPORT:
        return None
    # A Spanish ID card, driving licence or residence card is keyed by its DNI/NIE.
    raise DocumentError(
        DocumentErrorCode.MANUAL_BAD_NUMBER, "number", "expected a DNI or NIE number"
    )


def manual_document(
    *,
    doc_type: DocumentType,
    issuer: str,
    number: str,
    surname: str,
    given_names: str,
    birth_date: date,
    expiry_date: date | None,
    nationality: str = "",
    sex: str = "X",
    today: date,
    source: DocumentSource = DocumentSource.MANUAL,
) -> IdentityDocument:
    """Validate data typed by the clerk (or decoded from a barcode) into a document.

    Raises :class:`DocumentError` on the first problem found.
    """
    try:
        doc_type = DocumentType(doc_type)
    except ValueError:
        raise DocumentError(
            DocumentErrorCode.MANUAL_BAD_TYPE, "doc_type", "unknown document type"
        ) from None
    issuer_code = _country(issuer, "issuer", DocumentErrorCode.MANUAL_BAD_ISSUER)
    if len(number) > MAX_RAW_NUMBER or not re.fullmatch(
        r"[A-Z0-9]{1,20}", normalised := normalise_number(number)
    ):
        raise DocumentError(
            DocumentErrorCode.MANUAL_BAD_NUMBER, "number", "number must be 1-20 letters/digits"
        )
    surname_text = _name(surname, "surname", required=True)
    given_text = _name(given_names, "given_names", required=False)
    birth = _as_date(birth_date)
    expiry = _as_date(expiry_date) if expiry_date is not None else None
    _check_dates(birth, expiry, _as_date(today))
    nationality_code = (
        _country(nationality, "nationality", DocumentErrorCode.MANUAL_BAD_NATIONALITY)
        if nationality.strip()
        else ""
    )
    sex_code = sex.strip().upper()
    if sex_code not in ("M", "F", "X"):
        raise DocumentError(DocumentErrorCode.MANUAL_BAD_SEX, "sex", "sex must be M, F or X")

    kind, id_number = _KIND_OF_TYPE[doc_type], normalised
    if issuer_code == "ESP":
        spanish = _spanish_identity(doc_type, number)
        if spanish is not None:
            kind, id_number = spanish
    specimen = specimen_reason(
        issuer=issuer_code,
        document=doc_type.value,
        document_number=normalised,
        id_number=id_number,
        surname=surname_text,
        given_names=given_text,
    )
    return IdentityDocument(
        doc_type=doc_type,
        source=source,
        issuer=issuer_code,
        document_number=normalised,
        id_number=id_number,
        identity=IdentityKey(kind, issuer_code, id_number),
        surname=surname_text,
        given_names=given_text,
        nationality=nationality_code,
        birth_date=birth,
        expiry_date=expiry,
        sex=sex_code,
        valid=True,
        errors=(),
        specimen_reason=specimen,
    )

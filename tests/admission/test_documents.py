"""IdentityDocument from an MRZ or typed in by the clerk."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest

from admission.documents import (
    ACCEPTED_TYPES,
    DocumentError,
    DocumentSource,
    DocumentType,
    IdentityDocument,
    document_from_mrz,
    manual_document,
)
from admission.generators.mrz_build import build_mrva, build_td1, build_td3
from admission.identity import IdentityKey, IdKind
from admission.mrz.parse import parse_mrz

TODAY = date(2026, 11, 29)


def test_accepted_types_art_23_1() -> None:
    expected = {
        DocumentType.ID_CARD,
        DocumentType.PASSPORT,
        DocumentType.DRIVING_LICENCE,
        DocumentType.RESIDENCE_CARD,
    }
    assert expected == ACCEPTED_TYPES


@pytest.mark.parametrize(
    ("lines", "doc_type", "key"),
    [
        (build_td1(), DocumentType.ID_CARD, IdentityKey(IdKind.ID_CARD, "UTO", "D23145890")),
        (build_td3(), DocumentType.PASSPORT, IdentityKey(IdKind.PASSPORT, "UTO", "L898902C3")),
        (build_mrva(), DocumentType.VISA, IdentityKey(IdKind.OTHER, "UTO", "L8988901C")),
        (
            build_td1(document_code="IR", issuer="GBR", document_number="ZU1234567"),
            DocumentType.RESIDENCE_CARD,
            IdentityKey(IdKind.RESIDENCE, "GBR", "ZU1234567"),
        ),
        (
            build_td1(
                document_code="ID",
                issuer="ESP",
                document_number="BAA000589",
                optional_data_1="99999999R",
            ),
            DocumentType.ID_CARD,
            IdentityKey(IdKind.DNI, "ESP", "99999999R"),
        ),
        (
            build_td1(
                document_code="ID",
                issuer="ESP",
                document_number="E01234567",
                optional_data_1="Y1234567X",
            ),
            DocumentType.RESIDENCE_CARD,
            IdentityKey(IdKind.NIE, "ESP", "Y1234567X"),
        ),
        (
            build_td3(issuer="ESP", document_number="PAA123456", personal_number="12345678Z"),
            DocumentType.PASSPORT,
            IdentityKey(IdKind.DNI, "ESP", "12345678Z"),
        ),
    ],
)
def test_document_from_mrz(lines: list[str], doc_type: DocumentType, key: IdentityKey) -> None:
    doc = document_from_mrz(parse_mrz(lines, today=TODAY))
    assert doc.doc_type is doc_type and doc.identity == key
    assert doc.source is DocumentSource.MRZ and doc.valid and doc.errors == ()


def test_document_from_invalid_mrz_keeps_errors() -> None:
    lines = build_td1()
    lines[1] = lines[1][:6] + "9" + lines[1][7:]  # wrong birth-date check digit
    doc = document_from_mrz(parse_mrz(lines, today=TODAY))
    assert not doc.valid and "CHECK_BIRTH_DATE" in doc.errors
    assert doc.full_name == "ANNA MARIA ERIKSSON"


def test_document_from_unusable_mrz() -> None:
    with pytest.raises(DocumentError) as info:
        document_from_mrz(parse_mrz("garbage", today=TODAY))
    assert info.value.code == "MRZ_UNUSABLE"


def _manual(**overrides: Any) -> IdentityDocument:
    fields: dict[str, Any] = {
        "doc_type": DocumentType.DRIVING_LICENCE,
        "issuer": "ESP",
        "number": "12345678-z",
        "surname": "Núñez O'Connor-Peña",
        "given_names": "María  José",
        "birth_date": date(1980, 2, 29),
        "expiry_date": date(2030, 1, 1),
        "today": TODAY,
    }
    fields.update(overrides)
    return manual_document(**fields)


def test_spanish_driving_licence_is_keyed_by_dni() -> None:
    doc = _manual()
    assert doc.identity == IdentityKey(IdKind.DNI, "ESP", "12345678Z")
    assert doc.full_name == "María José Núñez O'Connor-Peña"
    assert doc.source is DocumentSource.MANUAL and doc.valid


def test_spanish_nie_residence_card_manual() -> None:
    doc = _manual(doc_type=DocumentType.RESIDENCE_CARD, number="x1234567l")
    assert doc.identity == IdentityKey(IdKind.NIE, "ESP", "X1234567L")


def test_foreign_documents_manual() -> None:
    doc = _manual(
        doc_type=DocumentType.PASSPORT,
        issuer="deu",
        number="C01X00T47",
        nationality="DEU",
        sex="f",
        source=DocumentSource.BARCODE,
        birth_date=datetime(1964, 8, 12, 10, 0),
    )
    assert doc.identity == IdentityKey(IdKind.PASSPORT, "D", "C01X00T47")
    assert doc.source is DocumentSource.BARCODE
    assert doc.birth_date == date(1964, 8, 12)
    licence = _manual(issuer="FRA", number="12AB34567")
    assert licence.identity.kind is IdKind.DRIVING_LICENCE
    spanish_passport = _manual(doc_type=DocumentType.PASSPORT, number="PAA123456")
    assert spanish_passport.identity.kind is IdKind.PASSPORT


@pytest.mark.parametrize(
    ("overrides", "code", "field"),
    [
        ({"number": "12345678A"}, "DNI_CHECK_LETTER", "number"),
        ({"number": "X1234567A"}, "DNI_CHECK_LETTER", "number"),
        ({"number": "PAA123456"}, "MANUAL_BAD_NUMBER", "number"),
        ({"number": ""}, "MANUAL_BAD_NUMBER", "number"),
        ({"number": "A" * 21, "issuer": "FRA"}, "MANUAL_BAD_NUMBER", "number"),
        ({"number": "AB#12", "issuer": "FRA"}, "MANUAL_BAD_NUMBER", "number"),
        ({"issuer": "SPAIN"}, "MANUAL_BAD_ISSUER", "issuer"),
        ({"issuer": ""}, "MANUAL_BAD_ISSUER", "issuer"),
        ({"surname": ""}, "MANUAL_BAD_NAME", "surname"),
        ({"surname": "X" * 61}, "MANUAL_BAD_NAME", "surname"),
        ({"surname": "Smith\x00"}, "MANUAL_BAD_NAME", "surname"),
        ({"given_names": "R2D2"}, "MANUAL_BAD_NAME", "given_names"),
        ({"given_names": "--"}, "MANUAL_BAD_NAME", "given_names"),
        ({"birth_date": date(2026, 11, 30)}, "MANUAL_BAD_DATE", "birth_date"),
        ({"birth_date": date(1896, 11, 28)}, "MANUAL_BAD_DATE", "birth_date"),
        ({"expiry_date": date(1979, 1, 1)}, "MANUAL_BAD_DATE", "expiry_date"),
        ({"expiry_date": date(2090, 1, 1)}, "MANUAL_BAD_DATE", "expiry_date"),
        ({"nationality": "E5P"}, "MANUAL_BAD_NATIONALITY", "nationality"),
        ({"sex": "Q"}, "MANUAL_BAD_SEX", "sex"),
        ({"doc_type": "LIBRARY_CARD"}, "MANUAL_BAD_TYPE", "doc_type"),
    ],
)
def test_manual_rejections(overrides: dict[str, object], code: str, field: str) -> None:
    with pytest.raises(DocumentError) as info:
        _manual(**overrides)
    assert (info.value.code, info.value.field) == (code, field)
    assert isinstance(info.value, ValueError) and str(info.value)


def test_control_characters_rejected_even_if_whitespace() -> None:
    with pytest.raises(DocumentError):
        _manual(surname="Ann\x1bMarie")
    # Tabs and newlines are folded to single spaces, never stored.
    assert _manual(given_names="Ann\tMarie").given_names == "Ann Marie"


def test_no_expiry_is_allowed() -> None:
    assert _manual(expiry_date=None).expiry_date is None


# -- specimens, unknown states and the kinds of document (art. 23.1, R9) -----------------

BEL_SPECIMEN = [  # PRADO BEL-BO-03003: long number, check digit over the number with filler
    "IDBEL000590240<6013<<<<<<<<<<<",
    "8512017F1311048BEL851201002007",
    "REINARTZ<<ULRIKE<KATIA<E<<<<<<",
]


def _real(**fields: Any) -> list[str]:
    """A TD1 of a state that exists, for a person who is not a published specimen."""
    base: dict[str, Any] = {
        "issuer": "ITA",
        "nationality": "ITA",
        "document_number": "CA12345AB",
        "surname": "ROSSI",
        "given_names": "GIULIA",
        "expiry_date": "300101",
    }
    base.update(fields)
    return build_td1(**base)


def test_belgian_long_number_card_is_valid_and_a_specimen() -> None:
    doc = document_from_mrz(parse_mrz(BEL_SPECIMEN, today=date(2012, 1, 1)))
    assert doc.valid and doc.doc_type is DocumentType.ID_CARD
    assert doc.document_number == "000590240601"
    assert doc.specimen and doc.specimen_reason == "SPECIMEN_NUMBER"


def test_utopia_documents_are_specimens() -> None:
    for lines in (build_td1(), build_td3()):
        doc = document_from_mrz(parse_mrz(lines, today=TODAY))
        assert doc.valid and doc.specimen and doc.specimen_reason == "SPECIMEN_STATE"


def test_a_real_state_document_is_not_a_specimen() -> None:
    doc = document_from_mrz(parse_mrz(_real(), today=TODAY))
    assert doc.valid and not doc.specimen and doc.specimen_reason is None
    assert doc.not_identity is None


@pytest.mark.parametrize(
    ("code", "doc_type", "not_identity"),
    [
        ("I", DocumentType.ID_CARD, None),
        ("ID", DocumentType.ID_CARD, None),
        ("A", DocumentType.ID_CARD, None),
        ("C", DocumentType.ID_CARD, None),
        ("IR", DocumentType.RESIDENCE_CARD, None),
        ("AC", DocumentType.CREW_CARD, "CREW_CARD_NOT_IDENTITY"),
    ],
)
def test_td1_document_codes(code: str, doc_type: DocumentType, not_identity: str | None) -> None:
    doc = document_from_mrz(parse_mrz(_real(document_code=code), today=TODAY))
    assert doc.valid and doc.doc_type is doc_type and doc.not_identity == not_identity


def test_passports_are_accepted_and_visas_are_not_identity_documents() -> None:
    passport = build_td3(issuer="ITA", nationality="ITA", document_number="YA1234567")
    assert document_from_mrz(parse_mrz(passport, today=TODAY)).not_identity is None
    visa = document_from_mrz(parse_mrz(build_mrva(issuer="ESP"), today=TODAY))
    assert visa.doc_type is DocumentType.VISA and visa.not_identity == "VISA_NOT_IDENTITY"


def test_an_unknown_state_makes_the_zone_invalid() -> None:
    doc = document_from_mrz(parse_mrz(_real(issuer="QQQ"), today=TODAY))
    assert not doc.valid and doc.errors == ("UNKNOWN_ISSUER",)


@pytest.mark.parametrize(
    ("overrides", "code", "field"),
    [
        ({"issuer": "QQQ"}, "MANUAL_BAD_ISSUER", "issuer"),
        ({"issuer": "FRA", "number": "12AB34567", "nationality": "QQQ"}, None, None),
        ({"issuer": "ESP", "number": "12345678A"}, "DNI_CHECK_LETTER", "number"),
    ],
)
def test_manual_entry_checks_states_and_the_dni_letter(
    overrides: dict[str, Any], code: str | None, field: str | None
) -> None:
    if code is None:
        code, field = "MANUAL_BAD_NATIONALITY", "nationality"
    with pytest.raises(DocumentError) as err:
        _manual(**overrides)
    assert (err.value.code, err.value.field) == (code, field)


def test_manual_entry_accepts_the_special_codes_of_part_3() -> None:
    for issuer in ("D", "DEU", "GBD", "EUE", "UNO", "XOM"):
        doc = _manual(doc_type=DocumentType.PASSPORT, issuer=issuer, number="AB1234567")
        assert not doc.specimen


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"number": "99999999R", "doc_type": DocumentType.ID_CARD}, "SPECIMEN_ID_NUMBER"),
        (
            {"surname": "Española Española", "given_names": "Carmen", "number": "12345678Z"},
            "SPECIMEN_NAME",
        ),
        (
            {
                "issuer": "DEU",
                "doc_type": DocumentType.ID_CARD,
                "number": "LZ1234567",
                "surname": "Mustermann",
                "given_names": "Erika",
            },
            "SPECIMEN_NAME",
        ),
        ({"issuer": "UTO", "number": "D23145890"}, "SPECIMEN_STATE"),
    ],
)
def test_manual_entry_flags_specimens(overrides: dict[str, Any], reason: str) -> None:
    doc = _manual(**overrides)
    assert doc.specimen and doc.specimen_reason == reason

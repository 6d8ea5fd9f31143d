"""parse_mrz on ICAO specimens, Spanish documents and the real-image truth table."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import pytest

from admission.generators.mrz_build import build_fr_cni, build_td1, build_td2, build_td3
from admission.identity import IdentityKey, IdKind
from admission.mrz.parse import MrzFormat, parse_mrz

TODAY = date(2026, 11, 29)
REPO = Path(__file__).resolve().parents[2]
TRUTH = REPO / ".." / "shared" / "testdata" / "mrz-real" / "truth.tsv"

TD1_UTO = [
    "I<UTOD231458907<<<<<<<<<<<<<<<",
    "7408122F1204159UTO<<<<<<<<<<<6",
    "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
]
TD2_UTO = ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"]
TD3_UTO = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
]
MRVA_UTO = [
    "V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L8988901C4XXX4009078F96121096ZE184226B<<<<<<",
]
MRVB_UTO = ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "L8988901C4XXX4009078F9612109<<<<<<<<"]
DNI_30 = [
    "IDESPBAA000589599999999R<<<<<<",
    "8001014F2501017ESP<<<<<<<<<<<7",
    "ESPANOLA<ESPANOLA<<CARMEN<<<<<",
]


def test_td1_specimen() -> None:
    r = parse_mrz(TD1_UTO, today=TODAY)
    assert r.valid and r.errors == () and r.corrections == ()
    assert r.format is MrzFormat.TD1
    assert (r.document_code, r.issuer, r.document_number) == ("I", "UTO", "D23145890")
    assert (r.surname, r.given_names) == ("ERIKSSON", "ANNA MARIA")
    assert (r.sex, r.nationality) == ("F", "UTO")
    assert r.birth_date == date(1974, 8, 12) and r.expiry_date == date(2012, 4, 15)
    assert r.identity_key() == IdentityKey(IdKind.ID_CARD, "UTO", "D23145890")


def test_td2_specimen() -> None:
    r = parse_mrz(TD2_UTO, today=TODAY)
    assert r.valid and r.format is MrzFormat.TD2
    assert r.document_number == "D23145890" and r.given_names == "ANNA MARIA"


def test_td3_specimen() -> None:
    r = parse_mrz(TD3_UTO, today=TODAY)
    assert r.valid and r.format is MrzFormat.TD3
    assert r.document_number == "L898902C3" and r.personal_number == "ZE184226B"
    assert r.id_number == "L898902C3"
    assert r.identity_key() == IdentityKey(IdKind.PASSPORT, "UTO", "L898902C3")


def test_visas() -> None:
    a = parse_mrz(MRVA_UTO, today=TODAY)
    b = parse_mrz(MRVB_UTO, today=TODAY)
    assert a.valid and a.format is MrzFormat.MRVA
    assert b.valid and b.format is MrzFormat.MRVB
    assert a.document_number == b.document_number == "L8988901C"
    assert a.expiry_date == date(1996, 12, 10)  # 2096 is more than 50 years ahead
    key = a.identity_key()
    assert key is not None and key.kind is IdKind.OTHER


def test_to_json_exact_keys() -> None:
    data = parse_mrz(TD1_UTO, today=TODAY).to_json()
    assert list(data) == [
        "valid",
        "format",
        "document_code",
        "issuer",
        "document_number",
        "personal_number",
        "id_number",
        "surname",
        "given_names",
        "nationality",
        "birth_date",
        "expiry_date",
        "sex",
        "corrections",
        "errors",
        "unknown_code_fields",
        "specimen",
        "specimen_reason",
    ]
    assert data["birth_date"] == "1974-08-12" and data["format"] == "TD1"
    empty = parse_mrz("", today=TODAY).to_json()
    assert empty["birth_date"] is None and empty["errors"] == ["MRZ_EMPTY"]


def test_one_string_lower_case_and_stray_spaces() -> None:
    text = "\n  " + "\n".join(line.lower() for line in TD3_UTO).replace("<<<<", "<< <<") + "\n\n"
    r = parse_mrz(text, today=TODAY)
    assert r.valid and r.lines == tuple(TD3_UTO)


def test_ocr_guillemets_and_full_width_forms() -> None:
    text = "\n".join(TD2_UTO).replace("<<", "«").replace("D23", "Ｄ２３")
    r = parse_mrz(text, today=TODAY)
    assert r.valid and r.lines == tuple(TD2_UTO)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "MRZ_EMPTY"),
        ("  \n\t ", "MRZ_EMPTY"),
        ("A" * 401, "MRZ_INPUT_TOO_LONG"),
        (["A" * 30] * 13, "MRZ_TOO_MANY_LINES"),
        ("\n".join(["A" * 30] * 4), "MRZ_TOO_MANY_LINES"),
        ("A" * 61, "MRZ_LINE_TOO_LONG"),
        ("\n".join(TD3_UTO).replace("P<", "P#"), "MRZ_BAD_CHARACTER"),
        (TD3_UTO[1], "MRZ_UNKNOWN_FORMAT"),
        ([TD3_UTO[0], TD3_UTO[1][:-1]], "MRZ_BAD_LENGTH"),
        ([*TD1_UTO[:2], TD1_UTO[2] + "<"], "MRZ_BAD_LENGTH"),
        (["A" * 40, "B" * 40], "MRZ_BAD_LENGTH"),
    ],
)
def test_input_shape_errors(raw: str | list[str], code: str) -> None:
    r = parse_mrz(raw, today=TODAY)
    assert not r.valid and r.errors == (code,) and r.format is None


def test_field_content_errors() -> None:
    r = parse_mrz([TD3_UTO[0].replace("P<", "X<", 1), TD3_UTO[1]], today=TODAY)
    assert r.errors == ("INVALID_DOCUMENT_CODE",)
    r = parse_mrz([TD3_UTO[0].replace("UTO", "<<<", 1), TD3_UTO[1]], today=TODAY)
    assert r.errors == ("INVALID_ISSUER",)
    r = parse_mrz([TD3_UTO[0], TD3_UTO[1].replace("2F1", "2Q1")], today=TODAY)
    assert r.errors == ("INVALID_SEX",)
    r = parse_mrz([TD3_UTO[0][:5] + "<" * 39, TD3_UTO[1]], today=TODAY)
    assert r.errors == ("INVALID_NAME",)


def test_impossible_dates() -> None:
    lines = build_td3(birth_date="741312", expiry_date="120431")
    r = parse_mrz(lines, today=TODAY)
    assert r.errors == ("INVALID_BIRTH_DATE", "INVALID_EXPIRY_DATE")
    assert r.birth_date is None and r.expiry_date is None


def test_two_digit_years() -> None:
    def parsed(birth: str, expiry: str, today: date) -> tuple[date | None, date | None]:
        r = parse_mrz(build_td3(birth_date=birth, expiry_date=expiry), today=today)
        return r.birth_date, r.expiry_date

    assert parsed("261129", "761231", TODAY) == (date(2026, 11, 29), date(2076, 12, 31))
    assert parsed("261130", "770101", TODAY) == (date(1926, 11, 30), date(1977, 1, 1))
    assert parsed("000229", "000229", TODAY) == (date(2000, 2, 29), date(2000, 2, 29))
    assert parsed("990101", "990101", date(2001, 1, 1)) == (date(1999, 1, 1), date(1999, 1, 1))
    assert parsed("010101", "490101", date(2001, 1, 1)) == (date(2001, 1, 1), date(2049, 1, 1))


def test_name_truncated_flag() -> None:
    long = parse_mrz(
        build_td1(surname="WOLFESCHLEGELSTEINHAUSEN", given_names="HUBERT BLAINE"), today=TODAY
    )
    assert long.valid and long.name_truncated and long.errors == ()
    assert long.given_names == "HUBE"  # 30 columns: reported as printed
    assert not parse_mrz(TD1_UTO, today=TODAY).name_truncated


def test_spanish_dni_3_support_number_and_dni_in_optional_data() -> None:
    r = parse_mrz(DNI_30, today=TODAY)
    assert r.valid
    assert r.document_number == "BAA000589" and r.id_number == "99999999R"
    assert (r.surname, r.given_names) == ("ESPANOLA ESPANOLA", "CARMEN")
    assert r.identity_key() == IdentityKey(IdKind.DNI, "ESP", "99999999R")


def test_spanish_dni_wrong_letter() -> None:
    lines = build_td1(
        document_code="ID",
        issuer="ESP",
        document_number="BAA000589",
        optional_data_1="99999999A",
        nationality="ESP",
    )
    r = parse_mrz(lines, today=TODAY)
    assert not r.valid and r.errors == ("DNI_CHECK_LETTER",)
    assert r.identity_key() is None


def test_spanish_dni_older_layout_number_in_document_field() -> None:
    lines = build_td1(
        document_code="ID",
        issuer="ESP",
        document_number="12345678Z",
        nationality="ESP",
        surname="GARCIA LOPEZ",
        given_names="JUAN",
    )
    r = parse_mrz(lines, today=TODAY)
    assert r.valid and r.id_number == "12345678Z"
    assert r.identity_key() == IdentityKey(IdKind.DNI, "ESP", "12345678Z")


def test_spanish_nie_residence_card() -> None:
    lines = build_td1(
        document_code="IR",
        issuer="ESP",
        document_number="E00000000",
        optional_data_1="X1234567L",
        nationality="MAR",
    )
    r = parse_mrz(lines, today=TODAY)
    assert r.valid and r.id_number == "X1234567L"
    assert r.identity_key() == IdentityKey(IdKind.NIE, "ESP", "X1234567L")


def test_spanish_passport_carries_dni_in_personal_number() -> None:
    lines = build_td3(
        issuer="ESP",
        nationality="ESP",
        document_number="PAA123456",
        personal_number="12345678Z",
        surname="GARCIA",
        given_names="ANA",
    )
    r = parse_mrz(lines, today=TODAY)
    assert r.valid and r.document_number == "PAA123456" and r.id_number == "12345678Z"
    assert r.identity_key() == IdentityKey(IdKind.DNI, "ESP", "12345678Z")


def test_german_card_d_filler() -> None:
    lines = build_td1(
        document_code="ID",
        issuer="D",
        nationality="D",
        document_number="T22000129",
        surname="MUSTERMANN",
        given_names="ERIKA",
    )
    assert lines[0].startswith("IDD<<")
    r = parse_mrz(lines, today=TODAY)
    assert r.valid and r.issuer == "D" and r.nationality == "D"
    assert r.identity_key() == IdentityKey(IdKind.ID_CARD, "D", "T22000129")


def test_td3_empty_personal_number_check_may_be_filler_or_zero() -> None:
    filler = build_td3(personal_number="", filler_check_when_empty=True)
    zero = build_td3(personal_number="", filler_check_when_empty=False)
    assert filler[1][42] == "<" and zero[1][42] == "0"
    assert parse_mrz(filler, today=TODAY).valid and parse_mrz(zero, today=TODAY).valid


def test_td1_document_number_overflow() -> None:
    lines = build_td1(document_number="D23145890123", optional_data_1="XYZ")
    assert lines[0][14] == "<"
    r = parse_mrz(lines, today=TODAY)
    assert r.valid and r.document_number == "D23145890123" and r.personal_number == "XYZ"


EXPECTED_FAILURES = {
    # DNIe 2006 specimen: wrong document-number, birth-date and composite check digits
    "passporteye-0_id-esp.png": ("CHECK_DOCUMENT_NUMBER", "CHECK_BIRTH_DATE", "CHECK_COMPOSITE"),
    "passporteye-33_id-usa.jpg": ("CHECK_DOCUMENT_NUMBER", "CHECK_COMPOSITE"),
    # malformed: check digits missing, fields shifted
    "imagejs-id_fail.png": ("CHECK_DOCUMENT_NUMBER", "CHECK_EXPIRY_DATE", "CHECK_COMPOSITE"),
}


# Rows of the shared truth table that are refused since country codes are checked
# against ICAO 9303 part 3: a sample with a numeric nationality, and an old German
# specimen printing "BDR" (Germany's code is "D").
UNLISTED_CODES = {
    "passporteye-100_id-rou.jpg": ("UNKNOWN_NATIONALITY",),
    "passporteye-100_pass-bdr.jpg": ("UNKNOWN_ISSUER",),
}


def truth_rows() -> list[dict[str, str]]:
    if not TRUTH.exists():
        return []
    with TRUTH.open(encoding="utf-8") as fh:
        return [row for row in csv.DictReader(fh, delimiter="\t") if row["mrz"]]


@pytest.mark.skipif(not TRUTH.exists(), reason="shared test data not present")
@pytest.mark.parametrize("row", truth_rows(), ids=lambda row: row["file"])
def test_real_truth_rows(row: dict[str, str]) -> None:
    lines = row["mrz"].split("|")
    r = parse_mrz(lines, today=TODAY)
    if row["file"] in UNLISTED_CODES:
        assert not r.valid and r.errors == UNLISTED_CODES[row["file"]]
        assert r.lines == tuple(lines) and r.corrections == ()
    elif "expected-fail" in row["notes"]:
        assert not r.valid
        assert set(EXPECTED_FAILURES[row["file"]]) <= set(r.errors)
        assert r.lines == tuple(lines) and r.corrections == ()
    else:
        assert r.valid, r.errors
        assert r.lines == tuple(lines) and r.corrections == ()
        assert r.identity_key() is not None


@pytest.mark.parametrize("raw", [None, 5, b"P<UTO", [None], ["A" * 30, 3], {"a": 1}])
def test_wrongly_typed_input_gives_a_code(raw: object) -> None:
    r = parse_mrz(raw, today=TODAY)  # type: ignore[arg-type]
    assert not r.valid and r.errors in (("MRZ_EMPTY",), ("MRZ_BAD_CHARACTER",))


def test_french_cni_national_layout() -> None:
    lines = build_fr_cni(given_names="JEAN PIERRE", sex="M", administrative_code="750123")
    r = parse_mrz(lines, today=TODAY)
    assert r.valid and r.format is MrzFormat.FR_CNI
    assert (r.surname, r.given_names, r.document_number) == (
        "BERTHIER",
        "JEAN PIERRE",
        "940992310285",
    )
    assert r.expiry_date is None and r.nationality == "FRA"
    assert r.identity_key() == IdentityKey(IdKind.ID_CARD, "FRA", "940992310285")
    bad = [lines[0], lines[1][:-1] + str((int(lines[1][-1]) + 1) % 10)]
    assert parse_mrz(bad, today=TODAY).errors == ("CHECK_COMPOSITE",)


def test_idfra_zone_in_icao_td2_layout_falls_back() -> None:
    lines = build_td2(document_code="ID", issuer="FRA", nationality="FRA")
    r = parse_mrz(lines, today=TODAY)
    assert r.valid and r.format is MrzFormat.TD2 and r.document_number == "D23145890"


def test_a_whole_zone_on_one_line_is_split_by_its_length() -> None:
    from admission.generators.mrz_build import build_td1, build_td3

    today = date(2010, 1, 1)
    for lines in (build_td3(), build_td1()):
        joined = parse_mrz(" ".join(lines), today=today)
        assert joined.valid and joined.lines == tuple(lines)
        assert parse_mrz("".join(lines), today=today).lines == tuple(lines)
    assert "MRZ_LINE_TOO_LONG" in parse_mrz("A" * 61, today=today).errors


# -- long document numbers and national check-digit variants (Doc 9303 part 5, 4.2.2) --

BEL_CARD = [  # PRADO BEL-BO-03003
    "IDBEL000590240<6013<<<<<<<<<<<",
    "8512017F1311048BEL851201002007",
    "REINARTZ<<ULRIKE<KATIA<E<<<<<<",
]
ICAO_LONG_NUMBER = [  # Doc 9303 part 5: document number D23145890734
    "I<UTOD23145890<7349<<<<<<<<<<<",
    "3407127M9507122UTO<<<<<<<<<<<2",
    "STEVENSON<<PETER<JOHN<<<<<<<<<",
]


def _with_issuer(lines: list[str], issuer: str) -> list[str]:
    """The same zone issued by another state (the issuer is outside every check digit)."""
    return [lines[0][:2] + issuer + lines[0][5:], *lines[1:]]


def test_belgian_long_number_checks_over_the_number_with_its_filler() -> None:
    r = parse_mrz(BEL_CARD, today=date(2012, 1, 1))
    assert r.valid and r.errors == () and r.corrections == ()
    assert r.document_number == "000590240601" and r.personal_number == "85120100200"
    assert r.identity_key() == IdentityKey(IdKind.ID_CARD, "BEL", "000590240601")


def test_icao_long_number_example() -> None:
    r = parse_mrz(ICAO_LONG_NUMBER, today=TODAY)
    assert r.valid and r.document_number == "D23145890734" and r.personal_number == ""


@pytest.mark.parametrize("issuer", ["NLD", "FRA", "D<<", "UTO"])
def test_the_belgian_variant_is_refused_for_any_other_issuer(issuer: str) -> None:
    r = parse_mrz(_with_issuer(BEL_CARD, issuer), today=date(2012, 1, 1))
    assert not r.valid and r.errors == ("CHECK_DOCUMENT_NUMBER",)


BEL_CARD_2020 = [  # the 2020 model's published specimen: ICAO rule (see check.py)
    "IDBEL000001115<7027<<<<<<<<<<<",
    "9502286F3001064UTO950228998747",
    "SPECIMEN<<SPECIMEN<<<<<<<<<<<<",
]


def test_belgium_also_prints_the_icao_rule_for_long_numbers() -> None:
    # the 2020 model: 000001115702 -> 7 by the ICAO rule (the filler variant gives 1)
    r = parse_mrz(BEL_CARD_2020, today=TODAY)
    assert r.valid and r.errors == () and r.document_number == "000001115702"
    # a check digit by the ICAO rule (the builder's) is right for Belgium too
    icao = build_td1(document_number="D23145890601", issuer="UTO", expiry_date="300101")
    assert parse_mrz(_with_issuer(icao, "BEL"), today=TODAY).valid


PRT_CARD = [  # the Cartão de Cidadão of PRADO: check digit over the number with its filler
    "I<PRT000024759<ZZ72<<<<<<<<<<<",
    "8010100F2006017PRT<<<<<<<<<<<8",
    "CARLOS<MONTEIRO<<AMELIA<VANESS",
]


def test_the_portuguese_card_checks_its_long_number_with_the_filler() -> None:
    r = parse_mrz(PRT_CARD, today=date(2019, 1, 1))
    assert r.valid and r.errors == () and r.document_number == "000024759ZZ7"


@pytest.mark.parametrize("issuer", ["ESP", "ITA", "BRA"])
def test_the_portuguese_variant_is_refused_for_any_other_issuer(issuer: str) -> None:
    r = parse_mrz(_with_issuer(PRT_CARD, issuer), today=date(2019, 1, 1))
    assert not r.valid and r.errors == ("CHECK_DOCUMENT_NUMBER",)


def test_a_belgian_long_number_right_by_neither_rule_fails() -> None:
    wrong = [BEL_CARD_2020[0][:18] + "4" + BEL_CARD_2020[0][19:], *BEL_CARD_2020[1:]]
    r = parse_mrz(wrong, today=TODAY)
    assert not r.valid and "CHECK_DOCUMENT_NUMBER" in r.errors


# -- issuing states and nationalities (Doc 9303 part 3, section 5) ----------------------


def test_the_special_codes_of_part_3_are_listed() -> None:
    from admission.country_codes import MRZ_COUNTRY_CODES

    special = "D<< EUE UNO UNA UNK XOM XDC XXA XXB XXC XXX GBD GBN GBO GBP GBS"
    for code in special.split():
        assert code in MRZ_COUNTRY_CODES
    assert "QQQ" not in MRZ_COUNTRY_CODES


@pytest.mark.parametrize(
    ("issuer", "nationality", "errors", "fields"),
    [
        ("QQQ", "ITA", ("UNKNOWN_ISSUER",), ("issuer",)),
        ("ITA", "QQQ", ("UNKNOWN_NATIONALITY",), ("nationality",)),
        ("QQQ", "QQQ", ("UNKNOWN_ISSUER", "UNKNOWN_NATIONALITY"), ("issuer", "nationality")),
        ("GBD", "GBD", (), ()),
        ("D", "D", (), ()),
        ("UNO", "XXA", (), ()),
    ],
)
def test_unknown_state_codes_make_the_zone_invalid(
    issuer: str, nationality: str, errors: tuple[str, ...], fields: tuple[str, ...]
) -> None:
    for lines in (
        build_td3(issuer=issuer, nationality=nationality, document_number="YA1234567"),
        build_td1(issuer=issuer, nationality=nationality, document_number="CA12345AB"),
    ):
        r = parse_mrz(lines, today=TODAY)
        assert r.errors == errors and r.valid is (not errors)
        assert r.unknown_code_fields == fields
        assert r.to_json()["unknown_code_fields"] == list(fields)

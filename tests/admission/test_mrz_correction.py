"""Look-alike corrections: only where the field type and the check digits allow."""

from __future__ import annotations

from datetime import date

from admission.generators.mrz_build import build_mrva, build_td1, build_td3
from admission.mrz.parse import Correction, parse_mrz

TODAY = date(2026, 11, 29)


def _put(lines: list[str], line: int, col: int, ch: str) -> list[str]:
    out = list(lines)
    out[line] = out[line][:col] + ch + out[line][col + 1 :]
    return out


def test_letter_in_date_is_corrected_when_check_digit_confirms() -> None:
    truth = build_td1()  # line 2: 7408122F1204159UTO...
    read = _put(truth, 1, 1, "Z")  # '4' read as 'Z' -> '2' is not confirmed
    r = parse_mrz(read, today=TODAY)
    assert not r.valid and "CHECK_BIRTH_DATE" in r.errors and r.lines == tuple(read)
    r = parse_mrz(_put(truth, 1, 2, "O"), today=TODAY)  # 74O812
    assert r.valid and r.lines == tuple(truth)
    assert r.corrections == (Correction(1, 2, "O", "0", "birth_date"),)
    assert r.corrections[0].to_json() == {
        "line": 1,
        "column": 2,
        "found": "O",
        "corrected": "0",
        "field": "birth_date",
    }


def test_letter_in_check_digit_and_both_dates() -> None:
    truth = build_td3()  # ...7408122F1204159...
    read = _put(_put(_put(truth, 1, 19, "Z"), 1, 21, "I"), 1, 23, "O")
    r = parse_mrz(read, today=TODAY)
    assert r.valid and r.lines == tuple(truth)
    assert [(c.column, c.field) for c in r.corrections] == [
        (19, "birth_date_check"),
        (21, "expiry_date"),
        (23, "expiry_date"),
    ]


def test_forced_correction_not_confirmed_is_reverted() -> None:
    truth = build_td3()
    read = _put(truth, 1, 14, "S")  # birth '4' read as 'S' -> 5 does not pass
    r = parse_mrz(read, today=TODAY)
    assert not r.valid and r.corrections == () and r.lines == tuple(read)
    assert "CHECK_BIRTH_DATE" in r.errors


def test_confirmed_date_fix_kept_even_if_document_number_fails() -> None:
    truth = build_td3()
    read = _put(_put(truth, 1, 15, "O"), 1, 2, "7")  # birth 74O812, document 8 -> 7
    r = parse_mrz(read, today=TODAY)
    assert not r.valid and "CHECK_DOCUMENT_NUMBER" in r.errors
    assert "CHECK_BIRTH_DATE" not in r.errors
    assert r.corrections == (Correction(1, 15, "O", "0", "birth_date"),)


def test_digit_in_country_and_name_fields() -> None:
    truth = build_td3()
    read = _put(_put(_put(truth, 0, 4, "0"), 1, 12, "0"), 0, 9, "5")  # UT0, UT0, ERIK5SON
    r = parse_mrz(read, today=TODAY)
    assert r.valid and r.issuer == r.nationality == "UTO" and r.surname == "ERIKSSON"
    assert {c.field for c in r.corrections} == {"issuer", "nationality", "names"}
    read = _put(truth, 0, 5, "3")  # '3' has no letter look-alike: left alone
    r = parse_mrz(read, today=TODAY)
    assert not r.valid and r.errors == ("INVALID_NAME",) and r.surname == "3RIKSSON"


def test_numeric_nationality_is_not_forced_into_letters() -> None:
    lines = build_td1(nationality="132")  # as printed on a Romanian sample card
    r = parse_mrz(lines, today=TODAY)
    assert r.nationality == "132" and r.corrections == ()
    # not a code of ICAO 9303 part 3: the document is invalid, and the field is named
    assert not r.valid and r.errors == ("UNKNOWN_NATIONALITY",)
    assert r.unknown_code_fields == ("nationality",)


def test_second_document_code_character_is_issuers_choice() -> None:
    r = parse_mrz(build_td1(document_code="C1", issuer="USA"), today=TODAY)
    assert r.valid and r.document_code == "C1" and r.corrections == ()


def test_name_filler_read_as_k() -> None:
    truth = build_td1()
    names = "ERIKSSON<<ANNA<MARIA<<K<<KKK<<"
    r = parse_mrz([*truth[:2], names], today=TODAY)
    assert r.valid and r.given_names == "ANNA MARIA" and r.lines == tuple(truth)
    assert len(r.corrections) == 4 and {c.field for c in r.corrections} == {"names"}
    r = parse_mrz([*truth[:2], "ERIKSSON<<ANNA<MARIAKKKKKKKKKK"], today=TODAY)
    assert r.given_names == "ANNA MARIA"
    surname_only = "MUSTERMANN<<<K<<<<<<<<<<<<<<<<"
    r = parse_mrz([*truth[:2], surname_only], today=TODAY)
    assert (r.surname, r.given_names) == ("MUSTERMANN", "")


def test_real_k_in_names_is_kept() -> None:
    truth = build_td1(surname="KIRK", given_names="KARL K")
    r = parse_mrz(truth, today=TODAY)
    assert r.valid and (r.surname, r.given_names) == ("KIRK", "KARL K") and r.corrections == ()


def test_document_number_is_not_corrected_by_default() -> None:
    truth = build_td3()
    read = _put(truth, 1, 5, "O")  # L8989O2C3
    r = parse_mrz(read, today=TODAY)
    assert not r.valid and r.errors == ("CHECK_DOCUMENT_NUMBER", "CHECK_COMPOSITE")
    assert r.lines == tuple(read) and r.corrections == ()


def test_document_number_lookalike_corrected_on_request() -> None:
    truth = build_td3()
    r = parse_mrz(_put(truth, 1, 5, "O"), today=TODAY, correct_alnum=True)
    assert r.valid and r.document_number == "L898902C3"
    assert r.corrections == (Correction(1, 5, "O", "0", "document_number"),)


CLASSES = ("0ODQ", "1I", "2Z", "5S", "8B")


def test_document_number_ambiguous_candidates_not_corrected() -> None:
    # A look-alike misread is always undone by one candidate (the truth); when
    # another look-alike change elsewhere also passes, nothing is changed.
    found = 0
    for number in ("0Z0000000", "0ZQ000000", "D0O1I2Z5S", "ZZZZZZZZZ", "000000000"):
        truth = build_td3(document_number=number)
        for col in range(9):
            same = next((c for c in CLASSES if truth[1][col] in c), "")
            for alt in same.replace(truth[1][col], ""):
                read = _put(truth, 1, col, alt)
                r = parse_mrz(read, today=TODAY, correct_alnum=True)
                if r.valid:
                    assert r.lines == tuple(truth)
                elif len(r.corrections) == 0:
                    found += 1
                    assert r.lines == tuple(read)
    assert found  # some corruptions stay uncorrected because candidates are ambiguous


def test_misread_check_digit_never_explained_by_changing_the_number() -> None:
    truth = build_td3()
    for digit in "0123456789":
        if digit == truth[1][9]:
            continue
        read = _put(truth, 1, 9, digit)
        r = parse_mrz(read, today=TODAY, correct_alnum=True)
        assert not r.valid and r.lines == tuple(read)


def test_non_lookalike_misread_is_why_alnum_correction_is_opt_in() -> None:
    truth = build_td3()  # L898902C3, check digit 6
    read = _put(truth, 1, 8, "4")  # '3' misread as '4'
    assert not parse_mrz(read, today=TODAY).valid  # default: detected
    risky = parse_mrz(read, today=TODAY, correct_alnum=True)
    assert risky.valid and risky.document_number == "LB98902C4"  # a different person


def test_visa_document_number_never_corrected() -> None:
    truth = build_mrva()
    r = parse_mrz(_put(truth, 1, 4, "O"), today=TODAY, correct_alnum=True)
    assert not r.valid and r.corrections == ()


def test_filler_personal_number_check_read_as_k() -> None:
    truth = build_td3(personal_number="")
    assert truth[1][42] == "<"
    r = parse_mrz(_put(truth, 1, 42, "K"), today=TODAY)
    assert r.valid and r.lines == tuple(truth)
    assert r.corrections == (Correction(1, 42, "K", "<", "personal_number_check"),)
    filled = build_td3()  # a real personal number: 'K' cannot be its check digit
    read = _put(filled, 1, 42, "K")
    r = parse_mrz(read, today=TODAY)
    assert not r.valid and r.lines == tuple(read) and "CHECK_PERSONAL_NUMBER" in r.errors

"""Build machine readable zones from field values, with correct check digits.

``build_td1``, ``build_td2``, ``build_td3``, ``build_mrva``, ``build_mrvb`` and
``build_fr_cni`` take keyword fields (defaults: the ICAO "UTO ERIKSSON ANNA
MARIA" specimens). Used by tests, fakes and the synthetic-document generator. The output is what
a conforming issuer prints (ICAO Doc 9303 parts 4-7): names transliterated to
A-Z (accents dropped, spaces and hyphens as '<', apostrophes omitted) and cut
to the field width; sex "X" written as '<'. Every function returns the lines
as a list of strings and raises ValueError when a value cannot fit.
"""

from __future__ import annotations

import unicodedata
from datetime import date

from admission.mrz.check import check_digit

DateLike = date | str


def mrz_text(value: str) -> str:
    """Transliterate free text to the MRZ alphabet (filler for separators)."""
    folded = unicodedata.normalize("NFKD", value)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).upper()
    folded = folded.replace("'", "").replace("’", "")
    out = []
    for ch in folded:
        if "A" <= ch <= "Z" or "0" <= ch <= "9" or ch == "<":
            out.append(ch)
        elif ch in " -,.":
            out.append("<")
    return "".join(out)


def _pad(value: str, width: int, what: str) -> str:
    text = mrz_text(value)
    if len(text) > width:
        raise ValueError(f"{what} longer than {width} characters")
    return text.ljust(width, "<")


def _cd(data: str) -> str:
    digit = check_digit(data)
    if digit is None:  # pragma: no cover - mrz_text only yields MRZ characters
        raise ValueError("non-MRZ character")
    return str(digit)


def _date(value: DateLike) -> str:
    text = value.strftime("%y%m%d") if isinstance(value, date) else value
    if len(text) != 6:
        raise ValueError("a date is 6 characters YYMMDD")
    return text


def _sex(value: str) -> str:
    text = value.upper()
    if text not in ("M", "F", "X", "<"):
        raise ValueError("sex is M, F or X")
    return "<" if text == "X" else text


def _names(surname: str, given_names: str, width: int) -> str:
    text = "<".join(part for part in mrz_text(surname).split("<") if part)
    given = "<".join(part for part in mrz_text(given_names).split("<") if part)
    if given:
        text += "<<" + given
    return text[:width].ljust(width, "<")


def _head(document_code: str, issuer: str) -> str:
    return _pad(document_code, 2, "document code") + _pad(issuer, 3, "issuer")


def _number_and_optional(number: str, optional: str, width: int) -> tuple[str, str]:
    """(9-char number + check digit, optional data) with overflow (parts 5 and 6)."""
    doc = mrz_text(number)
    if len(doc) <= 9:
        padded = doc.ljust(9, "<")
        return padded + _cd(padded), _pad(optional, width, "optional data")
    extra = doc[9:] + _cd(doc) + "<" + mrz_text(optional)
    return doc[:9] + "<", _pad(extra, width, "document number and optional data")


def build_td1(
    *,
    document_code: str = "I",
    issuer: str = "UTO",
    document_number: str = "D23145890",
    optional_data_1: str = "",
    birth_date: DateLike = "740812",
    sex: str = "F",
    expiry_date: DateLike = "120415",
    nationality: str = "UTO",
    optional_data_2: str = "",
    surname: str = "ERIKSSON",
    given_names: str = "ANNA MARIA",
) -> list[str]:
    """TD1, 3 x 30 (ID cards). Document numbers over 9 characters overflow."""
    number, optional = _number_and_optional(document_number, optional_data_1, 15)
    line1 = _head(document_code, issuer) + number + optional
    birth, expiry = _date(birth_date), _date(expiry_date)
    line2 = (
        birth
        + _cd(birth)
        + _sex(sex)
        + expiry
        + _cd(expiry)
        + _pad(nationality, 3, "nationality")
        + _pad(optional_data_2, 11, "optional data")
    )
    composite = line1[5:30] + line2[0:7] + line2[8:15] + line2[18:29]
    return [line1, line2 + _cd(composite), _names(surname, given_names, 30)]


def _line2_common(
    document_number: str,
    nationality: str,
    birth_date: DateLike,
    sex: str,
    expiry_date: DateLike,
) -> str:
    number = _pad(document_number, 9, "document number")
    birth, expiry = _date(birth_date), _date(expiry_date)
    return (
        number
        + _cd(number)
        + _pad(nationality, 3, "nationality")
        + birth
        + _cd(birth)
        + _sex(sex)
        + expiry
        + _cd(expiry)
    )


def build_td2(
    *,
    document_code: str = "I",
    issuer: str = "UTO",
    surname: str = "ERIKSSON",
    given_names: str = "ANNA MARIA",
    document_number: str = "D23145890",
    nationality: str = "UTO",
    birth_date: DateLike = "740812",
    sex: str = "F",
    expiry_date: DateLike = "120415",
    optional_data: str = "",
) -> list[str]:
    """TD2, 2 x 36. Document numbers over 9 characters overflow."""
    number, optional = _number_and_optional(document_number, optional_data, 7)
    line2 = _line2_common("", nationality, birth_date, sex, expiry_date)
    line2 = number + line2[10:] + optional
    composite = line2[0:10] + line2[13:20] + line2[21:35]
    return [_head(document_code, issuer) + _names(surname, given_names, 31), line2 + _cd(composite)]


def build_td3(
    *,
    document_code: str = "P",
    issuer: str = "UTO",
    surname: str = "ERIKSSON",
    given_names: str = "ANNA MARIA",
    document_number: str = "L898902C3",
    nationality: str = "UTO",
    birth_date: DateLike = "740812",
    sex: str = "F",
    expiry_date: DateLike = "120415",
    personal_number: str = "ZE184226B",
    filler_check_when_empty: bool = True,
) -> list[str]:
    """TD3, 2 x 44 (passports). An empty personal number gets check '<' (or '0')."""
    personal = _pad(personal_number, 14, "personal number")
    empty = personal == "<" * 14
    personal_cd = "<" if empty and filler_check_when_empty else _cd(personal)
    line2 = _line2_common(document_number, nationality, birth_date, sex, expiry_date)
    line2 += personal + personal_cd
    composite = line2[0:10] + line2[13:20] + line2[21:43]
    return [_head(document_code, issuer) + _names(surname, given_names, 39), line2 + _cd(composite)]


def _visa(
    width: int,
    document_code: str,
    issuer: str,
    surname: str,
    given_names: str,
    document_number: str,
    nationality: str,
    birth_date: DateLike,
    sex: str,
    expiry_date: DateLike,
    optional_data: str,
) -> list[str]:
    """Both visa formats: names fill line 1 after the 5-character head, optional data
    fills line 2 after its 28 fixed characters."""
    line2 = _line2_common(document_number, nationality, birth_date, sex, expiry_date)
    return [
        _head(document_code, issuer) + _names(surname, given_names, width - 5),
        line2 + _pad(optional_data, width - 28, "optional data"),
    ]


def build_mrva(
    *,
    document_code: str = "V",
    issuer: str = "UTO",
    surname: str = "ERIKSSON",
    given_names: str = "ANNA MARIA",
    document_number: str = "L8988901C",
    nationality: str = "XXX",
    birth_date: DateLike = "400907",
    sex: str = "F",
    expiry_date: DateLike = "961210",
    optional_data: str = "6ZE184226B",
) -> list[str]:
    """MRV-A visa, 2 x 44, no composite check digit."""
    return _visa(
        44,
        document_code,
        issuer,
        surname,
        given_names,
        document_number,
        nationality,
        birth_date,
        sex,
        expiry_date,
        optional_data,
    )


def build_mrvb(
    *,
    document_code: str = "V",
    issuer: str = "UTO",
    surname: str = "ERIKSSON",
    given_names: str = "ANNA MARIA",
    document_number: str = "L8988901C",
    nationality: str = "XXX",
    birth_date: DateLike = "400907",
    sex: str = "F",
    expiry_date: DateLike = "961210",
    optional_data: str = "",
) -> list[str]:
    """MRV-B visa, 2 x 36, no composite check digit."""
    return _visa(
        36,
        document_code,
        issuer,
        surname,
        given_names,
        document_number,
        nationality,
        birth_date,
        sex,
        expiry_date,
        optional_data,
    )


def build_fr_cni(
    *,
    surname: str = "BERTHIER",
    given_names: str = "CORINNE",
    administrative_code: str = "",
    document_number: str = "940992310285",
    birth_date: DateLike = "651206",
    sex: str = "F",
) -> list[str]:
    """French national ID card 1995-2021 (2 x 36, national layout, no expiry).

    Given names are separated by '<<' as on the cards.
    """
    name = "<".join(part for part in mrz_text(surname).split("<") if part)[:25]
    line1 = "IDFRA" + name.ljust(25, "<") + _pad(administrative_code, 6, "administrative code")
    number = _pad(document_number, 12, "document number")
    given = "<<".join(part for part in mrz_text(given_names).split("<") if part)[:14]
    birth = _date(birth_date)
    line2 = number + _cd(number) + given.ljust(14, "<") + birth + _cd(birth) + _sex(sex)
    return [line1, line2 + _cd(line1 + line2)]

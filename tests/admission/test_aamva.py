"""AAMVA DL/ID PDF417 parser: versions, US/Canadian dates, identity key, bad input."""

from __future__ import annotations

import contextlib
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from admission.aamva import looks_like_aamva, parse_aamva, read_file
from admission.documents import DocumentError, DocumentSource, DocumentType
from admission.identity import IdentityKey, IdKind

TODAY = date(2026, 11, 29)


def build(
    elements: list[tuple[str, str]],
    *,
    version: int = 9,
    iin: str = "636000",
    kind: str = "DL",
    jurisdiction_subfile: str | None = "ZVZVA01",
    offset_shift: int = 0,
    separators: str = "\n\x1e\r",
    file_type: str = "ANSI ",
) -> str:
    """An AAMVA file with correct designators (offsets count from the '@')."""
    body = kind + "".join(f"{k}{v}\n" for k, v in elements) + "\r"
    subfiles = [(kind, body)]
    if jurisdiction_subfile:
        subfiles.append((jurisdiction_subfile[:2], jurisdiction_subfile + "\r"))
    head = "@" + separators + file_type + iin + f"{version:02d}"
    if version >= 2:
        head += "00"
    head += f"{len(subfiles):02d}"
    offset = len(head) + 10 * len(subfiles)
    designators = ""
    for name, content in subfiles:
        designators += f"{name}{offset + offset_shift:04d}{len(content):04d}"
        offset += len(content)
    return head + designators + "".join(c for _, c in subfiles)


US = [
    ("DAQ", "T64235789"),
    ("DCS", "SAMPLE"),
    ("DDE", "N"),
    ("DAC", "MICHAEL"),
    ("DDF", "N"),
    ("DAD", "JOHN"),
    ("DDG", "N"),
    ("DCA", "D"),
    ("DBD", "06062016"),
    ("DBB", "06061986"),
    ("DBA", "12102030"),
    ("DBC", "1"),
    ("DAU", "068 in"),
    ("DAY", "BRO"),
    ("DAG", "2300 WEST BROAD STREET"),
    ("DAI", "RICHMOND"),
    ("DAJ", "VA"),
    ("DAK", "232690000  "),
    ("DCF", "2424244747474786102204"),
    ("DCG", "USA"),
]
CANADA = [
    ("DAQ", "P1234-56789-01234"),
    ("DCS", "TREMBLAY"),
    ("DAC", "MARIE"),
    ("DAD", "ÉLODIE"[1:]),
    ("DBB", "19900215"),
    ("DBA", "20310215"),
    ("DBC", "2"),
    ("DAJ", "ON"),
    ("DCG", "CAN"),
]


def test_us_licence_version_9() -> None:
    doc = parse_aamva(build(US), today=TODAY)
    assert doc.valid, doc.errors
    assert (doc.doc_type, doc.source, doc.issuer) == (
        DocumentType.DRIVING_LICENCE,
        DocumentSource.BARCODE,
        "USA",
    )
    assert doc.identity == IdentityKey(IdKind.DRIVING_LICENCE, "USA", "VAT64235789")
    assert (doc.surname, doc.given_names, doc.sex) == ("SAMPLE", "MICHAEL JOHN", "M")
    assert (doc.birth_date, doc.expiry_date) == (date(1986, 6, 6), date(2030, 12, 10))
    assert doc.document_number == "T64235789"
    assert doc.nationality == ""
    assert doc.full_name == "MICHAEL JOHN SAMPLE"


def test_canadian_dates_are_ccyymmdd() -> None:
    doc = parse_aamva(build(CANADA, iin="636012", jurisdiction_subfile=None), today=TODAY)
    assert doc.valid, doc.errors
    assert doc.identity.text == "DRIVING_LICENCE:CAN:ONP12345678901234"
    assert (doc.birth_date, doc.expiry_date, doc.sex) == (date(1990, 2, 15), date(2031, 2, 15), "F")


def test_canada_without_dcg_follows_the_province() -> None:
    elements = [e for e in CANADA if e[0] != "DCG"]
    doc = parse_aamva(build(elements, version=3), today=TODAY)
    assert doc.issuer == "CAN" and doc.birth_date == date(1990, 2, 15)


def test_us_date_in_canadian_format_is_an_error() -> None:
    elements = [("DBB", "19860606") if k == "DBB" else (k, v) for k, v in US]
    doc = parse_aamva(build(elements), today=TODAY)
    assert not doc.valid and "AAMVA_BAD_BIRTH_DATE" in doc.errors
    assert doc.birth_date is None


def test_version_1_names_in_daa() -> None:
    elements = [
        ("DAQ", "123456789"),
        ("DAA", "PUBLIC,JOHN,Q"),
        ("DBB", "01311970"),
        ("DBA", "01312029"),
        ("DBC", "M"),
        ("DAJ", "NY"),
    ]
    doc = parse_aamva(build(elements, version=1, jurisdiction_subfile=None), today=TODAY)
    assert doc.valid, doc.errors
    assert (doc.surname, doc.given_names, doc.sex) == ("PUBLIC", "JOHN Q", "M")
    assert read_file(build(elements, version=1)).version == 1


def test_version_2_dct_given_names() -> None:
    elements = [
        ("DAQ", "D1234567"),
        ("DCS", "DOE"),
        ("DCT", "JANE,ANN"),
        ("DBB", "12311999"),
        ("DBA", "12312028"),
        ("DBC", "2"),
        ("DAJ", "CA"),
    ]
    doc = parse_aamva(build(elements, version=2), today=TODAY)
    assert doc.valid, doc.errors
    assert doc.given_names == "JANE ANN"


def test_state_id_card() -> None:
    doc = parse_aamva(build(US, kind="ID"), today=TODAY)
    assert doc.doc_type is DocumentType.ID_CARD
    assert doc.identity.kind is IdKind.ID_CARD


def test_offsets_slightly_wrong_are_tolerated_far_wrong_flagged() -> None:
    assert parse_aamva(build(US, offset_shift=2), today=TODAY).valid
    doc = parse_aamva(build(US, offset_shift=40), today=TODAY)
    assert "AAMVA_BAD_DESIGNATOR" in doc.errors and not doc.valid
    assert doc.surname == "SAMPLE"  # still readable for the clerk to check


def test_header_separators_are_checked() -> None:
    doc = parse_aamva(build(US, separators="\n\x1e\n"), today=TODAY)
    assert "AAMVA_BAD_HEADER" in doc.errors


def test_missing_required_elements() -> None:
    elements = [(k, v) for k, v in US if k not in ("DBB", "DCS")]
    doc = parse_aamva(build(elements), today=TODAY)
    assert {"AAMVA_MISSING_DBB", "AAMVA_MISSING_DCS"} <= set(doc.errors)
    assert doc.birth_date is None


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (("DAJ", "XX"), "AAMVA_BAD_JURISDICTION"),
        (("DCG", "MEX"), "AAMVA_BAD_COUNTRY"),
        (("DBA", "06061980"), "AAMVA_BAD_EXPIRY_DATE"),
        (("DBB", "13011986"), "AAMVA_BAD_BIRTH_DATE"),
        (("DBB", "06062030"), "AAMVA_BAD_BIRTH_DATE"),
        (("DBC", "7"), "AAMVA_BAD_SEX"),
        (("DCS", "<b>SAMPLE</b>"), "AAMVA_BAD_NAME"),
        (("DCS", "SAM\x07PLE"), "AAMVA_BAD_CHARS"),
        (("DAQ", "T6423578912345678901"), "AAMVA_BAD_NUMBER"),
    ],
)
def test_bad_values(change: tuple[str, str], code: str) -> None:
    elements = [change if k == change[0] else (k, v) for k, v in US]
    doc = parse_aamva(build(elements), today=TODAY)
    assert code in doc.errors
    assert not doc.valid
    assert "<" not in doc.surname and "\x07" not in doc.surname


def test_province_with_usa_country_is_flagged() -> None:
    elements = [("DCG", "USA") if k == "DCG" else (k, v) for k, v in CANADA]
    assert "AAMVA_BAD_COUNTRY" in parse_aamva(build(elements), today=TODAY).errors


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello",
        "ADM1-MAD01-5-ABCDEFGH",
        "@\n\x1e\rANSI ",
        "@\n\x1e\rANSI 636000090001DL",
        build([("DCS", "NONUMBER")]),
        "@\n\x1e\rANSI " + "9" * 5000,
    ],
)
def test_unusable(text: str) -> None:
    with pytest.raises(DocumentError) as err:
        parse_aamva(text, today=TODAY)
    assert str(err.value.code) == "AAMVA_UNUSABLE"


def test_looks_like_aamva() -> None:
    assert looks_like_aamva(build(US))
    assert looks_like_aamva("]L2" + build(US))  # reader prefixed the AIM id
    assert not looks_like_aamva("ADM1-MAD01-5-ABCDEFGH")


def test_symbology_prefix_is_skipped() -> None:
    assert parse_aamva("]L2" + build(US), today=TODAY).valid


def test_through_a_real_pdf417_symbol() -> None:
    zxingcpp = pytest.importorskip("zxingcpp")
    np = pytest.importorskip("numpy")
    text = build(US)
    symbol = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.PDF417)
    img = np.array(zxingcpp.write_barcode_to_image(symbol, size_hint=800))
    decoded = zxingcpp.read_barcodes(img, text_mode=zxingcpp.TextMode.Plain)
    assert [r.text for r in decoded] == [text]
    assert parse_aamva(decoded[0].text, today=TODAY).identity.text == (
        "DRIVING_LICENCE:USA:VAT64235789"
    )


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_never_crashes(tail: str) -> None:
    for text in (tail, "@\n\x1e\rANSI 636000090001DL00310100DL" + tail):
        try:
            doc = parse_aamva(text, today=TODAY)
        except DocumentError:
            continue
        assert all(c.isalpha() or c in " '-." for c in doc.surname + doc.given_names)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["DAQ", "DCS", "DAC", "DBB", "DBA", "DAJ", "DCG"]), st.text(max_size=30)
        ),
        max_size=12,
    )
)
def test_arbitrary_elements_never_crash(elements: list[tuple[str, str]]) -> None:
    with contextlib.suppress(DocumentError):
        parse_aamva(build(elements), today=TODAY)

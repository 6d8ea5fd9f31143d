"""The chip's files (ICAO 9303-10): EF.COM, DG1 and DG2 parsed back from what the builders
make, faces in JPEG and JPEG 2000, and malformed files refused."""

from __future__ import annotations

import pytest

from hardware.chip.lds import (
    FILE_IDS,
    SHORT_IDS,
    LdsError,
    build_com,
    build_dg1,
    build_dg2,
    build_tlv,
    dg1_mrz,
    dg2_face,
    dg_number,
    parse_com,
    read_tlv,
)

# an invented TD1 MRZ (3 x 30) of the ICAO specimen's layout
TD1 = "I<UTOD231458907<<<<<<<<<<<<<<<7408122F1204159UTO<<<<<<<<<<<6ERIKSSON<<ANNA<MARIA<<<<<<<<<<"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 80
JP2 = b"\x00\x00\x00\x0cjP  \r\n\x87\n" + bytes(300)
J2K = b"\xff\x4f\xff\x51" + bytes(300)


def test_tlv_multi_byte_tags_and_long_lengths() -> None:
    value = bytes(70000)
    tag, got, rest = read_tlv(build_tlv(0x7F61, value) + b"\x01")
    assert (tag, got, rest) == (0x7F61, value, b"\x01")
    assert read_tlv(bytes.fromhex("5F1F0141"))[:2] == (0x5F1F, b"A")


@pytest.mark.parametrize("data", [b"", b"\x61", b"\x61\x05abc", b"\x61\x85\x00\x00\x00\x00\x01"])
def test_tlv_refuses_what_runs_past_the_data(data: bytes) -> None:
    with pytest.raises(LdsError):
        read_tlv(data)


def test_com_lists_its_groups() -> None:
    assert parse_com(build_com([1, 2, 14])) == (0x61, 0x75, 0x6E)
    assert [dg_number(t) for t in parse_com(build_com([1, 2]))] == [1, 2]


def test_dg1_round_trip_for_each_size() -> None:
    td3 = (
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
        + "L898902C36UTO7408122F1204159ZE184226B<<<<<10"
    )
    for mrz in (TD1, td3, td3[:72]):
        assert dg1_mrz(build_dg1(mrz)) == mrz
    assert dg1_mrz(build_dg1(TD1[:30] + "\n" + TD1[30:60] + "\n" + TD1[60:])) == TD1


def test_dg1_refuses_what_is_not_an_mrz() -> None:
    with pytest.raises(LdsError):
        dg1_mrz(build_dg1("short"))
    with pytest.raises(LdsError):
        dg1_mrz(build_tlv(0x75, b""))


@pytest.mark.parametrize(
    ("image", "mime"), [(JPEG, "image/jpeg"), (JP2, "image/jp2"), (J2K, "image/jp2")]
)
def test_dg2_face_round_trip(image: bytes, mime: str) -> None:
    assert dg2_face(build_dg2(image, mime)) == (image, mime)


def test_dg2_with_7f2e_and_feature_points() -> None:
    points = 2
    record = (
        b"FAC\x00010\x00"
        + bytes(6)
        + bytes(4)
        + points.to_bytes(2, "big")
        + bytes(14)
        + bytes(8 * points)
        + bytes(12)
        + JPEG
    )
    template = build_tlv(
        0x7F60, build_tlv(0xA1, build_tlv(0x81, b"\x02")) + build_tlv(0x7F2E, record)
    )
    dg2 = build_tlv(0x75, build_tlv(0x7F61, build_tlv(0x02, b"\x01") + template))
    assert dg2_face(dg2) == (JPEG, "image/jpeg")


def test_dg2_without_an_image_is_refused() -> None:
    template = build_tlv(0x7F60, build_tlv(0x5F2E, b"FAC\x00010\x00" + bytes(60)))
    with pytest.raises(LdsError):
        dg2_face(build_tlv(0x75, build_tlv(0x7F61, template)))
    with pytest.raises(LdsError):
        build_dg2(JPEG, "image/png")


def test_file_ids() -> None:
    assert FILE_IDS["SOD"] == 0x011D and SHORT_IDS["SOD"] == 0x1D
    assert all(FILE_IDS[name] & 0xFF == SHORT_IDS[name] for name in FILE_IDS)

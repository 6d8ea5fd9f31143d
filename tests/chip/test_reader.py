"""read_chip against the virtual chip in process: BAC and PACE, short and extended
reading, offsets beyond 32767, every tampering case with its own code, a chip that stops
answering, and nothing raised to the desk."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import count

import pytest

from admission.chip import ChipAuthentication, ChipCode, ChipStatus
from admission.devices import DeviceStatus, ReaderStatusChanged
from admission.mrz.check import check_digit
from hardware.chip.access import CanKey, MrzKey
from hardware.chip.apdu import ChipError
from hardware.chip.document_pki import DocumentPki, make_pki
from hardware.chip.fake import FakeChipReader
from hardware.chip.lds import build_dg1, build_dg2
from hardware.chip.reader import ChipRead, ChipReaderDevice, ReaderStation, mrz_key, read_chip
from hardware.chip.virtual_chip import PlainSecurity, VirtualChip, make_document

# invented people (tests never carry real ones)
MRZ = "IDESPXYZ123456<99999999R<<<<<<8001014F3101017ESP<<<<<<<<<<<8PRUEBA<INVENTADA<<ANA<<<<<<<<<"
OTHER = "IDESPXYZ123456<99999999R<<<<<<8001014F3101017ESP<<<<<<<<<<<8PRUEBA<DISTINTA<<EVA<<<<<<<<<<"
TD3 = "P<ESPPRUEBA<<MARIA".ljust(44, "<") + "AA00000000ESP7501017F3001014".ljust(42, "<") + "06"
AT = datetime(2026, 12, 1, 12, tzinfo=UTC)
PHOTO = b"\xff\xd8\xff\xe0" + os.urandom(20_000)
BIG_PHOTO = b"\xff\xd8\xff\xe0" + os.urandom(40_000)  # beyond READ BINARY's 15-bit offsets
CAN = CanKey("123456")


@pytest.fixture(scope="module")
def pki() -> DocumentPki:
    return make_pki("ES", now=AT)


def read(chip: VirtualChip, key: MrzKey | CanKey, trust: object, **kwargs: object) -> ChipRead:
    kwargs.setdefault("printed_mrz", MRZ)
    return read_chip(chip, key, trust, at=AT, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("access", "key"), [("BAC", mrz_key(MRZ)), ("PACE", CAN), ("PACE+BAC", mrz_key(MRZ))]
)
def test_a_genuine_document(pki: DocumentPki, access: str, key: MrzKey | CanKey) -> None:
    chip, trust = make_document(MRZ, PHOTO, access=access, pki=pki)
    result = read(chip, key, trust)
    assert result.check.code is None and result.check.status is ChipStatus.GENUINE
    assert result.check.access == ("BAC" if access == "BAC" else "PACE")
    assert result.check.issuer == "ESP"
    assert (result.mrz, result.photo, result.photo_mime) == (MRZ, PHOTO, "image/jpeg")
    assert result.apdus == chip.received and result.bytes_in > len(PHOTO)
    assert set(result.timings) == {"channel", "reading", "verification"}
    assert "photo=" not in repr(result)  # never in a log line


@pytest.mark.parametrize("access", ["BAC", "PACE"])
def test_a_chip_lifted_and_put_back_is_read_again(pki: DocumentPki, access: str) -> None:
    """A reset (the field off and on) leaves no channel open: the next read opens its
    own, as a real chip's RAM forgets its session keys."""
    chip, trust = make_document(MRZ, PHOTO, access=access, pki=pki)
    key = CAN if access == "PACE" else mrz_key(MRZ)
    assert read(chip, key, trust).check.genuine
    chip.reset()
    again = read(chip, key, trust)
    assert again.check.genuine and again.photo == PHOTO


def test_short_reads_when_the_chip_has_no_extended_length(pki: DocumentPki) -> None:
    chip, trust = make_document(MRZ, BIG_PHOTO, access="BAC", pki=pki)
    extended = read(chip, mrz_key(MRZ), trust)
    chip, trust = make_document(MRZ, BIG_PHOTO, access="BAC", pki=pki, extended=False)
    short = read(chip, mrz_key(MRZ), trust)
    assert extended.check.code is None and short.check.code is None
    assert short.photo == extended.photo == BIG_PHOTO
    # 223 bytes per command: about 40 kB / 223 commands for the face alone
    assert short.apdus > len(BIG_PHOTO) // 223 > extended.apdus


def test_a_chip_that_opens_nothing_and_wrong_keys(pki: DocumentPki) -> None:
    wrong = MrzKey("XYZ123457", "800101", "310101")
    chip, trust = make_document(MRZ, PHOTO, access="BAC", pki=pki)
    assert read(chip, wrong, trust).check.code is ChipCode.ACCESS_DENIED
    chip, trust = make_document(MRZ, PHOTO, access="PACE", pki=pki)
    assert read(chip, CanKey("654321"), trust).check.code is ChipCode.ACCESS_DENIED
    chip, trust = make_document(MRZ, PHOTO, access="PACE", pki=pki)
    refused = read(chip, mrz_key(MRZ), trust)  # a DNIe opens with its CAN only
    assert refused.check.code in (ChipCode.CAN_NEEDED, ChipCode.ACCESS_DENIED)
    assert refused.check.status is ChipStatus.NOT_VERIFIABLE and refused.photo == b""
    no_applet = VirtualChip({"CardAccess": b"\x31\x00"}, PlainSecurity())
    no_applet.transmit = _refusing_select(no_applet.transmit)  # type: ignore[method-assign, assignment]
    assert read(no_applet, mrz_key(MRZ), trust).check.code is ChipCode.NO_CHIP


def _refusing_select(inner: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    """A contactless card of another kind (a bank card): no eMRTD application."""

    def transmit(apdu: bytes) -> bytes:
        return b"\x6a\x82" if apdu[1] == 0xA4 else inner(apdu)

    return transmit


def test_no_application_is_no_chip() -> None:
    class Bank:
        def transmit(self, apdu: bytes) -> bytes:
            return b"\x6a\x82"

    result = read_chip(Bank(), CAN, None, printed_mrz=None, at=AT)
    assert result.check.code is ChipCode.NO_CHIP and result.apdus == 2


@pytest.mark.parametrize("after", [3, 9, 14])
def test_a_chip_that_stops_answering(pki: DocumentPki, after: int) -> None:
    chip, trust = make_document(MRZ, PHOTO, access="BAC", pki=pki, silent_after=after)
    result = read(chip, mrz_key(MRZ), trust)
    assert result.check.code is ChipCode.CHIP_SILENT
    assert result.check.status is ChipStatus.NOT_VERIFIABLE
    assert (result.mrz, result.photo) == ("", b"") and result.apdus == after + 1


def _changed_byte(dg1: bytes) -> bytes:
    return dg1[:-1] + bytes((dg1[-1] ^ 0x01,))


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("dg1 byte", ChipCode.DG_HASH_MISMATCH),
        ("dg2 swapped", ChipCode.DG_HASH_MISMATCH),
        ("sod truncated", ChipCode.SOD_MALFORMED),
        ("printed differs", ChipCode.DG1_MRZ_MISMATCH),
        ("expired dsc", ChipCode.DSC_EXPIRED),
        ("other country csca", ChipCode.CSCA_COUNTRY_MISMATCH),
        ("no master list", ChipCode.NO_MASTER_LIST),
        ("forgery without a list", ChipCode.DG_HASH_MISMATCH),
    ],
)
def test_tampering(pki: DocumentPki, case: str, code: ChipCode) -> None:
    signer, replace, printed, trust_override = pki, {}, MRZ, None
    keep_trust = True
    if case == "dg1 byte":
        replace = {"DG1": _changed_byte(build_dg1(MRZ))}
    elif case == "dg2 swapped":
        replace = {"DG2": build_dg2(b"\xff\xd8\xff\xe0" + os.urandom(20_000), "image/jpeg")}
    elif case == "printed differs":
        printed = OTHER
    elif case == "expired dsc":
        signer = make_pki("ES", now=AT, dsc_expired=True)
    elif case == "other country csca":
        signer = make_pki("ES", now=AT, csca_country="FR")
    elif case in ("no master list", "forgery without a list"):
        keep_trust = False
        if case == "forgery without a list":
            replace = {"DG1": build_dg1(OTHER)}
    chip, trust = make_document(MRZ, PHOTO, access="PACE", pki=signer, replace=replace)
    if case == "sod truncated":
        chip.files["SOD"] = chip.files["SOD"][: len(chip.files["SOD"]) // 2]
    result = read(chip, CAN, trust if keep_trust else trust_override, printed_mrz=printed)
    assert result.check.code is code
    assert result.check.forged is (code not in (ChipCode.NO_MASTER_LIST,))
    assert result.check.access == "PACE"


def test_chip_authentication_where_dg14_is_proven(pki: DocumentPki) -> None:
    chip, trust = make_document(MRZ, PHOTO, access="PACE", pki=pki, chip_auth=True)
    if "DG14" not in chip.files:
        pytest.skip("the chip side of chip authentication is not built")
    result = read(chip, CAN, trust)
    assert result.check.code is None
    assert result.check.authentication is ChipAuthentication.CHIP_AUTHENTICATION


def test_the_phases_are_timed_with_the_given_clock(pki: DocumentPki) -> None:
    ticks = count()
    chip, trust = make_document(MRZ, PHOTO, access="BAC", pki=pki)
    result = read(chip, mrz_key(MRZ), trust, clock=lambda: float(next(ticks)))
    assert dict(result.timings) == {"channel": 1.0, "reading": 1.0, "verification": 1.0}


def test_mrz_key_of_each_format() -> None:
    number = "BAA000589"
    td1 = f"IDESP{number}{check_digit(number)}99999999R<<<<<<" + MRZ[30:]
    assert mrz_key(td1) == MrzKey(number, "800101", "310101")
    # "<" where the number's check digit goes: the number goes on in the optional data
    assert mrz_key(MRZ).document_number == "XYZ12345699999999"
    assert mrz_key(TD3[:44] + "\n" + TD3[44:]) == MrzKey("AA0000000", "750101", "300101")
    long_number = "I<ESPAB1234567<8904<<<<<<<<<<<" + MRZ[30:]  # TD1: a 12-character number
    assert mrz_key(long_number).document_number == "AB1234567890"
    with pytest.raises(ValueError, match="TD1"):
        mrz_key("P<ESP")


def test_the_station_over_the_fake_reader(pki: DocumentPki) -> None:
    genuine, trust = make_document(MRZ, PHOTO, access="BAC", pki=pki)
    dnie, _ = make_document(MRZ, PHOTO, access="PACE", pki=pki)
    failing = ChipError(ChipCode.READER_ERROR, "the reader's driver failed")
    reader = FakeChipReader.of([genuine, None, failing, dnie])
    device: ChipReaderDevice = reader  # the fake has the port's surface
    station = ReaderStation(device, lambda: trust, card_timeout=0.5)
    key = {"document_number": "XYZ12345699999999", "birth": "800101", "expiry": "310101"}
    first = station.read(**key, can="", printed_mrz=MRZ, at=AT)
    assert first.check.code is None and first.photo == PHOTO
    assert station.read(**key, can="", printed_mrz=MRZ, at=AT).check.code is ChipCode.NO_CHIP
    third = station.read(**key, can="", printed_mrz=MRZ, at=AT)
    assert third.check.code is ChipCode.READER_ERROR
    fourth = station.read(**key, can="123456", printed_mrz=MRZ, at=AT)
    assert fourth.check.code is None and fourth.check.access == "PACE"
    assert reader.waits == [0.5] * 4 and reader.connects == 3
    assert reader.apdus == first.apdus + fourth.apdus
    bad_key = station.read(
        document_number="", birth="x", expiry="", can="", printed_mrz=None, at=AT
    )
    assert bad_key.check.code is ChipCode.ACCESS_DENIED
    assert station.preflight() is DeviceStatus.READY and reader.preflights == 1


def test_the_fake_reader_plays_hot_plug() -> None:
    reader = FakeChipReader()
    statuses: list[ReaderStatusChanged] = []
    cards: list[bool] = []
    watch = reader.watch(statuses.append, cards.append)
    reader.plug(DeviceStatus.NOT_FOUND)
    assert reader.readers() == [] and reader.preflight() is DeviceStatus.NOT_FOUND
    reader.plug(DeviceStatus.READY)
    reader.put(VirtualChip({}, PlainSecurity()))
    reader.remove()
    watch.stop()
    reader.plug(DeviceStatus.NOT_FOUND)  # no longer watched
    assert [s.status for s in statuses] == [
        DeviceStatus.READY,
        DeviceStatus.LOST,
        DeviceStatus.READY,
    ]
    assert statuses[-1].reconnected and cards == [True, False]
    with pytest.raises(ChipError) as caught:
        reader.connect()
    assert caught.value.code is ChipCode.NO_CHIP


def test_a_chip_refusing_ef_cardaccess_is_read_with_bac(pki: DocumentPki) -> None:
    """Older passports answer a READ BINARY by short file id in the MF with any error:
    no EF.CardAccess, so BAC in the application."""
    chip, trust = make_document(MRZ, PHOTO, access="BAC", pki=pki)
    inner = chip.transmit

    def transmit(apdu: bytes) -> bytes:
        return b"\x6d\x00" if apdu[1:3] == b"\xb0\x9c" else inner(apdu)

    chip.transmit = transmit  # type: ignore[method-assign]
    assert read(chip, mrz_key(MRZ), trust).check.genuine


def test_a_jpeg_2000_face(pki: DocumentPki) -> None:
    face = b"\x00\x00\x00\x0cjP  \r\n\x87\n" + os.urandom(15_000)
    chip, trust = make_document(MRZ, face, access="PACE", pki=pki, photo_mime="image/jp2")
    result = read(chip, CAN, trust)
    assert result.check.genuine and (result.photo, result.photo_mime) == (face, "image/jp2")

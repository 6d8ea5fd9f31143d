"""The chip's files (ICAO 9303-10, the Logical Data Structure): EF.COM, DG1 (the MRZ),
DG2 (the face) and the ASN.1 of EF.SOD's LDSSecurityObject (ICAO 9303-10 §4.6.2).

Parsers read untrusted bytes from a chip: every length is bounded by the bytes at hand
and a malformed file raises :class:`LdsError`. The builders make the same files for the
virtual chip and the demo.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from asn1crypto import algos, core  # type: ignore[import-untyped]

__all__ = [
    "DG_TAGS",
    "FILE_IDS",
    "SHORT_IDS",
    "DataGroupHash",
    "LdsError",
    "LdsSecurityObject",
    "build_com",
    "build_dg1",
    "build_dg2",
    "build_tlv",
    "dg1_mrz",
    "dg2_face",
    "dg_number",
    "parse_com",
    "read_tlv",
]

FILE_IDS: dict[str, int] = {
    "COM": 0x011E,
    "DG1": 0x0101,
    "DG2": 0x0102,
    "DG14": 0x010E,
    "DG15": 0x010F,
    "SOD": 0x011D,
    "CardAccess": 0x011C,
}
SHORT_IDS: dict[str, int] = {
    "COM": 0x1E,
    "DG1": 0x01,
    "DG2": 0x02,
    "DG14": 0x0E,
    "DG15": 0x0F,
    "SOD": 0x1D,
    "CardAccess": 0x1C,
}
# ICAO 9303-10 §4.6 table 34: the tag that opens each data group's file
DG_TAGS: dict[int, int] = {
    1: 0x61,
    2: 0x75,
    3: 0x63,
    4: 0x76,
    5: 0x65,
    6: 0x66,
    7: 0x67,
    8: 0x68,
    9: 0x69,
    10: 0x6A,
    11: 0x6B,
    12: 0x6C,
    13: 0x6D,
    14: 0x6E,
    15: 0x6F,
    16: 0x70,
}
TAG_COM = 0x60
TAG_SOD = 0x77
JPEG = "image/jpeg"
JP2 = "image/jp2"
_JP2_SIGNATURES = (b"\x00\x00\x00\x0cjP  \r\n\x87\n", b"\xff\x4f\xff\x51")
_FACE_HEADER = b"FAC\x00"


class LdsError(ValueError):
    """A chip file that is not what ICAO 9303-10 says it is."""


def read_tlv(data: bytes) -> tuple[int, bytes, bytes]:
    """The first BER-TLV of ``data``: (tag, value, the bytes after it). Multi-byte tags
    (``5F1F``, ``7F61``) are one integer; lengths up to four bytes (``84``)."""
    if len(data) < 2:
        raise LdsError("TLV shorter than a tag and a length")
    pos = 1
    tag = data[0]
    if tag & 0x1F == 0x1F:
        while True:
            if pos >= len(data) or pos > 3:
                raise LdsError("TLV tag runs past the data")
            tag = (tag << 8) | data[pos]
            pos += 1
            if not data[pos - 1] & 0x80:
                break
    if pos >= len(data):
        raise LdsError("TLV without a length")
    first = data[pos]
    pos += 1
    if first < 0x80:
        length = first
    else:
        count = first & 0x7F
        if count == 0 or count > 4 or pos + count > len(data):
            raise LdsError("TLV length not valid")
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    if pos + length > len(data):
        raise LdsError("TLV value runs past the data")
    return tag, data[pos : pos + length], data[pos + length :]


def _children(value: bytes) -> dict[int, bytes]:
    """The TLVs inside a constructed value, by tag (the first of each tag)."""
    found: dict[int, bytes] = {}
    rest = value
    while rest and rest.strip(b"\x00\xff"):
        tag, inner, rest = read_tlv(rest)
        found.setdefault(tag, inner)
    return found


def _expect(data: bytes, tag: int) -> bytes:
    found, value, _ = read_tlv(data)
    if found != tag:
        raise LdsError(f"expected tag {tag:X}, found {found:X}")
    return value


def _length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    size = (n.bit_length() + 7) // 8
    return bytes([0x80 | size]) + n.to_bytes(size, "big")


def build_tlv(tag: int, value: bytes) -> bytes:
    """One DER TLV (``tag`` as an integer, one to three bytes)."""
    return tag.to_bytes((tag.bit_length() + 7) // 8 or 1, "big") + _length(len(value)) + value


def dg_number(tag: int) -> int:
    """The data group a file tag opens (0x61 -> 1); 0 when it is none."""
    return next((n for n, t in DG_TAGS.items() if t == tag), 0)


def parse_com(ef_com: bytes) -> tuple[int, ...]:
    """The data-group tags EF.COM lists (``5C``): e.g. (0x61, 0x75, 0x6E)."""
    inner = _children(_expect(ef_com, TAG_COM))
    return tuple(inner.get(0x5C, b""))


def build_com(
    tags: Iterable[int], lds_version: str = "0107", unicode_version: str = "040000"
) -> bytes:
    """EF.COM listing ``tags`` (file tags such as 0x61, or DG numbers 1..16)."""
    listed = bytes(DG_TAGS.get(t, t) if t <= 16 else t for t in tags)
    return build_tlv(
        TAG_COM,
        build_tlv(0x5F01, lds_version.encode("ascii"))
        + build_tlv(0x5F36, unicode_version.encode("ascii"))
        + build_tlv(0x5C, listed),
    )


def dg1_mrz(dg1: bytes) -> str:
    """DG1's MRZ as one string (90 chars TD1, 72 TD2, 88 TD3), as printed, no line breaks."""
    mrz = _children(_expect(dg1, DG_TAGS[1])).get(0x5F1F)
    if mrz is None:
        raise LdsError("DG1 without its MRZ (5F1F)")
    try:
        text = mrz.decode("ascii")
    except UnicodeDecodeError as err:
        raise LdsError("DG1's MRZ is not ASCII") from err
    if len(text) not in (72, 88, 90) or any(
        not (c.isupper() or c.isdigit() or c == "<") for c in text
    ):
        raise LdsError("DG1's MRZ is not an MRZ")
    return text


def build_dg1(mrz: str) -> bytes:
    """DG1 holding ``mrz`` (its lines joined, or given as one string)."""
    joined = "".join(mrz.split())
    return build_tlv(DG_TAGS[1], build_tlv(0x5F1F, joined.encode("ascii")))


def _image_kind(image: bytes) -> str | None:
    if image.startswith(b"\xff\xd8"):
        return JPEG
    if image.startswith(_JP2_SIGNATURES):
        return JP2
    return None


def _face_image(record: bytes) -> tuple[bytes, str]:
    """The image of an ISO/IEC 19794-5 facial record (or a bare image)."""
    kind = _image_kind(record)
    if kind is not None:
        return record, kind
    if record.startswith(_FACE_HEADER) and len(record) >= 14:
        # general header (14 bytes), then the first facial record: its block length (4),
        # feature-point count (2) and 14 more bytes, the feature points (8 each), and the
        # image information (12 bytes) before the image (ISO/IEC 19794-5:2005 §5.4-5.7).
        pos = 14
        if pos + 20 <= len(record):
            points = int.from_bytes(record[pos + 4 : pos + 6], "big")
            start = pos + 20 + 8 * points + 12
            kind = _image_kind(record[start:])
            if kind is not None:
                return record[start:], kind
    # an unusual header: the first image signature after it
    for marker, mime in ((b"\xff\xd8\xff", JPEG), *((s, JP2) for s in _JP2_SIGNATURES)):
        at = record.find(marker, 4)
        if at >= 0:
            return record[at:], mime
    raise LdsError("DG2 holds no JPEG or JPEG 2000 image")


def dg2_face(dg2: bytes) -> tuple[bytes, str]:
    """DG2's first face: (image bytes, ``"image/jpeg"`` or ``"image/jp2"``)."""
    group = _children(_expect(dg2, DG_TAGS[2]))
    bit_group = group.get(0x7F61)
    if bit_group is None:
        raise LdsError("DG2 without a biometric information group template (7F61)")
    inner = _children(bit_group)
    template = inner.get(0x7F60)
    if template is None:
        raise LdsError("DG2 without a biometric information template (7F60)")
    fields = _children(template)
    record = fields.get(0x5F2E, fields.get(0x7F2E))
    if record is None:
        raise LdsError("DG2 without biometric data (5F2E or 7F2E)")
    return _face_image(record)


def build_dg2(image: bytes, mime: str) -> bytes:
    """DG2 holding one face ``image`` (``"image/jpeg"`` or ``"image/jp2"``) in an
    ISO/IEC 19794-5 facial record, as a passport's chip holds it."""
    if mime not in (JPEG, JP2):
        raise LdsError("a face is a JPEG or a JPEG 2000 image")
    image_info = bytes([1, 0 if mime == JPEG else 1]) + bytes(10)  # full frontal, type
    facial = bytes(2) + bytes(14)  # no feature points; gender, eyes, hair, mask, pose...
    block = facial + image_info + image
    record = (
        _FACE_HEADER
        + b"010\x00"
        + (14 + 4 + len(block)).to_bytes(4, "big")
        + (1).to_bytes(2, "big")
        + (4 + len(block)).to_bytes(4, "big")
        + block
    )
    header = (
        build_tlv(0x80, b"\x01\x01")  # ICAO header version
        + build_tlv(0x81, b"\x02")  # biometric type: facial features
        + build_tlv(0x87, b"\x01\x01")  # format owner: ISO/IEC JTC 1/SC 37
        + build_tlv(0x88, b"\x00\x08")  # format type: face image
    )
    template = build_tlv(0x7F60, build_tlv(0xA1, header) + build_tlv(0x5F2E, record))
    return build_tlv(DG_TAGS[2], build_tlv(0x7F61, build_tlv(0x02, b"\x01") + template))


# -- EF.SOD's content (ICAO 9303-10 §4.6.2.2) ------------------------------------------------


class DataGroupHash(core.Sequence):  # type: ignore[misc]
    _fields: ClassVar[list[tuple[Any, ...]]] = [
        ("dataGroupNumber", core.Integer),
        ("dataGroupHashValue", core.OctetString),
    ]


class DataGroupHashValues(core.SequenceOf):  # type: ignore[misc]
    _child_spec = DataGroupHash


class LdsVersionInfo(core.Sequence):  # type: ignore[misc]
    _fields: ClassVar[list[tuple[Any, ...]]] = [
        ("ldsVersion", core.PrintableString),
        ("unicodeVersion", core.PrintableString),
    ]


class LdsSecurityObject(core.Sequence):  # type: ignore[misc]
    _fields: ClassVar[list[tuple[Any, ...]]] = [
        ("version", core.Integer),
        ("hashAlgorithm", algos.DigestAlgorithm),
        ("dataGroupHashValues", DataGroupHashValues),
        ("ldsVersionInfo", LdsVersionInfo, {"optional": True}),
    ]

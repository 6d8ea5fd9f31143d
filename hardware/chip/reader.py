"""Reading a document's chip from the card on the reader to the verdict's chip check.

:func:`read_chip` follows ICAO 9303-11 §4.2 (the inspection procedure): EF.CardAccess is
read in the clear from the master file; PACE is run where it offers it, then the eMRTD
application is selected under secure messaging; a chip without EF.CardAccess has its
application selected in the clear and BAC opens it. Then EF.COM, DG1, DG2 and EF.SOD are
read (DG14 and DG15 when EF.COM lists them), passive authentication checks them (Doc 9303
-11 §5.1), chip authentication (§6.2) proves the chip is not a copy where DG14 was proven,
and DG1 is compared with the MRZ printed on the document.

Any :class:`ChipError` ends in a :class:`ChipRead` with its code: nothing is raised to
the desk. The photo is returned in memory for the screen and nowhere else.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol

from admission.chip import ChipAuthentication, ChipCheck, ChipCode, ChipStatus, status_of
from admission.devices import DeviceStatus
from hardware.chip.access import AccessKey, CanKey, MrzKey
from hardware.chip.apdu import SW_OK, ChipError, CountingTransport, Transport, command
from hardware.chip.chip_auth import chip_authenticate
from hardware.chip.lds import (
    SHORT_IDS,
    LdsError,
    dg1_mrz,
    dg2_face,
    dg_number,
    parse_com,
)
from hardware.chip.passive import TrustStore, verify_document
from hardware.chip.securityinfo import supported_pace
from hardware.chip.session import open_session
from hardware.chip.sm import Session

__all__ = [
    "EMRTD_AID",
    "ChipCard",
    "ChipRead",
    "ChipReaderDevice",
    "FileReader",
    "ReaderStation",
    "mrz_key",
    "read_chip",
]

EMRTD_AID = bytes.fromhex("A0000002471001")  # ICAO 9303-10 §3.6.1: the eMRTD application

# A short READ BINARY asks 223 bytes: under secure messaging the protected answer (the
# padded data in DO87, DO99, DO8E and SW) still fits a 256-byte short response.
SHORT_CHUNK = 0xDF
# Where the chip takes extended length, 4 kB per command; a chip whose buffer is smaller
# answers fewer bytes and the reading goes on from there.
EXTENDED_CHUNK = 0x1000
_HEADER = 8  # enough for any file's tag and a length of up to 4 bytes
_SW_END_OF_FILE = 0x6282
_SW_WRONG_LENGTH = 0x6700
_SW_NOT_FOUND = (0x6A82, 0x6A88)
_SW_WRONG_OFFSET = 0x6B00
_SW_DENIED = (0x6982, 0x6985)


@dataclass(frozen=True)
class ChipRead:
    """What one read gave: the check for the verdict and the audit, and for the screen
    only the MRZ and the photo (memory only: never stored, logged, exported, printed)."""

    check: ChipCheck
    mrz: str = ""
    photo: bytes = field(default=b"", repr=False)
    photo_mime: str = ""
    apdus: int = 0
    bytes_in: int = 0  # what the chip answered
    bytes_out: int = 0  # what we sent
    timings: Mapping[str, float] = field(default_factory=dict)  # seconds by phase


class FileReader:
    """One file at a time over a transport, learning whether extended length works."""

    def __init__(self, transport: Transport, *, extended: bool) -> None:
        self.transport = transport
        self.extended = extended

    def read(self, name: str, *, optional: bool = False) -> bytes | None:
        """The file ``name`` whole (its first TLV), ``None`` when the chip has none; a
        file the chip ends early is returned as far as it went (passive authentication
        then says what is wrong with it). ``optional``: any refusal means "none" (EF.
        CardAccess, which a chip without PACE may answer with any error)."""
        head, sw = self._binary(SHORT_IDS[name], 0, _HEADER, by_sfi=True)
        if sw in _SW_NOT_FOUND or (optional and sw not in (SW_OK, _SW_END_OF_FILE)):
            return None
        if sw in _SW_DENIED:
            raise ChipError(ChipCode.ACCESS_DENIED, f"{name}: reading refused ({sw:04X})")
        if sw not in (SW_OK, _SW_END_OF_FILE):
            raise ChipError(ChipCode.READER_ERROR, f"{name}: READ BINARY answered {sw:04X}")
        total = _tlv_size(head)
        if total is None:
            return head
        content = bytearray(head[:total])
        while len(content) < total:
            want = min(total - len(content), EXTENDED_CHUNK if self.extended else SHORT_CHUNK)
            data, sw = self._binary(0, len(content), want, by_sfi=False)
            if sw == _SW_WRONG_LENGTH and self.extended:
                self.extended = False  # the chip takes short commands only
                continue
            if sw not in (SW_OK, _SW_END_OF_FILE) or not data:
                break  # the file ends before its declared length (truncated)
            content += data[: total - len(content)]
        return bytes(content)

    def _binary(self, sfi: int, offset: int, length: int, *, by_sfi: bool) -> tuple[bytes, int]:
        if by_sfi:  # ISO 7816-4 §11.3.3: P1 = 100 + short file id, P2 = the offset
            apdu = command(0x00, 0xB0, 0x80 | sfi, offset, le=length)
            return _split(self.transport.transmit(apdu))
        if offset <= 0x7FFF:
            apdu = command(0x00, 0xB0, offset >> 8, offset & 0xFF, le=length)
            return _split(self.transport.transmit(apdu))
        # beyond 32767 the offset no longer fits P1-P2: the odd INS with a DO54 offset,
        # the answer inside a DO53 (ISO 7816-4 §11.3.3)
        if not self.extended:
            length = min(length, SHORT_CHUNK - 3)  # DO53's tag and a 0x81 length
        header = 2 if length < 0x80 else 3 if length <= 0xFF else 4
        data_object = b"\x54" + bytes((3,)) + offset.to_bytes(3, "big")
        if offset <= 0xFFFF:
            data_object = b"\x54\x02" + offset.to_bytes(2, "big")
        apdu = command(0x00, 0xB1, 0, 0, data_object, le=length + header)
        data, sw = _split(self.transport.transmit(apdu))
        if sw not in (SW_OK, _SW_END_OF_FILE) or not data:
            return data, sw
        try:
            value = _do53(data)
        except ValueError:
            raise ChipError(ChipCode.READER_ERROR, "odd READ BINARY without its DO53") from None
        return value, sw


def _split(resp: bytes) -> tuple[bytes, int]:
    if len(resp) < 2:
        raise ChipError(ChipCode.CHIP_SILENT, "an answer without a status word")
    return resp[:-2], int.from_bytes(resp[-2:], "big")


def _tlv_size(head: bytes) -> int | None:
    """The whole size of the TLV ``head`` begins (tag, length and value), None when the
    bytes do not begin one."""
    if len(head) < 2:
        return None
    i = 1
    if head[0] & 0x1F == 0x1F:
        while i < len(head) and head[i] & 0x80:
            i += 1
        i += 1
    if i >= len(head):
        return None
    first = head[i]
    if first < 0x80:
        return i + 1 + first
    count = first & 0x7F
    if not 1 <= count <= 3 or i + 1 + count > len(head):
        return None
    return i + 1 + count + int.from_bytes(head[i + 1 : i + 1 + count], "big")


def _do53(data: bytes) -> bytes:
    """The value of the DO53 an odd READ BINARY answers (as much of it as came)."""
    if len(data) < 2 or data[0] != 0x53:
        raise ValueError("no DO53")
    length_bytes = 1 if data[1] < 0x80 else 1 + (data[1] & 0x7F)
    return data[1 + length_bytes :]


def mrz_key(mrz: str) -> MrzKey:
    """The BAC/PACE key in a printed MRZ (TD1 90, TD2 72 or TD3 88 characters, lines
    joined or not). ValueError when it is none of those."""
    text = "".join(mrz.split()).upper()
    if len(text) == 90:  # TD1: number in line 1, dates in line 2
        number = text[5:14]
        if text[14] == "<":  # a number longer than 9: the rest in the optional data
            number += text[15:30].split("<", 1)[0][:-1]
        birth, expiry = text[30:36], text[38:44]
    elif len(text) in (72, 88):  # TD2, TD3: all in line 2
        second = text[len(text) // 2 :]
        number, birth, expiry = second[0:9], second[13:19], second[21:27]
    else:
        raise ValueError("not a TD1, TD2 or TD3 MRZ")
    return MrzKey(number.rstrip("<") or number, birth, expiry)


def read_chip(
    transport: Transport,
    key: AccessKey,
    trust: TrustStore | None,
    *,
    printed_mrz: str | None,
    at: datetime,
    clock: Callable[[], float] = time.perf_counter,
    extended: bool = True,
) -> ChipRead:
    """The whole read (see the module). ``printed_mrz``: the MRZ read from the document's
    face, compared with DG1 (None: not compared). ``extended``: try extended length
    (falls back to short commands when the chip refuses it). Never raises ChipError."""
    counting = CountingTransport(transport)
    timings: dict[str, float] = {}
    access = ""
    start = clock()
    phase = "channel"
    try:
        session = _open(counting, key)
        access = session.access
        timings["channel"] = clock() - start
        phase, mark = "reading", clock()
        files = _read_files(FileReader(session, extended=extended))
        timings["reading"] = clock() - mark
        phase, mark = "verification", clock()
        check, mrz, photo, mime, dg14_proven = _verify(files, trust, printed_mrz, at, access)
        if dg14_proven and not check.forged:
            check = _chip_authenticate(check, files["DG14"], session, counting)
        timings["verification"] = clock() - mark
    except ChipError as error:
        timings[phase] = clock() - (start if phase == "channel" else mark)
        return ChipRead(
            check=ChipCheck(code=error.code, access=access),
            apdus=counting.apdus,
            bytes_in=counting.bytes_received,
            bytes_out=counting.bytes_sent,
            timings=timings,
        )
    return ChipRead(
        check=check,
        mrz=mrz,
        photo=photo,
        photo_mime=mime,
        apdus=counting.apdus,
        bytes_in=counting.bytes_received,
        bytes_out=counting.bytes_sent,
        timings=timings,
    )


def _select_applet(transport: Transport) -> None:
    resp = transport.transmit(command(0x00, 0xA4, 0x04, 0x0C, EMRTD_AID))
    if _split(resp)[1] != SW_OK:
        raise ChipError(ChipCode.NO_CHIP, "the card has no eMRTD application")


def _open(transport: CountingTransport, key: AccessKey) -> Session:
    """EF.CardAccess from the MF, PACE then SELECT under SM; without it SELECT then BAC."""
    card_access = FileReader(transport, extended=False).read("CardAccess", optional=True)
    if supported_pace(card_access) is not None:
        session = open_session(transport, key, card_access)
        _select_applet(session)
        return session
    # no EF.CardAccess, or no PACE we run in it: BAC inside the application (§4.2)
    _select_applet(transport)
    return open_session(transport, key, None)


def _read_files(reader: FileReader) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    com = reader.read("COM")
    wanted = ["DG1", "DG2"]
    if com is not None:
        files["COM"] = com
        try:
            listed = {dg_number(tag) for tag in parse_com(com)}
        except (LdsError, ValueError):
            listed = set()
        wanted += [f"DG{n}" for n in (14, 15) if n in listed]
    for name in (*wanted, "SOD"):
        content = reader.read(name)
        if content is not None:
            files[name] = content
    return files


def _verify(
    files: Mapping[str, bytes],
    trust: TrustStore | None,
    printed_mrz: str | None,
    at: datetime,
    access: str,
) -> tuple[ChipCheck, str, bytes, str, bool]:
    groups = {int(name[2:]): data for name, data in files.items() if name.startswith("DG")}
    result = verify_document(files.get("SOD", b""), groups, trust, at)
    code = result.code
    mrz = ""
    if "DG1" in files:
        try:
            mrz = dg1_mrz(files["DG1"])
        except (LdsError, ValueError):
            mrz = ""
    if printed_mrz is not None and "DG1" in files and status_of(code) is not ChipStatus.FORGED:
        printed = "".join(printed_mrz.split()).upper()
        if mrz != printed:
            code = ChipCode.DG1_MRZ_MISMATCH  # forged wins over not verifiable
    photo, mime = b"", ""
    if "DG2" in files:
        try:
            photo, mime = dg2_face(files["DG2"])
        except (LdsError, ValueError):
            photo, mime = b"", ""
    check = ChipCheck(code=code, access=access, issuer=result.issuer)
    return check, mrz, photo, mime, 14 in result.hashed and "DG14" in files


def _chip_authenticate(
    check: ChipCheck, dg14: bytes, session: Session, transport: Transport
) -> ChipCheck:
    """Chip authentication (§6.2) with DG14's key, once passive authentication proved DG14:
    a chip that cannot prove it holds the private key is a copy (CHIP_AUTH_FAILED)."""
    try:
        chip_authenticate(session, transport, dg14)
    except ChipError as error:
        if error.code is not ChipCode.CHIP_AUTH_FAILED:
            raise
        return replace(check, code=ChipCode.CHIP_AUTH_FAILED)
    return replace(check, authentication=ChipAuthentication.CHIP_AUTHENTICATION)


class ChipCard(Protocol):
    """A connected card: a transport that is closed when the read is done."""

    def transmit(self, apdu: bytes) -> bytes: ...

    def close(self) -> None: ...


class ChipReaderDevice(Protocol):
    """A chip reader (``pcsc.PcscChipReader``, ``fake.FakeChipReader``) as a read uses it."""

    def preflight(self) -> DeviceStatus: ...

    def wait_for_card(self, timeout: float) -> bool: ...

    def connect(self) -> ChipCard: ...


class ReaderStation:
    """A chip reader and :func:`read_chip` together: the desk's chip station (its
    ``preflight`` and one whole ``read`` that never raises for a chip's fault).

    ``trust``: the CSCAs at hand when a read starts (the imported master list; None when
    there is none). ``card_timeout``: how long a read waits for the card to be put on."""

    def __init__(
        self,
        device: ChipReaderDevice,
        trust: Callable[[], TrustStore | None],
        *,
        card_timeout: float = 2.0,
        clock: Callable[[], float] = time.perf_counter,
        trust_warning: Callable[[], str] = lambda: "",
    ) -> None:
        self.device = device
        self.trust = trust
        self.card_timeout = card_timeout
        self.clock = clock
        self._trust_warning = trust_warning

    def preflight(self) -> DeviceStatus:
        return self.device.preflight()

    def trust_warning(self) -> str:
        """Why the CSCAs at hand prove less than they should ("" when they are fine): a
        master list that is stale, missing or not the audited one (the status bar's)."""
        return self._trust_warning()

    def read(
        self,
        *,
        document_number: str,
        birth: str,
        expiry: str,
        can: str,
        printed_mrz: str | None,
        at: datetime,
    ) -> ChipRead:
        """The chip of the document on the reader, opened with the CAN when one is given,
        else with the MRZ's number and dates (YYMMDD)."""
        try:
            key: AccessKey = CanKey(can) if can else MrzKey(document_number, birth, expiry)
        except ValueError:
            return ChipRead(check=ChipCheck(code=ChipCode.ACCESS_DENIED))
        try:
            if not self.device.wait_for_card(self.card_timeout):
                return ChipRead(check=ChipCheck(code=ChipCode.NO_CHIP))
            card = self.device.connect()
        except ChipError as error:
            return ChipRead(check=ChipCheck(code=error.code))
        try:
            return read_chip(
                card, key, self.trust(), printed_mrz=printed_mrz, at=at, clock=self.clock
            )
        finally:
            card.close()

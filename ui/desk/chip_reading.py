"""The document's chip at the desk: read after the document, before its verdict.

When a chip reader is configured, every document read is followed by a read of its chip
(ICAO 9303) on the chip reader's own worker thread - never the GUI thread (STYLE.md
rules 10-12) - and the document is evaluated carrying what the chip proved
(``IdentityDocument.chip``, art. 23.1). The access key is the printed MRZ's document
number, birth and expiry dates (BAC or PACE); a chip that answers only to its CAN (the
Spanish DNI 3.0/4.0) makes the window ask for the 6 digits printed on its front, once per
document: the CAN is remembered for that document only, until another document is read.

The chip's photo (DG2) is decoded on the reader's thread and handed to the window in
memory only (``chip_read``): never stored, logged, exported or printed; the window drops
it with the verdict. Only the chip's result (status, code, access, clone check, issuer)
reaches the verdict and the audit.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from admission.chip import ChipCheck, ChipCode
from admission.devices import DeviceStatus
from admission.documents import IdentityDocument
from admission.errors import AdmissionError
from admission.identity import IdentityKey
from admission.ports import Clock
from ui.desk.jobs import JobRunner

__all__ = [
    "CAN_DIGITS",
    "ChipReading",
    "ChipShown",
    "ChipStation",
    "DeskChip",
    "photo_image",
    "valid_can",
]

log = logging.getLogger(__name__)
CAN_DIGITS = 6  # the card access number printed on the front (ICAO 9303-11 §4.4)
MAX_PHOTO_BYTES = 200_000  # a DG2 face is 10-30 kB; anything larger is not shown


class ChipReading(Protocol):
    """What the desk takes of a chip read (``hardware.chip.reader.ChipRead``)."""

    @property
    def check(self) -> ChipCheck: ...
    @property
    def photo(self) -> bytes: ...
    @property
    def photo_mime(self) -> str: ...


class ChipStation(Protocol):
    """The chip reader as the desk uses it (built by ``main.py`` over ``hardware.chip``):
    its state for the status bar, and one whole read of the chip on it. ``read`` never
    raises for a chip's or a reader's fault: the check carries its code."""

    def preflight(self) -> DeviceStatus: ...

    def trust_warning(self) -> str:
        """ "" or the code of what is wrong with the CSCAs the reads trust (art. 23.1):
        a stale, missing or swapped master list, shown in the status bar."""
        ...

    def read(
        self,
        *,
        document_number: str,
        birth: str,
        expiry: str,
        can: str,
        printed_mrz: str | None,
        at: datetime,
    ) -> ChipReading: ...


@dataclass(frozen=True)
class ChipShown:
    """What the window shows beside the verdict of ``identity``: the chip's result and
    its photo (memory only; None when the chip gave none)."""

    identity: IdentityKey
    check: ChipCheck
    photo: QImage | None


def valid_can(text: str) -> bool:
    """Six digits, nothing else (ICAO 9303-11 §4.4: the CAN printed on the card)."""
    return len(text) == CAN_DIGITS and text.isascii() and text.isdigit()


def photo_image(photo: bytes, mime: str) -> QImage | None:
    """The chip's face as an image, in memory: JPEG by Qt, JPEG 2000 by Pillow (Qt reads
    no JP2). None when it cannot be decoded: the verdict goes on without a photo."""
    if not photo or len(photo) > MAX_PHOTO_BYTES:
        return None
    if mime != "image/jp2":
        image = QImage.fromData(photo)
        if not image.isNull():
            return image
    try:
        from PIL import Image

        with Image.open(io.BytesIO(photo)) as decoded:
            rgb = decoded.convert("RGB")
            width, height = rgb.size
            data = rgb.tobytes()
    except Exception as err:  # a malformed face: no photo, never a crash
        log.warning("chip photo not decoded: %s", type(err).__name__)
        return None
    return QImage(data, width, height, width * 3, QImage.Format.Format_RGB888).copy()


def _yymmdd(value: object) -> str:
    strftime = getattr(value, "strftime", None)
    return str(strftime("%y%m%d")) if strftime is not None else ""


_Asking = tuple[IdentityDocument, str | None, Callable[[IdentityDocument], None]]


@dataclass(frozen=True)
class _Read:
    check: ChipCheck
    photo: QImage | None


class DeskChip(QObject):
    """Reads the chip of the document being checked, on the chip reader's runner.

    ``read(document, printed_mrz, done)`` calls ``done`` with the document carrying its
    chip's result once read (or once the clerk declined to give the CAN); the photo goes
    to ``chip_read`` first. A CAN the chip asks for is asked through ``can_requested``: the
    window answers with :meth:`give_can` (None: the clerk declined)."""

    chip_read = Signal(object)  # ChipShown, just before the document is evaluated
    can_requested = Signal(object)  # IdentityDocument whose chip answers only to its CAN

    def __init__(
        self,
        station: ChipStation,
        runner: JobRunner,
        clock: Clock,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.station = station
        self._runner = runner
        self._clock = clock
        self._can: tuple[IdentityKey, str] | None = None  # the document on the desk's CAN
        # the read waiting for the clerk's CAN: (document, printed MRZ, done)
        self._asking: _Asking | None = None
        self._ticket = 0  # a read dropped (``cancel``) answers nobody

    @property
    def asking(self) -> IdentityDocument | None:
        """The document whose CAN the window is asking for, if any."""
        return self._asking[0] if self._asking is not None else None

    def can_of(self, identity: IdentityKey) -> str:
        return self._can[1] if self._can is not None and self._can[0] == identity else ""

    def read(
        self,
        document: IdentityDocument,
        printed_mrz: str | None,
        done: Callable[[IdentityDocument], None],
    ) -> None:
        if self._can is not None and self._can[0] != document.identity:
            self._can = None  # another document: the last one's CAN is forgotten
        self._asking = None
        self._ticket += 1
        ticket = self._ticket
        can = self.can_of(document.identity)
        station, at = self.station, self._clock.now()
        number, birth = document.document_number, _yymmdd(document.birth_date)
        expiry = _yymmdd(document.expiry_date)

        def job() -> _Read:
            got = station.read(
                document_number=number,
                birth=birth,
                expiry=expiry,
                can=can,
                printed_mrz=printed_mrz,
                at=at,
            )
            return _Read(got.check, photo_image(got.photo, got.photo_mime))

        def answered(read: _Read) -> None:
            if ticket != self._ticket:
                return
            if read.check.code is ChipCode.CAN_NEEDED and not can:
                self._asking = (document, printed_mrz, done)
                self.can_requested.emit(document)
                return
            if can and read.check.code is ChipCode.ACCESS_DENIED:
                self._can = None  # mistyped: the next read of this document asks again
            self.chip_read.emit(ChipShown(document.identity, read.check, read.photo))
            done(replace(document, chip=read.check))

        def failed(err: AdmissionError) -> None:  # the station's bug: said as a reader error
            if ticket == self._ticket:
                log.warning("chip read failed: %s", err.code)
                check = ChipCheck(ChipCode.READER_ERROR)
                self.chip_read.emit(ChipShown(document.identity, check, None))
                done(replace(document, chip=check))

        self._runner.submit(job, answered, failed)

    def give_can(self, can: str | None) -> None:
        """The clerk's answer to ``can_requested``: the chip is read again with the CAN, or
        (None, or not six digits) the document is evaluated with the chip unread."""
        asking, self._asking = self._asking, None
        if asking is None:
            return
        document, printed_mrz, done = asking
        if can is None or not valid_can(can):
            check = ChipCheck(ChipCode.CAN_NEEDED)
            self.chip_read.emit(ChipShown(document.identity, check, None))
            done(replace(document, chip=check))
            return
        self._can = (document.identity, can)
        self.read(document, printed_mrz, done)

    def cancel(self) -> None:
        """The document's check was dropped (cleared, signed out): its read answers
        nobody, and a CAN being asked for is not waited for."""
        self._ticket += 1
        self._asking = None

    def forget(self) -> None:
        """The document left the desk: its CAN is forgotten."""
        self.cancel()
        self._can = None

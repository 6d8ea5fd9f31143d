"""The demo's chip reader: the chip of each invented document, made when it is read.

``python main.py --demo`` shows the chip at work without a card: whenever the desk reads
an invented document's chip, :class:`DemoChipStation` makes that document's ICAO 9303
chip (``hardware.chip.virtual_chip.make_document``: DG1 = the printed MRZ, DG2 = an
invented face, EF.SOD signed by a demo CSCA of its issuer) and puts it on a
:class:`~hardware.chip.fake.FakeChipReader`; the read itself is the product's own
(:class:`~hardware.chip.reader.ReaderStation`: PACE or BAC, secure messaging, passive
authentication against the demo CSCA of the document's issuing state - one per state, as
a master list holds them; a state without an ISO country code gets no chip). The chips
open with the MRZ (PACE and BAC), so the demo never stops to ask a CAN. Nothing here is a
real person; the face is drawn.
"""

from __future__ import annotations

import io
import random
import threading
import zlib
from datetime import datetime

from PIL import Image, ImageDraw

from admission.chip import ChipCheck, ChipCode
from admission.devices import DeviceStatus
from hardware.chip.countries import icao_country
from hardware.chip.document_pki import DocumentPki, make_pki
from hardware.chip.fake import FakeChipReader
from hardware.chip.passive import TrustStore
from hardware.chip.reader import ChipRead, ReaderStation
from hardware.chip.virtual_chip import make_document

__all__ = ["DemoChipStation", "invented_face"]

_SKIN = ((241, 194, 160), (224, 172, 130), (198, 144, 104), (141, 96, 66), (255, 219, 186))
_HAIR = ((40, 30, 25), (90, 60, 35), (160, 120, 70), (200, 180, 140), (120, 120, 120))


def invented_face(seed: int, size: tuple[int, int] = (240, 320)) -> bytes:
    """A drawn face (not a person) as a JPEG, as a chip's DG2 holds it (ISO/IEC 19794-5
    proportions: the head about two thirds of the height, a plain light ground)."""
    rng = random.Random(seed)
    width, height = size
    image = Image.new("RGB", size, (206 + rng.randint(-10, 10), 214, 224))
    draw = ImageDraw.Draw(image)
    skin, hair = rng.choice(_SKIN), rng.choice(_HAIR)
    cx, top = width // 2, int(height * 0.16)
    head_w, head_h = int(width * rng.uniform(0.52, 0.62)), int(height * 0.6)
    draw.rectangle((cx - head_w // 2 - 12, height - 50, cx + head_w // 2 + 12, height), fill=hair)
    draw.ellipse((cx - head_w // 2, top, cx + head_w // 2, top + head_h), fill=skin)
    draw.chord(
        (cx - head_w // 2 - 4, top - 16, cx + head_w // 2 + 4, top + head_h // 2), 180, 360, hair
    )
    eye_y = top + int(head_h * 0.45)
    for side in (-1, 1):
        ex = cx + side * head_w // 5
        draw.ellipse((ex - 10, eye_y - 6, ex + 10, eye_y + 6), fill=(250, 250, 250))
        draw.ellipse((ex - 5, eye_y - 5, ex + 5, eye_y + 5), fill=(50, 40, 30))
    draw.line((cx, eye_y + 8, cx - 6, eye_y + 40, cx + 4, eye_y + 42), fill=(150, 100, 80), width=3)
    mouth_y = top + int(head_h * 0.75)
    draw.arc((cx - 26, mouth_y - 14, cx + 26, mouth_y + 10), 20, 160, fill=(140, 60, 60), width=4)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=88)
    return out.getvalue()


def _alpha2_of() -> dict[str, str]:
    """ICAO 9303 issuer code -> ISO 3166 alpha-2 (a certificate's C=)."""
    letters = [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    pairs = ((icao_country(a + b), a + b) for a in letters for b in letters)
    return {icao: alpha2 for icao, alpha2 in pairs if icao}


class DemoChipStation:
    """A chip station (``ui.desk.chip_reading.ChipStation``) whose card is always the
    invented document just read. A state's demo CSCA is made on its first document's
    read, on the chip reader's thread."""

    def __init__(self, *, now: datetime | None = None) -> None:
        self.reader = FakeChipReader()
        self._now = now
        self._pkis: dict[str, DocumentPki] = {}  # by alpha-2 country
        self._alpha2 = _alpha2_of()
        self._lock = threading.Lock()
        self.station = ReaderStation(self.reader, self._trust, card_timeout=0.0)
        self.made = 0  # chips made (tests)

    def _signer(self, country: str) -> DocumentPki:
        with self._lock:
            if country not in self._pkis:
                self._pkis[country] = make_pki(country, now=self._now)
            return self._pkis[country]

    def _trust(self) -> TrustStore | None:
        """Every demo CSCA made so far, as one master list holds many states'."""
        with self._lock:
            pkis = list(self._pkis.values())
        return TrustStore(cscas=tuple(p.csca for p in pkis), crls=tuple(p.crl for p in pkis))

    def preflight(self) -> DeviceStatus:
        return self.station.preflight()

    def trust_warning(self) -> str:
        return ""  # the demo's own CSCAs, made for its invented documents

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
        """The chip of the document whose MRZ was printed (none without one: a typed
        document has no demo chip, NO_CHIP)."""
        country = self._alpha2.get(printed_mrz[2:5].replace("<", "")) if printed_mrz else None
        if country is None or printed_mrz is None:
            return ChipRead(check=ChipCheck(ChipCode.NO_CHIP))
        try:
            chip, _trust = make_document(
                printed_mrz,
                invented_face(zlib.crc32(printed_mrz.encode())),
                access="PACE+BAC",
                pki=self._signer(country),
                country=country,
                chip_auth=True,
            )
        except ValueError:  # not an MRZ a chip holds
            return ChipRead(check=ChipCheck(ChipCode.NO_CHIP))
        self.made += 1
        self.reader.remove()
        self.reader.put(chip)
        try:
            return self.station.read(
                document_number=document_number,
                birth=birth,
                expiry=expiry,
                can=can,
                printed_mrz=printed_mrz,
                at=at,
            )
        finally:
            self.reader.remove()

"""Barcode decoding behind a port (issue 4): the card code (QR / Code 128), AAMVA PDF417.

Port :class:`BarcodeDecoder` takes the plain :class:`admission.frames.Frame` value and
returns :class:`DecodedBarcode` values; no library type crosses it (STYLE.md rule 7).
Adapters: ``zxing.ZxingDecoder`` (zxing-cpp, the default: it wins the benchmark in
``tests/bench/bench_barcodes.py`` -- 44/48 symbols of the shared real photos against 29/48,
no misread against one, 10/10 PDF417 against 0/10, so it is the only one that reads
driving licences, plus Data Matrix and Aztec), ``zbar.ZbarDecoder`` (pyzbar, selectable;
it reads one blurred EAN-13 and one QR that zxing-cpp 2.3 misses),
``FallbackDecoder`` (one, then the other when the first finds nothing) and
``fake.FakeDecoder``. :func:`make_decoder` builds one by name; ``main.py`` calls it.

Decoded text is untrusted: it is bounded (:data:`MAX_TEXT`) and must be shown as plain
text only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from admission.errors import ConfigError, DeviceError
from admission.frames import Frame

__all__ = [
    "DEFAULT_DECODER",
    "MAX_TEXT",
    "BarcodeDecoder",
    "DecodedBarcode",
    "DecoderStatus",
    "FallbackDecoder",
    "Symbology",
    "make_decoder",
]

DEFAULT_DECODER = "zxing"
MAX_TEXT = 8192  # QR holds at most 7089 digits; longer "decodes" are dropped


class Symbology(StrEnum):
    QR_CODE = "QR_CODE"
    PDF417 = "PDF417"
    CODE128 = "CODE128"
    DATA_MATRIX = "DATA_MATRIX"
    AZTEC = "AZTEC"
    EAN13 = "EAN13"
    EAN8 = "EAN8"
    UPC_A = "UPC_A"
    UPC_E = "UPC_E"
    CODE39 = "CODE39"
    CODE93 = "CODE93"
    ITF = "ITF"
    CODABAR = "CODABAR"
    OTHER = "OTHER"


class DecoderStatus(StrEnum):
    READY = "READY"
    NOT_FOUND = "NOT_FOUND"  # the library (or its shared object) is not installed
    ERROR = "ERROR"


@dataclass(frozen=True, slots=True)
class DecodedBarcode:
    symbology: Symbology
    text: str  # as the symbol encodes it (UTF-8 / Latin-1 / ECI resolved by the decoder)
    data: bytes  # raw bytes, for formats with binary content
    corners: tuple[tuple[int, int], ...] = ()  # in frame pixels, for an overlay

    def __repr__(self) -> str:  # content may be personal data (AAMVA): keep it out of logs
        return f"DecodedBarcode({self.symbology}, {len(self.text)} chars)"


class BarcodeDecoder(Protocol):
    """Finds and decodes every barcode in one frame."""

    @property
    def name(self) -> str: ...

    def preflight(self) -> DecoderStatus: ...

    def decode(self, frame: Frame) -> Sequence[DecodedBarcode]:
        """All symbols found, in no particular order; raises DeviceError on library failure."""
        ...


class FallbackDecoder:
    """Ask ``primary``; when it finds nothing, ask ``secondary``."""

    def __init__(self, primary: BarcodeDecoder, secondary: BarcodeDecoder) -> None:
        self.primary = primary
        self.secondary = secondary

    @property
    def name(self) -> str:
        return f"{self.primary.name}+{self.secondary.name}"

    def preflight(self) -> DecoderStatus:
        return self.primary.preflight()

    def decode(self, frame: Frame) -> Sequence[DecodedBarcode]:
        found = self.primary.decode(frame)
        if found:
            return found
        try:
            return self.secondary.decode(frame)
        except DeviceError:
            return ()


def make_decoder(name: str = DEFAULT_DECODER) -> BarcodeDecoder:
    """``zxing`` (default), ``zbar``, ``zxing+zbar`` or ``zbar+zxing``."""
    if "+" in name:
        first, second = name.split("+", 1)
        return FallbackDecoder(make_decoder(first), make_decoder(second))
    if name == "zxing":
        from hardware.barcode.zxing import ZxingDecoder

        return ZxingDecoder()
    if name == "zbar":
        from hardware.barcode.zbar import ZbarDecoder

        return ZbarDecoder()
    raise ConfigError(f"unknown barcode decoder {name!r}", code="UNKNOWN_DECODER")

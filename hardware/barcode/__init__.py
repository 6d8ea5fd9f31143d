"""Barcode decoding behind a port: the card code (QR / Code 128), AAMVA PDF417.

The port, :class:`admission.devices.BarcodeDecoder`, takes the plain
:class:`admission.frames.Frame` value and returns :class:`admission.devices.DecodedBarcode`
values; no library type crosses it (STYLE.md rule 7).
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
from enum import unique

from admission.codes import Code
from admission.devices import BarcodeDecoder, DecodedBarcode, DeviceStatus, Symbology
from admission.errors import ConfigError, DeviceError
from admission.frames import Frame
from hardware.barcode._image import MAX_TEXT

__all__ = [
    "DEFAULT_DECODER",
    "MAX_TEXT",
    "BarcodeConfigCode",
    "BarcodeDecoder",
    "DecodedBarcode",
    "FallbackDecoder",
    "Symbology",
    "make_decoder",
]

DEFAULT_DECODER = "zxing"


@unique
class BarcodeConfigCode(Code):
    """Why the configured barcode decoder cannot be built (a ``ConfigError``'s code)."""

    UNKNOWN_DECODER = "UNKNOWN_DECODER"  # not zxing, zbar, or two of them joined by +


class FallbackDecoder:
    """Ask ``primary``; when it finds nothing, ask ``secondary``."""

    def __init__(self, primary: BarcodeDecoder, secondary: BarcodeDecoder) -> None:
        self.primary = primary
        self.secondary = secondary

    @property
    def name(self) -> str:
        return f"{self.primary.name}+{self.secondary.name}"

    def preflight(self) -> DeviceStatus:
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
    raise ConfigError(f"unknown barcode decoder {name!r}", code=BarcodeConfigCode.UNKNOWN_DECODER)

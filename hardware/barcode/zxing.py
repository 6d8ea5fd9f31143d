"""zxing-cpp adapter (default decoder: see tests/bench/bench_barcodes.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from admission.devices import DecodedBarcode, DeviceErrorCode, DeviceStatus, Symbology
from admission.errors import DeviceError
from admission.frames import Frame
from hardware.barcode._image import MAX_TEXT, grey_array

__all__ = ["ZxingDecoder"]

_FORMATS = {
    "QRCode": Symbology.QR_CODE,
    "MicroQRCode": Symbology.QR_CODE,
    "PDF417": Symbology.PDF417,
    "Code128": Symbology.CODE128,
    "DataMatrix": Symbology.DATA_MATRIX,
    "Aztec": Symbology.AZTEC,
    "EAN13": Symbology.EAN13,
    "EAN8": Symbology.EAN8,
    "UPCA": Symbology.UPC_A,
    "UPCE": Symbology.UPC_E,
    "Code39": Symbology.CODE39,
    "Code93": Symbology.CODE93,
    "ITF": Symbology.ITF,
    "Codabar": Symbology.CODABAR,
}


# Everything in Symbology; not DataBar / DX film edge / MaxiCode, which find "codes" in
# plain noise (a random 320x240 frame decodes as DataBar).
DEFAULT_FORMATS = (
    "QRCode,MicroQRCode,PDF417,Code128,DataMatrix,Aztec,EAN13,EAN8,UPCA,UPCE,"
    "Code39,Code93,ITF,Codabar"
)


def _symbology(fmt: Any) -> Symbology:
    name = str(fmt).rsplit(".", 1)[-1]
    return _FORMATS.get(name, Symbology.OTHER)


def _corners(position: Any) -> tuple[tuple[int, int], ...]:
    try:
        points = (
            position.top_left,
            position.top_right,
            position.bottom_right,
            position.bottom_left,
        )
        return tuple((int(p.x), int(p.y)) for p in points)
    except AttributeError:
        return ()


class ZxingDecoder:
    """zxing-cpp: QR, PDF417, Code 128, Data Matrix, Aztec, EAN/UPC and more."""

    def __init__(
        self,
        *,
        formats: str = DEFAULT_FORMATS,
        try_rotate: bool = True,
        try_downscale: bool = True,
    ) -> None:
        self.formats = formats
        self.try_rotate = try_rotate
        self.try_downscale = try_downscale

    @property
    def name(self) -> str:
        return "zxing"

    def preflight(self) -> DeviceStatus:
        try:
            import zxingcpp  # type: ignore[import-not-found]  # noqa: F401  (a binary module, no hints)
        except ImportError:
            return DeviceStatus.NOT_FOUND
        return DeviceStatus.READY

    def decode(self, frame: Frame) -> Sequence[DecodedBarcode]:
        try:
            import zxingcpp

            image = grey_array(frame)
            results = zxingcpp.read_barcodes(
                image,
                formats=zxingcpp.barcode_formats_from_str(self.formats),
                try_rotate=self.try_rotate,
                try_downscale=self.try_downscale,
                text_mode=zxingcpp.TextMode.Plain,
            )
        except ImportError as exc:
            raise DeviceError(
                "zxing-cpp not installed", code=DeviceErrorCode.DECODER_NOT_FOUND
            ) from exc
        except Exception as exc:  # the binding raises plain RuntimeError/ValueError
            raise DeviceError(
                f"zxing-cpp failed: {type(exc).__name__}", code=DeviceErrorCode.DECODER_ERROR
            ) from exc
        out = []
        for result in results:
            text = str(result.text)
            if len(text) > MAX_TEXT:
                continue
            out.append(
                DecodedBarcode(
                    _symbology(result.format), text, bytes(result.bytes), _corners(result.position)
                )
            )
        return tuple(out)

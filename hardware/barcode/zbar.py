"""pyzbar (zbar) adapter: selectable; no Data Matrix, Aztec or (in practice) PDF417."""

from __future__ import annotations

from collections.abc import Sequence

from admission.devices import DecodedBarcode, DeviceErrorCode, DeviceStatus, Symbology
from admission.errors import DeviceError
from admission.frames import Frame
from hardware.barcode._image import MAX_TEXT, grey_array, text_of

__all__ = ["ZbarDecoder"]

_TYPES = {
    "QRCODE": Symbology.QR_CODE,
    "PDF417": Symbology.PDF417,
    "CODE128": Symbology.CODE128,
    "EAN13": Symbology.EAN13,
    "EAN8": Symbology.EAN8,
    "UPCA": Symbology.UPC_A,
    "UPCE": Symbology.UPC_E,
    "CODE39": Symbology.CODE39,
    "CODE93": Symbology.CODE93,
    "I25": Symbology.ITF,
    "CODABAR": Symbology.CODABAR,
    "ISBN13": Symbology.EAN13,
}


class ZbarDecoder:
    """zbar through pyzbar (needs the libzbar0 shared library)."""

    @property
    def name(self) -> str:
        return "zbar"

    def preflight(self) -> DeviceStatus:
        try:
            # loads libzbar: ImportError if missing; pyzbar ships no type hints
            from pyzbar import pyzbar  # type: ignore[import-untyped]  # noqa: F401
        except ImportError:
            return DeviceStatus.NOT_FOUND
        except OSError:
            return DeviceStatus.ERROR
        return DeviceStatus.READY

    def decode(self, frame: Frame) -> Sequence[DecodedBarcode]:
        try:
            from pyzbar import pyzbar

            image = grey_array(frame)
            results = pyzbar.decode((image.tobytes(), frame.width, frame.height))
        except ImportError as exc:
            raise DeviceError(
                "pyzbar/libzbar not installed", code=DeviceErrorCode.DECODER_NOT_FOUND
            ) from exc
        except Exception as exc:  # PyZbarError, OSError from the shared library
            raise DeviceError(
                f"zbar failed: {type(exc).__name__}", code=DeviceErrorCode.DECODER_ERROR
            ) from exc
        out = []
        for result in results:
            data = bytes(result.data)
            if len(data) > MAX_TEXT * 4:
                continue
            text = text_of(data)
            if len(text) > MAX_TEXT:
                continue
            corners = tuple((int(p.x), int(p.y)) for p in result.polygon)
            out.append(
                DecodedBarcode(_TYPES.get(result.type, Symbology.OTHER), text, data, corners)
            )
        return tuple(out)

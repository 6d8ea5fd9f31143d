"""Load still images for the reader, safely: bounded bytes, pixels and time.

Untrusted files (STYLE.md rule 14): a non-image, a truncated file or a huge photo gets a
reason code, never a crash or an unbounded allocation. EXIF orientation is honoured.
JPEGs larger than the reader needs are decoded at 1/2, 1/4 or 1/8 scale by the codec
itself (DCT scaling), so a 50-megapixel photo never lands in memory at full size.
"""

from __future__ import annotations

import io
from enum import unique
from pathlib import Path
from typing import cast

import cv2
import numpy as np
from cv2.typing import MatLike
from numpy.typing import NDArray

from admission.codes import Code

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_PIXELS = 120_000_000  # refuse beyond this (e.g. crafted PNG headers)
TARGET_LONG_SIDE = 2600  # decode big JPEGs down to about this


@unique
class ImageErrorCode(Code):
    """Why a still image cannot be read (``read-document``'s ``reason`` per file)."""

    NOT_AN_IMAGE = "NOT_AN_IMAGE"  # not an image, a folder, or not readable
    TRUNCATED_IMAGE = "TRUNCATED_IMAGE"  # the file is cut short
    IMAGE_TOO_LARGE = "IMAGE_TOO_LARGE"  # beyond MAX_FILE_BYTES or MAX_PIXELS
    FILE_NOT_FOUND = "FILE_NOT_FOUND"


# The members under their module-level names, for the callers and tests that import them.
NOT_AN_IMAGE = ImageErrorCode.NOT_AN_IMAGE
TRUNCATED_IMAGE = ImageErrorCode.TRUNCATED_IMAGE
IMAGE_TOO_LARGE = ImageErrorCode.IMAGE_TOO_LARGE
FILE_NOT_FOUND = ImageErrorCode.FILE_NOT_FOUND

_EXIF_ROTATIONS = {
    3: cv2.ROTATE_180,
    6: cv2.ROTATE_90_CLOCKWISE,
    8: cv2.ROTATE_90_COUNTERCLOCKWISE,
}


class ImageError(Exception):
    """An image that cannot be read; ``code`` says why."""

    def __init__(self, code: ImageErrorCode) -> None:
        super().__init__(code)
        self.code = code


def _header(data: bytes) -> tuple[str, int, int, int]:
    """(format, width, height, EXIF orientation) without decoding pixels."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as im:
            orientation = 1
            try:
                orientation = int(im.getexif().get(0x0112, 1))
            except Exception:  # a broken EXIF block only loses the orientation
                orientation = 1
            return str(im.format or ""), int(im.width), int(im.height), orientation
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as err:
        raise ImageError(ImageErrorCode.NOT_AN_IMAGE) from err
    except Image.DecompressionBombError as err:
        raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE) from err


def _truncated(fmt: str, data: bytes) -> bool:
    tail = data[-64:] if len(data) > 64 else data
    if fmt == "JPEG":
        return b"\xff\xd9" not in data[-4096:]
    if fmt == "PNG":
        return b"IEND" not in tail
    return False


def _to_bgr(img: MatLike) -> MatLike:
    if img.dtype != np.uint8:
        img = (img / 257).astype(np.uint8) if img.dtype == np.uint16 else img.astype(np.uint8)
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:  # composite transparency over white paper, not black
        alpha = img[:, :, 3:4].astype(np.float32) / 255.0
        rgb = img[:, :, :3].astype(np.float32)
        # numpy's stubs give this mixed float arithmetic as Any
        return cast(MatLike, (rgb * alpha + 255.0 * (1 - alpha)).astype(np.uint8))
    if img.shape[2] == 1:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return img[:, :, :3]


def decode_image(data: bytes) -> NDArray[np.uint8]:
    """Decode image bytes to BGR uint8, upright per EXIF. Raises ImageError."""
    if len(data) > MAX_FILE_BYTES:
        raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE)
    fmt, width, height, orientation = _header(data)
    if width <= 0 or height <= 0 or width * height > MAX_PIXELS:
        raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE)
    if _truncated(fmt, data):
        raise ImageError(ImageErrorCode.TRUNCATED_IMAGE)
    flags = cv2.IMREAD_UNCHANGED | cv2.IMREAD_IGNORE_ORIENTATION
    long_side = max(width, height)
    if fmt == "JPEG" and long_side > TARGET_LONG_SIDE:
        ratio = long_side / TARGET_LONG_SIDE
        factor = 2 if ratio <= 2 else 4 if ratio <= 4 else 8
        flags = {
            2: cv2.IMREAD_REDUCED_COLOR_2,
            4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8,
        }[factor] | cv2.IMREAD_IGNORE_ORIENTATION
    img = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if img is None or img.size == 0:
        raise ImageError(ImageErrorCode.NOT_AN_IMAGE)
    img = _to_bgr(img)
    if max(img.shape[:2]) > TARGET_LONG_SIDE:
        scale = TARGET_LONG_SIDE / max(img.shape[:2])
        img = cv2.resize(
            img,
            (round(img.shape[1] * scale), round(img.shape[0] * scale)),
            interpolation=cv2.INTER_AREA,
        )
    if orientation in _EXIF_ROTATIONS:
        img = cv2.rotate(img, _EXIF_ROTATIONS[orientation])
    elif orientation in (2, 4, 5, 7):  # mirrored variants: flip, then rotate
        img = cv2.flip(img, 1)
        if orientation == 4:
            img = cv2.rotate(img, cv2.ROTATE_180)
        elif orientation == 5:
            img = cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
        elif orientation == 7:
            img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    # uint8 by construction: _to_bgr converts, and resize, rotate and flip keep the depth
    return cast(NDArray[np.uint8], np.ascontiguousarray(img))


def load_image(path: str | Path) -> NDArray[np.uint8]:
    """Read and decode an image file. Raises ImageError with a reason code."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE)
        data = p.read_bytes()
    except FileNotFoundError as err:
        raise ImageError(ImageErrorCode.FILE_NOT_FOUND) from err
    except (IsADirectoryError, PermissionError, OSError) as err:
        raise ImageError(ImageErrorCode.NOT_AN_IMAGE) from err
    return decode_image(data)

"""Load still images for the reader, safely: bounded bytes, pixels and time.

Untrusted files (STYLE.md rule 14): a non-image, a truncated file, a sliver or a huge
photo gets a reason code, never a crash or an unbounded allocation. Only regular files
are read (never a device or a pipe), at most ``MAX_FILE_BYTES`` of them.

Everything is decided from the header before a pixel is decoded (Pillow's ``open`` is
lazy): format, size, EXIF orientation and what the decode would cost. Baseline JPEGs
larger than the reader needs are decoded at 1/2, 1/4 or 1/8 scale by the codec itself
(DCT scaling, ITU-T T.81 / libjpeg ``scale_denom``), so a 100-megapixel photo never
lands in memory at full size. A progressive JPEG keeps every DCT coefficient of the
whole image while it decodes (2 bytes each, ITU-T T.81 annex G), and other formats
decode at full size: those are refused beforehand when that would exceed
``DECODE_BUDGET_BYTES``. Large images are scaled down before any colour conversion.
"""

from __future__ import annotations

import io
import os
import stat
import warnings
from dataclasses import dataclass
from enum import unique
from pathlib import Path
from typing import TYPE_CHECKING, cast

import cv2
import numpy as np
from cv2.typing import MatLike
from numpy.typing import NDArray

from admission.codes import Code

if TYPE_CHECKING:
    from PIL.Image import Image as PilImage

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_PIXELS = 120_000_000  # refuse beyond this whatever the format (e.g. crafted headers)
# What one decode may allocate before the image is scaled down: with the interpreter and
# OpenCV (about 45 MiB) and the file's bytes (MAX_FILE_BYTES) under 300 MB in all.
DECODE_BUDGET_BYTES = 160 * 1024 * 1024
MIN_SIDE = 32  # a narrower image cannot hold an MRZ line (30-44 characters, ICAO 9303-3)
TARGET_LONG_SIDE = 2600  # decode big JPEGs down to about this


@unique
class ImageErrorCode(Code):
    """Why a still image cannot be read (``read-document``'s ``reason`` per file)."""

    NOT_AN_IMAGE = "NOT_AN_IMAGE"  # not an image, a folder, or not readable
    TRUNCATED_IMAGE = "TRUNCATED_IMAGE"  # the file is cut short
    IMAGE_TOO_LARGE = "IMAGE_TOO_LARGE"  # beyond MAX_FILE_BYTES, MAX_PIXELS or the budget
    IMAGE_TOO_SMALL = "IMAGE_TOO_SMALL"  # a side under MIN_SIDE pixels (e.g. 1 x 6000)
    IMAGE_READ_FAILED = "IMAGE_READ_FAILED"  # the reader failed on this image (the others
    # of the batch are still read)
    FILE_NOT_FOUND = "FILE_NOT_FOUND"


# The members under their module-level names, for the callers and tests that import them.
NOT_AN_IMAGE = ImageErrorCode.NOT_AN_IMAGE
TRUNCATED_IMAGE = ImageErrorCode.TRUNCATED_IMAGE
IMAGE_TOO_LARGE = ImageErrorCode.IMAGE_TOO_LARGE
IMAGE_TOO_SMALL = ImageErrorCode.IMAGE_TOO_SMALL
IMAGE_READ_FAILED = ImageErrorCode.IMAGE_READ_FAILED
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


@dataclass(frozen=True, slots=True)
class _Header:
    """What the file says about itself, read without decoding a pixel."""

    format: str
    width: int
    height: int
    orientation: int  # EXIF 0x0112, 1 when absent
    samples: int  # components per pixel as decoded (1 gray, 3 colour, 4 with alpha)
    sample_bytes: int  # 1 or 2 (16-bit PNG and TIFF)
    progressive: bool  # a progressive JPEG (SOF2): whole-image coefficient buffers


def _header(data: bytes) -> _Header:
    """The header of an image, without decoding pixels."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():  # the pixel limits are ours (MAX_PIXELS, budget)
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                return _Header(
                    format=str(im.format or ""),
                    width=int(im.width),
                    height=int(im.height),
                    orientation=_orientation(im),
                    samples=_samples(im),
                    sample_bytes=_sample_bytes(im, data),
                    progressive=bool(im.info.get("progressive")),
                )
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as err:
        raise ImageError(ImageErrorCode.NOT_AN_IMAGE) from err
    except Image.DecompressionBombError as err:
        raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE) from err


def _orientation(im: PilImage) -> int:
    """EXIF orientation from the header only. Pillow reads a PNG's EXIF by decoding the
    whole image when the eXIf chunk is not ahead of the pixels: that is never done."""
    if "exif" not in im.info and not hasattr(im, "tag_v2"):
        return 1
    try:
        orientation = int(im.getexif().get(0x0112, 1))
    except Exception:  # a broken EXIF block only loses the orientation
        return 1
    return orientation if 1 <= orientation <= 8 else 1


def _samples(im: PilImage) -> int:
    bands = len(im.getbands())
    if im.mode in ("P", "PA", "LA") or "A" in im.mode:
        return 4  # OpenCV expands palettes and grey+alpha to BGR(A)
    return max(1, bands)


def _sample_bytes(im: PilImage, data: bytes) -> int:
    if im.format == "PNG" and len(data) > 24:
        return 2 if data[24] == 16 else 1  # IHDR bit depth (PNG spec 11.2.2)
    if im.format == "TIFF":
        bits = getattr(im, "tag_v2", {}).get(258, 16)  # BitsPerSample (TIFF 6.0, p. 22)
        depth = max(bits) if isinstance(bits, tuple) and bits else bits
        return 1 if isinstance(depth, int) and depth <= 8 else 2
    return 2 if im.mode.startswith("I;16") or im.mode in ("I", "F") else 1


def _reduction(header: _Header) -> int:
    """The DCT scale a baseline JPEG is decoded at (1 = full size)."""
    long_side = max(header.width, header.height)
    if header.format != "JPEG" or header.progressive or long_side <= TARGET_LONG_SIDE:
        return 1
    ratio = long_side / TARGET_LONG_SIDE
    return 2 if ratio <= 2 else 4 if ratio <= 4 else 8


def decode_cost(header: _Header) -> int:
    """Bytes the decode allocates before the image can be scaled down."""
    pixels = header.width * header.height
    if header.format == "JPEG":
        factor = _reduction(header)
        out = (pixels // (factor * factor) + 1) * 3
        # every coefficient of every component, 2 bytes each (ITU-T T.81 annex G)
        return out + (pixels * header.samples * 2 if header.progressive else 0)
    # OpenCV's PNG and TIFF readers hold the decoded rows twice (measured: 2.0x)
    return 2 * pixels * header.samples * header.sample_bytes


def _truncated(fmt: str, data: bytes) -> bool:
    tail = data[-64:] if len(data) > 64 else data
    if fmt == "JPEG":
        return b"\xff\xd9" not in data[-4096:]
    if fmt == "PNG":
        return b"IEND" not in tail
    return False


def _to_bgr(img: MatLike) -> MatLike:
    if img.dtype != np.uint8:
        img = (img // 257).astype(np.uint8) if img.dtype == np.uint16 else img.astype(np.uint8)
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:  # composite transparency over white paper, not black
        # 255 - (255 - bgr) * alpha / 255, in uint8 throughout (no float copies)
        alpha = cv2.merge([img[:, :, 3]] * 3)
        ink = cv2.bitwise_not(np.ascontiguousarray(img[:, :, :3]))
        return cv2.bitwise_not(cv2.multiply(ink, alpha, scale=1.0 / 255.0))
    if img.shape[2] == 1:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return img[:, :, :3]


def decode_image(data: bytes) -> NDArray[np.uint8]:
    """Decode image bytes to BGR uint8, upright per EXIF. Raises ImageError."""
    if len(data) > MAX_FILE_BYTES:
        raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE)
    header = _header(data)
    width, height = header.width, header.height
    if width <= 0 or height <= 0 or width * height > MAX_PIXELS:
        raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE)
    if min(width, height) < MIN_SIDE:
        raise ImageError(ImageErrorCode.IMAGE_TOO_SMALL)
    if decode_cost(header) > DECODE_BUDGET_BYTES:
        raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE)
    if _truncated(header.format, data):
        raise ImageError(ImageErrorCode.TRUNCATED_IMAGE)
    flags = cv2.IMREAD_UNCHANGED | cv2.IMREAD_IGNORE_ORIENTATION
    factor = _reduction(header)
    if factor > 1:
        flags = _REDUCED[factor] | cv2.IMREAD_IGNORE_ORIENTATION
    try:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    except cv2.error as err:  # a codec's own limit or a corrupt stream
        raise ImageError(ImageErrorCode.NOT_AN_IMAGE) from err
    if img is None or img.size == 0:
        raise ImageError(ImageErrorCode.NOT_AN_IMAGE)
    img = _to_bgr(_shrink(img))
    return _upright(img, header.orientation)


_REDUCED = {
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


def _shrink(img: MatLike) -> MatLike:
    """Scale down to ``TARGET_LONG_SIDE`` (before colour conversion: smaller copies)."""
    long_side = max(img.shape[:2])
    if long_side <= TARGET_LONG_SIDE:
        return img
    scale = TARGET_LONG_SIDE / long_side
    size = (max(1, round(img.shape[1] * scale)), max(1, round(img.shape[0] * scale)))
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)


def _upright(img: MatLike, orientation: int) -> NDArray[np.uint8]:
    """Apply the EXIF orientation (CIPA DC-008 tag 0x0112: 3, 6, 8 rotate; 2, 4, 5, 7
    mirror first)."""
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
    try:
        data = _read_regular(Path(path))
    except FileNotFoundError as err:
        raise ImageError(ImageErrorCode.FILE_NOT_FOUND) from err
    except (OSError, ValueError) as err:  # a folder, no permission, a NUL in the path
        raise ImageError(ImageErrorCode.NOT_AN_IMAGE) from err
    return decode_image(data)


def _read_regular(path: Path) -> bytes:
    """The bytes of a regular file of at most ``MAX_FILE_BYTES``. A device (``/dev/zero``)
    or a pipe is refused before it is read: opened non-blocking, so a pipe without a
    writer cannot hang the reader, and checked on the open descriptor."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ImageError(ImageErrorCode.NOT_AN_IMAGE)
        if st.st_size > MAX_FILE_BYTES:
            raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE)
        data = handle.read(MAX_FILE_BYTES + 1)  # the file may have grown since fstat
    if len(data) > MAX_FILE_BYTES:
        raise ImageError(ImageErrorCode.IMAGE_TOO_LARGE)
    return data

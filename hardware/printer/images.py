"""Logo and signature images for printed documents: loaded defensively and cached.

A huge, corrupt or non-image file gives no image and an :class:`ImageProblem`, never an
exception; the renderer turns it into the document's warning (``render.CardWarning``).
Transparency is flattened: a soft mask makes the CUPS PDF→PostScript filters rasterise
the whole page (text lost, barcode blurred).
"""

from __future__ import annotations

import io
import threading
from enum import Enum, unique
from pathlib import Path

from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

__all__ = [
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_PIXELS",
    "ImageProblem",
    "draw_image_in_box",
    "load_image",
]

MAX_IMAGE_BYTES = 20 * 1024 * 1024  # larger logo files are refused, not decoded
MAX_IMAGE_PIXELS = 40_000_000  # decompression-bomb guard, checked before decoding
MAX_EMBED_PX = 400  # 400 px over 22 mm is > 450 dpi: plenty for a 300 dpi card printer


@unique
class ImageProblem(Enum):
    """Why a logo or signature cannot be drawn. Not a code people see: the renderer
    names the image (``render.CardWarning.LOGO_MISSING``...)."""

    MISSING = "MISSING"  # no path configured, or no such file
    TOO_LARGE = "TOO_LARGE"  # beyond MAX_IMAGE_BYTES or MAX_IMAGE_PIXELS
    UNREADABLE = "UNREADABLE"  # corrupt, truncated or not an image


_image_lock = threading.Lock()
_images: dict[tuple[str, int, int, str], tuple[ImageReader | None, ImageProblem | None]] = {}


def load_image(
    path: str | None, background: str = "#FFFFFF"
) -> tuple[ImageReader | None, ImageProblem | None]:
    """A reportlab image ready to draw and None, or ``(None, problem)``.

    Huge files and pixel counts are refused before decoding; anything Pillow cannot
    decode is reported, never raised. Transparency is flattened onto ``background``:
    a soft mask makes the CUPS filters rasterise the whole page (text lost, barcode
    blurred). Results are cached per (path, mtime, size, background).
    """
    if not path:
        return None, ImageProblem.MISSING
    try:
        st = Path(path).stat()
    except OSError:
        return None, ImageProblem.MISSING
    key = (path, st.st_mtime_ns, st.st_size, background)
    with _image_lock:
        cached = _images.get(key)
    if cached is not None:
        return cached
    result = _decode_image(Path(path), st.st_size, background)
    with _image_lock:
        if len(_images) > 32:
            _images.clear()
        _images[key] = result
    return result


def _decode_image(
    path: Path, size: int, background: str
) -> tuple[ImageReader | None, ImageProblem | None]:
    from PIL import Image  # reportlab's own dependency

    if size > MAX_IMAGE_BYTES:
        return None, ImageProblem.TOO_LARGE
    try:
        with Image.open(path) as probe:
            width, height = probe.size
            if width * height > MAX_IMAGE_PIXELS or width <= 0 or height <= 0:
                return None, ImageProblem.TOO_LARGE
            probe.load()
            img = probe.convert("RGBA")
    except Image.DecompressionBombError:
        return None, ImageProblem.TOO_LARGE
    except Exception:  # corrupt, truncated, not an image at all
        return None, ImageProblem.UNREADABLE
    img.thumbnail((MAX_EMBED_PX, MAX_EMBED_PX))
    try:
        fill = Image.new("RGBA", img.size, background)
    except ValueError:
        fill = Image.new("RGBA", img.size, "#FFFFFF")
    img = Image.alpha_composite(fill, img).convert("RGB")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    buf.seek(0)
    return ImageReader(buf), None


def draw_image_in_box(
    c: Canvas, image: ImageReader, x: float, y: float, w: float, h: float
) -> None:
    iw, ih = image.getSize()
    scale = min(w / iw, h / ih)
    dw, dh = iw * scale, ih * scale
    c.drawImage(image, x + (w - dw) / 2, y + (h - dh) / 2, dw, dh)

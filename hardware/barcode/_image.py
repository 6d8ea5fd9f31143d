"""What the decoder adapters share: the bound on decoded text, the frame as a numpy grey
image (no copy when already grey) and the reading of raw bytes as text.

Kept apart from ``hardware/barcode/__init__.py`` so that the adapters, which
``make_decoder`` imports, never import their own package back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from admission.frames import Frame

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

MAX_TEXT = 8192  # QR holds at most 7089 digits; longer "decodes" are dropped


def grey_array(frame: Frame) -> NDArray[np.uint8]:
    """A (height, width) uint8 C-contiguous array of the frame's luminance."""
    import numpy as np

    shape: tuple[int, ...] = (frame.height, frame.width)
    strides: tuple[int, ...] = (frame.stride, 1)
    if frame.channels == 3:
        shape, strides = (*shape, 3), (frame.stride, 3, 1)
    view: NDArray[np.uint8] = np.ndarray(
        shape=shape, dtype=np.uint8, buffer=frame.data, strides=strides
    )
    if frame.channels == 3:
        import cv2

        # cv2 types its result as any number; BGR2GRAY of uint8 is uint8 (asarray: no copy)
        grey = cv2.cvtColor(np.ascontiguousarray(view), cv2.COLOR_BGR2GRAY)
        return np.asarray(grey, dtype=np.uint8)
    return np.ascontiguousarray(view)


def text_of(data: bytes) -> str:
    """Best reading of raw bytes: UTF-8 when valid, else Latin-1 (Code 128's default)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")

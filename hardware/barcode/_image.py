"""Frame -> numpy grey image, shared by the adapters (no copy when already grey)."""

from __future__ import annotations

from typing import Any

from admission.frames import Frame


def grey_array(frame: Frame) -> Any:
    """A (height, width) uint8 C-contiguous array of the frame's luminance."""
    import numpy as np

    shape: tuple[int, ...] = (frame.height, frame.width)
    strides: tuple[int, ...] = (frame.stride, 1)
    if frame.channels == 3:
        shape, strides = (*shape, 3), (frame.stride, 3, 1)
    view: Any = np.ndarray(shape=shape, dtype=np.uint8, buffer=frame.data, strides=strides)
    if frame.channels == 3:
        import cv2

        return cv2.cvtColor(np.ascontiguousarray(view), cv2.COLOR_BGR2GRAY)
    return np.ascontiguousarray(view)


def text_of(data: bytes) -> str:
    """Best reading of raw bytes: UTF-8 when valid, else Latin-1 (Code 128's default)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")

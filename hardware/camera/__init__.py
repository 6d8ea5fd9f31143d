"""Cameras: the ``Camera`` port, its status values and frame conversion helpers.

Adapters: :class:`hardware.camera.opencv.OpenCvCamera` (a device index or a path/URL,
through OpenCV), and the fakes of :mod:`hardware.camera.fake` (a scripted camera, a
folder of images, a video file). Frames cross the port as
:class:`admission.frames.Frame` plain values and are never written to disk.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

import numpy as np

from admission.frames import Frame

__all__ = ["Camera", "CameraStatus", "array_to_frame"]


class CameraStatus(StrEnum):
    """Preflight answer (STYLE.md rule 8)."""

    READY = "READY"
    NOT_FOUND = "NOT_FOUND"  # no such device / file
    NO_MEDIA = "NO_MEDIA"  # opened, but it delivers no frames (empty video, no images)
    BUSY = "BUSY"  # held by another program
    ERROR = "ERROR"


class Camera(Protocol):
    """A source of frames. ``read`` raises :class:`admission.errors.DeviceError`."""

    def preflight(self) -> CameraStatus: ...

    def read(self) -> Frame: ...

    def close(self) -> None: ...


def array_to_frame(image: np.ndarray, timestamp: float) -> Frame:
    """A BGR or grey uint8 array as a plain Frame (copies the pixels)."""
    if image.dtype != np.uint8:
        raise ValueError("frames are 8-bit")
    if image.ndim == 3 and image.shape[2] == 4:
        image = image[:, :, :3]
    channels = 1 if image.ndim == 2 else int(image.shape[2])
    if channels == 1 and image.ndim == 3:
        image = image[:, :, 0]
    height, width = image.shape[:2]
    data = np.ascontiguousarray(image).tobytes()
    return Frame(data, width, height, width * channels, channels, timestamp)

"""Cameras: frame conversion for the adapters of the ``Camera`` port.

The port, :class:`admission.devices.Camera`, and its preflight answer,
:class:`admission.devices.DeviceStatus`, live in the domain. Adapters:
:class:`hardware.camera.opencv.OpenCvCamera` (a device index or a path/URL, through
OpenCV), and the fakes of :mod:`hardware.camera.fake` (a scripted camera, a folder of
images, a video file). Frames cross the port as :class:`admission.frames.Frame` plain
values and are never written to disk. A camera that is not ready is named by
:func:`refusal_code`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from admission.devices import Camera, DeviceErrorCode, DeviceStatus
from admission.frames import Frame

__all__ = ["Camera", "array_to_frame", "refusal_code"]

_REFUSALS = {
    DeviceStatus.NOT_FOUND: DeviceErrorCode.CAMERA_NOT_FOUND,
    DeviceStatus.NO_MEDIA: DeviceErrorCode.CAMERA_NO_MEDIA,
    DeviceStatus.BUSY: DeviceErrorCode.CAMERA_BUSY,
    DeviceStatus.PAUSED: DeviceErrorCode.CAMERA_PAUSED,
    DeviceStatus.REJECTING: DeviceErrorCode.CAMERA_REJECTING,
    DeviceStatus.LOST: DeviceErrorCode.CAMERA_LOST,
    DeviceStatus.ERROR: DeviceErrorCode.CAMERA_ERROR,
}


def refusal_code(status: DeviceStatus) -> DeviceErrorCode:
    """The code of a camera that answered ``status`` (not READY) to its preflight:
    ``CAMERA_<status>``; READY, asked anyway, counts as CAMERA_ERROR."""
    return _REFUSALS.get(status, DeviceErrorCode.CAMERA_ERROR)


def array_to_frame(image: NDArray[np.generic], timestamp: float) -> Frame:
    """A BGR or grey 8-bit array as a plain Frame (copies the pixels).

    Any dtype is accepted, as OpenCV types its images; anything but uint8 raises ValueError.
    """
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

"""OpenCV capture adapter: a webcam or document camera by index, or a path/URL.

Library failures become :class:`admission.errors.DeviceError` with stable codes
(STYLE.md rule 8). A lost device is reopened a few times before ``read`` gives up, so a
loose USB cable costs a moment, not a restart. Frames stay in memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import cv2

from admission.devices import DeviceErrorCode, DeviceStatus
from admission.errors import DeviceError
from admission.frames import Frame
from hardware.camera import array_to_frame


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` the adapter uses."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def set(self, prop: int, value: float) -> bool: ...

    def release(self) -> None: ...


def _open_capture(source: int | str) -> Capture:
    return cv2.VideoCapture(source)


class OpenCvCamera:
    """``source``: device index (0, 1...) or a path/URL OpenCV can open."""

    def __init__(
        self,
        source: int | str = 0,
        *,
        width: int = 1280,
        height: int = 720,
        reconnect_attempts: int = 3,
        reconnect_delay: float = 0.5,
        open_capture: Callable[[int | str], Capture] = _open_capture,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._source = source
        self._size = (width, height)
        self._attempts = reconnect_attempts
        self._delay = reconnect_delay
        self._open_capture = open_capture
        self._clock = clock
        self._sleep = sleep
        self._cap: Capture | None = None
        self._ever_opened = False
        self.reconnects = 0

    def _open(self) -> Capture | None:
        try:
            cap = self._open_capture(self._source)
        except (cv2.error, OSError):
            return None
        if not cap.isOpened():
            cap.release()
            return None
        self._ever_opened = True
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, float(self._size[0]))
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, float(self._size[1]))
        # a queue of one: reading an MRZ takes longer than a frame interval, and the live
        # reader wants the document as it is now, not as the driver queued it (V4L2 and
        # DirectShow honour it; where ignored, nothing changes)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1.0)
        return cap

    def preflight(self) -> DeviceStatus:
        cap = self._cap or self._open()
        if cap is None:
            return DeviceStatus.NOT_FOUND
        try:
            ok, image = cap.read()
        except cv2.error:
            ok, image = False, None
        if self._cap is None:
            self._cap = cap
        if not ok or image is None:
            return DeviceStatus.BUSY
        return DeviceStatus.READY

    def read(self) -> Frame:
        for attempt in range(self._attempts + 1):
            if self._cap is None:
                self._cap = self._open()
            if self._cap is not None:
                try:
                    ok, image = self._cap.read()
                except cv2.error:
                    ok, image = False, None
                if ok and image is not None:
                    return array_to_frame(image, self._clock())
                self._cap.release()
                self._cap = None
            if attempt < self._attempts:
                self.reconnects += 1
                self._sleep(self._delay)
        if not self._ever_opened:
            raise DeviceError("camera not found", code=DeviceErrorCode.CAMERA_NOT_FOUND)
        raise DeviceError("camera delivers no frames", code=DeviceErrorCode.CAMERA_LOST)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

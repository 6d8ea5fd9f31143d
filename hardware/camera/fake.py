"""Fake cameras with the same interface as the OpenCV adapter (STYLE.md rule 9).

* :class:`FakeCamera` replays a script of frames and errors and records what it was asked.
* :class:`ImageFolderCamera` replays a folder of still images (sorted by name).
* :class:`VideoFileCamera` replays a video file.

They run the whole app, and its tests, with no camera attached. Frames stay in memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from admission.devices import DeviceErrorCode, DeviceStatus
from admission.errors import DeviceError
from admission.frames import Frame
from hardware.camera import array_to_frame

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})


class FakeCamera:
    """Replays ``script`` (frames, or exceptions to raise) in order; ``loop`` restarts it."""

    def __init__(
        self,
        script: Sequence[Frame | Exception],
        *,
        loop: bool = False,
        status: DeviceStatus = DeviceStatus.READY,
    ) -> None:
        self._script = list(script)
        self._loop = loop
        self._status = status
        self._pos = 0
        self.reads = 0
        self.preflights = 0
        self.closed = False

    def preflight(self) -> DeviceStatus:
        self.preflights += 1
        return self._status

    def read(self) -> Frame:
        self.reads += 1
        if self._pos >= len(self._script):
            if not self._loop or not self._script:
                raise DeviceError("script exhausted", code=DeviceErrorCode.CAMERA_END_OF_STREAM)
            self._pos = 0
        item = self._script[self._pos]
        self._pos += 1
        if isinstance(item, Exception):
            raise item
        return item

    def close(self) -> None:
        self.closed = True


class ImageFolderCamera:
    """Replays the images of a folder as frames, in name order."""

    def __init__(
        self, folder: str | Path, *, loop: bool = True, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._folder = Path(folder)
        self._loop = loop
        self._clock = clock
        self._files: list[Path] | None = None
        self._pos = 0

    def _list(self) -> list[Path]:
        if self._files is None:
            try:
                self._files = sorted(
                    p
                    for p in self._folder.iterdir()
                    if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()
                )
            except OSError:
                self._files = []
        return self._files

    def preflight(self) -> DeviceStatus:
        if not self._folder.is_dir():
            return DeviceStatus.NOT_FOUND
        return DeviceStatus.READY if self._list() else DeviceStatus.NO_MEDIA

    def read(self) -> Frame:
        files = self._list()
        for _ in range(len(files)):
            if self._pos >= len(files):
                if not self._loop:
                    break
                self._pos = 0
            path = files[self._pos]
            self._pos += 1
            try:
                data = np.fromfile(path, np.uint8)
            except OSError:
                continue
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
            if image is not None:
                return array_to_frame(image, self._clock())
        raise DeviceError("no more images", code=DeviceErrorCode.CAMERA_END_OF_STREAM)

    def close(self) -> None:
        self._pos = 0


class VideoFileCamera:
    """Replays a video file through OpenCV; ``loop`` rewinds at the end."""

    def __init__(
        self, path: str | Path, *, loop: bool = True, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._path = Path(path)
        self._loop = loop
        self._clock = clock
        self._cap: cv2.VideoCapture | None = None

    def _open(self) -> cv2.VideoCapture | None:
        if self._cap is None and self._path.is_file():
            cap = cv2.VideoCapture(str(self._path))
            if cap.isOpened():
                self._cap = cap
            else:
                cap.release()
        return self._cap

    def preflight(self) -> DeviceStatus:
        if not self._path.is_file():
            return DeviceStatus.NOT_FOUND
        return DeviceStatus.READY if self._open() is not None else DeviceStatus.NO_MEDIA

    def read(self) -> Frame:
        cap = self._open()
        if cap is None:
            raise DeviceError("video not readable", code=DeviceErrorCode.CAMERA_END_OF_STREAM)
        ok, image = cap.read()
        if not ok and self._loop:
            cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, image = cap.read()
        if not ok or image is None:
            raise DeviceError("end of video", code=DeviceErrorCode.CAMERA_END_OF_STREAM)
        return array_to_frame(image, self._clock())

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

"""Live MRZ reading from a camera stream, with quality hints for the GUI.

The reader answers as soon as ``agree`` consecutive frames give the same lines with every
check digit passing; until then each frame yields a hint the GUI shows to the clerk:
NO_DOCUMENT, TOO_FAR, BLURRED, GLARE (or READING while frames disagree).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np

from admission.frames import Frame
from hardware.mrz.reader import MrzRead, MrzReader, frame_to_array

MIN_CHAR_HEIGHT_PX = 11.0  # an unread MRZ smaller than this: ask for the document closer
GLARE_FRACTION = 0.02  # share of saturated pixels in the MRZ area that means glare
_GLARE_LEVEL = 250


class Quality(StrEnum):
    OK = "OK"  # read and agreed
    READING = "READING"  # a good read, waiting for the next frame to agree
    NO_DOCUMENT = "NO_DOCUMENT"
    TOO_FAR = "TOO_FAR"
    BLURRED = "BLURRED"
    GLARE = "GLARE"


@dataclass(frozen=True)
class LiveUpdate:
    quality: Quality
    read: MrzRead | None = None  # set only when frames agreed (quality OK)


def _glare(grey: np.ndarray, quad: np.ndarray | None) -> float:
    if quad is not None:
        mask = np.zeros(grey.shape, np.uint8)
        cv2.fillConvexPoly(mask, quad.astype(np.int32), 255)
        area = int((mask > 0).sum())
        if area > 0:
            return float(((grey >= _GLARE_LEVEL) & (mask > 0)).sum()) / area
    return float((grey >= _GLARE_LEVEL).mean())


def quality_of(read: MrzRead, grey: np.ndarray) -> Quality:
    """Why a frame was not read (or READING when it was)."""
    if read.lines and read.verified:
        return Quality.READING
    if read.candidates == 0:
        return Quality.GLARE if _glare(grey, None) > 0.1 else Quality.NO_DOCUMENT
    if _glare(grey, read.quad) > GLARE_FRACTION:
        return Quality.GLARE
    if 0 < read.char_height_px < MIN_CHAR_HEIGHT_PX:
        return Quality.TOO_FAR
    return Quality.BLURRED


class LiveMrzReader:
    """Feed frames; get an agreed reading or a hint. Not thread-safe: one per worker."""

    def __init__(self, reader: MrzReader | None = None, *, agree: int = 2) -> None:
        self._reader = reader or MrzReader()
        self._agree = max(1, agree)
        self._last: tuple[str, ...] | None = None
        self._count = 0

    def reset(self) -> None:
        self._last, self._count = None, 0

    def feed(self, frame: Frame) -> LiveUpdate:
        image = frame_to_array(frame)
        grey = image[:, :, 0] if image.shape[2] == 1 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        read = self._reader.read_array(grey)
        if not (read.lines and read.verified):
            self.reset()
            return LiveUpdate(quality_of(read, grey))
        if read.lines == self._last:
            self._count += 1
        else:
            self._last, self._count = read.lines, 1
        if self._count >= self._agree:
            self.reset()
            return LiveUpdate(Quality.OK, read)
        return LiveUpdate(Quality.READING)

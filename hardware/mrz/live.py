"""Live MRZ reading from a camera stream, with quality hints for the GUI.

Frames of one document are fused: the classifier's probabilities of the last few frames
(``FUSE_WINDOW``) are combined character by character (a geometric mean) and decoded and
judged by the single-frame rules. The reader answers as soon as at least ``agree`` frames
are fused and the fused reading passes every check digit and the acceptance rules.

* Two frames that each read the same lines are, in practice, answered at once, as with
  the rule before fusion (``fuse=False``: ``agree`` identical readings in a row).
* A character that every frame finds doubtful stays doubtful (a geometric mean does not
  sharpen a glyph the blur made ambiguous); one that each frame doubts for its own
  reason - noise, where the grid fell - is settled by the frames together.
* Two frames that disagree on a character weaken it, even when each is sure
  (``FRAME_DOUBT``), so a misread in one frame is not taken.

Until then each frame yields a hint the GUI shows to the clerk: NO_DOCUMENT, TOO_FAR,
BLURRED, GLARE (or READING while a good read waits for the next frame).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import unique
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from admission.codes import Code
from admission.frames import Frame
from hardware.mrz.decode import decode
from hardware.mrz.reader import MrzRead, MrzReader, frame_to_array, judged

MIN_CHAR_HEIGHT_PX = 11.0  # an unread MRZ smaller than this: ask for the document closer
GLARE_FRACTION = 0.02  # share of saturated pixels in the MRZ area that means glare
_GLARE_LEVEL = 250
FUSE_WINDOW = 6  # frames of one document whose probabilities are fused
# a frame whose top reading differs from the fused one in more than this share of its
# characters shows another document (or another band): the history starts again
NEW_DOCUMENT_SHARE = 0.25
# each frame's probabilities are mixed with this much of a uniform guess before fusing:
# no single frame may be more than ~99 % sure, so a frame that is sure of a misread cannot
# outvote another that is sure of the right character (the two then stay in doubt)
FRAME_DOUBT = 0.01


@unique
class Quality(Code):
    """The live hint shown to the clerk while the camera reads (``hints`` of
    ``read-document --camera``)."""

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


def _glare(grey: NDArray[np.uint8], quad: NDArray[np.float32] | None) -> float:
    if quad is not None:
        mask = np.zeros(grey.shape, np.uint8)
        cv2.fillConvexPoly(mask, quad.astype(np.int32), 255)
        area = int((mask > 0).sum())
        if area > 0:
            return float(((grey >= _GLARE_LEVEL) & (mask > 0)).sum()) / area
    return float((grey >= _GLARE_LEVEL).mean())


def quality_of(read: MrzRead, grey: NDArray[np.uint8]) -> Quality:
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

    def __init__(
        self, reader: MrzReader | None = None, *, agree: int = 2, fuse: bool = True
    ) -> None:
        # small print and doubtful glyphs are settled by fusing frames (and the clerk asked
        # to bring the document closer), not by the stills' small-print pass and recuts
        self._reader = reader or MrzReader(still=False)
        self._agree = max(1, agree)
        self._window = FUSE_WINDOW if fuse else 1
        self._history: list[NDArray[np.float32]] = []  # log-probabilities, oldest first
        self._last: tuple[str, ...] | None = None  # without fusion: the agreeing lines
        self._count = 0

    def reset(self) -> None:
        self._history.clear()
        self._last, self._count = None, 0

    def feed(self, frame: Frame) -> LiveUpdate:
        image = frame_to_array(frame)
        grey = (
            image[:, :, 0]
            if image.shape[2] == 1
            else cast(NDArray[np.uint8], cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        )
        read = self._reader.read_array(grey)
        if self._window == 1:
            return self._agreed(read, grey)
        if read.probs is None:  # no zone decoded in this frame
            if read.candidates == 0:
                self.reset()  # the document left the camera
            return LiveUpdate(quality_of(read, grey))
        self._remember(read.probs)
        dec = decode(self._fused()) if len(self._history) >= self._agree else None
        if dec is not None:
            fused = judged(dec)
            if fused.lines and fused.verified:
                self.reset()
                return LiveUpdate(
                    Quality.OK,
                    replace(
                        fused,
                        quad=read.quad,
                        char_height_px=read.char_height_px,
                        sharpness=read.sharpness,
                        candidates=read.candidates,
                    ),
                )
        return LiveUpdate(quality_of(read, grey))

    def _remember(self, probs: NDArray[np.float32]) -> None:
        doubted = (1.0 - FRAME_DOUBT) * probs + FRAME_DOUBT / probs.shape[-1]
        logs = np.log(doubted).astype(np.float32)
        if self._history and (
            self._history[-1].shape != logs.shape
            or float((np.mean(self._history, axis=0).argmax(axis=2) != logs.argmax(axis=2)).mean())
            > NEW_DOCUMENT_SHARE
        ):  # the fused top choices: the mean log's argmax
            self._history.clear()
        self._history.append(logs)
        del self._history[: -self._window]

    def _fused(self) -> NDArray[np.float32]:
        mean = np.mean(self._history, axis=0)
        probs = np.exp(mean - mean.max(axis=2, keepdims=True))
        fused: NDArray[np.float32] = probs / probs.sum(axis=2, keepdims=True)
        return fused

    def _agreed(self, read: MrzRead, grey: NDArray[np.uint8]) -> LiveUpdate:
        """Without fusion: ``agree`` consecutive frames must read the same lines."""
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

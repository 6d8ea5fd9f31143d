"""Reading documents for the desk: the MRZ of still images (:func:`read_one`) and of a
camera stream in live mode (:func:`watch`), as JSON-ready fields.

Per image or stream: ``mrz_lines`` (exactly as printed, ``<`` included, even when a
check digit is wrong on the document itself), every ``parse-mrz`` field, ``verified``
(all check digits pass), ``failed_checks``, and ``reason`` (a code when there is no
MRZ, the file is not a readable image, or the camera failed). Live mode also gives the
quality hints shown on the way (NO_DOCUMENT, TOO_FAR, BLURRED, GLARE, READING, OK).
Frames are never written to disk.

Each image of a batch answers for itself: whatever goes wrong with one (an unreadable
file, a reader failure: ``IMAGE_READ_FAILED``) is that image's ``reason``, and the
others are still read.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import date
from enum import unique

from admission.codes import Code
from admission.devices import Camera, DeviceErrorCode, DeviceStatus
from admission.errors import DeviceError
from admission.mrz.parse import MrzResult, parse_mrz
from hardware.camera import refusal_code
from hardware.mrz.images import ImageError, ImageErrorCode, load_image
from hardware.mrz.live import LiveMrzReader
from hardware.mrz.reader import MrzRead, MrzReader


@unique
class WatchReason(Code):
    """Why watching a camera gave no reading, when the camera itself did not fail (its
    failures are :class:`admission.devices.DeviceErrorCode` members)."""

    NO_READING = "NO_READING"  # the stream ended, or the frame budget ran out, unread


# The member under its module-level name, for the callers and tests that import it.
NO_READING = WatchReason.NO_READING

log = logging.getLogger(__name__)


def _empty_fields() -> dict[str, object]:
    return MrzResult(valid=False, format=None, lines=()).to_json()


def read_one(reader: MrzReader, path: str, today: date) -> dict[str, object]:
    start = time.perf_counter()
    reason: Code | None
    try:
        read = reader.read_array(load_image(path))
        reason, fields = read.reason, reading_fields(read, today)
    except ImageError as err:
        reason, fields = err.code, reading_fields(None, today)
    except Exception as err:  # one image never loses the batch (MemoryError included)
        # the type only: the message could quote the document (STYLE.md rule 15)
        log.warning("reading an image failed: %s", type(err).__name__)
        reason, fields = ImageErrorCode.IMAGE_READ_FAILED, reading_fields(None, today)
    out: dict[str, object] = {"file": path, **fields, "reason": reason}
    out["ms"] = round((time.perf_counter() - start) * 1000.0, 1)
    return out


def reading_fields(read: MrzRead | None, today: date) -> dict[str, object]:
    """``mrz_lines``, every ``parse-mrz`` field, ``verified`` and ``failed_checks``."""
    if read is None or not read.lines:
        return {"mrz_lines": [], **_empty_fields(), "verified": False, "failed_checks": []}
    lines = list(read.lines)
    return {
        "mrz_lines": lines,
        **parse_mrz(lines, today=today).to_json(),
        "verified": read.verified,
        "failed_checks": list(read.failed_checks),
    }


@dataclass
class Watched:
    """What the live reader made of a camera: the reading (or None), why not, how many
    frames it took and the hints shown on the way ([frame, hint] at every change)."""

    read: MrzRead | None = None
    reason: Code | None = WatchReason.NO_READING
    frames: int = 0
    hints: list[list[object]] = field(default_factory=list)


def watch(cam: Camera, live: LiveMrzReader, max_frames: int) -> Watched:
    """Feed ``cam``'s frames to ``live`` until it answers, the stream ends or
    ``max_frames`` were read; the camera is closed in every case."""
    out = Watched()
    try:
        status = cam.preflight()
        if status is not DeviceStatus.READY:
            out.reason = refusal_code(status)
        while status is DeviceStatus.READY and out.frames < max_frames:
            try:
                frame = cam.read()
            except DeviceError as err:  # the end of a folder or video is simply unread
                out.reason = (
                    WatchReason.NO_READING
                    if err.code == DeviceErrorCode.CAMERA_END_OF_STREAM
                    else err.code
                )
                break
            out.frames += 1
            update = live.feed(frame)
            if not out.hints or out.hints[-1][1] != update.quality.value:
                out.hints.append([out.frames, update.quality.value])
            if update.read is not None:
                out.read, out.reason = update.read, None
                break
    finally:
        cam.close()
    return out

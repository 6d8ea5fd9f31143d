"""Reading documents for the desk: the MRZ of still images (:func:`read_one`) and of a
camera stream in live mode (:func:`watch`), as JSON-ready fields.

Per image or stream: ``mrz_lines`` (exactly as printed, ``<`` included, even when a
check digit is wrong on the document itself), every ``parse-mrz`` field, ``verified``
(all check digits pass), ``failed_checks``, and ``reason`` (a code when there is no
MRZ, the file is not a readable image, or the camera failed). Live mode also gives the
quality hints shown on the way (NO_DOCUMENT, TOO_FAR, BLURRED, GLARE, READING, OK).
Frames are never written to disk.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date
from enum import unique

from admission.codes import Code
from admission.devices import Camera, DeviceErrorCode, DeviceStatus
from admission.errors import DeviceError
from admission.mrz.parse import MrzResult, parse_mrz
from hardware.camera import refusal_code
from hardware.mrz.images import ImageError, load_image
from hardware.mrz.live import LiveMrzReader
from hardware.mrz.reader import MrzRead, MrzReader


@unique
class WatchReason(Code):
    """Why watching a camera gave no reading, when the camera itself did not fail (its
    failures are :class:`admission.devices.DeviceErrorCode` members)."""

    NO_READING = "NO_READING"  # the stream ended, or the frame budget ran out, unread


# The member under its module-level name, for the callers and tests that import it.
NO_READING = WatchReason.NO_READING


def _empty_fields() -> dict[str, object]:
    return MrzResult(valid=False, format=None, lines=()).to_json()


def read_one(reader: MrzReader, path: str, today: date) -> dict[str, object]:
    start = time.perf_counter()
    read: MrzRead | None = None
    reason: Code | None = None
    try:
        image = load_image(path)
    except ImageError as err:
        reason = err.code
    else:
        read = reader.read_array(image)
        reason = read.reason
    out: dict[str, object] = {"file": path, **reading_fields(read, today), "reason": reason}
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

"""``main.py read-document``: the MRZ of still images; ``main.py watch-document``: of a
camera stream, in live mode.

``read-document --json IMAGE [IMAGE...]``:

Per image, one JSON object: ``file``, ``mrz_lines`` (exactly as printed, ``<`` included,
even when a check digit is wrong on the document itself), every ``parse-mrz`` field,
``verified`` (all check digits pass), ``reason`` (a code when there is no MRZ or the file
is not a readable image, else null) and ``ms``. One image -> one object; several -> a
list. Exit code 0 when every image gave a valid MRZ, 1 otherwise (no MRZ, unreadable
file, or check digits failing as printed), 2 on a usage error.

``watch-document SOURCE [--max-frames N]``: SOURCE is a camera index (``0``), a folder of
images or a video file (replayed once, in order), or a URL OpenCV can open. Frames go
through the live reader (fused across frames) until it answers, the stream ends or N
frames were read. One JSON object: ``source``, the same reading fields as above,
``frames`` read, ``hints`` (the frame numbers where the quality hint changed, with the
hint: NO_DOCUMENT, TOO_FAR, BLURRED, GLARE, READING, OK), ``reason`` (null, or
``NO_READING``, or the camera's code: ``CAMERA_NOT_FOUND``, ``CAMERA_NO_MEDIA``,
``CAMERA_BUSY``, ``CAMERA_ERROR``, ``CAMERA_LOST``) and ``ms``.
Exit code 0 for a valid reading, 1 otherwise. Frames are never written to disk.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from admission.errors import DeviceError
from admission.mrz.parse import MrzResult, parse_mrz
from hardware.camera import Camera, CameraStatus
from hardware.camera.fake import END_OF_STREAM
from hardware.mrz.images import ImageError, load_image
from hardware.mrz.live import LiveMrzReader
from hardware.mrz.reader import MrzRead, MrzReader

USAGE_ERROR = "USAGE_NO_IMAGES"
NO_READING = "NO_READING"  # the stream ended, or the frame budget ran out, unread


def _empty_fields() -> dict[str, object]:
    return MrzResult(valid=False, format=None, lines=()).to_json()


def read_one(reader: MrzReader, path: str, today: date) -> dict[str, object]:
    start = time.perf_counter()
    read: MrzRead | None = None
    reason: str | None = None
    try:
        image = load_image(path)
    except ImageError as err:
        reason = err.code
    else:
        read = reader.read_array(image)
        reason = read.reason
    out: dict[str, object] = {"file": path, **_reading(read, today), "reason": reason}
    out["ms"] = round((time.perf_counter() - start) * 1000.0, 1)
    return out


def _reading(read: MrzRead | None, today: date) -> dict[str, object]:
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


def camera_for(source: str) -> Camera:
    """A camera index, a folder of images, a video file (both replayed once), or a URL."""
    from hardware.camera.fake import ImageFolderCamera, VideoFileCamera
    from hardware.camera.opencv import OpenCvCamera

    if source.isdigit():
        return OpenCvCamera(int(source))
    path = Path(source)
    if path.is_dir():
        return ImageFolderCamera(path, loop=False)
    if path.is_file():
        return VideoFileCamera(path, loop=False)
    return OpenCvCamera(source)


@dataclass
class Watched:
    """What the live reader made of a camera: the reading (or None), why not, how many
    frames it took and the hints shown on the way ([frame, hint] at every change)."""

    read: MrzRead | None = None
    reason: str | None = NO_READING
    frames: int = 0
    hints: list[list[object]] = field(default_factory=list)


def watch(cam: Camera, live: LiveMrzReader, max_frames: int) -> Watched:
    """Feed ``cam``'s frames to ``live`` until it answers, the stream ends or
    ``max_frames`` were read; the camera is closed in every case."""
    out = Watched()
    try:
        status = cam.preflight()
        if status is not CameraStatus.READY:
            out.reason = f"CAMERA_{status.value}"
        while status is CameraStatus.READY and out.frames < max_frames:
            try:
                frame = cam.read()
            except DeviceError as err:  # the end of a folder or video is simply unread
                out.reason = NO_READING if err.code == END_OF_STREAM else err.code
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


def watch_document_command(
    source: str,
    *,
    max_frames: int,
    today: date,
    camera: Camera | None = None,
    live: LiveMrzReader | None = None,
) -> tuple[int, str]:
    """Feed ``source``'s frames to the live reader until it answers; (exit code, JSON)."""
    start = time.perf_counter()
    cam = camera if camera is not None else camera_for(source)
    got = watch(cam, live if live is not None else LiveMrzReader(), max_frames)
    out: dict[str, object] = {
        "source": source,
        **_reading(got.read, today),
        "reason": got.reason,
        "frames": got.frames,
        "hints": got.hints,
        "ms": round((time.perf_counter() - start) * 1000.0, 1),
    }
    code = 0 if got.read is not None and out["valid"] else 1
    return code, json.dumps(out, ensure_ascii=False, indent=2)


def read_document_command(paths: list[str], *, as_json: bool, today: date) -> tuple[int, str]:
    """Read every image in ``paths``; return (exit code, text to print)."""
    if not paths:
        return 2, json.dumps({"error": USAGE_ERROR})
    reader = MrzReader()
    results = [read_one(reader, p, today) for p in paths]
    code = 0 if all(r["mrz_lines"] and r["valid"] for r in results) else 1
    payload: object = results[0] if len(results) == 1 else results
    if as_json:
        return code, json.dumps(payload, ensure_ascii=False, indent=2)
    return code, _text(results)


def _text(results: Sequence[dict[str, object]]) -> str:
    out = []
    for r in results:
        lines = r["mrz_lines"]
        if isinstance(lines, list) and lines:
            out.append(
                f"{r['file']}: "
                + " / ".join(str(x) for x in lines)
                + ("" if r["valid"] else f"  (invalid: {', '.join(map(str, r['errors']))})")
            )  # type: ignore[arg-type]
        else:
            out.append(f"{r['file']}: no MRZ ({r['reason']})")
    return "\n".join(out)

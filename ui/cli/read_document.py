"""``read-document --json IMAGE [IMAGE...]``: the MRZ of photos and scans.

Per image, one JSON object (``file``, ``mrz_lines``, every ``parse-mrz`` field,
``verified``, ``failed_checks``, ``reason``, ``ms``): one image, one object; several,
a list. Each image answers for itself: one that cannot be read (``NOT_AN_IMAGE``,
``IMAGE_TOO_SMALL``, ``IMAGE_TOO_LARGE``, ``IMAGE_READ_FAILED``...) never loses the
others. 0 when every image gave a valid MRZ; 1 otherwise (no MRZ, unreadable file,
check digits failing as printed); 2 usage error.

``watch-document SOURCE [--max-frames N]``: SOURCE is a camera index (``0``), a folder
of images or a video file (replayed once, in order), or a URL OpenCV can open. Frames
go through the live reader (fused across frames) until it answers, the stream ends or
N frames were read (N from 1 to 100000, else exit 2 ``BAD_NUMBER``). One JSON object:
``source``, the reading fields, ``frames``, ``hints`` ([frame, hint] at every change of
the quality hint), ``reason`` (null, ``NO_READING`` or the camera's code:
``CAMERA_NOT_FOUND``, ``CAMERA_NO_MEDIA``, ``CAMERA_BUSY``, ``CAMERA_ERROR``,
``CAMERA_LOST``) and ``ms``. 0 for a valid reading, 1 otherwise.
"""

from __future__ import annotations

import argparse
import time

from hardware.mrz.watch import read_one, reading_fields, watch
from ui.cli.args import FRAME_COUNT
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.context import Tools


def _read_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", default=True)
    parser.add_argument("images", nargs="+")


def read_document(args: argparse.Namespace, tools: Tools) -> CommandResult:
    if not args.images:
        return error(ExitCode.USAGE, CliError.USAGE_NO_IMAGES, "give at least one image")
    reader = tools.devices.still_reader()
    today = tools.today()
    results = [read_one(reader, path, today) for path in args.images]
    ok = all(r["mrz_lines"] and r["valid"] for r in results)
    return (ExitCode.OK if ok else ExitCode.REFUSED), (results[0] if len(results) == 1 else results)


def _watch_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="camera index (0), folder of images, video file or URL")
    parser.add_argument("--max-frames", type=FRAME_COUNT, default=300, help="1-100000")


def watch_document(args: argparse.Namespace, tools: Tools) -> CommandResult:
    start = time.perf_counter()
    camera = tools.devices.camera(args.source)
    got = watch(camera, tools.devices.live_reader(), args.max_frames)
    out: dict[str, object] = {
        "source": args.source,
        **reading_fields(got.read, tools.today()),
        "reason": got.reason,
        "frames": got.frames,
        "hints": got.hints,
        "ms": round((time.perf_counter() - start) * 1000.0, 1),
    }
    ok = got.read is not None and bool(out["valid"])
    return (ExitCode.OK if ok else ExitCode.REFUSED), out


READ_DOCUMENT = Command[Tools](
    "read-document", "read the MRZ of images", _read_arguments, read_document
)
WATCH_DOCUMENT = Command[Tools](
    "watch-document",
    "read the MRZ from a camera, a folder of images or a video (live)",
    _watch_arguments,
    watch_document,
)

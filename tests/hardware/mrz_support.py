"""The MRZ tests' shared setting: the real documents' folder, the day the tests run on,
the command line's read-document and watch-document run in this process, and flat
images of any size made without decoding (a JPEG, a PNG) for the untrusted-file tests."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

REAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "testdata" / "mrz-real"
TODAY = date(2026, 11, 29)


def cli_tools(camera: Any = None) -> Any:
    """The command line's tools on a clock at noon of TODAY; ``camera`` replaces the
    camera the composition root would open."""
    import dataclasses
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from admission.clock import FixedClock
    from main import build_tools

    at = datetime(TODAY.year, TODAY.month, TODAY.day, 12, tzinfo=ZoneInfo("Europe/Madrid"))
    tools = build_tools(Path("/nonexistent-data-dir"), clock=FixedClock(at))
    if camera is not None:
        tools = dataclasses.replace(
            tools, devices=dataclasses.replace(tools.devices, camera=lambda _source: camera)
        )
    return tools


def read_document_command(paths: list[str], *, as_json: bool, today: date) -> tuple[int, str]:
    """``read-document --json PATHS`` run in this process: (exit code, printed JSON)."""
    import argparse

    from ui.cli.read_document import read_document

    assert as_json and today == TODAY
    code, payload = read_document(argparse.Namespace(images=paths, json=True), cli_tools())
    return int(code), json.dumps(payload)


def watch_document_command(
    source: str, *, max_frames: int, today: date, camera: Any = None
) -> tuple[int, str]:
    """``watch-document SOURCE --max-frames N`` run in this process."""
    import argparse

    from ui.cli.read_document import watch_document

    assert today == TODAY
    args = argparse.Namespace(source=source, max_frames=max_frames)
    code, payload = watch_document(args, cli_tools(camera))
    return int(code), json.dumps(payload)


def camera_for(source: str) -> Any:
    from hardware.devices import camera

    return camera(source)


needs_real = pytest.mark.skipif(not (REAL / "truth.tsv").exists(), reason="mrz-real absent")


def flat_jpeg(width: int, height: int, orientation: int | None = None) -> bytes:
    """A baseline greyscale JPEG of one flat grey, written directly: every 8x8 block is
    coded as "DC difference 0, end of block" with one-code Huffman tables (ITU-T T.81
    F.1.2), 2 bits a block, so a 144-megapixel file is 0.56 MB and costs nothing to make.
    ``orientation`` adds an EXIF APP1 segment with tag 0x0112 (CIPA DC-008)."""
    import struct

    def segment(marker: int, body: bytes) -> bytes:
        return struct.pack(">HH", marker, len(body) + 2) + body

    out = [b"\xff\xd8"]
    if orientation is not None:
        ifd = b"\x00\x01" + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + bytes(4)
        out.append(segment(0xFFE1, b"Exif\0\0MM\0*\0\0\0\x08" + ifd))
    out.append(segment(0xFFDB, b"\x00" + b"\x01" * 64))  # quantisation table 0
    out.append(segment(0xFFC0, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00"))
    one_code = b"\x01" + bytes(15)  # one code of length 1 ...
    out.append(segment(0xFFC4, b"\x00" + one_code + b"\x00"))  # ... DC: category 0
    out.append(segment(0xFFC4, b"\x10" + one_code + b"\x00"))  # ... AC: end of block
    out.append(segment(0xFFDA, b"\x01\x01\x00\x00\x3f\x00"))
    bits = 2 * (-(-width // 8)) * (-(-height // 8))
    data = bytearray(bits // 8)
    if bits % 8:
        data.append((1 << (8 - bits % 8)) - 1)  # pad with 1-bits
    return b"".join([*out, bytes(data), b"\xff\xd9"])


def flat_png(width: int, height: int, colour_type: int = 6) -> bytes:
    """A black PNG (RGBA by default) compressed row by row: small file, large image."""
    import struct
    import zlib

    channels = {0: 1, 2: 3, 6: 4}[colour_type]

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    z = zlib.compressobj(9)
    row = bytes(1 + width * channels)
    idat = b"".join([*(z.compress(row) for _ in range(height)), z.flush()])
    ihdr = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"".join(
        [b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", ihdr), chunk(b"IDAT", idat), chunk(b"IEND", b"")]
    )

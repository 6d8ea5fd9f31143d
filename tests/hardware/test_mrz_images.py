"""Untrusted image files: not an image, truncated, giant, slivers, devices and pipes,
one bad image in a batch, and memory bounded while decoding."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray
from PIL import Image

from hardware.generators import synthetic
from hardware.mrz.images import (
    IMAGE_READ_FAILED,
    IMAGE_TOO_LARGE,
    IMAGE_TOO_SMALL,
    NOT_AN_IMAGE,
    TRUNCATED_IMAGE,
    ImageError,
    decode_image,
    load_image,
)
from hardware.mrz.reader import MRZ_UNREADABLE, NO_MRZ, MrzRead
from hardware.mrz.watch import read_one
from tests.hardware.mrz_support import (
    TODAY,
    flat_jpeg,
    flat_png,
    read_document_command,
)


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(ImageError) as err:
        decode_image(b"this is not an image at all")
    assert err.value.code == NOT_AN_IMAGE
    _ok, jpg = cv2.imencode(".jpg", synthetic.sample(1, 0).image)
    with pytest.raises(ImageError) as err:
        decode_image(jpg.tobytes()[: len(jpg) // 2])
    assert err.value.code == TRUNCATED_IMAGE
    # a PNG header claiming 100000 x 100000 pixels: refused before any allocation
    buf = io.BytesIO()
    Image.new("L", (1, 1)).save(buf, format="PNG")
    data = bytearray(buf.getvalue())
    data[16:24] = (100000).to_bytes(4, "big") * 2
    with pytest.raises(ImageError) as err:
        decode_image(bytes(data))
    assert err.value.code in (IMAGE_TOO_LARGE, NOT_AN_IMAGE)
    paths = [tmp_path / "a.txt", tmp_path / "missing.jpg"]
    paths[0].write_text("hello")
    code, text = read_document_command([str(p) for p in paths], as_json=True, today=TODAY)
    out = json.loads(text)
    assert code == 1 and [o["reason"] for o in out] == [NOT_AN_IMAGE, "FILE_NOT_FOUND"]
    assert read_document_command([], as_json=True, today=TODAY)[0] == 2


def test_fifty_megapixel_photo_is_bounded(tmp_path: Path) -> None:
    big = np.full((5800, 8700, 3), 180, np.uint8)  # 50.5 MP
    cv2.putText(big, "NOT AN MRZ", (500, 3000), cv2.FONT_HERSHEY_SIMPLEX, 20, (0, 0, 0), 40)
    path = tmp_path / "big.jpg"
    _ok, jpg = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 60])
    path.write_bytes(jpg.tobytes())
    del big
    start = time.perf_counter()
    _code, text = read_document_command([str(path)], as_json=True, today=TODAY)
    assert time.perf_counter() - start < 15
    out = json.loads(text)
    assert out["mrz_lines"] == [] and out["reason"] in (NO_MRZ, MRZ_UNREADABLE)


# --- untrusted image files: slivers, giants, devices and one bad image in a batch -----------


@pytest.mark.parametrize(("width", "height"), [(1, 6000), (6000, 1), (31, 400), (1, 1)])
def test_a_sliver_is_too_small_not_a_crash(width: int, height: int) -> None:
    _ok, png = cv2.imencode(".png", np.full((height, width, 3), 200, np.uint8))
    with pytest.raises(ImageError) as err:
        decode_image(png.tobytes())
    assert err.value.code == IMAGE_TOO_SMALL
    _ok, png = cv2.imencode(".png", np.full((32, 400, 3), 200, np.uint8))
    assert decode_image(png.tobytes()).shape == (32, 400, 3)


def test_one_bad_image_never_loses_the_batch(tmp_path: Path) -> None:
    sliver = tmp_path / "sliver.png"
    cv2.imwrite(str(sliver), np.full((1, 6000, 3), 200, np.uint8))
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((400, 600, 3), 200, np.uint8))
    code, text = read_document_command(
        [str(sliver), str(blank), str(tmp_path)], as_json=True, today=TODAY
    )
    out = json.loads(text)
    assert code == 1 and [o["reason"] for o in out] == [IMAGE_TOO_SMALL, NO_MRZ, NOT_AN_IMAGE]

    class FailingOnce:
        """A reader that fails (as a bug or MemoryError would) on its first image."""

        calls = 0

        def read_array(self, image: NDArray[np.uint8]) -> MrzRead:
            FailingOnce.calls += 1
            if FailingOnce.calls == 1:
                raise MemoryError
            return MrzRead(reason=NO_MRZ)

    reader: Any = FailingOnce()
    first, second = (read_one(reader, str(blank), TODAY) for _ in range(2))
    assert (first["reason"], second["reason"]) == (IMAGE_READ_FAILED, NO_MRZ)
    assert first["mrz_lines"] == [] and first["valid"] is False


def test_a_device_or_a_pipe_is_not_an_image(tmp_path: Path) -> None:
    with pytest.raises(ImageError) as err:
        load_image("/dev/zero")
    assert err.value.code == NOT_AN_IMAGE
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "frames.fifo"
        os.mkfifo(fifo)
        with pytest.raises(ImageError) as err:
            load_image(fifo)  # opened non-blocking: refused, never waits for a writer
        assert err.value.code == NOT_AN_IMAGE


def test_exif_orientation_of_a_large_jpeg_is_read_from_its_header(tmp_path: Path) -> None:
    path = tmp_path / "turned.jpg"
    path.write_bytes(flat_jpeg(10000, 8000, orientation=6))  # 80 MP, decoded at 1/4
    assert load_image(path).shape == (2500, 2000, 3)  # 2000 x 2500, then turned upright


_PEAK = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from hardware.mrz.images import ImageError, load_image

def hwm():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) // 1024

before = hwm()
start = time.perf_counter()
try:
    answer = "x".join(str(n) for n in load_image(sys.argv[2]).shape)
except ImageError as err:
    answer = str(err.code)
print(answer, before, hwm(), round(time.perf_counter() - start, 3))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
@pytest.mark.parametrize(
    ("name", "make", "answer", "growth_mib"),
    [
        ("144mp.jpg", lambda: flat_jpeg(12000, 12000, orientation=6), "IMAGE_TOO_LARGE", 30),
        ("80mp.jpg", lambda: flat_jpeg(10000, 8000), "2000x2500x3", 80),
        ("49mp-rgba.png", lambda: flat_png(7000, 7000), "IMAGE_TOO_LARGE", 30),
        ("19mp-rgba.png", lambda: flat_png(4400, 4400), "2600x2600x3", 250),
    ],
)
def test_a_huge_image_is_refused_or_read_in_bounded_memory(
    tmp_path: Path, name: str, make: Callable[[], bytes], answer: str, growth_mib: int
) -> None:
    """Measured in a fresh process (VmHWM): before the header was trusted, the 49 MP PNG
    went through Pillow's EXIF lookup, which decodes the whole image (2.3 GB peak)."""
    path = tmp_path / name
    path.write_bytes(make())
    root = str(Path(__file__).resolve().parents[2])
    run = subprocess.run(
        [sys.executable, "-c", _PEAK, root, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    got, before, after, seconds = run.stdout.split()
    assert got == answer
    assert int(after) - int(before) < growth_mib and int(after) < 300
    assert float(seconds) < 5


def test_a_progressive_jpeg_too_big_to_buffer_is_refused_before_decoding() -> None:
    data = bytearray(flat_jpeg(8000, 6000))
    sof = data.index(b"\xff\xc0")
    data[sof + 1] = 0xC2  # progressive: every coefficient is kept (48 MP x 2 bytes)
    with pytest.raises(ImageError) as err:
        decode_image(bytes(data))
    assert err.value.code == IMAGE_TOO_LARGE

"""The holder's portrait cut beside a located two-line MRZ (ICAO 9303 TD3/TD2 pages):
found on the public specimens with a face inside, found on a synthetic page at any
angle, and never cut for a TD1 back or a frame without an MRZ."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from admission.frames import Frame
from hardware.camera import array_to_frame
from hardware.generators.synthetic import GEOMETRY, render_document
from hardware.mrz.portrait import PORTRAIT_SIZE, PortraitCutter
from hardware.mrz.reader import MrzReader, frame_to_array

REAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "testdata" / "mrz-real"
needs_real = pytest.mark.skipif(not (REAL / "truth.tsv").exists(), reason="mrz-real absent")
PHOTO_FILL = (40, 90, 160)  # BGR of the synthetic page's photograph


def page(doc_format: str, seed: int = 7) -> tuple[NDArray[np.uint8], NDArray[np.float32]]:
    """A synthetic page whose photograph is one known colour, and its MRZ quad."""
    rng = np.random.default_rng(seed)
    count, length = GEOMETRY[doc_format]
    lines = ["<" * length] * count
    image, quad = render_document(lines, doc_format, rng)
    assert quad is not None
    h, w = image.shape[:2]
    x0, y0, ph_w = int(w * 0.05), int(h * 0.12), int(w * 0.28)
    cv2.rectangle(image, (x0, y0), (x0 + ph_w, int(y0 + ph_w * 1.25)), PHOTO_FILL, -1)
    return image, quad


def turned(
    image: NDArray[np.uint8], quad: NDArray[np.float32], angle: float
) -> tuple[NDArray[np.uint8], NDArray[np.float32]]:
    """The page turned by ``angle`` degrees on a larger dark frame, and its quad."""
    h, w = image.shape[:2]
    side = int(np.hypot(w, h)) + 40
    matrix = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0), np.float64)
    matrix[:, 2] += [(side - w) / 2, (side - h) / 2]
    frame = np.asarray(
        cv2.warpAffine(image, matrix, (side, side), borderValue=(30, 30, 30)), np.uint8
    )
    points = np.hstack([quad, np.ones((4, 1), np.float32)]) @ matrix.T
    return frame, points.astype(np.float32)


def pixels(portrait: Frame) -> NDArray[np.uint8]:
    return frame_to_array(portrait)


@pytest.mark.parametrize("angle", [0.0, 12.0, 90.0, 180.0, -100.0])
@pytest.mark.parametrize("doc_format", ["TD3", "TD2"])
def test_the_photograph_is_cut_at_any_angle(doc_format: str, angle: float) -> None:
    image, quad = page(doc_format)
    frame, moved = turned(image, quad, angle)
    portrait = PortraitCutter().cut(array_to_frame(frame, 1.0), moved, 2)
    assert portrait is not None
    assert (portrait.width, portrait.height) == PORTRAIT_SIZE
    centre = pixels(portrait)[120:260, 80:220].reshape(-1, 3).astype(int)
    share = float((np.abs(centre - PHOTO_FILL).max(axis=1) < 25).mean())
    assert share > 0.9, f"the middle of the portrait is the photograph ({share:.2f})"


def test_no_portrait_for_a_td1_back_or_without_an_mrz() -> None:
    image, quad = page("TD1")
    cutter = PortraitCutter()
    frame = array_to_frame(image, 0.0)
    assert cutter.cut(frame, quad, 3) is None  # the DNI's MRZ is on the back
    assert cutter.cut(frame, None, 2) is None


def test_a_page_mostly_out_of_the_frame_is_not_cut() -> None:
    image, quad = page("TD3")
    h = image.shape[0]
    shifted = quad.copy()
    shifted[:, 1] += h  # the MRZ below the frame's bottom edge: the zone is not in view
    assert PortraitCutter().cut(array_to_frame(image, 0.0), shifted, 2) is None


@needs_real
def test_the_specimens_portraits_hold_a_face() -> None:
    """Every public two-line specimen the reader locates gives a portrait, and in most
    of them the cascade finds the face again inside the portrait."""
    reader, cutter = MrzReader(), PortraitCutter()
    cascade = cv2.CascadeClassifier(
        cv2.data.haarcascades + "haarcascade_frontalface_default.xml"  # type: ignore[attr-defined]
    )
    tried = cut = faces = 0
    for line in (REAL / "truth.tsv").read_text().splitlines()[1:]:
        name, doc_type = line.split("\t")[:2]
        if doc_type not in ("TD2", "TD3"):
            continue
        image = np.asarray(cv2.imread(str(REAL / name)), np.uint8)
        read = reader.read_array(image)
        if len(read.lines) != 2 or read.quad is None:
            continue
        tried += 1
        portrait = cutter.cut(array_to_frame(image, 0.0), read.quad, 2)
        if portrait is None:
            continue
        cut += 1
        grey = cv2.cvtColor(pixels(portrait), cv2.COLOR_BGR2GRAY)
        found = cascade.detectMultiScale(grey, 1.1, 4, minSize=(60, 60))
        faces += int(len(found) > 0)
    assert tried >= 15
    assert cut >= tried - 1, f"{cut} of {tried} portraits cut"
    assert faces >= 0.8 * cut, f"a face in {faces} of {cut} portraits"

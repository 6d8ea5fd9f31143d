"""Live mode: frames fused until they agree, the camera's hints to the clerk, and
the command line's watch-document over folders, videos and cameras."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from admission.devices import DeviceStatus
from hardware.camera import array_to_frame
from hardware.camera.fake import FakeCamera, ImageFolderCamera, VideoFileCamera
from hardware.camera.opencv import OpenCvCamera
from hardware.generators import synthetic
from hardware.mrz.live import MIN_CHAR_HEIGHT_PX, LiveMrzReader, Quality, quality_of
from hardware.mrz.reader import MRZ_UNREADABLE, MrzRead, MrzReader
from hardware.mrz.watch import NO_READING
from tests.hardware.mrz_support import (
    TODAY,
    camera_for,
    watch_document_command,
)


@pytest.fixture(scope="module")
def reader() -> MrzReader:
    return MrzReader()


def test_live_reader_agrees_on_consecutive_frames_and_hints() -> None:
    live = LiveMrzReader(agree=2)
    blank = array_to_frame(np.full((720, 1280, 3), 128, np.uint8), 0.0)
    assert live.feed(blank).quality is Quality.NO_DOCUMENT
    s = synthetic.sample(99, 1)
    first = live.feed(array_to_frame(s.image, 0.1))
    assert first.quality is Quality.READING and first.read is None
    second = live.feed(array_to_frame(s.image, 0.2))
    assert second.quality is Quality.OK and second.read is not None
    assert list(second.read.lines) == s.lines
    # an interruption resets the agreement
    live.feed(array_to_frame(s.image, 0.3))
    live.feed(blank)
    assert live.feed(array_to_frame(s.image, 0.4)).quality is Quality.READING


def test_live_fusion_reads_small_print_that_no_single_frame_reads(reader: MrzReader) -> None:
    # an ID card held far from the camera (8 px per character), two frames: each alone
    # is refused; their fused probabilities pass every check digit, and read right
    frames = synthetic.sequence(20261201, 258, 2, pitch_px=8.0)
    assert [reader.read_array(f.image).reason for f in frames] == [MRZ_UNREADABLE] * 2
    live = LiveMrzReader(reader)
    assert live.feed(array_to_frame(frames[0].image, 0.0)).quality is not Quality.OK
    got = live.feed(array_to_frame(frames[1].image, 0.1))
    assert got.quality is Quality.OK and got.read is not None and got.read.verified
    assert list(got.read.lines) == frames[0].lines
    # the rule before fusion (two frames that each read the same) answers nothing here
    plain = LiveMrzReader(reader, fuse=False)
    assert [
        plain.feed(array_to_frame(f.image, k)).quality is Quality.OK for k, f in enumerate(frames)
    ] == [False, False]


def test_live_fusion_never_mixes_two_documents(reader: MrzReader) -> None:
    first, second = synthetic.sample(99, 4), synthetic.sample(99, 5)  # two passports
    assert first.identity and second.identity
    assert first.identity.doc_format == second.identity.doc_format == "TD3"
    live = LiveMrzReader(reader)
    assert live.feed(array_to_frame(first.image, 0.0)).quality is Quality.READING
    # the next passport: its first frame starts a new history instead of being fused
    assert live.feed(array_to_frame(second.image, 0.1)).quality is Quality.READING
    got = live.feed(array_to_frame(second.image, 0.2))
    assert got.quality is Quality.OK and got.read is not None
    assert list(got.read.lines) == second.lines


def test_live_fusion_does_not_take_a_misread_that_another_frame_contradicts() -> None:
    # two frames of one zone, each sure of a different character in the same place: the
    # fused character is doubtful, so nothing is answered (one frame's misread is not
    # taken), and the zone is read once a third frame agrees with one of them
    s = synthetic.sample(99, 1)

    class Scripted(MrzReader):
        def __init__(self) -> None:
            super().__init__()
            self.script: list[NDArray[np.float32]] = []

        def read_array(self, image: NDArray[Any]) -> MrzRead:
            read = super().read_array(image)
            assert read.probs is not None
            probs = read.probs.copy()
            if self.script:
                probs = self.script.pop(0)
            return MrzRead(
                read.lines,
                read.verified,
                confidence=read.confidence,
                quad=read.quad,
                char_height_px=read.char_height_px,
                candidates=read.candidates,
                probs=probs,
            )

    scripted = Scripted()
    clean = scripted.read_array(s.image).probs
    assert clean is not None
    letter = 5 + s.lines[0][5:].index(next(c for c in s.lines[0][5:] if c.isalpha()))
    wrong = clean.copy()
    k = int(wrong[0, letter].argmax())
    wrong[0, letter] = 0.0
    wrong[0, letter, (k + 1) % 26 + 10] = 1.0  # another letter, with full confidence
    scripted.script = [clean.copy(), wrong, clean.copy()]
    live = LiveMrzReader(scripted)
    frame = array_to_frame(s.image, 0.0)
    assert live.feed(frame).quality is Quality.READING
    assert live.feed(frame).quality is not Quality.OK  # clean and wrong disagree
    got = live.feed(frame)
    assert got.quality is Quality.OK and got.read is not None
    assert list(got.read.lines) == s.lines


def test_watch_document_reads_a_folder_of_frames_in_live_mode(tmp_path: Path) -> None:
    # an empty desk, then an ID card held far away for two frames (each refused alone)
    frames = synthetic.sequence(20261201, 258, 2, pitch_px=8.0)
    cv2.imwrite(str(tmp_path / "00.png"), np.full((720, 1280, 3), 128, np.uint8))
    for k, f in enumerate(frames, 1):
        cv2.imwrite(str(tmp_path / f"{k:02d}.png"), f.image)
    code, text = watch_document_command(str(tmp_path), max_frames=50, today=TODAY)
    out = json.loads(text)
    assert code == 0 and out["reason"] is None and out["valid"] is True
    assert out["mrz_lines"] == frames[0].lines and out["frames"] == 3
    assert out["hints"][0] == [1, "NO_DOCUMENT"] and out["hints"][-1] == [3, "OK"]
    assert out["document_number"] and out["birth_date"] and out["ms"] > 0


def test_watch_document_says_why_nothing_was_read() -> None:
    blank = array_to_frame(np.full((720, 1280, 3), 128, np.uint8), 0.0)
    camera = FakeCamera([blank, blank])
    code, text = watch_document_command("fake", max_frames=10, today=TODAY, camera=camera)
    out = json.loads(text)
    assert code == 1 and out["reason"] == NO_READING and out["mrz_lines"] == []
    assert out["frames"] == 2 and out["hints"] == [[1, "NO_DOCUMENT"]] and camera.closed
    # the frame budget ends the watch too
    code, text = watch_document_command(
        "fake", max_frames=3, today=TODAY, camera=FakeCamera([blank], loop=True)
    )
    assert code == 1 and json.loads(text)["frames"] == 3
    # a camera that is not there is named, and never read
    absent = FakeCamera([blank], status=DeviceStatus.NOT_FOUND)
    code, text = watch_document_command("1", max_frames=3, today=TODAY, camera=absent)
    out = json.loads(text)
    assert code == 1 and out["reason"] == "CAMERA_NOT_FOUND" and out["frames"] == 0
    assert absent.reads == 0 and absent.closed


def test_watch_document_sources(tmp_path: Path) -> None:
    video = tmp_path / "desk.avi"
    video.write_bytes(b"")
    assert isinstance(camera_for("0"), OpenCvCamera)
    assert isinstance(camera_for(str(tmp_path)), ImageFolderCamera)
    assert isinstance(camera_for(str(video)), VideoFileCamera)


def test_live_hints_for_a_far_or_blurred_document() -> None:
    live = LiveMrzReader()
    s = synthetic.sample(99, 1)
    small = cv2.resize(s.image, (320, 180), interpolation=cv2.INTER_AREA)
    far = np.full((720, 1280, 3), 90, np.uint8)
    far[270:450, 480:800] = small
    assert live.feed(array_to_frame(far, 0.0)).quality in (Quality.TOO_FAR, Quality.NO_DOCUMENT)
    blurred = cv2.GaussianBlur(s.image, (0, 0), 4)
    assert live.feed(array_to_frame(blurred, 0.1)).quality in (
        Quality.BLURRED,
        Quality.NO_DOCUMENT,
        Quality.TOO_FAR,
    )


def test_an_unread_small_mrz_asks_for_the_document_closer() -> None:
    # measured: MRZ characters under ~11 px high read at 80-92 %, above at 98-99 %
    grey = np.full((720, 1280), 120, np.uint8)
    quad = np.array([[100, 100], [500, 100], [500, 160], [100, 160]], np.float32)

    def unread(height: float) -> MrzRead:
        return MrzRead(reason=MRZ_UNREADABLE, quad=quad, char_height_px=height, candidates=1)

    assert quality_of(unread(MIN_CHAR_HEIGHT_PX - 1.5), grey) is Quality.TOO_FAR
    assert quality_of(unread(MIN_CHAR_HEIGHT_PX + 3.0), grey) is Quality.BLURRED
    grey[100:160, 100:500] = 255  # the same MRZ under glare: glare is what to fix first
    assert quality_of(unread(MIN_CHAR_HEIGHT_PX - 1.5), grey) is Quality.GLARE

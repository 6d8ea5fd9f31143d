"""Camera adapters and fakes: plain frames, preflight, reconnect, replay - no hardware."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from admission.devices import DeviceErrorCode, DeviceStatus
from admission.errors import DeviceError
from admission.frames import Frame
from hardware.camera import array_to_frame, refusal_code
from hardware.camera.fake import FakeCamera, ImageFolderCamera, VideoFileCamera
from hardware.camera.opencv import OpenCvCamera


def _image(value: int, w: int = 64, h: int = 48) -> NDArray[np.uint8]:
    img = np.full((h, w, 3), value, np.uint8)
    img[:, : w // 2, 2] = 255 - value
    return img


class ScriptedCapture:
    """Stands in for cv2.VideoCapture: replays (ok, image) answers, records calls."""

    def __init__(self, opened: bool, answers: list[tuple[bool, NDArray[np.uint8] | None]]) -> None:
        self.opened = opened
        self.answers = answers
        self.settings: dict[int, float] = {}
        self.released = False

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, NDArray[np.uint8] | None]:
        return self.answers.pop(0) if self.answers else (False, None)

    def set(self, prop: int, value: float) -> bool:
        self.settings[prop] = value
        return True

    def release(self) -> None:
        self.released = True


def test_array_to_frame_is_a_plain_value() -> None:
    frame = array_to_frame(_image(10), 1.5)
    assert isinstance(frame, Frame)
    assert (frame.width, frame.height, frame.channels, frame.stride) == (64, 48, 3, 192)
    assert isinstance(frame.data, bytes) and frame.timestamp == 1.5
    grey = array_to_frame(np.zeros((4, 5), np.uint8), 0.0)
    assert grey.channels == 1 and grey.stride == 5
    assert "data" not in repr(frame)


def test_opencv_camera_reads_requested_size_and_timestamps() -> None:
    caps: list[ScriptedCapture] = []

    def opener(source: int | str) -> ScriptedCapture:
        caps.append(ScriptedCapture(True, [(True, _image(1)), (True, _image(2))]))
        return caps[-1]

    cam = OpenCvCamera(0, width=1280, height=720, open_capture=opener, clock=lambda: 42.0)
    assert cam.preflight() is DeviceStatus.READY
    frame = cam.read()
    assert frame.timestamp == 42.0 and frame.width == 64
    assert caps[0].settings[cv2.CAP_PROP_FRAME_WIDTH] == 1280
    assert caps[0].settings[cv2.CAP_PROP_BUFFERSIZE] == 1  # always the newest frame
    cam.close()
    assert caps[0].released


def test_opencv_camera_reconnects_after_a_lost_device() -> None:
    script = [
        ScriptedCapture(True, [(True, _image(1)), (False, None)]),  # works, then drops
        ScriptedCapture(False, []),  # replugging: not there yet
        ScriptedCapture(True, [(True, _image(3))]),  # back
    ]
    sleeps: list[float] = []
    cam = OpenCvCamera(
        1,
        open_capture=lambda s: script.pop(0),
        sleep=sleeps.append,
        reconnect_attempts=3,
        reconnect_delay=0.2,
    )
    assert cam.read().data[:3] == bytes(_image(1)[0, 0])
    frame = cam.read()
    assert frame.data[:3] == bytes(_image(3)[0, 0])
    assert cam.reconnects == 2 and sleeps == [0.2, 0.2]


def test_opencv_camera_errors_are_domain_errors() -> None:
    cam = OpenCvCamera(
        "/nonexistent",
        open_capture=lambda s: ScriptedCapture(False, []),
        sleep=lambda s: None,
        reconnect_attempts=1,
    )
    assert cam.preflight() is DeviceStatus.NOT_FOUND
    with pytest.raises(DeviceError) as err:
        cam.read()
    assert err.value.code == DeviceErrorCode.CAMERA_NOT_FOUND

    caps = [ScriptedCapture(True, [(True, _image(1))])]
    caps += [ScriptedCapture(True, []) for _ in range(3)]
    cam = OpenCvCamera(
        0, open_capture=lambda s: caps.pop(0), sleep=lambda s: None, reconnect_attempts=2
    )
    cam.read()
    with pytest.raises(DeviceError) as err:
        cam.read()
    assert err.value.code == DeviceErrorCode.CAMERA_LOST


def test_a_camera_that_is_not_ready_is_named_by_a_member() -> None:
    # the watch-document reason: CAMERA_<status>, the JSON contract since it was a string
    for status in DeviceStatus:
        if status is not DeviceStatus.READY:
            code = refusal_code(status)
            assert isinstance(code, DeviceErrorCode) and code == f"CAMERA_{status.value}"
    assert refusal_code(DeviceStatus.READY) is DeviceErrorCode.CAMERA_ERROR


def test_opencv_camera_busy_when_opened_without_frames() -> None:
    cam = OpenCvCamera(0, open_capture=lambda s: ScriptedCapture(True, []))
    assert cam.preflight() is DeviceStatus.BUSY


def test_real_opencv_on_a_missing_file_is_not_found() -> None:
    cam = OpenCvCamera("/nonexistent/video.avi", reconnect_attempts=0, sleep=lambda s: None)
    assert cam.preflight() is DeviceStatus.NOT_FOUND


def test_fake_camera_replays_a_script_and_records() -> None:
    frames = [array_to_frame(_image(v), float(v)) for v in (1, 2)]
    cam = FakeCamera([frames[0], DeviceError("x", code=DeviceErrorCode.CAMERA_LOST), frames[1]])
    assert cam.preflight() is DeviceStatus.READY
    assert cam.read() is frames[0]
    with pytest.raises(DeviceError):
        cam.read()
    assert cam.read() is frames[1]
    with pytest.raises(DeviceError) as err:
        cam.read()
    assert err.value.code == DeviceErrorCode.CAMERA_END_OF_STREAM
    assert cam.reads == 4 and cam.preflights == 1
    looping = FakeCamera(frames, loop=True)
    assert [looping.read().timestamp for _ in range(5)] == [1.0, 2.0, 1.0, 2.0, 1.0]
    looping.close()
    assert looping.closed


def test_image_folder_camera(tmp_path: Path) -> None:
    assert ImageFolderCamera(tmp_path / "missing").preflight() is DeviceStatus.NOT_FOUND
    assert ImageFolderCamera(tmp_path).preflight() is DeviceStatus.NO_MEDIA
    for i, v in enumerate((10, 200)):
        cv2.imwrite(str(tmp_path / f"{i}.png"), _image(v))
    (tmp_path / "notes.txt").write_text("not an image")
    (tmp_path / "2.png").write_bytes(b"broken")
    cam = ImageFolderCamera(tmp_path, loop=False, clock=lambda: 7.0)
    assert cam.preflight() is DeviceStatus.READY
    values = [cam.read().data[0] for _ in range(2)]
    assert values == [10, 200]
    with pytest.raises(DeviceError):
        cam.read()


def test_video_file_camera(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for v in (20, 120, 220):
        writer.write(_image(v))
    writer.release()
    assert VideoFileCamera(tmp_path / "none.avi").preflight() is DeviceStatus.NOT_FOUND
    cam = VideoFileCamera(path, loop=True)
    assert cam.preflight() is DeviceStatus.READY
    seen = [cam.read() for _ in range(4)]  # the fourth wraps around
    assert all(f.width == 64 and f.height == 48 for f in seen)
    assert abs(seen[3].data[100] - seen[0].data[100]) < 12
    cam.close()
    once = VideoFileCamera(path, loop=False)
    for _ in range(3):
        once.read()
    with pytest.raises(DeviceError):
        once.read()

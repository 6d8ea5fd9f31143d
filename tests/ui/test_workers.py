"""The window's threads: the store worker runs jobs in order and answers on the GUI
thread; the camera worker drops frames while the reader is busy, survives a camera
that fails and picks it up again; readers and device probes report as signals."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from functools import partial

import pytest
from PySide6.QtCore import QThread
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from admission.devices import (
    DeviceErrorCode,
    DeviceStatus,
    ReaderStatusChanged,
    ScannerEvent,
)
from admission.errors import AdmissionError, DeviceError, NotFoundError
from admission.frames import Frame
from admission.mrz.burst import BurstDiscarded, BurstHint, CodeScanned, MrzScanned
from hardware.camera.fake import FakeCamera
from hardware.mrz.live import LiveUpdate, Quality
from ui.desk.desk_flow import DeskFlowCode
from ui.desk.workers import CameraWorker, DeviceWatch, ReaderWorker, StoreWorker, frame_to_image

WAIT = 5_000


def frame(n: int = 0, width: int = 1280, height: int = 720) -> Frame:
    return Frame(bytes([n % 256]) * (width * height), width, height, width, 1, float(n))


@pytest.fixture
def worker() -> Iterator[StoreWorker]:
    runner = StoreWorker()
    yield runner
    runner.stop()


def test_jobs_run_in_order_off_the_gui_thread_and_answer_on_it(
    qtbot: QtBot, worker: StoreWorker
) -> None:
    gui = QThread.currentThread()
    ran_on: list[object] = []
    answers: list[int] = []
    answered_on: list[object] = []

    def job(n: int) -> int:
        ran_on.append(threading.current_thread())
        time.sleep(0.01 * (5 - n))  # the first jobs are the slowest: order still holds
        return n

    def done(n: int) -> None:
        answers.append(n)
        answered_on.append(QThread.currentThread())

    for n in range(5):
        worker.submit(partial(job, n), done)
    qtbot.waitUntil(lambda: len(answers) == 5, timeout=WAIT)
    assert answers == [0, 1, 2, 3, 4]
    assert all(t is not threading.main_thread() for t in ran_on)
    assert len({id(t) for t in ran_on}) == 1  # one thread
    assert all(t == gui for t in answered_on)


def test_failures_are_codes_never_tracebacks(qtbot: QtBot, worker: StoreWorker) -> None:
    failures: list[AdmissionError] = []

    def known() -> int:
        raise NotFoundError("no such card")

    def bug() -> int:
        raise ZeroDivisionError("a bug")

    worker.submit(known, lambda _: None, failures.append)
    worker.submit(bug, lambda _: None, failures.append)
    qtbot.waitUntil(lambda: len(failures) == 2, timeout=WAIT)
    assert failures[0].code == "NOT_FOUND"
    assert failures[1].code == DeskFlowCode.JOB_FAILED
    with qtbot.waitSignal(worker.job_failed, timeout=WAIT) as unheard:
        worker.submit(bug, lambda _: None)  # nobody asked: the worker says so
    assert unheard.args[0] == DeskFlowCode.JOB_FAILED


def test_stop_runs_what_was_queued_then_joins(qtbot: QtBot) -> None:
    worker = StoreWorker()
    ran: list[int] = []
    for n in range(3):
        worker.submit(partial(ran.append, n), lambda _: None)
    worker.stop()
    assert ran == [0, 1, 2]
    worker.submit(lambda: ran.append(9), lambda _: None)  # after stop: ignored
    time.sleep(0.05)
    assert ran == [0, 1, 2]


class SlowReader:
    """A live reader that takes ``delay`` per frame and reads on frame ``answer_at``."""

    def __init__(self, delay: float, answer_at: int = 10**9) -> None:
        self.delay = delay
        self.fed: list[float] = []
        self.answer_at = answer_at

    def feed(self, f: Frame) -> LiveUpdate:
        self.fed.append(f.timestamp)
        time.sleep(self.delay)
        if len(self.fed) >= self.answer_at:
            from hardware.mrz.reader import MrzRead

            read = MrzRead(lines=("LINE1", "LINE2"), verified=True)
            return LiveUpdate(Quality.OK, read)
        return LiveUpdate(Quality.TOO_FAR)


def test_frames_are_dropped_while_the_reader_is_busy(qtbot: QtBot) -> None:
    frames: list[Frame | Exception] = [frame(n) for n in range(400)]
    camera = FakeCamera(frames)
    reader = SlowReader(0.05)
    worker = CameraWorker(lambda: camera, reader, preview_interval=1 / 15)
    previews: list[QImage] = []
    hints: list[str] = []
    worker.frame_ready.connect(previews.append)
    worker.hint_changed.connect(hints.append)
    worker.start()
    try:
        qtbot.waitUntil(lambda: camera.reads >= 400, timeout=WAIT)
        qtbot.wait(150)
    finally:
        worker.stop()
    assert worker.frames_read == 400
    assert 0 < worker.frames_fed < 400  # the reader skipped to the newest frame
    assert reader.fed == sorted(reader.fed)
    assert hints == ["TOO_FAR"]  # each change once
    assert previews and previews[0].width() <= 640  # downscaled


def test_an_unplugged_camera_is_shown_and_picked_up_again(qtbot: QtBot) -> None:
    opened: list[int] = []
    lost = DeviceError("gone", code=DeviceErrorCode.CAMERA_LOST)

    def open_camera() -> FakeCamera:
        opened.append(1)
        if len(opened) == 1:
            return FakeCamera([frame(1), frame(2), lost])  # works, then unplugged
        if len(opened) == 2:
            raise DeviceError("not there", code=DeviceErrorCode.CAMERA_NOT_FOUND)
        return FakeCamera([frame(n) for n in range(3, 50)], loop=True)  # plugged back

    worker = CameraWorker(open_camera, SlowReader(0.0), reopen_interval=0.2)
    statuses: list[tuple[str, str, str]] = []
    worker.status_changed.connect(lambda *args: statuses.append(args))
    worker.start()
    try:
        qtbot.waitUntil(lambda: len(statuses) >= 4, timeout=WAIT)
    finally:
        worker.stop()
    assert statuses[:4] == [
        ("camera", "READY", ""),
        ("camera", "LOST", "CAMERA_LOST"),
        ("camera", "LOST", "CAMERA_NOT_FOUND"),
        ("camera", "READY", ""),
    ]


def test_the_camera_reading_reaches_the_desk(qtbot: QtBot) -> None:
    camera = FakeCamera([frame(n) for n in range(50)], loop=True)
    worker = CameraWorker(lambda: camera, SlowReader(0.0, answer_at=3))
    worker.start()
    try:
        with qtbot.waitSignal(worker.mrz_read, timeout=WAIT) as read:
            pass
    finally:
        worker.stop()
    assert read.args == [("LINE1", "LINE2")]


def test_frame_to_image_keeps_colour_frames() -> None:
    colour = Frame(bytes(3 * 800 * 600), 800, 600, 2400, 3, 0.0)
    image = frame_to_image(colour)
    assert image.width() == 640 and not image.isNull()


class ScriptedReader:
    name = "scripted"

    def __init__(self, events: list[ScannerEvent]) -> None:
        self.events = events

    def preflight(self) -> DeviceStatus:
        return DeviceStatus.READY

    def listen(self, stop: threading.Event) -> Iterator[ScannerEvent]:
        yield from self.events
        stop.wait(5)


def test_a_reader_s_events_become_signals(qtbot: QtBot) -> None:
    reader = ScriptedReader(
        [
            ReaderStatusChanged(DeviceStatus.READY),
            MrzScanned("TD1", ("A" * 30, "B" * 30, "C" * 30), 0.0, 0.1),
            CodeScanned("ADM1-X-1-ABCDEFGH", 0.2, 0.3),
            BurstDiscarded(BurstHint.BURST_PARTIAL, 0.4, 0.5, 12),
            ReaderStatusChanged(DeviceStatus.LOST, "unplugged"),
        ]
    )
    worker = ReaderWorker(reader)
    got: list[object] = []
    worker.mrz_scanned.connect(got.append)
    worker.code_scanned.connect(got.append)
    worker.burst_discarded.connect(got.append)
    worker.status_changed.connect(lambda *a: got.append(a))
    worker.start()
    try:
        qtbot.waitUntil(lambda: len(got) == 5, timeout=WAIT)
    finally:
        worker.stop()
    assert got == [
        ("reader:scripted", "READY", ""),
        ("A" * 30, "B" * 30, "C" * 30),
        "ADM1-X-1-ABCDEFGH",
        "BURST_PARTIAL",
        ("reader:scripted", "LOST", "unplugged"),
    ]


def test_device_probes_report_changes_and_garbage(qtbot: QtBot) -> None:
    answers = iter([("READY", ""), ("READY", ""), ("NO_MEDIA", "PRINTER_NO_MEDIA")])

    def printer() -> tuple[str, str]:
        return next(answers)

    def broken() -> tuple[str, str]:
        raise ValueError("garbage from the device")

    watch = DeviceWatch({"printer": printer, "scanner": broken})
    seen: list[tuple[str, str, str]] = []
    watch.status_changed.connect(lambda *a: seen.append(a))
    for _ in range(3):
        watch.poll_once()
    assert seen == [
        ("printer", "READY", ""),
        ("scanner", "ERROR", "DEVICE_GARBAGE"),
        ("printer", "NO_MEDIA", "PRINTER_NO_MEDIA"),
    ]


def test_the_refusal_sound_is_not_the_admission_sound() -> None:
    import io
    import wave

    from hardware.sound import _TUNES, Sound, TonePlayer, tone_wav

    admit, refuse = tone_wav(_TUNES[Sound.ADMIT]), tone_wav(_TUNES[Sound.REFUSE])
    assert admit != refuse
    with wave.open(io.BytesIO(refuse)) as wav:
        assert wav.getframerate() == 22_050 and wav.getnframes() > 0
    beeps: list[int] = []
    quiet = TonePlayer(beep=lambda: beeps.append(1), platform="linux", which=lambda _: None)
    quiet.play(Sound.REFUSE)  # no paplay/aplay: the system bell
    assert beeps == [1] and quiet.played == [Sound.REFUSE]

"""The desk window's threads: the visitor file, the camera, the readers, the devices.

* :class:`StoreWorker` - the one thread that touches the visitor file (``ui.desk.jobs.JobRunner``):
  jobs run in order; their answers come back on the GUI thread through a queued signal,
  so a slow disk never freezes the window. An unexpected exception is a failure with
  the code ``JOB_FAILED``, never a traceback on screen.
* :class:`CameraWorker` - capture and reading decoupled: one thread reads frames and
  sends a small preview at most ~15 times a second; another feeds the newest frame to
  the live MRZ reader, and frames that arrive while it is busy are dropped. A camera
  that fails is reopened every second, so an unplugged camera shows within 2 s and is
  picked up again without a restart. When the reader agrees on an MRZ, the holder's
  portrait beside it (``hardware.mrz.portrait``) is cut from that frame on the reading
  thread and handed on in memory only (``portrait_found``), after the lines.
* :class:`ReaderWorker` - a serial (or fake) document reader's ``listen`` loop.
* :class:`DeviceWatch` - printer and register state every second, off the GUI thread.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from PySide6.QtCore import QObject, QThread, Signal, Slot
from PySide6.QtGui import QImage

from admission.devices import (
    Camera,
    DeviceStatus,
    DocumentReader,
    ReaderStatusChanged,
)
from admission.errors import AdmissionError, DeviceError
from admission.frames import Frame
from admission.mrz.burst import BurstDiscarded, CodeScanned, MrzScanned
from ui.desk.desk_flow import DeskFlowCode

if TYPE_CHECKING:
    from numpy import ndarray

    from hardware.mrz.live import LiveUpdate

__all__ = [
    "PREVIEW_INTERVAL",
    "PREVIEW_WIDTH",
    "CameraWorker",
    "DeviceWatch",
    "LiveReader",
    "ReaderWorker",
    "StoreWorker",
    "frame_to_image",
]

log = logging.getLogger(__name__)
T = TypeVar("T")

PREVIEW_INTERVAL = 1.0 / 15  # at most ~15 preview images a second
PREVIEW_WIDTH = 640  # previews are downscaled to this width
REOPEN_INTERVAL = 1.0  # a failed camera is opened again every second
POLL_INTERVAL = 1.0  # printer and register state


class LiveReader(Protocol):
    """What the camera worker needs of ``hardware.mrz.live.LiveMrzReader``."""

    def feed(self, frame: Frame) -> LiveUpdate: ...


class PortraitSource(Protocol):
    """What the camera worker needs of ``hardware.mrz.portrait.PortraitCutter``."""

    def cut(self, frame: Frame, quad: ndarray[Any, Any] | None, lines: int) -> Frame | None: ...


class JobError(AdmissionError):
    """An unexpected exception in a background job (its type is logged, not shown)."""

    code = DeskFlowCode.JOB_FAILED


class _JobThread(QThread):
    def __init__(self, loop: Callable[[], None]) -> None:
        super().__init__()
        self._loop = loop
        self.setObjectName("store-worker")

    def run(self) -> None:
        self._loop()


class StoreWorker(QObject):
    """One thread, jobs in order; ``done``/``failed`` run on the GUI thread."""

    _answered = Signal(object)  # a callable to run on the GUI thread
    job_failed = Signal(str, str)  # code, English detail: a failure nobody asked to hear

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._answered.connect(self._deliver)
        self._thread = _JobThread(self._run)
        self._stopped = False
        self._thread.start()

    def submit(
        self,
        job: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[AdmissionError], None] | None = None,
    ) -> None:
        if self._stopped:
            return

        def work() -> None:
            try:
                answer = job()
            except AdmissionError as exc:
                known: AdmissionError = exc  # ``exc`` is unbound after the block
                self._answered.emit(lambda: self._fail(failed, known))
                return
            except Exception as exc:  # never a traceback in the window
                log.exception("store job failed: %s", type(exc).__name__)
                error = JobError(type(exc).__name__)
                self._answered.emit(lambda: self._fail(failed, error))
                return
            self._answered.emit(lambda: done(answer))

        self._jobs.put(work)

    def _fail(self, failed: Callable[[AdmissionError], None] | None, exc: AdmissionError) -> None:
        if failed is not None:
            failed(exc)
        else:
            self.job_failed.emit(str(exc.code), str(exc))

    @Slot(object)
    def _deliver(self, call: Callable[[], None]) -> None:
        try:
            call()
        except Exception:
            log.exception("a job's answer could not be shown")

    def _run(self) -> None:
        while True:
            work = self._jobs.get()
            if work is None:
                return
            work()

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """For tests: True once every job submitted so far has run."""
        done = threading.Event()
        self._jobs.put(done.set)
        return done.wait(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """Run the jobs already queued, then join the thread."""
        if self._stopped:
            return
        self._stopped = True
        self._jobs.put(None)
        self._thread.wait(int(timeout * 1000))


def frame_to_image(frame: Frame, width: int = PREVIEW_WIDTH) -> QImage:
    """A downscaled copy of ``frame`` (BGR or grey) as a QImage."""
    fmt = QImage.Format.Format_BGR888 if frame.channels == 3 else QImage.Format.Format_Grayscale8
    image = QImage(frame.data, frame.width, frame.height, frame.stride, fmt).copy()
    if image.width() > width:
        image = image.scaledToWidth(width)
    return image


class CameraWorker(QThread):
    """Reads a camera and its MRZ. ``open_camera`` makes the camera (again, after a
    failure); ``live`` is owned by this worker's reading thread."""

    frame_ready = Signal(QImage)
    hint_changed = Signal(str)  # a hardware.mrz.live.Quality value
    mrz_read = Signal(object)  # tuple[str, ...]: the agreed lines
    # (the agreed lines, the holder's portrait beside them): memory only, never stored
    portrait_found = Signal(object, QImage)
    status_changed = Signal(str, str, str)  # "camera", DeviceStatus, detail code

    def __init__(
        self,
        open_camera: Callable[[], Camera],
        live: LiveReader,
        parent: QObject | None = None,
        *,
        reopen_interval: float = REOPEN_INTERVAL,
        preview_interval: float = PREVIEW_INTERVAL,
        portrait: PortraitSource | None = None,
    ) -> None:
        super().__init__(parent)
        self._open = open_camera
        self._live = live
        self._portrait = portrait  # used on the reading thread only
        self._stop = threading.Event()
        self._newest: Frame | None = None
        self._cond = threading.Condition()
        self._reopen = reopen_interval
        self._preview = preview_interval
        self._reader = threading.Thread(target=self._read_loop, name="mrz-live", daemon=True)
        self.frames_read = 0  # captured (for tests)
        self.frames_fed = 0  # given to the live reader; the rest were dropped

    def stop(self, timeout_ms: int = 5000) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self.wait(timeout_ms)
        if self._reader.is_alive():
            self._reader.join(timeout_ms / 1000)

    def run(self) -> None:
        self._reader.start()
        last_status = ""
        while not self._stop.is_set():
            camera: Camera | None = None
            try:
                camera = self._open()
                status = camera.preflight()
                if status is not DeviceStatus.READY:
                    raise DeviceError(f"camera {status}")
                if last_status != DeviceStatus.READY:
                    self.status_changed.emit("camera", DeviceStatus.READY.value, "")
                    last_status = DeviceStatus.READY
                self._capture(camera)
            except DeviceError as err:
                code = str(err.code)
                if last_status != code:
                    self.status_changed.emit("camera", DeviceStatus.LOST.value, code)
                    last_status = code
            except Exception as err:  # an adapter's bug: shown as a device error
                log.warning("camera failed: %s", type(err).__name__)
                if last_status != "ERROR":
                    self.status_changed.emit(
                        "camera", DeviceStatus.ERROR.value, DeskFlowCode.DEVICE_GARBAGE.value
                    )
                    last_status = "ERROR"
            finally:
                if camera is not None:
                    try:
                        camera.close()
                    except Exception:
                        log.warning("camera close failed")
            self._stop.wait(self._reopen)

    def _capture(self, camera: Camera) -> None:
        last_preview = 0.0
        while not self._stop.is_set():
            frame = camera.read()
            self.frames_read += 1
            with self._cond:
                self._newest = frame  # the reader takes the newest; older ones are dropped
                self._cond.notify()
            now = time.monotonic()
            if now - last_preview >= self._preview:
                last_preview = now
                self.frame_ready.emit(frame_to_image(frame))

    def _read_loop(self) -> None:
        last_hint = ""
        while not self._stop.is_set():
            with self._cond:
                while self._newest is None and not self._stop.is_set():
                    self._cond.wait(0.5)
                frame, self._newest = self._newest, None
            if frame is None:
                continue
            self.frames_fed += 1
            try:
                update = self._live.feed(frame)
            except Exception as err:
                log.warning("live reader failed on a frame: %s", type(err).__name__)
                continue
            hint = update.quality.value
            if hint != last_hint:
                self.hint_changed.emit(hint)
                last_hint = hint
            if update.read is not None and update.read.lines:
                lines = tuple(update.read.lines)
                self.mrz_read.emit(lines)
                self._cut_portrait(frame, update, lines)

    def _cut_portrait(self, frame: Frame, update: LiveUpdate, lines: tuple[str, ...]) -> None:
        """The portrait beside the MRZ just read, after the lines (the verdict is not
        kept waiting for it); a failure only means no portrait."""
        if self._portrait is None or update.read is None:
            return
        try:
            portrait = self._portrait.cut(frame, update.read.quad, len(lines))
        except Exception as err:  # an adapter's bug: the verdict goes on without a photo
            log.warning("portrait not cut: %s", type(err).__name__)
            return
        if portrait is not None:
            self.portrait_found.emit(lines, frame_to_image(portrait))


class ReaderWorker(QThread):
    """Runs ``reader.listen(stop)`` and turns its events into signals."""

    mrz_scanned = Signal(object)  # tuple[str, ...]
    code_scanned = Signal(str)  # untrusted text: plain text only
    burst_discarded = Signal(str)
    status_changed = Signal(str, str, str)  # reader name, DeviceStatus, detail

    def __init__(self, reader: DocumentReader, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._reader = reader
        self._stop = threading.Event()
        self.device = f"reader:{reader.name}"[:60]

    def stop(self, timeout_ms: int = 5000) -> None:
        self._stop.set()
        self.wait(timeout_ms)

    def run(self) -> None:
        try:
            for event in self._reader.listen(self._stop):
                if isinstance(event, MrzScanned):
                    self.mrz_scanned.emit(tuple(event.lines))
                elif isinstance(event, CodeScanned):
                    self.code_scanned.emit(event.text)
                elif isinstance(event, BurstDiscarded):
                    self.burst_discarded.emit(event.code.value)
                elif isinstance(event, ReaderStatusChanged):
                    self.status_changed.emit(self.device, event.status.value, event.detail[:200])
        except Exception as err:  # listen never raises for device trouble; a bug might
            log.warning("reader failed: %s", type(err).__name__)
            self.status_changed.emit(
                self.device, DeviceStatus.ERROR.value, DeskFlowCode.DEVICE_GARBAGE.value
            )


class DeviceWatch(QThread):
    """Polls ``probes`` (device name -> callable answering ``(status, detail)``) every
    ``interval`` seconds and reports each change."""

    status_changed = Signal(str, str, str)

    def __init__(
        self,
        probes: dict[str, Callable[[], tuple[str, str]]],
        parent: QObject | None = None,
        *,
        interval: float = POLL_INTERVAL,
    ) -> None:
        super().__init__(parent)
        self._probes = dict(probes)
        self._interval = interval
        self._stop = threading.Event()
        self._last: dict[str, tuple[str, str]] = {}

    def stop(self, timeout_ms: int = 5000) -> None:
        self._stop.set()
        self.wait(timeout_ms)

    def poll_once(self) -> None:
        for name, probe in self._probes.items():
            try:
                answer: Any = probe()
                status, detail = str(answer[0]), str(answer[1])[:200]
            except Exception as err:  # a device answering garbage: say so, keep polling
                log.warning("device %s probe failed: %s", name, type(err).__name__)
                status, detail = DeviceStatus.ERROR.value, DeskFlowCode.DEVICE_GARBAGE.value
            if self._last.get(name) != (status, detail):
                self._last[name] = (status, detail)
                self.status_changed.emit(name, status, detail)

    def run(self) -> None:
        while not self._stop.is_set():
            self.poll_once()
            self._stop.wait(self._interval)

"""The device factories the composition root hands to the desk (``ui.context.Devices``).

Each builds one real adapter when a handler asks for it; the heavy libraries (OpenCV,
Tesseract, CUPS, Qt printing, the serial port, the RIAJ's SOAP client) are imported only
then, so a command that never touches a device never loads them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from admission.devices import Camera, CardPrinter, DeviceStatus, DocumentReader, SoundPlayer
from admission.errors import DeviceError
from admission.settings import Settings

if TYPE_CHECKING:
    from admission.registry.port import InterdictionRegistry
    from hardware.mrz.live import LiveMrzReader
    from hardware.mrz.portrait import PortraitCutter
    from hardware.mrz.reader import MrzReader


def printer(backend: str, target: str, data_dir: Path) -> CardPrinter:
    """``backend`` "cups" or "qt" with the queue ``target``, else a PDF folder
    (``target``, or ``data_dir/cards`` when empty)."""
    if backend == "cups":
        from hardware.printer.cups import CupsPrinter

        return CupsPrinter(target)
    if backend == "qt":
        from hardware.printer.qt import QtPrinter

        return QtPrinter(target)
    from hardware.printer.pdf_folder import PdfFolderPrinter

    return PdfFolderPrinter(Path(target) if target else data_dir / "cards")


def card_printer(settings: Settings, data_dir: Path, demo: bool) -> CardPrinter:
    """The configured card printer; the demo always prints to a PDF folder."""
    backend = "pdf-folder" if demo else settings["printer.backend"]
    if backend in ("cups", "qt"):
        return printer(backend, settings["printer.card"], data_dir)
    return printer(backend, settings["printer.pdf_folder"], data_dir)


def printer_check(data_dir: Path, backend: str, target: str) -> DeviceStatus:
    """The preflight answer of a printer chosen on the settings screen, before it is
    saved (:func:`printer`'s ``backend`` and ``target``). Never raises for a device
    fault."""
    try:
        return printer(backend, target, data_dir).preflight().status
    except (DeviceError, OSError):
        return DeviceStatus.ERROR


def online_registry(settings: Settings) -> InterdictionRegistry:
    """The RIAJ's online client of ``settings`` (the wizard's test, art. 20.2)."""
    from hardware.registry.soap_client import client_from_settings

    return client_from_settings(settings)


def camera(source: str) -> Camera:
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


def still_reader() -> MrzReader:
    from hardware.mrz.reader import MrzReader

    return MrzReader()


def live_reader() -> LiveMrzReader:
    from hardware.mrz.live import LiveMrzReader

    return LiveMrzReader()


def portrait_cutter() -> PortraitCutter:
    from hardware.mrz.portrait import PortraitCutter

    return PortraitCutter()


def serial_reader(port: str, baud: int) -> DocumentReader:
    from hardware.scanner.serial_reader import SerialDocumentReader

    return SerialDocumentReader(port, baudrate=baud)


def replay_reader(recordings: Sequence[Path]) -> DocumentReader:
    """Replays recorded bursts at once (raises OSError/ValueError for a bad file)."""
    from hardware.scanner.fake import FakeDocumentReader, Pause, load_recording

    script = [step for path in recordings for step in (load_recording(path), Pause(0.0))]
    return FakeDocumentReader(script, sleep=lambda _s: None)


def sound(beep: Callable[[], None] | None) -> SoundPlayer:
    """The desk's tones (art. 21); ``beep`` when the machine has no sound program."""
    from hardware.sound import TonePlayer

    return TonePlayer(beep=beep)

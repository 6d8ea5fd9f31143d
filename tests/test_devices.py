"""One device-status vocabulary and one set of device error codes (STYLE.md rule 8).

Every adapter and fake answers ``preflight()`` with :class:`DeviceStatus` (a printer with a
:class:`PrinterState` whose ``status`` is one), and raises :class:`DeviceError` with a
:class:`DeviceErrorCode` member, never a free string.
"""

from __future__ import annotations

import ast
import threading
import typing
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from admission.codes import Code, all_code_enums
from admission.devices import (
    CardPrinter,
    DeviceErrorCode,
    DeviceStatus,
    PrinterState,
    ReaderStatusChanged,
)
from hardware.barcode import FallbackDecoder
from hardware.barcode.fake import FakeDecoder
from hardware.barcode.zbar import ZbarDecoder
from hardware.barcode.zxing import ZxingDecoder
from hardware.camera.fake import FakeCamera, ImageFolderCamera, VideoFileCamera
from hardware.camera.opencv import OpenCvCamera
from hardware.printer.cups import CupsPrinter, parse_printer_status
from hardware.printer.fake import FakePrinter
from hardware.printer.pdf_folder import PdfFolderPrinter
from hardware.printer.qt import QtPrinter
from hardware.scanner.fake import FakeDocumentReader
from hardware.scanner.serial_reader import SerialDocumentReader

ROOT = Path(__file__).resolve().parents[1]
DEVICE_PACKAGES = ("camera", "scanner", "barcode", "printer")

STATUS_ADAPTERS: list[type] = [
    OpenCvCamera,
    FakeCamera,
    ImageFolderCamera,
    VideoFileCamera,
    SerialDocumentReader,
    FakeDocumentReader,
    ZxingDecoder,
    ZbarDecoder,
    FallbackDecoder,
    FakeDecoder,
]
PRINTERS: list[type] = [CupsPrinter, QtPrinter, PdfFolderPrinter, FakePrinter]


def _preflight_answer(adapter: type) -> object:
    return typing.get_type_hints(vars(adapter)["preflight"])["return"]


@pytest.mark.parametrize("adapter", STATUS_ADAPTERS, ids=lambda a: a.__name__)
def test_every_camera_reader_and_decoder_declares_device_status(adapter: type) -> None:
    assert _preflight_answer(adapter) is DeviceStatus


@pytest.mark.parametrize("adapter", PRINTERS, ids=lambda a: a.__name__)
def test_every_printer_declares_a_state_whose_status_is_device_status(adapter: type) -> None:
    assert _preflight_answer(adapter) is PrinterState
    assert typing.get_type_hints(PrinterState)["status"] is DeviceStatus
    assert typing.get_type_hints(ReaderStatusChanged)["status"] is DeviceStatus


def _no_port(port: str, baudrate: int) -> typing.NoReturn:
    """A serial factory whose port never opens (no such device)."""
    raise FileNotFoundError(2, "No such file or directory")


class _OneFrameCapture:
    """Stands in for cv2.VideoCapture: opens and delivers one grey frame."""

    def isOpened(self) -> bool:
        return True

    def read(self) -> tuple[bool, object]:
        return True, np.zeros((4, 4), np.uint8)

    def set(self, prop: int, value: float) -> bool:
        return True

    def release(self) -> None:
        pass


def _runtime_cases(tmp: Path) -> list[tuple[str, Callable[[], object]]]:
    return [
        ("OpenCvCamera", OpenCvCamera(0, open_capture=lambda _s: _OneFrameCapture()).preflight),
        ("FakeCamera", FakeCamera([], status=DeviceStatus.BUSY).preflight),
        ("ImageFolderCamera", ImageFolderCamera(tmp / "none").preflight),
        ("VideoFileCamera", VideoFileCamera(tmp / "none.avi").preflight),
        ("SerialDocumentReader", SerialDocumentReader("/dev/x", serial_factory=_no_port).preflight),
        ("FakeDocumentReader", FakeDocumentReader([], status=DeviceStatus.LOST).preflight),
        ("ZxingDecoder", ZxingDecoder().preflight),
        ("ZbarDecoder", ZbarDecoder().preflight),
        ("FallbackDecoder", FallbackDecoder(FakeDecoder(), FakeDecoder()).preflight),
        ("FakeDecoder", FakeDecoder(status=DeviceStatus.NOT_FOUND).preflight),
    ]


def test_every_preflight_answers_a_device_status_member(tmp_path: Path) -> None:
    for name, preflight in _runtime_cases(tmp_path):
        assert type(preflight()) is DeviceStatus, name
    printers: list[CardPrinter] = [
        PdfFolderPrinter(tmp_path / "pdf"),
        FakePrinter(script=["PAUSED"]),
    ]
    states = [p.preflight() for p in printers]
    states.append(parse_printer_status("printer Cards is idle.  enabled since x", "accepting"))
    for state in states:
        assert isinstance(state, PrinterState) and type(state.status) is DeviceStatus


def test_a_reader_losing_its_port_reports_device_status() -> None:
    reader = FakeDocumentReader([ReaderStatusChanged(DeviceStatus.LOST, "unplugged")])
    events = list(reader.listen(threading.Event()))
    assert events == [ReaderStatusChanged(DeviceStatus.LOST, "unplugged")]
    assert type(reader.preflight()) is DeviceStatus


def test_the_status_values_are_the_printed_ones() -> None:
    # the command line prints them ("status": "READY"): values never change
    assert [s.value for s in DeviceStatus] == [
        "READY",
        "NOT_FOUND",
        "NO_MEDIA",
        "BUSY",
        "PAUSED",
        "REJECTING",
        "LOST",
        "ERROR",
    ]
    assert {s for s in DeviceStatus if s.usable} == {DeviceStatus.READY, DeviceStatus.BUSY}


def test_device_error_codes_are_unique_stable_codes() -> None:
    members = DeviceErrorCode.__members__  # aliases included: a duplicate value shows here
    values = [member.value for member in members.values()]
    assert len(values) == len(set(values))
    assert all(name == member.value for name, member in members.items())
    assert issubclass(DeviceErrorCode, Code) and DeviceErrorCode in all_code_enums()


def _device_error_codes(path: Path) -> list[ast.expr]:
    """The ``code=`` argument of every ``DeviceError(...)`` call in ``path``."""
    found: list[ast.expr] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "DeviceError":
            found.extend(k.value for k in node.keywords if k.arg == "code")
    return found


def test_adapters_raise_device_error_codes_not_free_strings() -> None:
    seen = 0
    for package in DEVICE_PACKAGES:
        for path in sorted((ROOT / "hardware" / package).glob("*.py")):
            for code in _device_error_codes(path):
                seen += 1
                free = isinstance(code, ast.Constant | ast.JoinedStr)
                assert not free, f"{path.relative_to(ROOT)}:{code.lineno} raises a free code"
    assert seen >= 10, "the checker found no DeviceError calls: is it still looking?"

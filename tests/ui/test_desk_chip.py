"""The document's chip at the desk window (art. 23.1): read after the MRZ, on the chip
reader's own worker, its photo beside the verdict (memory only, dropped with it), its
status on the banner; a forged chip refused whatever the director does; the CAN asked
once per document. A scripted chip station stands for the reader (the real one is
``hardware.chip`` behind ``main.py``)."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from admission.chip import ChipAuthentication, ChipCheck, ChipCode
from admission.devices import DeviceStatus
from admission.mrz.burst import MrzScanned
from hardware.sound import TonePlayer
from tests.ui.conftest import DIRECTOR, FakeSession
from tests.ui.test_desk_window import case, win_worker_idle
from ui.context import AppContext
from ui.desk import chip_reading
from ui.desk.demo_scenario import seed_demo_file
from ui.desk.desk_window import DeskWindow
from ui.desk.dialogs.chip_can import CanDialog
from ui.desk.ops import cards
from ui.desk.text import message
from ui.desk.wedge_filter import WedgeFilter
from ui.desk.window_build import build_desk_window
from ui.desk.workers import DeviceWatch

WAIT = 10_000
GENUINE = ChipCheck(None, "PACE", ChipAuthentication.CHIP_AUTHENTICATION, "ESP")
FORGED = ChipCheck(ChipCode.DG1_MRZ_MISMATCH, "PACE", ChipAuthentication.NONE, "ESP")


def face_jpeg(seed: int = 7) -> bytes:
    """An invented face (ellipses on a plain ground), as a chip's DG2 JPEG."""
    image = Image.new("RGB", (240, 320), (200 - seed, 210, 220))
    draw = ImageDraw.Draw(image)
    draw.ellipse((50, 50, 190, 230), fill=(224, 180, 150))
    draw.ellipse((85, 110, 105, 125), fill=(40, 40, 40))
    draw.ellipse((135, 110, 155, 125), fill=(40, 40, 40))
    draw.arc((90, 150, 150, 200), 20, 160, fill=(120, 40, 40), width=4)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


PHOTO = face_jpeg()


@dataclass(frozen=True)
class Read:
    check: ChipCheck
    photo: bytes = b""
    photo_mime: str = "image/jpeg"


@dataclass
class ScriptedStation:
    """A chip reader whose chip answers ``check`` with ``PHOTO``; with ``can`` set, only
    that CAN opens it (CAN_NEEDED otherwise). Records each read's key (never its MRZ)."""

    check: ChipCheck = GENUINE
    can: str = ""
    reads: list[tuple[str, bool]] = field(default_factory=list)  # (can, printed MRZ given)
    threads: list[str] = field(default_factory=list)

    def preflight(self) -> DeviceStatus:
        return DeviceStatus.READY

    def trust_warning(self) -> str:
        return ""

    def read(
        self,
        *,
        document_number: str,
        birth: str,
        expiry: str,
        can: str,
        printed_mrz: str | None,
        at: datetime,
    ) -> Read:
        assert len(birth) == 6 and len(expiry) == 6 and document_number
        self.reads.append((can, bool(printed_mrz)))
        self.threads.append(threading.current_thread().name)
        if self.can and can != self.can:
            code = ChipCode.CAN_NEEDED if not can else ChipCode.ACCESS_DENIED
            return Read(ChipCheck(code))
        return Read(self.check, PHOTO)


@pytest.fixture
def station() -> ScriptedStation:
    return ScriptedStation()


@pytest.fixture
def window(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession, station: ScriptedStation
) -> Iterator[tuple[DeskWindow, WedgeFilter]]:
    seed_demo_file(demo_ctx)
    win = build_desk_window(
        demo_ctx,
        session,
        authorise=lambda purpose: DIRECTOR,
        demo=True,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
        chip=station,
    )
    qtbot.addWidget(win)
    wedge = WedgeFilter(parent=win)
    win.connect_wedge(wedge)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    win.start()
    yield win, wedge
    win.stop()


def scan(win: DeskWindow, wedge: WedgeFilter, lines: tuple[str, ...]) -> None:
    now = time.monotonic()
    wedge.mrz_scanned.emit(MrzScanned(f"TD{1 if len(lines) == 3 else 3}", lines, now, now))


def scan_verdict(qtbot: QtBot, win: DeskWindow, wedge: WedgeFilter, lines: tuple[str, ...]) -> None:
    with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
        scan(win, wedge, lines)


def test_a_genuine_chip_shows_its_photo_beside_the_verdict_until_it_is_cleared(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    station: ScriptedStation,
) -> None:
    win, wedge = window
    scan_verdict(qtbot, win, wedge, case(demo_ctx, "admitted").lines)
    assert win.verdict.outcome == "ADMIT"
    assert win.verdict.chip_status == "CHIP_GENUINE" and win.verdict.chip.isVisible()
    assert "CHIP AUTÉNTICO" in win.verdict.chip.text()
    photo = win.verdict.portrait_image()
    assert photo is not None and (photo.width(), photo.height()) == (240, 320)
    assert win.verdict.portrait.isVisible() and win.verdict.portrait.width() > 200  # large
    assert station.reads == [("", True)]  # the MRZ's key, the printed MRZ to compare
    assert station.threads and station.threads[0] != threading.current_thread().name
    from ui.desk.screens import save_screenshot

    qtbot.wait(50)
    save_screenshot(win, "chip-verdict")
    qtbot.keyClick(win, Qt.Key.Key_Escape)  # type: ignore[no-untyped-call]
    assert win.verdict.portrait_image() is None and not win.verdict.portrait.isVisible()
    assert win.verdict.chip_status == "" and not win.verdict.chip.isVisible()
    assert win._chip_shown is None


def test_a_driving_licence_is_checked_without_waiting_on_the_chip_reader(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    station: ScriptedStation,
) -> None:
    """Its chip, where it has one, is no eMRTD: the verdict does not wait on the reader."""
    from dataclasses import replace

    from admission.documents import DocumentSource, DocumentType
    from ui.desk.desk_flow import document_from_lines

    win, _wedge = window
    read, _problem = document_from_lines(
        list(case(demo_ctx, "admitted").lines), demo_ctx.tools.today()
    )
    assert read is not None
    licence = replace(read, doc_type=DocumentType.DRIVING_LICENCE, source=DocumentSource.MANUAL)
    with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
        win.controller.submit_manual(licence)
    assert station.reads == [] and win.verdict.chip_status == ""


def test_a_forged_chip_is_refused_and_the_director_cannot_waive_it(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    station: ScriptedStation,
) -> None:
    win, wedge = window
    station.check = FORGED
    scan_verdict(qtbot, win, wedge, case(demo_ctx, "admitted").lines)
    assert win.verdict.outcome == "DENY" and win.verdict.chip_status == "CHIP_FORGED"
    assert "CHIP FALSIFICADO" in win.verdict.chip.text()
    from ui.desk.screens import save_screenshot

    qtbot.wait(50)  # the window settles, as it does before a person sees it
    save_screenshot(win, "chip-verdict-forged")
    current = win.controller.current
    assert current is not None and current.evaluation.verdict.codes == ("CHIP_FORGED",)
    win_worker_idle(qtbot, win)
    # the exceptional card for the document on screen (art. 23.5), by the director
    issued = cards.of(demo_ctx).issue_exceptional(
        current.evaluation.document,
        operator="clerk1",
        card_type="DAY",
        director=DIRECTOR.username,
        printing=False,
    )
    assert issued.result.card is None and issued.result.verdict.outcome.value == "DENY"
    win.controller.authorise_override()  # Enter's director path: nothing to authorise
    win_worker_idle(qtbot, win)
    assert demo_ctx.store.last_card_number() == 0


def test_the_can_is_asked_once_per_document_and_validated(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    station: ScriptedStation,
) -> None:
    win, wedge = window
    station.can = "123456"
    lines = case(demo_ctx, "admitted").lines
    with qtbot.waitSignal(win.controller.chip.can_requested, timeout=WAIT):  # type: ignore[union-attr]
        scan(win, wedge, lines)
    dialog = win.can_dialog
    assert isinstance(dialog, CanDialog) and dialog.isVisible()
    qtbot.keyClicks(dialog.field, "12a45")  # type: ignore[no-untyped-call]
    assert dialog.field.text() == "1245"  # typed: the validator keeps letters out
    dialog.field.setText("12345")
    dialog.read()
    assert dialog.isVisible() and "6 cifras" in dialog.errors.text()
    dialog.field.setText("123456")
    with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
        dialog.read()
    assert win.verdict.chip_status == "CHIP_GENUINE" and win.verdict.outcome == "ADMIT"
    assert station.reads == [("", True), ("123456", True)]
    win.controller.clear()  # Esc
    win_worker_idle(qtbot, win)
    scan_verdict(qtbot, win, wedge, lines)  # the same document again: its CAN is known
    assert station.reads[-1] == ("123456", True) and win.can_dialog is None
    win.controller.clear()
    win_worker_idle(qtbot, win)
    other = case(demo_ctx, "staff").lines  # another document: its own CAN is asked
    with qtbot.waitSignal(win.controller.chip.can_requested, timeout=WAIT):  # type: ignore[union-attr]
        scan(win, wedge, other)
    assert station.reads[-1] == ("", True)
    assert win.can_dialog is not None
    with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
        win.can_dialog.field.setText("999999")  # mistyped: the chip refuses it
        win.can_dialog.read()
    assert station.reads[-1] == ("999999", True)
    assert win.verdict.chip_status == "CHIP_NOT_VERIFIABLE"
    assert "CHIP_ACCESS_DENIED" not in win.verdict.reasons.full_text()
    win.controller.clear()
    win_worker_idle(qtbot, win)
    with qtbot.waitSignal(win.controller.chip.can_requested, timeout=WAIT):  # type: ignore[union-attr]
        scan(win, wedge, other)  # read again: the wrong CAN was not kept, it is asked again
    assert station.reads[-1] == ("", True) and win.can_dialog is not None
    with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
        win.can_dialog.reject()  # declined: the chip is not verifiable, the policy decides
    current = win.controller.current
    assert current is not None and "CHIP_NOT_VERIFIABLE" in current.evaluation.verdict.codes
    assert win.verdict.chip_status == "CHIP_NOT_VERIFIABLE"


def test_no_photo_reaches_the_data_folder_or_the_log(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    tmp_path: Path,
) -> None:
    import logging

    from ui.log_file import install_desk_log, log_files

    win, wedge = window
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    install_desk_log(demo_ctx.data_dir)  # the desk's own log, as main.run installs it
    root.setLevel(logging.DEBUG)  # and everything anybody logs, to be sure
    try:
        scan_verdict(qtbot, win, wedge, case(demo_ctx, "admitted").lines)
        assert win.verdict.has_portrait()
        with qtbot.waitSignal(win.controller.card_printed, timeout=WAIT):
            qtbot.keyClick(win, Qt.Key.Key_Return)  # type: ignore[no-untyped-call]
        win_worker_idle(qtbot, win)
        win.stop()
    finally:
        for handler in root.handlers:
            if handler not in handlers:
                root.removeHandler(handler)
                handler.close()
        root.setLevel(level)
    assert log_files(demo_ctx.data_dir)  # the log was written: the card printed is there
    # the photo's own bytes, and any JPEG or JPEG 2000 stream that is not part of a
    # printed card's PDF: nothing in the data folder, its log, or the test's folder
    jpeg_markers = (b"\xff\xd8\xff\xe0", b"JFIF\x00", b"\x00\x00\x00\x0cjP  ", b"\xffO\xffQ")
    slice_ = PHOTO[len(PHOTO) // 2 : len(PHOTO) // 2 + 48]
    for path in tmp_path.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        assert slice_ not in data, path.name
        if path.suffix != ".pdf":
            assert not any(m in data for m in jpeg_markers), path.name
    entries = [str(e.details) for e in demo_ctx.store.audit_entries()]
    assert any("CHIP_GENUINE" in e for e in entries)


def test_photo_image_decodes_jpeg_and_jpeg2000_in_memory() -> None:
    jpeg = chip_reading.photo_image(PHOTO, "image/jpeg")
    assert jpeg is not None and jpeg.width() == 240
    out = io.BytesIO()
    Image.open(io.BytesIO(PHOTO)).save(out, "JPEG2000")
    jp2 = chip_reading.photo_image(out.getvalue(), "image/jp2")
    assert jp2 is not None and (jp2.width(), jp2.height()) == (240, 320)
    assert chip_reading.photo_image(b"not a face", "image/jpeg") is None
    assert chip_reading.photo_image(b"", "image/jpeg") is None
    assert chip_reading.valid_can("012345") and not chip_reading.valid_can("12345")
    assert not chip_reading.valid_can("１２３４５６")  # full-width digits are not typed digits


def test_the_settings_screen_names_the_chip_reader_and_the_policy(qtbot: QtBot) -> None:
    from admission.settings import Settings
    from ui.desk.dialogs.settings import DevicesFields

    fields = DevicesFields()
    qtbot.addWidget(fields)
    fields.load(Settings({"chip.reader": "ACS", "admission.chip_unverifiable": "SUPERVISOR"}))
    assert fields.chip_reader.text() == "ACS"
    assert fields.chip_unverifiable.currentData() == "SUPERVISOR"
    assert fields.chip_unverifiable.count() == 3  # ADMIT, SUPERVISOR, DENY: never "forged"
    fields.chip_unverifiable.setCurrentIndex(fields.chip_unverifiable.findData("DENY"))
    values = fields.values()
    assert values["chip.reader"] == "ACS" and values["admission.chip_unverifiable"] == "DENY"
    Settings(values)  # every value one the declared settings take
    assert Settings()["admission.chip_unverifiable"] == "ADMIT" and Settings()["chip.reader"] == ""


def test_the_chip_badge_speaks_english_too(qtbot: QtBot) -> None:
    from tests.ui.conftest import english
    from ui.desk.widgets.verdict import VerdictBanner

    english()
    banner = VerdictBanner()
    qtbot.addWidget(banner)
    banner.show_verdict("ADMIT", ["CHIP_NOT_VERIFIABLE"])
    banner.set_chip("CHIP_NOT_VERIFIABLE", message("CHIP_NO_MASTER_LIST"))
    assert "CHIP NOT VERIFIABLE" in banner.chip.text()
    assert "The chip could not be verified" in banner.reasons.full_text()
    assert "No CSCA master list has been imported" in banner.reasons.full_text()
    banner.show_idle()
    assert banner.chip_status == "" and "master list" not in banner.reasons.full_text()


def watched_window(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession, station: chip_reading.ChipStation
) -> tuple[DeskWindow, DeviceWatch]:
    """The desk window over ``station`` with its device watch, not started: the test
    polls it."""
    win = build_desk_window(
        demo_ctx,
        session,
        authorise=lambda purpose: DIRECTOR,
        demo=True,
        sound=TonePlayer(enabled=False),
        chip=station,
    )
    qtbot.addWidget(win)
    [watch] = [w for w in win._workers if isinstance(w, DeviceWatch)]
    return win, watch


def test_the_chip_reader_is_a_device_of_the_status_bar_picked_up_when_plugged(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> None:
    from hardware.chip.fake import FakeChipReader
    from hardware.chip.reader import ReaderStation

    reader = FakeChipReader(status=DeviceStatus.NOT_FOUND)
    station = ReaderStation(reader, lambda: None, card_timeout=0.0)
    win, watch = watched_window(qtbot, demo_ctx, session, station)
    lost: list[str] = []
    found: list[str] = []
    win.controller.device_lost.connect(lost.append)
    win.controller.device_found.connect(found.append)
    watch.poll_once()
    assert "Lector de chip: no encontrada" in win.status.text_of("chip")
    reader.plug(DeviceStatus.READY)  # plugged in: picked up at the next poll
    watch.poll_once()
    assert "● Lector de chip: lista" in win.status.text_of("chip") and found == ["chip"]
    reader.plug(DeviceStatus.NOT_FOUND)  # pulled out
    watch.poll_once()
    assert lost == ["chip"] and "▲ Lector de chip" in win.status.text_of("chip")
    win.stop()


def test_a_stale_or_missing_master_list_is_shown_by_the_ready_chip_reader(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> None:
    from hardware.chip.fake import FakeChipReader
    from hardware.chip.reader import ReaderStation

    warning = ["MASTERLIST_STALE"]
    station = ReaderStation(
        FakeChipReader(status=DeviceStatus.READY),
        lambda: None,
        card_timeout=0.0,
        trust_warning=lambda: warning[0],
    )
    win, watch = watched_window(qtbot, demo_ctx, session, station)
    watch.poll_once()
    shown = win.status.text_of("chip")
    assert shown.startswith("▲ Lector de chip: lista · La lista maestra tiene más de 90 días")
    warning[0] = "MASTERLIST_NOT_IMPORTED"
    watch.poll_once()
    assert "No se ha importado ninguna lista maestra" in win.status.text_of("chip")
    warning[0] = ""  # a newer list imported and the desk restarted
    watch.poll_once()
    assert win.status.text_of("chip") == "● Lector de chip: lista"
    win.stop()


def test_a_can_asked_for_is_dropped_when_the_screen_is_cleared(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    station: ScriptedStation,
) -> None:
    win, wedge = window
    station.can = "123456"
    with qtbot.waitSignal(win.controller.chip.can_requested, timeout=WAIT):  # type: ignore[union-attr]
        scan(win, wedge, case(demo_ctx, "admitted").lines)
    dialog = win.can_dialog
    assert dialog is not None and dialog.isVisible()
    win.controller.clear()  # the session locked, or Esc
    assert win.can_dialog is None and not dialog.isVisible()
    assert win.controller.current is None and win.verdict.chip_status == ""
    assert win.controller.chip is not None and win.controller.chip.asking is None


def test_an_unverifiable_chip_admits_by_default_and_says_why(
    qtbot: QtBot,
    window: tuple[DeskWindow, WedgeFilter],
    demo_ctx: AppContext,
    station: ScriptedStation,
) -> None:
    win, wedge = window
    station.check = ChipCheck(ChipCode.NO_MASTER_LIST, "PACE")
    scan_verdict(qtbot, win, wedge, case(demo_ctx, "admitted").lines)
    assert win.verdict.outcome == "ADMIT" and win.verdict.chip_status == "CHIP_NOT_VERIFIABLE"
    text = win.verdict.reasons.full_text()
    assert "El chip no se ha podido verificar" in text and "lista maestra" in text
    qtbot.wait(50)
    from ui.desk.screens import save_screenshot

    save_screenshot(win, "chip-verdict-unverifiable")

"""The desk read from three metres, through the real window offscreen: the holder's
portrait from the camera beside the verdict (memory only: nothing is written or logged),
a verdict word and reasons that grow with the window, every reason whole, the light
high-contrast theme and the text size, a visible focus and check boxes in both themes."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QImage, QPixmap
from PySide6.QtWidgets import QApplication, QCheckBox, QLineEdit, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from admission.generators.mrz_build import build_td3
from hardware.camera import array_to_frame
from hardware.camera.fake import FakeCamera
from hardware.generators.synthetic import render_document
from hardware.sound import TonePlayer
from tests.ui.conftest import FakeSession, open_demo_shell
from ui.context import AppContext
from ui.desk.demo_scenario import seed_demo_file
from ui.desk.desk_window import DeskWindow
from ui.desk.theme import THEMES, apply_theme
from ui.desk.window_build import build_desk_window
from ui.desk.workers import CameraWorker

WAIT = 15_000
ROOT = Path(__file__).resolve().parents[2]
IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"BM", b"GIF8", b"RIFF")


def screenshot(widget: QWidget, name: str) -> None:
    from ui.desk.screens import save_screenshot

    save_screenshot(widget, name)


def passport_lines(today: date) -> list[str]:
    """An invented adult's passport (TD3), valid for years."""
    return build_td3(
        issuer="ESP",
        surname="LOPEZ MARTIN",
        given_names="ELENA",
        document_number="PAB123456",
        nationality="ESP",
        birth_date=date(1981, 4, 17),
        sex="F",
        expiry_date=date(today.year + 6, 3, 1),
        personal_number="",
    )


def passport_frames(lines: list[str], count: int = 6) -> list[NDArray[np.uint8]]:
    """The passport's data page under the camera, a little turned: an invented face
    (drawn) where ICAO 9303 puts the photograph, the MRZ at the bottom."""
    rng = np.random.default_rng(2026)
    page, quad = render_document(lines, "TD3", rng)
    assert quad is not None
    h, w = page.shape[:2]
    x0, pw = int(w * 0.05), int(w * 0.28)
    ph = int(pw * 1.25)
    paper = tuple(int(v) for v in page[h // 2, w - 8])
    cv2.rectangle(page, (x0, int(h * 0.12)), (x0 + pw, int(h * 0.12) + ph), paper, -1)
    # where ICAO 9303 (TD3) has it: the photograph's foot ~8 % of the MRZ width above it
    mrz_top, mrz_width = float(quad[0][1]), float(quad[1][0] - quad[0][0])
    y0 = int(mrz_top - 0.08 * mrz_width - ph)
    cv2.rectangle(page, (x0, y0), (x0 + pw, y0 + ph), (225, 215, 200), -1)
    cx, cy = x0 + pw // 2, y0 + int(ph * 0.45)
    cv2.ellipse(page, (cx, cy + ph // 2), (pw // 2, ph // 4), 0, 180, 360, (90, 60, 40), -1)
    cv2.ellipse(page, (cx, cy), (pw // 4, ph // 4), 0, 0, 360, (150, 180, 220), -1)
    cv2.ellipse(page, (cx, cy - ph // 6), (pw // 4 + 6, ph // 9), 0, 180, 360, (40, 40, 60), -1)
    for dx in (-pw // 10, pw // 10):
        cv2.circle(page, (cx + dx, cy - ph // 40), max(3, pw // 40), (40, 30, 30), -1)
    cv2.ellipse(page, (cx, cy + ph // 10), (pw // 12, ph // 40), 0, 0, 180, (60, 60, 150), 3)
    scale = 0.6  # ~12 px per MRZ character: a document held at a usual distance
    matrix = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), 6.0, scale), np.float64)
    matrix[:, 2] += [640 - w / 2, 360 - h / 2]
    frame = cv2.warpAffine(page, matrix, (1280, 720), borderValue=(45, 40, 38))
    return [np.asarray(frame, np.uint8) for _ in range(count)]


@pytest.fixture
def dark_theme(qapp: QApplication) -> Iterator[None]:
    """The desk's own theme, as the application shell applies it; restored."""
    palette, font, sheet = qapp.palette(), qapp.font(), qapp.styleSheet()
    apply_theme(qapp, "dark", 12)
    yield
    qapp.setStyleSheet(sheet)
    qapp.setFont(font)
    qapp.setPalette(palette)


def camera_window(
    qtbot: QtBot, ctx: AppContext, session: FakeSession, frames: list[NDArray[np.uint8]]
) -> DeskWindow:
    seed_demo_file(ctx)
    # held still until read (a busy machine's reading thread skips frames)
    camera = FakeCamera([array_to_frame(f, k / 15) for k, f in enumerate(frames)], loop=True)
    win = build_desk_window(
        ctx,
        session,
        authorise=lambda purpose: None,
        demo=True,
        camera=lambda: camera,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    win.resize(1600, 900)
    win.show()
    qtbot.waitExposed(win)
    return win


class SaveGuard:
    """Fails the test if anything tries to write an image while it is on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        for owner, name in ((QImage, "save"), (QPixmap, "save")):
            monkeypatch.setattr(owner, name, self._refuse(f"{owner.__name__}.{name}"))
        monkeypatch.setattr(cv2, "imwrite", self._refuse("cv2.imwrite"))

    def _refuse(self, what: str):  # type: ignore[no-untyped-def]
        def refused(*_args: object, **_kwargs: object) -> bool:
            self.calls.append(what)
            return False

        return refused


def images_under(*folders: Path) -> set[Path]:
    found = set()
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in folder.rglob("*"):
            try:
                if path.is_file() and path.read_bytes()[:4].startswith(IMAGE_MAGIC):
                    found.add(path)
            except OSError:
                continue
    return found


def test_the_portrait_shows_beside_the_verdict_and_is_never_written(
    qtbot: QtBot,
    dark_theme: None,
    demo_ctx: AppContext,
    session: FakeSession,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    caplog.set_level(logging.DEBUG)
    watched = (tmp_path, ROOT / "build", Path(tempfile.gettempdir()) / "admission")
    before = images_under(*watched)
    lines = passport_lines(demo_ctx.tools.today())
    win = camera_window(qtbot, demo_ctx, session, passport_frames(lines))
    guard = SaveGuard(monkeypatch)
    try:
        with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
            win.start()
        qtbot.waitUntil(win.verdict.has_portrait, timeout=WAIT)
        assert win.verdict.outcome == "ADMIT"
        assert win.verdict.portrait.isVisible()
        banner = win.verdict
        # beside the verdict: at the banner's left, as tall as most of it
        qtbot.waitUntil(  # laid out on the next pass of the event loop
            lambda: banner.portrait.geometry().right() < banner.headline.geometry().left()
        )
        assert banner.portrait.height() > 0.8 * banner.height()
        pixmap = banner.portrait.pixmap()
        assert not pixmap.isNull()
        assert guard.calls == [], "nothing writes an image while the portrait is shown"
        for worker in win._workers:
            if isinstance(worker, CameraWorker):
                worker.stop()  # the passport is taken away
        monkeypatch.undo()
        screenshot(win, "desk-portrait-admit")
        # the drawn face (skin, RGB ~220,180,150) fills the middle, not the desk's grey
        middle = pixels_of(banner.portrait)
        rows, cols = middle.shape[:2]
        centre = middle[rows * 2 // 5 : rows * 3 // 5, cols * 2 // 5 : cols * 3 // 5]
        rgb = centre.reshape(-1, 3).astype(int)
        skin = (rgb[:, 0] > 180) & (rgb[:, 1] > 140) & (rgb[:, 1] < 215) & (rgb[:, 2] < 190)
        assert skin.mean() > 0.5, f"skin in {skin.mean():.0%} of the portrait's middle"
        win.controller.clear()  # Esc: the person has gone
        assert not win.verdict.has_portrait() and not win.verdict.portrait.isVisible()
        assert win._portrait is None
    finally:
        win.stop()
    ours = ROOT / "build" / "screens" / "desk-portrait-admit.png"  # the demo's face, drawn
    assert images_under(*watched) - before <= {ours}
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "LOPEZ" not in logged and "PAB123456" not in logged


def test_a_portrait_shows_only_beside_its_own_document(
    qtbot: QtBot, dark_theme: None, demo_ctx: AppContext, session: FakeSession
) -> None:
    """A portrait cut for one person never shows beside another's verdict, and a
    document read by the reader (no frame) shows none."""
    from admission.mrz.burst import MrzScanned
    from ui.desk.demo_scenario import demo_cases
    from ui.desk.wedge_filter import WedgeFilter

    win = reasons_window(qtbot, demo_ctx, session, QSize(1400, 800))
    wedge = WedgeFilter(parent=win)
    win.connect_wedge(wedge)
    passport = tuple(passport_lines(demo_ctx.tools.today()))
    face = QImage(300, 385, QImage.Format.Format_RGB888)
    face.fill(QColor("#DDB496"))
    try:
        win.start()
        other = next(c for c in demo_cases(demo_ctx.tools.today(), 0) if c.kind == "admitted")
        with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
            wedge.mrz_scanned.emit(MrzScanned("TD1", other.lines, 0.0, 0.0))
        assert win.verdict.outcome == "ADMIT" and not win.verdict.has_portrait()
        win.show_portrait(passport, face)  # someone else's document under the camera
        assert not win.verdict.has_portrait() and not win.verdict.portrait.isVisible()
        win.show_portrait(tuple(other.lines), face)  # this person's
        assert win.verdict.has_portrait() and win.verdict.portrait.isVisible()
    finally:
        win.stop()


def reasons_window(qtbot: QtBot, ctx: AppContext, session: FakeSession, size: QSize) -> DeskWindow:
    seed_demo_file(ctx)
    win = build_desk_window(
        ctx,
        session,
        authorise=lambda purpose: None,
        demo=True,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    win.resize(size)
    win.show()
    qtbot.waitExposed(win)
    return win


def settle(qtbot: QtBot) -> None:
    for _ in range(4):
        qtbot.wait(30)


def test_the_verdict_grows_with_the_window_and_every_reason_shows_whole(
    qtbot: QtBot, dark_theme: None, demo_ctx: AppContext, session: FakeSession
) -> None:
    many = ["MINOR", "INTERNAL_BAN", "REGISTRY_UNVERIFIABLE", "DOCUMENT_EXPIRED", "LAST_HOUR"]
    win = reasons_window(qtbot, demo_ctx, session, QSize(1000, 640))
    try:
        win.verdict.show_verdict("DENY", ["MINOR"])
        settle(qtbot)
        small_word = win.verdict.headline.font().pixelSize()
        small_reason = win.verdict.reasons.font().pixelSize()
        win.resize(1920, 1050)  # a maximised 1080p screen
        settle(qtbot)
        assert win.verdict.headline.font().pixelSize() >= 1.3 * small_word
        assert win.verdict.headline.font().pixelSize() >= 90  # ~2.4 cm on a 24" screen
        assert win.verdict.reasons.font().pixelSize() > small_reason
        screenshot(win, "desk-1920-deny-one-reason")
        for size in (QSize(1920, 1050), QSize(1000, 640)):
            win.resize(size)
            win.verdict.show_verdict("DENY", many)
            settle(qtbot)
            reasons = win.verdict.reasons
            assert reasons.text() == reasons.full_text(), "every reason whole, no '…'"
            assert reasons.height() + 1 >= reasons.heightForWidth(reasons.width())
            headline = win.verdict.headline
            assert headline.width() >= headline.fontMetrics().horizontalAdvance(headline.text())
        screenshot(win, "desk-1000-deny-five-reasons")
    finally:
        win.stop()


def test_the_banner_never_writes_smaller_than_the_text_size_set(
    qtbot: QtBot, qapp: QApplication
) -> None:
    from ui.desk.widgets.verdict import VerdictBanner

    palette, font, sheet = qapp.palette(), qapp.font(), qapp.styleSheet()
    try:
        apply_theme(qapp, "dark", 12)
        banner = VerdictBanner()
        qtbot.addWidget(banner)
        banner.resize(900, 250)
        banner.show()
        banner.show_verdict("DENY", ["MINOR"])
        qtbot.wait(20)
        assert banner.progress.font().pixelSize() == 16  # 12 pt
        apply_theme(qapp, "dark", 20)  # the administrator raises the text size
        qtbot.waitUntil(lambda: banner.progress.font().pixelSize() >= 26)  # 20 pt
        assert banner.reasons.font().pixelSize() >= 26
    finally:
        qapp.setStyleSheet(sheet)
        qapp.setFont(font)
        qapp.setPalette(palette)


def luminance(colour: QColor) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.red())
        + 0.7152 * channel(colour.green())
        + 0.0722 * channel(colour.blue())
    )


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(QColor(a)), luminance(QColor(b))), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@pytest.mark.parametrize("name", ["dark", "light"])
def test_both_themes_keep_text_focus_and_check_boxes_in_high_contrast(name: str) -> None:
    theme = THEMES[name]
    assert contrast(theme.text, theme.window) >= 12
    assert contrast(theme.text, theme.base) >= 12
    assert contrast(theme.highlight, theme.window) >= 3, "the focus ring is seen (WCAG 1.4.11)"
    assert contrast(theme.border, theme.base) >= 3, "a check box's edge is seen"
    assert contrast(theme.warning, theme.base) >= 4.5
    assert contrast(theme.error, theme.base) >= 4.5, "a refusal's text reads (WCAG 1.4.3)"


def test_every_verdict_colour_carries_white_text() -> None:
    """The banner's white word, reasons and hint read on every verdict's colour (WCAG
    1.4.3: 4.5:1 for the hint's normal-size text)."""
    from ui.desk.theme import VERDICT_COLOURS

    for outcome, colour in VERDICT_COLOURS.items():
        assert contrast("#FFFFFF", colour) >= 4.5, outcome


def pixels_of(widget: QWidget) -> NDArray[np.uint8]:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    rows = data.reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 3].reshape(image.height(), image.width(), 3).copy()


def colour_share(widget: QWidget, colour: str, tolerance: int = 40) -> float:
    target = QColor(colour)
    rgb = np.array([target.red(), target.green(), target.blue()])
    px = pixels_of(widget).reshape(-1, 3).astype(int)
    return float((np.abs(px - rgb).max(axis=1) <= tolerance).mean())


@pytest.mark.parametrize("name", ["dark", "light"])
def test_the_focus_ring_and_the_check_box_are_drawn(
    qtbot: QtBot, qapp: QApplication, name: str
) -> None:
    palette, font, sheet = qapp.palette(), qapp.font(), qapp.styleSheet()
    theme = apply_theme(qapp, name, 14)
    try:
        assert qapp.font().pointSize() == 14
        host = QWidget()
        qtbot.addWidget(host)
        box = QCheckBox("He comprobado el documento", host)
        box.move(10, 10)
        edit = QLineEdit(host)
        edit.move(10, 60)
        button = QPushButton("Aceptar", host)
        button.move(10, 110)
        host.resize(400, 170)
        host.show()
        qtbot.waitExposed(host)
        unchecked_edge = colour_share(box, theme.border)
        assert unchecked_edge > 0.01, "the empty box's edge is drawn"
        box.setChecked(True)
        assert colour_share(box, theme.highlight) > 0.03, "a checked box is filled"
        for widget in (box, edit, button):
            widget.setFocus()
            qtbot.waitUntil(widget.hasFocus)
            qapp.processEvents()
            ring = colour_share(widget, theme.highlight, tolerance=30)
            widget.clearFocus()
            qapp.processEvents()
            without = colour_share(widget, theme.highlight, tolerance=30)
            assert ring > without + 0.02, f"{type(widget).__name__}: focus ring drawn"
    finally:
        qapp.setStyleSheet(sheet)
        qapp.setFont(font)
        qapp.setPalette(palette)


@pytest.mark.parametrize("language", ["es", "en"])
@pytest.mark.parametrize("name", ["dark", "light"])
def test_screenshots_of_the_verdicts_in_each_theme_and_language(
    qtbot: QtBot,
    qapp: QApplication,
    demo_ctx: AppContext,
    session: FakeSession,
    name: str,
    language: str,
) -> None:
    """The desk at 1920 x 1050 with each verdict a clerk meets, as read from the
    counter: build/screens/desk-<theme>-<language>-<verdict>.png."""
    from ui.desk.demo_scenario import demo_cases
    from ui.desk.i18n import install_translator

    palette, font, sheet = qapp.palette(), qapp.font(), qapp.styleSheet()
    apply_theme(qapp, name, 12)
    install_translator(qapp, language)
    win = reasons_window(qtbot, demo_ctx, session, QSize(1920, 1050))
    today = demo_ctx.tools.today()
    cases = {c.kind: c for c in demo_cases(today, 0)}
    try:
        win.start()
        for kind in ("admitted", "minor", "staff", "banned"):
            win.controller.clear()
            with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
                win.controller.submit_mrz(cases[kind].lines)
            settle(qtbot)
            reasons = win.verdict.reasons
            assert reasons.text() == reasons.full_text()
            screenshot(win, f"desk-{name}-{language}-{kind}")
    finally:
        win.stop()
        install_translator(qapp, "es")
        qapp.setStyleSheet(sheet)
        qapp.setFont(font)
        qapp.setPalette(palette)


def test_the_desk_opens_maximised_then_as_it_was_left_on_that_screen(
    qtbot: QtBot, qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ui.desk.window_geometry import GEOMETRY_FILE, restore_window, screen_key

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    data = tmp_path / "demo"
    shell = open_demo_shell(qapp, data)
    try:
        first = shell.window
        assert first is not None
        qtbot.waitUntil(first.isMaximized)  # the first time on this screen
        first.showNormal()
        qtbot.waitUntil(lambda: not first.isMaximized())
        first.resize(first.minimumSizeHint().expandedTo(QSize(1010, 700)))
        qtbot.wait(50)
        left = (first.width(), first.height())
    finally:
        shell.close()  # keeps the place for this screen
    assert (data / GEOMETRY_FILE).is_file()
    assert screen_key(qapp.primaryScreen()) in (data / GEOMETRY_FILE).read_text()
    again = open_demo_shell(qapp, data)
    try:
        window = again.window
        assert window is not None
        qtbot.waitExposed(window)
        assert not window.isMaximized()
        assert (window.width(), window.height()) == left
    finally:
        again.close()
    # another screen (another name or size) has no place kept: maximised there
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ini = (data / GEOMETRY_FILE).read_text()
    (elsewhere / GEOMETRY_FILE).write_text(
        ini.replace(screen_key(qapp.primaryScreen()), "HDMI-1-3840x2160")
    )
    other = QWidget()
    qtbot.addWidget(other)
    restore_window(other, elsewhere)
    qtbot.waitUntil(other.isMaximized)


def test_the_theme_and_text_size_saved_apply_to_the_running_desk(
    qtbot: QtBot, qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtGui import QPalette

    from ui.desk.theme import LIGHT, current_theme

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    palette, font, sheet = qapp.palette(), qapp.font(), qapp.styleSheet()
    shell = open_demo_shell(qapp, tmp_path / "demo")
    try:
        assert shell.session is not None and shell.window is not None
        shell.session.sign_in("director", "director-demo")  # an administrator too
        assert current_theme().name == "dark" and qapp.font().pointSize() == 12
        menus = shell.window.menus
        assert menus is not None
        dialog = menus.admin.open_settings()
        assert dialog is not None
        dialog.display.theme.setCurrentIndex(dialog.display.theme.findData("light"))
        dialog.display.font_size.setValue(16)
        assert dialog.save()
        qtbot.waitUntil(lambda: current_theme().name == "light")
        window_colour = qapp.palette().color(QPalette.ColorRole.Window).name().upper()
        assert window_colour == LIGHT.window
        assert qapp.font().pointSize() == 16
        hint = shell.window.preview.hint
        qtbot.waitUntil(lambda: hint.text() == hint.full_text())  # wrapped anew, whole
        screenshot(shell.window, "desk-light-16pt")
    finally:
        shell.close()
        qapp.setStyleSheet(sheet)
        qapp.setFont(font)
        qapp.setPalette(palette)
        apply_theme(qapp, "dark", 12)

"""The desk window's panels on screen: every control has an accessible name, and the
text of documents, readers and devices is shown whole or visibly cut, never clipped by
the next row, at 1280x800 and at the window's minimum size (plain text only)."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterator
from itertools import pairwise

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QMenu,
    QStyleFactory,
    QWidget,
)
from pytestqt.qtbot import QtBot

from admission.mrz.burst import MrzScanned
from admission.ports import madrid_date
from hardware.sound import TonePlayer
from tests.ui.conftest import DIRECTOR, FakeSession
from ui.context import AppContext
from ui.desk.demo_scenario import demo_cases, seed_demo_file
from ui.desk.desk_window import DeskWindow
from ui.desk.wedge_filter import WedgeFilter
from ui.desk.widgets import ElidedLabel, WrappedLabel
from ui.desk.widgets.counters import CountersPanel
from ui.desk.widgets.identity import IdentityPanel
from ui.desk.widgets.preview import CameraPreview
from ui.desk.widgets.status_bar import DeskStatusBar
from ui.desk.widgets.verdict import VerdictBanner
from ui.desk.window_build import build_desk_window

WAIT = 10_000
CONTROLS = (QAbstractButton, QLineEdit, QComboBox, QAbstractItemView)


def screenshot(widget: QWidget, name: str) -> None:
    if importlib.util.find_spec("ui.desk.screens") is None:
        return
    from ui.desk.screens import save_screenshot

    save_screenshot(widget, name)


def unnamed(root: QWidget) -> list[str]:
    """Controls and informative labels under ``root`` with no accessible name, and
    menu entries with no text (an action's accessible name is its text)."""
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if qt_own(widget):
            continue  # Qt's own parts (a menu bar's overflow button and its menu)
        where = (
            f"{type(widget).__name__}({widget.objectName() or widget.parent().__class__.__name__})"
        )
        if isinstance(widget, CONTROLS) and not widget.accessibleName():
            found.append(where)
        elif isinstance(widget, QLabel) and widget.text() and not widget.accessibleName():
            found.append(f"{where}: {widget.text()[:40]!r}")
        if isinstance(widget, QMenu) and widget.title():  # a menu bar's overflow has none
            for action in widget.actions():
                if not action.isSeparator() and not action.text().replace("&", "").strip():
                    found.append(f"QAction in {widget.title()!r}")
    return found


def qt_own(widget: QWidget) -> bool:
    parent: QWidget | None = widget
    while parent is not None:
        if parent.objectName().startswith("qt_"):
            return True
        parent = parent.parentWidget()
    return False


@pytest.fixture
def window(qtbot: QtBot, demo_ctx: AppContext, session: FakeSession) -> Iterator[DeskWindow]:
    seed_demo_file(demo_ctx)
    win = build_desk_window(
        demo_ctx,
        session,
        authorise=lambda purpose: DIRECTOR,
        demo=True,
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    wedge = WedgeFilter(parent=win)
    win.connect_wedge(wedge)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    win.start()
    win.wedge = wedge  # type: ignore[attr-defined]
    yield win
    win.stop()


def scan(qtbot: QtBot, win: DeskWindow, kind: str, ctx: AppContext) -> None:
    lines = next(c for c in demo_cases(madrid_date(ctx.clock.now())) if c.kind == kind).lines
    now = time.monotonic()
    with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
        win.wedge.mrz_scanned.emit(MrzScanned("TD1", lines, now, now))  # type: ignore[attr-defined]


# -- accessible names -----------------------------------------------------------------
def test_every_control_of_the_desk_window_has_an_accessible_name(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    assert unnamed(window) == []
    scan(qtbot, window, "staff", demo_ctx)  # a verdict on screen: every label has text
    assert unnamed(window) == []
    bar = window.menuBar()
    menus = [m for m in bar.findChildren(QMenu) if m.menuAction() in bar.actions()]
    assert menus
    assert [m.title() for m in menus if not m.accessibleName()] == []


@pytest.mark.parametrize(
    "make",
    [
        VerdictBanner,
        IdentityPanel,
        CameraPreview,
        CountersPanel,
        lambda: DeskStatusBar(demo=True),
    ],
)
def test_every_panel_names_its_labels(qtbot: QtBot, make: type[QWidget]) -> None:
    widget = make()
    qtbot.addWidget(widget)
    widget.show()
    assert widget.accessibleName()
    assert unnamed(widget) == []


# -- layout: nothing clipped, at 1280x800 and at the minimum size -------------------
def clipped(root: QWidget) -> list[str]:
    """Labels shown smaller than their text needs: a wrapped label shorter than its
    lines, a one-line label narrower than its text (an elided one may be: it shows
    "…" and the whole text as tooltip) or shorter than a line."""
    found = []
    for label in root.findChildren(QLabel):
        if qt_own(label) or not label.isVisibleTo(root) or not label.text():
            continue
        name = label.accessibleName() or label.text()[:30]
        size, hint = label.size(), label.sizeHint()
        if isinstance(label, WrappedLabel) or label.wordWrap():
            if size.height() + 1 < label.heightForWidth(size.width()):
                found.append(f"{name}: {size.height()} < {label.heightForWidth(size.width())}")
        elif isinstance(label, ElidedLabel):
            if size.height() < label.fontMetrics().height():
                found.append(f"{name}: shorter than a line")
        elif size.width() < hint.width() or size.height() < label.fontMetrics().height():
            found.append(f"{name}: {size.width()}x{size.height()} < {hint.width()}")
    return found


def overlapping_rows(panel: IdentityPanel) -> list[str]:
    """Value rows of the identity panel that reach into the next one."""
    values = [
        panel.name,
        panel.document,
        panel.age,
        panel.file_number,
        panel.visits,
        panel.last_visit,
        panel.observations,
        panel.warnings,
    ]
    return [
        f"{a.accessibleName()} / {b.accessibleName()}"
        for a, b in pairwise(values)
        if a.geometry().bottom() >= b.geometry().top()
    ]


def status_words_whole(win: DeskWindow) -> list[str]:
    bar = win.status
    problems = []
    for device, label in bar.labels.items():
        right = label.mapTo(bar, label.rect().topRight()).x()
        if not label.isVisible() or label.width() < label.sizeHint().width() or right > bar.width():
            problems.append(
                f"{device}: {label.text()!r} {label.width()} < {label.sizeHint().width()}"
            )
    return problems


@pytest.fixture
def dark(qapp: QApplication) -> Iterator[None]:
    """The desk's own theme (12 pt, Fusion, dark) as ``ui.desk.app`` applies it; restored."""
    from ui.desk.theme import apply_dark_theme

    style, palette, font, sheet = (
        qapp.style().name(),
        qapp.palette(),
        qapp.font(),
        qapp.styleSheet(),
    )
    apply_dark_theme(qapp)
    yield
    qapp.setStyleSheet(sheet)
    qapp.setFont(font)
    qapp.setPalette(palette)
    restored = QStyleFactory.create(style)
    if restored is not None:
        qapp.setStyle(restored)


def settle(qtbot: QtBot, win: DeskWindow) -> None:
    for _ in range(3):  # wrapped rows take their height after the first layout pass
        qtbot.wait(30)


@pytest.mark.parametrize(
    ("kind", "size", "shot"),
    [
        ("minor", QSize(1280, 800), "desk-1280-deny-minor"),
        ("staff", QSize(1280, 800), "desk-1280-supervisor"),
        ("minor", QSize(1142, 487), "desk-small-deny-minor"),  # a laptop's window
        ("minor", None, "desk-minimum-deny-minor"),
        ("staff", None, "desk-minimum-supervisor"),
    ],
)
def test_nothing_is_clipped_and_every_device_word_shows(
    qtbot: QtBot,
    dark: None,
    window: DeskWindow,
    demo_ctx: AppContext,
    kind: str,
    size: QSize | None,
    shot: str,
) -> None:
    win = window
    win.status.set_status("printer", "REJECTING", "")  # the longest words on screen
    win.status.set_status("camera", "UNKNOWN", "")
    scan(qtbot, win, kind, demo_ctx)
    minimum = win.minimumSizeHint()
    assert minimum.width() <= 1280 and minimum.height() <= 800
    win.resize(size or QSize(1, 1))  # None: as small as the window lets itself be
    settle(qtbot, win)
    if size is None:
        assert win.width() <= max(minimum.width(), 1000) and win.height() <= 800
    assert clipped(win) == []
    assert overlapping_rows(win.identity) == []
    assert status_words_whole(win) == []
    counters = (win.counters.today, win.counters.last_hour, win.counters.valid)
    assert all(c.text() == c.full_text() for c in counters)  # every number shows
    assert win.identity.document.text() == win.identity.document.full_text()
    screenshot(win, shot)


def test_long_text_is_elided_or_cut_and_whole_in_a_plain_tooltip(qtbot: QtBot) -> None:
    name = "<b>JOSÉ</b> " + "MARÍA DE LOS REMEDIOS " * 8
    label = ElidedLabel(name=name, limit=120)
    qtbot.addWidget(label)
    label.setText(name + "\x1b[31m")
    label.resize(150, 30)
    label.show()
    assert label.textFormat() is Qt.TextFormat.PlainText
    assert len(label.text()) <= 120 and "\x1b" not in label.text()
    assert label.is_elided() and "&lt;b&gt;JOSÉ" in label.toolTip()  # shown, not bold
    label.resize(label.fontMetrics().horizontalAdvance(label.text()) + 10, 30)
    assert label.toolTip() == ""  # whole on screen: no tooltip
    notes = WrappedLabel(max_lines=2, limit=600)
    qtbot.addWidget(notes)
    notes.resize(200, 100)
    notes.show()
    notes.setText("observación <i>larga</i> " * 30)
    assert notes.text().endswith("…") and notes.full_text().startswith("observación <i>")
    lines = notes.heightForWidth(notes.width()) // notes.fontMetrics().lineSpacing()
    assert lines <= 2 and notes.minimumHeight() >= notes.heightForWidth(notes.width())
    assert "&lt;i&gt;" in notes.toolTip()

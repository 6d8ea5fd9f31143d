"""The Qt event filter: reader bursts become signals, a person's keys reach the widget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QLineEdit

from admission.mrz.burst import BURST_PARTIAL, MrzScanned
from ui.desk.wedge_filter import WedgeFilter

BURSTS = Path(__file__).parent / "bursts"


class ManualClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def press(widget: QLineEdit, char: str) -> None:
    if char == "\r":
        key = Qt.Key.Key_Return
    else:
        key = Qt.Key(ord(char.upper())) if char.isalnum() else Qt.Key.Key_unknown
    no_mod = Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(widget, QKeyEvent(QEvent.Type.KeyPress, key, no_mod, char))


def replay(qtbot, name: str, clock: ManualClock, widget: QLineEdit, filt: WedgeFilter) -> None:  # type: ignore[no-untyped-def]
    for char, t in json.loads((BURSTS / f"{name}.json").read_text()):
        clock.t = t
        press(widget, char)
    clock.t += 5.0
    filt.poll_now()


@pytest.fixture
def rig(qtbot):  # type: ignore[no-untyped-def]
    clock = ManualClock()
    filt = WedgeFilter(clock=clock, use_event_time=False)
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(filt)
    edit = QLineEdit()
    qtbot.addWidget(edit)
    yield filt, clock, edit
    app.removeEventFilter(filt)


def test_reader_burst_becomes_a_signal_not_text(qtbot, rig) -> None:  # type: ignore[no-untyped-def]
    filt, clock, edit = rig
    with qtbot.waitSignal(filt.mrz_scanned, timeout=1000) as blocker:
        replay(qtbot, "td3_crlf", clock, edit, filt)
    event = blocker.args[0]
    assert isinstance(event, MrzScanned) and event.format == "TD3"
    assert edit.text() == ""


def test_person_typing_reaches_the_widget(qtbot, rig) -> None:  # type: ignore[no-untyped-def]
    filt, clock, edit = rig
    seen: list[object] = []
    filt.mrz_scanned.connect(seen.append)
    replay(qtbot, "human_typing_fast", clock, edit, filt)
    assert edit.text() == "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
    assert seen == []


def test_half_burst_gives_a_hint(qtbot, rig) -> None:  # type: ignore[no-untyped-def]
    filt, clock, edit = rig
    with qtbot.waitSignal(filt.burst_discarded, timeout=1000) as blocker:
        replay(qtbot, "td3_cut_in_half", clock, edit, filt)
    assert blocker.args == [BURST_PARTIAL]
    assert edit.text() == ""


def test_markup_burst_is_plain_text_signal(qtbot, rig) -> None:  # type: ignore[no-untyped-def]
    filt, clock, edit = rig
    with qtbot.waitSignal(filt.code_scanned, timeout=1000) as blocker:
        replay(qtbot, "markup_burst", clock, edit, filt)
    assert blocker.args[0].startswith("<b>")
    assert edit.text() == ""


def test_timer_releases_held_key_by_itself(qtbot, rig) -> None:  # type: ignore[no-untyped-def]
    filt, _clock, edit = rig
    filt._clock = __import__("time").monotonic  # real time for the real timer
    press(edit, "x")
    assert edit.text() == ""  # held for a few ms
    qtbot.waitUntil(lambda: edit.text() == "x", timeout=1000)


def test_chords_pass_while_idle(qtbot, rig) -> None:  # type: ignore[no-untyped-def]
    _filt, _clock, edit = rig
    edit.setText("abc")
    edit.selectAll()
    QApplication.sendEvent(
        edit, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Backspace, Qt.KeyboardModifier.NoModifier)
    )
    assert edit.text() == ""


def test_keys_through_the_window_like_real_input(qtbot, rig) -> None:  # type: ignore[no-untyped-def]
    """Real key presses reach the app filter twice (window, then widget): still one key."""
    filt, clock, edit = rig
    edit.show()
    qtbot.waitExposed(edit)
    edit.activateWindow()
    edit.setFocus()
    window = edit.window().windowHandle()
    assert window is not None
    for i, char in enumerate("hola"):
        clock.t = 1.0 + i * 0.2  # a person
        QApplication.sendEvent(
            window,
            QKeyEvent(
                QEvent.Type.KeyPress,
                Qt.Key(ord(char.upper())),
                Qt.KeyboardModifier.NoModifier,
                char,
            ),
        )
    clock.t += 1.0
    filt.poll_now()
    assert edit.text() == "hola"
    seen: list[object] = []
    filt.mrz_scanned.connect(seen.append)
    for i, char in enumerate(
        "\r".join(("I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"))
        + "\r"
    ):
        clock.t = 10.0 + i * 0.004  # a reader
        key = Qt.Key.Key_Return if char == "\r" else Qt.Key.Key_unknown
        QApplication.sendEvent(
            window, QKeyEvent(QEvent.Type.KeyPress, key, Qt.KeyboardModifier.NoModifier, char)
        )
    clock.t += 1.0
    filt.poll_now()
    assert edit.text() == "hola"
    assert len(seen) == 1

"""The window's start: the real start path end to end (the smoke run as a subprocess),
no display, the wizard path for a new folder, the demo's accounts and banner, the theme."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QDialog, QLabel, QMainWindow, QStyleFactory

from admission.accounts import Role
from admission.clock import FixedClock
from tests.ui.conftest import open_demo_shell
from ui.context import AppContext
from ui.demo_accounts import DEMO_FLOOR
from ui.desk.app import DeskShell
from ui.desk.demo_start import DEMO_ACCOUNTS, add_demo_banner, ensure_demo_accounts
from ui.desk.start import AppCode, AppStart, StartPath, no_display_line, start_path

ROOT = Path(__file__).resolve().parents[2]
MAIN = str(ROOT / "main.py")


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"ADMISSION_DB_KEY", "ADMISSION_SMOKE", "ADMISSION_USER", "ADMISSION_PASSWORD"}
    }
    env.update(extra)
    return env


def test_the_smoke_run_admits_one_demo_visitor_through_the_window(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    done = subprocess.run(
        [sys.executable, MAIN, "--demo", "--smoke", "--data-dir", str(data)],
        env=_env(QT_QPA_PLATFORM="offscreen"),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    pdfs = list((data / "cards").glob("*.pdf"))
    assert len(pdfs) == 1 and pdfs[0].read_bytes().startswith(b"%PDF")
    # the admission is in the visitor file, under the signed-in demo clerk
    shown = subprocess.run(
        [sys.executable, MAIN, "--demo", "visitor", "show", "1", "--data-dir", str(data)],
        # the file has the demo's accounts now: the command line signs in too
        env=_env(ADMISSION_USER=DEMO_ACCOUNTS[0][0], ADMISSION_PASSWORD=DEMO_ACCOUNTS[0][2]),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shown.returncode == 0, shown.stdout[-2000:]
    visits = json.loads(shown.stdout)["visits"]
    assert [(v["verdict"], v["operator"], v["card_number"]) for v in visits] == [
        ("ADMIT", DEMO_ACCOUNTS[1][0], 1)
    ]
    # and a second smoke run on the same file admits a new invented person (art. 22)
    again = subprocess.run(
        [sys.executable, MAIN, "--data-dir", str(data)],
        env=_env(QT_QPA_PLATFORM="offscreen", ADMISSION_SMOKE="1"),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert again.returncode == 0, again.stderr[-2000:]
    assert len(list((data / "cards").glob("*.pdf"))) == 2


def test_a_smoke_run_that_cannot_print_fails_with_one_line(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    data.mkdir()
    (tmp_path / "a-file").write_text("")
    settings = {"version": 2, "printer.pdf_folder": str(tmp_path / "a-file" / "cards")}
    (data / "settings.json").write_text(json.dumps(settings))
    done = subprocess.run(
        [sys.executable, MAIN, "--demo", "--smoke", "--data-dir", str(data)],
        env=_env(QT_QPA_PLATFORM="offscreen"),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 1
    reasons = [line for line in done.stderr.splitlines() if line.startswith("SMOKE_")]
    assert len(reasons) == 1 and "PRINTER_NOT_FOUND" in reasons[0], done.stderr[-1000:]


def test_without_a_display_start_says_so_in_one_line_and_exits_3(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in _env().items()
        if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}
    }
    done = subprocess.run(
        [sys.executable, MAIN, "--demo", "--data-dir", str(tmp_path / "d")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if sys.platform.startswith(("win", "darwin")):
        pytest.skip("Windows and macOS always have a display")
    assert done.returncode == 3
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("NO_DISPLAY")
    assert "--smoke" in lines[0] and "main.py demo" in lines[0]
    assert done.stdout == "" and not (tmp_path / "d").exists()


def test_no_display_line_knows_when_a_window_can_open() -> None:
    assert no_display_line({}, "linux") is not None
    assert no_display_line({"DISPLAY": ":0"}, "linux") is None
    assert no_display_line({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert no_display_line({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert no_display_line({}, "win32") is None and no_display_line({}, "darwin") is None


class _Accounts:
    def __init__(self, has: bool) -> None:
        self.has = has

    def has_accounts(self) -> bool:
        return self.has


def test_the_start_path_decision() -> None:
    assert start_path(True, None) is StartPath.DEMO
    assert start_path(False, None) is StartPath.WIZARD  # a folder without a file
    assert start_path(False, _Accounts(False)) is StartPath.WIZARD  # type: ignore[arg-type]
    assert start_path(False, _Accounts(True)) is StartPath.SIGN_IN  # type: ignore[arg-type]


@pytest.fixture
def app() -> QApplication:
    from ui.desk.app import make_application

    return make_application()


def test_real_start_on_an_empty_folder_goes_to_the_first_run_wizard(
    tmp_path: Path, app: QApplication
) -> None:
    from PySide6.QtCore import QTimer

    from main import build_context, build_tools

    shown: list[str] = []

    def close_the_wizard() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(50, close_the_wizard)
            return
        shown.append(type(dialog).__name__)
        _save(dialog, "first-run-wizard")
        assert isinstance(dialog, QDialog)
        dialog.reject()  # the person closes it

    QTimer.singleShot(50, close_the_wizard)
    start = AppStart(
        build_tools=partial(build_tools, tmp_path / "real"), build_context=build_context
    )
    shell = DeskShell(app, start)
    code = shell.open()
    shell.close()
    assert shown == ["FirstRunWizard"]
    assert shell.failure is not None and shell.failure[0] == AppCode.START_CANCELLED
    assert code == 0
    assert not (tmp_path / "real" / "visitors.db").exists()  # nothing created behind its back


def _save(widget: Any, name: str) -> None:
    from ui.desk.screens import save_screenshot

    save_screenshot(widget, name)


@pytest.fixture
def demo_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppContext]:
    from datetime import UTC, datetime

    from main import build_context, build_tools

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    clock = FixedClock(datetime(2026, 12, 3, 19, 0, tzinfo=UTC))
    ctx = build_context(build_tools(tmp_path / "demo", clock=clock, demo=True))
    try:
        yield ctx
    finally:
        ctx.close()


def test_the_demo_signs_its_clerk_in_and_keeps_a_director(demo_file: AppContext) -> None:
    username, password = ensure_demo_accounts(demo_file.accounts)
    operator = demo_file.accounts.sign_in(username, password)
    assert operator.username == "clerk" and operator.has(Role.CLERK)
    assert not operator.has(Role.DIRECTOR)
    assert ensure_demo_accounts(demo_file.accounts) == (username, password)  # idempotent
    # the floor page's staff member (art. 22.4) signs in on a phone with its PIN
    assert [a.username for a in demo_file.accounts.accounts()] == ["clerk", "director", "sala"]
    floor = demo_file.accounts.sign_in_with_pin(DEMO_FLOOR[0], DEMO_FLOOR[3])
    assert floor.has(Role.FLOOR) and not floor.has(Role.CLERK)
    director, _clerk = DEMO_ACCOUNTS
    boss = demo_file.accounts.authorise(director[0], director[2], Role.DIRECTOR, "demo")
    assert boss.has(Role.DIRECTOR)


def test_the_demo_banner_cannot_be_hidden_by_the_clerk(app: QApplication) -> None:
    window = QMainWindow()
    label = add_demo_banner(window)
    window.show()
    assert "DEMO" in label.text() and "clerk-demo" in label.text()
    bars = [b for b in window.findChildren(type(label.parent())) if b is label.parent()]
    assert bars and not bars[0].toggleViewAction().isVisible()  # type: ignore[attr-defined]
    assert not bars[0].isMovable()  # type: ignore[attr-defined]
    window.close()


def test_the_dark_theme_is_fusion_with_light_text(app: QApplication) -> None:
    from PySide6.QtGui import QPalette

    from ui.desk.theme import apply_dark_theme

    apply_dark_theme(app)
    assert "Fusion" in list(QStyleFactory.keys())
    assert app.font().pointSize() >= 12
    palette = app.palette()
    window = palette.color(QPalette.ColorRole.Window)
    text = palette.color(QPalette.ColorRole.WindowText)
    assert window.lightness() < 60 and text.lightness() > 200


def test_save_screenshot_writes_a_png(app: QApplication, tmp_path: Path) -> None:
    from ui.desk.screens import save_screenshot

    label = QLabel("DEMO")
    label.resize(120, 40)
    path = save_screenshot(label, "test-label", folder=tmp_path / "screens")
    assert path.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError):
        save_screenshot(label, "../escape", folder=tmp_path)


def test_the_command_line_still_needs_no_window() -> None:
    from main import build_parser

    args = build_parser().parse_args(["parse-mrz", "X"])
    assert args.command == "parse-mrz" and not args.smoke
    assert build_parser().parse_args(["--demo"]).command is None


def test_a_locked_demo_desk_opens_again_with_its_clerks_password(
    app: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QTimer

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    shell = open_demo_shell(app, tmp_path / "demo")
    session = shell.session
    assert session is not None and session.operator is not None
    seen: list[str] = []

    def type_the_password() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, type_the_password)
            return
        seen.append(type(dialog).__name__)
        _save(dialog, "unlock")
        dialog.password.setText(DEMO_ACCOUNTS[1][2])  # type: ignore[attr-defined]
        dialog.submit()  # type: ignore[attr-defined]

    try:
        QTimer.singleShot(20, type_the_password)
        session.lock()
        assert session.is_locked
        deadline = time.monotonic() + 5
        while session.is_locked and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        assert seen == ["UnlockDialog"] and not session.is_locked
        assert session.operator is not None and session.operator.username == "clerk"
    finally:
        shell.close()


def test_a_desk_whose_server_does_not_answer_at_start_offers_to_try_again(
    app: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server of the casino is away when the desk starts: it says so and tries
    again when asked, then opens; asked to stop, it ends with the server's code."""
    from admission.errors import StoreError
    from db.pg.connect import PgConnectCode
    from main import build_context, build_tools

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    attempts: list[int] = []

    def server_back_on_the_second_try(tools: Any) -> AppContext:
        attempts.append(1)
        if len(attempts) == 1:
            raise StoreError("no route to the server", code=PgConnectCode.UNREACHABLE)
        return build_context(tools)

    start = AppStart(
        build_tools=partial(build_tools, tmp_path / "demo", demo=True),
        build_context=server_back_on_the_second_try,
        demo=True,
    )
    shell = DeskShell(app, start)
    asked: list[str] = []
    monkeypatch.setattr(shell, "ask_retry", lambda code: asked.append(code) or True)
    try:
        assert shell.open() is None and shell.window is not None
    finally:
        shell.close()
    assert asked == ["PG_UNREACHABLE"] and len(attempts) == 2

    attempts.clear()
    shell = DeskShell(app, start)
    monkeypatch.setattr(shell, "ask_retry", lambda code: False)  # "Salir"
    code = shell.open()
    shell.close()
    assert code == 3 and shell.failure is not None and shell.failure[0] == "PG_UNREACHABLE"

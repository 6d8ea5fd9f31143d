"""The desk window's application shell: QApplication, theme, language, start path.

``main.py`` (the composition root) calls :func:`run_window` with an :class:`AppStart`:
how to build the tools and open the visitor file, whether this is the demo, and the
demo's devices. This module never imports ``main`` and builds no adapter.

The start path (:func:`start_path`):

* real file, no account yet -> the first-run wizard (``ui.dialogs.wizard``) creates
  the first administrator (art. 20.3: every admission names who made it);
* real file with accounts -> the sign-in dialog (``ui.dialogs.sign_in``);
* demo -> the demo file is seeded (invented people listed, banned, employed), a clerk
  and a director with public demo passwords exist, the clerk is signed in; a DEMO banner
  stays on the window for as long as it is open.

The smoke run (``--smoke``, ``ADMISSION_SMOKE=1``; :mod:`ui.smoke`) drives one demo
admission through the window offscreen and exits.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum, unique
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMessageBox, QToolBar, QWidget

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.codes import Code
from admission.errors import AdmissionError
from ui.i18n import install_translator
from ui.theme import apply_dark_theme

if TYPE_CHECKING:
    from PySide6.QtCore import QTranslator

    from admission.accounts import AccountService
    from ui.context import AppContext, Tools
    from ui.demo_scenario import DemoDevices

__all__ = [
    "DEMO_ACCOUNTS",
    "AppCode",
    "AppStart",
    "DeskShell",
    "StartPath",
    "ensure_demo_accounts",
    "no_display_line",
    "run_window",
    "start_path",
]

log = logging.getLogger("admission.ui")


@unique
class AppCode(Code):
    """Why the window did not open, or how the smoke run ended."""

    NO_DISPLAY = "NO_DISPLAY"  # no graphical session to show the window on
    WINDOW_PART_MISSING = "WINDOW_PART_MISSING"  # a module of the window is not installed
    START_CANCELLED = "START_CANCELLED"  # the sign-in or the first-run wizard was closed
    SMOKE_FAILED = "SMOKE_FAILED"  # the smoke admission did not complete
    SMOKE_TIMEOUT = "SMOKE_TIMEOUT"  # the smoke admission took longer than its limit


# The demo's accounts: invented people, passwords public on purpose (shown on the DEMO
# banner), on the demo file only - whose key is public too.
DEMO_ACCOUNTS: tuple[tuple[str, str, str, frozenset[Role]], ...] = (
    (
        "director",
        "Directora de juegos (demo)",
        "director-demo",
        frozenset({Role.DIRECTOR, Role.ADMIN}),
    ),
    ("clerk", "Recepción (demo)", "clerk-demo", frozenset({Role.CLERK})),
)


@dataclass(frozen=True)
class AppStart:
    """What the composition root gives the window."""

    build_tools: Callable[[], Tools]
    build_context: Callable[[Tools], AppContext]
    demo: bool = False
    smoke: bool = False
    demo_devices: Callable[[Tools], DemoDevices] | None = None


@unique
class StartPath(Enum):
    DEMO = "demo"
    WIZARD = "wizard"
    SIGN_IN = "sign_in"


def start_path(demo: bool, accounts: AccountService | None) -> StartPath:
    """Demo: signed in by itself; a real file without accounts: the first-run wizard."""
    if demo:
        return StartPath.DEMO
    if accounts is None or not accounts.has_accounts():
        return StartPath.WIZARD
    return StartPath.SIGN_IN


def no_display_line(
    env: Mapping[str, str] | None = None, platform: str | None = None
) -> str | None:
    """One line saying there is no display and the ways out, or None when the window
    can open (Windows and macOS always have one; elsewhere DISPLAY, WAYLAND_DISPLAY or
    a Qt platform chosen by hand, e.g. ``offscreen``)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if platform.startswith(("win", "darwin")):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"):
        return None
    code = AppCode.NO_DISPLAY
    return (
        f"{code}: {text(code, 'es')} / {text(code, 'en')} "
        "- QT_QPA_PLATFORM=offscreen python main.py --demo --smoke"
    )


def ensure_demo_accounts(accounts: AccountService) -> Operator:
    """Create the demo's director and clerk if missing; sign the clerk in (audited)."""
    (d_name, d_display, d_password, d_roles), (c_name, c_display, c_password, c_roles) = (
        DEMO_ACCOUNTS
    )
    director = accounts.account(d_name)
    if director is None and not accounts.has_accounts():
        director = accounts.create_account(d_name, d_display, d_password, d_roles, actor=None)
    if accounts.account(c_name) is None:
        if director is None:
            raise AdmissionError("demo file has accounts but no demo director")
        accounts.create_account(c_name, c_display, c_password, c_roles, actor=director.operator())
    return accounts.sign_in(c_name, c_password)


def demo_banner_text() -> str:
    director, clerk = DEMO_ACCOUNTS
    return QCoreApplication.translate(
        "DeskShell",
        "DEMO — datos inventados, no usar con visitantes reales — "
        "recepción: {clerk} / {clerk_pw} — director: {director} / {director_pw}",
    ).format(clerk=clerk[0], clerk_pw=clerk[2], director=director[0], director_pw=director[2])


def add_demo_banner(window: QWidget) -> QLabel:
    """A banner across the top of ``window`` that the clerk cannot hide or move."""
    label = QLabel(demo_banner_text())
    label.setObjectName("demoBanner")
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setAccessibleName(QCoreApplication.translate("DeskShell", "Aviso de demostración"))
    if isinstance(window, QMainWindow):
        bar = QToolBar(window)
        bar.setObjectName("demoBannerBar")
        bar.setMovable(False)
        bar.setFloatable(False)
        bar.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        bar.toggleViewAction().setEnabled(False)
        bar.toggleViewAction().setVisible(False)
        bar.addWidget(label)
        label.setSizePolicy(
            label.sizePolicy().horizontalPolicy().Expanding, label.sizePolicy().verticalPolicy()
        )
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        window.insertToolBarBreak(bar)
    else:
        label.setParent(window)
        label.show()
    return label


class DeskShell(QObject):
    """Opens the file, signs the operator in, builds and shows the desk window."""

    def __init__(self, app: QApplication, start: AppStart) -> None:
        super().__init__(app)
        self.app = app
        self.start = start
        self.ctx: AppContext | None = None
        self.tools: Tools | None = None
        self.operator: Operator | None = None
        self.window: QWidget | None = None
        self.devices: DemoDevices | None = None
        self.translator: QTranslator | None = None
        self.parts: Any = None  # what build_desk_window answered
        self.failure: tuple[str, str] | None = None  # (code, detail) when the start failed
        self.wedge: QObject | None = None

    # -- failures --------------------------------------------------------------------
    def language(self) -> str:
        if self.tools is None:
            return "es"
        return str(self.tools.settings["ui.language"])

    def fail(self, code: str, detail: str = "") -> int:
        """Say why the window did not open: one line in the smoke run, a message box
        otherwise. Returns the exit code (3: the file or a device; 1: anything else)."""
        self.failure = (str(code), detail)
        message = text(code, self.language())
        line = f"{code}: {message}" + (f" ({detail})" if detail else "")
        if self.start.smoke or QGuiApplication.platformName() == "offscreen":
            print(line, file=sys.stderr)
        else:
            QMessageBox.critical(
                None, QCoreApplication.translate("DeskShell", "Recepción del casino"), line
            )
        from ui.cli.result import ExitCode

        if isinstance(code, AppCode) and code is AppCode.START_CANCELLED:
            return int(ExitCode.OK)
        return int(ExitCode.UNAVAILABLE if _is_unavailable(code) else ExitCode.REFUSED)

    # -- the start -------------------------------------------------------------------
    def open(self) -> int | None:
        """Everything up to a shown window; an exit code when it stops before."""
        try:
            self.tools = self.start.build_tools()
            self.translator = install_translator(self.app, self.language())
            self.ctx = self._open_context(self.tools)
        except AdmissionError as exc:
            return self.fail(exc.code, str(exc) if self.start.smoke else "")
        path = start_path(self.start.demo, None if self.ctx is None else self.ctx.accounts)
        try:
            operator = self._operator(path)
        except ImportError as exc:
            return self.fail(AppCode.WINDOW_PART_MISSING, exc.name or str(exc))
        except AdmissionError as exc:
            return self.fail(exc.code)
        if operator is None or self.ctx is None:
            return self.fail(AppCode.START_CANCELLED)
        self.operator = operator
        try:
            self.window = self._build_window()
        except ImportError as exc:
            return self.fail(AppCode.WINDOW_PART_MISSING, exc.name or str(exc))
        if self.start.demo:
            add_demo_banner(self.window)
        self.window.show()
        return None

    def _open_context(self, tools: Tools) -> AppContext | None:
        """The open visitor file; None for a real folder that never held one (NO_FILE):
        the first-run wizard creates it, as an explicit act (art. 20.4)."""
        from admission.errors import StoreErrorCode

        try:
            ctx = self.start.build_context(tools)
        except AdmissionError as exc:
            if self.start.demo or exc.code is not StoreErrorCode.NO_FILE:
                raise
            return None
        try:
            ctx.retention.purge_if_due()  # six months (art. 20.4), as every command does
        except BaseException:
            ctx.close()
            raise
        return ctx

    def _operator(self, path: StartPath) -> Operator | None:
        assert self.tools is not None
        if path is StartPath.WIZARD:
            # contract: run_first_run_wizard(tools, open_context) -> (ctx, operator) | None;
            # open_context() opens the file (after tools.init_file() for a new folder)
            wizard = importlib.import_module("ui.dialogs.wizard")
            answer = wizard.run_first_run_wizard(self.tools, self._context_for_wizard)
            if answer is None:
                return None
            self.ctx, operator = answer
            return cast(Operator, operator)
        assert self.ctx is not None
        if path is StartPath.DEMO:
            from ui.demo_scenario import seed_demo_file

            seed_demo_file(self.ctx)
            if self.start.demo_devices is not None:
                self.devices = self.start.demo_devices(self.tools)
            return ensure_demo_accounts(self.ctx.accounts)
        # contract: run_sign_in(ctx) -> Operator | None (None: closed without signing in)
        sign_in = importlib.import_module("ui.dialogs.sign_in")
        return cast("Operator | None", sign_in.run_sign_in(self.ctx))

    def _context_for_wizard(self) -> AppContext:
        if self.ctx is None:
            assert self.tools is not None
            self.ctx = self._open_context(self.tools)
            if self.ctx is None:
                from admission.errors import StoreError, StoreErrorCode

                raise StoreError("no visitor file", code=StoreErrorCode.NO_FILE)
        return self.ctx

    def _build_window(self) -> QWidget:
        assert self.ctx is not None and self.operator is not None
        try:
            desk_window = importlib.import_module("ui.desk_window")
        except ImportError as exc:
            if exc.name != "ui.desk_window":
                raise
            self.parts = MinimalDesk(self.ctx, self.operator, self.devices)
        else:
            self.parts = desk_window.build_desk_window(self.ctx, self.operator)
        self._install_wedge()
        start = getattr(self.parts, "start", None)
        if callable(start):
            start()
        return cast(QWidget, getattr(self.parts, "window", self.parts))

    def _install_wedge(self) -> None:
        """Keyboard-wedge readers anywhere in the app reach the desk (not a widget)."""
        controller = getattr(self.parts, "controller", None)
        if controller is None or getattr(self.parts, "wedge", None) is not None:
            return
        from ui.wedge_filter import WedgeFilter

        wedge = WedgeFilter(parent=self)
        wedge.mrz_scanned.connect(controller.submit_mrz)
        wedge.code_scanned.connect(controller.submit_code)
        wedge.burst_discarded.connect(controller.report_burst_discarded)
        self.app.installEventFilter(wedge)
        self.wedge = wedge

    def close(self) -> None:
        stop = getattr(self.parts, "stop", None)
        if callable(stop):
            stop()
        if self.wedge is not None:
            self.app.removeEventFilter(self.wedge)
            self.wedge = None
        if self.window is not None:
            self.window.close()
        if self.ctx is not None:
            self.ctx.close()
            self.ctx = None


class _Signed:
    """The signed-in operator as the controller reads it (until ``ui.session``)."""

    def __init__(self, operator: Operator) -> None:
        self.operator: Operator | None = operator
        self.is_locked = False


class MinimalDesk:
    """The desk reduced to its flow, shown while ``ui.desk_window`` is not installed:
    the verdict as words, Enter records it, the workers feed the controller."""

    def __init__(self, ctx: AppContext, operator: Operator, devices: DemoDevices | None) -> None:
        from ui.controller import DeskController
        from ui.workers import CameraWorker, ReaderWorker, StoreWorker

        self.store_worker = StoreWorker()
        self.session = _Signed(operator)
        self.controller = DeskController(ctx, self.session, self.store_worker)
        self.window = QMainWindow()
        self.window.setWindowTitle(QCoreApplication.translate("DeskShell", "Recepción del casino"))
        self.verdict = QLabel(QCoreApplication.translate("DeskShell", "Esperando un documento"))
        self.verdict.setTextFormat(Qt.TextFormat.PlainText)
        self.verdict.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.verdict.setAccessibleName(QCoreApplication.translate("DeskShell", "Veredicto"))
        self.window.setCentralWidget(self.verdict)
        enter = QShortcut(QKeySequence(Qt.Key.Key_Return), self.window)
        enter.activated.connect(self.controller.admit)
        self.controller.verdict_ready.connect(self._show)
        self.workers: list[Any] = []
        if devices is not None:
            reader = ReaderWorker(devices.reader)
            reader.mrz_scanned.connect(self.controller.submit_mrz)
            camera = CameraWorker(devices.open_camera, ctx.devices.live_reader())
            camera.mrz_read.connect(self.controller.submit_mrz)
            self.workers = [reader, camera]

    def _show(self, verdict: Any) -> None:
        outcome = verdict.evaluation.verdict.outcome
        self.verdict.setText(text(str(outcome), "es"))

    def start(self) -> None:
        self.controller.start()
        for worker in self.workers:
            worker.start()

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()
        self.store_worker.stop()


def _is_unavailable(code: str) -> bool:
    from admission.devices import DeviceErrorCode
    from admission.errors import StoreErrorCode

    return isinstance(code, StoreErrorCode | DeviceErrorCode) or code in (
        AppCode.NO_DISPLAY,
        AppCode.WINDOW_PART_MISSING,
    )


SMOKE_TIMEOUT_S = 90.0  # a whole admission takes a few seconds; the CI must not hang


class SmokeRun(QObject):
    """One demo admission through the window: a new invented adult's document is laid
    on the demo reader, the verdict must be ADMIT, Enter is pressed on the window, the
    card must be printed to the demo PDF folder and the admission recorded. Exit 0, or
    1 with one line saying what failed; a hard limit ends a run that hangs."""

    def __init__(self, shell: DeskShell, timeout_s: float = SMOKE_TIMEOUT_S) -> None:
        super().__init__(shell)
        self.shell = shell
        self.timeout_s = timeout_s
        self.exit_code = 1
        self.recorded: Any = None
        self._done = False
        self._pdfs_before: set[str] = set()

    def _pdf_folder(self) -> Path:
        ctx = self.shell.ctx
        assert ctx is not None
        folder = ctx.settings["printer.pdf_folder"]
        return Path(folder) if folder else ctx.data_dir / "cards"

    def begin(self) -> None:
        import threading

        controller = getattr(self.shell.parts, "controller", None)
        devices = self.shell.devices
        if controller is None or devices is None or self.shell.ctx is None:
            QTimer.singleShot(0, lambda: self.finish(AppCode.SMOKE_FAILED, "no desk controller"))
            return
        controller.verdict_ready.connect(self._verdict)
        controller.admission_recorded.connect(self._recorded)
        controller.card_printed.connect(self._printed)
        controller.card_print_failed.connect(
            lambda n, code: self.finish(AppCode.SMOKE_FAILED, f"card {n}: {code}")
        )
        controller.scan_rejected.connect(lambda code, _m: self.finish(AppCode.SMOKE_FAILED, code))
        controller.operation_failed.connect(
            lambda code, _m: self.finish(AppCode.SMOKE_FAILED, code)
        )
        QTimer.singleShot(int(self.timeout_s * 1000), lambda: self.finish(AppCode.SMOKE_TIMEOUT))
        # a GUI thread that never returns to its loop would not see the timer
        guard = threading.Timer(self.timeout_s + 30, _hard_exit)
        guard.daemon = True
        guard.start()
        folder = self._pdf_folder()
        self._pdfs_before = {p.name for p in folder.glob("*.pdf")} if folder.is_dir() else set()
        from ui.demo_scenario import smoke_case

        case = smoke_case(self.shell.ctx.tools.today(), devices.salt)
        QTimer.singleShot(300, lambda: devices.reader.present(case.lines))

    def _verdict(self, verdict: Any) -> None:
        outcome = str(verdict.evaluation.verdict.outcome)
        if outcome != "ADMIT":
            codes = ",".join(str(c) for c in verdict.evaluation.verdict.codes)
            self.finish(AppCode.SMOKE_FAILED, f"verdict {outcome} {codes}")
            return
        window = self.shell.window
        if window is None:
            self.finish(AppCode.SMOKE_FAILED, "no window")
            return
        self._screenshot("smoke-verdict")
        from PySide6.QtTest import QTest

        window.activateWindow()
        QTest.keyClick(window, Qt.Key.Key_Return)  # the clerk's Enter records it

    def _recorded(self, result: Any) -> None:
        self.recorded = result

    def _printed(self, number: int) -> None:
        if self.recorded is None or getattr(self.recorded.card, "number", None) != number:
            self.finish(AppCode.SMOKE_FAILED, f"card {number} printed, not recorded")
            return
        folder = self._pdf_folder()
        new = {p.name for p in folder.glob("*.pdf")} - self._pdfs_before
        if not new:
            self.finish(AppCode.SMOKE_FAILED, "no card PDF written")
            return
        self._screenshot("smoke-admitted")
        print(f"smoke: admitted, card {number} printed to {folder}", file=sys.stderr)
        self.finish(None)

    def _screenshot(self, name: str) -> None:
        if self.shell.window is None:
            return
        try:
            from ui.screens import save_screenshot

            save_screenshot(self.shell.window, name)
        except (OSError, ValueError) as exc:
            log.warning("screenshot not saved: %s", exc)

    def finish(self, code: AppCode | None, detail: str = "") -> None:
        if self._done:
            return
        self._done = True
        if code is None:
            self.exit_code = 0
        else:
            self.exit_code = 1
            print(
                f"{code}: {text(code, 'en')}" + (f" ({detail})" if detail else ""), file=sys.stderr
            )
        QApplication.quit()


def _hard_exit() -> None:
    print(f"{AppCode.SMOKE_TIMEOUT}: {text(AppCode.SMOKE_TIMEOUT, 'en')}", file=sys.stderr)
    os._exit(1)


def make_application() -> QApplication:
    """The one QApplication: Qt 6 scales for high DPI by itself; fractional scale
    factors (150 %) are kept as they are instead of rounded (sharp text)."""
    existing = QApplication.instance()
    if existing is not None:
        return cast(QApplication, existing)
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    app = QApplication(sys.argv[:1])
    app.setApplicationName("admission-desk")
    app.setApplicationDisplayName("Recepción del casino")
    apply_dark_theme(app)
    return app


def run_window(start: AppStart) -> int:
    """Open the window and run until it closes; the smoke run's exit code."""
    app = make_application()
    shell = DeskShell(app, start)
    code = shell.open()
    if code is not None:
        shell.close()
        return code
    if start.smoke:
        smoke = SmokeRun(shell)
        smoke.begin()
        app.exec()
        shell.close()
        return smoke.exit_code
    answer = app.exec()
    shell.close()
    return answer

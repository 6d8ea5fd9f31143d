"""The desk window's application shell: QApplication, theme, language, start path.

``main.py`` (the composition root) calls :func:`run_window` with an :class:`AppStart`:
how to build the tools and open the visitor file, whether this is the demo, and the
demo's devices. This module never imports ``main`` and builds no adapter.

The start path (:func:`ui.desk.start.start_path`):

* real file, no account yet -> the first-run wizard (``ui.desk.dialogs.wizard``) creates
  the first administrator (art. 20.3: every admission names who made it);
* real file with accounts -> the sign-in dialog (``ui.desk.dialogs.sign_in``);
* demo -> the demo file is seeded (invented people listed, banned, employed), a clerk
  and a director with public demo passwords exist, the clerk is signed in; a DEMO banner
  stays on the window for as long as it is open.

The smoke run (``--smoke``, ``ADMISSION_SMOKE=1``; :mod:`ui.desk.smoke`) drives one demo
admission through the window offscreen and exits.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QMessageBox,
    QWidget,
)

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.errors import AdmissionError
from ui.desk.demo_start import add_demo_banner, ensure_demo_accounts
from ui.desk.first_run import import_registry_copy, probe_registry
from ui.desk.i18n import install_translator
from ui.desk.session import DeskSession
from ui.desk.smoke import SmokeRun
from ui.desk.start import AppCode, AppStart, StartPath, is_unavailable, no_display_line, start_path
from ui.desk.theme import apply_dark_theme, apply_theme
from ui.desk.window_geometry import restore_window, save_window

if TYPE_CHECKING:
    from PySide6.QtCore import QTranslator

    from admission.devices import Camera, DocumentReader
    from ui.context import AppContext, Tools
    from ui.desk.demo_scenario import DemoDevices
    from ui.desk.desk_window import DeskWindow
    from ui.floor.start import RunningFloor

__all__ = [
    "AppStart",
    "DeskShell",
    "make_application",
    "no_display_line",
    "run_window",
]

log = logging.getLogger("admission.ui")
SERIAL_BAUD = 9600  # document readers' factory default on their serial (RS-232) port
REBUILD_RETRY_MS = 300  # a verdict on screen: the window is rebuilt once it is settled
# settings the window itself reads when it is built: saved, they rebuild it
WINDOW_SETTINGS = frozenset({"ui.language", "camera.device", "scanner.serial_port", "chip.reader"})
# the theme and the text size: applied to the running application at once
DISPLAY_SETTINGS = frozenset({"ui.theme", "ui.font_size"})


class DeskShell(QObject):
    """Opens the file, signs the operator in, builds and shows the desk window."""

    def __init__(self, app: QApplication, start: AppStart) -> None:
        super().__init__(app)
        self.app = app
        self.start = start
        self.ctx: AppContext | None = None
        self.tools: Tools | None = None
        self.operator: Operator | None = None
        self.window: DeskWindow | None = None
        self.session: DeskSession | None = None
        self.filters: list[QObject] = []
        self._asking = False  # a sign-in or unlock dialog is open
        self._closing = False
        self.devices: DemoDevices | None = None
        self.translator: QTranslator | None = None
        self.parts: Any = None  # what build_desk_window answered
        self.failure: tuple[str, str] | None = None  # (code, detail) when the start failed
        self.wizard: QWidget | None = None  # the first-run wizard while it is open
        self.floor: RunningFloor | None = None  # the floor's card-check page (art. 22.4)
        self.floor_state: tuple[str, str] = ("", "")  # (its address, or why it did not start)

    # -- failures --------------------------------------------------------------------
    def language(self) -> str:
        if self.tools is None:
            return "es"
        return str(self.tools.settings["ui.language"])

    def apply_display(self) -> None:
        """The theme and text size of the settings (``ui.theme``, ``ui.font_size``)."""
        if self.tools is not None:
            settings = self.tools.settings
            apply_theme(self.app, str(settings["ui.theme"]), int(settings["ui.font_size"]))

    def fail(self, code: str, detail: str = "") -> int:
        """Say why the window did not open: one line in the smoke run, a message box
        otherwise. Returns the exit code (3: the file or a device; 1: anything else)."""
        self.failure = (str(code), detail)
        message = text(code, self.language())
        line = f"{code}: {message}" + (f" ({detail})" if detail else "")
        cancelled = code == AppCode.START_CANCELLED  # the person chose it: no alarm
        if cancelled or self.start.smoke or QGuiApplication.platformName() == "offscreen":
            print(line, file=sys.stderr)
        else:
            QMessageBox.critical(
                None, QCoreApplication.translate("DeskShell", "Recepción del casino"), line
            )
        from ui.cli.result import ExitCode

        if cancelled:
            return int(ExitCode.OK)
        return int(ExitCode.UNAVAILABLE if is_unavailable(code) else ExitCode.REFUSED)

    # -- the start -------------------------------------------------------------------
    def open(self) -> int | None:
        """Everything up to a shown window; an exit code when it stops before."""
        try:
            self.tools = self.start.build_tools()
            self.translator = install_translator(self.app, self.language())
            self.apply_display()
            self.ctx = self._open_server_patiently(self.tools)
            path = start_path(self.start.demo, None if self.ctx is None else self.ctx.accounts)
            if path is StartPath.WIZARD and not self._first_run():
                return self.fail(AppCode.START_CANCELLED)
            assert self.ctx is not None
            self.session = DeskSession.for_context(self.ctx, parent=self)
            if path is StartPath.DEMO:
                self._demo_sign_in(self.ctx, self.session)
            elif not self._sign_in(self.session):
                return self.fail(AppCode.START_CANCELLED)
            self.operator = self.session.operator
            self.window = self._build_window(self.ctx, self.session)
        except ImportError as exc:
            return self.fail(AppCode.WINDOW_PART_MISSING, exc.name or str(exc))
        except AdmissionError as exc:
            return self.fail(exc.code, str(exc) if self.start.smoke else "")
        if self.start.demo:
            add_demo_banner(self.window)
        # maximised the first time on this screen, then as it was left (read from 3 m)
        restore_window(self.window, self.ctx.data_dir)
        self.window.start()
        self.window.controller.settings_applied.connect(self._settings_applied)
        self._start_floor(self.ctx, self.window)
        self.session.locked.connect(lambda: QTimer.singleShot(0, self._unlock))
        self.session.signed_out.connect(
            lambda reason: QTimer.singleShot(0, lambda: self._signed_out(reason))
        )
        return None

    # -- settings saved while the desk runs ---------------------------------------------
    def _settings_applied(self, keys: list[str]) -> None:
        """The services took the saved settings already (``DeskController``); the
        language and the devices are the window's own: it is built again around the
        same file and session, at once (the settings dialog has closed by then)."""
        if DISPLAY_SETTINGS & set(keys):
            self.apply_display()  # the palette, style sheet and font of the whole app
        if WINDOW_SETTINGS & set(keys):
            QTimer.singleShot(0, self.rebuild_window)

    def rebuild_window(self) -> None:
        """A new desk window in the language and with the devices now set, where the old
        one was. A verdict still on screen is settled first (Enter or Esc by the clerk):
        the window waits for it, never dismissing it on the clerk's behalf."""
        if self._closing or self.window is None or self.ctx is None or self.session is None:
            return
        from ui.desk.controller import DeskState

        old = self.window
        if old.controller.state not in (DeskState.IDLE, DeskState.RECORDED):
            QTimer.singleShot(REBUILD_RETRY_MS, self.rebuild_window)
            return
        self.translator = install_translator(self.app, self.language())
        for event_filter in self.filters:
            self.app.removeEventFilter(event_filter)
        self.filters = []
        window = self._build_window(self.ctx, self.session)
        if self.start.demo:
            add_demo_banner(window)
        window.setGeometry(old.geometry())
        window.setWindowState(old.windowState())
        self.window = window
        window.show()  # before the old one closes: the last window closing quits
        window.start()
        window.controller.settings_applied.connect(self._settings_applied)
        window.status.set_floor(*self.floor_state)
        old.close()
        old.deleteLater()

    # -- the floor's card checks served with the desk (art. 22.4) ---------------------
    def _start_floor(self, ctx: AppContext, window: DeskWindow) -> None:
        """Serve the floor's page from this desk when ``floor.listen`` is set: staff and
        inspectors check cards with their phones wherever the visitor is. A service that
        cannot start is said in the status bar; the desk itself works on."""
        listen = str(ctx.settings["floor.listen"])
        if not listen:
            return
        from ui.floor.start import FloorStartError, start_floor

        cert, key = str(ctx.settings["floor.cert_file"]), str(ctx.settings["floor.key_file"])
        try:
            self.floor = start_floor(ctx, listen, "desk", cert, key)
        except FloorStartError as exc:
            log.warning("floor service not started: %s", exc.code)
            self.floor_state = ("", exc.code)
        else:
            self.floor_state = (self.floor.url, "")
        window.status.set_floor(*self.floor_state)

    # -- the session while the window is open (art. 20.3: who admits is who signed in)
    def _unlock(self) -> None:
        """An idle desk locks; only its operator's password opens it, or another
        person signs in instead ("Cambiar de operador")."""
        from ui.desk.dialogs.sign_in import UnlockDialog

        if self.session is None or not self.session.is_locked or self._asking:
            return
        self._asking = True
        try:
            dialog = UnlockDialog(self.session, self.window, lang=self.language())
            dialog.exec()
            dialog.deleteLater()
        finally:
            self._asking = False

    def _signed_out(self, reason: str) -> None:
        """Nobody works the desk: sign-in again, or the window closes."""
        if self._closing or self._asking or self.session is None:
            return
        if self.session.operator is not None or reason == "shutdown":
            return
        self._asking = True
        try:
            signed = self._sign_in(self.session)
        finally:
            self._asking = False
        if signed:
            self.operator = self.session.operator
        elif self.window is not None:
            self.window.close()

    def _open_server_patiently(self, tools: Tools) -> AppContext | None:
        """The visitor file; a desk whose server does not answer at start-up says so and
        offers to try again (the accounts are on the server too: nobody can sign in,
        nor be admitted, until it answers - arts. 20.3, 154-155)."""
        from ui.desk.desk_window import SERVER_SILENT

        while True:
            try:
                return self._open_context(tools)
            except AdmissionError as exc:
                if str(exc.code) not in SERVER_SILENT or not self.ask_retry(str(exc.code)):
                    raise

    def ask_retry(self, code: str) -> bool:
        """Ask whether to try the server again (never in the smoke run or offscreen,
        where nobody answers: the start fails with its code)."""
        if self.start.smoke or QGuiApplication.platformName() == "offscreen":
            return False
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            QCoreApplication.translate("DeskShell", "Recepción del casino"),
            QCoreApplication.translate(
                "DeskShell",
                "El servidor del casino no responde: nadie puede iniciar sesión ni ser "
                "admitido hasta que responda. Avise al técnico.",
            )
            + "\n\n"
            + f"{code}: {text(code, self.language())}",
        )
        again = box.addButton(
            QCoreApplication.translate("DeskShell", "&Reintentar"),
            QMessageBox.ButtonRole.AcceptRole,
        )
        box.addButton(
            QCoreApplication.translate("DeskShell", "&Salir"), QMessageBox.ButtonRole.RejectRole
        )
        box.setDefaultButton(again)
        box.exec()
        return box.clickedButton() is again

    def _open_context(self, tools: Tools) -> AppContext | None:
        """The open visitor file; None for a real folder that never held one (NO_FILE):
        the first-run wizard creates it, as an explicit act (art. 20.4). Without an OS
        keyring the file's passphrase is asked here (again after a wrong one)."""
        from admission.errors import StoreErrorCode

        while True:
            try:
                ctx = self.start.build_context(tools)
                break
            except AdmissionError as exc:
                if exc.code in (StoreErrorCode.NO_KEY, StoreErrorCode.WRONG_KEY):
                    wrong = exc.code is StoreErrorCode.WRONG_KEY
                    if self._ask_file_passphrase(wrong):
                        continue
                    raise
                if self.start.demo or exc.code is not StoreErrorCode.NO_FILE:
                    raise
                return None
        try:
            ctx.retention.purge_if_due()  # six months (art. 20.4), as every command does
        except BaseException:
            ctx.close()
            raise
        return ctx

    def _ask_file_passphrase(self, wrong: bool) -> bool:
        """The visitor file's passphrase from the person at the desk (no keyring, no
        ``ADMISSION_DB_KEY``); False when there is nobody to ask or they give up."""
        source = self.start.passphrase
        if source is None or self.start.smoke or not source.needed():
            return False
        from ui.desk.dialogs.passphrase import PassphraseDialog

        source.forget()
        dialog = PassphraseDialog(wrong=wrong)
        try:
            if dialog.exec() != QDialog.DialogCode.Accepted.value:
                return False
            source.give(dialog.passphrase())
            return True
        finally:
            dialog.clear()
            dialog.deleteLater()

    def _first_run(self) -> bool:
        """The first-run wizard: the file (if the folder has none), the administrator,
        the casino and the printer. Then the file is opened again with the settings the
        wizard wrote. False when the wizard was closed before the end."""
        assert self.tools is not None
        from ui.desk.dialogs.wizard import FirstRunWizard
        from ui.desk.workers import StoreWorker

        tools = self.tools
        runner = StoreWorker(self)

        def create_file() -> str:
            return tools.init_file()

        admins: list[Operator] = []

        def create_admin(username: str, display_name: str, password: str) -> object:
            if self.ctx is None:
                self.ctx = self._open_context(tools)
            assert self.ctx is not None
            account = self.ctx.accounts.create_account(
                username, display_name, password, {Role.ADMIN}, actor=None
            )
            admins.append(account.operator())
            return account

        def create_director(username: str, display_name: str, password: str) -> object:
            assert self.ctx is not None and admins  # the administrator page came first
            return self.ctx.accounts.create_account(
                username, display_name, password, {Role.DIRECTOR}, actor=admins[0]
            )

        source = self.start.passphrase
        wizard = FirstRunWizard(
            tools.settings,
            tools.data_dir / self.start.settings_file,
            runner,
            create_file=create_file,
            create_admin=create_admin,
            create_director=create_director,
            import_registry=lambda path: import_registry_copy(self.ctx, path),
            test_registry=lambda: probe_registry(tools, self.ctx),
            # a file made before (opened already, its passphrase asked): nothing to make
            passphrase=(
                source.give if source is not None and source.needed() and self.ctx is None else None
            ),
            preflight=tools.devices.printer_check,
            existing_file="" if self.ctx is None else "existing",
        )
        self.wizard = wizard  # tests and the first-run measure drive it
        try:
            finished = bool(wizard.exec() == QDialog.DialogCode.Accepted.value)
        finally:
            runner.stop()
            self.wizard = None
            wizard.deleteLater()
        if self.ctx is not None:
            self.ctx.close()
            self.ctx = None
        if not finished:
            return False
        self.tools = self.start.build_tools()  # the settings the wizard wrote
        self.ctx = self._open_context(self.tools)
        return self.ctx is not None

    def _demo_sign_in(self, ctx: AppContext, session: DeskSession) -> None:
        from ui.desk.demo_scenario import seed_demo_file

        seed_demo_file(ctx)
        if self.start.demo_devices is not None:
            self.devices = self.start.demo_devices(ctx.tools)
        session.sign_in(*ensure_demo_accounts(ctx.accounts))

    def _sign_in(self, session: DeskSession) -> bool:
        from ui.desk.dialogs.sign_in import SignInDialog

        dialog = SignInDialog(session, lang=self.language())
        try:
            return bool(dialog.exec() == QDialog.DialogCode.Accepted.value)
        finally:
            dialog.deleteLater()

    def _build_window(self, ctx: AppContext, session: DeskSession) -> DeskWindow:
        """The desk window over the context, with the readers and the camera: the demo's
        (scenario camera, demo reader) or the configured ones."""
        from ui.desk.dialogs.authorise import ask_director
        from ui.desk.session import ActivityFilter
        from ui.desk.wedge_filter import WedgeFilter
        from ui.desk.window_build import build_desk_window

        lang = self.language()
        camera: Callable[[], Camera] | None
        readers: list[DocumentReader] = []
        if self.devices is not None:
            # the smoke run scans with the reader only: no camera document races it
            camera = None if self.start.smoke else self.devices.open_camera
            readers = [self.devices.reader]
        elif ctx.demo:
            camera = None  # the demo never opens a real device
        else:
            source = str(ctx.settings["camera.device"])
            camera = (lambda: ctx.devices.camera(source)) if source else None
            port = str(ctx.settings["scanner.serial_port"])
            if port:
                readers.append(ctx.devices.serial_reader(port, SERIAL_BAUD))
        window = build_desk_window(
            ctx,
            session,
            # a director signed in confirms with PIN or password, the name filled in
            authorise=lambda purpose: ask_director(
                window, ctx.accounts, purpose, lang=lang, signed_in=session.operator
            ),
            demo=ctx.demo,
            camera=camera,
            readers=readers,
            # the documents' chip reader (art. 23.1), the demo's virtual chips
            chip=ctx.devices.chip_station(ctx) if ctx.devices.chip_station else None,
        )
        self.parts = window
        wedge = WedgeFilter(parent=self)
        window.connect_wedge(wedge)
        self.app.installEventFilter(wedge)
        activity = ActivityFilter(session, parent=self)
        self.app.installEventFilter(activity)
        self.filters = [wedge, activity]
        return window

    def close(self) -> None:
        self._closing = True
        for event_filter in self.filters:
            self.app.removeEventFilter(event_filter)
        self.filters = []
        if self.window is not None:
            if self.ctx is not None:
                try:
                    save_window(self.window, self.ctx.data_dir)
                except OSError as exc:  # the place is a convenience: never stops a close
                    log.warning("window place not kept: %s", type(exc).__name__)
            self.window.close()  # stops the workers (DeskWindow.closeEvent)
            self.window = None
        if self.session is not None and self.session.operator is not None:
            self.session.sign_out("shutdown")
        if self.floor is not None and self.ctx is not None:
            try:
                self.floor.stop(self.ctx)
            except AdmissionError as exc:  # the stop not recorded: the file says why
                log.warning("floor service stop not recorded: %s", exc.code)
            self.floor = None
        if self.ctx is not None:
            self.ctx.close()
            self.ctx = None


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
        smoke = SmokeRun(shell, shell)
        smoke.begin()
        app.exec()
        shell.close()
        return smoke.exit_code
    answer = app.exec()
    shell.close()
    return answer

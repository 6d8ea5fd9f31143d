"""The desk window's application shell: QApplication, theme, language, start path.

``main.py`` (the composition root) calls :func:`run_window` with an :class:`AppStart`:
how to build the tools and open the visitor file, whether this is the demo, and the
demo's devices. This module never imports ``main`` and builds no adapter.

The start path (:func:`start_path`):

* real file, no account yet -> the first-run wizard (``ui.desk.dialogs.wizard``) creates
  the first administrator (art. 20.3: every admission names who made it);
* real file with accounts -> the sign-in dialog (``ui.desk.dialogs.sign_in``);
* demo -> the demo file is seeded (invented people listed, banned, employed), a clerk
  and a director with public demo passwords exist, the clerk is signed in; a DEMO banner
  stays on the window for as long as it is open.

The smoke run (``--smoke``, ``ADMISSION_SMOKE=1``; :mod:`ui.smoke`) drives one demo
admission through the window offscreen and exits.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum, unique
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QToolBar,
    QWidget,
)

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.codes import Code
from admission.errors import AdmissionError
from ui.desk.i18n import install_translator
from ui.desk.session import DeskSession
from ui.desk.theme import apply_dark_theme, apply_theme
from ui.desk.window_geometry import restore_window, save_window

if TYPE_CHECKING:
    from PySide6.QtCore import QTranslator

    from admission.accounts import AccountService
    from admission.devices import Camera, DocumentReader
    from ui.context import AppContext, Tools
    from ui.desk.demo_scenario import DemoDevices
    from ui.desk.desk_window import DeskWindow

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
SERIAL_BAUD = 9600  # document readers' factory default on their serial (RS-232) port
REBUILD_RETRY_MS = 300  # a verdict on screen: the window is rebuilt once it is settled
# settings the window itself reads when it is built: saved, they rebuild it
WINDOW_SETTINGS = frozenset({"ui.language", "camera.device", "scanner.serial_port"})
# the theme and the text size: applied to the running application at once
DISPLAY_SETTINGS = frozenset({"ui.theme", "ui.font_size"})


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
    settings_file: str = "settings.json"  # in the data folder (the wizard writes it)
    # the file's passphrase when there is no OS keyring (db.keys.WindowPassphrase, the
    # same object build_tools was given): the wizard sets it, the start asks for it
    passphrase: PassphraseSource | None = None


class PassphraseSource(Protocol):
    """Where the window puts the visitor file's passphrase (memory only)."""

    def needed(self) -> bool: ...

    def give(self, passphrase: str) -> None: ...

    def forget(self) -> None: ...

    @property
    def given(self) -> bool: ...


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


def ensure_demo_accounts(accounts: AccountService) -> tuple[str, str]:
    """Create the demo's director and clerk if missing (audited); the clerk's user
    name and password, to sign in with."""
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
    return c_name, c_password


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
        label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
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
        return int(ExitCode.UNAVAILABLE if _is_unavailable(code) else ExitCode.REFUSED)

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
        old.close()
        old.deleteLater()

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
            import_registry=lambda path: _import_registry(self.ctx, path),
            test_registry=lambda: _test_registry(tools, self.ctx),
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
        from ui.desk.desk_window import build_desk_window
        from ui.desk.dialogs.authorise import ask_director
        from ui.desk.session import ActivityFilter
        from ui.desk.wedge_filter import WedgeFilter

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
        if self.ctx is not None:
            self.ctx.close()
            self.ctx = None


# an invented DNI (valid check letter): the wizard's test query of the RIAJ (art. 20.2)
REGISTRY_PROBE_NUMBER = "00000000T"


def _import_registry(ctx: AppContext | None, path: Path) -> Any:
    """The wizard's RIAJ copy: imported into the file as ``registry import`` does."""
    from ui.desk.dialogs.wizard import RegistryImported

    if ctx is None:
        raise AdmissionError("the visitor file is not open")
    result = ctx.replica.import_file(path)
    return RegistryImported(result.entries, result.as_of)


def _test_registry(tools: Tools, ctx: AppContext | None) -> Any:
    """One query of an invented identity: through the online service when one is set
    (and only it: a copy answering instead would hide a broken service), else through
    the copy, as the desk will ask them (fail closed, max. age)."""
    from datetime import timedelta

    from admission.identity import IdentityKey, IdKind
    from admission.registry.policy import RegistryPolicy, RegistryPolicySettings

    if ctx is None:
        raise AdmissionError("the visitor file is not open")
    settings = tools.settings
    factory = tools.devices.online_registry
    online = factory(settings) if settings["registry.online_url"] and factory else None
    policy = RegistryPolicy(
        tools.clock,
        online=online,
        replica=None if online is not None else ctx.replica,
        settings=RegistryPolicySettings(
            max_replica_age=timedelta(hours=settings["registry.max_replica_age_hours"])
        ),
    )
    return policy.check(IdentityKey.of(IdKind.DNI, "ESP", REGISTRY_PROBE_NUMBER))


def _is_unavailable(code: str) -> bool:
    from admission.devices import DeviceErrorCode
    from admission.errors import StoreErrorCode
    from ui.desk.desk_window import SERVER_SILENT

    return (
        isinstance(code, StoreErrorCode | DeviceErrorCode)
        or str(code) in SERVER_SILENT  # the casino's server: the visitor file is there
        or code in (AppCode.NO_DISPLAY, AppCode.WINDOW_PART_MISSING)
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
        from ui.desk.demo_scenario import smoke_case

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
            from ui.desk.screens import save_screenshot

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

"""``DeskWindow``: the admission desk's main window (arts. 20-23 of Decreto 58/2006).

Composes the panels (verdict banner, identity, camera preview, counters, status bar)
over a :class:`ui.desk.controller.DeskController` and gives the clerk the keys: a good
document needs at most one key press after the scan -

* Enter: record the verdict on screen and print the card (once; art. 22);
* F1..F8: the card type (in the order of the catalogue, ``ctx.desk.config.catalogue``);
* Esc: clear the screen;
* Ctrl+M: manual entry of a document without MRZ (art. 23.1); Ctrl+K: card check (R8).

A desk of the casino's server (arts. 154-155) that cannot reach it admits nobody on its
own (art. 22.1: one card sequence for the operating unit): the window says so at once,
a document read or typed is shown but not evaluated, Enter records nothing, and F9
gives the provisional voucher of art. 23.4
(``ui.desk.dialogs.offline_voucher.OfflineVoucherDialog``) under a local reference,
numbered on the server when it answers again - the window then says which reference got
which number.

The menus (Admisión, Dirección, Administración, Inspección, Sesión, Ayuda) carry every
dialog with its shortcut: :mod:`ui.desk.menus`, one module per menu, attached by
:func:`ui.desk.window_build.build_desk_window`. They reach the window only through its own API
(:class:`ui.desk.host.DeskHost`: ``window.add_action(MENU_DIRECTION, action)``...).

While a modal dialog is open (a director's authorisation, a voucher, the settings) a
document read by a reader or the camera is ignored, with a hint in the status bar: the
wedge filter keeps the burst out of the dialog's fields, and the verdict behind the
dialog never changes under the person deciding on it (arts. 20.3, 23.4-5).

The keyboard-wedge filter is installed on the application by the window's owner;
``window.connect_wedge(filter)`` feeds its scans to the controller. Serial readers feed
the same flow through :class:`ui.desk.workers.ReaderWorker`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QLocale, QObject, Qt, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QImage, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from admission.accounts import Operator, Role
from admission.cards.catalogue import CardType
from admission.cards.verification import CardVerification
from admission.counters import DeskCounters
from admission.desk import AdmissionResult, DeskErrorCode
from admission.devices import (
    DeviceStatus,
    Sound,
    SoundPlayer,
)
from admission.documents import IdentityDocument
from admission.identity import IdentityKey
from admission.ports import madrid_date
from ui.desk.changes import DeskOperations, OpChanges
from ui.desk.chip_reading import ChipShown, DeskChip
from ui.desk.controller import DeskController
from ui.desk.desk_flow import DeskFlowCode, DeskVerdict, SessionView, document_from_lines
from ui.desk.desk_presentation import PresentationView
from ui.desk.dialogs.card_check import CardCheckDialog
from ui.desk.dialogs.chip_can import CanDialog
from ui.desk.dialogs.inspection import InspectionScreen
from ui.desk.dialogs.manual_entry import ManualEntryDialog
from ui.desk.dialogs.offline_voucher import OfflineVoucherCode
from ui.desk.host import MENU_ADMIN, MENU_DESK, MENU_DIRECTION
from ui.desk.inspection_controller import inspection_controller
from ui.desk.jobs import ImmediateRunner, JobRunner
from ui.desk.menus import DeskMenus
from ui.desk.menus.audit import AuditMenu
from ui.desk.menus.help import HelpMenu
from ui.desk.text import bounded, message
from ui.desk.wedge_filter import WedgeFilter
from ui.desk.widgets.counters import CountersPanel
from ui.desk.widgets.identity import IdentityPanel
from ui.desk.widgets.preview import CameraPreview
from ui.desk.widgets.server_banner import ServerBanner, formalised_text, show_offline_document
from ui.desk.widgets.status_bar import DeskStatusBar
from ui.desk.widgets.verdict import VerdictBanner
from ui.desk.workers import CameraWorker, ReaderWorker

if TYPE_CHECKING:
    from admission.vouchers.offline import FormaliseReport, QueuedVoucher
    from ui.context import AppContext


__all__ = [
    "MENU_ADMIN",
    "MENU_DESK",
    "MENU_DIRECTION",
    "DeskWindow",
    "inspector_only",
]

MAX_FKEYS = 8
# the server did not answer an evaluation (db.pg.connect.PgConnectCode,
# db.pg.latency.PgLinkCode): the desk is without its server, as when the probe fails
SERVER_SILENT = frozenset(
    {"PG_UNREACHABLE", "PG_CONNECT_FAILED", "PG_SERVER_TIMEOUT", "PG_CONNECTION_LOST"}
)


def inspector_only(operator: Operator | None) -> bool:
    """A gaming inspector who does not work the desk (neither a clerk nor the game
    director): their window is the inspector's screen, never the admission desk."""
    return (
        operator is not None
        and operator.has(Role.INSPECTOR)
        and not operator.has(Role.CLERK)
        and not operator.has(Role.DIRECTOR)
    )


def _card_label(card_type: CardType) -> str:
    """The card type's label in the window's language (the translator sets the locale)."""
    english = QLocale().language() == QLocale.Language.English
    return bounded(card_type.label_en if english else card_type.label_es, 40)


class DeskWindow(QMainWindow):
    # the window changed screen: the desk, or the inspector's screen (art. 20.4)
    inspector_mode_changed = Signal(bool)

    def __init__(
        self,
        ctx: AppContext,
        session: SessionView,
        controller: DeskController,
        *,
        demo: bool,
        sound: SoundPlayer | None = None,
        runner: JobRunner | None = None,
        authorise: Callable[[str], Operator | None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.session = session
        self.controller = controller
        # the store worker the controller uses, and the director's authorisation: the
        # dialogs of the menus (ui.desk.menus) run on the same worker
        self.runner = runner
        self.authorise = authorise
        self.menus: DeskMenus | None = None
        self.help: HelpMenu | None = None  # F12 keys, F11 the regulation (art. 25)
        self.audit: AuditMenu | None = None  # the audit trail (arts. 14.1.b, 20.4)
        self.sound = sound if sound is not None else ctx.devices.sound(None)
        self._workers: list[QObject] = []
        self.card_check: CardCheckDialog | None = None
        self.setWindowTitle(self.tr("Admisión — control de entrada"))
        self.setAccessibleName(self.tr("Admisión"))

        self.verdict = VerdictBanner()
        self.identity = IdentityPanel()
        self.preview = CameraPreview()
        self.counters = CountersPanel()
        self.card_type = QLabel()
        self.card_type.setTextFormat(Qt.TextFormat.PlainText)
        self.card_type.setAccessibleName(self.tr("Tipo de tarjeta"))
        self.status = DeskStatusBar(demo=demo)
        self.setStatusBar(self.status)
        # the server cannot be reached (art. 23.4): said across the top of the desk
        self.offline_banner = ServerBanner()
        # provisional vouchers of this desk still without a server number
        self.provisional_label = QLabel()
        self.provisional_label.setTextFormat(Qt.TextFormat.PlainText)
        self.provisional_label.setAccessibleName(self.tr("Volantes provisionales sin número"))
        self.status.devices.add(self.provisional_label)
        self.provisional_label.hide()
        self.offline_document: IdentityDocument | None = None  # read while offline
        self.formalise_text = ""  # the last formalisation told (tests, accessibility)
        self._unanswered = False  # an evaluation got no answer from the server
        self._evaluating = False  # a document is being evaluated
        # vouchers an earlier session left queued are sent at the server's first answer
        self._last_read: IdentityDocument | None = None  # the document being evaluated
        self._unknown: set[IdentityKey] = set()  # admissions whose outcome is unknown
        # the holder's portrait the camera cut beside the MRZ just read, with the
        # identity it belongs to: memory only, dropped with the verdict
        self._portrait: tuple[IdentityKey, QImage] | None = None
        # the document's chip just read (its photo, memory only): dropped with the verdict
        self._chip_shown: ChipShown | None = None
        self.can_dialog: CanDialog | None = None

        # one presentation, one record: what waits behind the verdict, the re-entry
        self.presentation = PresentationView(self, ctx)
        left = QVBoxLayout()
        left.addWidget(self.offline_banner)
        left.addWidget(self.presentation.waiting_label)
        # the verdict is read from across the counter: it takes the larger share
        left.addWidget(self.verdict, 3)
        left.addWidget(self.identity, 2)
        right = QVBoxLayout()
        right.addWidget(self.preview, 3)
        right.addWidget(self.card_type)
        right.addWidget(self.counters)
        body = QHBoxLayout()
        body.addLayout(left, 3)
        body.addLayout(right, 2)
        centre = QWidget()
        centre.setLayout(body)
        self.desk_page = centre
        # the admission desk, or the inspector's screen for an inspector (art. 20.4)
        self.pages = QStackedWidget()
        self.pages.addWidget(centre)
        self.setCentralWidget(self.pages)
        self.inspection: InspectionScreen | None = None
        self.inspector_mode = False
        self._disabled: list[QAction] = []

        self._menus: dict[str, QMenu] = {}
        self._build_menus()
        self._build_keys()
        self._wire()
        self.presentation.attach(MENU_DESK)
        self._show_card_type(controller.card_type)

    # -- menus and keys -----------------------------------------------------------
    def _build_menus(self) -> None:
        bar = self.menuBar()
        for name, title in (
            (MENU_DESK, self.tr("&Admisión")),
            (MENU_DIRECTION, self.tr("&Dirección")),
            (MENU_ADMIN, self.tr("Ad&ministración")),
        ):
            menu = bar.addMenu(title)
            menu.setObjectName(f"menu_{name}")
            menu.setAccessibleName(title.replace("&", ""))
            self._menus[name] = menu
        self.manual_action = self._action(
            self.tr("Entrada manual…"), "Ctrl+M", self.open_manual_entry
        )
        self.check_action = self._action(
            self.tr("Comprobar tarjeta…"), "Ctrl+K", self.open_card_check
        )
        self.reprint_action = self._action(
            self.tr("Reimprimir tarjetas no impresas"), "Ctrl+P", self.controller.retry_print
        )
        for action in (self.manual_action, self.check_action, self.reprint_action):
            self.add_action(MENU_DESK, action)
        # placeholders until the director's and administrator's dialogs are attached
        for name in (MENU_DIRECTION, MENU_ADMIN):
            self._menus[name].menuAction().setVisible(False)

    def _action(self, title: str, keys: str, slot: Callable[[], object]) -> QAction:
        action = QAction(title, self)
        action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def add_action(self, menu_name: str, action: QAction) -> None:
        """Attach ``action`` to menu ``MENU_DESK``, ``MENU_DIRECTION`` or ``MENU_ADMIN``
        (its shortcut then works anywhere in the window)."""
        menu = self._menus[menu_name]
        menu.addAction(action)
        menu.menuAction().setVisible(True)
        self.addAction(action)

    def menu(self, menu_name: str) -> QMenu:
        return self._menus[menu_name]

    def add_menu(self, menu_name: str, title: str) -> QMenu:
        """A new menu ``menu_name`` on the menu bar (hidden until an action is added)."""
        menu = self.menuBar().addMenu(title)
        menu.setObjectName(f"menu_{menu_name}")
        menu.setAccessibleName(title.replace("&", ""))
        menu.menuAction().setVisible(False)
        self._menus[menu_name] = menu
        return menu

    def _build_keys(self) -> None:
        enter = QAction(self.tr("Registrar e imprimir"), self)
        enter.setShortcuts([QKeySequence(Qt.Key.Key_Return), QKeySequence(Qt.Key.Key_Enter)])
        enter.triggered.connect(lambda _checked=False: self.enter())
        clear = QAction(self.tr("Limpiar"), self)
        clear.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        clear.triggered.connect(lambda _checked=False: self.controller.clear())
        self.enter_action, self.clear_action = enter, clear
        for action in (enter, clear):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(action)
        self.card_type_actions: list[QAction] = []
        self.refresh_card_types()

    def refresh_card_types(self) -> None:
        """F1..F8 follow the catalogue in force (card types saved while the desk runs)."""
        for old in self.card_type_actions:
            self.removeAction(old)
            old.deleteLater()
        self.card_type_actions = []
        catalogue = self.ctx.desk.config.catalogue
        for index, code in enumerate(list(catalogue.types)[:MAX_FKEYS]):
            action = QAction(_card_label(catalogue.types[code]), self)
            action.setShortcut(QKeySequence(f"F{index + 1}"))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(
                lambda _checked=False, c=code: self.controller.choose_card_type(c)
            )
            self.addAction(action)
            self.card_type_actions.append(action)

    # -- wiring -------------------------------------------------------------------
    def _wire(self) -> None:
        c = self.controller
        c.evaluation_started.connect(self.verdict.show_checking)
        c.evaluation_started.connect(self._on_evaluation_started)
        c.verdict_ready.connect(self._on_verdict)
        c.admission_recorded.connect(self._on_recorded)
        c.dismissal_recorded.connect(self._on_dismissal_recorded)
        c.card_printed.connect(self._on_printed)
        c.card_print_failed.connect(self._on_print_failed)
        c.card_checked.connect(self._on_card_checked)
        c.scan_rejected.connect(self._on_rejected)
        c.operation_failed.connect(self._on_failed)
        c.camera_hint_changed.connect(self.preview.set_hint)
        c.frame_ready.connect(self.preview.set_frame)
        c.device_status_changed.connect(self.status.set_status)
        c.register_checked.connect(self.status.set_register_age)
        c.server_checked.connect(self.status.set_server)
        c.server_followed.connect(self.status.set_followed)
        c.counters_changed.connect(self._on_counters)
        c.card_type_chosen.connect(self._show_card_type)
        c.settings_applied.connect(lambda _keys: self.refresh_card_types())
        c.cleared.connect(self._on_cleared)
        c.server_changed.connect(self._on_server_changed)
        c.vouchers_formalised.connect(self._on_vouchers_formalised)
        c.operations.operation_did_execute.connect(self._on_operation)
        for name in ("locked", "signed_out"):
            signal = getattr(self.session, name, None)
            if signal is not None:
                signal.connect(c.clear)
        for name in ("signed_in", "unlocked"):
            signal = getattr(self.session, name, None)
            if signal is not None:
                signal.connect(self.apply_operator)

    @property
    def operations(self) -> DeskOperations:
        """The desk's store writes and their broadcast (the controller's)."""
        return self.controller.operations

    def card_label(self, code: str) -> str:
        """A card type's label in the window's language (its code when unknown)."""
        catalogue = self.ctx.desk.config.catalogue
        return _card_label(catalogue.types[code]) if code in catalogue.types else code

    # -- who works the window: the desk, or the inspector's screen ----------------------
    def _inspection_page(self) -> InspectionScreen:
        if self.inspection is None:
            runner = self.runner if self.runner is not None else ImmediateRunner()
            controller = inspection_controller(self.ctx, runner, self.session, parent=self)
            self.inspection = InspectionScreen(
                controller, self.ctx.tools.today, card_label=self.card_label
            )
            self.controller.operations.operation_did_execute.connect(self.inspection.changed)
            self.pages.addWidget(self.inspection)
        return self.inspection

    def apply_operator(self, *_args: object) -> None:
        """Show the desk, or the inspector's screen for an inspector who does not work
        the desk: then every desk key and menu action is disabled (the session's own
        stay) and reader input is dropped (:meth:`read_mrz`)."""
        operator = self.session.operator
        if operator is None:
            return  # locked or signed out: the screen waits for the next operator
        inspector = inspector_only(operator)
        if inspector == self.inspector_mode:
            return
        self.inspector_mode = inspector
        if inspector:
            self.controller.clear()
            page = self._inspection_page()
            self.pages.setCurrentWidget(page)
            keep = {"action_lock", "action_sign_out", "action_retention"}
            self._disabled = [
                a for a in self.actions() if a.isEnabled() and a.objectName() not in keep
            ]
            for action in self._disabled:
                action.setEnabled(False)
            for name in (MENU_DESK, MENU_DIRECTION, MENU_ADMIN):
                self._menus[name].menuAction().setVisible(False)
            self.setWindowTitle(self.tr("Inspección — fichero de visitantes"))
            page.name_edit.setFocus()
        else:
            self.pages.setCurrentWidget(self.desk_page)
            for action in self._disabled:
                action.setEnabled(True)
            self._disabled = []
            for name in (MENU_DESK, MENU_DIRECTION, MENU_ADMIN):
                menu = self._menus[name]
                menu.menuAction().setVisible(bool(menu.actions()))
            self.setWindowTitle(self.tr("Admisión — control de entrada"))
        self.inspector_mode_changed.emit(inspector)

    def connect_wedge(self, wedge: WedgeFilter) -> None:
        """Feed a keyboard-wedge filter's scans (installed on the app by the owner)."""
        wedge.mrz_scanned.connect(self.read_mrz)
        wedge.code_scanned.connect(self.read_code)
        wedge.burst_discarded.connect(self.read_discarded)

    def connect_reader(self, worker: ReaderWorker) -> None:
        worker.mrz_scanned.connect(self.read_mrz)
        worker.code_scanned.connect(self.read_code)
        worker.burst_discarded.connect(self.read_discarded)
        worker.status_changed.connect(self.controller.report_device)
        self.adopt_worker(worker)

    def connect_camera(self, worker: CameraWorker) -> None:
        worker.frame_ready.connect(self.controller.report_frame)
        worker.hint_changed.connect(self.controller.report_hint)
        worker.mrz_read.connect(self.read_mrz)
        worker.portrait_found.connect(self.show_portrait)
        worker.status_changed.connect(self.controller.report_device)
        self.adopt_worker(worker)

    @Slot(object, QImage)
    def show_portrait(self, lines: object, image: QImage) -> None:
        """The portrait cut beside ``lines``: beside the verdict when it is this
        document's (now, or when its verdict comes). Kept in memory only."""
        document = self._parse(lines)
        if document is None:
            return
        self._portrait = (document.identity, image)
        current = self.controller.current
        if current is not None and current.evaluation.document.identity == document.identity:
            self.verdict.set_portrait(self._portrait_of(current))  # the chip's photo first

    def connect_chip(self, chip: DeskChip) -> None:
        """The chip reader's reads: the photo and result beside the verdict, the CAN
        asked when its chip needs it (``ui.desk.chip_reading``)."""
        self.controller.chip = chip
        chip.chip_read.connect(self._on_chip_read)
        chip.can_requested.connect(self.ask_can)
        for name in ("locked", "signed_out"):  # the CAN is for the clerk who typed it
            signal = getattr(self.session, name, None)
            if signal is not None:
                signal.connect(chip.forget)

    @Slot(object)
    def _on_chip_read(self, shown: ChipShown) -> None:
        self._chip_shown = shown  # memory only: the verdict of this document shows it

    @Slot(object)
    def ask_can(self, _document: object) -> CanDialog:
        """The CAN of the document on the reader (6 digits printed on its front), asked
        once: Enter reads the chip with it, Esc goes on with the chip unread."""
        chip = self.controller.chip
        dialog = CanDialog(self)
        self.can_dialog = dialog

        def answered(_result: int) -> None:
            self.can_dialog = None
            if chip is not None:
                chip.give_can(dialog.can)
            dialog.deleteLater()

        dialog.finished.connect(answered)
        dialog.open()
        return dialog

    def _close_can_dialog(self) -> None:
        """The screen was cleared (Esc, a lock, a sign-out): a CAN still asked for is
        not waited for."""
        if self.can_dialog is not None:
            self.can_dialog.reject()

    def _chip_photo_of(self, verdict: DeskVerdict) -> QImage | None:
        shown = self._chip_shown
        if shown is None or shown.identity != verdict.evaluation.document.identity:
            return None
        return shown.photo

    def _show_chip(self, verdict: DeskVerdict) -> None:
        """The chip's result the verdict weighed (the document carries it), with the
        catalogue's text of its code when it is not genuine."""
        check = getattr(verdict.evaluation.document, "chip", None)
        if check is None:
            self.verdict.set_chip("")
            return
        detail = message(check.code.value) if check.code is not None else ""
        self.verdict.set_chip(check.status.value, detail)

    def _portrait_of(self, verdict: DeskVerdict) -> QImage | None:
        chip_photo = self._chip_photo_of(verdict)  # the state's own photo comes first
        if chip_photo is not None:
            return chip_photo
        if self._portrait is None or self._portrait[0] != verdict.evaluation.document.identity:
            return None
        return self._portrait[1]

    # -- reader input while a dialog is open --------------------------------------
    def dialog_open(self) -> bool:
        """A modal dialog is open (a director's authorisation, a voucher, the settings):
        the wedge filter kept the burst out of its fields, and the desk ignores the
        document read, so the verdict behind the dialog - the one the director or the
        clerk is deciding on (arts. 20.3, 23.4-5) - never changes under it."""
        return QApplication.activeModalWidget() is not None

    def _ignored_while_dialog(self) -> bool:
        if self.inspector_mode:
            return True  # the inspector's screen admits nobody: the document is dropped
        if not self.dialog_open():
            return False
        if not self.session.is_locked:  # locked: the unlock dialog is up, input dropped
            self.status.showMessage(self.tr("Cierre el diálogo para leer un documento"), 8_000)
        return True

    @Slot(object)
    def read_mrz(self, lines: object) -> None:
        """MRZ lines from a reader or the camera: to the controller, unless a dialog is
        open (then ignored, with a hint in the status bar)."""
        if self._ignored_while_dialog():
            return
        if self.offline_mode:
            self._read_offline(lines)
            return
        if self.ctx.offline_vouchers is not None:
            # kept in case the server does not answer its evaluation (F9 then offers
            # the provisional voucher for it)
            self._last_read = self._parse(lines)
        self.controller.submit_mrz(lines)

    @Slot(str)
    def read_code(self, code: str) -> None:
        if not self._ignored_while_dialog():
            self.controller.submit_code(code)

    @Slot(str)
    def read_discarded(self, code: str) -> None:
        if not self._ignored_while_dialog():
            self.controller.report_burst_discarded(code)

    def adopt_worker(self, worker: QObject) -> None:
        """The window stops ``worker`` (anything with ``stop()``) when it closes."""
        self._workers.append(worker)

    def start(self) -> None:
        """Start the threads adopted and the controller's timers."""
        for worker in self._workers:
            start = getattr(worker, "start", None)
            if start is not None and not getattr(worker, "isRunning", lambda: True)():
                start()
        self.controller.start()
        self.refresh_provisional()

    def stop(self) -> None:
        """Stop the timers and join every worker thread (the store worker last)."""
        self.controller.stop()
        for worker in reversed(self._workers):
            stop = getattr(worker, "stop", None)
            if stop is not None:
                stop()
        self._workers.clear()
        self.sound.close()

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override: camelCase by necessity
        self.stop()
        super().closeEvent(event)

    # -- answers ------------------------------------------------------------------
    def _on_evaluation_started(self) -> None:
        self._evaluating = True

    def _on_verdict(self, verdict: DeskVerdict) -> None:
        self._unanswered = False  # the server answered
        self._evaluating = False
        self._hide_formalised()
        evaluation = verdict.evaluation
        self.verdict.set_portrait(self._portrait_of(verdict))
        self.presentation.paint(evaluation, evaluation.verdict.outcome, evaluation.verdict.codes)
        self._show_chip(verdict)  # after the reasons: the chip's detail goes under them
        self.identity.show_verdict(verdict)
        self.sound.play(self.presentation.sound_of(evaluation.verdict.outcome))

    def _on_recorded(self, result: AdmissionResult) -> None:
        self.presentation.show_recorded(result)
        self.identity.show_file_number(result.recorded.file_number)

    def _on_dismissal_recorded(self, result: AdmissionResult) -> None:
        """A SUPERVISOR no director authorised, or an ADMIT dismissed, recorded when it
        left the screen (arts. 20, 22): said in the status bar, the screen moved on."""
        self.status.showMessage(self.presentation.dismissal_text(result), 10_000)

    def _on_printed(self, number: int) -> None:
        # a card printed is the printer working: an error a failed job left on the
        # status bar goes (the device watch says only changes, and its check may
        # never have seen the failure)
        self.status.set_status("printer", DeviceStatus.READY.value, "")
        text = self.tr("Tarjeta nº {0} impresa · Esc: siguiente").format(number)
        if self.presentation.card_on_screen == number:
            self.verdict.show_progress(text)
        else:  # the next visitor's verdict is on screen by now
            self.status.showMessage(self.tr("Tarjeta nº {0} impresa").format(number), 10_000)

    def _on_print_failed(self, number: int, code: str) -> None:
        text = self.tr("Tarjeta nº {0} NO impresa: {1} · Ctrl+P para reimprimir").format(
            number, message(code)
        )
        if self.presentation.card_on_screen == number:
            self.verdict.show_progress(text)
        else:
            self.status.showMessage(text, 30_000)
        self.status.last_error.setText(bounded(text, 160))
        self.status.set_status("printer", DeviceStatus.ERROR.value, code)
        self.sound.play(Sound.REFUSE)

    def _on_card_checked(self, answer: CardVerification) -> None:
        dialog = self.card_check
        if dialog is None or not dialog.isVisible():
            dialog = self._card_check_dialog()
            dialog.show()
        dialog.show_result(answer)
        self.sound.play(Sound.ADMIT if answer.ok else Sound.REFUSE)

    def _on_rejected(self, code: str, message_es: str) -> None:
        if self.controller.current is not None:  # the verdict on screen stays
            self.status.showMessage(bounded(message(code), 160), 10_000)
        else:
            self.verdict.show_refusal(message(code))  # the catalogue's text, window's language
            self.identity.clear()
        self.sound.play(Sound.REFUSE)

    def _on_failed(self, code: str, message_es: str) -> None:
        text = message(code)
        self.verdict.show_progress(text)
        self.status.last_error.setText(bounded(text, 160))
        if self.ctx.offline_vouchers is None:
            return
        current = self.controller.current
        if code == DeskErrorCode.OUTCOME_UNKNOWN and current is not None:
            # recorded or not, nobody knows until the server answers: no provisional
            # voucher for this person meanwhile (art. 22: one card)
            self._unknown.add(current.evaluation.document.identity)
        evaluating, self._evaluating = self._evaluating, False
        if code in SERVER_SILENT:
            self._unanswered = True
            # the controller learns it too (it then refuses scans), so that the next
            # probe the server answers brings the desk back, as after a lost probe
            self.controller.report_server(False)
            read = self._last_read if evaluating else None
            if read is not None and current is None:
                self._show_offline_document(read)  # the document whose check failed
            else:
                self._show_offline()

    def _on_counters(self, counters: DeskCounters) -> None:
        self.counters.show_counters(counters)

    def _on_cleared(self) -> None:
        self._portrait = None  # the person has gone: their portrait goes with them
        self._chip_shown = None  # and the chip's photo with it
        self._close_can_dialog()
        self.offline_document = None
        self._evaluating = False
        self._hide_formalised()
        self.verdict.show_idle()
        self.identity.clear()

    def _show_card_type(self, code: str) -> None:
        catalogue = self.ctx.desk.config.catalogue
        codes = list(catalogue.types)
        key = f"F{codes.index(code) + 1}" if code in codes[:MAX_FKEYS] else ""
        label = _card_label(catalogue.types[code]) if code in catalogue.types else code
        self.card_type.setText(self.tr("Tarjeta: {0} ({1})").format(label, key))
        self.presentation.show_charge()  # the banner says what Enter charges

    # -- without the server (arts. 154-155, 23.4) -----------------------------------
    @property
    def offline_mode(self) -> bool:
        """A desk of the casino's server that cannot reach it: it admits nobody, and F9
        gives a provisional voucher. Never on a desk of its own file."""
        if self.ctx.offline_vouchers is None:
            return False
        return not self.controller.server_reachable or self._unanswered

    def outcome_unknown(self, identity: IdentityKey) -> bool:
        """An admission of this person was sent and its outcome is not known."""
        return identity in self._unknown

    def enter(self) -> None:
        """Enter: record the verdict on screen - never while the server is away."""
        if self.offline_mode:
            text = message(OfflineVoucherCode.OFFLINE_NO_ADMISSION)
            self.status.showMessage(text, 10_000)
            self.verdict.show_progress(text)
            self.sound.play(Sound.REFUSE)
            return
        self.controller.admit()

    def _show_offline(self) -> None:
        self._hide_formalised()
        self.offline_banner.show_offline()
        self.status.showMessage(message(OfflineVoucherCode.OFFLINE_NO_ADMISSION), 30_000)

    def _hide_formalised(self) -> None:
        if not self.offline_mode:
            self.offline_banner.hide()

    def _on_server_changed(self, reachable: bool) -> None:
        if self.ctx.offline_vouchers is None:
            return
        if not reachable:
            self._show_offline()
            self.sound.play(Sound.REFUSE)
        else:
            self._unanswered = False
            self._unknown.clear()
            self.offline_banner.hide()
            if self.offline_document is not None:
                self.offline_document = None
                self.verdict.show_idle()
                self.identity.clear()
            self.status.showMessage(self.tr("El servidor responde de nuevo"), 10_000)
        self.refresh_provisional()

    def _read_offline(self, lines: object) -> None:
        """A document read while the server is away: shown, not evaluated (the register
        and the file are the server's), kept for F9's provisional voucher."""
        if self.session.operator is None:
            self.verdict.show_refusal(message(DeskFlowCode.NO_OPERATOR))
            return
        if self.session.is_locked:
            return  # dropped, never queued
        raw = getattr(lines, "lines", lines)
        if isinstance(raw, str) or not isinstance(raw, Sequence):
            self.verdict.show_refusal(message(DeskFlowCode.DEVICE_GARBAGE))
            return
        document, problem = document_from_lines(
            [str(x) for x in raw], madrid_date(self.ctx.clock.now())
        )
        if document is None:
            self.offline_document = None
            self.verdict.show_refusal(message(str(problem or DeskFlowCode.DEVICE_GARBAGE)))
            self.identity.clear()
            self.sound.play(Sound.REFUSE)
            return
        self._show_offline_document(document)

    def _parse(self, lines: object) -> IdentityDocument | None:
        raw = getattr(lines, "lines", lines)
        if isinstance(raw, str) or not isinstance(raw, Sequence):
            return None
        today = madrid_date(self.ctx.clock.now())
        return document_from_lines([str(x) for x in raw], today)[0]

    def _show_offline_document(self, document: IdentityDocument) -> None:
        if self.controller.current is not None:
            self.controller.clear()  # the verdict on screen gives way
        self.offline_document = document
        show_offline_document(self.verdict, self.identity, document)
        self._show_offline()

    def _on_vouchers_formalised(self, report: FormaliseReport) -> None:
        """The provisional vouchers given without the server, numbered on it: which
        local reference got which number, and what failed (art. 23.4)."""
        self.formalise_text, problems = formalised_text(report)
        if problems:
            self.status.last_error.setText(bounded(problems, 160))
        if not self.formalise_text:
            return
        self.status.showMessage(bounded(self.formalise_text, 300), 60_000)
        if not self.offline_mode:
            self.offline_banner.show_formalised(self.formalise_text, failed=bool(problems))

    def _on_operation(self, changes: OpChanges, _origin: object) -> None:
        """A store write done (the desk's one broadcast): what it changed is read again."""
        if changes.queue:
            self.refresh_provisional()

    def refresh_provisional(self) -> None:
        """How many provisional vouchers of this desk still wait for a server number."""
        offline = self.ctx.offline_vouchers
        if offline is None:
            return
        runner = self.runner if self.runner is not None else ImmediateRunner()

        def shown(pending: list[QueuedVoucher]) -> None:
            self.provisional_label.setText(
                self.tr("Volantes provisionales sin número: %1").replace("%1", str(len(pending)))
            )
            self.provisional_label.setVisible(bool(pending))

        runner.submit(offline.pending, shown, lambda _err: None)

    # -- dialogs ------------------------------------------------------------------
    def open_manual_entry(self) -> ManualEntryDialog:
        dialog = ManualEntryDialog(madrid_date(self.ctx.clock.now()), self)
        dialog.accepted.connect(lambda: self._manual_accepted(dialog))
        dialog.open()
        return dialog

    def _manual_accepted(self, dialog: ManualEntryDialog) -> None:
        document = dialog.result_document
        if document is None:
            return
        if self.offline_mode:
            self._show_offline_document(document)
            return
        self._last_read = document
        self.controller.submit_manual(document)

    def _card_check_dialog(self) -> CardCheckDialog:
        if self.card_check is None:
            self.card_check = CardCheckDialog(
                self.controller.check_card, self, card_label=self.card_label
            )
        return self.card_check

    def open_card_check(self) -> CardCheckDialog:
        dialog = self._card_check_dialog()
        dialog.show()
        dialog.code.setFocus()
        return dialog

"""The desk window's menus: every dialog of the desk, the director and the administrator,
with its keyboard shortcut and mnemonic.

* Admisión: provisional voucher for the document on screen (F9, then Enter issues it:
  two key presses from the verdict, art. 23.4, R11; on a desk of the casino's server that
  cannot reach it, the voucher of the document read or typed, queued on the desk under a
  local reference until the server numbers it), pending vouchers and their
  formalisation, the closing list, an official on duty (art. 24, R13), the reprint queue.
* Dirección: exceptional card for the document on screen (art. 23.5, R12), bans (art.
  21.2-3, R5), the staff list (art. 18, R15), void or reprint a card (art. 22), the
  printers. Every director's act asks the director's own credentials inside its dialog
  (``window.authorise``, art. 20.3).
  Also the director's figures (charts, art. 14.1.b), the rectification of a visitor's
  name or an observation (GDPR art. 16) and the access-request report (GDPR art. 15).
* Inspección (offered only to a gaming inspector or the game director, art. 20.4): the
  inspector's screen - search, a person's visits, exports, the daily visitor book -
  and the retention view (also in Dirección and Administración: counts only).
* Administración: settings and accounts - an administrator's own credentials are asked
  unless the operator signed in is one.
* Sesión: the operator signed in (also shown, always, in the status bar), lock (Ctrl+L)
  and sign out.

The menus are visible to everyone but Inspección; each action checks the role when it
is used, and the services check it again.
Dialogs run their file work on the window's store worker (``window.runner``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import unique
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QLocale, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QLabel, QMenu

from admission.accounts import AccountErrorCode, Operator, Role, may_admit
from admission.codes import Code
from admission.data_protection import DataProtectionService
from admission.desk import DeskDocument, DeskErrorCode
from admission.errors import AdmissionError
from admission.identity import IdentityKey
from admission.inspection import InspectionCode
from admission.observations import ObservationService
from admission.records import Observation, Visitor
from admission.settings import needs_restart
from admission.settings_record import record_saved_settings
from admission.verdict import Outcome
from ui.desk.controller import DeskState
from ui.desk.desk_flow import DeskFlowCode
from ui.desk.dialogs.accounts import AccountsDialog
from ui.desk.dialogs.accounts import ask_admin as ask_admin_credentials
from ui.desk.dialogs.bans import BansDialog
from ui.desk.dialogs.cards import CardActionsDialog, ExceptionalCardDialog, ReprintQueueDialog
from ui.desk.dialogs.common import DialogCode, StoreListings, bounded, message
from ui.desk.dialogs.data_protection import AccessReportDialog, RectificationDialog, RetentionDialog
from ui.desk.dialogs.figures import FiguresDialog
from ui.desk.dialogs.inspection import InspectionDialog
from ui.desk.dialogs.observation import ObservationDialog
from ui.desk.dialogs.official import OfficialDialog
from ui.desk.dialogs.pin import PinDialog
from ui.desk.dialogs.printer import PrinterDialog
from ui.desk.dialogs.settings import SettingsDialog
from ui.desk.dialogs.staff import StaffDialog
from ui.desk.dialogs.vouchers import VouchersDialog, issue_voucher_dialog, offline_voucher_dialog
from ui.desk.inspection_controller import inspection_controller
from ui.desk.jobs import JobRunner

if TYPE_CHECKING:
    from admission.desk import AdmissionResult
    from admission.reports import ReportService
    from admission.vouchers.model import Voucher
    from db.offline_queue import QueuedVoucher
    from ui.desk.desk_window import DeskWindow

__all__ = [
    "MENU_ADMIN",
    "MENU_DESK",
    "MENU_DIRECTION",
    "MENU_INSPECTION",
    "MENU_SESSION",
    "SETTINGS_CHANGED",
    "DeskMenus",
    "MenuCode",
    "attach_desk_menus",
    "shortcut_action",
]

# Menu names as given to DeskWindow.add_action (the titles shown are translated).
MENU_DESK = "desk"  # Admisión: manual entry, card check, vouchers, officials, reprints
MENU_DIRECTION = "direction"  # Dirección: exceptional card, bans, staff, cards, printers
MENU_ADMIN = "admin"  # Administración: settings, accounts
MENU_SESSION = "session"  # Sesión: who is signed in, lock, sign out
MENU_INSPECTION = "inspection"  # Inspección: the inspector's screen, retention (art. 20.4)
INSPECTION_ROLES = (Role.INSPECTOR, Role.DIRECTOR)  # art. 20.4; arts. 14.1.b, 20.3
RETENTION_ROLES = (Role.DIRECTOR, Role.ADMIN, Role.INSPECTOR)
SETTINGS_FILE = "settings.json"  # main.SETTINGS_FILE: the file the desk reads at start
SETTINGS_CHANGED = "SETTINGS_CHANGED"  # audit action: details name the keys, never values
MAX_OPERATOR = 60
D = TypeVar("D", bound=QDialog)


@unique
class MenuCode(Code):
    """What a menu action refuses before opening its dialog."""

    ADMIN_NOT_CONFIRMED = "ADMIN_NOT_CONFIRMED"  # no administrator gave their credentials
    VOUCHER_NEEDS_ADMIT = "VOUCHER_NEEDS_ADMIT"  # a voucher only for a verdict that admits
    SETTINGS_AUDIT_FAILED = "SETTINGS_AUDIT_FAILED"  # saved, but its audit entry failed


def shortcut_action(
    parent: QObject, name: str, title: str, keys: str, slot: Callable[[], object]
) -> QAction:
    """An action ``action_<name>`` whose keys work anywhere in the window; ``slot`` runs
    when it is triggered (the checked flag dropped)."""
    action = QAction(title, parent)
    action.setObjectName(f"action_{name}")
    action.setShortcut(QKeySequence(keys))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    # the accessible name: the title without mnemonic or ellipsis
    action.setStatusTip(title.replace("&", "").rstrip("…"))
    action.triggered.connect(lambda _checked=False: slot())
    return action


def _lang() -> str:
    return "en" if QLocale().language() == QLocale.Language.English else "es"


class DeskMenus(QObject):
    """The actions of the window's menus (``actions[name]``) and what they open
    (``dialog``: the last dialog opened, for tests and the shell)."""

    def __init__(
        self,
        window: DeskWindow,
        runner: JobRunner,
        authorise: Callable[[str], Operator | None],
        *,
        ask_admin: Callable[[str], Operator | None] | None = None,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.runner = runner
        self.authorise = authorise
        # an administrator's own credentials (default: the AdminDialog); settable by tests
        self.ask_admin: Callable[[str], Operator | None] = ask_admin or self._ask_admin
        self.dialog: QDialog | None = None
        self.actions: dict[str, QAction] = {}
        # the file number the verdict on screen was recorded under (a first visit has
        # none until it is recorded): admission id -> file number
        self._recorded: tuple[str, int] | None = None
        window.controller.admission_recorded.connect(self._remember_recorded)
        tr = self.tr
        desk = (
            ("voucher", tr("&Volante provisional…"), "F9", self.open_voucher),
            ("vouchers", tr("Volantes &pendientes…"), "Ctrl+Shift+V", self.open_vouchers),
            ("closing", tr("&Lista de cierre de volantes…"), "Ctrl+Shift+L", self.open_closing),
            ("official", tr("&Funcionario en servicio…"), "Ctrl+Shift+O", self.open_official),
            ("reprint_queue", tr("&Cola de reimpresión…"), "Ctrl+Shift+P", self.open_reprints),
            ("observation", tr("O&bservación en la ficha…"), "Ctrl+Shift+B", self.open_observation),
        )
        direction = (
            ("exceptional", tr("Tarjeta &excepcional…"), "Ctrl+E", self.open_exceptional),
            ("bans", tr("&Prohibiciones…"), "Ctrl+B", self.open_bans),
            ("staff", tr("Per&sonal del casino…"), "Ctrl+Shift+S", self.open_staff),
            ("cards", tr("&Anular o reimprimir una tarjeta…"), "Ctrl+Shift+T", self.open_cards),
            ("printer", tr("&Impresoras…"), "Ctrl+Shift+I", self.open_printer),
        )
        admin = (
            ("settings", tr("&Configuración…"), "Ctrl+Shift+G", self.open_settings),
            ("accounts", tr("C&uentas…"), "Ctrl+Shift+U", self.open_accounts),
        )
        for menu_name, entries in ((MENU_DESK, desk), (MENU_DIRECTION, direction)):
            for name, title, keys, slot in entries:
                window.add_action(menu_name, self._action(name, title, keys, slot))
        for name, title, keys, slot in admin:
            window.add_action(MENU_ADMIN, self._action(name, title, keys, slot))

        # -- the visitor file: inspection, figures, data protection (art. 20.4) ----------
        # (kept apart from ``actions``: ``file_actions[name]``)
        self.file_actions: dict[str, QAction] = {}
        file_entries = (
            ("inspection", tr("&Consultar el fichero de visitantes…"), "Ctrl+Shift+F"),
            ("retention", tr("Co&nservación de datos…"), "Ctrl+Shift+R"),
            ("figures", tr("Ci&fras de admisión…"), "Ctrl+Shift+C"),
            ("rectify", tr("&Rectificar datos de un visitante…"), "Ctrl+Shift+N"),
            ("access_report", tr("Informe de acceso a &datos (RGPD)…"), "Ctrl+Shift+A"),
        )
        slots: dict[str, Callable[[], object]] = {
            "inspection": self.open_inspection,
            "retention": self.open_retention,
            "figures": self.open_figures,
            "rectify": self.open_rectification,
            "access_report": self.open_access_report,
        }
        for name, title, keys in file_entries:
            self.file_actions[name] = self._action(name, title, keys, slots[name], store=False)
        for name in ("figures", "rectify", "access_report", "retention"):
            window.add_action(MENU_DIRECTION, self.file_actions[name])
        window.menu(MENU_ADMIN).addAction(self.file_actions["retention"])
        title = tr("&Inspección")
        self.inspection_menu: QMenu = window.add_menu(MENU_INSPECTION, title)
        for name in ("inspection", "retention"):
            window.add_action(MENU_INSPECTION, self.file_actions[name])

        # -- the session: who is signed in, lock, sign out ----------------------------
        title = tr("&Sesión")
        self.session_menu: QMenu = window.menuBar().addMenu(title)
        self.session_menu.setObjectName(f"menu_{MENU_SESSION}")
        self.session_menu.setAccessibleName(title.replace("&", ""))
        self.operator_action = QAction("", window)
        self.operator_action.setEnabled(False)  # information only
        self.session_menu.addAction(self.operator_action)
        self.session_menu.addSeparator()
        for name, title, keys, slot in (
            ("lock", tr("&Bloquear"), "Ctrl+L", self.lock),
            ("pin", tr("Mi &PIN de desbloqueo…"), "Ctrl+Shift+K", self.open_pin),
            ("sign_out", tr("&Cerrar sesión"), "Ctrl+Shift+Q", self.sign_out),
        ):
            action = self._action(name, title, keys, slot)
            self.session_menu.addAction(action)
            window.addAction(action)
        self.operator_label = QLabel()
        self.operator_label.setObjectName("operator_name")
        self.operator_label.setTextFormat(Qt.TextFormat.PlainText)
        self.operator_label.setAccessibleName(tr("Operador que ha iniciado sesión"))
        window.status.addPermanentWidget(self.operator_label)
        for signal_name in ("signed_in", "signed_out", "locked", "unlocked"):
            signal = getattr(window.session, signal_name, None)
            if signal is not None:
                signal.connect(self.show_operator)
        self.show_operator()

    # -- building ----------------------------------------------------------------------
    def _action(
        self, name: str, title: str, keys: str, slot: Callable[[], object], *, store: bool = True
    ) -> QAction:
        action = shortcut_action(self.window, name, title, keys, slot)
        if store:
            self.actions[name] = action
        return action

    def show_operator(self, *_args: object) -> None:
        """The operator's name in the status bar and the Sesión menu (plain text)."""
        session = self.window.session
        operator = session.operator
        if operator is not None:
            text = self.tr("Operador: %1").replace(
                "%1", bounded(operator.display_name or operator.username, MAX_OPERATOR)
            )
        else:
            locked = getattr(session, "locked_operator", None)
            if isinstance(locked, Operator) and session.is_locked:
                text = self.tr("Bloqueada: %1").replace(
                    "%1", bounded(locked.display_name or locked.username, MAX_OPERATOR)
                )
            else:
                text = self.tr("Sin sesión")
        self.operator_label.setText(text)
        self.operator_action.setText(text)
        self._offer_by_role()

    def _offer_by_role(self) -> None:
        """The Inspección menu only for an inspector or the game director (a clerk is
        never offered the visitor file, art. 20.4); an inspector-only operator has the
        inspector's screen as the window, and keeps the retention view."""
        session = self.window.session
        operator = session.operator
        if operator is None:
            locked = getattr(session, "locked_operator", None)
            operator = locked if isinstance(locked, Operator) else None
        if operator is None:
            return  # nobody: the next sign-in decides
        inspector_screen = getattr(self.window, "inspector_mode", False)
        inspect = any(operator.has(r) for r in INSPECTION_ROLES) and not inspector_screen
        retention = any(operator.has(r) for r in RETENTION_ROLES)
        self.file_actions["inspection"].setVisible(inspect)
        self.file_actions["retention"].setVisible(retention)
        self.inspection_menu.menuAction().setVisible(inspect or retention)

    # -- helpers -----------------------------------------------------------------------
    def _ask_admin(self, purpose: str) -> Operator | None:
        window = self.window
        return ask_admin_credentials(window, window.ctx.accounts, purpose, lang=_lang())

    def _say(self, code: str) -> None:
        self.window.status.showMessage(message(code), 10_000)

    def _operator(self) -> Operator | None:
        session = self.window.session
        operator = session.operator
        if operator is None or session.is_locked:
            self._say(DeskFlowCode.NO_OPERATOR if operator is None else DeskFlowCode.SESSION_LOCKED)
            return None
        return operator

    def _desk_operator(self) -> Operator | None:
        """The operator when a clerk or the game director: the desk's acts (vouchers,
        officials on duty, reprints) are theirs (art. 20.3), never an inspector's or an
        administrator's."""
        operator = self._operator()
        if operator is not None and not may_admit(operator):
            self._say(AccountErrorCode.ROLE_REQUIRED)
            return None
        return operator

    def _admin(self, purpose: str) -> Operator | None:
        """The operator when an administrator, else an administrator's own credentials."""
        operator = self._operator()
        if operator is None:
            return None
        if operator.has(Role.ADMIN):
            return operator
        admin = self.ask_admin(purpose)
        if admin is None or not admin.has(Role.ADMIN):
            self._say(MenuCode.ADMIN_NOT_CONFIRMED)
            return None
        return admin

    def _document(self) -> DeskDocument | None:
        """The document of the verdict on screen (None when the screen is empty)."""
        current = self.window.controller.current
        return None if current is None else current.evaluation.document

    def _identity(self) -> IdentityKey | None:
        identity = getattr(self._document(), "identity", None)
        return identity if isinstance(identity, IdentityKey) else None

    def _open(self, dialog: D) -> D:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()  # window-modal: reader input waits (DeskWindow.dialog_open)
        self.dialog = dialog
        return dialog

    # -- Admisión ----------------------------------------------------------------------
    def open_voucher(self) -> QDialog | None:
        """F9: a provisional voucher for the document on screen (art. 23.4); Enter in
        the dialog issues it. Only for a verdict that admits and is not recorded yet.
        A desk without its server has no verdict: the voucher of the document read (or
        typed in the dialog), queued on the desk under a local reference."""
        operator = self._desk_operator()
        if operator is None:
            return None
        controller = self.window.controller
        current = controller.current
        if current is not None and (
            controller.state is not DeskState.SHOWN
            or current.evaluation.verdict.outcome is not Outcome.ADMIT
        ):
            self._say(MenuCode.VOUCHER_NEEDS_ADMIT)
            return None
        ctx = self.window.ctx
        if self.window.offline_mode:
            return self._offline_voucher(operator)
        dialog = issue_voucher_dialog(
            self.window,
            ctx,
            self.runner,
            self._document(),
            controller.card_type,
            operator=operator.username,
        )
        dialog.voucher_issued.connect(self._voucher_issued)
        self.dialog = dialog
        return dialog

    def _offline_voucher(self, operator: Operator) -> QDialog | None:
        window = self.window
        document = self._document() or window.offline_document
        if document is not None and window.outcome_unknown(document.identity):
            # an admission of this person may be on the server already (art. 22: one card)
            self._say(DeskErrorCode.OUTCOME_UNKNOWN)
            return None
        dialog = offline_voucher_dialog(
            window,
            window.ctx,
            self.runner,
            document,
            window.controller.card_type,
            operator=operator.username,
        )
        dialog.voucher_queued.connect(self._voucher_queued)
        self.dialog = dialog
        return dialog

    def _voucher_queued(self, queued: QueuedVoucher) -> None:
        # handed over against the document and the price: the desk moves on
        self.window.controller.clear_handled()
        self.window.status.showMessage(
            self.tr("Volante provisional %1 entregado: pendiente de formalizar").replace(
                "%1", queued.local_ref
            ),
            30_000,
        )
        self.window.refresh_provisional()

    def _voucher_issued(self, voucher: Voucher) -> None:
        # the voucher stands for the card (art. 23.4): the desk moves on to the next person
        self.window.controller.clear_handled()
        self.window.status.showMessage(
            self.tr("Volante nº %1 entregado").replace("%1", str(voucher.number)), 10_000
        )

    def _vouchers(self, closing: bool) -> VouchersDialog | None:
        operator = self._desk_operator()
        if operator is None:
            return None
        dialog = VouchersDialog(
            self.window.ctx,
            self.runner,
            operator=operator.username,
            document=self._document,
            closing=closing,
            parent=self.window,
        )
        dialog.card_issued.connect(self._card_issued)
        return self._open(dialog)

    def open_vouchers(self) -> VouchersDialog | None:
        return self._vouchers(closing=False)

    def open_closing(self) -> VouchersDialog | None:
        return self._vouchers(closing=True)

    def open_official(self) -> OfficialDialog | None:
        operator = self._desk_operator()
        if operator is None:
            return None
        dialog = OfficialDialog(
            self.window.ctx,
            self.runner,
            self._document(),
            operator=operator.username,
            parent=self.window,
        )
        return self._open(dialog)

    def open_reprints(self) -> ReprintQueueDialog | None:
        operator = self._desk_operator()
        if operator is None:
            return None
        dialog = ReprintQueueDialog(
            self.window.ctx, self.runner, operator=operator.username, parent=self.window
        )
        return self._open(dialog)

    # -- Dirección ---------------------------------------------------------------------
    def open_exceptional(self) -> ExceptionalCardDialog | None:
        operator = self._operator()
        if operator is None:
            return None
        dialog = ExceptionalCardDialog(
            self.window.ctx,
            self.runner,
            self.authorise,
            self._document(),
            operator=operator.username,
            card_type=self.window.controller.card_type,
            parent=self.window,
        )
        dialog.card_issued.connect(self._card_issued)
        return self._open(dialog)

    def _card_issued(self, result: AdmissionResult) -> None:
        """A dialog issued a card for the document on screen (a voucher formalised, an
        exceptional card): an ADMIT still on screen is cleared, so that Enter cannot
        record the same person a second time (art. 22: one card)."""
        if result.card is None:
            return
        controller = self.window.controller
        current = controller.current
        if (
            controller.state is DeskState.SHOWN
            and current is not None
            and current.evaluation.verdict.outcome is Outcome.ADMIT
        ):
            controller.clear_handled()  # the card stands for it: nothing else recorded
        self.window.status.showMessage(
            self.tr("Tarjeta nº %1 expedida").replace("%1", str(result.card.number)), 10_000
        )

    def open_bans(self) -> BansDialog | None:
        operator = self._operator()
        if operator is None:
            return None
        ctx = self.window.ctx
        dialog = BansDialog(
            ctx,
            self.runner,
            self.authorise,
            operator=operator.username,
            listings=StoreListings(ctx.store),
            identity=self._identity(),
            parent=self.window,
        )
        return self._open(dialog)

    def open_staff(self) -> StaffDialog | None:
        if self._operator() is None:
            return None
        ctx = self.window.ctx
        dialog = StaffDialog(
            ctx,
            self.runner,
            self.authorise,
            listings=StoreListings(ctx.store),
            parent=self.window,
        )
        return self._open(dialog)

    def open_cards(self) -> CardActionsDialog | None:
        if self._operator() is None:
            return None
        dialog = CardActionsDialog(self.window.ctx, self.runner, self.authorise, parent=self.window)
        return self._open(dialog)

    def open_printer(self) -> PrinterDialog | None:
        """The printers: the game director or an administrator (the director's own
        credentials are asked when the operator is neither)."""
        operator = self._operator()
        if operator is None:
            return None
        if not (operator.has(Role.DIRECTOR) or operator.has(Role.ADMIN)):
            director = self.authorise(self.tr("Elegir la impresora"))
            if director is None or not director.has(Role.DIRECTOR):
                self._say(DialogCode.DIRECTOR_NOT_CONFIRMED)
                return None
            operator = director
        ctx = self.window.ctx
        dialog = PrinterDialog(
            ctx.settings,
            self.settings_path,
            operator,
            self.runner,
            preflight=ctx.devices.printer_check,
            parent=self.window,
        )
        who = operator
        dialog.saved.connect(lambda keys: self._settings_saved(who, keys))
        return self._open(dialog)

    # -- the visitor file: inspection, figures, data protection ---------------------------
    def _with_role(self, roles: tuple[Role, ...], purpose: str) -> Operator | None:
        """The operator when they hold one of ``roles``; else the game director's own
        credentials (art. 20.3), as the other Dirección actions."""
        operator = self._operator()
        if operator is None:
            return None
        if any(operator.has(r) for r in roles):
            return operator
        director = self.authorise(purpose)
        if director is None or not director.has(Role.DIRECTOR):
            self._say(DialogCode.DIRECTOR_NOT_CONFIRMED)
            return None
        return director

    def _reports(self) -> ReportService:
        return self.window.ctx.reports

    def open_inspection(self) -> InspectionDialog | None:
        """Ctrl+Shift+F: the inspector's screen (an inspector or the game director)."""
        operator = self._operator()
        if operator is None:
            return None
        if not any(operator.has(r) for r in INSPECTION_ROLES):
            self._say(InspectionCode.INSPECTOR_ROLE_REQUIRED)
            return None
        window = self.window
        controller = inspection_controller(window.ctx, self.runner, window.session)
        dialog = InspectionDialog(
            controller, window.ctx.tools.today, card_label=window.card_label, parent=window
        )
        return self._open(dialog)

    def open_figures(self) -> FiguresDialog | None:
        """Ctrl+Shift+C: the director's figures, the last seven days at first."""
        operator = self._with_role((Role.DIRECTOR, Role.INSPECTOR), self.tr("Cifras de admisión"))
        if operator is None:
            return None
        reports = self._reports()
        ctx = self.window.ctx
        dialog = FiguresDialog(
            reports,
            self.runner,
            operator,
            ctx.tools.today(),
            catalogue=ctx.desk.config.catalogue,
            parent=self.window,
        )
        self._open(dialog)
        dialog.load()
        return dialog

    def _lookup(
        self, operator: Operator, purpose: str, number: int
    ) -> tuple[Visitor, Sequence[Observation]]:
        """The person and their observations, as an audited read (the access report's
        reading: GDPR art. 15; the director only)."""
        report = self.window.ctx.reports.access_report(operator, purpose, file_number=number)
        return report.visitor, report.observations

    def open_rectification(self) -> RectificationDialog | None:
        """Ctrl+Shift+N: correct a visitor's name or an observation (GDPR art. 16)."""
        operator = self._with_role((Role.DIRECTOR,), self.tr("Rectificar datos de un visitante"))
        if operator is None:
            return None
        ctx = self.window.ctx
        dialog = RectificationDialog(
            DataProtectionService(ctx.reads, ctx.clock),
            self._lookup,
            self.runner,
            operator,
            parent=self.window,
        )
        return self._open(dialog)

    def open_observation(self) -> ObservationDialog | None:
        """Ctrl+Shift+B: a free-text observation on the file of the visitor on screen,
        or of a file number typed (art. 20.3), under the signed-in clerk's or director's
        name; the service refuses anyone else."""
        operator = self._operator()
        if operator is None:
            return None
        current = self.window.controller.current
        number, name = None, ""
        if current is not None:
            number = current.file_number
            recorded = self._recorded
            if number is None and recorded and recorded[0] == current.evaluation.admission_id:
                number = recorded[1]
            doc = current.evaluation.document
            name = f"{doc.given_names} {doc.surname}".strip() if number else ""
        ctx = self.window.ctx
        dialog = ObservationDialog(
            ObservationService(ctx.store, ctx.clock),
            self.runner,
            operator,
            file_number=number,
            visitor=name,
            parent=self.window,
        )
        added = self.tr("Observación añadida a la ficha %1")
        dialog.observation_added.connect(
            lambda made: self.window.status.showMessage(
                added.replace("%1", str(made.file_number)), 10_000
            )
        )
        return self._open(dialog)

    def open_pin(self) -> PinDialog | None:
        """Ctrl+Shift+K: the signed-in operator's own quick-unlock PIN, set, changed or
        removed with the password (a sign-in always takes the password)."""
        operator = self._operator()
        if operator is None:
            return None
        dialog = PinDialog(self.window.ctx.accounts, operator, parent=self.window)
        saved, removed = self.tr("PIN de desbloqueo guardado"), self.tr("PIN de desbloqueo quitado")
        dialog.accepted.connect(
            lambda: self.window.status.showMessage(saved if dialog.changed else removed, 10_000)
        )
        return self._open(dialog)

    def _remember_recorded(self, result: AdmissionResult) -> None:
        self._recorded = (result.evaluation.admission_id, result.recorded.file_number)

    def open_access_report(self) -> AccessReportDialog | None:
        """Ctrl+Shift+A: a person's access-request report as a PDF (GDPR art. 15)."""
        operator = self._with_role((Role.DIRECTOR,), self.tr("Informe de acceso a datos"))
        if operator is None:
            return None
        reports = self._reports()
        ctx = self.window.ctx
        dialog = AccessReportDialog(
            reports,
            ctx.export_target,
            self.runner,
            operator,
            ctx.tools.today(),
            parent=self.window,
        )
        return self._open(dialog)

    def open_retention(self) -> RetentionDialog | None:
        """Ctrl+Shift+R: what the file holds and the next purge (counts only)."""
        operator = self._with_role(RETENTION_ROLES, self.tr("Conservación de datos"))
        if operator is None:
            return None
        ctx = self.window.ctx
        dialog = RetentionDialog(
            DataProtectionService(ctx.reads, ctx.clock), self.runner, operator, parent=self.window
        )
        self._open(dialog)
        dialog.load()
        return dialog

    # -- Administración ----------------------------------------------------------------
    @property
    def settings_path(self) -> Path:
        return self.window.ctx.data_dir / SETTINGS_FILE

    def open_settings(self) -> SettingsDialog | None:
        admin = self._admin("SETTINGS")
        if admin is None:
            return None
        ctx = self.window.ctx
        dialog = SettingsDialog(
            ctx.settings,
            self.settings_path,
            admin,
            self.runner,
            preflight=ctx.devices.printer_check,
            parent=self.window,
        )
        dialog.saved.connect(lambda keys: self._settings_saved(admin, keys))
        return self._open(dialog)

    def _settings_saved(self, actor: Operator, keys: list[str]) -> None:
        """Apply the keys changed to the running desk, audit them (never their values)
        and say which wait for the next start."""
        later = needs_restart(keys)
        if later:
            note = self.tr("Configuración guardada. Se aplica al reiniciar: %1")
            self.window.status.showMessage(note.replace("%1", ", ".join(later)), 30_000)
        else:
            self.window.status.showMessage(self.tr("Configuración aplicada"), 10_000)
        if not keys:
            return
        self.window.controller.apply_settings(list(keys))
        ctx = self.window.ctx
        at, path = ctx.clock.now(), self.settings_path

        def failed(_error: AdmissionError) -> None:
            self._say(MenuCode.SETTINGS_AUDIT_FAILED)

        self.runner.submit(  # the keys, and every setting's digest (never a value)
            lambda: record_saved_settings(ctx.store, path, actor.username, at, keys),
            lambda _seq: None,
            failed,
        )

    def open_accounts(self) -> AccountsDialog | None:
        admin = self._admin("ACCOUNTS")
        if admin is None:
            return None
        ctx = self.window.ctx
        dialog = AccountsDialog(
            ctx.accounts,
            self.runner,
            actor=admin,
            clock=ctx.clock,
            lang=_lang(),
            parent=self.window,
        )
        return self._open(dialog)

    # -- Sesión ------------------------------------------------------------------------
    def lock(self) -> None:
        """Ctrl+L: the desk locks; only the same operator's password opens it."""
        lock = getattr(self.window.session, "lock", None)
        if callable(lock):
            lock()
        self.show_operator()

    def sign_out(self) -> None:
        sign_out = getattr(self.window.session, "sign_out", None)
        if callable(sign_out):
            sign_out("user")
        self.show_operator()


def attach_desk_menus(
    window: DeskWindow, *, ask_admin: Callable[[str], Operator | None] | None = None
) -> DeskMenus | None:
    """Attach every dialog to ``window``'s menus (None when the window has no runner or
    no director's authorisation to give them)."""
    if window.runner is None or window.authorise is None:
        return None
    return DeskMenus(window, window.runner, window.authorise, ask_admin=ask_admin)

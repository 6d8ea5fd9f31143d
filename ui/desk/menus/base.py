"""What every menu of the desk shares: the operator who may act, the document on screen,
opening a dialog window-modal, and the settings saved from a dialog (audited by key).

A menu is built over the window's own API (:class:`ui.desk.host.DeskHost`) and the
context given to it by :func:`ui.desk.menus.attach_desk_menus`; dialogs run their file
work on the window's store worker (``runner``).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import unique
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QLocale, QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog

from admission.accounts import AccountErrorCode, Operator, Role, may_admit
from admission.codes import Code
from admission.desk import AdmissionResult, DeskDocument
from admission.errors import AdmissionError
from admission.identity import IdentityKey
from admission.settings import needs_restart
from admission.settings_record import record_saved_settings
from admission.verdict import Outcome
from ui.context import AppContext
from ui.desk.changes import OpChanges
from ui.desk.controller import DeskState
from ui.desk.desk_flow import DeskFlowCode
from ui.desk.dialogs.common import DialogCode
from ui.desk.host import DeskHost, shortcut_action
from ui.desk.jobs import JobRunner
from ui.desk.ops import settings
from ui.desk.text import message

__all__ = ["SETTINGS_CHANGED", "SETTINGS_FILE", "MenuBase", "MenuCode", "language"]

SETTINGS_FILE = "settings.json"  # main.SETTINGS_FILE: the file the desk reads at start
SETTINGS_CHANGED = "SETTINGS_CHANGED"  # audit action: details name the keys, never values
D = TypeVar("D", bound=QDialog)


@unique
class MenuCode(Code):
    """What a menu action refuses before opening its dialog."""

    ADMIN_NOT_CONFIRMED = "ADMIN_NOT_CONFIRMED"  # no administrator gave their credentials
    VOUCHER_NEEDS_ADMIT = "VOUCHER_NEEDS_ADMIT"  # a voucher only for a verdict that admits
    SETTINGS_AUDIT_FAILED = "SETTINGS_AUDIT_FAILED"  # saved, but its audit entry failed


def language() -> str:
    """The window's language (the translator sets the locale)."""
    return "en" if QLocale().language() == QLocale.Language.English else "es"


class MenuBase(QObject):
    """One menu's actions (``actions[name]``) over the window ``host``; ``opened`` is
    told of every dialog it opens (the menus' ``dialog``: tests and the shell)."""

    def __init__(
        self,
        host: DeskHost,
        ctx: AppContext,
        runner: JobRunner,
        authorise: Callable[[str], Operator | None],
        opened: Callable[[QDialog], None],
    ) -> None:
        super().__init__(host.window())
        self.host = host
        self.ctx = ctx
        self.runner = runner
        self.authorise = authorise
        self._opened = opened
        self.actions: dict[str, QAction] = {}

    # -- building ----------------------------------------------------------------------
    def _action(
        self, name: str, title: str, keys: str, slot: Callable[[], object], *, store: bool = True
    ) -> QAction:
        action = shortcut_action(self.host.window(), name, title, keys, slot)
        if store:
            self.actions[name] = action
        return action

    # -- who acts ----------------------------------------------------------------------
    def _say(self, code: str) -> None:
        self.host.status.showMessage(message(code), 10_000)

    def _operator(self) -> Operator | None:
        session = self.host.session
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

    # -- the document on screen --------------------------------------------------------
    def _document(self) -> DeskDocument | None:
        """The document of the verdict on screen (None when the screen is empty)."""
        current = self.host.controller.current
        return None if current is None else current.evaluation.document

    def _identity(self) -> IdentityKey | None:
        identity = getattr(self._document(), "identity", None)
        return identity if isinstance(identity, IdentityKey) else None

    # -- dialogs -----------------------------------------------------------------------
    def _card_issued(self, result: AdmissionResult) -> None:
        """A dialog issued a card for the document on screen (a voucher formalised, an
        exceptional card): an ADMIT still on screen is cleared, so that Enter cannot
        record the same person a second time (art. 22: one card)."""
        if result.card is None:
            return
        controller = self.host.controller
        current = controller.current
        if (
            controller.state is DeskState.SHOWN
            and current is not None
            and current.evaluation.verdict.outcome is Outcome.ADMIT
        ):
            controller.clear_handled()  # the card stands for it: nothing else recorded
        self.host.status.showMessage(
            self.tr("Tarjeta nº %1 expedida").replace("%1", str(result.card.number)), 10_000
        )

    def _open(self, dialog: D) -> D:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()  # window-modal: reader input waits (DeskWindow.dialog_open)
        self._opened(dialog)
        return dialog

    # -- the settings saved from a dialog (Administración, the printers) ----------------
    @property
    def settings_path(self) -> Path:
        return self.ctx.data_dir / SETTINGS_FILE

    def _settings_ops(self) -> settings.SettingsOps:
        """The settings file; the keys saved go out on the desk's broadcast, where the
        running desk applies them (``DeskController``)."""
        operations = self.host.operations

        def announce(keys: list[str]) -> None:
            operations.announce(OpChanges(settings=tuple(keys)))

        return settings.of(self.ctx, self.settings_path, announce)

    def _settings_saved(self, actor: Operator, keys: list[str]) -> None:
        """Audit the keys saved (never their values) and say which wait for the next
        start (the desk applied the others on the broadcast)."""
        status = self.host.status
        later = needs_restart(keys)
        if later:
            note = self.tr("Configuración guardada. Se aplica al reiniciar: %1")
            status.showMessage(note.replace("%1", ", ".join(later)), 30_000)
        else:
            status.showMessage(self.tr("Configuración aplicada"), 10_000)
        if not keys:
            return
        ctx = self.ctx
        at, path = ctx.clock.now(), self.settings_path

        def failed(_error: AdmissionError) -> None:
            self._say(MenuCode.SETTINGS_AUDIT_FAILED)

        self.runner.submit(  # the keys, and every setting's digest (never a value)
            lambda: record_saved_settings(ctx.store, path, actor.username, at, keys),
            lambda _seq: None,
            failed,
        )

"""What the desk window offers the parts built around it: its menus (``ui.desk.menus``)
and the presentation strip (``ui.desk.desk_presentation``).

They register their actions through this small API (``add_action``, ``add_menu``) and
read the desk through it (the controller, the session, the status bar), so that none
of them imports the window: :class:`ui.desk.desk_window.DeskWindow` satisfies
:class:`DeskHost`. The ports they use are given to them by whoever builds them, never
taken from the window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QObject, Qt, SignalInstance
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from admission.accounts import Operator
from admission.documents import IdentityDocument
from admission.identity import IdentityKey
from ui.desk.changes import DeskOperations
from ui.desk.controller import DeskController
from ui.desk.desk_flow import SessionView
from ui.desk.jobs import JobRunner
from ui.desk.widgets.status_bar import DeskStatusBar
from ui.desk.widgets.verdict import VerdictBanner

__all__ = [
    "MENU_ADMIN",
    "MENU_DESK",
    "MENU_DIRECTION",
    "MENU_INSPECTION",
    "MENU_SESSION",
    "DeskHost",
    "shortcut_action",
]

# Menu names as given to DeskHost.add_action (the titles shown are translated).
MENU_DESK = "desk"  # Admisión: manual entry, card check, vouchers, officials, reprints
MENU_DIRECTION = "direction"  # Dirección: exceptional card, bans, staff, cards, printers
MENU_ADMIN = "admin"  # Administración: settings, accounts
MENU_SESSION = "session"  # Sesión: who is signed in, lock, sign out
MENU_INSPECTION = "inspection"  # Inspección: the inspector's screen, retention (art. 20.4)


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


class DeskHost(Protocol):
    """The window as its menus and panels see it."""

    @property
    def controller(self) -> DeskController: ...

    @property
    def session(self) -> SessionView: ...

    @property
    def status(self) -> DeskStatusBar: ...

    @property
    def verdict(self) -> VerdictBanner: ...

    @property
    def runner(self) -> JobRunner | None: ...

    @property
    def operations(self) -> DeskOperations:
        """The desk's store writes and the broadcast after each."""

    @property
    def authorise(self) -> Callable[[str], Operator | None] | None: ...

    @property
    def inspector_mode(self) -> bool:
        """The window shows the inspector's screen, not the desk (art. 20.4)."""

    @property
    def inspector_mode_changed(self) -> SignalInstance:
        """Emitted (with ``inspector_mode``) when the window changes screen."""

    @property
    def offline_mode(self) -> bool:
        """A desk of the casino's server that cannot reach it (art. 23.4)."""

    @property
    def offline_document(self) -> IdentityDocument | None:
        """The document read while the server is away (F9's voucher is for it)."""

    def window(self) -> QWidget:
        """The window itself, as the parent of the dialogs and actions (QWidget.window)."""
        ...

    def add_action(self, menu_name: str, action: QAction) -> None: ...

    def menu(self, menu_name: str) -> QMenu: ...

    def add_menu(self, menu_name: str, title: str) -> QMenu: ...

    def card_label(self, code: str) -> str: ...

    def outcome_unknown(self, identity: IdentityKey) -> bool: ...

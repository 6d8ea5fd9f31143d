"""The signed-in operator of the desk window, and the idle lock.

Art. 20.3 makes the game director answer for the admission service: every admission
names the operator who signed in (the controller reads :attr:`DeskSession.operator`),
and a desk left unattended locks itself after ``session.idle_minutes`` so that nobody
admits under someone else's name. Only the same operator's password, or that operator's
own short PIN (the quick unlock), unlocks it; anyone else signs the operator out
("Cambiar de operador") and signs in. A sign-in always takes the password.

The rules live in :class:`admission.accounts.AccountService` (audited: LOGIN, LOGOUT,
SESSION_LOCKED, SESSION_UNLOCKED...) and :class:`admission.accounts.IdleLock`; this
module only holds the state of the window and the timer that looks at the clock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

from admission.accounts import (
    DEFAULT_IDLE,
    AccountError,
    AccountErrorCode,
    AccountService,
    IdleLock,
    Operator,
)
from admission.errors import AdmissionError
from admission.ports import Clock

if TYPE_CHECKING:
    from ui.context import AppContext

__all__ = ["ActivityFilter", "DeskSession"]

log = logging.getLogger("admission.ui")
CHECK_MS = 1000  # the idle timer looks at the clock every second
# A key bound to an action (Enter, Esc, the F-keys: most of a clerk's keys) never
# arrives as a KeyPress: Qt offers it as a ShortcutOverride, then the action takes it.
ACTIVITY = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.ShortcutOverride,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseMove,
        QEvent.Type.Wheel,
        QEvent.Type.TouchBegin,
    }
)


class DeskSession(QObject):
    """Who works the desk now. ``operator`` is None when nobody is signed in or the
    desk is locked; ``locked_operator`` is whoever may unlock it."""

    signed_in = Signal(object)  # Operator
    signed_out = Signal(str)  # reason: "user", "switch", "shutdown"...
    locked = Signal()
    unlocked = Signal(object)  # Operator

    def __init__(
        self,
        accounts: AccountService,
        clock: Clock,
        *,
        idle: timedelta = DEFAULT_IDLE,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._accounts = accounts
        self._clock = clock
        self._idle = IdleLock(idle)
        self._operator: Operator | None = None
        self._locked_operator: Operator | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_MS)
        self._timer.timeout.connect(self.check_idle)

    @classmethod
    def for_context(cls, ctx: AppContext, parent: QObject | None = None) -> DeskSession:
        """The session over the context's accounts, clock and ``session.idle_minutes``."""
        idle = timedelta(minutes=ctx.settings["session.idle_minutes"])
        return cls(ctx.accounts, ctx.clock, idle=idle, parent=parent)

    @property
    def accounts(self) -> AccountService:
        return self._accounts

    @property
    def operator(self) -> Operator | None:
        return None if self._locked_operator is not None else self._operator

    @property
    def is_locked(self) -> bool:
        return self._locked_operator is not None

    @property
    def locked_operator(self) -> Operator | None:
        return self._locked_operator

    def sign_in(self, username: str, password: str) -> Operator:
        """Raises :class:`AccountError` (BAD_CREDENTIALS, ACCOUNT_LOCKED...). Whoever
        was signed in before is signed out first (reason "switch")."""
        if self._operator is not None:
            self.sign_out("switch")
        operator = self._accounts.sign_in(username, password)
        self._operator, self._locked_operator = operator, None
        self._idle.touch(self._clock.now())
        self._timer.start()
        self.signed_in.emit(operator)
        return operator

    def sign_out(self, reason: str = "user") -> None:
        """Nobody works the desk any more (also from the locked screen). The window is
        cleared even if the audit entry cannot be written (the error is logged)."""
        operator = self._operator
        self._operator = self._locked_operator = None
        self._idle.reset()
        self._timer.stop()
        if operator is None:
            return
        try:
            self._accounts.sign_out(operator, reason)
        except AdmissionError as exc:
            log.warning("sign-out not audited: %s", exc.code)
        self.signed_out.emit(reason)

    def lock(self) -> None:
        """Lock the desk now (idle, or the operator steps away). The desk is locked
        even if the audit entry cannot be written (the error is logged)."""
        operator = self.operator
        if operator is None:
            return
        self._locked_operator = operator
        self._idle.reset()
        self._timer.stop()
        try:
            self._accounts.lock_session(operator)
        except AdmissionError as exc:
            log.warning("session lock not audited: %s", exc.code)
        self.locked.emit()

    def unlock(self, password: str) -> Operator:
        """Only the locked operator's own password opens the desk again."""
        return self._reopen(lambda locked: self._accounts.unlock_session(locked, password))

    def unlock_with_pin(self, pin: str) -> Operator:
        """The quick unlock: the locked operator's own PIN (three wrong ones and only
        the password opens it: PIN_ATTEMPTS_EXHAUSTED)."""
        return self._reopen(lambda locked: self._accounts.unlock_with_pin(locked, pin))

    def _reopen(self, check: Callable[[Operator], Operator]) -> Operator:
        """The desk opened again once ``check`` accepts the locked operator's secret."""
        locked = self._locked_operator
        if locked is None:
            raise AccountError("nothing is locked", code=AccountErrorCode.NOT_SIGNED_IN)
        operator = check(locked)
        self._operator, self._locked_operator = operator, None
        self._idle.touch(self._clock.now())
        self._timer.start()
        self.unlocked.emit(operator)
        return operator

    def touch(self) -> None:
        """Somebody pressed a key or moved the mouse: the idle time starts over."""
        if self.operator is not None:
            self._idle.touch(self._clock.now())

    def check_idle(self) -> None:
        """The timer's tick (every second): lock when the idle time ran out."""
        if self.operator is not None and self._idle.due(self._clock.now()):
            self.lock()


class ActivityFilter(QObject):
    """Application event filter: keys, clicks and mouse moves count as activity.
    It never consumes an event. Install with ``app.installEventFilter(filter)``."""

    def __init__(self, session: DeskSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session = session

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in ACTIVITY:
            self._session.touch()
        return False

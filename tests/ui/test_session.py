"""The desk session (art. 20.3): sign-in through the dialog, the lockout after five wrong
passwords, the idle lock after five minutes of the injected clock, the quick unlock by
the same operator only, and the game director's own credentials (art. 23.5) - on the
real encrypted demo file, its audit trail read back without a single password in it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from admission.accounts import AccountErrorCode, Role
from admission.catalogue import text
from admission.clock import FixedClock
from db.accounts import Argon2Hasher, StoreAccounts
from tests.ui.conftest import DESK_T0
from ui.context import AppContext
from ui.desk.dialogs.authorise import DirectorDialog, ask_director
from ui.desk.dialogs.sign_in import SignInDialog, UnlockDialog
from ui.desk.session import ActivityFilter, DeskSession

CHEAP = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}
PASSWORDS = {"admin": "admin-secret-1", "clerk": "clerk-secret-1", "director": "director-secret-1"}
WRONG = "wrong-password"


def _screenshot(widget: QWidget, name: str) -> None:
    try:
        from ui.desk.screens import save_screenshot
    except ImportError:
        return
    save_screenshot(widget, name)


@pytest.fixture
def ctx(demo_ctx: AppContext) -> AppContext:
    """The demo file with an administrator, a clerk and a game director (cheap hashes)."""
    accounts = StoreAccounts(demo_ctx.store, demo_ctx.clock, hasher=Argon2Hasher(**CHEAP))
    accounts.create_account("admin", "Ana Admin", PASSWORDS["admin"], [Role.ADMIN], actor=None)
    admin = accounts.sign_in("admin", PASSWORDS["admin"])
    accounts.create_account("clerk", "Carla Clerk", PASSWORDS["clerk"], [Role.CLERK], actor=admin)
    accounts.create_account(
        "director", "Diego Director", PASSWORDS["director"], [Role.DIRECTOR], actor=admin
    )
    return replace(demo_ctx, accounts=accounts)


@pytest.fixture
def session(ctx: AppContext, qtbot: QtBot) -> Iterator[DeskSession]:
    made = DeskSession.for_context(ctx)
    yield made
    made.sign_out("shutdown")


def _click(qtbot: QtBot, button: QWidget) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # type: ignore[no-untyped-call]


def _type(qtbot: QtBot, widget: QWidget, typed: str) -> None:
    qtbot.keyClicks(widget, typed)  # type: ignore[no-untyped-call]


def _key(qtbot: QtBot, widget: QWidget, key: Qt.Key) -> None:
    qtbot.keyClick(widget, key)  # type: ignore[no-untyped-call]


def _field(dialog: QWidget, name: str) -> QLineEdit:
    found = dialog.findChild(QLineEdit, name)
    assert found is not None, name
    return found


def _button(dialog: QWidget, name: str) -> QPushButton:
    found = dialog.findChild(QPushButton, name)
    assert found is not None, name
    return found


def _error(dialog: QWidget) -> str:
    found = dialog.findChild(QLabel, "error")
    assert found is not None
    assert found.textFormat() == Qt.TextFormat.PlainText
    return found.text()


def _sign_in(qtbot: QtBot, dialog: QWidget, username: str, password: str) -> None:
    user = _field(dialog, "username")
    user.clear()
    _type(qtbot, user, username)
    _type(qtbot, _field(dialog, "password"), password)
    _click(qtbot, _button(dialog, "submit"))


def _actions(ctx: AppContext, subject: str) -> list[str]:
    return [e.action for e in ctx.store.audit_entries() if e.subject == subject]


def test_sign_in_through_the_dialog(qtbot: QtBot, session: DeskSession, ctx: AppContext) -> None:
    dialog = SignInDialog(session)
    qtbot.addWidget(dialog)
    _screenshot(dialog, "sign_in")
    with qtbot.waitSignal(session.signed_in) as signed:
        _sign_in(qtbot, dialog, "Clerk", PASSWORDS["clerk"])
    assert dialog.result() == SignInDialog.DialogCode.Accepted
    assert signed.args is not None and signed.args[0].username == "clerk"
    assert session.operator is not None and session.operator.has(Role.CLERK)
    assert _field(dialog, "password").text() == ""  # not kept in the widget
    assert _actions(ctx, "account:clerk")[-1] == "LOGIN"


def test_five_wrong_passwords_lock_the_account_through_the_dialog(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    dialog = SignInDialog(session)
    qtbot.addWidget(dialog)
    _sign_in(qtbot, dialog, "nobody", WRONG)
    unknown = _error(dialog)
    assert unknown == text(AccountErrorCode.BAD_CREDENTIALS, "es")
    for _ in range(4):
        _sign_in(qtbot, dialog, "clerk", WRONG)
        assert _error(dialog) == unknown  # the same words: no user enumeration
    _sign_in(qtbot, dialog, "clerk", WRONG)
    locked = _error(dialog)
    assert locked.startswith(text(AccountErrorCode.ACCOUNT_LOCKED, "es"))
    assert "20:15" in locked  # 19:00 UTC + 15 minutes, in Madrid
    _screenshot(dialog, "sign_in_locked")
    _sign_in(qtbot, dialog, "clerk", PASSWORDS["clerk"])
    assert _error(dialog).startswith(text(AccountErrorCode.ACCOUNT_LOCKED, "es"))
    assert session.operator is None and dialog.result() == 0
    actions = _actions(ctx, "account:clerk")
    assert actions.count("LOGIN_FAILED") == 6 and actions.count("ACCOUNT_LOCKED") == 1


def test_the_desk_locks_after_five_idle_minutes_and_the_same_operator_unlocks(
    qtbot: QtBot, session: DeskSession, ctx: AppContext, desk_clock: FixedClock
) -> None:
    clerk = session.sign_in("clerk", PASSWORDS["clerk"])
    desk_clock.advance(timedelta(minutes=4, seconds=59))
    session.check_idle()
    assert session.operator == clerk and not session.is_locked
    desk_clock.advance(timedelta(seconds=1))
    with qtbot.waitSignal(session.locked, timeout=3000):  # the one-second timer's tick
        pass
    assert session.is_locked and session.operator is None and session.locked_operator == clerk
    assert _actions(ctx, "account:clerk")[-1] == "SESSION_LOCKED"

    dialog = UnlockDialog(session)
    qtbot.addWidget(dialog)
    name = dialog.findChild(QLabel, "operator_name")
    assert name is not None and name.text() == "Carla Clerk"
    assert name.textFormat() == Qt.TextFormat.PlainText
    _screenshot(dialog, "unlock")
    _type(qtbot, _field(dialog, "password"), PASSWORDS["director"])  # not theirs
    _click(qtbot, _button(dialog, "submit"))
    assert _error(dialog) == text(AccountErrorCode.BAD_CREDENTIALS, "es") and session.is_locked
    _key(qtbot, dialog, Qt.Key.Key_Escape)  # Escape leaves the desk locked
    assert session.is_locked and dialog.result() == 0
    with qtbot.waitSignal(session.unlocked):
        _type(qtbot, _field(dialog, "password"), PASSWORDS["clerk"])
        _key(qtbot, _field(dialog, "password"), Qt.Key.Key_Return)
    assert dialog.result() == UnlockDialog.DialogCode.Accepted
    assert session.operator == clerk and not session.is_locked
    assert _actions(ctx, "account:clerk")[-2:] == ["LOGIN_FAILED", "SESSION_UNLOCKED"]


def test_activity_keeps_the_desk_open(
    qtbot: QtBot, session: DeskSession, desk_clock: FixedClock
) -> None:
    app = QApplication.instance()
    assert app is not None
    activity = ActivityFilter(session)
    app.installEventFilter(activity)
    try:
        field = QLineEdit()
        qtbot.addWidget(field)
        session.sign_in("clerk", PASSWORDS["clerk"])
        desk_clock.advance(timedelta(minutes=4))
        _type(qtbot, field, "x")  # the event reaches the field: never consumed
        assert field.text() == "x"
        desk_clock.advance(timedelta(minutes=4))
        session.check_idle()
        assert not session.is_locked
        desk_clock.advance(timedelta(minutes=1))
        session.check_idle()
        assert session.is_locked
    finally:
        app.removeEventFilter(activity)


def test_a_key_an_action_takes_keeps_the_desk_open(
    qtbot: QtBot, session: DeskSession, desk_clock: FixedClock
) -> None:
    """Enter, Esc and the F-keys are the window's shortcuts: Qt never delivers them as a
    KeyPress, and a clerk who only presses Enter between scans is still at the desk."""
    from PySide6.QtGui import QAction, QKeySequence
    from PySide6.QtWidgets import QMainWindow

    app = QApplication.instance()
    assert app is not None
    activity = ActivityFilter(session)
    app.installEventFilter(activity)
    try:
        window = QMainWindow()
        qtbot.addWidget(window)
        pressed: list[bool] = []
        enter = QAction("Admitir", window)
        enter.setShortcut(QKeySequence(Qt.Key.Key_Return))
        enter.triggered.connect(lambda: pressed.append(True))
        window.addAction(enter)
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=3000)
        session.sign_in("clerk", PASSWORDS["clerk"])
        for _ in range(3):  # a quarter of an hour of scans, each confirmed with Enter
            desk_clock.advance(timedelta(minutes=4))
            _key(qtbot, window, Qt.Key.Key_Return)
            session.check_idle()
        assert len(pressed) == 3 and not session.is_locked
        desk_clock.advance(timedelta(minutes=5))
        session.check_idle()
        assert session.is_locked
    finally:
        app.removeEventFilter(activity)


def test_change_of_operator_signs_the_locked_one_out(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    session.sign_in("clerk", PASSWORDS["clerk"])
    session.lock()
    dialog = UnlockDialog(session)
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(session.signed_out) as out:
        _click(qtbot, _button(dialog, "switch"))
    assert out.args == ["switch"] and dialog.result() == UnlockDialog.SWITCHED
    assert session.operator is None and session.locked_operator is None
    assert _actions(ctx, "account:clerk")[-1] == "LOGOUT"
    assert session.sign_in("director", PASSWORDS["director"]).has(Role.DIRECTOR)


def test_a_director_decision_refuses_the_clerks_credentials(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    session.sign_in("clerk", PASSWORDS["clerk"])
    dialog = DirectorDialog(
        ctx.accounts, "EXCEPTIONAL_CARD", description="Tarjeta excepcional sin documento"
    )
    qtbot.addWidget(dialog)
    purpose = dialog.findChild(QLabel, "purpose")
    assert purpose is not None and purpose.text() == "Tarjeta excepcional sin documento"
    assert _field(dialog, "username").text() == ""  # never the signed-in clerk
    _screenshot(dialog, "director_authorisation")
    _sign_in(qtbot, dialog, "clerk", PASSWORDS["clerk"])
    assert _error(dialog) == text(AccountErrorCode.ROLE_REQUIRED, "es")
    assert dialog.operator is None and dialog.result() == 0
    _sign_in(qtbot, dialog, "admin", PASSWORDS["admin"])  # ADMIN is not DIRECTOR
    assert _error(dialog) == text(AccountErrorCode.ROLE_REQUIRED, "es")
    _sign_in(qtbot, dialog, "director", PASSWORDS["director"])
    assert dialog.result() == DirectorDialog.DialogCode.Accepted
    assert dialog.operator is not None and dialog.operator.username == "director"
    assert session.operator is not None and session.operator.username == "clerk"  # unchanged
    entries = [e for e in ctx.store.audit_entries() if e.action.startswith("AUTHORIS")]
    assert [(e.actor, e.action, e.details.get("reason")) for e in entries] == [
        ("clerk", "AUTHORISATION_FAILED", "ROLE_REQUIRED"),
        ("admin", "AUTHORISATION_FAILED", "ROLE_REQUIRED"),
        ("director", "AUTHORISED", None),
    ]
    assert all(e.details["purpose"] == "EXCEPTIONAL_CARD" for e in entries)


def test_ask_director_answers_none_when_cancelled_and_the_director_when_given(
    qtbot: QtBot, ctx: AppContext
) -> None:
    def answer(cancel: bool) -> None:
        modal = QApplication.activeModalWidget()
        assert isinstance(modal, DirectorDialog)
        if cancel:
            _click(qtbot, _button(modal, "cancel"))
        else:
            _sign_in(qtbot, modal, "director", PASSWORDS["director"])

    QTimer.singleShot(0, lambda: answer(True))
    assert ask_director(None, ctx.accounts, "OVERRIDE") is None
    QTimer.singleShot(0, lambda: answer(False))
    director = ask_director(None, ctx.accounts, "OVERRIDE")
    assert director is not None and director.has(Role.DIRECTOR)


def test_the_trail_holds_no_password_and_verifies(
    qtbot: QtBot, session: DeskSession, ctx: AppContext, desk_clock: FixedClock
) -> None:
    dialog = SignInDialog(session)
    qtbot.addWidget(dialog)
    _sign_in(qtbot, dialog, "clerk", WRONG)
    _sign_in(qtbot, dialog, PASSWORDS["clerk"], PASSWORDS["clerk"])  # typed in the wrong box
    _sign_in(qtbot, dialog, "clerk", PASSWORDS["clerk"])
    session.lock()
    session.unlock(PASSWORDS["clerk"])
    session.sign_out()
    entries = ctx.store.audit_entries()
    shown = repr([(e.actor, e.action, e.subject, e.details) for e in entries])
    with ctx.store.reading() as conn:
        hashes = [r[0] for r in conn.execute("SELECT password_hash FROM accounts")]
    assert not [s for s in [*PASSWORDS.values(), WRONG, *hashes] if s in shown]
    assert ctx.store.verify().ok
    assert desk_clock.now() == DESK_T0


def test_the_product_session_uses_the_settings_and_argon2id(
    demo_ctx: AppContext, qtbot: QtBot
) -> None:
    demo_ctx.accounts.create_account("admin", "Ana", PASSWORDS["admin"], [Role.ADMIN], actor=None)
    session = DeskSession.for_context(demo_ctx)
    assert session.sign_in("admin", PASSWORDS["admin"]).has(Role.ADMIN)
    assert session._idle.timeout == timedelta(minutes=demo_ctx.settings["session.idle_minutes"])
    session.sign_out()

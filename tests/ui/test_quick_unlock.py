"""The quick unlock and the director in session (art. 20.3), on the real encrypted demo
file and real dialogs offscreen: the locked operator opens the desk with their PIN (the
field takes digits only), three wrong PINs and only the password opens it, a sign-in
never takes the PIN; the operator sets the PIN with their password (Sesión menu); a
director signed in confirms an act with PIN or password, the name filled in and fixed,
while a clerk's session still needs the director's own name and password. Screenshots
in Spanish and English."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from admission.accounts import PIN_PAUSE, AccountErrorCode, Role
from admission.catalogue import text
from admission.clock import FixedClock
from hardware.sound import TonePlayer
from tests.ui.conftest import english, open_demo_shell
from tests.ui.test_desk_menus import case, screenshot
from tests.ui.test_session import PASSWORDS, ctx, session
from tests.ui.test_session import _button as button
from tests.ui.test_session import _field as field
from ui.context import AppContext
from ui.desk.controller import DeskState
from ui.desk.demo_scenario import seed_demo_file
from ui.desk.dialogs.authorise import DirectorDialog, ask_director
from ui.desk.dialogs.pin import PinDialog
from ui.desk.dialogs.sign_in import SignInDialog, UnlockDialog
from ui.desk.jobs import ImmediateRunner
from ui.desk.session import DeskSession
from ui.desk.window_build import build_desk_window

__all__ = ["ctx", "session"]  # fixtures: an admin, a clerk and a director; their desk session

CLERK_PIN, DIRECTOR_PIN = "4821", "97531"


def type_in(qtbot: QtBot, widget: QWidget, typed: str, enter: bool = True) -> None:
    qtbot.keyClicks(widget, typed)  # type: ignore[no-untyped-call]
    if enter:
        qtbot.keyClick(widget, Qt.Key.Key_Return)  # type: ignore[no-untyped-call]


def actions(ctx: AppContext, subject: str) -> list[tuple[str, dict[str, str]]]:
    return [(e.action, dict(e.details)) for e in ctx.store.audit_entries() if e.subject == subject]


def with_pin(ctx: AppContext, name: str, pin: str) -> None:
    ctx.accounts.set_pin(ctx.accounts.sign_in(name, PASSWORDS[name]), PASSWORDS[name], pin)


def test_the_locked_operator_opens_the_desk_with_the_pin(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    with_pin(ctx, "clerk", CLERK_PIN)
    clerk = session.sign_in("clerk", PASSWORDS["clerk"])
    session.lock()
    dialog = UnlockDialog(session)
    qtbot.addWidget(dialog)
    secret = field(dialog, "password")
    assert dialog.pin_mode and dialog.secret_label.text() == "&PIN:"
    assert secret.maxLength() == 8 and button(dialog, "use_password").isVisibleTo(dialog)
    type_in(qtbot, secret, "48ab", enter=False)
    assert secret.text() == "48"  # digits only
    secret.clear()
    screenshot(dialog, "unlock-pin-es")
    with qtbot.waitSignal(session.unlocked):
        type_in(qtbot, secret, CLERK_PIN)
    assert dialog.result() == UnlockDialog.DialogCode.Accepted and session.operator == clerk
    assert actions(ctx, "account:clerk")[-1] == ("SESSION_UNLOCKED", {"mode": "pin"})
    assert secret.text() == ""


def test_three_wrong_pins_and_only_the_password_opens_it(
    qtbot: QtBot, session: DeskSession, ctx: AppContext, desk_clock: FixedClock
) -> None:
    with_pin(ctx, "clerk", CLERK_PIN)
    clerk = session.sign_in("clerk", PASSWORDS["clerk"])
    session.lock()
    dialog = UnlockDialog(session)
    qtbot.addWidget(dialog)
    secret = field(dialog, "password")
    type_in(qtbot, secret, "0000")
    assert dialog.error.text() == text(AccountErrorCode.PIN_WRONG)
    type_in(qtbot, secret, CLERK_PIN)  # at once: the pause after a wrong PIN
    assert dialog.error.text() == text(AccountErrorCode.PIN_WAIT) and session.is_locked
    for wrong in ("1111", "2222"):
        desk_clock.advance(PIN_PAUSE * 2)
        type_in(qtbot, secret, wrong)
    assert dialog.error.text() == text(AccountErrorCode.PIN_ATTEMPTS_EXHAUSTED)
    assert not dialog.pin_mode and dialog.secret_label.text() == "&Contraseña:"
    assert not button(dialog, "use_password").isVisibleTo(dialog)
    assert secret.maxLength() > 8 and session.is_locked
    screenshot(dialog, "unlock-pin-exhausted-es")
    with qtbot.waitSignal(session.unlocked):
        type_in(qtbot, secret, PASSWORDS["clerk"])
    assert session.operator == clerk
    failed = [d for a, d in actions(ctx, "account:clerk") if a == "LOGIN_FAILED"]
    assert [d["reason"] for d in failed] == [
        "PIN_WRONG",
        "PIN_WRONG",
        "PIN_ATTEMPTS_EXHAUSTED",
    ]


def test_a_shift_starts_with_the_password_never_the_pin(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    with_pin(ctx, "clerk", "48213579")
    dialog = SignInDialog(session)
    qtbot.addWidget(dialog)
    type_in(qtbot, field(dialog, "username"), "clerk")
    type_in(qtbot, field(dialog, "password"), "48213579")
    assert session.operator is None
    assert dialog.error.text() == text(AccountErrorCode.BAD_CREDENTIALS)


def test_without_a_pin_the_unlock_asks_the_password(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    session.sign_in("director", PASSWORDS["director"])
    session.lock()
    dialog = UnlockDialog(session)
    qtbot.addWidget(dialog)
    assert not dialog.pin_mode and not button(dialog, "use_password").isVisibleTo(dialog)
    with qtbot.waitSignal(session.unlocked):
        type_in(qtbot, field(dialog, "password"), PASSWORDS["director"])


def test_the_operator_sets_the_pin_with_the_password(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    clerk = session.sign_in("clerk", PASSWORDS["clerk"])
    dialog = PinDialog(ctx.accounts, clerk)
    qtbot.addWidget(dialog)
    assert not dialog.remove_button.isVisibleTo(dialog)  # nothing to remove yet
    type_in(qtbot, field(dialog, "password"), PASSWORDS["clerk"])
    type_in(qtbot, field(dialog, "pin"), CLERK_PIN)
    type_in(qtbot, field(dialog, "repeat"), "4822")
    assert dialog.errors.code == "PINS_DIFFER" and not ctx.accounts.has_pin("clerk")
    assert field(dialog, "password").text() == ""  # never kept after an attempt
    type_in(qtbot, field(dialog, "password"), "wrong-password")
    type_in(qtbot, field(dialog, "pin"), CLERK_PIN)
    type_in(qtbot, field(dialog, "repeat"), CLERK_PIN)
    assert dialog.errors.code == "BAD_CREDENTIALS" and not ctx.accounts.has_pin("clerk")
    type_in(qtbot, field(dialog, "password"), PASSWORDS["clerk"])
    type_in(qtbot, field(dialog, "pin"), "123")
    type_in(qtbot, field(dialog, "repeat"), "123")
    assert dialog.errors.code == "PIN_INVALID"
    screenshot(dialog, "pin-dialog-es")
    type_in(qtbot, field(dialog, "password"), PASSWORDS["clerk"])
    type_in(qtbot, field(dialog, "pin"), CLERK_PIN)
    type_in(qtbot, field(dialog, "repeat"), CLERK_PIN)
    assert dialog.result() == PinDialog.DialogCode.Accepted and dialog.changed is True
    assert ctx.accounts.has_pin("clerk")
    again = PinDialog(ctx.accounts, clerk)
    qtbot.addWidget(again)
    assert again.remove_button.isVisibleTo(again)
    type_in(qtbot, field(again, "password"), PASSWORDS["clerk"], enter=False)
    qtbot.mouseClick(again.remove_button, Qt.MouseButton.LeftButton)  # type: ignore[no-untyped-call]
    assert again.changed is False and not ctx.accounts.has_pin("clerk")


def test_a_director_in_session_confirms_with_the_pin_the_name_filled_in(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    with_pin(ctx, "director", DIRECTOR_PIN)
    director = session.sign_in("director", PASSWORDS["director"])
    dialog = DirectorDialog(ctx.accounts, "OVERRIDE", signed_in=director)
    qtbot.addWidget(dialog)
    user = field(dialog, "username")
    assert user.text() == "director" and user.isReadOnly()
    assert user.focusPolicy() == Qt.FocusPolicy.NoFocus  # nobody types the name again
    assert dialog.pin_mode and dialog.password_label.text() == "&PIN:"
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.focusWidget() is field(dialog, "password")
    screenshot(dialog, "director-in-session-pin-es")
    type_in(qtbot, field(dialog, "password"), "1357")
    assert dialog.error.text() == text(AccountErrorCode.PIN_WRONG)
    qtbot.mouseClick(button(dialog, "use_password"), Qt.MouseButton.LeftButton)  # type: ignore[no-untyped-call]
    assert not dialog.pin_mode and dialog.password_label.text() == "&Contraseña:"
    type_in(qtbot, field(dialog, "password"), PASSWORDS["director"])
    assert dialog.result() == DirectorDialog.DialogCode.Accepted
    assert dialog.operator == director
    entries = [(a, d) for a, d in actions(ctx, "account:director") if a.startswith("AUTHORIS")]
    assert entries[-2:] == [
        ("AUTHORISATION_FAILED",
         {"role": "DIRECTOR", "purpose": "OVERRIDE", "mode": "pin", "reason": "PIN_WRONG"}),
        ("AUTHORISED", {"role": "DIRECTOR", "purpose": "OVERRIDE"}),
    ]  # fmt: skip


def test_a_clerks_session_still_needs_the_directors_own_name_and_password(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    with_pin(ctx, "clerk", CLERK_PIN)
    with_pin(ctx, "director", DIRECTOR_PIN)
    clerk = session.sign_in("clerk", PASSWORDS["clerk"])
    dialog = DirectorDialog(ctx.accounts, "OVERRIDE", signed_in=clerk)
    qtbot.addWidget(dialog)
    assert field(dialog, "username").text() == "" and not field(dialog, "username").isReadOnly()
    assert not dialog.pin_mode and not button(dialog, "use_password").isVisibleTo(dialog)
    type_in(qtbot, field(dialog, "username"), "director")
    type_in(qtbot, field(dialog, "password"), DIRECTOR_PIN)  # a PIN is no password
    assert dialog.error.text() == text(AccountErrorCode.BAD_CREDENTIALS)
    field(dialog, "username").clear()
    type_in(qtbot, field(dialog, "username"), "director")
    type_in(qtbot, field(dialog, "password"), PASSWORDS["director"])
    assert dialog.operator is not None and dialog.operator.username == "director"


def test_the_window_asks_the_director_in_session_for_the_pin_of_an_override(
    qtbot: QtBot, session: DeskSession, ctx: AppContext
) -> None:
    """The window's authorisation as the app wires it (ui.desk.app: ``signed_in`` is the
    session's operator): Enter on a SUPERVISOR verdict, the PIN, and the card."""
    with_pin(ctx, "director", DIRECTOR_PIN)
    director = session.sign_in("director", PASSWORDS["director"])
    seed_demo_file(ctx)
    win = build_desk_window(
        ctx,
        session,
        authorise=lambda purpose: ask_director(
            win, ctx.accounts, purpose, signed_in=session.operator
        ),
        demo=True,
        runner=ImmediateRunner(),
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    asked: list[DirectorDialog] = []

    def answer() -> None:
        modal = QApplication.activeModalWidget()
        assert isinstance(modal, DirectorDialog)
        asked.append(modal)
        assert field(modal, "username").text() == "director"
        type_in(qtbot, field(modal, "password"), DIRECTOR_PIN)

    try:
        win.controller.submit_mrz(case(ctx, "staff").lines)
        assert win.controller.state is DeskState.SHOWN
        QTimer.singleShot(0, answer)
        win.controller.admit()  # Enter
        qtbot.waitUntil(lambda: win.controller.state is DeskState.RECORDED, timeout=5000)
        assert asked and asked[0].operator == director
        entries = [d for a, d in actions(ctx, "account:director") if a == "AUTHORISED"]
        assert entries[-1]["mode"] == "pin"
    finally:
        win.stop()


def test_the_dialogs_in_english(qtbot: QtBot, session: DeskSession, ctx: AppContext) -> None:
    english()
    with_pin(ctx, "director", DIRECTOR_PIN)
    director = session.sign_in("director", PASSWORDS["director"])
    dialog = DirectorDialog(ctx.accounts, "OVERRIDE", signed_in=director, lang="en")
    qtbot.addWidget(dialog)
    assert "PIN" in dialog.password_label.text()
    assert button(dialog, "use_password").text().replace("&", "") == "Use the password"
    screenshot(dialog, "director-in-session-pin-en")
    pin = PinDialog(ctx.accounts, director)
    qtbot.addWidget(pin)
    assert pin.windowTitle() == "My unlock PIN"
    screenshot(pin, "pin-dialog-en")
    session.lock()
    unlock = UnlockDialog(session, lang="en")
    qtbot.addWidget(unlock)
    type_in(qtbot, field(unlock, "password"), "1111")
    assert unlock.error.text() == text(AccountErrorCode.PIN_WRONG, "en")
    screenshot(unlock, "unlock-pin-en")
    assert Role.DIRECTOR in director.roles


def test_the_desk_shell_unlocks_with_the_pin_and_asks_its_director_for_the_pin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The application as it runs (ui.desk.app.DeskShell on the demo file): the idle lock's
    dialog takes the clerk's PIN, and the window's director authorisation, with the
    director signed in, has the name filled in and takes the director's PIN."""

    from ui.desk.app import make_application
    from ui.desk.demo_start import DEMO_ACCOUNTS

    app = make_application()
    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    shell = open_demo_shell(app, tmp_path / "demo")
    session, shell_ctx = shell.session, shell.ctx
    assert session is not None and shell_ctx is not None and shell.window is not None
    clerk = session.operator
    assert clerk is not None
    clerk_password = next(a[2] for a in DEMO_ACCOUNTS if a[0] == clerk.username)
    shell_ctx.accounts.set_pin(clerk, clerk_password, CLERK_PIN)
    seen: list[str] = []

    def answer_with(pin: str) -> None:
        modal = QApplication.activeModalWidget()
        if modal is None:
            QTimer.singleShot(20, lambda: answer_with(pin))
            return
        seen.append(type(modal).__name__)
        secret = field(modal, "password")
        seen.append(field(modal, "username").text() if modal.findChild(QLineEdit, "username")
                    else "")  # fmt: skip
        secret.setText(pin)
        modal.submit()  # type: ignore[attr-defined]

    try:
        QTimer.singleShot(20, lambda: answer_with(CLERK_PIN))
        session.lock()
        deadline = time.monotonic() + 5
        while session.is_locked and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        assert seen == ["UnlockDialog", ""] and session.operator == clerk
        director_name, _display, director_password, _roles = DEMO_ACCOUNTS[0]
        director = session.sign_in(director_name, director_password)
        shell_ctx.accounts.set_pin(director, director_password, DIRECTOR_PIN)
        QTimer.singleShot(20, lambda: answer_with(DIRECTOR_PIN))
        authorise = shell.window.controller._authorise
        assert authorise is not None
        assert authorise("OVERRIDE") == director
        assert seen[2:] == ["DirectorDialog", director_name]
    finally:
        shell.close()

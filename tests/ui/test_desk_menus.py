"""The desk window's menus on the real demo file: every dialog is reachable by its
shortcut, with the document on screen where it needs one (arts. 21.2-3, 23.4-5, 24);
the administrator's actions refuse a clerk without an administrator's credentials;
saved settings are audited by key; the session locks (Ctrl+L); and a reader's burst
while a dialog is open is ignored - no text in the dialog, no verdict changed."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit, QMenu, QWidget
from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.ports import madrid_date
from admission.verdict import Outcome
from hardware.sound import TonePlayer
from tests.ui.conftest import CLERK, DIRECTOR, FakeSession
from ui.context import AppContext
from ui.desk.controller import DeskState
from ui.desk.demo_scenario import DemoCase, demo_cases, seed_demo_file
from ui.desk.desk_window import DeskWindow
from ui.desk.dialogs.accounts import AccountsDialog
from ui.desk.dialogs.authorise import DirectorDialog
from ui.desk.dialogs.bans import BansDialog
from ui.desk.dialogs.cards import CardActionsDialog, ExceptionalCardDialog, ReprintQueueDialog
from ui.desk.dialogs.observation import ObservationDialog
from ui.desk.dialogs.official import OfficialDialog
from ui.desk.dialogs.pin import PinDialog
from ui.desk.dialogs.printer import PrinterDialog
from ui.desk.dialogs.settings import SettingsDialog
from ui.desk.dialogs.staff import StaffDialog
from ui.desk.dialogs.vouchers import VoucherIssueDialog, VouchersDialog
from ui.desk.host import MENU_ADMIN, MENU_DESK, MENU_DIRECTION, MENU_SESSION
from ui.desk.jobs import ImmediateRunner
from ui.desk.menus import DeskMenus
from ui.desk.menus.base import SETTINGS_CHANGED
from ui.desk.session import DeskSession
from ui.desk.wedge_filter import WedgeFilter
from ui.desk.window_build import build_desk_window

ADMIN = Operator("admin1", "Admin One", frozenset({Role.ADMIN}))

# action -> (shortcut, menu, dialog it opens)
EXPECTED: dict[str, tuple[str, str, type[QDialog] | None]] = {
    "voucher": ("F9", MENU_DESK, VoucherIssueDialog),
    "vouchers": ("Ctrl+Shift+V", MENU_DESK, VouchersDialog),
    "closing": ("Ctrl+Shift+L", MENU_DESK, VouchersDialog),
    "official": ("Ctrl+Shift+O", MENU_DESK, OfficialDialog),
    "reprint_queue": ("Ctrl+Shift+P", MENU_DESK, ReprintQueueDialog),
    "observation": ("Ctrl+Shift+B", MENU_DESK, ObservationDialog),
    "exceptional": ("Ctrl+E", MENU_DIRECTION, ExceptionalCardDialog),
    "bans": ("Ctrl+B", MENU_DIRECTION, BansDialog),
    "staff": ("Ctrl+Shift+S", MENU_DIRECTION, StaffDialog),
    "cards": ("Ctrl+Shift+T", MENU_DIRECTION, CardActionsDialog),
    "printer": ("Ctrl+Shift+I", MENU_DIRECTION, PrinterDialog),
    "settings": ("Ctrl+Shift+G", MENU_ADMIN, SettingsDialog),
    "accounts": ("Ctrl+Shift+U", MENU_ADMIN, AccountsDialog),
    "lock": ("Ctrl+L", MENU_SESSION, None),
    "pin": ("Ctrl+Shift+K", MENU_SESSION, PinDialog),
    "sign_out": ("Ctrl+Shift+Q", MENU_SESSION, None),
}


def screenshot(widget: QWidget, name: str) -> None:
    try:
        from ui.desk.screens import save_screenshot
    except ImportError:
        return
    save_screenshot(widget, name)


def make_window(
    qtbot: QtBot, ctx: AppContext, session: object, *, director: Operator | None = DIRECTOR
) -> DeskWindow:
    """The desk window over ``ctx``, shown and active; ``director`` answers a director's
    authorisation (None: nobody confirms)."""
    seed_demo_file(ctx)
    win = build_desk_window(
        ctx,
        session,  # type: ignore[arg-type]
        authorise=lambda purpose: director,
        demo=True,
        runner=ImmediateRunner(),
        sound=TonePlayer(enabled=False),
        watch_devices=False,
    )
    qtbot.addWidget(win)
    win.resize(1200, 760)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=3000)  # shortcuts need the active window
    return win


@pytest.fixture
def window(qtbot: QtBot, demo_ctx: AppContext, session: FakeSession) -> Iterator[DeskWindow]:
    win = make_window(qtbot, demo_ctx, session)
    yield win
    win.stop()


def menus_of(win: DeskWindow) -> DeskMenus:
    assert win.menus is not None
    return win.menus


def case(ctx: AppContext, kind: str, round_: int = 0) -> DemoCase:
    today = madrid_date(ctx.clock.now())
    return next(c for c in demo_cases(today, round_) if c.kind == kind)


def show_verdict(win: DeskWindow, ctx: AppContext, kind: str) -> None:
    win.controller.submit_mrz(case(ctx, kind).lines)
    # shown; a DENY is recorded the moment it is shown (arts. 20, 22)
    assert win.controller.state in (DeskState.SHOWN, DeskState.RECORDED)


def press(win: QWidget, keys: str) -> None:
    QTest.keySequence(win, QKeySequence(keys))


def close(qtbot: QtBot, dialog: QDialog) -> None:
    dialog.reject()
    qtbot.waitUntil(lambda: not dialog.isVisible())


def menu_of(win: DeskWindow, name: str) -> QMenu:
    return win.menu(name)


# -- the actions ------------------------------------------------------------------------
def test_every_action_has_its_shortcut_a_name_and_a_menu(window: DeskWindow) -> None:
    menus = menus_of(window)
    assert set(menus.actions) == set(EXPECTED)
    for name, (keys, menu_name, _kind) in EXPECTED.items():
        action = menus.actions[name]
        assert action.shortcut() == QKeySequence(keys), name
        assert action.shortcutContext() == Qt.ShortcutContext.WindowShortcut
        assert "&" in action.text(), f"{name} has a mnemonic"
        assert action.text().replace("&", "").strip(), name
        assert action.statusTip(), name
        assert action in menu_of(window, menu_name).actions(), name
        assert action in window.actions(), f"{name} works window-wide"
    for menu_name in (MENU_DESK, MENU_DIRECTION, MENU_ADMIN, MENU_SESSION):
        menu = menu_of(window, menu_name)
        assert menu.menuAction().isVisible() and menu.accessibleName()
    shortcuts = [a.shortcut().toString() for a in window.actions() if not a.shortcut().isEmpty()]
    assert len(shortcuts) == len(set(shortcuts)), "no two actions share a key"


def test_the_operator_is_shown_in_the_status_bar(window: DeskWindow) -> None:
    label = menus_of(window).operator_label
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert CLERK.display_name in label.text() and label.isVisible()
    assert label.accessibleName()


@pytest.mark.parametrize("name", [n for n, e in EXPECTED.items() if e[2] is not None])
def test_each_shortcut_opens_its_dialog(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext, name: str
) -> None:
    menus = menus_of(window)
    menus.ask_admin = lambda purpose: ADMIN  # an administrator confirms
    show_verdict(window, demo_ctx, "admitted")
    keys, _menu, kind = EXPECTED[name]
    press(window, keys)
    dialog = menus.dialog
    assert kind is not None and isinstance(dialog, kind), name
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.isModal() or dialog.windowModality() != Qt.WindowModality.NonModal
    assert dialog.accessibleName()
    close(qtbot, dialog)


def test_dialogs_get_the_document_and_identity_on_screen(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    menus = menus_of(window)
    show_verdict(window, demo_ctx, "staff")  # a SUPERVISOR: the director decides
    current = window.controller.current
    assert current is not None
    bans = menus.direction.open_bans()
    assert bans is not None and bans.identity_edit.text() == current.document.identity.text
    close(qtbot, bans)
    exceptional = menus.direction.open_exceptional()
    assert exceptional is not None and exceptional.issue_button.isEnabled()
    assert current.document.surname[:10] in exceptional.document_label.text()
    close(qtbot, exceptional)
    printer = menus.direction.open_printer()  # a clerk: the director confirmed (authorise)
    assert printer is not None and printer.allowed
    assert printer.fields.check_button.isEnabled(), "the printer check is given"
    close(qtbot, printer)


def test_a_voucher_is_two_key_presses_from_the_verdict(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    show_verdict(window, demo_ctx, "admitted")
    press(window, "F9")  # one
    dialog = menus_of(window).dialog
    assert isinstance(dialog, VoucherIssueDialog)
    qtbot.waitUntil(dialog.isVisible)
    screenshot(window, "desk-voucher")
    with qtbot.waitSignal(dialog.voucher_issued, timeout=5000) as issued:
        QTest.keyClick(dialog, Qt.Key.Key_Return)  # two
    voucher = issued.args[0]
    assert [v.number for v in demo_ctx.vouchers.open_vouchers()] == [voucher.number]
    assert window.controller.state is DeskState.IDLE, "the desk moved on"
    assert str(voucher.number) in window.status.currentMessage()


def test_no_voucher_for_a_refusal(window: DeskWindow, demo_ctx: AppContext) -> None:
    show_verdict(window, demo_ctx, "minor")
    assert menus_of(window).desk.open_voucher() is None
    assert window.status.currentMessage() == text("VOUCHER_NEEDS_ADMIT")
    assert not demo_ctx.vouchers.open_vouchers()


# -- roles ------------------------------------------------------------------------------
def test_settings_refuse_a_clerk_without_an_administrators_credentials(
    window: DeskWindow,
) -> None:
    menus = menus_of(window)
    asked: list[str] = []

    def nobody(purpose: str) -> Operator | None:
        asked.append(purpose)
        return None

    menus.ask_admin = nobody
    for name in ("settings", "accounts"):
        menus.dialog = None
        menus.actions[name].trigger()
        assert menus.dialog is None, name
        assert window.status.currentMessage() == text("ADMIN_NOT_CONFIRMED")
    assert asked == ["SETTINGS", "ACCOUNTS"]
    menus.ask_admin = lambda purpose: CLERK  # a clerk's own credentials are not enough
    assert menus.admin.open_settings() is None


def test_an_administrator_signed_in_is_not_asked_again(qtbot: QtBot, demo_ctx: AppContext) -> None:
    win = make_window(qtbot, demo_ctx, FakeSession(ADMIN))
    menus = menus_of(win)

    def never(purpose: str) -> Operator | None:
        raise AssertionError("asked")

    menus.ask_admin = never
    dialog = menus.admin.open_accounts()
    assert isinstance(dialog, AccountsDialog)
    close(qtbot, dialog)
    win.stop()


def test_saved_settings_are_audited_by_key_and_applied_at_once(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    menus = menus_of(window)
    menus.ask_admin = lambda purpose: ADMIN
    dialog = menus.admin.open_settings()
    assert isinstance(dialog, SettingsDialog) and dialog.allowed
    screenshot(dialog, "desk-settings-from-menu")
    dialog.casino.name.setText("Casino de Pruebas Nuevo")
    assert dialog.save()
    entries = [e for e in demo_ctx.store.audit_entries() if e.action == SETTINGS_CHANGED]
    assert len(entries) == 1
    entry = entries[0]
    assert entry.actor == "admin1" and entry.subject == "settings"
    assert "casino.name" in entry.details["keys"].split(",")
    assert "Casino de Pruebas Nuevo" not in str(entry.details), "keys, never values"
    assert window.status.currentMessage() == "Configuración aplicada"  # live, no restart
    assert (demo_ctx.data_dir / "settings.json").is_file()


# -- the session ------------------------------------------------------------------------
def test_ctrl_l_locks_a_real_session_and_sign_out_ends_it(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    demo_ctx.accounts.create_account(
        "admin1", "Admin One", "admin-password-1", [Role.ADMIN], actor=None
    )
    session = DeskSession.for_context(demo_ctx)
    session.sign_in("admin1", "admin-password-1")
    win = make_window(qtbot, demo_ctx, session)
    menus = menus_of(win)
    assert "Admin One" in menus.operator_label.text()
    with qtbot.waitSignal(session.locked, timeout=2000):
        press(win, "Ctrl+L")
    assert session.is_locked and session.operator is None
    assert "Admin One" in menus.operator_label.text()  # who may unlock it
    assert "SESSION_LOCKED" in [e.action for e in demo_ctx.store.audit_entries()]
    session.unlock("admin-password-1")
    assert not session.is_locked
    with qtbot.waitSignal(session.signed_out, timeout=2000):
        menus.actions["sign_out"].trigger()
    assert session.operator is None and menus.operator_label.text() == "Sin sesión"
    win.stop()


# -- a reader's burst while a dialog is open --------------------------------------------
def type_burst(target: QWidget, lines: tuple[str, ...]) -> None:
    """Type ``lines`` as a keyboard-wedge reader does (tests/bench/bench_gui.py)."""
    no_mod = Qt.KeyboardModifier.NoModifier
    for char in "\r".join(lines) + "\r":
        if char == "\r":
            key = Qt.Key.Key_Return
        else:
            key = Qt.Key(ord(char)) if char.isalnum() else Qt.Key.Key_Less
        QApplication.sendEvent(target, QKeyEvent(QEvent.Type.KeyPress, key, no_mod, char))
        QApplication.sendEvent(target, QKeyEvent(QEvent.Type.KeyRelease, key, no_mod, char))


@pytest.fixture
def wedge(window: DeskWindow) -> Iterator[WedgeFilter]:
    wedge = WedgeFilter(parent=window)
    window.connect_wedge(wedge)
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(wedge)
    yield wedge
    app.removeEventFilter(wedge)


def settle(qtbot: QtBot, wedge: WedgeFilter) -> None:
    """Until the filter has ended the burst (its timer fired)."""
    qtbot.waitUntil(lambda: wedge.feeder.deadline() is None, timeout=3000)
    qtbot.wait(50)


def test_a_burst_into_an_open_dialog_is_ignored(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext, wedge: WedgeFilter
) -> None:
    started: list[bool] = []
    window.controller.evaluation_started.connect(lambda: started.append(True))
    bans = menus_of(window).direction.open_bans()
    assert bans is not None and bans.identity_edit.text() == ""
    qtbot.waitUntil(bans.isVisible)
    bans.identity_edit.setFocus()
    type_burst(bans.identity_edit, case(demo_ctx, "admitted").lines)
    settle(qtbot, wedge)
    assert bans.identity_edit.text() == "", "nothing typed into the dialog"
    assert not started and window.controller.state is DeskState.IDLE
    assert window.status.currentMessage() == "Cierre el diálogo para leer un documento"
    close(qtbot, bans)
    # with the dialog closed the same reader is read
    with qtbot.waitSignal(window.controller.verdict_ready, timeout=3000):
        type_burst(window, case(demo_ctx, "admitted").lines)
        settle(qtbot, wedge)
    assert started


def test_a_burst_never_changes_the_verdict_behind_a_director_dialog(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext, wedge: WedgeFilter
) -> None:
    show_verdict(window, demo_ctx, "staff")
    shown = window.controller.current
    assert shown is not None and shown.evaluation.verdict.outcome is Outcome.SUPERVISOR
    dialog = DirectorDialog(demo_ctx.accounts, "OVERRIDE", window)
    dialog.open()  # modal, as ask_director's exec()
    qtbot.waitUntil(dialog.isVisible)
    for field in (dialog.username, dialog.password):
        field.setFocus()
        type_burst(field, case(demo_ctx, "admitted", round_=1).lines)
        settle(qtbot, wedge)
        assert field.text() == ""
    assert window.controller.current is shown and window.controller.state is DeskState.SHOWN
    assert window.verdict.outcome == "SUPERVISOR"
    assert window.status.currentMessage() == "Cierre el diálogo para leer un documento"
    close(qtbot, dialog)
    assert isinstance(dialog.username, QLineEdit)


# -- screenshots ------------------------------------------------------------------------
def test_screenshots_of_the_menus(qtbot: QtBot, window: DeskWindow) -> None:
    for menu_name in (MENU_DESK, MENU_DIRECTION, MENU_ADMIN, MENU_SESSION):
        menu = menu_of(window, menu_name)
        menu.popup(window.mapToGlobal(QPoint(20, 30)))
        qtbot.waitUntil(menu.isVisible)
        screenshot(menu, f"desk-menu-{menu_name}")
        menu.hide()
    screenshot(window, "desk-menus")
    assert time.monotonic() > 0


def test_a_formalised_voucher_clears_the_admit_on_screen(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    menus = menus_of(window)
    show_verdict(window, demo_ctx, "admitted")
    issue = menus.desk.open_voucher()
    assert isinstance(issue, VoucherIssueDialog)
    with qtbot.waitSignal(issue.voucher_issued, timeout=5000):
        issue.issue()
    show_verdict(window, demo_ctx, "admitted")  # the deposited document, read again
    dialog = menus.desk.open_vouchers()
    assert isinstance(dialog, VouchersDialog) and len(dialog.open_numbers()) == 1
    dialog.table.selectRow(0)
    with qtbot.waitSignal(dialog.card_issued, timeout=5000) as issued:
        dialog.formalise()
    result = issued.args[0]
    assert result.card is not None
    assert window.controller.state is DeskState.IDLE, "Enter cannot record it twice"
    close(qtbot, dialog)
    window.controller.admit()
    cards = [v for v in demo_ctx.store.visits(result.recorded.file_number) if v.card_number]
    assert len(cards) == 1


def test_the_settings_file_is_the_one_the_desk_reads_at_start(window: DeskWindow) -> None:
    import main

    assert menus_of(window).settings_path == window.ctx.data_dir / main.SETTINGS_FILE

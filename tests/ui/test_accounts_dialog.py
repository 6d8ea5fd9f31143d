"""The accounts dialog on the real demo file (art. 20.3: every admission names the
operator who signed in): an administrator adds a clerk who can then sign in, resets a
password, disables an account, clears a lockout; a clerk's changes are refused; an
administrator's own credentials are asked by the ``AdminDialog``."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QAbstractButton, QCheckBox, QLineEdit, QTableWidget, QWidget
from pytestqt.qtbot import QtBot

from admission.accounts import AccountError, Operator, Role
from admission.catalogue import text
from ui.context import AppContext
from ui.desk.dialogs.accounts import AccountsDialog, AdminDialog
from ui.desk.jobs import ImmediateRunner

RUNNER = ImmediateRunner()
ADMIN_PASSWORD = "admin-password-1"
CLERK_PASSWORD = "clerk-password-1"


def screenshot(widget: QWidget, name: str) -> None:
    try:
        from ui.desk.screens import save_screenshot
    except ImportError:
        return
    save_screenshot(widget, name)


@pytest.fixture
def admin(demo_ctx: AppContext) -> Operator:
    account = demo_ctx.accounts.create_account(
        "admin1", "Admin One", ADMIN_PASSWORD, [Role.ADMIN], actor=None
    )
    return account.operator()


def dialog_for(qtbot: QtBot, ctx: AppContext, actor: Operator) -> AccountsDialog:
    dialog = AccountsDialog(ctx.accounts, RUNNER, actor=actor, clock=ctx.clock)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def cell(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    return "" if item is None else item.text()


def add_clerk(dialog: AccountsDialog, username: str = "clerk2", repeat: str = "") -> None:
    dialog.new_username.setText(username)
    dialog.new_name.setText("Clerk Two")
    for role, check in dialog.role_checks.items():
        check.setChecked(role is Role.CLERK)
    dialog.new_password.setText(CLERK_PASSWORD)
    dialog.new_repeat.setText(repeat or CLERK_PASSWORD)
    dialog.create_button.click()


def test_an_administrator_adds_a_clerk_who_can_then_sign_in(
    qtbot: QtBot, demo_ctx: AppContext, admin: Operator
) -> None:
    dialog = dialog_for(qtbot, demo_ctx, admin)
    assert [a.username for a in dialog.shown_accounts()] == ["admin1"]
    add_clerk(dialog)
    assert dialog.error.text() == ""
    assert [a.username for a in dialog.shown_accounts()] == ["admin1", "clerk2"]
    operator = demo_ctx.accounts.sign_in("clerk2", CLERK_PASSWORD)
    assert operator.roles == frozenset({Role.CLERK}) and operator.display_name == "Clerk Two"
    # the list shows names and roles, never a password or its hash
    cells = [
        cell(dialog.table, r, c)
        for r in range(dialog.table.rowCount())
        for c in range(dialog.table.columnCount())
    ]
    assert "Recepción" in cells and not any("argon2" in c or CLERK_PASSWORD in c for c in cells)
    assert dialog.new_password.text() == "" and dialog.new_repeat.text() == ""
    created = [e for e in demo_ctx.store.audit_entries() if e.action == "ACCOUNT_CREATED"]
    assert created[-1].actor == "admin1"
    screenshot(dialog, "accounts-dialog")


def test_passwords_that_differ_create_nothing(
    qtbot: QtBot, demo_ctx: AppContext, admin: Operator
) -> None:
    dialog = dialog_for(qtbot, demo_ctx, admin)
    add_clerk(dialog, repeat="something-else-1")
    assert dialog.error.text() == text("PASSWORDS_DIFFER", "es")
    assert demo_ctx.accounts.account("clerk2") is None


def test_reset_disable_and_clear_a_lockout(
    qtbot: QtBot, demo_ctx: AppContext, admin: Operator
) -> None:
    dialog = dialog_for(qtbot, demo_ctx, admin)
    add_clerk(dialog)
    for _ in range(demo_ctx.accounts.policy.max_failures):
        with pytest.raises(AccountError):
            demo_ctx.accounts.sign_in("clerk2", "wrong-password")
    dialog.refresh()
    assert dialog.select("clerk2")
    row = dialog.table.currentRow()
    assert cell(dialog.table, row, 4) != ""  # locked until (Madrid time)
    dialog.unlock_button.click()
    assert cell(dialog.table, dialog.table.currentRow(), 4) == ""
    demo_ctx.accounts.sign_in("clerk2", CLERK_PASSWORD)

    dialog.reset_password.setText("new-password-22")
    dialog.reset_repeat.setText("new-password-22")
    dialog.password_button.click()
    assert dialog.error.text() == ""
    demo_ctx.accounts.sign_in("clerk2", "new-password-22")

    assert dialog.active_button.text().replace("&", "") == "Desactivar"
    dialog.active_button.click()
    with pytest.raises(AccountError) as refused:
        demo_ctx.accounts.sign_in("clerk2", "new-password-22")
    assert refused.value.code == "ACCOUNT_DISABLED"
    assert cell(dialog.table, dialog.table.currentRow(), 3) == "no"
    dialog.active_button.click()
    demo_ctx.accounts.sign_in("clerk2", "new-password-22")


def test_no_account_chosen_is_said(qtbot: QtBot, demo_ctx: AppContext, admin: Operator) -> None:
    dialog = dialog_for(qtbot, demo_ctx, admin)
    dialog.table.clearSelection()
    dialog.clear_lockout()
    assert dialog.error.text() == text("SELECTION_REQUIRED", "es")


def test_a_clerk_changes_nothing(qtbot: QtBot, demo_ctx: AppContext, admin: Operator) -> None:
    demo_ctx.accounts.create_account("clerk1", "Clerk", CLERK_PASSWORD, [Role.CLERK], actor=admin)
    clerk = demo_ctx.accounts.sign_in("clerk1", CLERK_PASSWORD)
    dialog = dialog_for(qtbot, demo_ctx, clerk)
    add_clerk(dialog, "clerk3")
    assert dialog.error.text() == text("ROLE_REQUIRED", "es")
    assert demo_ctx.accounts.account("clerk3") is None


def test_every_control_has_an_accessible_name(
    qtbot: QtBot, demo_ctx: AppContext, admin: Operator
) -> None:
    dialog = dialog_for(qtbot, demo_ctx, admin)
    kinds = (QLineEdit, QAbstractButton, QCheckBox, QTableWidget)
    controls = [w for w in dialog.findChildren(QWidget) if isinstance(w, kinds)]
    assert len(controls) > 10
    unnamed = [w for w in controls if w.isVisible() and not w.accessibleName()]
    assert not unnamed, [type(w).__name__ for w in unnamed]


def test_the_admin_dialog_takes_an_administrator_only(
    qtbot: QtBot, demo_ctx: AppContext, admin: Operator
) -> None:
    demo_ctx.accounts.create_account("clerk1", "Clerk", CLERK_PASSWORD, [Role.CLERK], actor=admin)
    dialog = AdminDialog(demo_ctx.accounts, "SETTINGS")
    qtbot.addWidget(dialog)
    dialog.username.setText("clerk1")
    dialog.password.setText(CLERK_PASSWORD)
    dialog.submit()
    assert dialog.operator is None and dialog.result() != AdminDialog.DialogCode.Accepted.value
    assert dialog.error.text() == text("ROLE_REQUIRED", "es")
    assert dialog.password.text() == ""
    dialog.username.setText("admin1")
    dialog.password.setText(ADMIN_PASSWORD)
    dialog.submit()
    assert dialog.operator == admin
    authorised = [e for e in demo_ctx.store.audit_entries() if e.action == "AUTHORISED"]
    assert authorised[-1].actor == "admin1"


def test_the_roles_of_the_chosen_account_change(
    qtbot: QtBot, demo_ctx: AppContext, admin: Operator
) -> None:
    dialog = dialog_for(qtbot, demo_ctx, admin)
    add_clerk(dialog)
    assert dialog.select("clerk2")
    assert dialog.chosen_roles[Role.CLERK].isChecked()
    assert dialog.role_checks[Role.CLERK].isChecked(), "the new account's boxes are apart"
    dialog.chosen_roles[Role.DIRECTOR].setChecked(True)
    dialog.roles_button.click()
    assert dialog.error.text() == ""
    account = demo_ctx.accounts.account("clerk2")
    assert account is not None and account.roles == {Role.CLERK, Role.DIRECTOR}
    # the last administrator stays one: the service refuses, the dialog says why
    assert dialog.select("admin1")
    dialog.chosen_roles[Role.ADMIN].setChecked(False)
    dialog.chosen_roles[Role.CLERK].setChecked(True)
    dialog.roles_button.click()
    assert dialog.error.text() == text("LAST_ADMIN", "es")

"""Only a clerk or the game director admits at the desk window (art. 20.3): an
administrator signed in is refused the document read (``ROLE_REQUIRED``), nothing is
evaluated or recorded, and the desk's own dialogs (vouchers, officials, reprints) stay
closed, and a card's check answers nothing (art. 22.4: staff and inspectors check cards); a
clerk on the same window admits. The real window, offscreen, on the demo file.
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from tests.ui.conftest import CLERK, FakeSession
from tests.ui.test_desk_menus import case, make_window, menus_of
from ui.context import AppContext
from ui.desk.controller import DeskState
from ui.desk.desk_window import DeskWindow

ADMIN = Operator("admin1", "Admin One", frozenset({Role.ADMIN}))
ADMIN_AND_CLERK = Operator("ana", "Ana", frozenset({Role.ADMIN, Role.CLERK}))


def state(win: DeskWindow) -> DeskState:
    return win.controller.state


def audit_entries(ctx: AppContext) -> int:
    return len(ctx.store.audit_entries(0, 100_000))


def test_an_administrator_reads_no_document_and_records_nothing(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    session = FakeSession(ADMIN)
    win = make_window(qtbot, demo_ctx, session)
    try:
        rejected: list[str] = []
        win.controller.scan_rejected.connect(lambda code, _text: rejected.append(code))
        before = audit_entries(demo_ctx)
        win.controller.submit_mrz(case(demo_ctx, "admitted").lines)
        assert rejected == ["ROLE_REQUIRED"]
        assert state(win) is DeskState.IDLE and win.controller.current is None
        win.controller.admit()
        assert audit_entries(demo_ctx) == before  # nothing evaluated, nothing recorded
        failed: list[str] = []
        win.controller.operation_failed.connect(lambda code, _text: failed.append(code))
        win.controller.check_card(demo_ctx.card_code(1))  # a card's holder: not theirs
        assert failed == ["ROLE_REQUIRED"] and audit_entries(demo_ctx) == before
        menus = menus_of(win)
        assert menus.desk.open_voucher() is None
        assert menus.desk.open_vouchers() is None
        assert menus.desk.open_official() is None
        assert menus.desk.open_reprints() is None
        # the same window with a clerk signed in admits
        session.operator = CLERK
        win.controller.submit_mrz(case(demo_ctx, "admitted").lines)
        assert state(win) is DeskState.SHOWN
    finally:
        win.stop()


def test_an_administrator_who_is_also_a_clerk_admits(qtbot: QtBot, demo_ctx: AppContext) -> None:
    win = make_window(qtbot, demo_ctx, FakeSession(ADMIN_AND_CLERK))
    try:
        win.controller.submit_mrz(case(demo_ctx, "admitted").lines)
        assert state(win) is DeskState.SHOWN
    finally:
        win.stop()

"""The casino's bans at the counter (art. 21.2-3, R5) on the real demo file: the clerk
reads a ban's reason, author, start and end on the identity panel beside the DENY, and
an ended ban as the past offence it is; the director's ban list names the people, is
narrowed by typing (accents aside), and shows the history of lifted and expired bans,
every reading audited (art. 20.4). Screenshots in Spanish and English."""

from __future__ import annotations

from datetime import timedelta

from pytestqt.qtbot import QtBot

from admission.catalogue import text
from admission.clock import FixedClock
from admission.ports import madrid_date
from tests.factories import dni, dni_document
from tests.ui.conftest import CLERK, DIRECTOR, FakeSession, english
from tests.ui.test_desk_menus import make_window, screenshot, window
from tests.ui.test_dialogs_director import Authorise
from ui.context import AppContext
from ui.desk.controller import DeskState
from ui.desk.desk_window import DeskWindow
from ui.desk.dialogs.bans import BansDialog
from ui.desk.dialogs.common import StoreListings
from ui.desk.jobs import ImmediateRunner
from ui.desk.ops import bans as ban_ops
from ui.desk.text import MADRID

RUNNER = ImmediateRunner()
REASON = "Insultos al crupier de la mesa 4"


__all__ = ["window"]  # the fixture: the desk window on the demo file (tests/ui/test_desk_menus)


def present(qtbot: QtBot, win: DeskWindow, ctx: AppContext, number: int) -> None:
    """A DNI presented at the desk (typed in, as the manual entry does)."""
    win.controller.submit_manual(dni_document(number, today=madrid_date(ctx.clock.now())))
    qtbot.waitUntil(
        lambda: win.controller.state in (DeskState.SHOWN, DeskState.RECORDED), timeout=5000
    )


def director_list(qtbot: QtBot, ctx: AppContext) -> BansDialog:
    """The director's ban dialog with the casino's list (Dirección > Prohibiciones)."""
    dialog = BansDialog(
        ban_ops.of(ctx), RUNNER, Authorise(DIRECTOR), operator=DIRECTOR.username,
        listings=StoreListings(ctx.store),
    )  # fmt: skip
    qtbot.addWidget(dialog)
    return dialog


def visited(ctx: AppContext, number: int, surname: str, given: str) -> None:
    """The person came in once, so the file holds the name."""
    doc = dni_document(
        number, surname=surname, given_names=given, today=madrid_date(ctx.clock.now())
    )
    result = ctx.desk.admit(doc, operator=CLERK.username)
    assert result.recorded.file_number >= 1


def test_the_clerk_reads_the_ban_in_force_beside_the_deny(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    identity = dni_document(12345678, today=madrid_date(demo_ctx.clock.now())).identity
    until = demo_ctx.clock.now() + timedelta(days=180)
    demo_ctx.desk.add_ban(identity, REASON, "director1", until)
    present(qtbot, window, demo_ctx, 12345678)
    assert window.verdict.outcome == "DENY"
    shown = window.identity.bans.text()
    assert REASON in shown and "director1" in shown
    assert demo_ctx.clock.now().astimezone(MADRID).strftime("%d/%m/%Y") in shown
    assert until.astimezone(MADRID).strftime("%d/%m/%Y") in shown
    assert window.identity.bans.isVisible()
    screenshot(window, "ban-at-the-counter-es")


def test_an_ended_ban_still_shows_as_the_past_offence(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    identity = dni_document(12345678, today=madrid_date(demo_ctx.clock.now())).identity
    ban = demo_ctx.desk.add_ban(identity, REASON, "director1")
    desk_clock.advance(timedelta(days=2))
    demo_ctx.desk.lift_ban(ban.ban_id, "Alegaciones aceptadas", "director1")
    desk_clock.advance(timedelta(days=1))
    present(qtbot, window, demo_ctx, 12345678)
    assert window.verdict.outcome != "DENY"
    assert text("PAST_BAN") in window.identity.warnings.text()  # the past offence, kept
    shown = window.identity.bans.text()
    assert REASON in shown and "director1" in shown and window.identity.bans.isVisible()
    # nobody banned: no row at all
    window.controller.clear()
    present(qtbot, window, demo_ctx, 23456789)
    assert not window.identity.bans.isVisible() and window.identity.bans.text() == ""


def test_the_directors_list_names_filters_and_keeps_the_history(
    qtbot: QtBot, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    visited(demo_ctx, 12345678, "PEÑA NÚÑEZ", "JOSÉ")
    visited(demo_ctx, 23456789, "GARCÍA LÓPEZ", "ANA")
    desk = demo_ctx.desk
    desk.add_ban(dni_document(12345678, today=madrid_date(demo_ctx.clock.now())).identity,
                 "Amenazas al personal", "director1")  # fmt: skip
    garcia = desk.add_ban(
        dni_document(23456789, today=madrid_date(demo_ctx.clock.now())).identity,
        REASON,
        "director2",
        demo_ctx.clock.now() + timedelta(days=3),
    )
    never = desk.add_ban(
        dni_document(34567890, today=madrid_date(demo_ctx.clock.now())).identity,
        "Símbolos ofensivos",
        "director1",
    )
    desk_clock.advance(timedelta(days=1))
    desk.lift_ban(never.ban_id, "Error de identidad", "director2")
    desk_clock.advance(timedelta(days=5))  # garcia's has expired
    dialog = director_list(qtbot, demo_ctx)
    dialog.show_all()
    [in_force] = dialog.shown_bans()
    # the name as the file keeps it (read from the MRZ: no accents there)
    assert dialog.table.item(0, 1).text() == "JOSE PENA NUNEZ"  # type: ignore[union-attr]
    assert in_force.reason == "Amenazas al personal"
    dialog.history_button.click()
    assert [b.ban_id for b in dialog.shown_bans()] == [never.ban_id, garcia.ban_id]
    names = [dialog.table.item(r, 1).text() for r in range(2)]  # type: ignore[union-attr]
    assert names == ["(sin ficha)", "ANA GARCIA LOPEZ"]  # never came in: no file
    until = [dialog.table.item(r, 6).text() for r in range(2)]  # type: ignore[union-attr]
    assert until[0].startswith("levantada el") and until[0].endswith(": Error de identidad")
    assert until[1].startswith("vencida el")
    screenshot(dialog, "bans-history-es")
    dialog.filter_edit.setText("García")  # accents and case aside
    assert [b.ban_id for b in dialog.visible_bans()] == [garcia.ban_id]
    dialog.filter_edit.setText("director2 identidad")  # every word, any column
    assert [b.ban_id for b in dialog.visible_bans()] == []
    dialog.filter_edit.setText("director1 simbolos")
    assert [b.ban_id for b in dialog.visible_bans()] == [never.ban_id]
    dialog.filter_edit.clear()
    assert len(dialog.visible_bans()) == 2
    written = ("BAN_ADD", "BAN_LIFT")
    readings = [
        (e.action, e.actor, e.subject)
        for e in demo_ctx.store.audit_entries()
        if e.action.startswith("BAN_") and e.action not in written
    ]
    assert readings == [
        ("BAN_LIST", "director1", "results:1"),
        ("BAN_HISTORY", "director1", "results:2"),
    ]
    assert dni(23456789) not in repr(readings)


def test_the_list_in_english(qtbot: QtBot, demo_ctx: AppContext) -> None:
    english()
    visited(demo_ctx, 12345678, "PEÑA NÚÑEZ", "JOSÉ")
    demo_ctx.desk.add_ban(
        dni_document(12345678, today=madrid_date(demo_ctx.clock.now())).identity,
        "Threats to the staff",
        "director1",
    )
    dialog = director_list(qtbot, demo_ctx)
    assert dialog.history_button.text().replace("&", "") == "History"
    dialog.show_all()
    header = dialog.table.horizontalHeaderItem(1)
    assert header is not None and header.text() == "Name"
    screenshot(dialog, "bans-list-en")


def test_the_clerk_reads_the_ban_in_english(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> None:
    english()
    identity = dni_document(12345678, today=madrid_date(demo_ctx.clock.now())).identity
    demo_ctx.desk.add_ban(identity, "Threats to the staff", "director1")
    win = make_window(qtbot, demo_ctx, session)
    try:
        present(qtbot, win, demo_ctx, 12345678)
        shown = win.identity.bans.text()
        assert shown.startswith("In force: “Threats to the staff”, decided by director1 on ")
        assert shown.endswith("with no end date")
        screenshot(win, "ban-at-the-counter-en")
    finally:
        win.stop()

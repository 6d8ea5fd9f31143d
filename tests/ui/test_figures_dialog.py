"""The director's figures (art. 14.1.b) on the real demo file: admissions per hour and
per day, card types, revenue and refusals by reason, as charts and totals over a chosen
range; a clerk's session asks the director's own credentials; every reading is audited."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from PySide6.QtCore import QDate
from pytestqt.qtbot import QtBot

from admission.catalogue import text
from admission.clock import FixedClock
from tests.ui.conftest import CLERK, DIRECTOR, NOBODY_LISTED, FakeSession, refresh_register
from tests.ui.report_helpers import admit_at, report_service, screenshot
from ui.context import AppContext
from ui.desk.dialogs.figures import FiguresDialog
from ui.desk.jobs import ImmediateRunner

TODAY = date(2026, 12, 3)


# the first seeded evening: the file is built then, its history written in time order
FIRST_EVENING = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)


def seed(ctx: AppContext, clock: FixedClock) -> None:
    """Admissions over three evenings at several hours, two card types, one refusal, in
    time order on a file built on the first evening (``FIRST_EVENING``); the RIAJ copy
    is refreshed before each evening, as the desk's daily import does (art. 20.2)."""
    visits: list[tuple[datetime, int]] = []
    number = 10000000
    for days_ago, hours in ((2, (18, 19)), (1, (20, 20, 21)), (0, (19, 20, 20, 22))):
        for hour in hours:
            number += 1
            at = datetime(2026, 12, 3, hour - 1, 5, tzinfo=UTC) - timedelta(days=days_ago)
            visits.append((at, number))
    # the listed person of the test register: refused (art. 21.1)
    visits.append((datetime(2026, 12, 3, 18, 30, tzinfo=UTC), 0))
    refreshed: set[date] = set()
    for at, number in sorted(visits):
        if at.date() not in refreshed:
            refreshed.add(at.date())
            clock.set(at - timedelta(minutes=5))
            refresh_register(ctx, [NOBODY_LISTED])
        kind = "WEEK" if number % 3 == 0 and number else None
        given = "ABCDEFGHIJKLMNOP"[number % 16] * 3
        surname = "LISTADO" if number == 0 else "PRUEBA"
        admit_at(ctx, clock, at, number, (surname, given), kind)
    clock.set(datetime(2026, 12, 3, 22, 0, tzinfo=UTC))


def make_dialog(qtbot: QtBot, ctx: AppContext) -> FiguresDialog:
    dialog = FiguresDialog(
        report_service(ctx),
        ImmediateRunner(),
        DIRECTOR,
        TODAY,
        catalogue=ctx.desk.config.catalogue,
    )
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


@pytest.mark.parametrize("desk_clock", [FIRST_EVENING], indirect=True)
def test_the_figures_of_a_range_are_charted_with_their_totals(
    qtbot: QtBot, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    seed(demo_ctx, desk_clock)
    dialog = make_dialog(qtbot, demo_ctx)
    dialog.load()
    figures = dialog.figures
    assert figures is not None and figures.admissions == 9 and figures.refused == 1
    assert "Admisiones: 9" in dialog.totals.text() and "Denegaciones: 1" in dialog.totals.text()
    hours = dict(dialog.per_hour.bars())
    assert len(hours) == 24 and hours["20"] == 2 + 2 and hours["19"] == 2 and hours["22"] == 1
    days = dialog.per_day.bars()
    assert [d for d, _n in days] == ["27/11", "28/11", "29/11", "30/11", "01/12", "02/12", "03/12"]
    assert dict(days)["03/12"] == 4
    labels = dict(dialog.card_types.bars())
    assert sum(labels.values()) == 9 and "Entrada de un día" in labels
    assert dialog.revenue.bars() and all(v > 0 for _l, v in dialog.revenue.bars())
    refusal_labels = [label for label, _n in dialog.refusals.bars()]
    assert refusal_labels and all(label == label.strip() for label in refusal_labels)
    assert not any(label.isupper() and "_" in label for label in refusal_labels)  # text, not codes
    for chart in dialog.charts():
        assert chart.accessibleName() and chart.accessibleDescription()
    assert "20: 4" in dialog.per_hour.accessibleDescription()
    audit = [e for e in demo_ctx.store.audit_entries(limit=10_000) if e.actor == "director1"]
    assert audit, "the reading of the figures is audited"
    dialog.resize(1100, 900)
    screenshot(dialog, "figures")


def test_a_range_the_service_refuses_shows_its_text(qtbot: QtBot, demo_ctx: AppContext) -> None:
    dialog = make_dialog(qtbot, demo_ctx)
    dialog.from_edit.setDate(QDate(2026, 12, 3))
    dialog.to_edit.setDate(QDate(2026, 12, 1))
    dialog.load()
    assert dialog.errors.code == "REPORT_DATE_INVALID"
    assert dialog.errors.text() == text("REPORT_DATE_INVALID", "es")
    assert dialog.show_button.isEnabled()  # still usable
    dialog.week_button.click()
    assert dialog.errors.code == "" and dialog.figures is not None


def test_a_clerk_is_refused_by_the_service(qtbot: QtBot, demo_ctx: AppContext) -> None:
    dialog = FiguresDialog(report_service(demo_ctx), ImmediateRunner(), CLERK, TODAY)
    qtbot.addWidget(dialog)
    dialog.load()
    assert dialog.errors.code == "REPORT_ROLE_REQUIRED" and dialog.figures is None


def test_the_menu_asks_a_director_when_a_clerk_is_signed_in(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    from tests.ui.test_desk_menus import make_window

    if getattr(demo_ctx, "reports", None) is None:
        import pytest

        pytest.skip("the context has no report service yet")
    win = make_window(qtbot, demo_ctx, FakeSession(CLERK))  # authorise answers DIRECTOR
    try:
        assert win.menus is not None
        dialog = win.menus.direction.open_figures()
        assert isinstance(dialog, FiguresDialog) and dialog.figures is not None
        dialog.reject()
    finally:
        win.stop()


def test_reentries_and_the_not_admitted_are_totalled_apart_from_refusals(
    qtbot: QtBot, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    """art. 22: a re-entry on the card held is no refusal and no visit; a register that
    cannot be checked (art. 20.1-2) is no refusal either."""
    evening = datetime(2026, 12, 3, 19, 30, tzinfo=UTC)  # after the register's import
    admit_at(demo_ctx, desk_clock, evening, 10000001, ("PRUEBA", "AAA"))
    refused = admit_at(demo_ctx, desk_clock, evening + timedelta(minutes=15), 0, ("LISTADO", "B"))
    assert refused.verdict.codes == ("REGISTRY_LISTED",)
    back = admit_at(demo_ctx, desk_clock, evening + timedelta(hours=1), 10000001, ("PRUEBA", "AAA"))
    assert back.reentry  # out for a smoke and back on the card held
    later = evening + timedelta(hours=25)  # the register copy is past its age by now
    unchecked = admit_at(demo_ctx, desk_clock, later, 10000002, ("PRUEBA", "CCC"))
    assert unchecked.verdict.codes == ("REGISTRY_UNVERIFIABLE",)
    dialog = FiguresDialog(
        report_service(demo_ctx),
        ImmediateRunner(),
        DIRECTOR,
        date(2026, 12, 4),
        catalogue=demo_ctx.desk.config.catalogue,
    )
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.load()
    figures = dialog.figures
    assert figures is not None
    assert (figures.admissions, figures.refused, figures.visitors) == (1, 1, 3)
    assert (figures.reentries, figures.not_admitted) == (1, 1)
    totals = dialog.totals.text()
    assert "Admisiones: 1" in totals and "Denegaciones: 1" in totals
    assert "Reentradas con su tarjeta (no son visitas): 1" in totals
    assert "No admitidos sin denegación (RIAJ no disponible, descartados): 1" in totals

"""Data protection on the real demo file (art. 20.4; GDPR arts. 15, 16): the director
rectifies a visitor's name - and the inspector's search then finds the new one - or an
observation; a clerk is refused by the service; the retention view shows totals, the
next purge and the counts per month as a table and a chart; the access-request report
is written where the director chose."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.clock import FixedClock
from admission.data_protection import DataProtectionService
from admission.inspection import InspectionService
from admission.records import Observation, Visitor
from tests.factories import dni
from tests.ui.conftest import CLERK, DIRECTOR, NOBODY_LISTED, FakeSession, refresh_register
from tests.ui.report_helpers import admit_at, report_service, screenshot
from ui.context import AppContext
from ui.desk.dialogs.data_protection import AccessReportDialog, RectificationDialog, RetentionDialog
from ui.desk.dialogs.inspection import InspectionScreen
from ui.desk.inspection_controller import InspectionController
from ui.desk.jobs import ImmediateRunner

RUNNER = ImmediateRunner()
INSPECTOR = Operator("inspector1", "Inspectora Uno", frozenset({Role.INSPECTOR}))
ADMIN = Operator("admin1", "Admin One", frozenset({Role.ADMIN}))
PURPOSE = "Solicitud de rectificación nº 4/2026"


def lookup(ctx: AppContext):  # type: ignore[no-untyped-def]
    reports = report_service(ctx)

    def find(operator: Operator, purpose: str, number: int) -> tuple[Visitor, list[Observation]]:
        report = reports.access_report(operator, purpose, file_number=number)
        return report.visitor, list(report.observations)

    return find


@pytest.fixture
def visitor(demo_ctx: AppContext, desk_clock: FixedClock) -> Visitor:
    result = admit_at(
        demo_ctx,
        desk_clock,
        datetime(2026, 12, 3, 19, 0, tzinfo=UTC),
        12345678,
        ("GARCIA LOPEZ", "ANA"),
    )
    number = result.recorded.file_number
    demo_ctx.store.add_observation(
        number, "Acompañada de menor en la puerta", "clerk1", demo_ctx.clock.now()
    )
    found = demo_ctx.store.visitor(number)
    assert found is not None
    return found


def rectification(qtbot: QtBot, ctx: AppContext, operator: Operator) -> RectificationDialog:
    dialog = RectificationDialog(
        DataProtectionService(ctx.store, ctx.clock), lookup(ctx), RUNNER, operator
    )
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_the_director_rectifies_a_name_and_the_search_finds_the_new_one(
    qtbot: QtBot, demo_ctx: AppContext, visitor: Visitor
) -> None:
    dialog = rectification(qtbot, demo_ctx, DIRECTOR)
    assert not dialog.name_button.isEnabled()  # nothing loaded yet
    dialog.file_edit.setText(str(visitor.file_number))
    dialog.purpose_edit.setText(PURPOSE)
    dialog.load_button.click()
    assert dialog.visitor is not None and dialog.surname_edit.text() == "GARCIA LOPEZ"
    assert dialog.obs_table.rowCount() == 1
    dialog.surname_edit.setText("GARCÍA LÓPEZ-SANZ")
    dialog.name_button.click()  # no reason: refused by the service
    assert dialog.errors.code == "RECTIFY_REASON_INVALID"
    assert dialog.errors.text() == text("RECTIFY_REASON_INVALID", "es")
    dialog.name_reason.setPlainText("El interesado aporta su DNI: segundo apellido compuesto")
    dialog.name_button.click()
    assert dialog.errors.code == "", dialog.errors.text()
    kept = demo_ctx.store.visitor(visitor.file_number)
    assert kept is not None and kept.surname == "GARCÍA LÓPEZ-SANZ"
    assert "GARCÍA LÓPEZ-SANZ" in dialog.current.text()
    trail = [e for e in demo_ctx.store.audit_entries(limit=10_000) if e.actor == "director1"]
    assert trail and "SANZ" not in str([dict(e.details) for e in trail])  # hashed, never clear

    # the inspector's search finds the person by the new name
    controller = InspectionController(
        RUNNER,
        FakeSession(INSPECTOR),
        InspectionService(demo_ctx.store, demo_ctx.store, demo_ctx.clock),
    )
    screen = InspectionScreen(controller, demo_ctx.tools.today)
    qtbot.addWidget(screen)
    screen.purpose_edit.setText("Comprobación tras rectificación")
    screen.name_edit.setText("sanz")
    screen.search()
    assert [v.file_number for v in screen.results.visitors] == [visitor.file_number]
    screen.name_edit.setText(dni(12345678))
    screen.name_edit.clear()
    screen.id_edit.setText(dni(12345678))
    screen.search()
    assert [v.surname for v in screen.results.visitors] == ["GARCÍA LÓPEZ-SANZ"]


def test_the_director_rectifies_an_observation(
    qtbot: QtBot, demo_ctx: AppContext, visitor: Visitor
) -> None:
    dialog = rectification(qtbot, demo_ctx, DIRECTOR)
    dialog.file_edit.setText(str(visitor.file_number))
    dialog.purpose_edit.setText(PURPOSE)
    dialog.load()
    assert dialog.obs_text.toPlainText() == "Acompañada de menor en la puerta"
    dialog.obs_text.setPlainText("Acompañada de un adulto en la puerta")
    dialog.obs_reason.setPlainText("Error de transcripción comprobado en el vídeo")
    dialog.obs_button.click()
    assert dialog.errors.code == "", dialog.errors.text()
    texts = [o.text for o in demo_ctx.store.observations(visitor.file_number)]
    assert texts == ["Acompañada de un adulto en la puerta"]
    screenshot(dialog, "rectification")


def test_a_clerk_cannot_rectify(qtbot: QtBot, demo_ctx: AppContext, visitor: Visitor) -> None:
    dialog = rectification(qtbot, demo_ctx, CLERK)
    dialog.file_edit.setText(str(visitor.file_number))
    dialog.purpose_edit.setText(PURPOSE)
    dialog.load()  # the access report's read is the director's too
    assert dialog.visitor is None and dialog.errors.code == "REPORT_ROLE_REQUIRED"
    service = DataProtectionService(demo_ctx.store, demo_ctx.clock)
    dialog._loaded((visitor, []))  # even with the file on screen, the service refuses
    dialog.surname_edit.setText("OTRO")
    dialog.name_reason.setPlainText("Motivo suficiente")
    dialog.name_button.click()
    assert dialog.errors.code == "RECTIFY_ROLE_REQUIRED"
    kept = demo_ctx.store.visitor(visitor.file_number)
    assert kept is not None and kept.surname == "GARCIA LOPEZ"
    del service


def test_a_missing_file_number_is_asked_for(qtbot: QtBot, demo_ctx: AppContext) -> None:
    dialog = rectification(qtbot, demo_ctx, DIRECTOR)
    dialog.load()
    assert dialog.errors.code == "FIELD_REQUIRED"


# -- retention -------------------------------------------------------------------------------
AUGUST_EVENING = datetime(2026, 8, 14, 19, 55, tzinfo=UTC)


@pytest.mark.parametrize("desk_clock", [AUGUST_EVENING], indirect=True)
@pytest.mark.parametrize("who", [DIRECTOR, ADMIN, INSPECTOR])
def test_the_retention_view_shows_totals_months_and_the_next_purge(
    qtbot: QtBot, demo_ctx: AppContext, desk_clock: FixedClock, who: Operator
) -> None:
    # the file is built in August and its history written in time order, the RIAJ copy
    # refreshed before each evening's visit (art. 20.2)
    for month, number in ((8, 11111111), (10, 22222222), (11, 33333333)):
        evening = datetime(2026, month, 14, 20, 0, tzinfo=UTC)
        desk_clock.set(evening - timedelta(minutes=5))
        refresh_register(demo_ctx, [NOBODY_LISTED])
        admit_at(demo_ctx, desk_clock, evening, number, ("PRUEBA", "ANA"))
    desk_clock.set(datetime(2026, 12, 3, 19, 0, tzinfo=UTC))
    dialog = RetentionDialog(DataProtectionService(demo_ctx.store, demo_ctx.clock), RUNNER, who)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.load()
    overview = dialog.overview
    assert overview is not None and overview.visits == 3
    assert "Visitas: 3" in dialog.summary() and dialog.values["visits"].text() == "3"
    assert "Próxima purga" in dialog.purge.text()
    items = [dialog.table.item(r, 0) for r in range(dialog.table.rowCount())]
    months = [item.text() for item in items if item is not None]
    assert months[0] == "2026-08" and months[-1] == "2026-12"
    visits = dict(dialog.chart.bars())
    assert visits["2026-08"] == 1 and visits["2026-09"] == 0 and visits["2026-11"] == 1
    assert "2026-10: 1" in dialog.chart.accessibleDescription()
    if who is DIRECTOR:
        dialog.resize(1040, 560)
        screenshot(dialog, "retention")


def test_a_clerk_does_not_see_the_retention_view(qtbot: QtBot, demo_ctx: AppContext) -> None:
    dialog = RetentionDialog(DataProtectionService(demo_ctx.store, demo_ctx.clock), RUNNER, CLERK)
    qtbot.addWidget(dialog)
    dialog.load()
    assert dialog.overview is None and dialog.errors.code == "RETENTION_ROLE_REQUIRED"


# -- the access-request report ----------------------------------------------------------------
def test_the_access_report_is_written_where_the_director_chose(
    qtbot: QtBot, demo_ctx: AppContext, visitor: Visitor, tmp_path: Path
) -> None:
    chosen = tmp_path / "entrega" / "informe.pdf"
    chosen.parent.mkdir()
    asked: list[str] = []

    def ask(_title: str, name: str, _filters: str) -> Path:
        asked.append(name)
        return chosen

    dialog = AccessReportDialog(
        demo_ctx.reports,
        demo_ctx.export_target,
        RUNNER,
        DIRECTOR,
        demo_ctx.tools.today(),
        ask_path=ask,
    )
    qtbot.addWidget(dialog)
    dialog.id_edit.setText(dni(12345678))
    dialog.purpose_edit.setText("Solicitud de acceso 7/2026")
    dialog.export_button.click()
    assert dialog.errors.code == "", dialog.errors.text()
    assert chosen.read_bytes().startswith(b"%PDF")
    assert asked == ["informe-acceso-2026-12-03.pdf"]  # a date, never a name


def test_a_clerk_gets_no_access_report(
    qtbot: QtBot, demo_ctx: AppContext, visitor: Visitor, tmp_path: Path
) -> None:
    chosen = tmp_path / "informe.pdf"
    dialog = AccessReportDialog(
        demo_ctx.reports,
        demo_ctx.export_target,
        RUNNER,
        CLERK,
        demo_ctx.tools.today(),
        ask_path=lambda _t, _n, _f: chosen,
    )
    qtbot.addWidget(dialog)
    dialog.file_edit.setText(str(visitor.file_number))
    dialog.purpose_edit.setText("Solicitud de acceso 7/2026")
    dialog.export_button.click()
    assert dialog.errors.code == "REPORT_ROLE_REQUIRED" and not chosen.exists()


# -- from the menus ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("keys", "kind"),
    [
        ("Ctrl+Shift+C", "FiguresDialog"),
        ("Ctrl+Shift+N", "RectificationDialog"),
        ("Ctrl+Shift+A", "AccessReportDialog"),
        ("Ctrl+Shift+R", "RetentionDialog"),
    ],
)
def test_the_director_opens_each_dialog_by_its_shortcut(
    qtbot: QtBot, demo_ctx: AppContext, keys: str, kind: str
) -> None:
    from PySide6.QtGui import QKeySequence
    from PySide6.QtTest import QTest

    from tests.ui.test_desk_menus import make_window

    win = make_window(qtbot, demo_ctx, FakeSession(DIRECTOR))
    try:
        assert win.menus is not None
        QTest.keySequence(win, QKeySequence(keys))
        dialog = win.menus.dialog
        assert dialog is not None and type(dialog).__name__ == kind
        qtbot.waitUntil(dialog.isVisible)
        assert dialog.accessibleName()
        errors = getattr(dialog, "errors", None)
        assert errors is None or errors.code == "", errors.text()
        dialog.reject()
    finally:
        win.stop()


def test_a_clerk_asks_the_director_for_the_retention_view(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    from tests.ui.test_desk_menus import make_window

    win = make_window(qtbot, demo_ctx, FakeSession(CLERK))  # authorise answers DIRECTOR
    try:
        assert win.menus is not None
        assert not win.menus.file_actions["retention"].isVisible()  # not offered to a clerk
        dialog = win.menus.inspection.open_retention()
        assert isinstance(dialog, RetentionDialog) and dialog.overview is not None
        dialog.reject()
    finally:
        win.stop()

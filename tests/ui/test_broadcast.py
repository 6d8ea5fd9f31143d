"""The desk's one change broadcast (``DeskOperations.operation_did_execute``) reaches the
screens that show what a write changed: they read again by subscribing, nobody calls
their refresh. A reading is no write and broadcasts nothing, nor does a failed write;
the settings saved are announced once, by key, only when a value changed."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from admission.data_protection import DataProtectionService
from admission.errors import AdmissionError
from admission.inspection import InspectionService
from admission.ports import madrid_date
from admission.records import Visitor
from admission.settings import Settings
from tests.factories import dni_document
from tests.ui.conftest import CLERK, DIRECTOR, FakeSession
from tests.ui.report_helpers import report_service
from tests.ui.test_data_protection_dialogs import (  # noqa: F401  # the visitor fixture
    PURPOSE,
    lookup,
    visitor,
)
from tests.ui.test_desk_menus import make_window, menus_of, show_verdict
from tests.ui.test_dialogs_crowd import document as night_document
from tests.ui.test_dialogs_crowd import night_ctx  # noqa: F401  # the fixture
from ui.context import AppContext
from ui.desk.changes import DeskOperations, OpChanges
from ui.desk.dialogs.data_protection import RectificationDialog
from ui.desk.dialogs.figures import FiguresDialog
from ui.desk.dialogs.inspection import InspectionScreen
from ui.desk.dialogs.settings import SettingsDialog
from ui.desk.dialogs.vouchers import VouchersDialog
from ui.desk.inspection_controller import InspectionController
from ui.desk.jobs import ImmediateRunner
from ui.desk.ops import vouchers as voucher_ops
from ui.desk.ops.settings import SettingsOps

RUNNER = ImmediateRunner()
ADMIN = Operator("admin1", "Admin One", frozenset({Role.ADMIN}))
VISIT = OpChanges(admissions=True)


def listened(operations: DeskOperations) -> list[OpChanges]:
    heard: list[OpChanges] = []
    operations.operation_did_execute.connect(lambda changes, _origin: heard.append(changes))
    return heard


def test_a_rectification_reaches_the_inspectors_screen_showing_that_person(
    qtbot: QtBot,
    demo_ctx: AppContext,
    visitor: Visitor,  # noqa: F811  # the fixture imported above
) -> None:
    operations = DeskOperations(RUNNER)
    heard = listened(operations)
    controller = InspectionController(
        RUNNER,
        FakeSession(DIRECTOR),
        InspectionService(demo_ctx.store, demo_ctx.store, demo_ctx.clock),
    )
    screen = InspectionScreen(controller, demo_ctx.tools.today)
    qtbot.addWidget(screen)
    screen.show()
    operations.operation_did_execute.connect(screen.changed)
    screen.purpose_edit.setText("Comprobación de la ficha")
    screen.file_edit.setText(str(visitor.file_number))
    screen.search()
    screen.results_view.setCurrentIndex(screen.results.index(0, 0))
    screen.show_timeline()
    assert "GARCIA LOPEZ" in screen.person_label.text()

    dialog = RectificationDialog(
        DataProtectionService(demo_ctx.store, demo_ctx.clock),
        lookup(demo_ctx),
        RUNNER,
        DIRECTOR,
        writes=operations.runner_for(OpChanges(people=True)),
    )
    qtbot.addWidget(dialog)
    dialog.file_edit.setText(str(visitor.file_number))
    dialog.purpose_edit.setText(PURPOSE)
    dialog.load()
    assert dialog.visitor is not None and heard == []  # a reading is no write
    dialog.surname_edit.setText("GARCÍA LÓPEZ-SANZ")
    dialog.name_reason.setPlainText("El interesado aporta su DNI: segundo apellido compuesto")
    dialog.rectify_name()
    assert dialog.errors.code == "", dialog.errors.text()
    assert heard == [OpChanges(people=True)]
    # the screen read the person again, under the purpose it showed them with
    assert "GARCÍA LÓPEZ-SANZ" in screen.person_label.text()
    assert controller.timeline_purpose == "Comprobación de la ficha"

    # the inspector has left the screen (signed out, the desk shown again): a change
    # no longer reads, so no inspection query is recorded in their name (art. 20.4)
    screen.hide()
    dialog.surname_edit.setText("GARCÍA LÓPEZ")
    dialog.name_reason.setPlainText("Error al transcribir la rectificación anterior")
    dialog.rectify_name()
    assert dialog.errors.code == "", dialog.errors.text()
    assert heard == [OpChanges(people=True)] * 2
    assert "GARCÍA LÓPEZ-SANZ" in screen.person_label.text()  # not read again


class CountingFigures:
    def __init__(self, ctx: AppContext) -> None:
        self._reports = report_service(ctx)
        self.asked: list[tuple[date, date]] = []

    def figures(self, operator: Operator, date_from: date, date_to: date) -> Any:
        self.asked.append((date_from, date_to))
        return self._reports.figures(operator, date_from, date_to)


def test_a_visit_recorded_reaches_the_figures_shown_and_only_them(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    operations = DeskOperations(RUNNER)
    today = madrid_date(demo_ctx.clock.now())
    reports = CountingFigures(demo_ctx)
    dialog = FiguresDialog(reports, RUNNER, DIRECTOR, today)
    qtbot.addWidget(dialog)
    operations.operation_did_execute.connect(dialog.changed)

    operations.announce(VISIT)
    assert reports.asked == []  # nothing shown yet: nothing to read again
    dialog.load()
    week = (today - timedelta(days=6), today)
    assert reports.asked == [week]
    before = dialog.figures.admissions
    dialog.from_edit.setDate(dialog.from_edit.date().addDays(-30))  # typed, not shown

    document = dni_document(12345678, surname="GARCIA LOPEZ", given_names="ANA", today=today)
    operations.write(
        VISIT, lambda: demo_ctx.desk.admit(document, operator=CLERK.username), lambda _: None
    )
    assert reports.asked == [week, week]  # the days shown, not the days typed
    assert dialog.figures.admissions == before + 1

    operations.announce(OpChanges(queue=True))  # not what the figures show

    def refused() -> object:
        raise AdmissionError("refused", code="CARD_NOT_FOUND")

    operations.write(VISIT, refused, lambda _: None, lambda _err: None)  # wrote nothing
    operations.write(VISIT, lambda: None, lambda _: None)  # a stale verdict: nothing written
    assert reports.asked == [week, week]


def test_the_settings_saved_are_announced_by_key_only_when_a_value_changed(
    qtbot: QtBot, tmp_path: Path
) -> None:
    heard: list[list[str]] = []
    settings, path = Settings({"casino.name": "Casino de prueba"}), tmp_path / "settings.json"
    ops = SettingsOps(settings, path, announce=heard.append)
    dialog = SettingsDialog(ops, ADMIN, RUNNER)
    qtbot.addWidget(dialog)
    dialog.casino.name.setText("Casino del Sol")
    with qtbot.waitSignal(dialog.saved, timeout=1000) as saved:
        assert dialog.save() is True
    assert "casino.name" in saved.args[0]
    assert heard == [saved.args[0]]  # once, the keys the shell audits
    assert settings["casino.name"] == "Casino del Sol"

    again = SettingsDialog(ops, ADMIN, RUNNER)
    qtbot.addWidget(again)
    assert again.save() is True
    assert len(heard) == 1  # nothing changed: nothing to apply


def test_the_figures_opened_from_the_menu_follow_the_desks_writes(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    window = make_window(qtbot, demo_ctx, FakeSession(DIRECTOR))
    try:
        dialog = menus_of(window).direction.open_figures()
        assert dialog is not None and dialog.figures is not None
        before = dialog.figures.admissions
        today = madrid_date(demo_ctx.clock.now())
        document = dni_document(12345678, surname="GARCIA LOPEZ", given_names="ANA", today=today)
        window.controller.operations.write(
            VISIT, lambda: demo_ctx.desk.admit(document, operator=CLERK.username), lambda _: None
        )
        assert dialog.figures.admissions == before + 1  # nobody pressed "Mostrar"
    finally:
        window.stop()


def test_an_official_recorded_from_the_menu_is_counted_at_once(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    window = make_window(qtbot, demo_ctx, FakeSession(CLERK))
    try:
        show_verdict(window, demo_ctx, "admitted")
        dialog = menus_of(window).desk.open_official()
        assert dialog is not None
        dialog.capacity.setCurrentText("Agente de la Policía Nacional")
        # the desk's counters are read again on the broadcast, not on their 30 s timer
        with qtbot.waitSignal(window.controller.counters_changed, timeout=1000):
            dialog.record()
        assert dialog.recorded is not None
    finally:
        window.stop()


def test_a_voucher_formalised_is_broadcast_and_its_listing_is_not(
    qtbot: QtBot,
    night_ctx: AppContext,  # noqa: F811  # the fixture imported above
) -> None:
    operations = DeskOperations(RUNNER)
    heard = listened(operations)
    shown = night_document(night_ctx)
    issued = voucher_ops.of(night_ctx).issue(shown, "DAY", CLERK.username, printing=False)
    assert issued.issue.voucher is not None
    written = OpChanges(admissions=True, cards=True)
    pending = VouchersDialog(
        voucher_ops.of(night_ctx),
        RUNNER,
        operator=CLERK.username,
        document=lambda: shown,
        writes=operations.runner_for(written),
    )
    qtbot.addWidget(pending)
    assert pending.open_numbers() == [issued.issue.voucher.number]
    assert heard == []  # the listing is an audited reading, no write
    with qtbot.waitSignal(pending.card_issued, timeout=5000):
        pending.formalise_button.click()
    assert heard == [written]

"""The gaming inspector's screen on the real demo file (art. 20.4): a search finds the
right people, the purpose is required, one person's visits are shown, each query is
audited under the inspector; exports go where the operator chose and a failing export
writes nothing and leaves the screen usable. An inspector-only sign-in opens this
screen instead of the admission desk, and a clerk is never offered the menu."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.desk import AdmissionResult
from admission.inspection import InspectionService
from admission.ports import madrid_date
from tests.factories import dni, dni_document
from tests.ui.conftest import CLERK, DIRECTOR, FakeSession
from tests.ui.report_helpers import screenshot
from tests.ui.test_translations import english  # noqa: F401  # the English fixture
from ui.context import AppContext
from ui.desk.controller import DeskState
from ui.desk.desk_window import MENU_ADMIN, MENU_DESK, MENU_DIRECTION, DeskWindow
from ui.desk.dialogs.inspection import InspectionDialog, InspectionScreen, default_export_name
from ui.desk.dialogs.manual_entry import ManualEntryDialog
from ui.desk.host import MENU_INSPECTION
from ui.desk.inspection_controller import InspectionController
from ui.desk.jobs import ImmediateRunner

INSPECTOR = Operator("inspector1", "Inspectora Uno", frozenset({Role.INSPECTOR}))
PURPOSE = "Expediente 12/2026 de la inspección"


def admit(ctx: AppContext, number: int, surname: str, given: str) -> AdmissionResult:
    today = madrid_date(ctx.clock.now())
    document = dni_document(number, surname=surname, given_names=given, today=today)
    return ctx.desk.admit(document, operator=CLERK.username)


@pytest.fixture
def people(demo_ctx: AppContext) -> list[AdmissionResult]:
    return [
        admit(demo_ctx, 12345678, "GARCIA LOPEZ", "ANA"),
        admit(demo_ctx, 23456789, "MARTIN RUIZ", "PEDRO"),
        admit(demo_ctx, 34567890, "GARCIA PEREZ", "LUIS"),
    ]


def reports_of(ctx: AppContext) -> object | None:
    return getattr(ctx, "reports", None)


def make_screen(
    qtbot: QtBot, ctx: AppContext, operator: Operator | None = INSPECTOR
) -> InspectionScreen:
    controller = InspectionController(
        ImmediateRunner(),
        FakeSession(operator),
        InspectionService(ctx.store, ctx.store, ctx.clock),
        reports=reports_of(ctx),  # type: ignore[arg-type]
        export_target=getattr(ctx, "export_target", None),
    )
    screen = InspectionScreen(controller, lambda: madrid_date(ctx.clock.now()))
    qtbot.addWidget(screen)
    screen.resize(1100, 720)
    screen.show()
    return screen


def audit(ctx: AppContext) -> list[tuple[str, str, dict[str, str]]]:
    return [(e.action, e.actor, dict(e.details)) for e in ctx.store.audit_entries(limit=10_000)]


def surnames(screen: InspectionScreen) -> list[str]:
    return [v.surname for v in screen.results.visitors]


# -- searching ----------------------------------------------------------------------------
def test_a_search_by_name_shows_the_right_people(
    qtbot: QtBot, demo_ctx: AppContext, people: list[AdmissionResult]
) -> None:
    screen = make_screen(qtbot, demo_ctx)
    screen.name_edit.setText("garcia")
    screen.purpose_edit.setText(PURPOSE)
    screen.search_button.click()
    assert sorted(surnames(screen)) == ["GARCIA LOPEZ", "GARCIA PEREZ"]
    assert screen.results.rowCount() == 2
    row = screen.results.row_texts(0)
    assert row[1].startswith("GARCIA") and row[4] == "ESP"
    entry = [a for a in audit(demo_ctx) if a[0] == "INSPECT_SEARCH"][-1]
    assert entry[1] == "inspector1" and entry[2]["purpose"] == PURPOSE
    assert "garcia" not in str(entry[2]).lower()  # the name only as a keyed hash

    # by identity number, by file number, by card number
    screen.name_edit.clear()
    screen.id_edit.setText(dni(23456789))
    screen.search()
    assert surnames(screen) == ["MARTIN RUIZ"]
    screen.id_edit.clear()
    screen.file_edit.setText(str(people[2].recorded.file_number))
    screen.search()
    assert surnames(screen) == ["GARCIA PEREZ"]
    card = people[0].card
    assert card is not None
    screen.file_edit.clear()
    screen.card_edit.setText(str(card.number))
    screen.search()
    assert surnames(screen) == ["GARCIA LOPEZ"]


def test_the_purpose_is_required(
    qtbot: QtBot, demo_ctx: AppContext, people: list[AdmissionResult]
) -> None:
    screen = make_screen(qtbot, demo_ctx)
    screen.name_edit.setText("garcia")
    before = len(audit(demo_ctx))
    screen.search_button.click()
    assert screen.errors.code == "INSPECT_PURPOSE_INVALID"
    assert screen.errors.text() == text("INSPECT_PURPOSE_INVALID", "es")
    assert screen.results.rowCount() == 0
    assert len(audit(demo_ctx)) == before  # refused before any read
    # the screen stays usable: with a purpose the same search answers
    screen.purpose_edit.setText(PURPOSE)
    screen.search_button.click()
    assert screen.errors.code == "" and screen.results.rowCount() == 2


def test_dates_narrow_the_search_and_any_date_lifts_the_limit(
    qtbot: QtBot, demo_ctx: AppContext, people: list[AdmissionResult]
) -> None:
    screen = make_screen(qtbot, demo_ctx)
    screen.purpose_edit.setText(PURPOSE)
    screen.name_edit.setText("garcia")
    assert screen.any_date.isChecked() and not screen.from_edit.isEnabled()
    screen.any_date.setChecked(False)
    today = madrid_date(demo_ctx.clock.now())
    past = today - timedelta(days=30)
    screen.from_edit.setDate(screen.from_edit.date().fromString(past.isoformat(), "yyyy-MM-dd"))
    screen.to_edit.setDate(
        screen.to_edit.date().fromString((today - timedelta(days=1)).isoformat(), "yyyy-MM-dd")
    )
    screen.search()
    assert screen.results.rowCount() == 0  # they came today
    assert screen.errors.text() == "Nadie coincide con la búsqueda"
    screen.any_date.setChecked(True)
    screen.search()
    assert screen.results.rowCount() == 2


def test_a_refusal_shows_the_catalogue_text(qtbot: QtBot, demo_ctx: AppContext) -> None:
    screen = make_screen(qtbot, demo_ctx)
    screen.purpose_edit.setText(PURPOSE)
    screen.search()  # no criterion
    assert screen.errors.text() == text("INSPECT_NO_CRITERIA", "es")
    # a clerk reaching the screen anyhow is refused by the service
    clerk_screen = make_screen(qtbot, demo_ctx, CLERK)
    clerk_screen.purpose_edit.setText(PURPOSE)
    clerk_screen.name_edit.setText("garcia")
    clerk_screen.search()
    assert clerk_screen.errors.code == "INSPECTOR_ROLE_REQUIRED"
    # nobody signed in: nothing asked
    nobody = make_screen(qtbot, demo_ctx, None)
    nobody.purpose_edit.setText(PURPOSE)
    nobody.name_edit.setText("garcia")
    nobody.search()
    assert nobody.errors.code == "NO_OPERATOR"


def test_the_selected_persons_visits_are_shown(
    qtbot: QtBot, demo_ctx: AppContext, people: list[AdmissionResult]
) -> None:
    screen = make_screen(qtbot, demo_ctx, DIRECTOR)
    screen.purpose_edit.setText(PURPOSE)
    screen.name_edit.setText("martin")
    screen.search()
    assert screen.timeline.rowCount() == 0  # a timeline is its own query
    screen.results_view.setCurrentIndex(screen.results.index(0, 0))
    screen.timeline_button.click()
    assert screen.timeline.rowCount() == 1
    _when, _desk, operator, verdict, _reasons, card = screen.timeline.row_texts(0)
    assert operator == CLERK.username and verdict == "Admitido"
    assert people[1].card is not None and card.startswith(str(people[1].card.number))
    assert "MARTIN RUIZ" in screen.person_label.text()
    assert screen.person_label.textFormat() == Qt.TextFormat.PlainText
    entry = [a for a in audit(demo_ctx) if a[0] == "INSPECT_TIMELINE"][-1]
    assert entry[1] == "director1" and entry[2]["role"] == "DIRECTOR"
    screenshot(screen, "inspector")


def test_the_default_export_name_has_no_personal_data() -> None:
    assert default_export_name("busqueda", date(2026, 12, 3), "pdf") == "busqueda-2026-12-03.pdf"


# -- exports --------------------------------------------------------------------------------
@pytest.fixture
def with_reports(demo_ctx: AppContext) -> None:
    if reports_of(demo_ctx) is None or getattr(demo_ctx, "export_target", None) is None:
        pytest.skip("the context has no report service yet")


needs_reports = pytest.mark.usefixtures("with_reports")


@pytest.fixture
def searched(
    qtbot: QtBot, demo_ctx: AppContext, people: list[AdmissionResult]
) -> Iterator[InspectionScreen]:
    screen = make_screen(qtbot, demo_ctx)
    screen.purpose_edit.setText(PURPOSE)
    screen.name_edit.setText("garcia")
    screen.search()
    screen.results_view.setCurrentIndex(screen.results.index(0, 0))
    screen.show_timeline()
    yield screen


@needs_reports
@pytest.mark.parametrize("what", ["results_pdf", "results_csv", "timeline_pdf", "timeline_csv"])
def test_an_export_writes_the_file_where_chosen(
    searched: InspectionScreen, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    from PySide6.QtWidgets import QFileDialog

    chosen = tmp_path / "out" / f"export.{what[-3:]}"
    chosen.parent.mkdir()
    asked: list[str] = []

    def save_name(_parent: object, _title: str, proposed: str, _filters: str) -> tuple[str, str]:
        asked.append(Path(proposed).name)
        return str(chosen), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_name)
    button = getattr(searched, what)
    assert button.isEnabled()
    button.click()
    assert chosen.is_file() and chosen.stat().st_size > 0
    assert searched.errors.code == "" and chosen.name in searched.errors.text()
    today = date.today().isoformat()[:4]
    assert asked and "GARC" not in asked[0].upper() and asked[0].split("-")[1][:2] == today[:2]
    if what.endswith("pdf"):
        assert chosen.read_bytes().startswith(b"%PDF")


@needs_reports
def test_the_day_book_is_written_where_chosen(
    searched: InspectionScreen, demo_ctx: AppContext, tmp_path: Path
) -> None:
    chosen = tmp_path / "libro.pdf"
    searched.ask_path = lambda _t, name, _f: chosen
    today = madrid_date(demo_ctx.clock.now())
    searched.day_edit.setDate(searched.day_edit.date().fromString(today.isoformat(), "yyyy-MM-dd"))
    searched.day_book.click()
    assert chosen.read_bytes().startswith(b"%PDF")
    # the whole day's names and documents: recorded with the purpose it was taken for
    action, actor, details = audit(demo_ctx)[-1]
    assert (action, actor) == ("REPORT_DAY", INSPECTOR.username)
    assert details["purpose"] == PURPOSE and details["file"] == chosen.name


@needs_reports
def test_the_day_book_asks_for_the_purpose_before_any_file(
    searched: InspectionScreen, demo_ctx: AppContext, tmp_path: Path
) -> None:
    asked: list[str] = []
    searched.ask_path = lambda _t, name, _f: asked.append(name) or tmp_path / "libro.pdf"
    searched.purpose_edit.clear()
    before = audit(demo_ctx)
    searched.day_book.click()
    assert asked == []  # no save dialog without a purpose
    assert searched.errors.code == "INSPECT_PURPOSE_INVALID"
    assert searched.purpose_edit.hasFocus() or not searched.isActiveWindow()
    assert not (tmp_path / "libro.pdf").exists()
    assert audit(demo_ctx) == before  # nothing read, nothing recorded


@needs_reports
def test_a_failing_export_shows_the_message_and_writes_nothing(
    searched: InspectionScreen,
    demo_ctx: AppContext,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import errno
    import os

    folder = tmp_path / "full-disk"
    folder.mkdir()
    chosen = folder / "busqueda.pdf"
    searched.ask_path = lambda _t, _n, _f: chosen
    real_fsync = os.fsync

    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    exports_before = [a for a in audit(demo_ctx) if a[0].startswith("EXPORT")]
    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full)
        searched.results_pdf.click()
    assert os.fsync is real_fsync
    assert searched.errors.code == "EXPORT_DISK_FULL"
    assert searched.errors.text() == text("EXPORT_DISK_FULL", "es")
    assert list(folder.iterdir()) == []  # nothing written, no temporary file left
    assert [a for a in audit(demo_ctx) if a[0].startswith("EXPORT")] == exports_before
    # the screen stays usable: the same export works once the disk has room
    assert searched.search_button.isEnabled() and searched.results_pdf.isEnabled()
    searched.results_pdf.click()
    assert chosen.read_bytes().startswith(b"%PDF") and searched.errors.code == ""


@needs_reports
def test_an_export_never_goes_over_the_visitor_file_but_replaces_a_file_chosen(
    searched: InspectionScreen, demo_ctx: AppContext, tmp_path: Path
) -> None:
    """The save dialog asked before replacing a file: the export replaces it (0600).
    The visitor file and what belongs to it are refused all the same."""
    data = demo_ctx.data_dir
    marker = (data / "visitors.db.marker").read_bytes()
    before = [a for a in audit(demo_ctx) if a[0] == "INSPECT_EXPORT"]
    for name in ("visitors.db", "visitors.db-wal", "visitors.db.marker"):
        target = data / name
        searched.ask_path = lambda _t, _n, _f: target  # noqa: B023 (used at once)
        searched.results_pdf.click()
        assert searched.errors.code == "OUTPUT_PROTECTED", name
        assert searched.errors.text() == text("OUTPUT_PROTECTED", "es")
    assert (data / "visitors.db.marker").read_bytes() == marker
    assert not (data / "visitors.db").read_bytes().startswith(b"%PDF")
    assert [a for a in audit(demo_ctx) if a[0] == "INSPECT_EXPORT"] == before
    chosen = tmp_path / "busqueda.pdf"
    chosen.write_bytes(b"an older export")
    searched.ask_path = lambda _t, _n, _f: chosen
    searched.results_pdf.click()
    assert searched.errors.code == "" and chosen.read_bytes().startswith(b"%PDF")
    assert chosen.stat().st_mode & 0o077 == 0


def test_a_cancelled_file_dialog_exports_nothing(
    searched: InspectionScreen, demo_ctx: AppContext
) -> None:
    searched.ask_path = lambda _t, _n, _f: None
    before = len(audit(demo_ctx))
    searched.export_results("pdf")
    assert len(audit(demo_ctx)) == before and searched.errors.code == ""


# -- who is offered the screen ------------------------------------------------------------------
def window_for(qtbot: QtBot, ctx: AppContext, session: object) -> DeskWindow:
    from tests.ui.test_desk_menus import make_window

    return make_window(qtbot, ctx, session)


def test_a_clerk_is_never_offered_the_inspection_menu(qtbot: QtBot, demo_ctx: AppContext) -> None:
    win = window_for(qtbot, demo_ctx, FakeSession(CLERK))
    try:
        menus = win.menus
        assert menus is not None
        assert not win.menu(MENU_INSPECTION).menuAction().isVisible()
        assert not menus.file_actions["inspection"].isVisible()
        QTest.keySequence(win, QKeySequence("Ctrl+Shift+F"))
        assert menus.dialog is None
        assert menus.inspection.open_inspection() is None  # asked directly: refused by role
        assert win.status.currentMessage() == text("INSPECTOR_ROLE_REQUIRED", "es")
        assert win.pages.currentWidget() is win.desk_page
    finally:
        win.stop()


def test_the_director_reaches_the_screen_from_the_inspection_menu(
    qtbot: QtBot, demo_ctx: AppContext, people: list[AdmissionResult]
) -> None:
    win = window_for(qtbot, demo_ctx, FakeSession(DIRECTOR))
    try:
        menus = win.menus
        assert menus is not None
        action = menus.file_actions["inspection"]
        assert win.menu(MENU_INSPECTION).menuAction().isVisible() and action.isVisible()
        assert action in win.menu(MENU_INSPECTION).actions()
        assert action.shortcut() == QKeySequence("Ctrl+Shift+F")
        for name, keys in (
            ("figures", "Ctrl+Shift+C"),
            ("rectify", "Ctrl+Shift+N"),
            ("access_report", "Ctrl+Shift+A"),
            ("retention", "Ctrl+Shift+R"),
        ):
            assert menus.file_actions[name].shortcut() == QKeySequence(keys), name
            assert menus.file_actions[name] in win.menu(MENU_DIRECTION).actions(), name
        shortcuts = [a.shortcut().toString() for a in win.actions() if not a.shortcut().isEmpty()]
        assert len(shortcuts) == len(set(shortcuts)), "no two actions share a key"
        QTest.keySequence(win, QKeySequence("Ctrl+Shift+F"))
        dialog = menus.dialog
        assert isinstance(dialog, InspectionDialog)
        qtbot.waitUntil(dialog.isVisible)
        screen = dialog.screen_widget
        screen.purpose_edit.setText(PURPOSE)
        screen.name_edit.setText("garcia")
        screen.search()
        assert screen.results.rowCount() == 2
        dialog.reject()
    finally:
        win.stop()


def test_an_inspector_only_sign_in_opens_the_inspector_screen(
    qtbot: QtBot, demo_ctx: AppContext, people: list[AdmissionResult]
) -> None:
    from ui.desk.demo_scenario import demo_cases
    from ui.desk.session import DeskSession

    accounts = demo_ctx.accounts
    admin = accounts.create_account(
        "admin1", "Admin One", "admin-password-1", [Role.ADMIN], actor=None
    )
    for user, name, roles in (
        ("inspector1", "Inspectora Uno", [Role.INSPECTOR]),
        ("clerk1", "Clerk One", [Role.CLERK]),
    ):
        accounts.create_account(user, name, "a-long-password-1", roles, actor=admin.operator())
    session = DeskSession.for_context(demo_ctx)
    session.sign_in("inspector1", "a-long-password-1")
    win = window_for(qtbot, demo_ctx, session)
    try:
        assert win.inspector_mode and win.inspection is not None
        assert win.pages.currentWidget() is win.inspection
        for name in (MENU_DESK, MENU_DIRECTION, MENU_ADMIN):
            assert not win.menu(name).menuAction().isVisible(), name
        menus = win.menus
        assert menus is not None
        # no admission action can be reached: every desk key and menu action is disabled
        for action in (win.enter_action, win.clear_action, win.manual_action, win.check_action):
            assert not action.isEnabled()
        assert not any(a.isEnabled() for a in win.card_type_actions)
        assert not any(
            a.isEnabled()
            for a in menus.actions.values()
            if a.objectName() not in ("action_lock", "action_sign_out")
        )
        for keys in ("Ctrl+M", "Ctrl+K", "F9", "Ctrl+E", "Ctrl+B", "Ctrl+Shift+G"):
            QTest.keySequence(win, QKeySequence(keys))
        assert menus.dialog is None and win.findChildren(ManualEntryDialog) == []
        # a document read is dropped: no verdict, nothing recorded
        visits_before = len(demo_ctx.store.visits(people[0].recorded.file_number))
        today = madrid_date(demo_ctx.clock.now())
        lines = next(c for c in demo_cases(today, 0) if c.kind == "admitted").lines
        win.read_mrz(lines)
        assert win.controller.state is DeskState.IDLE and win.controller.current is None
        assert len(demo_ctx.store.visits(people[0].recorded.file_number)) == visits_before
        assert not [e for e in audit(demo_ctx) if e[0] == "ADMISSION" and e[1] == "inspector1"]
        # the screen works for the inspector
        screen = win.inspection
        screen.purpose_edit.setText(PURPOSE)
        screen.name_edit.setText("martin")
        screen.search()
        assert [v.surname for v in screen.results.visitors] == ["MARTIN RUIZ"]
        screenshot(win, "inspector-window")
        # the retention view stays offered (counts only)
        assert menus.file_actions["retention"].isEnabled()
        assert win.menu(MENU_INSPECTION).menuAction().isVisible()
        assert not menus.file_actions["inspection"].isVisible()

        # a clerk signs in after the inspector: the desk is back, its keys work
        session.sign_out("user")
        session.sign_in("clerk1", "a-long-password-1")
        assert not win.inspector_mode and win.pages.currentWidget() is win.desk_page
        assert win.enter_action.isEnabled() and win.manual_action.isEnabled()
        assert all(a.isEnabled() for a in menus.actions.values())
        assert win.menu(MENU_DESK).menuAction().isVisible()
        assert not win.menu(MENU_INSPECTION).menuAction().isVisible()
    finally:
        win.stop()


# -- in English ---------------------------------------------------------------------------------
@pytest.mark.usefixtures("english")
def test_the_new_screens_speak_english(
    qtbot: QtBot, demo_ctx: AppContext, people: list[AdmissionResult]
) -> None:
    from admission.data_protection import DataProtectionService
    from tests.ui.test_translations import TS, read_ts, spanish_left, visible_texts
    from ui.desk.dialogs.data_protection import (
        AccessReportDialog,
        RectificationDialog,
        RetentionDialog,
    )
    from ui.desk.dialogs.figures import FiguresDialog

    screen = make_screen(qtbot, demo_ctx, DIRECTOR)
    screen.purpose_edit.setText(PURPOSE)
    screen.name_edit.setText("garcia")
    screen.search()
    screen.show_timeline()
    service = DataProtectionService(demo_ctx.store, demo_ctx.clock)
    today = madrid_date(demo_ctx.clock.now())
    widgets: list[QWidget] = [
        screen,
        FiguresDialog(demo_ctx.reports, ImmediateRunner(), DIRECTOR, today),
        RectificationDialog(service, lambda o, p, n: (people[0], []), ImmediateRunner(), DIRECTOR),  # type: ignore[arg-type, return-value]
        RetentionDialog(service, ImmediateRunner(), DIRECTOR),
        AccessReportDialog(
            demo_ctx.reports, demo_ctx.export_target, ImmediateRunner(), DIRECTOR, today
        ),
    ]
    entries = read_ts(TS)
    left: dict[str, list[str]] = {}
    for widget in widgets:
        qtbot.addWidget(widget)
        widget.show()
        found = spanish_left(visible_texts(widget), entries)
        if found:
            left[type(widget).__name__] = found
    assert screen.timeline.verdict_text("ADMIT") == "Admitted"
    assert screen.results.headerData(1, Qt.Orientation.Horizontal) == "Surname"
    screenshot(screen, "inspector-en")
    assert not left, left

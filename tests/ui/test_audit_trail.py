"""The audit trail in the window (arts. 14.1.b, 20.4) on the real demo file: the game
director and the inspectors browse it by days, user and act (found by a binary search
over the chain, whatever its size), every look recorded with its purpose; the chain is
verified against an anchor typed or pasted (a wrong one is caught); the entries are
exported as CSV with their labels, recorded; a clerk is refused and reads nothing."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from admission.audit_trail import (
    AuditTrailCode,
    AuditTrailError,
    AuditTrailService,
    checked_query,
    parse_anchor,
)
from admission.catalogue import text
from admission.clock import FixedClock
from admission.errors import AdmissionError
from admission.ports import madrid_date
from tests.ui.conftest import CLERK, DIRECTOR, FakeSession
from tests.ui.test_desk_menus import make_window, screenshot
from tests.ui.test_translations import english  # noqa: F401  # the English fixture
from ui.context import AppContext
from ui.desk.desk_window import DeskWindow
from ui.desk.menus.audit import AUDIT_KEY

INSPECTOR = Operator("inspector1", "Inspectora Uno", frozenset({Role.INSPECTOR}))
PURPOSE = "Expediente 12/2026 de la inspección"


class MemoryTarget:
    def __init__(self, name: str = "auditoria.csv") -> None:
        self.name = name
        self.data: bytes | None = None

    def write(self, data: bytes) -> None:
        self.data = data

    def discard(self) -> None:
        self.data = None


def three_days(ctx: AppContext, clock: FixedClock) -> list[date]:
    """Entries by two actors over three Madrid days, the clock moving forward."""
    days = []
    start = clock.now()
    for offset in range(3):
        clock.set(start + timedelta(days=offset, hours=1))
        days.append(madrid_date(clock.now()))
        for actor, action in (("ana", "CARD_CHECK"), ("luis", "BAN_QUERY"), ("ana", "VISIT")):
            ctx.store.append(actor, action, f"test:{offset}", clock.now(), {"n": str(offset)})
    return days


def test_browse_finds_a_day_by_actor_and_act_and_records_the_look(
    demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    days = three_days(demo_ctx, desk_clock)
    service = AuditTrailService(demo_ctx.store, demo_ctx.clock)
    page = service.browse(INSPECTOR, PURPOSE, checked_query(days[1], days[1], "ana", None))
    assert [e.subject for e in page.entries] == ["test:1", "test:1"]
    assert [e.action for e in page.entries] == ["VISIT", "CARD_CHECK"]  # newest first
    assert page.complete
    only = service.browse(INSPECTOR, PURPOSE, checked_query(days[0], days[2], None, "ban_query"))
    assert [e.subject for e in only.entries] == ["test:2", "test:1", "test:0"]
    last = demo_ctx.store.audit_entries(demo_ctx.store.head().seq - 1, 1)[0]
    assert (last.action, last.actor) == ("AUDIT_BROWSE", INSPECTOR.username)
    assert last.details["purpose"] == PURPOSE and last.details["found"] == "3"
    # at most ``limit`` entries shown, the newest; the record counts every match
    newest = service.browse(
        INSPECTOR, PURPOSE, checked_query(days[0], days[2], None, "ban_query"), limit=2
    )
    assert [e.subject for e in newest.entries] == ["test:2", "test:1"]
    last = demo_ctx.store.audit_entries(demo_ctx.store.head().seq - 1, 1)[0]
    assert last.details["found"] == "3"
    # a scan bound reached says so instead of answering part of the span as all of it
    short = service.browse(INSPECTOR, PURPOSE, checked_query(days[0], days[2]), scan=4)
    assert not short.complete and short.scanned == 4


def test_browse_needs_a_purpose_and_the_role(demo_ctx: AppContext) -> None:
    service = AuditTrailService(demo_ctx.store, demo_ctx.clock)
    today = madrid_date(demo_ctx.clock.now())
    before = demo_ctx.store.head().seq
    query = checked_query(today, today)
    for who, purpose, code in (
        (INSPECTOR, "", "INSPECT_PURPOSE_INVALID"),
        (CLERK, PURPOSE, "INSPECTOR_ROLE_REQUIRED"),
    ):
        with pytest.raises(AdmissionError) as refused:
            service.browse(who, purpose, query)
        assert refused.value.code == code
    assert demo_ctx.store.head().seq == before  # nothing read, nothing recorded
    for bad in (
        lambda: checked_query(today, today - timedelta(days=1)),
        lambda: checked_query(today - timedelta(days=400), today),
    ):
        with pytest.raises(AuditTrailError) as refused:
            bad()
        assert refused.value.code is AuditTrailCode.AUDIT_DATE_RANGE
    with pytest.raises(AuditTrailError):
        checked_query(today, today, "ana'; DROP", None)


def test_verify_against_an_anchor_typed_or_pasted(demo_ctx: AppContext) -> None:
    service = AuditTrailService(demo_ctx.store, demo_ctx.clock)
    demo_ctx.store.append("ana", "CARD_CHECK", "test:0", demo_ctx.clock.now(), {})
    head = demo_ctx.store.head()
    assert service.verify(DIRECTOR, f"  {head.seq}:{head.digest.upper()}  ").ok
    assert service.verify(DIRECTOR).ok
    wrong = service.verify(DIRECTOR, f"{head.seq}:{'0' * 64}")
    assert not wrong.ok and wrong.problem and text(wrong.problem, "es") != wrong.problem
    for garbage in ("12", "x:y", f"0:{head.digest}", f"{head.seq}:{head.digest[:-1]}"):
        with pytest.raises(AuditTrailError) as refused:
            parse_anchor(garbage)
        assert refused.value.code is AuditTrailCode.AUDIT_ANCHOR_INVALID


def test_export_writes_labelled_rows_then_records_it(
    demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    days = three_days(demo_ctx, desk_clock)
    service = AuditTrailService(demo_ctx.store, demo_ctx.clock)
    page = service.browse(DIRECTOR, PURPOSE, checked_query(days[0], days[2], "ana"))
    target = MemoryTarget()
    done = service.export_csv(DIRECTOR, PURPOSE, page, target, "en")
    assert target.data is not None and done.rows == 6
    rows = list(csv.reader(io.StringIO(target.data[3:].decode("utf-8"))))
    assert rows[0][:5] == ["No.", "Date and time", "User", "Act", "Act (text)"]
    assert {(r[3], r[4]) for r in rows[1:]} == {
        ("CARD_CHECK", "Card checked"),
        ("VISIT", "Visit recorded"),
    }
    last = demo_ctx.store.audit_entries(demo_ctx.store.head().seq - 1, 1)[0]
    assert last.action == "AUDIT_EXPORT" and last.details["rows"] == "6"
    assert last.details["digest"] == done.digest and last.details["purpose"] == PURPOSE


# -- the window -------------------------------------------------------------------------------
@pytest.fixture
def director_window(qtbot: QtBot, demo_ctx: AppContext) -> Iterator[DeskWindow]:
    win = make_window(qtbot, demo_ctx, FakeSession(DIRECTOR))
    yield win
    win.stop()


def test_the_director_browses_verifies_and_exports_from_the_window(
    qtbot: QtBot, director_window: DeskWindow, demo_ctx: AppContext, tmp_path: Path
) -> None:
    win = director_window
    assert win.audit is not None
    QTest.keySequence(win, AUDIT_KEY)
    dialog = win.audit.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    qtbot.waitUntil(lambda: dialog.head_label.text() != "")
    qtbot.waitUntil(dialog.purpose_edit.hasFocus)  # the purpose first: it is required
    QTest.keyClicks(dialog.purpose_edit, "Expediente 12/2026")  # QTest types ASCII only
    QTest.keyClick(dialog.purpose_edit, Qt.Key.Key_Return)  # Enter searches
    qtbot.waitUntil(lambda: dialog.page is not None or dialog.errors.text() != "")
    assert dialog.page is not None, dialog.errors.text()
    assert dialog.isVisible() and dialog.table.rowCount() == len(dialog.page.entries) > 0
    head = demo_ctx.store.head()
    dialog.anchor_edit.setText(f"{head.seq}:{head.digest}")
    QTest.keyClick(dialog.anchor_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.check is not None)
    assert dialog.check is not None and dialog.check.ok
    assert dialog.verify_result.text().startswith("✔")
    screenshot(dialog, "audit-trail-es")
    dialog.anchor_edit.setText(f"{head.seq}:{'a' * 64}")
    dialog.verify()
    qtbot.waitUntil(lambda: dialog.check is not None and not dialog.check.ok)
    assert dialog.verify_result.text().startswith("✖")
    dialog.anchor_edit.setText("no es un ancla")
    dialog.verify()
    assert dialog.errors.code == "AUDIT_ANCHOR_INVALID"
    out = tmp_path / "auditoria.csv"
    dialog.ask_path = lambda _t, _n, _f: out
    dialog.export_button.click()
    qtbot.waitUntil(out.exists)
    assert out.read_bytes().startswith(b"\xef\xbb\xbf") and (out.stat().st_mode & 0o777) == 0o600
    qtbot.waitUntil(lambda: "auditoria.csv" in dialog.errors.text())


def test_a_clerk_is_refused_the_audit_trail(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> None:
    win = make_window(qtbot, demo_ctx, session)
    try:
        assert win.audit is not None
        before = demo_ctx.store.head().seq
        assert win.audit.open() is None
        assert win.audit.dialog is None
        assert text("INSPECTOR_ROLE_REQUIRED", "es") in win.status.currentMessage()
        assert demo_ctx.store.head().seq == before
    finally:
        win.stop()


@pytest.mark.usefixtures("english")
def test_the_audit_trail_speaks_english(
    qtbot: QtBot, director_window: DeskWindow, demo_ctx: AppContext
) -> None:
    assert director_window.audit is not None
    demo_ctx.settings.set("ui.language", "en")
    dialog = director_window.audit.open()
    assert dialog is not None
    assert dialog.windowTitle() == "Audit trail (art. 20.4)"
    dialog.purpose_edit.setText("Inspection 12/2026")
    dialog.search()
    qtbot.waitUntil(lambda: dialog.page is not None)
    acts = {dialog.table.item(r, 3).text() for r in range(dialog.table.rowCount())}
    assert "RIAJ copy imported" in acts and "Copia del RIAJ importada" not in acts
    head = demo_ctx.store.head()
    dialog.anchor_edit.setText(f"{head.seq}:{head.digest}")
    dialog.verify()
    qtbot.waitUntil(lambda: dialog.check is not None)
    assert dialog.verify_result.text().startswith("✔ Chain intact")
    screenshot(dialog, "audit-trail-en")

"""A desk of the casino's server that cannot reach it (arts. 154-155): the window says
so at once, admits nobody (Enter records nothing), and F9 gives the provisional voucher
of art. 23.4 for the document read or typed - recorded in the desk's real encrypted
queue under a local reference, printed with it and marked pending - which is numbered
on the voucher book when the server answers again, and the window says which reference
got which number. The demo's SQLCipher voucher book stands for the server's (both
satisfy the book's port). A desk of its own file is unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialog, QWidget
from pytestqt.qtbot import QtBot

from admission.catalogue import text
from admission.errors import StoreError
from admission.ports import madrid_date
from admission.vouchers.model import VoucherStatus
from admission.vouchers.offline import QueueState
from db.keys import DbKey
from db.pg.desk import OfflineVouchers
from db.pg.latency import PgLinkCode
from tests.ui.conftest import FakeSession
from tests.ui.test_desk_menus import make_window as desk_menus_window
from ui.context import AppContext
from ui.desk.controller import DeskState
from ui.desk.demo_scenario import DemoCase, demo_cases
from ui.desk.desk_flow import document_from_lines
from ui.desk.desk_window import DeskWindow
from ui.desk.dialogs.offline_voucher import OfflineVoucherDialog
from ui.desk.dialogs.vouchers import VoucherIssueDialog, VouchersDialog


def make_window(qtbot: QtBot, ctx: AppContext, session: object) -> DeskWindow:
    return desk_menus_window(qtbot, ctx, session, director=None)


@pytest.fixture
def server_ctx(demo_ctx: AppContext, tmp_path: Path) -> AppContext:
    """The demo context as a desk of the server: its real offline queue."""
    return replace(
        demo_ctx,
        offline_vouchers=OfflineVouchers(
            tmp_path / "q.db",
            DbKey.generate(source="test"),
            demo_ctx.desk.config.desk_id,
            lambda: demo_ctx.vouchers,
            demo_ctx.clock,
        ),
    )


@pytest.fixture
def window(qtbot: QtBot, server_ctx: AppContext, session: FakeSession) -> Iterator[DeskWindow]:
    win = make_window(qtbot, server_ctx, session)
    yield win
    win.stop()


@pytest.fixture
def file_window(qtbot: QtBot, demo_ctx: AppContext, session: FakeSession) -> Iterator[DeskWindow]:
    win = make_window(qtbot, demo_ctx, session)
    yield win
    win.stop()


def case(ctx: AppContext, kind: str) -> DemoCase:
    today = madrid_date(ctx.clock.now())
    return next(c for c in demo_cases(today) if c.kind == kind)


def press(win: QWidget, keys: str) -> None:
    QTest.keySequence(win, QKeySequence(keys))


def visits_of(ctx: AppContext, lines: tuple[str, ...]) -> int:
    document, _ = document_from_lines(list(lines), madrid_date(ctx.clock.now()))
    assert document is not None
    visitor = ctx.store.find_visitor(document.identity)
    return 0 if visitor is None else len(ctx.store.visits(visitor.file_number))


def pdf_text(path: Path) -> str:
    doc = pdfium.PdfDocument(str(path))
    try:
        return " ".join(doc[0].get_textpage().get_text_bounded().split())
    finally:
        doc.close()


def voucher_pdfs(ctx: AppContext) -> list[Path]:
    return sorted(ctx.data_dir.rglob("voucher-*.pdf"))


def offline_dialog(win: DeskWindow) -> OfflineVoucherDialog:
    assert win.menus is not None
    dialog = win.menus.dialog
    assert isinstance(dialog, OfflineVoucherDialog)
    return dialog


def test_without_the_server_a_scan_admits_nobody_and_f9_gives_a_provisional_voucher(
    qtbot: QtBot, window: DeskWindow, server_ctx: AppContext
) -> None:
    ctx = server_ctx
    offline = ctx.offline_vouchers
    assert offline is not None
    window.controller.report_server(False)
    # said at once: nobody admitted until the server is back, F9 gives the voucher
    assert window.offline_mode and window.offline_banner.isVisible()
    assert "F9" in window.offline_banner.text() and "23.4" in window.offline_banner.text()
    assert window.status.currentMessage() == text("OFFLINE_NO_ADMISSION")

    admitted = case(ctx, "admitted")
    before = visits_of(ctx, admitted.lines)
    window.read_mrz(admitted.lines)
    # shown, never evaluated: no verdict, nothing recorded
    assert window.controller.current is None and window.controller.state is DeskState.IDLE
    assert window.offline_document is not None
    assert "SIN SERVIDOR" in window.verdict.headline.text()
    assert window.offline_document.surname[:8] in window.identity.name.text()
    press(window, "Return")
    assert visits_of(ctx, admitted.lines) == before, "Enter records nothing offline"
    assert window.status.currentMessage() == text("OFFLINE_NO_ADMISSION")

    press(window, "F9")
    dialog = offline_dialog(window)
    qtbot.waitUntil(dialog.isVisible)
    document = window.offline_document
    assert document.surname[:8] in dialog.holder.text() and dialog.holder.isReadOnly()
    assert dialog.number.text() == (document.id_number or document.document_number)
    assert dialog.issue_button.isEnabled() and dialog.issue_button.isDefault()
    assert dialog.checked.isHidden(), "age and validity are read from the document"
    dialog.grab().save("/tmp/offline_voucher.png")
    with qtbot.waitSignal(dialog.voucher_queued, timeout=5000) as queued:
        QTest.keyClick(dialog, Qt.Key.Key_Return)
    entry = queued.args[0]
    ref = f"{ctx.desk.config.desk_id}-P000001"
    assert entry.local_ref == ref
    [pending] = offline.pending()
    assert pending.local_ref == ref and pending.state is QueueState.QUEUED
    assert pending.voucher.document_number == dialog.number.text()
    assert pending.voucher.card_type == window.controller.card_type
    assert ref in window.status.currentMessage()
    assert window.offline_document is None, "the desk moved on"
    assert window.provisional_label.isVisible() and "1" in window.provisional_label.text()
    assert ctx.vouchers.open_vouchers() == [], "no server number is taken offline"

    # printed with the local reference, marked provisional and pending
    [pdf] = voucher_pdfs(ctx)
    printed = pdf_text(pdf)
    assert "PROVISIONAL" in printed and ref in printed
    assert "PENDIENTE DE FORMALIZAR" in printed
    assert "Nº 0" not in printed and "nº 0" not in printed

    # the pending vouchers' list shows it
    assert window.menus is not None
    pending_dialog = window.menus.desk.open_vouchers()
    assert isinstance(pending_dialog, VouchersDialog)
    assert pending_dialog.provisional_refs() == [ref]
    pending_dialog.reject()

    # the server answers: numbered on its book, and the window says which number
    window.controller.report_server(True)
    assert offline.pending() == []
    [voucher] = ctx.vouchers.open_vouchers()
    assert voucher.status is VoucherStatus.OPEN
    assert voucher.document_number == pending.voucher.document_number
    assert ref in window.formalise_text and f"nº {voucher.number}" in window.formalise_text
    assert ref in window.status.currentMessage()
    assert window.offline_banner.isVisible() and ref in window.offline_banner.text()
    assert not window.offline_mode and not window.provisional_label.isVisible()
    # and the desk admits again
    window.read_mrz(admitted.lines)
    assert window.controller.state is DeskState.SHOWN
    assert not window.offline_banner.isVisible()


def test_a_typed_document_needs_its_fields_a_right_letter_and_the_clerks_check(
    qtbot: QtBot, window: DeskWindow, server_ctx: AppContext
) -> None:
    offline = server_ctx.offline_vouchers
    assert offline is not None
    window.controller.report_server(False)
    press(window, "F9")  # nothing read: the document is typed in the dialog
    dialog = offline_dialog(window)
    qtbot.waitUntil(dialog.isVisible)
    assert not dialog.holder.isReadOnly() and not dialog.checked.isHidden()
    dialog.issue_button.click()
    assert dialog.errors.code == "FIELD_REQUIRED"
    dialog.holder.setText("Ana María López García")
    dialog.number.setText("12345678A")  # the letter of 12345678 is Z
    dialog.issue_button.click()
    assert dialog.errors.code == "DNI_CHECK_LETTER"
    dialog.number.setText("12345678z")
    dialog.issue_button.click()
    assert dialog.errors.code == "OFFLINE_DOCUMENT_NOT_CHECKED"
    assert offline.pending() == []
    dialog.checked.setChecked(True)
    with qtbot.waitSignal(dialog.voucher_queued, timeout=5000) as queued:
        QTest.keyClick(dialog.number, Qt.Key.Key_Return)  # Enter from the field issues it
    assert queued.args[0].voucher.document_number == "12345678Z"
    assert [e.local_ref for e in offline.pending()] == [queued.args[0].local_ref]


def test_a_minors_document_read_offline_gets_no_voucher(
    qtbot: QtBot, window: DeskWindow, server_ctx: AppContext
) -> None:
    window.controller.report_server(False)
    window.read_mrz(case(server_ctx, "minor").lines)
    press(window, "F9")
    dialog = offline_dialog(window)
    assert dialog.errors.code == "MINOR" and not dialog.issue_button.isEnabled()
    dialog.issue()
    offline = server_ctx.offline_vouchers
    assert offline is not None and offline.pending() == []
    dialog.reject()


def test_an_evaluation_the_server_does_not_answer_offers_the_voucher_for_that_document(
    qtbot: QtBot,
    window: DeskWindow,
    server_ctx: AppContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def silent(*_args: object, **_kwargs: object) -> object:
        raise StoreError("the server does not answer", code=PgLinkCode.SERVER_TIMEOUT)

    # the link fails under the evaluation before the probe noticed it
    monkeypatch.setattr(server_ctx.desk, "evaluate", silent)
    assert window.controller.server_reachable
    admitted = case(server_ctx, "admitted")
    window.read_mrz(admitted.lines)
    assert window.controller.current is None
    assert window.offline_mode and window.offline_banner.isVisible()
    assert window.offline_document is not None
    press(window, "F9")
    dialog = offline_dialog(window)
    assert dialog.number.text() == (
        window.offline_document.id_number or window.offline_document.document_number
    )
    dialog.reject()
    # the next probe the server answers brings the desk back (not stuck without it)
    assert not window.controller.server_reachable
    window.controller.report_server(True)
    assert not window.offline_mode and not window.offline_banner.isVisible()


def test_a_desk_of_its_own_file_is_unchanged(
    qtbot: QtBot, file_window: DeskWindow, demo_ctx: AppContext
) -> None:
    assert demo_ctx.offline_vouchers is None
    file_window.controller.report_server(False)  # never emitted on a file desk; harmless
    assert not file_window.offline_mode and not file_window.offline_banner.isVisible()
    file_window.read_mrz(case(demo_ctx, "admitted").lines)
    assert file_window.controller.state is DeskState.SHOWN
    press(file_window, "F9")
    assert file_window.menus is not None
    dialog = file_window.menus.dialog
    assert isinstance(dialog, VoucherIssueDialog)
    assert isinstance(dialog, QDialog)
    dialog.reject()
    pending = file_window.menus.desk.open_vouchers()
    assert isinstance(pending, VouchersDialog) and pending.provisional_table is None
    pending.reject()


def test_the_provisional_voucher_prints_its_reference_on_a_receipt_and_a_card() -> None:
    from datetime import UTC, datetime

    from admission.vouchers.model import NewVoucher, provisional_voucher_view, voucher_view
    from hardware.printer import CR80, RECEIPT_80
    from hardware.printer.documents import render_voucher

    new = NewVoucher(
        issued_at=datetime(2026, 12, 3, 21, 0, tzinfo=UTC),
        desk_id="DESK1",
        operator="clerk1",
        holder_name="Ana López",
        document_type="ID_CARD",
        document_number="12345678Z",
        card_type="DAY",
        price_cents=500,
    )
    view = provisional_voucher_view(
        new, "DESK1-P000007", casino_name="Casino", card_type_label="Entrada de un día"
    )
    assert "DESK1-P000007" in repr(view) and "López" not in repr(view)
    for page in (RECEIPT_80, CR80):
        doc = pdfium.PdfDocument(render_voucher(view, page=page).pdf)
        try:
            printed = " ".join(doc[0].get_textpage().get_text_bounded().split())
        finally:
            doc.close()
        assert "VOLANTE PROVISIONAL DESK1-P000007" in printed
        assert "PENDIENTE DE FORMALIZAR" in printed and "Nº 0" not in printed
    # a voucher of the book keeps its number, and no pending mark
    numbered = voucher_view(new.numbered(12), casino_name="Casino", card_type_label="Día")
    doc = pdfium.PdfDocument(render_voucher(numbered).pdf)
    try:
        printed = " ".join(doc[0].get_textpage().get_text_bounded().split())
    finally:
        doc.close()
    assert "VOLANTE PROVISIONAL Nº 12" in printed and "PENDIENTE" not in printed


def test_vouchers_an_earlier_session_queued_are_numbered_at_the_first_answer(
    qtbot: QtBot, server_ctx: AppContext, session: FakeSession
) -> None:
    from admission.vouchers.model import NewVoucher

    offline = server_ctx.offline_vouchers
    assert offline is not None
    left = offline.issue(
        NewVoucher(
            issued_at=server_ctx.clock.now(),
            desk_id=server_ctx.desk.config.desk_id,
            operator="clerk1",
            holder_name="Ana López",
            document_type="ID_CARD",
            document_number="12345678Z",
            card_type="DAY",
            price_cents=500,
        )
    )
    win = make_window(qtbot, server_ctx, session)
    try:
        win.refresh_provisional()
        assert win.provisional_label.isVisible()
        with qtbot.waitSignal(win.controller.vouchers_formalised, timeout=10_000):
            win.controller.report_server(True)  # the session's first answer
        [voucher] = server_ctx.vouchers.open_vouchers()
        assert offline.pending() == []
        assert f"{left.local_ref} → volante nº {voucher.number}" in win.formalise_text
        assert not win.provisional_label.isVisible()
    finally:
        win.stop()


def test_no_provisional_voucher_for_an_admission_whose_outcome_is_unknown(
    qtbot: QtBot, window: DeskWindow, server_ctx: AppContext
) -> None:
    window.read_mrz(case(server_ctx, "admitted").lines)
    assert window.controller.state is DeskState.SHOWN
    # Enter's answer was lost while the server committed, then the server went away:
    # the admission may hold a card already (art. 22: one card)
    window.controller.operation_failed.emit("ADMISSION_OUTCOME_UNKNOWN", "")
    window.controller.report_server(False)
    assert window.menus is not None and window.menus.desk.open_voucher() is None
    assert window.status.currentMessage() == text("ADMISSION_OUTCOME_UNKNOWN")
    offline = server_ctx.offline_vouchers
    assert offline is not None and offline.pending() == []

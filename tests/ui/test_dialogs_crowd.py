"""Crowd mode and officials on the real demo file: a provisional voucher in two key
presses (art. 23.4, R11), its formalisation with the deposited document, the closing
list, and an official on duty recorded with no card and no charge (art. 24, R13)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from admission.clock import FixedClock
from admission.documents import IdentityDocument
from admission.ports import madrid_date
from admission.records import CardStatus
from admission.vouchers.model import Voucher, VoucherStatus
from tests.factories import dni, dni_document
from tests.ui.conftest import CLERK, NOBODY_LISTED, seed_register
from ui.context import AppContext
from ui.desk.dialogs.common import DialogCode
from ui.desk.dialogs.official import OfficialDialog
from ui.desk.dialogs.vouchers import VoucherIssueDialog, VouchersDialog, issue_voucher_dialog
from ui.desk.jobs import ImmediateRunner
from ui.desk.ops import official as official_ops
from ui.desk.ops import vouchers as voucher_ops

RUNNER = ImmediateRunner()
THURSDAY_NIGHT = datetime(2026, 12, 3, 21, 0, tzinfo=UTC)  # 22:00 in Madrid


def screenshot(widget: QWidget, name: str) -> None:
    try:
        from ui.desk.screens import save_screenshot
    except ImportError:
        return
    save_screenshot(widget, name)


@pytest.fixture
def night_ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppContext]:
    """The demo file of a casino open 20:00-05:00 every day (art. 27)."""
    from main import build_context, build_tools

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    folder = tmp_path / "demo"
    folder.mkdir()
    hours = {day: "20:00-05:00" for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")}
    (folder / "settings.json").write_text(json.dumps({"version": 2, "hours": hours}))
    ctx = build_context(build_tools(folder, clock=FixedClock(THURSDAY_NIGHT), demo=True))
    seed_register(ctx, [NOBODY_LISTED, dni(99999999)])
    try:
        yield ctx
    finally:
        ctx.close()


def document(ctx: AppContext, number: int = 12345678) -> IdentityDocument:
    return dni_document(number, today=madrid_date(ctx.clock.now()))


def test_a_voucher_in_two_key_presses_then_formalised_with_the_same_document(
    qtbot: QtBot, night_ctx: AppContext
) -> None:
    shown = document(night_ctx)
    dialog = issue_voucher_dialog(
        None, voucher_ops.of(night_ctx), RUNNER, shown, "DAY", operator=CLERK.username
    )
    qtbot.addWidget(dialog)
    assert dialog.issue_button.isDefault()
    screenshot(dialog, "dialog-voucher-issue")
    with qtbot.waitSignal(dialog.voucher_issued, timeout=5000) as issued:
        qtbot.keyClick(dialog, Qt.Key.Key_Return)  # the second key press
    voucher = issued.args[0]
    assert isinstance(voucher, Voucher) and voucher.status is VoucherStatus.OPEN
    assert voucher.document_number == shown.id_number and voucher.card_type == "DAY"
    assert dialog.result() == VoucherIssueDialog.DialogCode.Accepted
    # a second Enter finds nothing to issue: one voucher
    dialog.issue()
    assert [v.number for v in night_ctx.vouchers.open_vouchers()] == [voucher.number]

    pending = VouchersDialog(
        voucher_ops.of(night_ctx), RUNNER, operator=CLERK.username, document=lambda: shown
    )
    qtbot.addWidget(pending)
    assert pending.open_numbers() == [voucher.number]
    assert pending.table.currentRow() == 0  # the voucher of the document on screen
    screenshot(pending, "dialog-vouchers")
    with qtbot.waitSignal(pending.card_issued, timeout=5000) as formalised:
        pending.formalise_button.click()
    result = formalised.args[0]
    assert result.card is not None
    closed = night_ctx.vouchers.voucher(voucher.number)
    assert closed is not None and closed.status is VoucherStatus.EXCHANGED
    assert closed.card_number == result.card.number
    card = night_ctx.store.card(result.card.number)
    assert card is not None and card.status is CardStatus.PRINTED
    assert pending.open_numbers() == []


def test_another_document_does_not_formalise_a_voucher(qtbot: QtBot, night_ctx: AppContext) -> None:
    voucher_dialog = VoucherIssueDialog(
        voucher_ops.of(night_ctx), RUNNER, document(night_ctx), None, operator=CLERK.username
    )
    qtbot.addWidget(voucher_dialog)
    voucher_dialog.issue_button.click()
    other = document(night_ctx, 34567890)
    pending = VouchersDialog(
        voucher_ops.of(night_ctx), RUNNER, operator=CLERK.username, document=lambda: other
    )
    qtbot.addWidget(pending)
    pending.table.selectRow(0)
    pending.formalise_button.click()
    assert pending.errors.code == "VOUCHER_DOCUMENT_MISMATCH"
    assert len(pending.open_numbers()) == 1


def test_a_listed_visitor_gets_no_voucher_and_the_refusal_is_recorded(
    qtbot: QtBot, night_ctx: AppContext
) -> None:
    listed = document(night_ctx, 99999999)
    dialog = VoucherIssueDialog(
        voucher_ops.of(night_ctx), RUNNER, listed, "DAY", operator=CLERK.username
    )
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.visit_refused, timeout=5000):
        dialog.issue_button.click()
    assert night_ctx.vouchers.open_vouchers() == []
    assert "RIAJ" in dialog.errors.text()
    visitor = night_ctx.store.find_visitor(listed.identity)
    assert visitor is not None and night_ctx.store.visits(visitor.file_number)[0].verdict == "DENY"


def test_the_closing_list_shows_the_vouchers_open_at_closing(
    qtbot: QtBot, night_ctx: AppContext
) -> None:
    for number in (12345678, 34567890):
        dialog = VoucherIssueDialog(
            voucher_ops.of(night_ctx),
            RUNNER,
            document(night_ctx, number),
            None,
            operator=CLERK.username,
        )
        qtbot.addWidget(dialog)
        dialog.issue_button.click()
    pending = VouchersDialog(
        voucher_ops.of(night_ctx),
        RUNNER,
        operator=CLERK.username,
        document=lambda: None,
        closing=True,
    )
    qtbot.addWidget(pending)
    # the session opened at 20:00 Thursday closes at 05:00 Friday, Madrid time
    assert pending.closing_at == datetime(2026, 12, 4, 4, 0, tzinfo=UTC)
    assert "04/12/2026 05:00" in pending.closing_label.text()
    assert len(pending.open_numbers()) == 2
    screenshot(pending, "dialog-vouchers-closing")
    # one is cancelled with a reason (document and money returned)
    pending.table.selectRow(0)
    pending.cancel_button.click()
    assert pending.errors.code == "REASON_REQUIRED"
    pending.cancel_reason.setPlainText("El cliente se marcha sin formalizar")
    pending.cancel_button.click()
    assert len(pending.open_numbers()) == 1
    # the listings (names, document numbers) and the cancellation are the clerk's, recorded
    entries = [(e.actor, e.action) for e in night_ctx.store.audit_entries(0, 100_000)]
    assert (CLERK.username, "VOUCHER_CANCELLED") in entries
    assert entries.count((CLERK.username, "VOUCHERS_LISTED")) >= 2  # opened, then refreshed
    # a voucher whose print failed is printed again from the list
    pending.table.selectRow(0)
    pending.print_button.click()
    assert pending.errors.code == "" and "impreso" in pending.errors.text()
    # formalising needs the deposited document on screen
    pending.formalise_button.click()
    assert pending.errors.code == DialogCode.DOCUMENT_NOT_ON_SCREEN


def test_no_voucher_without_a_document_on_screen(qtbot: QtBot, night_ctx: AppContext) -> None:
    dialog = VoucherIssueDialog(
        voucher_ops.of(night_ctx), RUNNER, None, None, operator=CLERK.username
    )
    qtbot.addWidget(dialog)
    assert not dialog.issue_button.isEnabled()
    assert dialog.errors.code == DialogCode.DOCUMENT_NOT_ON_SCREEN


def test_an_official_on_duty_is_recorded_with_no_card(qtbot: QtBot, night_ctx: AppContext) -> None:
    shown = document(night_ctx, 56789012)
    dialog = OfficialDialog(official_ops.of(night_ctx), RUNNER, shown, operator=CLERK.username)
    qtbot.addWidget(dialog)
    dialog.record_button.click()  # the capacity is required (art. 24.2)
    assert dialog.errors.code == "OFFICIAL_NEEDS_CAPACITY" and dialog.recorded is None
    dialog.capacity.setCurrentText("Inspector del juego de la Comunidad de Madrid")
    screenshot(dialog, "dialog-official")
    with qtbot.waitSignal(dialog.official_recorded, timeout=5000):
        dialog.record_button.click()
    recorded = dialog.recorded
    assert recorded is not None and recorded.card_number is None
    visits = night_ctx.store.visits(recorded.file_number)
    assert [(v.verdict, v.official_capacity, v.card_number) for v in visits] == [
        ("OFFICIAL", "Inspector del juego de la Comunidad de Madrid", None)
    ]
    assert night_ctx.reprints.unprinted_cards() == []
    assert not dialog.record_button.isEnabled()  # recorded once

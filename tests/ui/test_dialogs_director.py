"""The game director's dialogs on the real demo file: bans (art. 21.2-3), staff (art.
18), void and reprint (art. 22), the reprint queue and the exceptional card (art. 23.5).
A director's action is written only after the director confirmed with their own
credentials, under the director's user name; a cancelled confirmation writes nothing."""

from __future__ import annotations

from datetime import date

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.desk import AdmissionResult
from admission.documents import IdentityDocument
from admission.identity import IdentityKey, IdKind
from admission.ports import madrid_date
from admission.records import CardStatus, StaffRole
from tests.factories import dni, dni_document
from tests.ui.conftest import CLERK, DIRECTOR
from ui.context import AppContext
from ui.desk.dialogs.bans import BansDialog
from ui.desk.dialogs.cards import CardActionsDialog, ExceptionalCardDialog, ReprintQueueDialog
from ui.desk.dialogs.common import DialogCode, StoreListings
from ui.desk.dialogs.printer import PrinterDialog
from ui.desk.dialogs.staff import StaffDialog
from ui.desk.jobs import ImmediateRunner
from ui.desk.ops import bans as ban_ops
from ui.desk.ops import cards as card_ops
from ui.desk.ops import official as official_ops
from ui.desk.ops import staff as staff_ops
from ui.desk.ops import vouchers as voucher_ops
from ui.desk.ops.settings import SettingsOps

RUNNER = ImmediateRunner()


def screenshot(widget: QWidget, name: str) -> None:
    try:
        from ui.desk.screens import save_screenshot
    except ImportError:
        return
    save_screenshot(widget, name)


class Authorise:
    """Stands in for ``ask_director``: answers ``who`` and remembers the purposes."""

    def __init__(self, who: Operator | None) -> None:
        self.who = who
        self.purposes: list[str] = []

    def __call__(self, purpose: str) -> Operator | None:
        self.purposes.append(purpose)
        return self.who


def actions(ctx: AppContext) -> list[tuple[str, str]]:
    return [(e.action, e.actor) for e in ctx.store.audit_entries(limit=10_000)]


def document(ctx: AppContext, number: int = 12345678) -> IdentityDocument:
    return dni_document(number, today=madrid_date(ctx.clock.now()))


def admitted(ctx: AppContext, number: int = 12345678) -> AdmissionResult:
    result = ctx.desk.admit(document(ctx, number), operator=CLERK.username)
    assert result.card is not None, result.verdict
    return result


# -- bans ---------------------------------------------------------------------------
def test_a_ban_is_added_by_the_director_and_lifted_with_a_reason(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    authorise = Authorise(DIRECTOR)
    dialog = BansDialog(
        ban_ops.of(demo_ctx),
        RUNNER,
        authorise,
        operator=CLERK.username,
        listings=StoreListings(demo_ctx.store),
    )
    qtbot.addWidget(dialog)
    dialog.identity_edit.setText(dni(12345678))
    dialog.add_reason.setPlainText("Comportamiento violento en la sala")
    dialog.expires_check.setChecked(True)
    dialog.add_button.click()

    identity = IdentityKey(IdKind.DNI, "ESP", dni(12345678))
    bans = demo_ctx.store.active_bans(identity, demo_ctx.clock.now())
    assert len(bans) == 1 and bans[0].decided_by == "director1"
    assert bans[0].expires_at is not None
    assert authorise.purposes and ("BAN_ADD", "director1") in actions(demo_ctx)
    assert [b.ban_id for b in dialog.shown_bans()] == [bans[0].ban_id]
    # the ban refuses the person at the desk
    evaluation = demo_ctx.desk.evaluate(document(demo_ctx))
    assert "INTERNAL_BAN" in evaluation.verdict.codes

    dialog.show_all()
    assert [b.ban_id for b in dialog.shown_bans()] == [bans[0].ban_id]
    screenshot(dialog, "dialog-bans")

    dialog.table.selectRow(0)
    dialog.lift_button.click()  # no reason: refused before asking anybody
    assert dialog.errors.code == "REASON_REQUIRED" and len(authorise.purposes) == 1
    dialog.lift_reason.setPlainText("Resolución del director tras alegaciones")
    dialog.lift_button.click()
    assert demo_ctx.store.active_bans(identity, demo_ctx.clock.now()) == []
    lifted = demo_ctx.store.bans(identity)[0]
    assert lifted.lift_reason.startswith("Resolución") and lifted.lifted_at is not None
    assert ("BAN_LIFT", "director1") in actions(demo_ctx)


def test_a_cancelled_authorisation_writes_no_ban_and_lifts_none(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    dialog = BansDialog(ban_ops.of(demo_ctx), RUNNER, Authorise(None), operator=CLERK.username)
    qtbot.addWidget(dialog)
    dialog.identity_edit.setText(dni(12345678))
    dialog.add_reason.setPlainText("Motivo")
    before = actions(demo_ctx)
    dialog.add_button.click()
    identity = IdentityKey(IdKind.DNI, "ESP", dni(12345678))
    assert demo_ctx.store.bans(identity) == []
    assert dialog.errors.code == DialogCode.DIRECTOR_NOT_CONFIRMED
    assert dialog.errors.text() == text("DIRECTOR_NOT_CONFIRMED", "es")
    assert not [a for a in actions(demo_ctx)[len(before) :] if a[0].startswith("BAN_ADD")]

    # a clerk answering the director's question is no director: nothing written either
    dialog = BansDialog(ban_ops.of(demo_ctx), RUNNER, Authorise(CLERK), operator=CLERK.username)
    qtbot.addWidget(dialog)
    dialog.identity_edit.setText(dni(12345678))
    dialog.add_reason.setPlainText("Motivo")
    dialog.add_button.click()
    assert demo_ctx.store.bans(identity) == []

    # lifting: an existing ban stays in force when the director cancels
    ban = demo_ctx.desk.add_ban(identity, "Motivo previo", "director1")
    dialog = BansDialog(
        ban_ops.of(demo_ctx), RUNNER, Authorise(None), operator=CLERK.username, identity=identity
    )
    qtbot.addWidget(dialog)
    assert [b.ban_id for b in dialog.shown_bans()] == [ban.ban_id]
    dialog.lift_reason.setPlainText("Levantar")
    dialog.lift_button.click()
    assert [b.ban_id for b in demo_ctx.store.active_bans(identity, demo_ctx.clock.now())] == [
        ban.ban_id
    ]


def test_a_typed_identity_that_is_no_document_is_refused(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    authorise = Authorise(DIRECTOR)
    dialog = BansDialog(ban_ops.of(demo_ctx), RUNNER, authorise, operator=CLERK.username)
    qtbot.addWidget(dialog)
    dialog.identity_edit.setText("12345678A")  # wrong DNI letter
    dialog.add_reason.setPlainText("Motivo")
    dialog.add_button.click()
    assert dialog.errors.code == DialogCode.IDENTITY_UNREADABLE and authorise.purposes == []


# -- staff --------------------------------------------------------------------------
def test_the_director_adds_and_removes_staff(qtbot: QtBot, demo_ctx: AppContext) -> None:
    dialog = StaffDialog(
        staff_ops.of(demo_ctx), RUNNER, Authorise(DIRECTOR), listings=StoreListings(demo_ctx.store)
    )
    qtbot.addWidget(dialog)
    dialog.identity_edit.setText(dni(23456789))
    dialog.name_edit.setText("Croupier de Prueba")
    dialog.add_button.click()
    identity = IdentityKey(IdKind.DNI, "ESP", dni(23456789))
    member = demo_ctx.store.staff_member(identity)
    assert member is not None and member.role is StaffRole.STAFF and member.active
    assert ("STAFF_SET", "director1") in actions(demo_ctx)
    assert [m.identity for m in dialog.shown_members()] == [identity]
    # staff may not play (art. 18): the desk sees it
    evaluation = demo_ctx.desk.evaluate(document(demo_ctx, 23456789))
    assert "CASINO_STAFF" in evaluation.verdict.codes
    screenshot(dialog, "dialog-staff")

    dialog.table.selectRow(0)
    dialog.remove_button.click()
    member = demo_ctx.store.staff_member(identity)
    assert member is not None and not member.active


def test_staff_is_not_changed_without_the_director(qtbot: QtBot, demo_ctx: AppContext) -> None:
    dialog = StaffDialog(
        staff_ops.of(demo_ctx), RUNNER, Authorise(None), listings=StoreListings(demo_ctx.store)
    )
    qtbot.addWidget(dialog)
    dialog.identity_edit.setText(dni(23456789))
    dialog.name_edit.setText("Croupier de Prueba")
    dialog.add_button.click()
    assert demo_ctx.store.staff_member(IdentityKey(IdKind.DNI, "ESP", dni(23456789))) is None
    assert dialog.identity_edit.text()  # kept for another try


# -- cards --------------------------------------------------------------------------
def test_void_and_reprint_need_a_reason_and_the_director(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    first = admitted(demo_ctx, 12345678).card
    second = admitted(demo_ctx, 34567890).card
    assert first is not None and second is not None
    authorise = Authorise(DIRECTOR)
    dialog = CardActionsDialog(card_ops.of(demo_ctx), RUNNER, authorise, number=second.number)
    qtbot.addWidget(dialog)
    assert str(second.number) in dialog.card_label.text()

    dialog.reprint_button.click()
    assert dialog.errors.code == "REASON_REQUIRED" and authorise.purposes == []
    dialog.reason.setPlainText("Tarjeta extraviada por el cliente")
    dialog.reprint_button.click()
    card = demo_ctx.store.card(second.number)
    assert card is not None and card.status is CardStatus.PRINTED and card.print_count == 1
    assert ("CARD_REPRINT", "director1") in actions(demo_ctx)
    screenshot(dialog, "dialog-card-actions")

    dialog.number_spin.setValue(first.number)
    dialog.look_up()
    dialog.reason.setPlainText("Emitida por error")
    dialog.void_button.click()
    card = demo_ctx.store.card(first.number)
    assert card is not None and card.status is CardStatus.VOIDED
    assert card.void_reason == "Emitida por error"
    assert ("CARD_VOID", "director1") in actions(demo_ctx)


def test_a_card_is_not_voided_when_the_director_cancels(qtbot: QtBot, demo_ctx: AppContext) -> None:
    card = admitted(demo_ctx).card
    assert card is not None
    dialog = CardActionsDialog(card_ops.of(demo_ctx), RUNNER, Authorise(None), number=card.number)
    qtbot.addWidget(dialog)
    dialog.reason.setPlainText("Emitida por error")
    dialog.void_button.click()
    again = demo_ctx.store.card(card.number)
    assert again is not None and again.status is CardStatus.ISSUED


def test_the_reprint_queue_prints_a_card_issued_and_not_printed(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    card = admitted(demo_ctx).card
    assert card is not None
    dialog = ReprintQueueDialog(card_ops.of(demo_ctx), RUNNER, operator=CLERK.username)
    qtbot.addWidget(dialog)
    assert dialog.queued() == [card.number]
    screenshot(dialog, "dialog-reprint-queue")
    with qtbot.waitSignal(dialog.card_printed, timeout=5000) as printed:
        dialog.print_button.click()
    assert printed.args == [card.number]
    assert dialog.queued() == []
    again = demo_ctx.store.card(card.number)
    assert again is not None and again.status is CardStatus.PRINTED


# -- the exceptional card (art. 23.5) -----------------------------------------------
def test_the_exceptional_card_names_the_director(qtbot: QtBot, demo_ctx: AppContext) -> None:
    authorise = Authorise(DIRECTOR)
    shown = document(demo_ctx, 45678901)
    dialog = ExceptionalCardDialog(
        card_ops.of(demo_ctx), RUNNER, authorise, shown, operator=CLERK.username
    )
    qtbot.addWidget(dialog)
    assert "ANA" in dialog.document_label.text()
    screenshot(dialog, "dialog-exceptional-card")
    with qtbot.waitSignal(dialog.card_issued, timeout=5000):
        dialog.issue_button.click()
    result = dialog.admission
    assert result is not None and result.card is not None
    card = demo_ctx.store.card(result.card.number)
    assert card is not None and card.exceptional and card.authorised_by == "director1"
    assert card.status is CardStatus.PRINTED
    assert "director1" in dialog.errors.text()
    assert "EXCEPTIONAL_CARD" in [action for action, _ in actions(demo_ctx)]
    assert not dialog.issue_button.isEnabled()  # one decision, one card


def test_no_exceptional_card_without_the_director(qtbot: QtBot, demo_ctx: AppContext) -> None:
    shown = document(demo_ctx, 45678901)
    dialog = ExceptionalCardDialog(
        card_ops.of(demo_ctx), RUNNER, Authorise(None), shown, operator=CLERK.username
    )
    qtbot.addWidget(dialog)
    dialog.issue_button.click()
    assert dialog.admission is None
    assert demo_ctx.store.find_visitor(shown.identity) is None  # nothing recorded
    assert dialog.errors.code == DialogCode.DIRECTOR_NOT_CONFIRMED


def test_no_exceptional_card_without_a_document(qtbot: QtBot, demo_ctx: AppContext) -> None:
    dialog = ExceptionalCardDialog(
        card_ops.of(demo_ctx), RUNNER, Authorise(DIRECTOR), None, operator=CLERK.username
    )
    qtbot.addWidget(dialog)
    assert not dialog.issue_button.isEnabled()
    assert dialog.errors.code == DialogCode.DOCUMENT_NOT_ON_SCREEN


# -- the printer --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("operator", "allowed"),
    [
        (DIRECTOR, True),
        (Operator("admin", "Admin", frozenset({Role.ADMIN})), True),
        (CLERK, False),
    ],
)
def test_the_printer_is_chosen_by_a_director_or_an_administrator(
    qtbot: QtBot, demo_ctx: AppContext, operator: Operator, allowed: bool
) -> None:
    from admission.devices import DeviceStatus

    asked: list[tuple[str, str]] = []

    def preflight(backend: str, target: str) -> DeviceStatus:
        asked.append((backend, target))
        return DeviceStatus.READY

    path = demo_ctx.data_dir / "settings.json"
    dialog = PrinterDialog(SettingsOps(demo_ctx.settings, path, preflight), operator, RUNNER)
    qtbot.addWidget(dialog)
    assert dialog.save_button.isEnabled() is allowed
    if not allowed:
        assert dialog.errors.code == DialogCode.PRINTER_NEEDS_ROLE
        dialog.save()
        assert not path.exists()
        return
    fields = dialog.fields
    fields.backend.setCurrentIndex(fields.backend.findData("cups"))
    fields.card_queue.setCurrentText("Evolis_Primacy")
    fields.check_button.click()
    assert asked == [("cups", "Evolis_Primacy")] and fields.status is DeviceStatus.READY
    assert fields.status_label.text() == "Preparada"
    screenshot(dialog, "dialog-printer")
    dialog.save()
    assert demo_ctx.settings["printer.backend"] == "cups"
    from admission.settings import Settings

    saved = Settings.load(path)
    assert saved["printer.card"] == "Evolis_Primacy" and saved["printer.backend"] == "cups"


def test_dates_are_shown_in_madrid() -> None:
    from datetime import UTC, datetime

    from ui.desk.text import local_date, local_time

    assert local_time(datetime(2026, 12, 3, 23, 30, tzinfo=UTC)) == "04/12/2026 00:30"
    assert local_date(date(2026, 12, 3)) == "03/12/2026"


def test_the_dialogs_work_on_the_store_worker_thread(qtbot: QtBot, demo_ctx: AppContext) -> None:
    """The window runs every file call on its one store thread (ui.desk.workers.StoreWorker):
    the button waits for the answer, then the list shows the ban."""
    from ui.desk.workers import StoreWorker

    worker = StoreWorker()
    try:
        dialog = BansDialog(
            ban_ops.of(demo_ctx), worker, Authorise(DIRECTOR), operator=CLERK.username
        )
        qtbot.addWidget(dialog)
        dialog.identity_edit.setText(dni(12345678))
        dialog.add_reason.setPlainText("Comportamiento violento en la sala")
        with qtbot.waitSignal(dialog.bans_changed, timeout=5000):
            dialog.add_button.click()
            assert not dialog.add_button.isEnabled()  # one press, one ban
        qtbot.waitUntil(lambda: len(dialog.shown_bans()) == 1, timeout=5000)
        assert dialog.add_button.isEnabled()
        assert dialog.shown_bans()[0].decided_by == "director1"
    finally:
        worker.stop()


def unnamed_controls(widget: QWidget) -> list[str]:
    from PySide6.QtWidgets import (
        QAbstractButton,
        QComboBox,
        QDateEdit,
        QLineEdit,
        QPlainTextEdit,
        QSpinBox,
        QTableWidget,
    )

    kinds = (QLineEdit, QComboBox, QSpinBox, QDateEdit, QTableWidget, QPlainTextEdit)
    found = []
    for kind in (*kinds, QAbstractButton):
        for control in widget.findChildren(kind):
            # the inner line edit of a spin or combo box; a table's corner button
            inner = isinstance(control.parent(), QComboBox | QSpinBox | QDateEdit | QTableWidget)
            if inner or type(control).__name__ in ("QTabBar", "QToolButton"):
                continue
            if control.objectName().startswith("qt_"):
                continue
            if not control.accessibleName():
                found.append(f"{type(control).__name__}:{getattr(control, 'text', str)()}")
    return found


def test_every_control_of_every_dialog_has_an_accessible_name(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    from ui.desk.dialogs.official import OfficialDialog
    from ui.desk.dialogs.vouchers import VoucherIssueDialog, VouchersDialog

    shown = document(demo_ctx)
    listings = StoreListings(demo_ctx.store)
    path = demo_ctx.data_dir / "settings.json"
    dialogs: list[QWidget] = [
        BansDialog(
            ban_ops.of(demo_ctx), RUNNER, Authorise(DIRECTOR), operator="c", listings=listings
        ),
        StaffDialog(staff_ops.of(demo_ctx), RUNNER, Authorise(DIRECTOR), listings=listings),
        CardActionsDialog(card_ops.of(demo_ctx), RUNNER, Authorise(DIRECTOR)),
        ReprintQueueDialog(card_ops.of(demo_ctx), RUNNER, operator="c"),
        ExceptionalCardDialog(
            card_ops.of(demo_ctx), RUNNER, Authorise(DIRECTOR), shown, operator="c"
        ),
        PrinterDialog(SettingsOps(demo_ctx.settings, path), DIRECTOR, RUNNER),
        OfficialDialog(official_ops.of(demo_ctx), RUNNER, shown, operator="c"),
        VoucherIssueDialog(voucher_ops.of(demo_ctx), RUNNER, shown, None, operator="c"),
        VouchersDialog(voucher_ops.of(demo_ctx), RUNNER, operator="c", document=lambda: shown),
    ]
    for dialog in dialogs:
        qtbot.addWidget(dialog)
        assert dialog.accessibleName(), type(dialog).__name__
        assert unnamed_controls(dialog) == [], type(dialog).__name__


def test_the_exceptional_card_never_overrides_the_register(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    """Art. 23.5 excuses the documents, never the RIAJ (art. 20.2, 21.1)."""
    from tests.ui.conftest import seed_register

    seed_register(demo_ctx, [dni(45678901)])
    shown = document(demo_ctx, 45678901)
    dialog = ExceptionalCardDialog(
        card_ops.of(demo_ctx), RUNNER, Authorise(DIRECTOR), shown, operator=CLERK.username
    )
    qtbot.addWidget(dialog)
    dialog.issue_button.click()
    assert dialog.admission is not None and dialog.admission.card is None
    assert "RIAJ" in dialog.errors.text()
    assert demo_ctx.reprints.unprinted_cards() == []

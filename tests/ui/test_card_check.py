"""The card check at the desk (R8, art. 22.4) as a clerk uses it: a code typed and Enter
checks it once (one audit entry), the field keeps the focus for the next code, the
answer is shown whole and the card type by its name, never its code."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from tests.ui.test_desk_menus import case, screenshot, window
from ui.context import AppContext
from ui.desk.desk_window import DeskWindow

WAIT = 10_000


__all__ = ["window"]  # the fixture: the desk window on the demo file (tests/ui/test_desk_menus)


def admitted_card(qtbot: QtBot, win: DeskWindow, ctx: AppContext) -> int:
    with qtbot.waitSignal(win.controller.verdict_ready, timeout=WAIT):
        win.controller.submit_mrz(case(ctx, "admitted").lines)
    with qtbot.waitSignal(win.controller.card_printed, timeout=WAIT) as printed:
        win.enter()
    number = printed.args[0]
    assert isinstance(number, int)
    return number


def checks(ctx: AppContext) -> int:
    return sum(1 for e in ctx.store.audit_entries() if e.action == "CARD_CHECK")


def test_enter_checks_once_and_the_field_keeps_the_focus(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    number = admitted_card(qtbot, window, demo_ctx)
    dialog = window.open_card_check()
    qtbot.waitUntil(dialog.code.hasFocus)
    before = checks(demo_ctx)
    with qtbot.waitSignal(window.controller.card_checked, timeout=WAIT):
        QTest.keyClicks(dialog.code, demo_ctx.card_code(number))
        QTest.keyClick(dialog.code, Qt.Key.Key_Return)
    qtbot.wait(200)  # a second check, if Enter also pressed a default button, lands here
    assert checks(demo_ctx) == before + 1
    assert dialog.isVisible()  # Enter did not close the dialog either
    assert dialog.code.hasFocus() and dialog.code.selectedText() == dialog.code.text()
    # the card type by its name in the window's language, never the raw code
    answer = dialog.answer
    assert answer is not None and answer.card_type
    assert window.card_label(answer.card_type) in dialog.card.text()
    if window.card_label(answer.card_type) != answer.card_type:
        assert f" {answer.card_type}" not in dialog.card.text()
    # the next code typed replaces the last one; clicking the button keeps the focus
    QTest.keyClicks(dialog.code, "ADM1-NOPE")
    assert dialog.code.text() == "ADM1-NOPE"
    with qtbot.waitSignal(window.controller.card_checked, timeout=WAIT):
        QTest.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)
    assert dialog.code.hasFocus()
    assert checks(demo_ctx) == before + 2
    # the signed code of the card's QR (art. 22.4), whole in the field
    signed = demo_ctx.signed_card_code(number)
    QTest.keyClicks(dialog.code, signed)
    assert dialog.code.text() == signed
    with qtbot.waitSignal(window.controller.card_checked, timeout=WAIT):
        QTest.keyClick(dialog.code, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.answer is not None and dialog.answer.signed)
    assert dialog.answer is not None and dialog.answer.ok
    screenshot(dialog, "card-check-es")


def test_a_long_answer_is_shown_whole(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    dialog = window.open_card_check()
    qtbot.waitUntil(dialog.code.hasFocus)
    with qtbot.waitSignal(window.controller.card_checked, timeout=WAIT):
        QTest.keyClicks(dialog.code, "ADM1-00000000-GARBAGE")
        QTest.keyClick(dialog.code, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.answer is not None)
    status = dialog.status
    assert status.wordWrap()

    # the label's height fits its wrapped text at its width: nothing cut off
    def fits() -> bool:
        return status.height() >= status.heightForWidth(status.width()) > 0

    qtbot.waitUntil(fits, timeout=2000)  # once the layout has run


def test_a_voided_card_says_why(qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext) -> None:
    """A voided card's signed code answers VOIDED with the director's reason (art. 22:
    a card is voided with a reason, never deleted)."""
    number = admitted_card(qtbot, window, demo_ctx)
    reason = "Tarjeta extraviada: se emitió otra"
    demo_ctx.store.void_card(number, reason, "director", demo_ctx.clock.now())
    dialog = window.open_card_check()
    qtbot.waitUntil(dialog.code.hasFocus)
    with qtbot.waitSignal(window.controller.card_checked, timeout=WAIT):
        QTest.keyClicks(dialog.code, demo_ctx.signed_card_code(number))
        QTest.keyClick(dialog.code, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.answer is not None)
    assert dialog.answer is not None and dialog.answer.status.value == "VOIDED"
    assert dialog.void_reason.text() == reason
    assert not dialog.answer.ok and dialog.status.text().startswith("✖")

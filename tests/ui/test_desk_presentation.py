"""The real desk window offscreen (pytest-qt) on the demo file: a re-entry on the card
held is neutral - its own colour, glyph, word and sound - offers the reprint with one
key and a reason, and is counted neither as a refusal nor as a visit; the banner of an
admission says the type and price Enter charges, and the type comes back to the default
after the card; a document read behind a verdict waits and the window says so; the
same document read again is recorded once (arts. 20.3, 22, 23.2-3)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from admission.cards.view import format_euros
from admission.catalogue import text
from admission.clock import FixedClock
from hardware.sound import Sound, TonePlayer
from tests.ui.conftest import FakeSession
from tests.ui.test_desk_menus import case, make_window, screenshot, window
from tests.ui.test_translations import english  # noqa: F401  # the English fixture
from ui.context import AppContext
from ui.desk.desk_window import DeskWindow
from ui.desk.dialogs.cards import CardActionsDialog
from ui.desk.theme import VERDICT_COLOURS

__all__ = ["window"]  # the fixture: the desk window on the demo file (tests/ui/test_desk_menus)

WAIT = 10_000


def press(win: DeskWindow, keys: str) -> None:
    QTest.keySequence(win, QKeySequence(keys))


def read(win: DeskWindow, lines: tuple[str, ...]) -> None:
    win.read_mrz(list(lines))  # as a reader's burst reaches the window


def visits(ctx: AppContext, lines: tuple[str, ...]) -> list[str]:
    from admission.ports import madrid_date
    from ui.desk.desk_flow import document_from_lines

    document, _ = document_from_lines(list(lines), madrid_date(ctx.clock.now()))
    assert document is not None
    visitor = ctx.store.find_visitor(document.identity)
    return [] if visitor is None else [v.verdict for v in ctx.store.visits(visitor.file_number)]


def test_a_reentry_is_neutral_offers_the_reprint_and_is_no_refusal(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    lines = case(demo_ctx, "admitted").lines
    read(window, lines)
    press(window, "Return")
    assert demo_ctx.store.last_card_number() == 1
    press(window, "Esc")
    assert isinstance(window.sound, TonePlayer)
    window.sound.played.clear()
    read(window, lines)  # the same person, back in: the card is in their pocket
    banner = window.verdict
    assert banner.outcome == "ALREADY_ADMITTED"
    assert "YA ADMITIDO" in banner.headline.text() and "↻" in banner.headline.text()
    assert "Ya admitido: tarjeta nº 1, válida hasta la sesión del" in banner.reasons.text()
    assert VERDICT_COLOURS["ALREADY_ADMITTED"] in banner.styleSheet()
    assert VERDICT_COLOURS["ALREADY_ADMITTED"] not in (
        VERDICT_COLOURS["ADMIT"],
        VERDICT_COLOURS["DENY"],
    )
    assert window.sound.played == [Sound.REENTRY]  # neither the admission's nor a refusal's
    assert "Reentrada registrada" in banner.progress.text()
    assert "Ctrl+R" in banner.progress.text()
    assert visits(demo_ctx, lines) == ["ADMIT", "ALREADY_ADMITTED"]
    assert demo_ctx.store.last_card_number() == 1  # no number taken
    qtbot.wait(100)  # the banner fits its fonts once laid out
    screenshot(window, "desk-verdict-already-admitted")
    # one key: the card held, looked up, the reason field ready (the director decides)
    before = demo_ctx.store.card(1)
    assert before is not None
    press(window, "Ctrl+R")
    dialog = window.presentation.dialog
    assert isinstance(dialog, CardActionsDialog) and dialog.isVisible()
    assert dialog.number_spin.value() == 1 and dialog.reprint_button.isDefault()
    assert "Tarjeta 1" in dialog.card_label.text()
    dialog.reason.setPlainText("la perdió en la sala")
    dialog.reprint()  # the store worker is immediate here
    after = demo_ctx.store.card(1)
    assert after is not None and after.print_count == before.print_count + 1
    assert demo_ctx.store.last_card_number() == 1  # reprinted under its number (art. 22)
    dialog.reject()
    # the figures: one admission, no refusal, one re-entry; "Visitas" in the panel: 1
    assert window.identity.visits.text().startswith("1")


def test_the_banner_says_the_type_and_price_enter_charges_and_the_type_resets(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    catalogue = demo_ctx.desk.config.catalogue
    codes = list(catalogue.types)
    default, other = catalogue.default, next(c for c in codes if c != catalogue.default)
    read(window, case(demo_ctx, "admitted").lines)
    progress = window.verdict.progress.text()
    assert window.card_label(default) in progress
    assert format_euros(catalogue.types[default].price_cents) in progress
    press(window, f"F{codes.index(other) + 1}")  # the visitor wants a pass
    progress = window.verdict.progress.text()
    assert window.card_label(other) in progress
    assert format_euros(catalogue.types[other].price_cents) in progress
    qtbot.wait(100)  # the banner fits its fonts once laid out
    screenshot(window, "desk-verdict-admit-charge")
    press(window, "Return")
    card = demo_ctx.store.card(1)
    assert card is not None and card.card_type == other
    assert window.controller.card_type == default  # the next visitor starts afresh
    assert window.card_label(default) in window.card_type.text()
    press(window, "Esc")
    read(window, case(demo_ctx, "admitted", 1).lines)
    assert window.card_label(default) in window.verdict.progress.text()


def test_the_next_document_waits_behind_the_verdict_and_the_window_says_so(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    first, second = case(demo_ctx, "admitted").lines, case(demo_ctx, "admitted", 1).lines
    read(window, first)
    read(window, second)
    assert window.verdict.outcome == "ADMIT"
    assert window.controller.current is not None
    label = window.presentation.waiting_label
    assert label.isVisible() and "1" in label.text() and "Intro" in label.text()
    qtbot.wait(100)  # the banner fits its fonts once laid out
    screenshot(window, "desk-document-waiting")
    read(window, first)  # the one on screen read again: recorded once, said
    assert "El mismo documento" in window.status.currentMessage()
    press(window, "Return")  # the first admitted; the second is checked at once
    assert visits(demo_ctx, first) == ["ADMIT"]
    assert window.verdict.outcome == "ADMIT" and not label.isVisible()
    # the first card's printing is told in the status bar: the banner is the second's
    assert window.presentation.card_on_screen is None
    press(window, "Esc")  # the second dismissed: recorded, not admitted
    assert visits(demo_ctx, second) == ["NOT_ADMITTED"]
    assert demo_ctx.store.last_card_number() == 1


def test_a_garbled_read_behind_a_verdict_leaves_it_on_screen(
    window: DeskWindow, demo_ctx: AppContext
) -> None:
    read(window, case(demo_ctx, "admitted").lines)
    window.read_mrz(["P<ESPGARBAGE", "123"])
    assert window.verdict.outcome == "ADMIT"  # the verdict is not replaced
    assert "LEA DE NUEVO" not in window.verdict.headline.text()
    assert window.status.currentMessage()  # the refusal of the read, in the status bar


def test_the_register_unavailable_is_shown_as_not_admitted_not_as_a_refusal(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext, desk_clock: FixedClock
) -> None:
    desk_clock.advance(timedelta(hours=25))  # the RIAJ copy is past its age
    read(window, case(demo_ctx, "admitted").lines)
    banner = window.verdict
    assert banner.outcome == "NOT_ADMITTED" and "⊘" in banner.headline.text()
    assert VERDICT_COLOURS["NOT_ADMITTED"] in banner.styleSheet()
    assert text("REGISTRY_UNVERIFIABLE", "es") in banner.reasons.text()
    assert "no es una denegación" in banner.progress.text()
    assert "DENEGAR" not in banner.headline.text()
    qtbot.wait(100)  # the banner fits its fonts once laid out
    screenshot(window, "desk-verdict-not-admitted")
    assert visits(demo_ctx, case(demo_ctx, "admitted").lines) == ["NOT_ADMITTED"]
    press(window, "Return")  # seen: nothing more recorded, no card
    assert visits(demo_ctx, case(demo_ctx, "admitted").lines) == ["NOT_ADMITTED"]
    assert demo_ctx.store.last_card_number() == 0


def test_the_inspectors_timeline_names_the_reentry_and_does_not_count_it(
    qtbot: QtBot, demo_ctx: AppContext
) -> None:
    from datetime import timedelta as minutes_apart

    from tests.ui.test_inspection_screen import DIRECTOR as INSPECTING_DIRECTOR
    from tests.ui.test_inspection_screen import PURPOSE, admit, make_screen

    first = admit(demo_ctx, 12345678, "GARCIA LOPEZ", "ANA")
    assert isinstance(demo_ctx.clock, FixedClock)
    demo_ctx.clock.advance(minutes_apart(minutes=40))
    again = admit(demo_ctx, 12345678, "GARCIA LOPEZ", "ANA")
    assert first.card is not None and again.reentry
    screen = make_screen(qtbot, demo_ctx, INSPECTING_DIRECTOR)
    screen.purpose_edit.setText(PURPOSE)
    screen.name_edit.setText("garcia lopez")
    screen.search()
    screen.results_view.setCurrentIndex(screen.results.index(0, 0))
    screen.timeline_button.click()
    assert screen.timeline.rowCount() == 2  # both presentations are in the file
    verdicts = [screen.timeline.row_texts(row)[3] for row in range(2)]
    assert verdicts == ["Admitido", "Reentrada (no es visita)"]
    assert "· 1 visitas" in screen.person_label.text()  # the re-entry is no visit


@pytest.mark.usefixtures("english")
def test_the_reentry_and_the_charge_speak_english(
    qtbot: QtBot, demo_ctx: AppContext, session: FakeSession
) -> None:
    win = make_window(qtbot, demo_ctx, session)
    try:
        lines = case(demo_ctx, "admitted").lines
        read(win, lines)
        assert "Enter: charge" in win.verdict.progress.text()
        press(win, "Return")
        press(win, "Esc")
        read(win, lines)
        banner = win.verdict
        assert "ALREADY ADMITTED" in banner.headline.text()
        assert "Already admitted: card no. 1, valid through the session of" in banner.reasons.text()
        assert "Re-entry recorded in file 1 (not a new visit)" in banner.progress.text()
        qtbot.wait(100)
        screenshot(win, "desk-verdict-already-admitted-en")
    finally:
        win.stop()


def test_a_first_visit_shows_its_new_file_number_once_recorded(
    qtbot: QtBot, window: DeskWindow, demo_ctx: AppContext
) -> None:
    """The identity panel says "nueva (primera visita)" while the verdict waits, and the
    file the visit went into once it is recorded (a refusal: the moment it is shown)."""
    with qtbot.waitSignal(window.controller.admission_recorded, timeout=WAIT) as recorded:
        window.controller.submit_mrz(case(demo_ctx, "minor").lines)
    number = recorded.args[0].recorded.file_number
    assert window.identity.file_number.text() == str(number)

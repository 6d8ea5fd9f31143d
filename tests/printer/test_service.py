"""Printing a card through the service on the scripted fake printer: on every failure the
card keeps its number, stays ISSUED and can be reprinted; nothing is lost and no number is
burnt (art. 22.3: card numbers are correlative)."""

from __future__ import annotations

import pytest

from admission.cards.view import CardView
from admission.clock import FixedClock
from admission.errors import InvalidStateError
from admission.records import CardStatus
from hardware.printer import CR80
from hardware.printer.fake import FakePrinter
from hardware.printer.render import CardStyle, Rendered
from hardware.printer.service import CardPrintService
from tests.fake_store import FakeStore
from tests.printer.factories import ISSUED_AT, admission_entry, presentation


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(ISSUED_AT)


@pytest.fixture
def store(clock: FixedClock) -> FakeStore:
    return FakeStore(clock)


def _service(store: FakeStore, printer: FakePrinter, clock: FixedClock) -> CardPrintService:
    return CardPrintService(store, printer, clock, visitors=store, presentation=presentation())


def _issue(store: FakeStore, n: int = 1) -> int:
    number = store.record_admission(admission_entry(n)).card_number
    assert number is not None
    return number


def test_print_ok_marks_printed_and_spools_cr80(store: FakeStore, clock: FixedClock) -> None:
    printer = FakePrinter()
    service = _service(store, printer, clock)
    number = _issue(store)
    outcome = service.print_card(service.view_for(number), actor="op-1")
    assert outcome.printed and outcome.code == ""
    card = store.card(number)
    assert card is not None and card.status is CardStatus.PRINTED and card.print_count == 1
    (job,) = printer.jobs
    assert job.page == CR80 and job.pdf.startswith(b"%PDF")
    assert job.title == f"card-{number}"  # the job title carries no name


@pytest.mark.parametrize(
    "outcome, code",
    [
        ("NOT_FOUND", "PRINTER_NOT_FOUND"),
        ("PAUSED", "PRINTER_PAUSED"),
        ("REJECTING", "PRINTER_REJECTING"),
        ("NO_MEDIA", "PRINTER_NO_MEDIA"),
        ("SUBMIT_ERROR", "PRINT_SUBMIT_FAILED"),
        ("VANISHED_MID_JOB", "PRINTER_VANISHED"),
        ("FAILED", "PRINT_FAILED"),
        ("TIMEOUT", "PRINT_TIMEOUT"),
    ],
)
def test_failure_keeps_number_issued_then_reprint(
    store: FakeStore, clock: FixedClock, outcome: str, code: str
) -> None:
    printer = FakePrinter(script=[outcome])
    service = _service(store, printer, clock)
    number = _issue(store)
    first = service.print_card(service.view_for(number), actor="op-1")
    assert not first.printed and first.code == code
    card = store.card(number)
    assert card is not None and card.status is CardStatus.ISSUED and card.print_count == 0
    # the next admission still gets the next number: nothing burnt, nothing reused
    assert _issue(store, 2) == number + 1
    again = service.print_card(
        service.view_for(number), actor="op-1", reprint_reason="printer fixed"
    )
    assert again.printed
    card = store.card(number)
    assert card is not None and card.status is CardStatus.PRINTED
    assert [kind for _, kind, _, _ in store.card_events(number)] == ["REPRINT", "PRINTED"]


def test_reprint_of_printed_card_needs_reason(store: FakeStore, clock: FixedClock) -> None:
    service = _service(store, FakePrinter(), clock)
    number = _issue(store)
    view = service.view_for(number)
    assert service.print_card(view, actor="op-1").printed
    with pytest.raises(InvalidStateError) as err:
        service.print_card(view, actor="op-1")
    assert err.value.code == "REPRINT_NEEDS_REASON"
    assert service.print_card(view, actor="op-1", reprint_reason="card damaged").printed
    card = store.card(number)
    assert card is not None and card.print_count == 2


def test_voided_card_is_never_printed(store: FakeStore, clock: FixedClock) -> None:
    printer = FakePrinter()
    service = _service(store, printer, clock)
    number = _issue(store)
    view = service.view_for(number)
    store.void_card(number, "wrong person", "sup-1", clock.now())
    with pytest.raises(InvalidStateError):
        service.print_card(view, actor="op-1")
    assert printer.jobs == []


def test_bad_logo_still_prints_with_warning(
    store: FakeStore, clock: FixedClock, tmp_path: object
) -> None:
    from pathlib import Path

    bad = Path(str(tmp_path)) / "logo.png"
    bad.write_bytes(b"this is not a PNG at all")
    service = CardPrintService(
        store,
        FakePrinter(),
        clock,
        visitors=store,
        presentation=presentation(),
        style=CardStyle(logo=str(bad)),
    )
    number = _issue(store)
    outcome = service.print_card(service.view_for(number), actor="op-1")
    assert outcome.printed and "LOGO_UNREADABLE" in outcome.warnings


def test_renderer_crash_keeps_card_issued(store: FakeStore, clock: FixedClock) -> None:
    def broken(view: CardView, style: CardStyle | None) -> Rendered:
        raise RuntimeError("boom")

    service = CardPrintService(
        store, FakePrinter(), clock, visitors=store, presentation=presentation(), renderer=broken
    )
    number = _issue(store)
    outcome = service.print_card(service.view_for(number), actor="op-1")
    assert outcome.code == "RENDER_FAILED"
    card = store.card(number)
    assert card is not None and card.status is CardStatus.ISSUED

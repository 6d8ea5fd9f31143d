"""Shared helpers of the report dialogs' tests: the context's report service (or, until
the composition root builds one, a ReportService over the same store with a renderer
that writes a stand-in PDF), a screenshot on the dark theme, and admissions at chosen
times on the demo file."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from PySide6.QtWidgets import QWidget

from admission.clock import FixedClock
from admission.desk import AdmissionResult
from admission.ports import madrid_date
from tests.factories import dni_document
from tests.ui.conftest import CLERK
from ui.context import AppContext
from ui.desk.theme import dark_palette


def report_service(ctx: AppContext) -> Any:
    reports = getattr(ctx, "reports", None)
    if reports is not None:
        return reports
    from admission.reports import CasinoInfo, ReportService

    class StandIn:
        def __getattr__(self, _name: str) -> Any:
            return lambda *_a, **_k: b"%PDF-1.4 stand-in"

    return ReportService(ctx.store, ctx.clock, StandIn(), CasinoInfo("Casino demo", "X", "-"))


def screenshot(widget: QWidget, name: str) -> None:
    try:
        from ui.desk.screens import save_screenshot
    except ImportError:
        return
    widget.setPalette(dark_palette())  # as the window shows it (ui.desk.theme)
    save_screenshot(widget, name)


def admit_at(
    ctx: AppContext,
    clock: FixedClock,
    at: datetime,
    number: int,
    names: Sequence[str] = ("GARCIA LOPEZ", "ANA"),
    card_type: str | None = None,
) -> AdmissionResult:
    clock.set(at)
    today = madrid_date(at)
    document = dni_document(number, surname=names[0], given_names=names[1], today=today)
    if card_type is None:
        return ctx.desk.admit(document, operator=CLERK.username)
    return ctx.desk.admit(document, operator=CLERK.username, card_type=card_type)

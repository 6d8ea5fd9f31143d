"""Qt printing adapter (Windows counter PCs), tested offscreen: listing, preflight, and —
when CUPS and the CardPDF queue are there — a real card through Qt's print system."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from admission.devices import CR80, DeviceStatus, JobState
from tests.printer.cups_env import CARD_QUEUE, collect_output, cups_pdf_out, skip_reason
from tests.printer.factories import view

pytest.importorskip("PySide6.QtPrintSupport")


def test_lists_and_preflights(qapp: object) -> None:
    from hardware.printer.qt import QtPrinter, list_qt_printers

    printers = list_qt_printers()
    assert all(p.name for p in printers)
    missing = QtPrinter(f"Missing{uuid.uuid4().hex[:8]}")
    assert missing.preflight().status is DeviceStatus.NOT_FOUND
    if not skip_reason():
        assert CARD_QUEUE in {p.name for p in printers}
        assert QtPrinter(CARD_QUEUE).preflight().status.usable


@pytest.mark.skipif(bool(skip_reason()), reason=skip_reason() or "ready")
def test_qt_prints_card_at_exact_size(qapp: object, tmp_path: Path) -> None:
    import pypdfium2 as pdfium  # type: ignore[import-untyped]
    import zxingcpp  # type: ignore[import-not-found]

    from hardware.printer.qt import QtPrinter
    from hardware.printer.render import render_card

    card = view(42)
    title = f"card-42-qt{uuid.uuid4().hex[:10]}"
    printer = QtPrinter(CARD_QUEUE)
    job = printer.submit(render_card(card).pdf, title=title, page=CR80)
    assert printer.follow(job).state is JobState.COMPLETED
    out = cups_pdf_out()
    assert out is not None
    produced = collect_output(out, title, tmp_path)
    doc = pdfium.PdfDocument(str(produced))
    try:
        width, height = (v * 25.4 / 72 for v in doc[0].get_size())
        assert abs(width - 85.6) <= 0.5 and abs(height - 54.0) <= 0.5
        image = doc[0].render(scale=300 / 72).to_pil()
    finally:
        doc.close()
    assert [r.text for r in zxingcpp.read_barcodes(image)] == [card.code]
    produced.unlink()

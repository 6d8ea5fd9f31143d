"""The real print path: a card printed through the same service the GUI uses,
on the CardPDF cups-pdf queue, read back from the PDF cups-pdf produced."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.records import CardStatus
from db.keys import DbKey
from db.store import SqlCipherStore
from hardware.printer.cups import CupsPrinter
from hardware.printer.service import CardPrintService
from tests.printer.cups_env import CARD_QUEUE, collect_output, cups_pdf_out, skip_reason
from tests.printer.factories import ISSUED_AT, admission_entry, presentation

pytestmark = pytest.mark.skipif(bool(skip_reason()), reason=skip_reason() or "ready")

LONG_SURNAME = "Fernández-Villaverde y Ruiz de Alarcón Muñoz-Ibáñez de la Peña"


def _mm(points: float) -> float:
    return points * 25.4 / 72


def test_card_printed_on_cups_pdf_reads_back(tmp_path: Path) -> None:
    import pypdfium2 as pdfium  # type: ignore[import-untyped]
    import zxingcpp  # type: ignore[import-not-found]
    from pyzbar import pyzbar  # type: ignore[import-untyped]

    clock = FixedClock(ISSUED_AT)
    tag = uuid.uuid4().hex[:12]
    with SqlCipherStore.open(
        tmp_path / "visitors.db", DbKey.generate(source="test"), clock=clock
    ) as store:
        recorded = store.record_admission(admission_entry(7, surname="Ñúñez Peña"))
        number = recorded.card_number
        assert number is not None
        service = CardPrintService(
            store,
            CupsPrinter(CARD_QUEUE),
            clock,
            visitors=store,
            presentation=presentation(),
            job_tag=tag,
            job_timeout=60,
        )
        view = service.view_for(number)
        outcome = service.print_card(view, actor="op-1")
        assert outcome.printed, outcome.code
        card = store.card(number)
        assert card is not None and card.status is CardStatus.PRINTED

    out_dir = cups_pdf_out()
    assert out_dir is not None
    produced = collect_output(out_dir, f"card-{number}-{tag}", tmp_path)
    doc = pdfium.PdfDocument(str(produced))
    try:
        assert len(doc) == 1
        page = doc[0]
        width, height = page.get_size()
        assert abs(_mm(width) - 85.6) <= 0.5 and abs(_mm(height) - 54.0) <= 0.5
        text = page.get_textpage().get_text_bounded()
        assert str(number) in text
        assert "José Ángel Ñúñez Peña" in " ".join(text.split())
        image = page.render(scale=300 / 72).to_pil()
    finally:
        doc.close()
    assert [r.text for r in zxingcpp.read_barcodes(image)] == [view.code]
    assert [r.data.decode() for r in pyzbar.decode(image)] == [view.code]
    produced.unlink()


@pytest.mark.skipif(bool(skip_reason("LeafletPDF")), reason=skip_reason("LeafletPDF") or "ok")
def test_leaflet_printed_on_a5(tmp_path: Path) -> None:
    import pypdfium2 as pdfium

    from admission.leaflet import LeafletConfig, build_leaflet
    from hardware.printer.service import print_leaflet

    class Tagged(CupsPrinter):  # same adapter, unique job title for this test
        def submit(self, pdf: bytes, *, title: str, page: object) -> str:
            return super().submit(pdf, title=f"{title}-{tag}", page=page)  # type: ignore[arg-type]

    tag = uuid.uuid4().hex[:12]
    leaflet = build_leaflet(
        LeafletConfig(casino_name="Casino Gran Madrid Demo", games=("Ruleta francesa", "Póquer"))
    )
    code, _ = print_leaflet(Tagged("LeafletPDF"), leaflet, timeout=60)
    assert code == ""
    out_dir = cups_pdf_out()
    assert out_dir is not None
    produced = collect_output(out_dir, f"leaflet-{tag}", tmp_path)
    doc = pdfium.PdfDocument(str(produced))
    try:
        width, height = doc[0].get_size()
        text = doc[0].get_textpage().get_text_bounded()
    finally:
        doc.close()
    # the cups-pdf PPD defines A5 in whole points (421 x 595): 148.5 mm wide
    assert abs(_mm(width) - 148) <= 1.0 and abs(_mm(height) - 210) <= 1.0
    assert "Ruleta francesa" in text and "Póquer" in text

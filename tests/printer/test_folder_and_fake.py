"""The demo PDF-folder printer and the scripted fake printer."""

from __future__ import annotations

from pathlib import Path

import pytest

from admission.devices import CR80, DeviceStatus, JobState
from admission.errors import DeviceError
from hardware.printer.fake import FakePrinter
from hardware.printer.pdf_folder import PdfFolderPrinter


def test_pdf_folder_writes_whole_files(tmp_path: Path) -> None:
    printer = PdfFolderPrinter(tmp_path / "out")
    assert printer.preflight().status is DeviceStatus.READY
    first = printer.submit(b"%PDF-1.4 one", title="card-1", page=CR80)
    second = printer.submit(b"%PDF-1.4 two", title="card-1", page=CR80)  # reprint
    assert first != second
    assert printer.follow(first).state is JobState.COMPLETED
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["card-1-2.pdf", "card-1.pdf"]
    (tmp_path / "out" / second).unlink()
    assert printer.follow(second).state is JobState.VANISHED


def test_pdf_folder_not_writable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    printer = PdfFolderPrinter(blocker / "sub")
    assert printer.preflight().status is DeviceStatus.NOT_FOUND
    with pytest.raises(DeviceError):
        printer.submit(b"%PDF", title="card-1", page=CR80)


def test_fake_script_replays_and_records() -> None:
    printer = FakePrinter(script=["PAUSED", "VANISHED_MID_JOB", "OK"])
    assert printer.preflight().status is DeviceStatus.PAUSED
    job = printer.submit(b"%PDF", title="card-1", page=CR80)
    assert printer.follow(job).state is JobState.VANISHED
    job = printer.submit(b"%PDF", title="card-1", page=CR80)
    assert printer.follow(job).ok
    assert [j.outcome for j in printer.jobs] == ["VANISHED_MID_JOB", "OK"]
    with pytest.raises(ValueError):
        FakePrinter(script=["EXPLODE"])


def test_print_voucher_and_leaflet_through_spool() -> None:
    from datetime import UTC, datetime

    from admission.leaflet import LeafletConfig, build_leaflet
    from admission.vouchers.model import NewVoucher, voucher_view
    from hardware.printer import A5, RECEIPT_80
    from hardware.printer.service import print_leaflet, print_voucher

    printer = FakePrinter(script=["OK", "NO_MEDIA"])
    voucher = NewVoucher(
        datetime(2026, 11, 28, 22, tzinfo=UTC), "DESK1", "op", "Ana", "DNI", "12345678Z", "DAY", 500
    ).numbered(3)
    view = voucher_view(voucher, casino_name="Casino", card_type_label="Día")
    assert print_voucher(printer, view)[0] == ""
    assert printer.jobs[0].title == "voucher-3" and printer.jobs[0].page == RECEIPT_80
    leaflet = build_leaflet(LeafletConfig(casino_name="Casino"))
    assert print_leaflet(printer, leaflet) == ("PRINTER_NO_MEDIA", "")
    assert print_leaflet(printer, leaflet)[0] == ""
    assert printer.jobs[-1].page == A5

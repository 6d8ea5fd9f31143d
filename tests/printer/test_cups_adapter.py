"""CUPS adapter: parsing of lpstat text, a scheduler that is down, and (as root with
cupsd running) a throw-away queue that is paused, rejecting, or deleted mid-job."""

from __future__ import annotations

import os
import stat
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from admission.devices import CR80, DeviceStatus, JobState
from admission.errors import DeviceError
from hardware.printer.cups import (
    CupsPrinter,
    list_printers,
    parse_printer_status,
    scheduler_running,
)
from tests.printer.cups_env import skip_reason

IDLE = "printer Cards is idle.  enabled since Sun Nov 29 17:49:06 2026\n\tAlerts: none\n"
ACCEPTING = "Cards accepting requests since Sun Nov 29 17:49:06 2026\n"


@pytest.mark.parametrize(
    "printer_text, accepting, status",
    [
        (IDLE, ACCEPTING, DeviceStatus.READY),
        (
            "printer Cards disabled since Sun Nov 29 2026 -\n\tribbon change\n\tAlerts: paused\n",
            ACCEPTING,
            DeviceStatus.PAUSED,
        ),
        (
            IDLE,
            "Cards not accepting requests since Sun Nov 29 2026 -\n\tno\n",
            DeviceStatus.REJECTING,
        ),
        (
            "printer Cards is idle.  enabled since x\n\tAlerts: media-empty-error\n",
            ACCEPTING,
            DeviceStatus.NO_MEDIA,
        ),
        (
            "printer Cards is idle.  enabled since x\n\tAlerts: media-needed-warning\n",
            ACCEPTING,
            DeviceStatus.NO_MEDIA,
        ),
        (
            "printer Cards is idle.  enabled since x\n\tAlerts: media-jam-error\n",
            ACCEPTING,
            DeviceStatus.ERROR,
        ),
        (
            "printer Cards now printing Cards-12.  enabled since x\n\tAlerts: none\n",
            ACCEPTING,
            DeviceStatus.BUSY,
        ),
    ],
)
def test_parse_printer_status(printer_text: str, accepting: str, status: DeviceStatus) -> None:
    assert parse_printer_status(printer_text, accepting).status is status


def _fake_tool(bin_dir: Path, name: str, script: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + script + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_scheduler_down_although_lpstat_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # lpstat -r prints "scheduler is not running" and exits 0: the text decides
    _fake_tool(tmp_path, "lpstat", 'echo "scheduler is not running"; exit 0')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert not scheduler_running()
    assert list_printers() == []
    state = CupsPrinter("CardPDF").preflight()
    assert state.status is DeviceStatus.NOT_FOUND


def test_cups_not_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no lp at all
    with pytest.raises(DeviceError) as err:
        CupsPrinter("CardPDF").submit(b"%PDF", title="card-1", page=CR80)
    assert err.value.code == "CUPS_NOT_INSTALLED"


needs_root_cups = pytest.mark.skipif(
    bool(skip_reason()) or os.geteuid() != 0,
    reason=skip_reason() or "needs root to create a throw-away CUPS queue",
)


@pytest.fixture
def scratch_queue() -> Iterator[str]:
    name = f"ZTest{uuid.uuid4().hex[:10]}"
    subprocess.run(
        [
            "lpadmin",
            "-p",
            name,
            "-E",
            "-v",
            "cups-pdf:/",
            "-m",
            "lsb/usr/cups-pdf/CUPS-PDF_opt.ppd",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield name
    finally:
        subprocess.run(["lpadmin", "-x", name], capture_output=True, check=False)


def _pdf() -> bytes:
    from hardware.printer.render import render_card
    from tests.printer.factories import view

    return render_card(view()).pdf


@needs_root_cups
def test_scratch_queue_states(scratch_queue: str) -> None:
    printer = CupsPrinter(scratch_queue)
    assert scratch_queue in {p.name for p in list_printers()}
    assert printer.preflight().status is DeviceStatus.READY
    subprocess.run(["cupsdisable", scratch_queue], check=True)
    assert printer.preflight().status is DeviceStatus.PAUSED
    # a job on a paused queue is cancelled, not left to print later as a duplicate
    job = printer.submit(_pdf(), title="card-1-scratch", page=CR80)
    result = printer.follow(job, timeout=5)
    assert result.state is JobState.FAILED
    pending = subprocess.run(
        ["lpstat", "-W", "not-completed", "-o", scratch_queue], capture_output=True, text=True
    ).stdout
    assert job not in pending
    subprocess.run(["cupsenable", scratch_queue], check=True)
    subprocess.run(["cupsreject", scratch_queue], check=True)
    assert printer.preflight().status is DeviceStatus.REJECTING
    with pytest.raises(DeviceError) as err:
        printer.submit(_pdf(), title="card-2-scratch", page=CR80)
    assert err.value.code == "PRINTER_REJECTING"


@needs_root_cups
def test_queue_vanishes_mid_job(scratch_queue: str) -> None:
    printer = CupsPrinter(scratch_queue)
    subprocess.run(["cupsdisable", scratch_queue], check=True)  # hold the job in the queue
    job = printer.submit(_pdf(), title="card-3-scratch", page=CR80)
    subprocess.run(["lpadmin", "-x", scratch_queue], check=True)
    assert printer.follow(job, timeout=5).state is JobState.VANISHED
    assert printer.preflight().status is DeviceStatus.NOT_FOUND


def test_missing_queue() -> None:
    if not scheduler_running():
        pytest.skip("cupsd is not running")
    printer = CupsPrinter(f"Missing{uuid.uuid4().hex[:8]}")
    assert printer.preflight().status is DeviceStatus.NOT_FOUND
    with pytest.raises(DeviceError) as err:
        printer.submit(b"%PDF-1.4", title="card-4", page=CR80)
    assert err.value.code == "PRINTER_NOT_FOUND"


@pytest.mark.skipif(bool(skip_reason()), reason=skip_reason() or "ready")
def test_follow_without_ipptool_uses_lpstat(tmp_path: Path) -> None:
    from tests.printer.cups_env import CARD_QUEUE, collect_output, cups_pdf_out

    title = f"card-9-lpstat{uuid.uuid4().hex[:10]}"
    printer = CupsPrinter(CARD_QUEUE, use_ipptool=False)
    job = printer.submit(_pdf(), title=title, page=CR80)
    assert printer.follow(job, timeout=60).state is JobState.COMPLETED
    out = cups_pdf_out()
    assert out is not None
    collect_output(out, title, tmp_path).unlink()

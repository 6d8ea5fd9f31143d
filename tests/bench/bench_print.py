"""Benchmark: render + spool of one entry card (target < 100 ms) and a batch of 500
cards with flat memory.

Run directly (not part of the test run), nicely on a shared machine:

    nice .venv/bin/python tests/bench/bench_print.py

Spooling goes to a throw-away, paused CUPS queue (root + cupsd), so the 500 jobs are
measured as the desk sees them (``lp`` accepted the job) without 500 ghostscript runs;
the jobs are cancelled and the queue deleted afterwards. Without CUPS it spools to the
PDF-folder printer in a temporary directory and says so. Prints ONE markdown table.
"""

from __future__ import annotations

import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hardware.printer import CR80, CardPrinter  # noqa: E402
from hardware.printer.cups import CupsPrinter, scheduler_running  # noqa: E402
from hardware.printer.pdf_folder import PdfFolderPrinter  # noqa: E402
from hardware.printer.render import render_card  # noqa: E402
from tests.printer.factories import view  # noqa: E402

SINGLE_RUNS = 50
BATCH = 500


def rss_mb() -> float:
    """Current resident set size (Linux /proc; falls back to peak RSS elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, AttributeError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def make_printer() -> tuple[CardPrinter, str, Callable[[], None], Callable[[], None]]:
    if scheduler_running() and os.geteuid() == 0:
        name = f"ZBench{uuid.uuid4().hex[:8]}"
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
        subprocess.run(["cupsdisable", name], check=True)

        def purge() -> None:  # CUPS refuses jobs beyond MaxJobs (500 by default)
            subprocess.run(["cancel", "-a", "-x", name], capture_output=True, check=False)

        def cleanup() -> None:
            purge()
            subprocess.run(["lpadmin", "-x", name], capture_output=True, check=False)

        return CupsPrinter(name), f"CUPS `lp` to paused queue {name}", purge, cleanup
    tmp = tempfile.TemporaryDirectory()
    return (
        PdfFolderPrinter(tmp.name),
        "PDF folder (CUPS not available)",
        lambda: None,
        tmp.cleanup,
    )


def main() -> None:
    printer, target, purge, cleanup = make_printer()
    rows: list[tuple[str, str]] = []
    try:
        render_card(view(1))  # warm-up: fonts registered, logo decoded and cached
        load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        cpu0 = time.process_time()
        for i in range(20):
            render_card(view(50 + i))
        render_cpu_ms = (time.process_time() - cpu0) / 20 * 1000
        renders: list[float] = []
        spools: list[float] = []
        totals: list[float] = []
        for i in range(SINGLE_RUNS):
            t0 = time.perf_counter()
            pdf = render_card(view(100 + i)).pdf
            t1 = time.perf_counter()
            printer.submit(pdf, title=f"card-{100 + i}-bench", page=CR80)
            t2 = time.perf_counter()
            renders.append((t1 - t0) * 1000)
            spools.append((t2 - t1) * 1000)
            totals.append((t2 - t0) * 1000)

        purge()
        gc.collect()
        rss = [rss_mb()]
        batch: list[float] = []
        for i in range(BATCH):
            t0 = time.perf_counter()
            pdf = render_card(view(1000 + i)).pdf
            printer.submit(pdf, title=f"card-{1000 + i}-bench", page=CR80)
            batch.append(time.perf_counter() - t0)
            if i == BATCH // 2 - 1:
                rss.append(rss_mb())
            if i % 100 == 99:
                purge()  # outside the timed region
        batch_s = sum(batch)
        rss.append(rss_mb())
    finally:
        cleanup()

    p95 = pct(totals, 0.95)
    rows = [
        ("Spool target", target),
        ("Render one card, CPU time of this process (ms)", f"{render_cpu_ms:.1f}"),
        (
            "Render one card, p50 / p95 wall (ms)",
            f"{statistics.median(renders):.1f} / {pct(renders, 0.95):.1f}",
        ),
        (
            "Spool one card (`submit`), p50 / p95 (ms)",
            f"{statistics.median(spools):.1f} / {pct(spools, 0.95):.1f}",
        ),
        (
            f"Render + spool one card, p50 / p95 / max (ms), n={SINGLE_RUNS}",
            f"{statistics.median(totals):.1f} / {p95:.1f} / {max(totals):.1f}",
        ),
        ("Target render + spool < 100 ms (p95)", "MET" if p95 < 100 else "NOT MET"),
        (
            f"Batch of {BATCH} cards: render + spool total (s) / p50 / p95 per card (ms)",
            f"{batch_s:.1f} / {statistics.median(batch) * 1000:.1f} / "
            f"{pct(batch, 0.95) * 1000:.1f}",
        ),
        ("RSS start / middle / end (MB)", f"{rss[0]:.1f} / {rss[1]:.1f} / {rss[2]:.1f}"),
        ("RSS growth over the batch (MB)", f"{rss[2] - rss[0]:+.1f}"),
        (
            "Machine",
            f"{os.cpu_count()} CPU(s) shared, load average {load_before:.1f} at "
            f"start, Python {sys.version.split()[0]}",
        ),
    ]
    print("| measure | value |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()

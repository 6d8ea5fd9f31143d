"""Benchmark of the daily visitor book (arts. 14.1.b, 20.4): a synthetic day of N
visits (realistic Spanish names with accents, 5 % refused with their reasons, cards of
two types) rendered to PDF by the reportlab renderer, with its figures and charts.

    .venv/bin/python tests/bench/bench_reports.py               # 5,000 visits, 5 runs
    .venv/bin/python tests/bench/bench_reports.py --visits 500 --runs 3

The data is synthetic; nothing is read from a visitor file. Target: under 5 s for a
day of 5,000 visits. Prints ONE markdown table: p50/p95 per step, pages and size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from admission.reports import ExportFormat, content_digest, csv_bytes, day_book_rows
from hardware.printer.reports import ReportlabRenderer
from tests.printer.test_reports import meta, synthetic_day_book

TARGET_S = 5.0


def _pages(pdf: bytes) -> int:
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    doc = pdfium.PdfDocument(pdf)
    try:
        return len(doc)
    finally:
        doc.close()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--visits", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    book = synthetic_day_book(args.visits)
    renderer = ReportlabRenderer()
    renderer.day_book(meta(), synthetic_day_book(10))  # fonts registered once, off the clock
    timings: dict[str, list[float]] = {"PDF": [], "CSV + digest": []}
    pdf = b""
    for _ in range(args.runs):
        started = time.perf_counter()
        pdf = renderer.day_book(meta(), book)
        timings["PDF"].append(time.perf_counter() - started)
        started = time.perf_counter()
        rows = day_book_rows(book)
        csv_bytes(rows)
        content_digest(rows)
        timings["CSV + digest"].append(time.perf_counter() - started)
    pages = _pages(pdf)
    csv_size = len(csv_bytes(day_book_rows(book)))
    print(f"| daily visitor book, {args.visits:,} visits | p50 s | p95 s | runs | pages | size |")
    print("|---|---:|---:|---:|---:|---:|")
    for step, values in timings.items():
        size = f"{len(pdf) / 1024:,.0f} KiB" if step == "PDF" else f"{csv_size / 1024:,.0f} KiB"
        shown_pages = str(pages) if step == "PDF" else ""
        print(
            f"| {step} | {statistics.median(values):.2f} | {_percentile(values, 0.95):.2f} "
            f"| {len(values)} | {shown_pages} | {size} |"
        )
    worst = _percentile(timings["PDF"], 0.95)
    verdict = "meets" if worst < TARGET_S else "MISSES"
    print(f"\np95 {worst:.2f} s {verdict} the {TARGET_S:.0f} s target ({ExportFormat.PDF.value}).")
    return 0 if worst < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())

"""Shared barcode set (real photos): ../shared/testdata/barcodes-real from the repo root."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "testdata" / "barcodes-real"


@dataclass(frozen=True)
class Truth:
    file: str
    format: str
    text: str


def unescape(text: str) -> str:
    """truth.tsv escapes: \\\\, \\n, \\r, \\t, \\xHH."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "x":
                out.append(chr(int(text[i + 2 : i + 4], 16)))
                i += 4
                continue
            out.append({"n": "\n", "r": "\r", "t": "\t", "\\": "\\"}.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def load_truth() -> list[Truth]:
    with (REAL / "truth.tsv").open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [Truth(r["file"], r["format"], unescape(r["expected_text"])) for r in rows]


@pytest.fixture(scope="session")
def truth() -> list[Truth]:
    if not (REAL / "truth.tsv").is_file():
        pytest.skip("shared barcode set not present (../shared/testdata/barcodes-real)")
    return load_truth()

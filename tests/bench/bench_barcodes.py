"""Benchmark: barcode decoders side by side, and card verification.

    nice .venv/bin/python tests/bench/bench_barcodes.py                    # 1,000,000 visitors
    nice .venv/bin/python tests/bench/bench_barcodes.py --visitors 20000   # quick run

1. Decoders (zxing-cpp, zbar via pyzbar, and zxing-cpp falling back to zbar) on the shared
   set of real photos ``../shared/testdata/barcodes-real`` (exact expected text): read
   rate per symbology, misreads (text that matches no truth row of the same image and
   symbology), ms per image (each image decoded ``--repeat`` times, median kept).
2. Our card code (QR and Code 128) on synthetic "phone photos" (scaled, rotated, blurred,
   noisy): read rate and decode time, then decode + verify per decoder.
3. Card verification p50/p95 (code text -> answer, audit entry committed) on the visitor
   file of the store benchmark (``tests/bench/bench_store.py``: N visitors, six months of
   visits, ~4.85 N cards, SQLCipher), reusing its cached file (a fresh copy per run).
   Target: p95 < 50 ms at 1,000,000 visitors.

Prints ONE markdown table.
"""

from __future__ import annotations

import argparse
import csv
import random
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from admission.cards.code import encode_card_code  # noqa: E402
from admission.cards.verification import verify_card  # noqa: E402
from admission.clock import FixedClock  # noqa: E402
from admission.frames import Frame  # noqa: E402
from hardware.barcode import BarcodeDecoder, make_decoder  # noqa: E402

SHARED = ROOT.parent / "shared" / "testdata" / "barcodes-real"
DECODERS = {"zxing-cpp": "zxing", "zbar": "zbar", "zxing→zbar": "zxing+zbar"}
CASINO = "MAD01"


# -- helpers ----------------------------------------------------------------------------


def frame_of(grey: np.ndarray) -> Frame:
    grey = np.ascontiguousarray(grey, dtype=np.uint8)
    h, w = grey.shape
    return Frame(grey.tobytes(), w, h, w, 1, 0.0)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "x":
                out.append(chr(int(text[i + 2 : i + 4], 16)))
                i += 4
                continue
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(nxt, nxt))
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def timed_decode(decoder: BarcodeDecoder, frame: Frame, repeat: int) -> tuple[list[str], float]:
    times, found = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        found = list(decoder.decode(frame))
        times.append(time.perf_counter() - t)
    return [f"{d.symbology.value}\0{d.text}" for d in found], statistics.median(times)


# -- 1. the shared set --------------------------------------------------------------------


def shared_set(repeat: int) -> dict[str, dict[str, object]]:
    with (SHARED / "truth.tsv").open(encoding="utf-8", newline="") as f:
        rows = [
            (r["file"], r["format"], unescape(r["expected_text"]))
            for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        ]
    files = sorted({r[0] for r in rows})
    frames = {
        name: frame_of(cv2.imread(str(SHARED / name), cv2.IMREAD_GRAYSCALE)) for name in files
    }
    results: dict[str, dict[str, object]] = {}
    for label, name in DECODERS.items():
        decoder = make_decoder(name)
        hits: dict[str, int] = {}
        misreads, times = 0, []
        for file in files:
            found, seconds = timed_decode(decoder, frames[file], repeat)
            times.append(seconds)
            mine = [r for r in rows if r[0] == file]
            for _, fmt, text in mine:
                hits[fmt] = hits.get(fmt, 0) + (f"{fmt}\0{text}" in found)
            for item in found:
                fmt, text = item.split("\0", 1)
                if any(r[1] == fmt for r in mine) and all(r[2] != text for r in mine):
                    misreads += 1
        results[label] = {"hits": hits, "misreads": misreads, "times": times}
    totals: dict[str, int] = {}
    for _, fmt, _ in rows:
        totals[fmt] = totals.get(fmt, 0) + 1
    results["_totals"] = {"totals": totals, "images": len(files)}
    return results


# -- 2. our card code on synthetic photos -------------------------------------------------


def card_photos(count: int, key: bytes, numbers: list[int]) -> list[tuple[str, np.ndarray]]:
    import zxingcpp

    rng = np.random.default_rng(11)
    photos = []
    for i in range(count):
        fmt = zxingcpp.BarcodeFormat.QRCode if i % 2 == 0 else zxingcpp.BarcodeFormat.Code128
        text = encode_card_code(CASINO, numbers[i % len(numbers)], key)
        symbol = np.array(zxingcpp.write_barcode_to_image(zxingcpp.create_barcode(text, fmt)))
        # the symbol's longer side in pixels: a card held 15-30 cm from a 1280x720 webcam;
        # Code 128 needs >= ~2 px per module (27 characters = 332 modules)
        side = int(rng.integers(220, 480) if i % 2 == 0 else rng.integers(700, 1000))
        scale = side / max(symbol.shape)
        symbol = cv2.resize(
            symbol,
            None,
            fx=scale,
            fy=max(scale, 80 / symbol.shape[0]),
            interpolation=cv2.INTER_AREA,
        )
        canvas = np.full((720, 1280), 235, dtype=np.uint8)
        h, w = symbol.shape
        y, x = (720 - h) // 2, (1280 - w) // 2
        canvas[y : y + h, x : x + w] = symbol
        angle = float(rng.uniform(-8, 8))
        matrix = cv2.getRotationMatrix2D((640, 360), angle, float(rng.uniform(0.9, 1.1)))
        img = cv2.warpAffine(canvas, matrix, (1280, 720), borderValue=235)
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.4, 1.3)))
        img = img.astype(np.float32) * float(rng.uniform(0.55, 0.9)) + float(rng.uniform(10, 50))
        img += rng.normal(0, float(rng.uniform(2, 6)), img.shape)  # sensor noise
        photos.append((text, np.clip(img, 0, 255).astype(np.uint8)))
    return photos


# -- 3. verification on the big visitor file ----------------------------------------------


def open_big_store(visitors: int, cache: Path, work: Path) -> tuple[object, Path]:
    """A fresh copy of the store benchmark's encrypted data set of ``visitors``.

    Reuses the newest cached file of that size (whatever schema it was built with: opening
    it migrates the copy forward); builds one with ``bench_store`` only when none exists.
    """
    from tests.bench import bench_store

    existing = sorted(cache.glob(f"enc-v{visitors}-d*-s*.db"), key=lambda p: p.stat().st_mtime)
    enc = existing[-1] if existing else bench_store.cached_files(cache, visitors, 5)[1]
    target = work / enc.name
    shutil.copyfile(enc, target)
    from db.store import SqlCipherStore

    store = SqlCipherStore.open(target, bench_store.BENCH_KEY, create=False)
    return store, target


def verification(
    store: object,
    samples: int,
    photos: list[tuple[str, np.ndarray]],
) -> dict[str, list[float]]:
    key = store.secret("card_code")  # type: ignore[attr-defined]
    last = store.last_card_number()  # type: ignore[attr-defined]
    clock = FixedClock(datetime(2026, 11, 28, 21, 0, tzinfo=UTC))
    rng = random.Random(5)

    def check(text: str) -> object:
        return verify_card(
            text,
            key=key,
            casino_id=CASINO,
            store=store,  # type: ignore[arg-type]
            clock=clock,
            actor="bench",
            channel="bench",
        )

    texts = [encode_card_code(CASINO, rng.randint(1, last), key) for _ in range(samples)]
    texts[::10] = [t[:-1] + ("A" if t[-1] != "A" else "B") for t in texts[::10]]  # tampered
    out: dict[str, list[float]] = {"verify": []}
    for text in texts[:20]:
        check(text)  # warm the page cache a little, as a running desk would be
    for text in texts:
        t = time.perf_counter()
        check(text)
        out["verify"].append(time.perf_counter() - t)
    for label, name in DECODERS.items():
        decoder = make_decoder(name)
        series = out.setdefault(label, [])
        for _, img in photos:
            frame = frame_of(img)
            t = time.perf_counter()
            found = decoder.decode(frame)
            if found:
                check(found[0].text)
            series.append(time.perf_counter() - t)
    return out


# -- table ----------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def table(
    shared: dict[str, dict[str, object]],
    photos: list[tuple[str, np.ndarray]],
    photo_reads: dict[str, tuple[int, list[float]]],
    verify: dict[str, list[float]],
    visitors: int,
    cards: int,
) -> str:
    labels = list(DECODERS)
    totals: dict[str, int] = shared["_totals"]["totals"]  # type: ignore[assignment]
    images = shared["_totals"]["images"]
    lines = ["| measure | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]

    def row(name: str, cell: Callable[[str], str]) -> None:
        lines.append(f"| {name} | " + " | ".join(cell(label) for label in labels) + " |")

    for fmt in sorted(totals):
        row(
            f"shared set: {fmt} read (n={totals[fmt]})",
            lambda lb, f=fmt: f"{shared[lb]['hits'].get(f, 0)}/{totals[f]}",
        )  # type: ignore[union-attr]
    all_rows = sum(totals.values())
    row(
        f"shared set: all symbols (n={all_rows})",
        lambda lb: f"**{sum(shared[lb]['hits'].values())}/{all_rows}**",
    )  # type: ignore[union-attr]
    row("shared set: misreads (wrong text)", lambda lb: str(shared[lb]["misreads"]))
    row(
        f"shared set: ms/image, median of {images} images",
        lambda lb: ms(statistics.median(shared[lb]["times"])),
    )  # type: ignore[arg-type]
    row("shared set: ms/image, mean", lambda lb: ms(statistics.mean(shared[lb]["times"])))  # type: ignore[arg-type]
    row("shared set: ms/image, p95", lambda lb: ms(pct(shared[lb]["times"], 0.95)))  # type: ignore[arg-type]
    n = len(photos)
    row(
        f"card code photos (QR+Code128, 1280x720, n={n}) read",
        lambda lb: f"{photo_reads[lb][0]}/{n}",
    )
    row("card code photos: ms/image, p95", lambda lb: ms(pct(photo_reads[lb][1], 0.95)))
    base = f"{visitors:,} visitors, {cards:,} cards, SQLCipher"
    v = verify["verify"]
    row(
        f"card check, code text → answer + audit ({base}): p50 / p95 / max (ms), n={len(v)}",
        lambda _lb: f"{ms(pct(v, 0.5))} / **{ms(pct(v, 0.95))}** / {ms(max(v))}",
    )
    row(
        "card check, photo → decode → answer + audit: p50 / p95 (ms)",
        lambda lb: f"{ms(pct(verify[lb], 0.5))} / **{ms(pct(verify[lb], 0.95))}**",
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--visitors", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=2000, help="verifications timed")
    parser.add_argument("--photos", type=int, default=60, help="synthetic card photos")
    parser.add_argument("--repeat", type=int, default=3, help="decodes per shared image")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/admission-bench"))
    args = parser.parse_args()
    if not (SHARED / "truth.tsv").is_file():
        print(f"shared barcode set missing: {SHARED}", file=sys.stderr)
        return 2
    shared = shared_set(args.repeat)
    work = args.cache_dir / f"work-barcodes-{int(time.time())}"
    work.mkdir(parents=True)
    try:
        store, _path = open_big_store(args.visitors, args.cache_dir, work)
        try:
            cards = store.last_card_number()  # type: ignore[attr-defined]
            key = store.secret("card_code")  # type: ignore[attr-defined]
            photos = card_photos(args.photos, key, [1, cards // 2, cards])
            photo_reads: dict[str, tuple[int, list[float]]] = {}
            for label, name in DECODERS.items():
                decoder = make_decoder(name)
                good, times = 0, []
                for text, img in photos:
                    found, seconds = timed_decode(decoder, frame_of(img), 1)
                    times.append(seconds)
                    good += any(f.split("\0", 1)[1] == text for f in found)
                photo_reads[label] = (good, times)
            verify = verification(store, args.samples, photos)
        finally:
            store.close()  # type: ignore[attr-defined]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(table(shared, photos, photo_reads, verify, args.visitors, cards))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

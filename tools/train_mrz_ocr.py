"""Train the MRZ glyph classifier from scratch, deterministically.

    .venv-train/bin/python tools/train_mrz_ocr.py [--frames 24000] [--epochs 5]
        [--seed 20261129] [--workers 2] [--threads 2] [--cache DIR] [--out FILE]
        [--cuts shipped|reader]

Set up once (PyTorch and onnx are needed for training only, never by the product):

    python3.11 -m venv .venv-train
    .venv-train/bin/pip install -r requirements-train.txt
    # elsewhere than this machine: --extra-index-url https://download.pytorch.org/whl/cpu

What it does (see docs/mrz-reader.md):

1. renders ``--frames`` synthetic documents in the vendored OCR-B font
   (``resources/fonts/OCRB.otf``) with ``hardware.generators.synthetic``: 70 % of them carry
   lines of uniformly random MRZ characters (so every glyph is frequent), 30 %
   real-looking identities; strokes are randomly thickened or thinned, the page may be
   sheared (italic-like) and get an annotation box around the MRZ;
2. projects each into a camera-like 1280x720 frame (60 % in small print, 6-10 px per
   character; 40 % at 10-18 px) and degrades it (perspective, four orientations, skew,
   blur, noise, glare, JPEG, low light);
3. runs the *production* locator and segmenter on the frame (``hardware.mrz.locate``,
   ``hardware.mrz.segment``, as the reader calls them: 640 px then 1280 px), so the
   classifier learns exactly the cells it will see; the known placement tells which band
   is the MRZ and which way up it is, and where every line's first and last character
   must be: a frame whose grid is off is left out (its cells would carry wrong labels);
4. trains a small convolutional network (three 3x3 convolutions of 16/32/64 channels
   with batch norm and 2x2 pooling, a 128-wide dense layer, 37 classes) with PyTorch on
   the CPU, with per-cell augmentation (stroke weight, gamma/contrast, shifts, noise);
5. writes it as ONNX with a softmax output (``resources/models/mrz_ocrb_cnn.onnx``,
   2.4 MB) for ``onnxruntime``; the alphabet and the cell geometry are stored in
   the model's metadata and checked when it is loaded (``hardware.mrz.ocr``).

No real image is used for training: ``../shared/testdata/mrz-real`` is evaluation only,
and the benchmark (``tests/bench/bench_mrz.py``) uses other seeds. Deterministic: the
same seed, frame count, epoch and thread counts and library versions give the same
model, byte for byte (rendering runs in ``--workers`` processes, gathered in frame
order; training uses PyTorch's deterministic algorithms and seeded generators).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any, cast

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2
import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hardware.generators import synthetic  # noqa: E402
from hardware.mrz.layout import ALPHABET  # noqa: E402
from hardware.mrz.locate import Band, find_bands  # noqa: E402
from hardware.mrz.ocr import MODEL_PATH  # noqa: E402
from hardware.mrz.reader import WORK_SIZES  # noqa: E402
from hardware.mrz.segment import (  # noqa: E402
    CELL_H,
    CELL_PITCHES,
    CELL_W,
    RULE_MIN_TALL,
    Segmented,
    segment,
)

# How the training cells are cut. ``shipped`` (the default): with the locator's and
# segmenter's rules of 2026-12-01, which cut the cells of the shipped model; it paints out
# vertical rules from 1.7 character heights (the reader now: ``segment.RULE_MIN_TALL``,
# 2.6) and its locator has none of ``find_bands``' switches of 2026-12-02/03 (first-pair
# bands, the half-line distinct test, paragraphs last, equal-length chains). ``reader``:
# as the reader cuts them now. Measured on 2026-12-03: a model trained on ``reader`` cuts
# (1,832,212 cells against 1,784,830) read dev seeds 777/778 at 984/976 against the
# shipped model's 987/976, and averaged with the shipped model at 985/975; 12 of the
# shipped model's 13 misses on seed 777 were missed by both, so it was not shipped.
CUTS: dict[str, dict[str, Any]] = {
    "reader": {
        "tall_rule": RULE_MIN_TALL,
        "first_pairs": True,
        "distinct_lines": None,
        "paragraphs_last": True,
        "same_lengths": True,
    },
    "shipped": {
        "tall_rule": 1.7,
        "first_pairs": False,
        "distinct_lines": float("inf"),
        "paragraphs_last": False,
        "same_lengths": False,
    },
}

CHANNELS = (16, 32, 64)
DENSE = 128
BATCH = 512
CHUNK = 1000  # frames per cache file


def random_lines(rng: np.random.Generator, fmt: str) -> list[str]:
    count, length = synthetic.GEOMETRY[fmt]
    out = []
    for _ in range(count):
        chars = [ALPHABET[int(rng.integers(len(ALPHABET)))] for _ in range(length)]
        if rng.random() < 0.5:  # filler runs, as in real names lines
            start = int(rng.integers(length // 3, length))
            chars[start:] = "<" * (length - start)
        out.append("".join(chars))
    return out


def _augment(
    doc: NDArray[np.uint8], quad: NDArray[np.float32], rng: np.random.Generator
) -> tuple[NDArray[np.uint8], NDArray[np.float32]]:
    """Training-only variety: stroke weight, italic-like shear (oblique photos, some
    printers), annotation boxes and rules drawn around the MRZ (specimen images)."""
    weight = rng.random()
    if weight < 0.2:
        doc = cast(NDArray[np.uint8], cv2.erode(doc, np.ones((2, 2), np.uint8)))
    elif weight < 0.3:
        doc = cast(NDArray[np.uint8], cv2.dilate(doc, np.ones((2, 2), np.uint8)))
    line_h = float(quad[3, 1] - quad[0, 1]) / 4.0
    if rng.random() < 0.25:
        margin = rng.uniform(0.25, 1.0) * line_h
        color = tuple(int(v) for v in rng.integers(0, 200, size=3))
        p0 = (int(quad[0, 0] - margin), int(quad[0, 1] - margin))
        p1 = (int(quad[2, 0] + margin), int(quad[2, 1] + margin))
        cv2.rectangle(doc, p0, p1, color, int(rng.integers(1, 4)))
    if rng.random() < 0.35:
        shear = rng.uniform(-0.25, 0.25)
        h, w = doc.shape[:2]
        m = np.array([[1.0, shear, -shear * h / 2], [0.0, 1.0, 0.0]], np.float32)
        doc = cast(
            NDArray[np.uint8], cv2.warpAffine(doc, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
        )
        quad = cast(NDArray[np.float32], cv2.transform(quad[None], m)[0])
    return doc, quad


def frame_cells(
    seed: int, index: int, cuts: str = "shipped"
) -> tuple[NDArray[np.uint8], NDArray[np.int8]] | None:
    """The cells (uint8, ink = 255) and labels of one training frame, or None when the
    production locator and segmenter did not cut its MRZ on the right grid."""
    rng = np.random.default_rng([seed, index])
    fmt = str(rng.choice(["TD1", "TD2", "TD3"], p=[0.4, 0.2, 0.4]))
    if rng.random() < 0.7:
        lines = random_lines(rng, fmt)
    else:
        lines = synthetic.build_lines(synthetic.random_identity(rng, fmt))
    doc, quad = synthetic.render_document(lines, fmt, rng)
    assert quad is not None  # a document with lines has an MRZ quad
    doc, quad = _augment(doc, quad, rng)
    # small print (6-10 px per character) is where reading is hard: 60 % of the frames
    pitch = rng.uniform(6.0, 10.0) if rng.random() < 0.6 else rng.uniform(10.0, 18.0)
    matrix = synthetic.placement(doc.shape, rng, pitch_px=pitch)
    frame = synthetic.degrade(synthetic.place_on_frame(doc, rng, matrix=matrix), rng)
    grey = cast(NDArray[np.uint8], cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    truth = cv2.perspectiveTransform(quad[None], matrix)[0]
    size = float(np.linalg.norm(truth[1] - truth[0]))
    labels = np.array([ALPHABET.index(c) for line in lines for c in line], np.int8)
    rules = CUTS[cuts]
    for work_size in WORK_SIZES:
        for band in find_bands(
            grey,
            work_size=work_size,
            frame_threshold=True,
            first_pairs=rules["first_pairs"],
            distinct_lines=rules["distinct_lines"],
            paragraphs_last=rules["paragraphs_last"],
            same_lengths=rules["same_lengths"],
        ):
            if band.lines != len(lines):
                continue
            image = band.image
            if np.linalg.norm(band.quad[0] - truth[0]) < 0.15 * size:
                turned = False
            elif np.linalg.norm(band.quad[0] - truth[2]) < 0.15 * size:
                image, turned = cast(NDArray[np.uint8], cv2.rotate(image, cv2.ROTATE_180)), True
            else:
                continue
            try:  # as the reader cuts a band
                seg = segment(
                    image,
                    len(lines),
                    trim_ends=True,
                    profile_fallback=True,
                    tall_rule=rules["tall_rule"],
                )
            except (ValueError, ZeroDivisionError, np.linalg.LinAlgError, cv2.error):
                seg = None
            if seg is None or seg.line_length != len(lines[0]):
                continue
            if not _grid_matches_truth(seg, band, truth, turned):
                continue  # the cells would carry the wrong labels
            cells = np.round(seg.cells.reshape(-1, CELL_H, CELL_W) * 255).astype(np.uint8)
            return cells, labels
    return None


def _grid_matches_truth(
    seg: Segmented, band: Band, truth: NDArray[np.float32], turned: bool
) -> bool:
    """Every line's first and last cell centre within a third of a pitch of where the known
    placement puts them (a grid off by a character would teach wrong labels)."""
    if seg.centres is None:
        return False
    h, w = band.image.shape[:2]
    rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    to_band = cv2.getPerspectiveTransform(band.quad.astype(np.float32), rect)
    q = cv2.perspectiveTransform(truth[None].astype(np.float32), to_band)[0]
    if turned:  # the text's corners in the band turned 180 degrees
        q = np.array([w, h], np.float32) - q
    count, length = seg.centres.shape
    for r in range(count):
        f = (r + 0.5) / count
        left = q[0, 0] + (q[3, 0] - q[0, 0]) * f
        right = q[1, 0] + (q[2, 0] - q[1, 0]) * f
        pitch = (right - left) / length
        if (
            abs(seg.centres[r, 0] - (left + pitch / 2)) > pitch / 3
            or abs(seg.centres[r, -1] - (right - pitch / 2)) > pitch / 3
        ):
            return False
    return True


def _job(args: tuple[int, int, str]) -> tuple[NDArray[np.uint8], NDArray[np.int8]] | None:
    cv2.setNumThreads(1)
    return frame_cells(*args)


def _render(
    seed: int, start: int, stop: int, pool: Any, cuts: str
) -> tuple[NDArray[np.uint8], NDArray[np.int8]]:
    jobs = [(seed, i, cuts) for i in range(start, stop)]
    results = pool.imap(_job, jobs, chunksize=8) if pool is not None else map(_job, jobs)
    got = [r for r in results if r is not None]  # in frame order, whatever the workers
    if not got:
        return np.empty((0, CELL_H, CELL_W), np.uint8), np.empty(0, np.int8)
    return np.concatenate([g[0] for g in got]), np.concatenate([g[1] for g in got])


def build_dataset(
    seed: int, frames: int, workers: int, cache: Path | None, cuts: str = "shipped"
) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """Cells and labels of ``frames`` frames; with ``cache``, kept per CHUNK frames (a run
    that was stopped carries on where it was)."""
    xs, ys = [], []
    t0 = time.time()
    pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
    try:
        for start in range(0, frames, CHUNK):
            stop = min(frames, start + CHUNK)
            path = None if cache is None else cache / f"cells-{cuts}-{seed}-{start}-{stop}.npz"
            if path is not None and path.exists():
                with np.load(path) as data:
                    x, y = data["x"], data["y"]
            else:
                x, y = _render(seed, start, stop, pool, cuts)
                if path is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    np.savez(path, x=x, y=y)
            xs.append(x)
            ys.append(y)
            print(
                f"  {stop}/{frames} frames, {sum(len(v) for v in ys)} cells, "
                f"{time.time() - t0:.0f}s",
                flush=True,
            )
    finally:
        if pool is not None:
            pool.close()
    return np.concatenate(xs), np.concatenate(ys).astype(np.int64)


def _network(torch: Any) -> Any:
    nn = torch.nn
    c1, c2, c3 = CHANNELS
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, padding=1),
        nn.BatchNorm2d(c1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, padding=1),
        nn.BatchNorm2d(c2),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(c2, c3, 3, padding=1),
        nn.BatchNorm2d(c3),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(c3 * (CELL_H // 4) * (CELL_W // 4), DENSE),
        nn.ReLU(),
        nn.Linear(DENSE, len(ALPHABET)),
    )


def _jitter(torch: Any, x: Any, gen: Any) -> Any:
    """Per-cell augmentation: stroke weight, contrast/gamma, shifts of up to 2 px across
    and 1 px along the line (where the grid fell), noise. Real prints are bolder, thinner,
    crisper or softer than any rendering."""
    n = x.shape[0]

    def rand(*shape: int) -> Any:
        return torch.rand(*shape, generator=gen)

    op = rand(n, 1, 1, 1)
    grow = (op < 0.2).float()
    thin = ((op >= 0.2) & (op < 0.35)).float()
    bold = torch.maximum(x, torch.roll(x, 1, 3) * 0.8)
    bold = torch.maximum(bold, torch.roll(bold, 1, 2) * 0.6)
    slim = torch.minimum(x, torch.roll(x, 1, 3))
    x = grow * bold + thin * slim + (1 - grow - thin) * x
    gamma = torch.exp(rand(n, 1, 1, 1) * 1.4 - 0.7)
    gain = rand(n, 1, 1, 1) * 0.9 + 0.7
    x = torch.clamp(x**gamma * gain, 0.0, 1.0)
    for dx in (-2, -1, 1, 2):
        sel = rand(n) < 0.12
        x[sel] = torch.roll(x[sel], dx, 3)
    for dy in (-1, 1):
        sel = rand(n) < 0.15
        x[sel] = torch.roll(x[sel], dy, 2)
    return x + torch.randn(x.shape, generator=gen) * 0.05


def train(
    cells: NDArray[np.uint8], labels: NDArray[np.int64], seed: int, epochs: int, threads: int
) -> Any:
    import torch

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(seed)
    net = _network(torch)
    xs, ys = torch.from_numpy(cells), torch.from_numpy(labels)
    opt = torch.optim.Adam(net.parameters(), 2e-3)
    steps = epochs * ((len(ys) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    net.train()
    t0 = time.time()
    for epoch in range(epochs):
        order = torch.randperm(len(ys), generator=gen)
        loss_sum, correct = 0.0, 0
        for s in range(0, len(ys), BATCH):
            idx = order[s : s + BATCH]
            xb = _jitter(torch, xs[idx].float().div(255).unsqueeze(1), gen)
            logits = net(xb)
            loss = torch.nn.functional.cross_entropy(logits, ys[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum += float(loss.detach()) * len(idx)
            correct += int((logits.detach().argmax(1) == ys[idx]).sum())
        print(
            f"  epoch {epoch + 1}/{epochs}: loss {loss_sum / len(ys):.4f} "
            f"acc {correct / len(ys):.4f} ({time.time() - t0:.0f}s)",
            flush=True,
        )
    return net.eval()


def export(net: Any, out: Path, args: argparse.Namespace) -> None:
    """ONNX with a softmax output and the cell geometry in its metadata."""
    import io

    import onnx
    import torch

    model = torch.nn.Sequential(net, torch.nn.Softmax(dim=1)).eval()
    buf = io.BytesIO()
    torch.onnx.export(
        model,
        (torch.zeros(1, 1, CELL_H, CELL_W),),
        buf,
        input_names=["cells"],
        output_names=["probs"],
        dynamic_axes={"cells": {0: "n"}, "probs": {0: "n"}},
        opset_version=13,
        dynamo=False,
    )
    proto = onnx.load_from_string(buf.getvalue())
    meta = {
        "alphabet": ALPHABET,
        "cell_w": str(CELL_W),
        "cell_h": str(CELL_H),
        "cell_pitches": str(CELL_PITCHES),
        "trained_by": (
            f"tools/train_mrz_ocr.py --frames {args.frames} --epochs {args.epochs}"
            f" --seed {args.seed} --threads {args.threads}"
            + ("" if args.cuts == "shipped" else f" --cuts {args.cuts}")
        ),
    }
    for key, value in meta.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(proto.SerializeToString())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=24000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--workers", type=int, default=2, help="rendering processes")
    parser.add_argument("--threads", type=int, default=2, help="PyTorch threads")
    parser.add_argument(
        "--cache", type=Path, default=None, help="folder to keep the rendered cells in between runs"
    )
    parser.add_argument(
        "--cuts",
        choices=sorted(CUTS),
        default="shipped",
        help="how the training cells are cut (shipped: the shipped model's)",
    )
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"rendering {args.frames} synthetic frames...", flush=True)
    cells, labels = build_dataset(args.seed, args.frames, args.workers, args.cache, args.cuts)
    counts = np.bincount(labels, minlength=len(ALPHABET))
    print(f"{len(labels)} cells; class counts min {counts.min()}", flush=True)
    net = train(cells, labels, args.seed, args.epochs, args.threads)
    export(net, args.out, args)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

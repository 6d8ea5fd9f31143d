"""Train the MRZ glyph classifier from scratch, deterministically.

    nice .venv/bin/python tools/train_mrz_ocr.py [--frames 6000] [--epochs 16] [--seed 20261129]
                                                 [--workers 2] [--members 2] [--cache cells.npz]
                                                 [--hidden 256 128] [--label-smoothing 0]

What it does (see docs/mrz-reader.md):

1. renders ``--frames`` synthetic documents in the vendored OCR-B font
   (``resources/fonts/OCRB.otf``) with ``hardware.mrz.synthetic``: 70 % of them carry
   lines of uniformly random MRZ characters (so every glyph is well represented), 30 %
   real-looking identities; strokes are randomly thickened or thinned, the page may be
   sheared (italic-like) and get an annotation box around the MRZ;
2. projects each into a camera-like 1280x720 frame and degrades it (perspective, four
   orientations, skew, blur, noise, glare, JPEG, low light);
3. runs the *production* locator and segmenter on the frame (``hardware.mrz.locate``,
   ``hardware.mrz.segment``), so the classifier learns exactly the cells it will see; the
   known placement tells which band is the MRZ and which way up it is, and where every
   line's first and last character must be: a frame whose grid is off is left out (its
   cells would carry the wrong labels);
4. trains ``--members`` (2) 384-256-128-37 MLPs (ReLU, softmax; seeds ``seed``,
   ``seed + 1``...; their probabilities are averaged at run time) with Adam in numpy, with
   per-cell augmentation (stroke weight, gamma/contrast, one-pixel shifts, noise), and
   writes ``resources/models/mrz_ocrb_mlp.npz`` (float16, ~500 kB).

No real image is used for training: ``../shared/testdata/mrz-real`` is evaluation only.
The same seed, frame count and library versions give the same weights (rendering runs in
``--workers`` processes but results are gathered in frame order, so the worker count does
not change them). About 12 minutes on two cores.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hardware.mrz import synthetic  # noqa: E402
from hardware.mrz.layout import ALPHABET  # noqa: E402
from hardware.mrz.locate import Band, find_bands  # noqa: E402
from hardware.mrz.segment import CELL_H, CELL_W, Segmented, segment  # noqa: E402

OUT = ROOT / "resources" / "models" / "mrz_ocrb_mlp.npz"
_GEOM = {"TD1": (3, 30), "TD2": (2, 36), "TD3": (2, 44)}


def random_lines(rng: np.random.Generator, fmt: str) -> list[str]:
    count, length = _GEOM[fmt]
    out = []
    for _ in range(count):
        chars = [ALPHABET[int(rng.integers(len(ALPHABET)))] for _ in range(length)]
        if rng.random() < 0.5:  # filler runs, as in real names lines
            start = int(rng.integers(length // 3, length))
            chars[start:] = "<" * (length - start)
        out.append("".join(chars))
    return out


def _augment(doc: np.ndarray, quad: np.ndarray, rng: np.random.Generator
             ) -> tuple[np.ndarray, np.ndarray]:
    """Training-only variety: stroke weight, italic-like shear (oblique photos, some
    printers), annotation boxes and rules drawn around the MRZ (specimen images)."""
    weight = rng.random()
    if weight < 0.2:
        doc = cv2.erode(doc, np.ones((2, 2), np.uint8))
    elif weight < 0.3:
        doc = cv2.dilate(doc, np.ones((2, 2), np.uint8))
    line_h = float(quad[3, 1] - quad[0, 1]) / 4.0
    if rng.random() < 0.25:
        m = rng.uniform(0.25, 1.0) * line_h
        color = tuple(int(v) for v in rng.integers(0, 200, size=3))
        p0 = (int(quad[0, 0] - m), int(quad[0, 1] - m))
        p1 = (int(quad[2, 0] + m), int(quad[2, 1] + m))
        cv2.rectangle(doc, p0, p1, color, int(rng.integers(1, 4)))
    if rng.random() < 0.35:
        shear = rng.uniform(-0.25, 0.25)
        h, w = doc.shape[:2]
        m = np.array([[1.0, shear, -shear * h / 2], [0.0, 1.0, 0.0]], np.float32)
        doc = cv2.warpAffine(doc, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
        quad = cv2.transform(quad[None], m)[0]
    return doc, quad


def frame_cells(seed: int, index: int) -> tuple[np.ndarray, np.ndarray] | None:
    rng = np.random.default_rng([seed, index])
    fmt = str(rng.choice(["TD1", "TD2", "TD3"], p=[0.4, 0.2, 0.4]))
    if rng.random() < 0.7:
        lines = random_lines(rng, fmt)
    else:
        lines = synthetic.build_lines(synthetic.random_identity(rng, fmt))
    doc, quad = synthetic.render_document(lines, fmt, rng)
    doc, quad = _augment(doc, quad, rng)
    # half the frames small print (6-10 px pitch: where the reader still misreads), half large
    pitch = rng.uniform(6.0, 10.0) if rng.random() < 0.5 else rng.uniform(10.0, 18.0)
    matrix = synthetic.placement(doc.shape, rng, pitch_px=pitch)
    frame = synthetic.degrade(synthetic.place_on_frame(doc, rng, matrix=matrix), rng)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    truth = cv2.perspectiveTransform(quad[None], matrix)[0]
    size = float(np.linalg.norm(truth[1] - truth[0]))
    for band in find_bands(grey):
        if band.lines != len(lines):
            continue
        image = band.image
        if np.linalg.norm(band.quad[0] - truth[0]) < 0.15 * size:
            pass
        elif np.linalg.norm(band.quad[0] - truth[2]) < 0.15 * size:
            image = cv2.rotate(image, cv2.ROTATE_180)
        else:
            continue
        try:
            seg = segment(image, len(lines), profile_fallback=True)
        except (ValueError, ZeroDivisionError, np.linalg.LinAlgError):
            seg = None
        if seg is None or seg.line_length != len(lines[0]):
            continue
        if not _grid_matches_truth(seg, band, truth, image is not band.image):
            continue  # the cells would carry the wrong labels
        labels = np.array([ALPHABET.index(c) for line in lines for c in line], np.int64)
        return seg.cells.reshape(-1, CELL_H * CELL_W), labels
    return None


def _grid_matches_truth(seg: Segmented, band: Band, truth: np.ndarray, turned: bool) -> bool:
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
        if (abs(seg.centres[r, 0] - (left + pitch / 2)) > pitch / 3
                or abs(seg.centres[r, -1] - (right - pitch / 2)) > pitch / 3):
            return False
    return True


def _job(args: tuple[int, int]) -> tuple[np.ndarray, np.ndarray] | None:
    cv2.setNumThreads(1)
    return frame_cells(*args)


def build_dataset(seed: int, frames: int, workers: int) -> tuple[np.ndarray, np.ndarray]:
    xs, ys, used = [], [], 0
    t0 = time.time()
    jobs = [(seed, i) for i in range(frames)]
    if workers > 1:  # results come back in order: the data set does not depend on workers
        pool = multiprocessing.get_context("fork").Pool(workers)
        results = pool.imap(_job, jobs, chunksize=8)
    else:
        pool, results = None, map(_job, jobs)
    for i, got in enumerate(results):
        if got is not None:
            xs.append(got[0])
            ys.append(got[1])
            used += 1
        if (i + 1) % 250 == 0:
            print(f"  {i + 1}/{frames} frames, {used} usable, {time.time() - t0:.0f}s", flush=True)
    if pool is not None:
        pool.close()
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


def _jitter(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per-sample cell augmentation: stroke weight, contrast/gamma, a one-pixel shift, noise.
    Real prints are bolder, thinner, crisper or softer than any rendering."""
    n = len(batch)
    cells = batch.reshape(n, CELL_H, CELL_W).copy()
    op = rng.random(n)
    grow = op < 0.2
    if grow.any():  # bolder: 3x3 grey dilation along x or y
        c = cells[grow]
        c = np.maximum(c, np.roll(c, 1, axis=2) * 0.8)
        cells[grow] = np.maximum(c, np.roll(c, 1, axis=1) * 0.6)
    thin = (op >= 0.2) & (op < 0.35)
    if thin.any():  # thinner
        c = cells[thin]
        cells[thin] = np.minimum(c, np.roll(c, 1, axis=2))
    gamma = np.exp(rng.uniform(-0.7, 0.7, size=(n, 1, 1))).astype(np.float32)
    gain = rng.uniform(0.7, 1.6, size=(n, 1, 1)).astype(np.float32)
    cells = np.clip(cells ** gamma * gain, 0.0, 1.0)
    shift = rng.random(n) < 0.3
    if shift.any():
        dy, dx = int(rng.integers(-1, 2)), int(rng.integers(-1, 2))
        cells[shift] = np.roll(cells[shift], (dy, dx), axis=(1, 2))
    cells += rng.normal(0, 0.05, size=cells.shape).astype(np.float32)
    return cells.reshape(n, -1)


def train(x: np.ndarray, y: np.ndarray, seed: int, epochs: int, smoothing: float = 0.0,
          hidden: tuple[int, int] = (256, 128)) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = [x.shape[1], *hidden, len(ALPHABET)]
    params: dict[str, np.ndarray] = {}
    for i in range(3):
        params[f"w{i}"] = (rng.standard_normal((sizes[i], sizes[i + 1])) *
                           np.sqrt(2.0 / sizes[i])).astype(np.float32)
        params[f"b{i}"] = np.zeros(sizes[i + 1], np.float32)
    mean = x.mean(0)
    xs = x - mean
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    step, batch = 0, 256
    for epoch in range(epochs):
        lr = 2e-3 * (0.5 ** (epoch // 4))
        order = rng.permutation(len(xs))
        loss_sum, correct = 0.0, 0
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            xb = _jitter(x[idx], rng) - mean
            yb = y[idx]
            h0 = np.maximum(xb @ params["w0"] + params["b0"], 0)
            h1 = np.maximum(h0 @ params["w1"] + params["b1"], 0)
            logits = h1 @ params["w2"] + params["b2"]
            logits -= logits.max(1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(1, keepdims=True)
            loss_sum += float(-np.log(p[np.arange(len(idx)), yb] + 1e-9).sum())
            correct += int((p.argmax(1) == yb).sum())
            g = p  # softmax cross-entropy gradient against (smoothed) one-hot targets
            g[np.arange(len(idx)), yb] -= 1 - smoothing
            g -= smoothing / g.shape[1]
            g /= len(idx)
            grads = {"w2": h1.T @ g, "b2": g.sum(0)}
            g1 = (g @ params["w2"].T) * (h1 > 0)
            grads["w1"], grads["b1"] = h0.T @ g1, g1.sum(0)
            g0 = (g1 @ params["w1"].T) * (h0 > 0)
            grads["w0"], grads["b0"] = xb.T @ g0, g0.sum(0)
            step += 1
            for k in params:
                gk = grads[k] + (1e-5 * params[k] if k.startswith("w") else 0)
                m[k] = 0.9 * m[k] + 0.1 * gk
                v[k] = 0.999 * v[k] + 0.001 * gk * gk
                mh = m[k] / (1 - 0.9 ** step)
                vh = v[k] / (1 - 0.999 ** step)
                params[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        print(f"  epoch {epoch + 1}/{epochs}: loss {loss_sum / len(xs):.4f} "
              f"acc {correct / len(xs):.4f}", flush=True)
    params["mean"] = mean.astype(np.float32)
    return params


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=6000)
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--workers", type=int, default=2, help="rendering processes")
    parser.add_argument("--members", type=int, default=2, help="ensemble size")
    parser.add_argument("--hidden", type=int, nargs=2, default=[256, 128],
                        help="hidden layer widths")
    parser.add_argument("--label-smoothing", type=float, default=0.0,
                        help="target mass spread over all classes (calibration)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="optional .npz to keep/reuse the rendered cells between runs")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    cv2.setRNGSeed(args.seed)
    if args.cache is not None and args.cache.exists():
        data = np.load(args.cache)
        x, y = data["x"], data["y"]
    else:
        print(f"rendering {args.frames} synthetic frames...", flush=True)
        x, y = build_dataset(args.seed, args.frames, args.workers)
        if args.cache is not None:
            np.savez_compressed(args.cache, x=x, y=y)
    print(f"{len(y)} cells; class counts min {np.bincount(y, minlength=37).min()}", flush=True)
    weights: dict[str, np.ndarray] = {}
    for member in range(args.members):  # an ensemble: averaged, better calibrated
        print(f"member {member + 1}/{args.members}", flush=True)
        params = train(x, y, args.seed + member, args.epochs, args.label_smoothing,
                       tuple(args.hidden))
        weights.update({f"m{member}_{k}": val.astype(np.float16) for k, val in params.items()})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **weights, members=np.array(args.members),
                        alphabet=np.array(list(ALPHABET)),
                        cell=np.array([CELL_H, CELL_W]))
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

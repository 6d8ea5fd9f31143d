"""The glyph classifier: small MLPs (an ensemble of two) over 16x24 cells, run in numpy.

Trained from scratch on rendered OCR-B by ``tools/train_mrz_ocr.py``; the weights ship as
``resources/models/mrz_ocrb_mlp.npz`` (float16, a few hundred kB). Inference is three
matrix products, well under a millisecond per MRZ on one core, so no runtime beyond
numpy is needed.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from hardware.mrz.layout import ALPHABET

MODEL_PATH = Path(__file__).resolve().parents[2] / "resources" / "models" / "mrz_ocrb_mlp.npz"


class GlyphClassifier:
    """Maps character cells to probabilities over :data:`ALPHABET`."""

    def __init__(self, path: Path = MODEL_PATH) -> None:
        with np.load(path, allow_pickle=False) as data:
            if "".join(str(c) for c in data["alphabet"]) != ALPHABET:
                raise ValueError("model alphabet does not match the MRZ alphabet")
            count = int(data["members"]) if "members" in data.files else 0
            prefixes = [f"m{k}_" for k in range(count)] or [""]
            self._members = [
                ([data[f"{p}w{i}"].astype(np.float32) for i in range(3)],
                 [data[f"{p}b{i}"].astype(np.float32) for i in range(3)],
                 data[f"{p}mean"].astype(np.float32))
                for p in prefixes
            ]

    def probabilities(self, cells: np.ndarray, *, shifts: bool = True) -> np.ndarray:
        """``cells``: (..., H, W) float32 in [0, 1], ink = 1 -> (..., 37) probabilities.

        With ``shifts`` the cells are also classified moved by one pixel left and right and
        the probabilities averaged: a glyph the grid cut slightly off-centre then keeps its
        confidence, and a doubtful one does not gain any.
        """
        if not shifts:
            return self._forward(cells)
        left = np.roll(cells, -1, axis=-1)
        right = np.roll(cells, 1, axis=-1)
        left[..., -1] = 0.0
        right[..., 0] = 0.0
        both = np.stack([cells, left, right])
        return self._forward(both).mean(axis=0)

    def _forward(self, cells: np.ndarray) -> np.ndarray:
        shape = cells.shape[:-2]
        flat = cells.reshape(-1, cells.shape[-2] * cells.shape[-1])
        total = np.zeros((flat.shape[0], len(ALPHABET)), np.float32)
        for w, b, mean in self._members:  # ensemble members: average the probabilities
            h = np.maximum((flat - mean) @ w[0] + b[0], 0)
            h = np.maximum(h @ w[1] + b[1], 0)
            logits = h @ w[2] + b[2]
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            total += p / p.sum(axis=1, keepdims=True)
        return (total / len(self._members)).reshape(*shape, len(ALPHABET))


@functools.cache
def default_classifier() -> GlyphClassifier:
    return GlyphClassifier()

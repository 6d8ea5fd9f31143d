"""The glyph classifier: a small MLP over 16x24 character cells, run in numpy.

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
            self._w = [data[f"w{i}"].astype(np.float32) for i in range(3)]
            self._b = [data[f"b{i}"].astype(np.float32) for i in range(3)]
            self._mean = data["mean"].astype(np.float32)

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
        x = cells.reshape(-1, cells.shape[-2] * cells.shape[-1]) - self._mean
        h = np.maximum(x @ self._w[0] + self._b[0], 0)
        h = np.maximum(h @ self._w[1] + self._b[1], 0)
        logits = h @ self._w[2] + self._b[2]
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        return p.reshape(*shape, len(ALPHABET))


@functools.cache
def default_classifier() -> GlyphClassifier:
    return GlyphClassifier()

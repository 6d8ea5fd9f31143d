"""The glyph classifier: a small convolutional network over character cells, run with
onnxruntime on one thread.

Trained from scratch on rendered OCR-B by ``tools/train_mrz_ocr.py``; the model ships as
``resources/models/mrz_ocrb_cnn.onnx`` (2.4 MB, float32). Its input is the cells the segmenter
cuts (``segment.CELL_H`` x ``segment.CELL_W``: the character with its neighbour on either
side); the alphabet and that geometry are stored in the model's metadata and checked
here, so a model trained for other cells is refused rather than misread.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from hardware.mrz.layout import ALPHABET
from hardware.mrz.segment import CELL_H, CELL_PITCHES, CELL_W

MODEL_PATH = Path(__file__).resolve().parents[2] / "resources" / "models" / "mrz_ocrb_cnn.onnx"


class GlyphClassifier:
    """Maps character cells to probabilities over :data:`ALPHABET`."""

    def __init__(self, path: Path = MODEL_PATH) -> None:
        import onnxruntime as ort  # the reader's only use of it: imported when needed

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # the desk PC's other core stays with the GUI
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        meta = self._session.get_modelmeta().custom_metadata_map
        if meta.get("alphabet") != ALPHABET:
            raise ValueError("model alphabet does not match the MRZ alphabet")
        geometry = (meta.get("cell_w"), meta.get("cell_h"), meta.get("cell_pitches"))
        if geometry != (str(CELL_W), str(CELL_H), str(CELL_PITCHES)):
            raise ValueError(f"model cells {geometry} do not match the segmenter's")
        self._input = self._session.get_inputs()[0].name

    def probabilities(self, cells: NDArray[np.float32]) -> NDArray[np.float32]:
        """``cells``: (..., CELL_H, CELL_W) float32 in [0, 1], ink = 1 -> (..., 37)."""
        shape = cells.shape[:-2]
        flat = np.ascontiguousarray(cells.reshape(-1, 1, CELL_H, CELL_W), np.float32)
        if not len(flat):
            return np.zeros((*shape, len(ALPHABET)), np.float32)
        probs = np.asarray(self._session.run(None, {self._input: flat})[0], np.float32)
        return probs.reshape(*shape, len(ALPHABET))


@functools.cache
def default_classifier() -> GlyphClassifier:
    return GlyphClassifier()

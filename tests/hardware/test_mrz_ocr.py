"""The shipped glyph classifier: its cells, its metadata, its answers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.generators import synthetic
from hardware.mrz import ocr
from hardware.mrz.layout import ALPHABET
from hardware.mrz.locate import find_bands
from hardware.mrz.segment import CELL_H, CELL_W, segment


def test_the_shipped_model_reads_the_cells_of_a_clean_passport() -> None:
    rng = np.random.default_rng(5)
    lines = synthetic.build_lines(synthetic.random_identity(rng, "TD3"))
    doc, _quad = synthetic.render_document(lines, "TD3", rng)
    frame = cv2.warpAffine(
        doc, np.float32([[0.9, 0, 80], [0, 0.9, 40]]), (1280, 720), borderValue=(90, 90, 90)
    )
    band = next(b for b in find_bands(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)) if b.lines == 2)
    seg = segment(band.image, 2)
    assert seg is not None and seg.cells.shape == (2, 44, CELL_H, CELL_W)
    probs = ocr.default_classifier().probabilities(seg.cells)
    assert probs.shape == (2, 44, len(ALPHABET))
    assert np.allclose(probs.sum(axis=-1), 1.0, atol=1e-4)
    read = ["".join(ALPHABET[k] for k in row) for row in probs.argmax(axis=-1)]
    assert read == lines and float(probs.max(axis=-1).min()) > 0.9


def test_no_cells_no_work() -> None:
    probs = ocr.default_classifier().probabilities(np.zeros((0, CELL_H, CELL_W), np.float32))
    assert probs.shape == (0, len(ALPHABET))


def test_a_model_for_other_cells_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # the segmenter cuts cells of another shape than the model was trained on: a clear
    # error at load time, not quiet misreadings
    monkeypatch.setattr(ocr, "CELL_W", CELL_W // 3)
    with pytest.raises(ValueError, match="cells"):
        ocr.GlyphClassifier()
    monkeypatch.setattr(ocr, "CELL_W", CELL_W)
    monkeypatch.setattr(ocr, "ALPHABET", ALPHABET[:-1])
    with pytest.raises(ValueError, match="alphabet"):
        ocr.GlyphClassifier()

"""The training script keeps only cells whose grid lines up with the known placement."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest

from hardware.generators import synthetic
from hardware.mrz.locate import find_bands
from hardware.mrz.segment import CELL_H, CELL_W, segment

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "train_mrz_ocr.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_mrz_ocr", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("train_mrz_ocr", module)
    spec.loader.exec_module(module)
    return module


def _placed(turn: bool) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A clean TD3 passport page, upright or upside down, and its MRZ quad in the frame."""
    rng = np.random.default_rng(5)
    lines = synthetic.build_lines(synthetic.random_identity(rng, "TD3"))
    doc, quad = synthetic.render_document(lines, "TD3", rng)
    assert quad is not None
    h, w = doc.shape[:2]
    angle = np.pi if turn else 0.0
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    scale = 0.9
    centre = np.array([640, 360], np.float32)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)
    dst = ((src - [w / 2, h / 2]) * scale) @ rot.T + centre
    matrix = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    frame = cv2.warpPerspective(doc, matrix, (1280, 720), borderValue=(90, 90, 90))
    truth = cv2.perspectiveTransform(quad[None], matrix)[0]
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), truth, lines


def test_a_grid_on_the_text_is_kept_and_one_off_by_a_character_is_not() -> None:
    script = _script()
    for turn in (False, True):
        grey, truth, _lines = _placed(turn)
        band = next(b for b in find_bands(grey) if b.lines == 2)
        found_upright = np.linalg.norm(band.quad[0] - truth[0]) < np.linalg.norm(
            band.quad[0] - truth[2]
        )
        image = band.image if found_upright else cv2.rotate(band.image, cv2.ROTATE_180)
        seg = segment(image, 2)
        assert seg is not None and seg.line_length == 44 and seg.centres is not None
        assert script._grid_matches_truth(seg, band, truth, not found_upright)
        pitch = float(np.median(np.diff(seg.centres[0])))
        shifted = dataclasses.replace(seg, centres=seg.centres + pitch)
        assert not script._grid_matches_truth(shifted, band, truth, not found_upright)
        # the same grid judged the wrong way up is off by the whole band
        assert not script._grid_matches_truth(seg, band, truth, found_upright)


def test_training_frames_give_production_cells_with_one_label_each() -> None:
    script = _script()
    got = [script.frame_cells(20261129, i) for i in range(6)]
    usable = [g for g in got if g is not None]
    assert usable  # most frames are; those whose grid is off are left out
    for cells, labels in usable:
        assert cells.dtype == np.uint8 and cells.shape[1:] == (CELL_H, CELL_W)
        assert len(cells) == len(labels) and len(labels) in (72, 88, 90)
        assert cells.max() > 200  # ink, scaled to 0-255


def test_training_is_deterministic(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")  # training only: in .venv-train, not in .venv
    script = _script()
    cells, labels = script.build_dataset(20261129, 12, 1, None)
    first = script.train(cells, labels, 7, 1, 1).state_dict()
    second = script.train(cells, labels, 7, 1, 1).state_dict()
    assert all(torch.equal(first[k], second[k]) for k in first)


def test_reader_cuts_are_the_readers_defaults_and_shipped_cuts_differ() -> None:
    import inspect

    script = _script()
    defaults = {name: p.default for name, p in inspect.signature(find_bands).parameters.items()}
    reader = script.CUTS["reader"]
    assert reader["tall_rule"] == inspect.signature(segment).parameters["tall_rule"].default
    for key in ("first_pairs", "distinct_lines", "paragraphs_last", "same_lengths"):
        assert reader[key] == defaults[key], key
    shipped = script.CUTS["shipped"]
    assert set(shipped) == set(reader)
    assert all(shipped[k] != reader[k] for k in reader)
    for cuts in ("reader", "shipped"):
        got = [script.frame_cells(20261129, i, cuts) for i in range(4)]
        assert any(g is not None for g in got), cuts

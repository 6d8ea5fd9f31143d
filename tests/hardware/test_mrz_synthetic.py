"""The seeded synthetic generator: deterministic, valid MRZs, camera-sized frames."""

from __future__ import annotations

import hashlib
from datetime import date

import numpy as np

from admission.mrz import parse_mrz
from hardware.mrz import synthetic
from hardware.mrz.layout import checks_pass, layout_for_lines


def test_same_seed_same_frame() -> None:
    a = synthetic.sample(7, 3)
    b = synthetic.sample(7, 3)
    assert a.lines == b.lines
    assert hashlib.sha256(a.image.tobytes()).digest() == hashlib.sha256(b.image.tobytes()).digest()
    assert synthetic.sample(7, 4).lines != a.lines


def test_frames_are_camera_like_and_lines_valid() -> None:
    formats = set()
    for i in range(12):
        s = synthetic.sample(11, i)
        assert s.image.shape == (720, 1280, 3) and s.image.dtype == np.uint8
        assert s.identity is not None
        layout = layout_for_lines(s.lines)
        assert layout is not None and checks_pass(s.lines, layout) == []
        parsed = parse_mrz(s.lines, today=date(2026, 11, 29))
        assert parsed.format is not None
        assert parsed.document_number == s.identity.document_number
        assert parsed.birth_date == s.identity.birth_date
        formats.add(s.identity.doc_format)
    assert formats == {"TD1", "TD2", "TD3"}


def test_negatives_have_no_lines() -> None:
    for i in range(4):
        s = synthetic.sample(5, i, negative=True)
        assert s.lines == [] and s.image.shape == (720, 1280, 3)

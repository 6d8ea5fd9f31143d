"""The fixed-pitch segmenter: stray blobs at the ends of the lines."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from hardware.mrz import synthetic
from hardware.mrz.segment import segment


def _band(stray: bool) -> np.ndarray:
    """Three OCR-B lines of 30 characters (28 px capitals, 25 px pitch), optionally with a
    mark two pitches left of each line (a card edge or photo corner in a real band)."""
    img = Image.new("L", (30 * 25 + 120, 150), 220)
    draw = ImageDraw.Draw(img)
    font = synthetic._font(38)
    for r, line in enumerate(["I<UTOD231458907<<<<<<<<<<<<<<<",
                              "7408122F1204159UTO<<<<<<<<<<<6",
                              "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]):
        y = 12 + r * 45
        for i, ch in enumerate(line):
            draw.text((70 + i * 25, y), ch, font=font, fill=20)
        if stray:
            draw.rectangle([70 - 50 + 4, y + 8, 70 - 50 + 12, y + 30], fill=20)
    return np.asarray(img)


def test_stray_blobs_at_the_line_ends_are_trimmed_only_on_request() -> None:
    clean = segment(_band(False), 3)
    assert clean is not None and clean.line_length == 30
    assert segment(_band(True), 3) is None  # the training default: plain count
    trimmed = segment(_band(True), 3, trim_ends=True)
    assert trimmed is not None and trimmed.line_length == 30

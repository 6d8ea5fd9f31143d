"""The MRZ locator: splitting touching lines."""

from __future__ import annotations

import numpy as np

from hardware.mrz.locate import _line_runs


def _profile(dip: float, lines: int = 3, thick: int = 10, gap: int = 4) -> np.ndarray:
    """A cross profile of ``lines`` text lines whose gaps keep ``dip`` of the peak."""
    out: list[float] = []
    for k in range(lines):
        out += [1.0] * thick
        if k < lines - 1:
            out += [dip] * gap
    return np.array(out, np.float32)


def test_touching_lines_are_cut_again_where_their_gaps_show() -> None:
    # clean gaps: three lines at the first cut
    assert _line_runs(_profile(0.1), 300.0) == [(0, 10), (14, 24), (28, 38)]
    # noise filled the gaps to 40 % of the peak: one run, too thick for a line 300 long,
    # is cut again higher up
    assert _line_runs(_profile(0.4), 300.0) == [(0, 10), (14, 24), (28, 38)]
    # a run as thick but long enough to be one line (a bold rule of text) stays whole
    assert _line_runs(_profile(0.4), 400.0) == [(0, 38)]
    # a thick blob with no regular inner gaps is not cut into made-up lines
    blob = np.concatenate([np.ones(25), [0.5] * 3, np.ones(6)]).astype(np.float32)
    assert _line_runs(blob, 200.0) == [(0, 34)]

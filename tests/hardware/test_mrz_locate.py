"""The MRZ locator: splitting touching lines."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_the_fast_labelling_finds_the_same_components_as_opencvs_default() -> None:
    import cv2

    from hardware.mrz import synthetic
    from hardware.mrz.blobs import components

    for index, negative in ((0, False), (1, True), (2, True)):
        grey = cv2.cvtColor(synthetic.sample(5, index, negative=negative).image,
                            cv2.COLOR_BGR2GRAY)
        big = cv2.resize(grey, (1920, 1080))
        ink = cv2.morphologyEx(big, cv2.MORPH_BLACKHAT, np.ones((9, 9), np.uint8))
        mask = cv2.threshold(ink, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1]
        n, labels, stats, centroids = components(mask)
        ref = cv2.connectedComponentsWithStats(mask, connectivity=8)
        assert n == ref[0] > 10
        assert np.array_equal(labels, ref[1])
        assert np.array_equal(stats, ref[2])
        assert np.allclose(centroids, ref[3])


def test_the_search_can_be_held_to_the_strongest_text_directions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import cv2

    from hardware.mrz import locate, synthetic

    grey = cv2.cvtColor(synthetic.sample(5, 0).image, cv2.COLOR_BGR2GRAY)
    found = locate.find_bands(grey, frame_threshold=True)
    assert found  # the zone, at the frame's own skew
    true_skew = locate._skew_angle(cv2.morphologyEx(
        cv2.resize(grey, (1280, 720)), cv2.MORPH_BLACKHAT,
        cv2.getStructuringElement(cv2.MORPH_RECT, (9, 9))))[0]
    wrong = true_skew + 30 if true_skew < 0 else true_skew - 30
    monkeypatch.setattr(locate, "_skew_angle", lambda _bh: [wrong, true_skew])
    assert len(locate.find_bands(grey, frame_threshold=True)) == len(found)
    assert locate.find_bands(grey, frame_threshold=True, max_skews=1) == []

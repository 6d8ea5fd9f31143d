"""The MRZ locator: splitting touching lines, labelling blobs, grouping lines into bands."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.mrz.locate import _group_bands, _Line, _line_runs


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

    from hardware.generators import synthetic
    from hardware.mrz.blobs import components

    for index, negative in ((0, False), (1, True), (2, True)):
        grey = cv2.cvtColor(synthetic.sample(5, index, negative=negative).image, cv2.COLOR_BGR2GRAY)
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
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cv2

    from hardware.generators import synthetic
    from hardware.mrz import locate

    grey = cv2.cvtColor(synthetic.sample(5, 0).image, cv2.COLOR_BGR2GRAY)
    found = locate.find_bands(grey, frame_threshold=True)
    assert found  # the zone, at the frame's own skew
    true_skew = locate._skew_angle(
        cv2.morphologyEx(
            cv2.resize(grey, (1280, 720)),
            cv2.MORPH_BLACKHAT,
            cv2.getStructuringElement(cv2.MORPH_RECT, (9, 9)),
        )
    )[0]
    wrong = true_skew + 30 if true_skew < 0 else true_skew - 30
    monkeypatch.setattr(locate, "_skew_angle", lambda _bh: [wrong, true_skew])
    assert len(locate.find_bands(grey, frame_threshold=True)) == len(found)
    assert locate.find_bands(grey, frame_threshold=True, max_skews=1) == []


def _lines(count: int, x: float, y: float) -> list[_Line]:
    """``count`` parallel text lines 300 px long and 10 px thick, 22 px apart."""
    return [_Line(x, y + 22.0 * k, 300.0, 10.0, 0.0) for k in range(count)]


def test_the_chains_of_a_paragraph_are_told_from_a_zone() -> None:
    # a paragraph of five lines on the left; on the right, a zone of two lines with one
    # line of print above it, as on a visa: three lines in a run, not four
    groups = _group_bands(_lines(5, 200.0, 100.0) + _lines(3, 900.0, 100.0))
    left = [(len(chain), paragraph) for chain, _s, paragraph in groups if chain[0].cx < 500]
    right = [(len(chain), paragraph) for chain, _s, paragraph in groups if chain[0].cx > 500]
    assert left and all(paragraph for _n, paragraph in left)
    assert (3, False) in right and (2, False) in right
    assert not any(paragraph for _n, paragraph in right)
    # three lines alone, or two, are never a paragraph
    assert not any(p for _c, _s, p in _group_bands(_lines(3, 200.0, 100.0)))
    assert not any(p for _c, _s, p in _group_bands(_lines(2, 200.0, 100.0)))


def test_a_shorter_line_between_the_zone_lines_does_not_take_the_seconds_place() -> None:
    # a German passport: a line of microprint, flush with the zone's left end, runs
    # between its two lines, nearer the first; it joins the first line's chain and the
    # second line, out of step with it, does not
    first, second = _Line(200.0, 100.0, 300.0, 10.0, 0.0), _Line(200.0, 135.0, 300.0, 10.0, 0.0)
    micro = _Line(120.0, 114.0, 140.0, 10.0, 0.0)

    def pairs(**kw: bool) -> list[list[float]]:
        return [
            [ln.cy for ln in chain] for chain, _s, _p in _group_bands([first, micro, second], **kw)
        ]

    assert [100.0, 114.0] in pairs(same_lengths=False)
    assert [100.0, 135.0] not in pairs(same_lengths=False)
    assert [100.0, 135.0] in pairs()  # the equal lines alone are a band too

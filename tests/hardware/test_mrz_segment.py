"""The fixed-pitch segmenter: stray blobs at the ends of the lines, blur, dark edges."""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw

from hardware.generators import synthetic
from hardware.mrz.segment import segment


def _band(stray: bool) -> np.ndarray:
    """Three OCR-B lines of 30 characters (28 px capitals, 25 px pitch), optionally with a
    mark two pitches left of each line (a card edge or photo corner in a real band)."""
    img = Image.new("L", (30 * 25 + 120, 150), 220)
    draw = ImageDraw.Draw(img)
    font = synthetic._font(38)
    for r, line in enumerate(
        [
            "I<UTOD231458907<<<<<<<<<<<<<<<",
            "7408122F1204159UTO<<<<<<<<<<<6",
            "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
        ]
    ):
        y = 12 + r * 45
        for i, ch in enumerate(line):
            draw.text((70 + i * 25, y), ch, font=font, fill=20)
        if stray:
            draw.rectangle([70 - 50 + 4, y + 8, 70 - 50 + 12, y + 30], fill=20)
    return np.asarray(img)


def test_stray_blobs_at_the_line_ends_are_trimmed_only_on_request() -> None:
    clean = segment(_band(False), 3)
    assert clean is not None and clean.line_length == 30
    assert segment(_band(True), 3) is None  # the default: the plain count
    trimmed = segment(_band(True), 3, trim_ends=True)
    assert trimmed is not None and trimmed.line_length == 30


def test_blurred_characters_that_merge_are_cut_on_the_column_profile_grid() -> None:
    """Motion blur joins neighbouring glyphs into one blob: they cannot be counted, but
    the line's inked span and the dips between characters still give the grid."""
    sharp = segment(_band(False), 3)
    assert sharp is not None and sharp.centres is not None and not sharp.profile_grid
    kernel = np.full((1, 19), 1 / 19, np.float32)  # 19 px of horizontal motion, 0.76 pitch
    blurred = cv2.filter2D(_band(False).astype(np.float32), -1, kernel).astype(np.uint8)
    assert segment(blurred, 3) is None  # the blobs alone: no countable line
    cut = segment(blurred, 3, profile_fallback=True)
    assert cut is not None and cut.profile_grid and cut.line_length == 30
    assert cut.centres is not None
    assert np.abs(cut.centres - sharp.centres).max() < 0.25 * 25  # within a quarter pitch


def test_the_profile_grid_ignores_a_card_edge_beyond_the_text() -> None:
    band = _band(False).copy()
    band[:, -10:] = 20  # dark beyond the card edge, 1.8 pitches right of the text
    kernel = np.full((1, 19), 1 / 19, np.float32)
    blurred = cv2.filter2D(band.astype(np.float32), -1, kernel).astype(np.uint8)
    cut = segment(blurred, 3, profile_fallback=True)
    sharp = segment(_band(False), 3)
    assert cut is not None and sharp is not None and sharp.centres is not None
    assert cut.centres is not None and np.abs(cut.centres - sharp.centres).max() < 0.25 * 25


def test_a_dark_region_cut_by_the_band_edge_is_not_ink() -> None:
    """The bottom of a photo just above the zone, cut by the band's top edge and blurred
    into the first line's capitals: to a black-hat of the band alone it is a thin dark
    strip - ink across the tops of the first cells (or, joined to the glyphs, a "rule"
    painted out with them). The band is extended by its edges first: the cells under it
    are the cells of the same band without the photo."""
    plain = cv2.GaussianBlur(_band(False), (0, 0), 2.0)
    photo = _band(False).copy()
    photo[:18, 40:330] = 70  # the photo's lower edge, 1 px above the capitals' tops
    photo = cv2.GaussianBlur(photo, (0, 0), 2.0)
    ref, cut = segment(plain, 3), segment(photo, 3)
    assert ref is not None and cut is not None and cut.line_length == 30
    assert ref.centres is not None and cut.centres is not None
    assert np.abs(cut.centres - ref.centres).max() < 0.25 * 25
    under, seen = cut.cells[0, :10], ref.cells[0, :10]  # 'I<UTOD2314', under the photo
    assert 0.9 < under.sum() / seen.sum() < 1.1
    assert float(np.abs(under - seen).mean()) < 0.05


def test_cells_can_be_cut_again_shifted_and_scaled() -> None:
    seg = segment(_band(False), 3)
    assert seg is not None
    assert np.array_equal(seg.recut(), seg.cells)  # no shift: the same cells
    right = seg.recut(dx=0.5)  # half a pitch right: the cell sees less of the left neighbour
    assert right.shape == seg.cells.shape and not np.allclose(right, seg.cells)
    # half a pitch right of cell k overlaps half a pitch left of cell k + 1
    left_of_next = seg.recut(dx=-0.5)
    assert np.abs(right[:, :-1] - left_of_next[:, 1:]).mean() < 0.05
    assert np.abs(right[:, :-1] - seg.cells[:, :-1]).mean() > 0.05
    smaller = seg.recut(scale=0.8)  # a tighter crop: the ink fills more of the cell
    assert smaller.mean() > seg.cells.mean()


def test_a_line_can_be_moved_by_a_cell_and_its_offset_is_measured() -> None:
    seg = segment(_band(False), 3)
    assert seg is not None
    assert np.abs(seg.line_offsets()).max() < 0.3  # the lines start and end together
    moved = seg.moved_line(2, 1)  # the name line's grid one cell to the right
    offsets = moved.line_offsets()
    assert 0.9 < offsets[2] < 1.1 and np.abs(offsets[:2]).max() < 0.6
    # each of its cells is now the next character's; the other lines are untouched
    assert np.abs(moved.cells[2, :-1] - seg.cells[2, 1:]).mean() < 0.02
    assert np.abs(moved.cells[2] - seg.cells[2]).mean() > 0.05
    assert np.array_equal(moved.cells[:2], seg.cells[:2])
    # and the move can be undone (to within the local pitch's rounding), recuts included
    back = moved.moved_line(2, -1)
    assert np.abs(back.cells - seg.cells).mean() < 0.005
    assert np.abs(back.recut(dx=0.1) - seg.recut(dx=0.1)).mean() < 0.005


def _stacked_band(box: bool) -> np.ndarray:
    """Two OCR-B lines (28 px capitals, 25 px pitch) set close, with an I at the same
    place in both whose stems blur has joined across the gap - a thin vertical run about
    2.2 character heights long; optionally a box edge down nearly the band's full height."""
    img = Image.new("L", (44 * 25 + 140, 110), 220)
    draw = ImageDraw.Draw(img)
    font = synthetic._font(38)
    lines = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902I36UTO7408122F1204159ZE184226B<<<<<10",
    ]  # I at column 7 in both
    for r, line in enumerate(lines):
        for i, ch in enumerate(line):
            draw.text((70 + i * 25, 14 + r * 36), ch, font=font, fill=20)
    ink = np.asarray(img).copy()
    x0 = 70 + 7 * 25
    column = ink[:, x0 : x0 + 25] < 100
    rows = np.where(column.any(axis=1))[0]  # from the top of one I to the foot of the other
    stem = np.where(column[rows[0] + 10 : rows[0] + 20].any(axis=0))[0]  # the upper I's stem
    ink[rows[0] : rows[-1] + 1, x0 + stem[0] : x0 + stem[-1] + 1] = 20
    if box:
        ink[4:106, 57:60] = 20  # 10 px left of the first glyphs: inside the first cells
    return ink


def test_stems_joined_across_lines_are_not_taken_for_a_rule() -> None:
    kept = segment(_stacked_band(False), 2)
    erased = segment(_stacked_band(False), 2, tall_rule=1.7)  # the earlier threshold
    assert kept is not None and erased is not None
    # the joined Is (column 7 of both lines) keep their ink; at 1.7 they were painted out
    own = slice(16, 32)  # the middle pitch of the cell: the character itself
    assert kept.cells[:, 7, :, own].mean() > 2 * erased.cells[:, 7, :, own].mean()
    assert np.abs(kept.cells[:, 10:] - erased.cells[:, 10:]).mean() < 0.01
    # a box edge down the whole band is still a rule: painted out, no cell sees it
    boxed = segment(_stacked_band(True), 2)
    seen = segment(_stacked_band(True), 2, tall_rule=99.0)  # no vertical rule removed
    assert boxed is not None and seen is not None
    assert np.abs(boxed.cells[:, 0] - kept.cells[:, 0]).mean() < 0.01
    assert np.abs(seen.cells[:, 0] - kept.cells[:, 0]).mean() > 0.02

"""Cut a rectified MRZ band into character cells.

MRZ text is fixed pitch with a known number of characters per line (30, 36 or 44),
so a line is cut on a regular grid fitted to the ink blobs, not blob by blob: touching
or broken characters and faint fillers do not shift the cells that follow.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from typing import Any, cast

import cv2
import numpy as np
from cv2.typing import MatLike
from numpy.typing import NDArray

from hardware.mrz.blobs import components

# classifier input: a cell is three pitches wide - the character and its neighbour on
# either side, so the classifier sees what blur and JPEG carry over from them - and 1.3
# line heights tall, at 16 px per pitch
CELL_PITCHES = 3.0
CELL_W, CELL_H = 48, 24
_LENGTHS = (30, 36, 44)
# rules and box edges are runs at least this many character heights long (and thin, see
# ``_thin``). A vertical one must cross more than two lines' worth: in small print, blur
# joins the stems of glyphs stacked in neighbouring lines into runs of about 2.1-2.3
# character heights, and painting those out erased the glyphs (dev seeds 777-779, 3000
# frames: 1.7 -> 2.6 gave 2938 -> 2940 right, none lost, wrong unchanged at 2). Box
# edges span the band (about 3.9 character heights for two lines).
RULE_MIN_FLAT = 2.5
RULE_MIN_TALL = 2.6
# cell xs, ys (a polynomial's values: float64, typed as numpy's polyval gives them), line
# height, stroke level
_Line = tuple[NDArray[np.float64], NDArray[np.floating[Any]], float, float]


@dataclass(frozen=True)
class Segmented:
    cells: NDArray[np.float32]  # (lines, length, CELL_H, CELL_W) float32, ink = 1
    line_length: int
    contrast: float  # ink/paper contrast of the band, 0..255
    sharpness: float  # mean gradient magnitude on ink edges, relative to contrast
    centres: NDArray[np.float64] | None = None  # (lines, length) x of every cell centre in the band
    profile_grid: bool = False  # cut on a column-profile grid (blobs could not be counted)
    # what the cells were cut from, to cut them again a little shifted (see ``recut``)
    source: tuple[NDArray[np.float32], list[_Line]] | None = field(
        default=None, repr=False, compare=False
    )

    def recut(self, dx: float = 0.0, dy: float = 0.0, scale: float = 1.0) -> NDArray[np.float32]:
        """The cells cut again with every centre moved by ``dx`` pitches and ``dy``
        line heights, and the cell ``scale`` times as large."""
        if self.source is None:
            return self.cells
        flat_ink, lines = self.source
        return _cut(flat_ink, lines, dx, dy, scale)

    def line_offsets(self) -> NDArray[np.float64]:
        """Per line, how far its grid lies from its siblings' (pitches, + = to the right):
        the mean of its first and last cell centre's offsets from the other lines' mean,
        or 0 where the two ends disagree in direction (a grid stretched or squeezed, not
        moved). MRZ lines start and end together, so a line off by about one pitch at both
        ends was counted from a stray blob at one end and lost a character at the other."""
        if self.centres is None or len(self.centres) < 2:
            return np.zeros(len(self.cells))
        c = self.centres
        pitch = float(np.median(np.diff(c, axis=1)))
        out = np.zeros(len(c))
        for r in range(len(c)):
            others = np.delete(c, r, axis=0)
            start = (c[r, 0] - others[:, 0].mean()) / pitch
            end = (c[r, -1] - others[:, -1].mean()) / pitch
            if start * end > 0:
                out[r] = (start + end) / 2
        return out

    def moved_line(self, line: int, cells_by: int) -> Segmented:
        """The same cut with one line's grid moved by ``cells_by`` whole cells (the grid's
        own local pitch at each cell; the new end cell extrapolated) and that line's cells
        cut again."""
        if self.source is None or self.centres is None:
            return self
        flat_ink, lines = self.source
        xs, ys, h, level = lines[line]
        steps = np.diff(xs)
        local = np.concatenate([steps[:1], (steps[1:] + steps[:-1]) / 2, steps[-1:]])
        moved_xs = xs + cells_by * local
        moved = (moved_xs, np.polyval(np.polyfit(xs, ys, 2), moved_xs), h, level)
        new_lines = [moved if r == line else grid for r, grid in enumerate(lines)]
        cells = self.cells.copy()
        cells[line] = _cut(flat_ink, [moved])[0]
        centres = self.centres.copy()
        centres[line] = moved_xs
        return replace(self, cells=cells, centres=centres, source=(flat_ink, new_lines))


def _ink(band: NDArray[np.uint8], char_h: float) -> NDArray[np.uint8]:
    """Dark strokes against the local paper (black-hat). The band is first extended by
    repeating its edges: a dark region the band's edge cuts through (the bottom of a
    photo just above the zone, a dark desk beside it) would otherwise be a thin dark
    strip to the black-hat - ink - and, joined to the glyphs under it, be taken for a
    rule and painted out with them."""
    k = max(5, int(char_h * 1.4) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    padded = cv2.copyMakeBorder(band, k, k, k, k, cv2.BORDER_REPLICATE)
    out = cv2.morphologyEx(padded, cv2.MORPH_BLACKHAT, kernel)[k:-k, k:-k]
    return cast(NDArray[np.uint8], out)  # a morphological filter keeps the band's depth


def _line_rows(binary: MatLike, expected: int) -> list[tuple[int, int]]:
    profile = binary.mean(axis=1) / 255.0
    profile = np.convolve(profile, np.ones(3) / 3, "same")
    best: list[tuple[int, int]] = []
    for frac in (0.35, 0.25, 0.45, 0.15, 0.55):
        on = profile > frac * profile.max()
        runs, start = [], None
        for i, v in enumerate(on):
            if v and start is None:
                start = i
            elif not v and start is not None:
                runs.append((start, i))
                start = None
        if start is not None:
            runs.append((start, len(on)))
        runs = [r for r in runs if r[1] - r[0] >= 4]
        if len(runs) > expected:  # keep the strongest, most text-like rows
            runs = sorted(runs, key=lambda r: -float(profile[r[0] : r[1]].sum()))[:expected]
            runs.sort()
        if len(runs) == expected:
            return runs
        if len(runs) > len(best):
            best = runs
    return best


def _clean_blobs(xs: NDArray[np.float64], ws: NDArray[np.float64]) -> NDArray[np.float64]:
    """Blob centres with broken characters joined and touching characters split."""
    if len(xs) < 3:
        return xs
    pitch = float(np.median(np.diff(xs)))
    width = float(np.median(ws))
    if pitch < 2.0:
        return xs
    out: list[float] = []
    out_w: list[float] = []
    for x, w in zip(xs, ws, strict=True):
        if out and x - out[-1] < 0.45 * pitch:  # two pieces of one character
            left = min(out[-1] - out_w[-1] / 2, x - w / 2)
            right = max(out[-1] + out_w[-1] / 2, x + w / 2)
            out[-1], out_w[-1] = (left + right) / 2, right - left
            continue
        out.append(float(x))
        out_w.append(float(w))
    final: list[float] = []
    for x, w in zip(out, out_w, strict=True):
        k = round((w - width) / pitch) + 1 if w > width + 0.6 * pitch else 1
        final.extend(x + (j - (k - 1) / 2) * (w - width) / max(k - 1, 1) for j in range(k))
    return np.array(final)


def _fit(
    xs: NDArray[np.float64], idx: NDArray[np.int_], total: int, pitch: float
) -> NDArray[np.float64] | None:
    keep: NDArray[np.bool_] = np.ones(len(xs), bool)
    coef = None
    for _ in range(2):
        if keep.sum() < 8:
            return None
        coef = np.polyfit(idx[keep], xs[keep], 2 if keep.sum() > 20 else 1)
        keep = np.abs(np.polyval(coef, idx) - xs) < 0.3 * pitch
    if coef is None or keep.sum() < 8:
        return None
    return np.polyval(coef, np.arange(total))


def _grid(
    xs: NDArray[np.float64], char_h: float, length_options: tuple[int, ...], trim_ends: bool = False
) -> tuple[int, NDArray[np.float64]] | None:
    """(length, cell centres) of the fixed-pitch grid through blob centres ``xs`` (sorted).

    Walks the blobs left to right counting cells by the local pitch (the pitch drifts
    slowly along a line seen in perspective), so the count is exact even when blobs
    are missing; then fits a smooth grid through them.

    With ``trim_ends``, a line whose count is not an MRZ length may shed up to three
    blobs at either end when they sit beyond a gap of 1.4 pitches or more (a card edge,
    a photo corner, a stray mark next to the text): the fewest dropped that give an MRZ
    length win. The check digits still judge the reading.
    """
    found = _grid_once(xs, char_h, length_options)
    if found is not None or not trim_ends or len(xs) < 10:
        return found
    gaps = np.diff(xs)
    pitch = float(np.median(gaps))
    cuts = [(a, b) for a in range(4) for b in range(4) if a + b > 0]
    for a, b in sorted(cuts, key=lambda ab: (ab[0] + ab[1], ab)):
        if a and gaps[a - 1] < 1.4 * pitch:
            continue
        if b and gaps[len(gaps) - b] < 1.4 * pitch:
            continue
        found = _grid_once(xs[a : len(xs) - b], char_h, length_options)
        if found is not None:
            return found
    return None


def _grid_once(
    xs: NDArray[np.float64], char_h: float, length_options: tuple[int, ...]
) -> tuple[int, NDArray[np.float64]] | None:
    if len(xs) < 8:
        return None
    gaps = np.diff(xs)
    pitch = float(np.median(gaps))
    if not 0.55 * char_h < pitch < 1.6 * char_h:
        return None
    rough = (xs[-1] - xs[0]) / pitch + 1  # the count by the median pitch
    if all(abs(rough - n) > 0.3 * n for n in length_options):
        return None  # far from every MRZ length (a line of page text): skip the local pitch
    regular = np.where((gaps > 0.6 * pitch) & (gaps < 1.4 * pitch), gaps, np.nan)
    windows = np.lib.stride_tricks.sliding_window_view(
        np.pad(regular, 6, constant_values=np.nan), 13
    )
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN windows
        local = np.nanmedian(windows, axis=1)
    local = np.where(np.isnan(local), pitch, local)
    steps = np.maximum(1, (gaps / local + 0.5).astype(int))
    idx = [0, *np.cumsum(steps).tolist()]
    total = idx[-1] + 1
    if total not in length_options:
        return None
    centres = _fit(xs, np.array(idx), total, pitch)
    return None if centres is None else (total, centres)


def _grid_like(
    xs: NDArray[np.float64], reference: NDArray[np.float64]
) -> NDArray[np.float64] | None:
    """Cell centres for a line whose blobs are incomplete, using a sibling line's grid:
    MRZ lines share their left edge and pitch."""
    pitch = float(np.median(np.diff(reference)))
    idx = np.clip(
        np.round(np.interp(xs, reference, np.arange(len(reference)))), 0, len(reference) - 1
    ).astype(int)
    near = np.abs(reference[idx] - xs) < 0.35 * pitch
    if near.sum() < 0.6 * len(reference):
        return None
    return _fit(xs[near], idx[near], len(reference), pitch)


def _line_blobs(
    strip_bin: MatLike, char_h: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    n, _l, stats, cents = components(strip_bin)
    keep = []
    for i in range(1, n):
        _x, _y, w, h, area = stats[i]
        if not 0.3 * char_h <= h <= 1.6 * char_h or area < 0.02 * char_h**2:
            continue
        if w > 2.5 * char_h and h > 1.25 * char_h:  # wide and tall: not a run of glyphs
            continue
        keep.append(i)
    if not keep:
        return np.empty(0), np.empty(0), np.empty(0), np.empty(0)
    xs = stats[keep, 0] + stats[keep, 2] / 2.0
    order = np.argsort(xs)
    keep_arr = np.array(keep)[order]
    return (
        xs[order],
        stats[keep_arr, 2].astype(float),
        cents[keep_arr, 1],
        stats[keep_arr, 3].astype(float),
    )


def _trim_outliers(
    xs: NDArray[np.float64], ws: NDArray[np.float64], ys: NDArray[np.float64], char_h: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Drop stray blobs beyond a big gap at either end (a photo edge, a border)."""
    if len(xs) < 3:
        return xs, ws, ys
    gaps = np.diff(xs)
    typical = float(np.median(gaps))
    big = np.where(gaps > max(2.6 * typical, 2.2 * char_h))[0]
    a, b = 0, len(xs)
    for gap_at in big.tolist():  # a small group cut off at either end is not MRZ text
        if gap_at + 1 - a <= 3:
            a = gap_at + 1
    for gap_at in reversed(big.tolist()):
        if b - (gap_at + 1) <= 3 and gap_at + 1 > a:
            b = gap_at + 1
    return xs[a:b], ws[a:b], ys[a:b]


def _text_span(profile: NDArray[np.float64], char_h: float) -> tuple[float, float] | None:
    """First and last inked column of a line's text: one run of inked columns (fillers
    have ink too); a card edge or a photo corner beyond a character-wide gap is not part
    of it."""
    on = np.flatnonzero(profile > 0.2 * float(np.percentile(profile, 95)))
    if len(on) < 2:
        return None
    breaks = np.flatnonzero(np.diff(on) > 0.8 * char_h)
    runs = np.split(on, breaks + 1)
    text = max(runs, key=lambda r: float(profile[r].sum()))
    return float(text[0]), float(text[-1] + 1)


def _profile_grid(
    profile: NDArray[np.float64], span: tuple[float, float], char_h: float, length: int
) -> tuple[float, NDArray[np.float64]] | None:
    """(score, cell centres) of the best ``length``-cell grid over a line's column ink
    profile, when its characters cannot be counted blob by blob (motion blur or defocus
    merges neighbours into one blob, glare breaks them up).

    Every MRZ position carries ink (a filler ``<`` too), so the line's inked span is the
    whole grid: its boundaries are searched around the span's ends, with a pitch that may
    drift linearly (perspective), for the grid whose cell centres are inkiest against its
    cell boundaries - the gaps between characters.
    """
    start, end = span
    pitch = (end - start) / (length - 0.3)
    if not 0.55 * char_h < pitch < 1.6 * char_h:
        return None
    xs = np.arange(len(profile), dtype=np.float64)
    t = np.arange(length + 1) / length

    def best_of(
        a: NDArray[np.floating[Any]], e: NDArray[np.floating[Any]], bend: NDArray[np.float64]
    ) -> tuple[float, NDArray[np.float64]]:
        a, e, bend = (v.reshape(-1, 1) for v in np.meshgrid(a, e, bend, indexing="ij"))
        bounds = a + (e - a) * (t + bend * t * (t - 1))  # (candidates, length + 1)
        centres = (bounds[:, 1:] + bounds[:, :-1]) / 2
        score = np.interp(centres, xs, profile).mean(axis=1) - np.interp(bounds, xs, profile).mean(
            axis=1
        )
        k = int(np.argmax(score))
        return float(score[k]), bounds[k]

    # the ends: from just outside the span to a character and a half inside it (a box
    # edge or a smudge next to the text widens the span), coarse then fine
    step = pitch * 0.25
    bends = np.array([-0.08, -0.04, 0.0, 0.04, 0.08])
    _s, bounds = best_of(start + step * np.arange(-2, 7), end - step * np.arange(-2, 7), bends)
    fine = step * np.linspace(-0.5, 0.5, 5)
    score, bounds = best_of(bounds[0] + fine, bounds[-1] + fine, bends)
    return score, (bounds[1:] + bounds[:-1]) / 2


def _profile_grids(
    ink: NDArray[np.uint8], rows: list[tuple[int, int]], char_h: float, options: tuple[int, ...]
) -> list[NDArray[np.float64]] | None:
    """One grid per line from the column profiles (see :func:`_profile_grid`), every line
    with the same length: the one whose grids fit best."""
    profiles = []
    for top, bottom in rows:
        strip = ink[top:bottom].astype(np.float64)
        profiles.append(np.convolve(strip.sum(axis=0), np.ones(3) / 3, "same"))
    spans = [sp for sp in (_text_span(p, char_h) for p in profiles) if sp is not None]
    if len(spans) != len(profiles):
        return None
    if not _ends_agree([sp[0] for sp in spans], [sp[1] for sp in spans], 1.5 * char_h):
        return None  # lines of ordinary text do not start and end together
    best: tuple[float, list[NDArray[np.float64]]] | None = None
    for length in options:
        fits = [
            f
            for f in (
                _profile_grid(p, sp, char_h, length) for p, sp in zip(profiles, spans, strict=True)
            )
            if f is not None
        ]
        if len(fits) != len(profiles):
            continue
        score = sum(f[0] / max(float(p.max()), 1e-6) for f, p in zip(fits, profiles, strict=True))
        if best is None or score > best[0]:
            best = (score, [f[1] for f in fits])
    return None if best is None else best[1]


def _thin(runs: MatLike, thickness: float, axis: int) -> NDArray[np.uint8]:
    """The long runs that are rules: thin across their length (``axis`` 0: horizontal
    runs, mean height under ``thickness``). A blurred line of glyphs merged into one long
    run is as thick as the characters, and is text."""
    if not cv2.countNonZero(runs):  # most bands have no rule: skip the labelling
        return cast(NDArray[np.uint8], runs)  # a binary mask from morphologyEx, uint8
    n, labels, stats, _c = components(runs)
    if n <= 1:
        return cast(NDArray[np.uint8], runs)
    length = stats[:, cv2.CC_STAT_WIDTH if axis == 0 else cv2.CC_STAT_HEIGHT]
    mean = stats[:, cv2.CC_STAT_AREA] / np.maximum(length, 1)
    keep = mean < thickness
    keep[0] = False
    return np.where(keep[labels], np.uint8(255), np.uint8(0))


def segment(
    band: NDArray[np.uint8],
    line_count: int,
    char_h: float = 28.0,
    *,
    trim_ends: bool = False,
    profile_fallback: bool = False,
    tall_rule: float = RULE_MIN_TALL,
) -> Segmented | None:
    """Cells of a band with ``line_count`` lines, or None when no fixed-pitch grid fits.

    ``trim_ends``: the reader's second attempt on a band whose lines do not count to an
    MRZ length (see :func:`_grid`); ``profile_fallback``: when the blobs cannot be
    counted at all, grids from the lines' column profiles (see :func:`_profile_grid`).
    ``tall_rule``: the shortest vertical rule, in character heights (``RULE_MIN_TALL``).
    """
    return _segment(band, line_count, char_h, trim_ends, profile_fallback, False, tall_rule)[0]


def segment_both(
    band: NDArray[np.uint8],
    line_count: int,
    char_h: float = 28.0,
    *,
    trim_ends: bool = False,
    profile_fallback: bool = False,
) -> tuple[Segmented | None, Segmented | None]:
    """:func:`segment` of the band as found and turned 180 degrees, from one grid: the
    grid is symmetric, so only the cells are cut twice."""
    return _segment(band, line_count, char_h, trim_ends, profile_fallback, True)


def _segment(
    band: NDArray[np.uint8],
    line_count: int,
    char_h: float,
    trim_ends: bool,
    profile_fallback: bool,
    turned: bool,
    tall_rule: float = RULE_MIN_TALL,
) -> tuple[Segmented | None, Segmented | None]:
    ink = _ink(band, char_h)
    otsu, binary = cv2.threshold(ink, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    if otsu < 8:
        return None, None
    # drop rules and box edges (long straight runs): no MRZ glyph has one; they are
    # painted out of the band too, so no cell sees them
    flat = cv2.getStructuringElement(cv2.MORPH_RECT, (int(char_h * RULE_MIN_FLAT), 1))
    tall = cv2.getStructuringElement(cv2.MORPH_RECT, (1, int(char_h * tall_rule)))
    rules = _thin(cv2.morphologyEx(binary, cv2.MORPH_OPEN, flat), 0.25 * char_h, axis=0)
    rules |= _thin(cv2.morphologyEx(binary, cv2.MORPH_OPEN, tall), 0.25 * char_h, axis=1)
    if rules.any():
        binary = cv2.subtract(binary, rules)
        band = band.copy()
        band[cv2.dilate(rules, np.ones((3, 3), np.uint8)) > 0] = int(np.percentile(band, 90))
        ink = _ink(band, char_h)
    rows = _line_rows(binary, line_count)
    if len(rows) != line_count:
        return None, None
    options = (30,) if line_count == 3 else (36, 44)
    lines_blobs = []
    for top, bottom in rows:
        h: float = bottom - top
        pad = int(h * 0.35) + 2
        a, b = max(0, top - pad), min(band.shape[0], bottom + pad)
        strip = ink[a:b]
        level, strip_bin = cv2.threshold(strip, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        if level < 8:
            strip_bin = binary[a:b]
        strip_bin = cv2.subtract(strip_bin, rules[a:b])
        xs, ws, ys, hs = _line_blobs(strip_bin, float(h))
        if len(hs) >= 8:  # the row run may include a border or a picture edge
            # capital height: the tall blobs ('<' is shorter, and may be most of a line)
            h = float(np.median(hs[hs >= 0.8 * np.percentile(hs, 95)]))
            keep = (hs > 0.3 * h) & (hs < 1.4 * h)
            xs, ws, ys = xs[keep], ws[keep], ys[keep]
        xs, ws, ys = _trim_outliers(xs, ws, ys, float(h))
        yfit = (
            np.polyfit(xs, ys + a, 2 if len(xs) >= 20 else 1)  # curved pages: quadratic
            if len(xs) >= 5
            else None
        )
        centres = _clean_blobs(xs, ws)
        strokes = strip[strip_bin > 0]
        level = float(np.percentile(strokes, 90)) if strokes.size else 1.0
        lines_blobs.append((centres, float(h), yfit, max(level, 8.0)))
    grids = _blob_grids(lines_blobs, options, trim_ends)
    from_profile = grids is None and profile_fallback
    if from_profile:
        fallback = _profile_grids(ink, rows, char_h, options)
        if fallback is not None:
            grids = []
            for (top, bottom), centres, (_c, h, yfit, level) in zip(
                rows, fallback, lines_blobs, strict=True
            ):
                line_y = yfit if yfit is not None else np.array([(top + bottom) / 2.0])
                grids.append(((len(centres), centres), h, line_y, level))
    if grids is None:
        return None, None
    length = grids[0][0][0]
    paper = float(np.percentile(band, 90))
    inkv = float(np.percentile(band[binary > 0], 30)) if (binary > 0).any() else 0.0
    contrast = max(paper - inkv, 1.0)
    flat_ink = ink.astype(np.float32)  # black-hat: ink against the local paper (shading-free)
    lines = [
        (centres, np.polyval(yfit, centres), h, level) for (_, centres), h, yfit, level in grids
    ]
    gx = cv2.Sobel(band, cv2.CV_32F, 1, 0)
    sharp = float(np.percentile(np.abs(gx), 98)) / contrast
    upright = Segmented(
        _cut(flat_ink, lines),
        length,
        contrast,
        sharp,
        np.array([line[0] for line in lines]),
        from_profile,
        (flat_ink, lines),
    )
    if not turned:
        return upright, None
    # the same grid seen with the band turned 180 degrees: lines and cells in reverse order
    height, width = flat_ink.shape
    back = [
        (width - 1 - xs[::-1], height - 1 - ys[::-1], h, level)
        for xs, ys, h, level in reversed(lines)
    ]
    flipped = np.ascontiguousarray(flat_ink[::-1, ::-1])
    return upright, Segmented(
        _cut(flipped, back),
        length,
        contrast,
        sharp,
        np.array([line[0] for line in back]),
        from_profile,
        (flipped, back),
    )


def _cut(
    flat_ink: NDArray[np.float32],
    lines: list[_Line],
    dx: float = 0.0,
    dy: float = 0.0,
    scale: float = 1.0,
) -> NDArray[np.float32]:
    cells = np.empty((len(lines), len(lines[0][0]), CELL_H, CELL_W), np.float32)
    for r, (xs, ys, h, level) in enumerate(lines):
        pitch = float(np.median(np.diff(xs)))
        for i, (cx, cy) in enumerate(zip(xs, ys, strict=True)):
            cells[r, i] = _cell(
                flat_ink,
                float(cx) + dx * pitch,
                float(cy) + dy * h,
                pitch * scale,
                float(h) * scale,
                level,
            )
    return cells


_Grid = tuple[tuple[int, NDArray[np.float64]], float, NDArray[np.float64], float]


def _blob_grids(
    lines_blobs: list[tuple[NDArray[np.float64], float, NDArray[np.float64] | None, float]],
    options: tuple[int, ...],
    trim_ends: bool,
) -> list[_Grid] | None:
    """Per line ((length, centres), height, y fit, stroke level) from the counted blobs; a
    line that cannot be counted borrows a sibling's grid; None unless all agree."""
    grids: list[
        tuple[tuple[int, NDArray[np.float64]] | None, float, NDArray[np.float64], float]
    ] = []
    for centres, h, yfit, level in lines_blobs:
        if yfit is None:
            return None
        grids.append((_grid(centres, h, options, trim_ends), h, yfit, level))
    good = [g[0] for g in grids if g[0] is not None]
    if not good:
        return None
    ref = good[0]
    out: list[_Grid] = []
    for k, (grid, h, yfit, level) in enumerate(grids):
        if grid is None:
            fixed = _grid_like(lines_blobs[k][0], ref[1])
            if fixed is None:
                return None
            grid = (ref[0], fixed)
        out.append((grid, h, yfit, level))
    lengths = [g[0][0] for g in out]
    if lengths.count(lengths[0]) != len(lengths):
        return None
    return out if _aligned([g[0][1] for g in out]) else None


def _aligned(grids: list[NDArray[np.float64]]) -> bool:
    """A grid whose ends stray from its siblings' by more than a character and a half
    (perspective slants them less) was fitted to the wrong blobs."""
    pitch = float(np.median(np.diff(grids[0])))
    return _ends_agree([float(g[0]) for g in grids], [float(g[-1]) for g in grids], 1.5 * pitch)


def _ends_agree(starts: list[float], ends: list[float], tolerance: float) -> bool:
    """MRZ lines start and end together, give or take ``tolerance`` px."""
    return max(starts) - min(starts) <= tolerance and max(ends) - min(ends) <= tolerance


def _cell(
    ink: NDArray[np.float32], cx: float, cy: float, pitch: float, h: float, level: float
) -> NDArray[np.float32]:
    """A CELL_W x CELL_H crop centred on (cx, cy): CELL_PITCHES wide, 1.3 line heights
    tall."""
    w_src, h_src = pitch * CELL_PITCHES, h * 1.3
    sx, sy = w_src / CELL_W, h_src / CELL_H
    m = np.array([[sx, 0, cx - w_src / 2], [0, sy, cy - h_src / 2]], np.float32)
    crop = cv2.warpAffine(
        ink,
        m,
        (CELL_W, CELL_H),
        flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0.0,
    )
    return np.clip(crop / level, 0.0, 1.0)

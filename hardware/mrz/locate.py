"""Find MRZ bands in a grey frame and rectify them.

Classical and cheap (a few ms on a 1280x720 frame):

1. downscale to a working size; a black-hat filter keeps thin dark strokes (text);
2. the skew modulo 90 degrees is the peak of the stroke-gradient orientation histogram
   (text is made of strokes along and across its lines); rotate it away;
3. close along the rows and along the columns (the text may run either way: four
   orientations), keep long thin blobs as text lines;
4. group 2-3 parallel lines of equal length and regular spacing into a band;
5. map the band's quad back to the full-resolution frame and warp it upright.

A band is returned in both readings (as found and turned 180 degrees) because the
recogniser, not the geometry, decides which way up the characters are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import cv2
import numpy as np
from cv2.typing import MatLike
from numpy.typing import NDArray

from hardware.mrz.blobs import components

WORK_SIZE = 1280  # long side of the working image, px
BAND_CHAR_HEIGHT = 28  # character height in the rectified band, px
MAX_SKEW_BLOBS = 450  # the skew is voted by at most this many blobs (the biggest)
# an MRZ band's length in line heights: 22-51 measured on 330 synthetic reads (TD1 to TD3)
# and the 26 real ones, with a margin each side; page text lines are often longer and
# visual-zone words shorter
MRZ_LINE_HEIGHTS = (16.0, 64.0)
# two candidates are the same band when their centres lie within this many frame pixels,
# or within half a line height for small print: a 2-line zone and the 3-line chain of the
# zone and the line of print above it lie about one line height apart - in a 500 px
# photo (the real US visa) under 10 px, and the zone itself was dropped as a duplicate
DISTINCT_PX = 10.0
DISTINCT_LINES = 0.5


@dataclass(frozen=True)
class Band:
    """A candidate MRZ, warped upright from the frame."""

    image: NDArray[np.uint8]  # grey, text horizontal
    lines: int  # number of text lines grouped (2 or 3)
    score: float
    quad: NDArray[np.float32]  # 4x2 corners in frame coordinates (tl, tr, br, bl)
    paragraph: bool = False  # its lines lie in a run of four or more (``_group_bands``)


@dataclass(frozen=True)
class _Line:
    """A text line in working coordinates: centre, direction and extent."""

    cx: float
    cy: float
    length: float
    thickness: float
    angle: float  # radians, direction of the text (small: the skew is rotated away)


def _blob_angles(binary: MatLike) -> list[float]:
    """Skews (mod 90) of elongated blobs once neighbouring glyphs are merged: text lines
    when the glyphs are too small or too merged for the neighbour statistics."""
    merged = cv2.morphologyEx(
        binary, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    )
    _n, labels, stats, _c = components(merged)
    hist = np.zeros(90)
    for i in np.flatnonzero(stats[1:, 4] > 150) + 1:
        x, y, w, h, area = stats[i]
        if max(w, h) < 60:
            continue
        m = cv2.moments((labels[y : y + h, x : x + w] == i).astype(np.uint8), binaryImage=True)
        mu20, mu02, mu11 = m["mu20"], m["mu02"], m["mu11"]
        spread = np.hypot(mu20 - mu02, 2 * mu11)
        major, minor = mu20 + mu02 + spread, mu20 + mu02 - spread
        if minor <= 0 or major / minor < 25:  # elongation > 5
            continue
        angle = 0.5 * np.degrees(np.arctan2(2 * mu11, mu20 - mu02)) % 90.0
        hist[int(angle) % 90] += area
    if hist.max() <= 0:
        return []
    b = int(
        np.argmax(np.convolve(np.concatenate([hist[-2:], hist, hist[:2]]), np.ones(5), "valid"))
    )
    a = float(b) + 0.5
    return [a - 90 if a > 45 else a]


def _skew_angle(blackhat: MatLike) -> list[float]:
    """Candidate skews in degrees (-45..45], strongest first.

    Characters of a text line have their nearest neighbour along the line (the pitch is
    shorter than the line spacing), so the histogram of nearest-neighbour directions
    between character-sized blobs peaks at the text direction.
    """
    otsu, _ = cv2.threshold(blackhat, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    binary = cv2.threshold(blackhat, max(12.0, otsu * 0.8), 255, cv2.THRESH_BINARY)[1]
    n, _l, stats, cents = components(binary)
    if n < 12:
        return [0.0]
    size = np.maximum(stats[1:, 2], stats[1:, 3]).astype(np.float32)
    ok = (size >= 3) & (size <= 40) & (stats[1:, 4] >= 4)
    pts, size = cents[1:][ok].astype(np.float32), size[ok]
    if len(pts) < 10:
        return [0.0]
    if len(pts) > MAX_SKEW_BLOBS:  # a page of text: its biggest blobs tell the direction as well
        keep = np.argsort(-size)[:MAX_SKEW_BLOBS]
        pts, size = pts[keep], size[keep]
    d = pts[:, None, :] - pts[None, :, :]
    dist = np.hypot(d[..., 0], d[..., 1])
    ratio = size[:, None] / size[None, :]
    dist[(ratio < 0.5) | (ratio > 2.0) | (dist < 3.5)] = np.inf
    np.fill_diagonal(dist, np.inf)
    two = np.argpartition(dist, 1, axis=1)[:, :2]
    swap = dist[np.arange(len(pts)), two[:, 0]] > dist[np.arange(len(pts)), two[:, 1]]
    two[swap] = two[swap][:, ::-1]
    rows = np.arange(len(pts))
    d1, d2 = dist[rows, two[:, 0]], dist[rows, two[:, 1]]
    v1, v2 = pts[two[:, 0]] - pts, pts[two[:, 1]] - pts
    cos = (v1 * v2).sum(1) / np.maximum(d1 * d2, 1e-6)
    # a character inside a line has its two nearest neighbours on opposite sides
    good = (d2 < 2.2 * size) & (cos < -0.9) & (d2 < 1.6 * d1)
    if good.sum() < 8:
        return _blob_angles(binary) or [0.0]
    vec = v1[good] - v2[good]
    ang = np.degrees(np.arctan2(vec[:, 1], vec[:, 0])) % 90.0
    hist, _ = np.histogram(ang, bins=90, range=(0, 90))
    hist = np.convolve(np.concatenate([hist[-2:], hist, hist[:2]]), np.ones(5), "valid")
    out: list[float] = []
    top = float(hist.max())
    for b in np.argsort(hist)[::-1][:12]:
        if hist[b] < 0.35 * top:  # a weak second direction is not worth a pass
            break
        a = float(b) + 0.5
        a = a - 90 if a > 45 else a
        if all(min(abs(a - o), 90 - abs(a - o)) > 6 for o in out):
            out.append(a)
        if len(out) == 2:
            break
    if int(good.sum()) < 40:  # few glyph triples: the line blobs may know better
        for extra in _blob_angles(binary):
            if all(min(abs(extra - o), 90 - abs(extra - o)) > 6 for o in out):
                out.append(extra)
    return out


def _runs(profile: NDArray[np.floating[Any]], frac: float) -> list[tuple[int, int]]:
    on = profile > frac * profile.max()
    edges = np.flatnonzero(np.diff(np.concatenate([[0], on.astype(np.int8), [0]])))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def _line_runs(prof: NDArray[np.floating[Any]], length: float) -> list[tuple[int, int]]:
    """The single lines of a blob's cross profile: its runs above 0.3 of the peak; a run
    too thick for the blob's length (touching lines whose gaps noise has filled) is cut
    again at a higher level, where the gaps between its lines show."""
    out = []
    for ra, rb in _runs(prof, 0.3):
        if 8 * (rb - ra) <= length:
            out.append((ra, rb))
            continue
        for frac in (0.45, 0.6):
            parts = [(ra + a, ra + b) for a, b in _runs(prof[ra:rb], frac) if b - a >= 3]
            if _like_mrz_lines(parts):
                out.extend(parts)
                break
        else:
            out.append((ra, rb))
    return out


def _like_mrz_lines(parts: list[tuple[int, int]]) -> bool:
    """2-3 runs of about the same thickness at a regular spacing."""
    if not 2 <= len(parts) <= 3:
        return False
    thick = [b - a for a, b in parts]
    if max(thick) > 1.6 * min(thick):
        return False
    starts = [a for a, _ in parts]
    steps = np.diff(starts)
    return bool(steps.max() <= 1.3 * steps.min() and steps.min() >= 1.2 * min(thick))


def _text_lines(closed: MatLike, text: MatLike) -> list[_Line]:
    """Long thin blobs of the closed text mask, split into single lines.

    At small scale neighbouring MRZ lines touch; the profile of the text pixels across
    the blob's own direction separates them again.
    """
    n, labels, stats, _cent = components(closed)
    out = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if max(w, h) < 40 or area < 120:
            continue
        sub = labels[y : y + h, x : x + w] == i
        ys, xs = np.nonzero(sub & (text[y : y + h, x : x + w] > 0))
        if len(xs) < 60:
            continue
        xs_f, ys_f = xs.astype(np.float32) + x, ys.astype(np.float32) + y
        mx, my = float(xs_f.mean()), float(ys_f.mean())
        dx, dy = (xs_f - mx).astype(np.float64), (ys_f - my).astype(np.float64)
        # the blob's principal axis: the closed form of the 2x2 covariance eigenproblem
        angle = 0.5 * float(np.arctan2(2.0 * float(dx @ dy), float(dx @ dx) - float(dy @ dy)))
        if abs(angle) > 0.35:
            continue
        d = (np.cos(angle), np.sin(angle))
        along = (xs_f - mx) * d[0] + (ys_f - my) * d[1]
        across = -(xs_f - mx) * d[1] + (ys_f - my) * d[0]
        lo = float(across.min())
        prof: NDArray[np.floating[Any]]  # float32 counts, then smoothed in float64
        prof = np.bincount((across - lo).astype(np.int32)).astype(np.float32)
        prof = np.convolve(prof, np.ones(2) / 2, "same")
        for ra, rb in _line_runs(prof, float(along.max() - along.min())):
            thick = float(rb - ra)
            sel = (across - lo >= ra) & (across - lo < rb)
            if thick < 2.5 or sel.sum() < 40:
                continue
            u0, u1 = float(along[sel].min()), float(along[sel].max())
            length = float(u1 - u0)
            if length < 40 or length < 8 * thick:
                continue
            uc, vc = (u0 + u1) / 2, lo + (ra + rb) / 2
            cx, cy = mx + uc * d[0] - vc * d[1], my + uc * d[1] + vc * d[0]
            out.append(_Line(float(cx), float(cy), length, thick, angle))
    return out


def _walk(
    lines: list[_Line], i: int, allowed: NDArray[np.bool_], across: NDArray[np.float64]
) -> list[int]:
    """The chain of up to three lines from line ``i`` through the later lines ``allowed``
    (indexed from ``i + 1``; ``across``: their offsets across line ``i``): each next line
    one to about three line heights beyond the last, at a regular spacing."""
    chain = [i]
    offsets = [0.0]
    for k in np.flatnonzero(allowed):
        cand, last = lines[i + 1 + k], lines[chain[-1]]
        gap = float(across[k]) - offsets[-1]
        if (
            gap < 1.05 * max(last.thickness, cand.thickness)
            or gap > 3.2 * min(last.thickness, cand.thickness) + 6
        ):
            continue
        if len(chain) >= 2 and abs(gap - (offsets[-1] - offsets[-2])) > 0.35 * offsets[-1]:
            continue
        chain.append(i + 1 + k)
        offsets.append(float(across[k]))
        if len(chain) == 3:
            break
    return chain


def _group_bands(
    lines: list[_Line], first_pairs: bool = True, same_lengths: bool = True
) -> list[tuple[list[_Line], float, bool]]:
    """Groups of 2-3 lines: equal length, aligned, parallel, regularly spaced; with
    ``first_pairs``, a chain of three also gives its first two lines as a group: a 2-line
    zone chained with a line of print after it (the real US visa upside down) is not
    found otherwise - the chain from its second line holds the zone's second line and
    the print.

    A line shorter than the first but flush with one of its ends may join its chain (the
    second zone line whose faint fillers were lost); with ``same_lengths``, where one did,
    the chain of the lines of equal length alone is a group too: a German passport's line
    of microprint between its two zone lines would otherwise take the second line's place.

    Each group says whether it lies inside a *paragraph*: a run of four or more such
    lines (a chain of three that the chain from its second line continues), which an MRZ
    of two or three lines is not - a page of text, whose many 3-line chains would
    otherwise outrank the zone."""
    lines = sorted(lines, key=lambda ln: ln.cy)
    if not lines:
        return []
    cx = np.array([ln.cx for ln in lines])
    cy = np.array([ln.cy for ln in lines])
    length = np.array([ln.length for ln in lines])
    angle = np.array([ln.angle for ln in lines])
    chains: list[list[int]] = []  # line indices of each line's chain
    extra: list[list[int]] = []  # ...and of the chains of equal lines alone, where they differ
    for i, first in enumerate(lines):
        # the pairwise tests that do not depend on the chain, for all later lines at once
        c, s = np.cos(first.angle), np.sin(first.angle)
        dx, dy = cx[i + 1 :] - first.cx, cy[i + 1 :] - first.cy
        along_all, across_all = dx * c + dy * s, -dx * s + dy * c
        cand_len = length[i + 1 :]
        longest = np.maximum(first.length, cand_len)
        same = (np.abs(along_all) < 0.12 * longest) & (
            np.abs(cand_len - first.length) < 0.2 * longest
        )
        # a line whose faint fillers were lost is shorter but flush with one end
        left = np.abs((along_all - cand_len / 2) + first.length / 2) < 0.06 * longest
        right = np.abs((along_all + cand_len / 2) - first.length / 2) < 0.06 * longest
        flush = (np.minimum(cand_len, first.length) > 0.35 * longest) & (left | right)
        ok = (np.abs(angle[i + 1 :] - first.angle) <= 0.06) & (same | flush)
        chain = _walk(lines, i, ok, across_all)
        chains.append(chain)
        if same_lengths and not all(same[k - i - 1] for k in chain[1:]):
            alone = _walk(lines, i, ok & same, across_all)  # without the shorter lines
            if len(alone) >= 2:
                extra.append(alone)
    in_paragraph = [False] * len(lines)
    for chain in chains:  # (a, b, c) continued by the chain from b, (b, c, d)
        if len(chain) == 3 and len(chains[chain[1]]) == 3 and chains[chain[1]][:2] == chain[1:]:
            for k in (*chain, chains[chain[1]][2]):
                in_paragraph[k] = True
    groups: list[tuple[list[_Line], float, bool]] = []
    for chain in chains + extra:
        parts = [chain] if len(chain) >= 2 else []
        if len(chain) == 3 and first_pairs:
            parts.append(chain[:2])
        for part in parts:
            members = [lines[k] for k in part]
            score = float(np.mean([c.length for c in members])) * len(members)
            groups.append((members, score, all(in_paragraph[k] for k in part)))
    return groups


def _band_quad(chain: list[_Line]) -> NDArray[np.float32]:
    """The band's corners (tl, tr, br, bl), in the frame of its first line."""
    first = chain[0]
    angle = float(np.mean([ln.angle for ln in chain]))
    c, s = np.cos(angle), np.sin(angle)
    t = float(np.median([ln.thickness for ln in chain]))
    spans = []
    for ln in chain:
        along = (ln.cx - first.cx) * c + (ln.cy - first.cy) * s
        spans.append((along - ln.length / 2, along + ln.length / 2))
    u0 = min(a for a, _ in spans) - 0.8 * t
    u1 = max(b for _, b in spans) + 0.8 * t
    last = -(chain[-1].cx - first.cx) * s + (chain[-1].cy - first.cy) * c
    v0 = -chain[0].thickness / 2 - 0.6 * t
    v1 = last + chain[-1].thickness / 2 + 0.6 * t
    corners = [(u0, v0), (u1, v0), (u1, v1), (u0, v1)]
    return np.array(
        [[first.cx + u * c - v * s, first.cy + u * s + v * c] for u, v in corners], np.float32
    )


def _warp_band(
    grey: NDArray[np.uint8], quad: NDArray[np.float32], chain_count: int, line_px: float
) -> NDArray[np.uint8]:
    width = float(np.linalg.norm(quad[1] - quad[0]))
    height = float(np.linalg.norm(quad[3] - quad[0]))
    scale = BAND_CHAR_HEIGHT / max(line_px, 1.0)
    out_w = int(np.clip(width * scale, 64, 2400))
    out_h = int(np.clip(height * scale, 16, 400))
    dst = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    band = cv2.warpPerspective(
        grey, matrix, (out_w, out_h), flags=interp, borderMode=cv2.BORDER_REPLICATE
    )
    return cast(NDArray[np.uint8], band)  # a warp keeps the frame's depth


def band_shading(band: Band) -> float:
    """How much darker the paper is at one end of the band than at the other (1 = even):
    a shadow across the zone (a hand, the lamp's edge) leaves one end too faint for the
    frame's text threshold, and the band is found cut short there."""
    img = band.image
    end = max(1, img.shape[1] // 8)
    light = [float(np.percentile(img[:, :end], 90)), float(np.percentile(img[:, -end:], 90))]
    return max(light) / max(min(light), 1.0)


def flatten_light(grey: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The frame with its lighting evened out: divided by the paper's brightness around
    each point (the brightest nearby, on a 64 px thumbnail), scaled back to the frame's
    median paper level. Text keeps its contrast against its own paper, shadow or not."""
    h, w = grey.shape[:2]
    f = 64 / max(h, w)
    tiny = cv2.resize(
        grey, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA
    )
    light = cv2.GaussianBlur(cv2.dilate(tiny, np.ones((5, 5), np.uint8)), (0, 0), 1.5)
    paper = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    gain = float(np.median(paper)) / np.maximum(paper, 8.0)
    return np.clip(grey.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def find_bands(
    grey: NDArray[np.uint8],
    max_bands: int = 4,
    work_size: int = WORK_SIZE,
    *,
    frame_threshold: bool = False,
    max_line_px: float | None = None,
    first_pairs: bool = True,
    distinct_lines: float | None = None,
    max_skews: int | None = None,
    paragraphs_last: bool = True,
    same_lengths: bool = True,
) -> list[Band]:
    """MRZ band candidates in a grey uint8 frame, best first.

    ``frame_threshold``: when the rotated copy's Otsu level is under 0.8 of the frame's own
    (its empty corners, all zeros, can drag Otsu down into the noise of a grainy frame and
    the whole card turns to "text"), the frame's level is used instead (the reader sets
    it; the training script keeps the default).

    ``max_line_px``: only bands whose lines are thinner than this in the frame (the
    reader's small-print pass, where larger print was already looked at): the others
    are dropped before they are warped or count towards ``max_bands``.

    ``first_pairs``: see ``_group_bands`` (the training script keeps the bands the
    shipped model's cells were cut from, without them).

    ``distinct_lines``: ``DISTINCT_LINES`` when None (the training script keeps the
    shipped model's plain 10 px with ``inf``).

    ``max_skews``: search at most this many of the skew candidates (strongest first).

    ``paragraphs_last``: candidates inside a run of four or more lines (``_group_bands``)
    come after all the others, however long (the training script keeps the plain order).

    ``same_lengths``: see ``_group_bands`` (the training script keeps the plain chains).
    """
    h, w = grey.shape[:2]
    scale = work_size / max(h, w)
    small = cv2.resize(
        grey,
        (max(1, round(w * scale)), max(1, round(h * scale))),
        interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
    )
    sq = cv2.getStructuringElement(cv2.MORPH_RECT, (9, 9))
    blackhat = cv2.morphologyEx(small, cv2.MORPH_BLACKHAT, sq)
    found: list[tuple[float, int, NDArray[np.float32], float, bool]] = []
    sh, sw = small.shape[:2]
    centre = (sw / 2.0, sh / 2.0)
    frame_otsu = None
    if frame_threshold:
        frame_otsu, _ = cv2.threshold(blackhat, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    for angle in _skew_angle(blackhat)[:max_skews]:
        rot = cv2.getRotationMatrix2D(centre, angle, 1.0)
        cos, sin = abs(rot[0, 0]), abs(rot[0, 1])
        nw, nh = int(sh * sin + sw * cos), int(sh * cos + sw * sin)
        rot[0, 2] += nw / 2 - centre[0]
        rot[1, 2] += nh / 2 - centre[1]
        bh = cv2.warpAffine(blackhat, rot, (nw, nh))
        otsu, _ = cv2.threshold(bh, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        if frame_otsu is not None and otsu < 0.8 * frame_otsu:
            otsu = frame_otsu  # the rotated copy's empty corners dragged Otsu into the noise
        text = cv2.threshold(bh, max(12.0, otsu * 0.8), 255, cv2.THRESH_BINARY)[1]
        inv = cv2.invertAffineTransform(rot)
        for transpose in (False, True):
            mask = text.T.copy() if transpose else text
            closed = cv2.morphologyEx(
                mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (15, 1))
            )
            closed = cv2.morphologyEx(
                closed, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (9, 1))
            )
            for chain, score, paragraph in _group_bands(
                _text_lines(closed, mask), first_pairs, same_lengths
            ):
                quad = _band_quad(chain)
                if transpose:  # swap x/y back, reorder so the warp is a rotation, not a mirror
                    quad = quad[:, ::-1][[1, 0, 3, 2]]
                pts = cv2.transform(quad[None], inv)[0] / scale
                line_px = float(np.median([c.thickness for c in chain])) / scale
                found.append((score, len(chain), pts, line_px, paragraph))
    found.sort(key=lambda f: (f[4] and paragraphs_last, -f[0]))
    unique: list[Band] = []
    for score, count, pts, line_px, paragraph in found:  # warp the few best distinct ones
        in_lines = float(np.linalg.norm(pts[1] - pts[0])) / max(line_px, 1e-6)
        if not MRZ_LINE_HEIGHTS[0] <= in_lines <= MRZ_LINE_HEIGHTS[1]:
            continue  # lines too short or too long for 30-44 characters: not worth a warp
        if max_line_px is not None and line_px >= max_line_px:
            continue
        c = pts.mean(0)
        near = min(
            DISTINCT_PX, line_px * (DISTINCT_LINES if distinct_lines is None else distinct_lines)
        )
        if all(np.linalg.norm(c - u.quad.mean(0)) > near for u in unique):
            unique.append(Band(_warp_band(grey, pts, count, line_px), count, score, pts, paragraph))
        if len(unique) == max_bands:
            break
    return unique

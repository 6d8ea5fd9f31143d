"""Read the MRZ of one frame: locate, rectify, recognise, decode - and refuse when unsure.

A wrong identity must be rarer than a refusal. A reading is returned when every check
digit passes (after the check-digit search of ``decode.py``); a reading whose check
digits fail is returned only when every character was read with high confidence and the
zone has the structure of a real MRZ (a few specimens carry wrong check digits as
printed, and must be reported as printed); anything else is refused with a reason code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from enum import unique
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from admission.codes import Code
from admission.frames import Frame
from hardware.mrz.decode import Decoded, decode, group_positions
from hardware.mrz.locate import BAND_CHAR_HEIGHT, Band, band_shading, find_bands, flatten_light
from hardware.mrz.ocr import GlyphClassifier, default_classifier
from hardware.mrz.segment import Segmented, segment_both


@unique
class ReadReason(Code):
    """Why a frame gave no reading (the UI turns it into text; STYLE.md rule 13)."""

    NO_MRZ = "NO_MRZ"  # nothing that looks like an MRZ in the frame
    MRZ_UNREADABLE = "MRZ_UNREADABLE"  # MRZ-like text found but not read with confidence


# The members under their module-level names, for the callers and tests that import them.
NO_MRZ = ReadReason.NO_MRZ
MRZ_UNREADABLE = ReadReason.MRZ_UNREADABLE

# a character no check digit covers (names, issuer, nationality, sex) below this is too
# doubtful to register
# (retuned with the country prior, the recut and the small-print pass on dev seeds
# 777-779, 3000 frames: 0.7 / two under 0.9 gave 2937 right and 4 wrong - a name letter I
# for E at 0.71, a document code IO for I< at 0.72 -, 0.75 / one under 0.9 gives 2936
# right and 1 wrong; the issuer and nationality no longer spend the doubt budget)
UNCHECKED_MIN_PROB = 0.75
UNCHECKED_LOW_PROB = 0.9  # ...and at most UNCHECKED_MAX_LOW of them under this
UNCHECKED_MAX_LOW = 1  # two doubts are a guess
GROUP_MAX_DOUBT = 6.0  # nats: a check digit is one chance in ten; it cannot vouch for more
GROUP_LOW_PROB = 0.5  # at most one character of a checked field may be this doubtful
# nats: a passing check digit vouches for the reading only when every other reading that
# passes it too is at least ~4.5 times less likely (0 read as O in two places weighted 7
# and 3 leaves the sum unchanged; measured: 2-3 right readings refused per 1000 frames,
# and a live-mode double 0/O misread refused until the frames settled it)
ALIAS_MIN_MARGIN = 1.5
PRINTED_MIN_PROB = 0.7  # every character, when the check digits fail as printed
WORK_SIZES = (640, 1280)  # coarse pass for large print, fine pass for small print
# the fine pass runs on small images too: it upscales them, and the locator's kernels,
# sized for the working image, then no longer close two MRZ lines of a small scan into
# one blob (the real Dutch specimen, 455x330 px, turned 18 degrees: unread at 640, read
# at 1280). The small-print pass would only upscale further below this side
SMALL_PRINT_MIN_SIDE = 600
# ...and a third pass at 1920 px for print under SMALL_PRINT_PX high in the frame (a
# pitch under ~8 px), which the locator's kernels miss at 1280: it runs when no band was
# read and the bands seen so far were not all larger print (a page of text); it keeps
# only the small bands. Dev seeds 777-778: +11 reads in 2000 frames
SMALL_PRINT_SIZE = 1920
SMALL_PRINT_PX = 12.0
# ...searching at most the two strongest text directions: a third is a weak one that the
# locator's blob fallback adds on a busy frame, and at 1920 px each direction costs ~25 ms
# (dev seeds 777-779 and the real set with its handled variants: no reading changed;
# negatives seed 777, 200 frames timed interleaved: 205 -> 202 ms mean, 382 -> 366 ms
# p95, the slowest frame 939 -> 783 ms)
SMALL_PRINT_SKEWS = 2
# a band whose paper is this many times brighter at one end than at the other lies under
# a shadow: for a still, the frame is searched again at 1280 px with its light evened out
# (``locate.flatten_light``; the real Czech passport shadowed to 30 %. Negatives seed
# 777: the pass runs on 10 of 200 frames, +7 ms a frame on average)
SHADED_RATIO = 1.8
# a line whose grid lies this many pitches off its siblings' at both ends is read again
# on its grid moved by one cell towards them (``_realigned``)
ALIGN_MIN_OFFSET = 0.5
ALIGN_MAX_OFFSET = 1.5  # farther, and the segmenter refused the grid already
FALLBACK_BANDS = 2  # uncountable bands cut on a profile grid when nothing else was read
# a band whose reading passes its check digits but is refused as doubtful is cut again a
# little shifted (dx pitches, dy line heights, cell scale) and read on the classifier's
# probabilities averaged over the five cuts: a glyph misread on one grid is often read
# on the others (dev seeds 777-779: +3 reads in 3000 frames, none wrong)
RECUTS: tuple[tuple[float, float, float], ...] = (
    (-0.1, 0.0, 1.0),
    (0.1, 0.0, 1.0),
    (0.0, -0.06, 1.0),
    (0.0, 0.06, 1.0),
)


@dataclass(frozen=True)
class MrzRead:
    """Outcome of reading one frame. ``lines`` is empty when refused (see ``reason``)."""

    lines: tuple[str, ...] = ()
    verified: bool = False  # every check digit passes
    failed_checks: tuple[str, ...] = ()
    confidence: float = 0.0  # lowest character probability
    reason: ReadReason | None = None
    quad: NDArray[np.float32] | None = field(default=None, repr=False, compare=False)
    char_height_px: float = 0.0  # MRZ character height in the frame
    sharpness: float = 0.0
    candidates: int = 0  # MRZ-like bands seen
    # the classifier's (lines, length, 37) probabilities of the best reading, refused or
    # not, in reading order: what live mode fuses across frames
    probs: NDArray[np.float32] | None = field(default=None, repr=False, compare=False)


def frame_to_array(frame: Frame) -> NDArray[np.uint8]:
    """A Frame (plain bytes) as a numpy view, without copying when possible."""
    buf = np.frombuffer(frame.data, np.uint8)
    rows = buf[: frame.stride * frame.height].reshape(frame.height, frame.stride)
    img = rows[:, : frame.width * frame.channels]
    return img.reshape(frame.height, frame.width, frame.channels)


def _valid_yymmdd(text: str) -> bool:
    if not text.isdigit():
        return False
    month, day = int(text[2:4]), int(text[4:6])
    return 1 <= month <= 12 and 1 <= day <= 31


def _printed_structure(dec: Decoded) -> bool:
    """A real MRZ, even with wrong check digits: valid dates and sex where they belong, and
    a digit where the composite check digit is (a TD3 whose right end is lost under glare
    counts as a TD2, but has a filler there). A date's check digit may be missing: a real
    specimen (the Austrian ID of the real set) is printed without one."""
    fields = dec.layout.fields
    lines = dec.raw_lines
    for name in ("birth_date", "expiry_date"):
        if name in fields:
            line, start, end = fields[name]
            if not _valid_yymmdd(lines[line][start:end]):
                return False
    line, col, _ = fields["sex"]
    if lines[line][col] not in "MFX<":
        return False
    if "composite_check" in fields:
        line, col, _ = fields["composite_check"]
        if not lines[line][col].isdigit():
            return False
    return lines[0][0].isalpha()


def _name_field(dec: Decoded) -> tuple[int, int, str]:
    """(line, first column, text) of the name field (not the French ID card's two)."""
    line, start, _ = dec.layout.fields["names"]
    return line, start, dec.lines[line][start:]


def _names_end(text: str) -> int:
    """Where SURNAME<<GIVEN<NAMES<<<... ends: the second '<<', or -1 when the name fills
    the field (truncated)."""
    first = text.find("<<")
    return -1 if first < 0 else text.find("<<", first + 2)


def _names_well_formed(dec: Decoded) -> bool:
    """ICAO names: once the names end, only fillers may follow (a stray letter among the
    fillers is a misread, not a name)."""
    if dec.layout.name == "FRA":
        return True
    _, _, text = _name_field(dec)
    end = _names_end(text)
    return end < 0 or set(text[end:]) <= {"<"}


def _settled_fillers(dec: Decoded) -> set[tuple[int, int]]:
    """The name field's cells that its structure settles: after the names end (a second
    '<<', both read with confidence) only fillers may follow, so a filler there that the
    model doubts - a finger or glare over the end of the line - is no doubt about the
    identity. A letter there is not settled: it makes the name ill-formed. (Dev seeds
    777-779, 3000 frames: 2935 -> 2937 right, wrong readings unchanged at 2.)"""
    if dec.layout.name == "FRA":
        return set()
    line, start, text = _name_field(dec)
    end = _names_end(text)
    if end < 0:
        return set()
    if float(dec.char_prob[line, start + end : start + end + 2].min()) < UNCHECKED_LOW_PROB:
        return set()
    return {(line, start + c) for c in range(end + 2, len(text)) if text[c] == "<"}


def _country_tails(dec: Decoded) -> set[tuple[int, int]]:
    """The second and third cells of each country field: the field's three characters
    carry the one probability of its code (``decode``), so it is one doubt, not three -
    counted three times, a code at 0.88 spent the whole doubt budget (the real German
    specimen's unlisted BDR under sensor noise)."""
    return {(line, c) for line, start, end in dec.layout.countries for c in range(start + 1, end)}


def _group_doubt(dec: Decoded) -> float:
    """The largest doubt (sum of -log p of the chosen characters, check digit included)
    of any check group. A check digit passes by chance one time in ten: it settles one
    or two doubtful characters, not a field read as noise (glare, a finger)."""
    worst = 0.0
    for group in dec.layout.groups:
        probs = [dec.char_prob[p] for p in [*group_positions(group), group.check]]
        worst = max(worst, float(-np.log(np.maximum(probs, 1e-9)).sum()))
    return worst


def _groups_vouched(dec: Decoded) -> bool:
    """A check digit vouches for one doubtful character of its field, not two: with a
    second character under GROUP_LOW_PROB the field is refused even when the digit passes
    (it does so by chance one time in ten). One doubtful character may be settled however
    unlikely the model found it: that is what the digit is for."""
    for group in dec.layout.groups:
        probs = np.array([dec.char_prob[p] for p in [*group_positions(group), group.check]])
        if (probs < GROUP_LOW_PROB).sum() > 1:
            return False
    return True


def _acceptable(dec: Decoded) -> bool:
    if not dec.failed:
        skip = _settled_fillers(dec) | _country_tails(dec)
        unchecked = np.array([dec.char_prob[p] for p in dec.layout.unchecked if p not in skip])
        return (
            float(unchecked.min()) >= UNCHECKED_MIN_PROB
            and int((unchecked < UNCHECKED_LOW_PROB).sum()) <= UNCHECKED_MAX_LOW
            and _names_well_formed(dec)
            and _group_doubt(dec) <= GROUP_MAX_DOUBT
            and _groups_vouched(dec)
            and dec.alias_margin >= ALIAS_MIN_MARGIN
        )
    # check digits fail: report the characters as printed, only for a crisp, well-formed zone
    return dec.raw_min_prob >= PRINTED_MIN_PROB and _printed_structure(dec)


Cut = tuple[Segmented | None, Segmented | None]


def _segment(image: NDArray[np.uint8], lines: int) -> Cut:
    """The band's cells as found and turned 180 degrees (one grid serves both). Lines
    that cannot be counted blob by blob get a column-profile grid (``profile_grid``)."""
    try:  # trim_ends: a line that does not count to an MRZ length may shed stray end blobs
        return segment_both(image, lines, trim_ends=True, profile_fallback=True)
    except (ValueError, ZeroDivisionError, np.linalg.LinAlgError, cv2.error):
        return None, None  # a degenerate band (all blobs stacked, singular fit): skip it


def _realigned(seg: Segmented) -> list[tuple[int, Segmented]]:
    """The cut with one line's grid moved by a whole cell towards its siblings', for each
    line that lies about a pitch off them at both ends: a stray blob (a card edge, a
    mark) counted as its first character, or its first character lost to glare or the
    band's edge. Only when neither reading of the band was acceptable. (Dev seeds
    777-779, 3000 frames: 2937 -> 2938 right, wrong unchanged at 2; 7 of the 62 misses
    had such a line, and most of them other doubts too. Negatives: +3.6 ms a frame on
    average, p95 unchanged.)"""
    return [
        (line, seg.moved_line(line, -1 if offset > 0 else 1))
        for line, offset in enumerate(seg.line_offsets())
        if ALIGN_MIN_OFFSET <= abs(offset) <= ALIGN_MAX_OFFSET
    ]


def _rank(dec: Decoded) -> tuple[int, float]:
    return (-len(dec.failed), dec.log_prob)


def _best_rank(dec: Decoded) -> tuple[bool, int, float]:
    """Across bands, a reading that may be returned (as printed, its check digits failing
    on the document itself) comes before one that would be refused, however few checks
    that one fails: a finer pass's band of noise that fails fewer checks must not hide a
    crisp specimen read in the coarse pass (the real US residence card, in perspective)."""
    return (_acceptable(dec), *_rank(dec))


class MrzReader:
    """Stateless single-frame reader (thread-confined: one per worker thread)."""

    def __init__(
        self, classifier: GlyphClassifier | None = None, max_bands: int = 4, *, still: bool = True
    ) -> None:
        """``still``: the frame is the only chance (``read-document``, the benchmark), so a
        frame not read otherwise is searched at SMALL_PRINT_SIZE too and a doubtful
        reading is cut again (RECUTS). Live mode reads with ``still=False``: it fuses
        frames and asks for the document closer instead, and keeps the time both cost on
        every frame the camera sends (~60 ms on an empty desk for the small-print pass)."""
        self._classifier = classifier or default_classifier()
        self._max_bands = max_bands
        self._still = still

    def read_frame(self, frame: Frame) -> MrzRead:
        return self.read_array(frame_to_array(frame))

    def read_array(self, image: NDArray[np.uint8]) -> MrzRead:
        """Read a BGR or grey uint8 image."""
        grey = (
            image
            if image.ndim == 2
            else cast(NDArray[np.uint8], cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        )
        if image.ndim == 3 and image.shape[2] == 1:
            grey = image[:, :, 0]
        if grey.size == 0 or float(grey.std()) < 2.0:
            return MrzRead(reason=ReadReason.NO_MRZ)
        best: tuple[Decoded, Band, float] | None = None
        seen = 0
        for band, cut, seen in self._cuts(grey):
            got = self._decode_cut(cut)
            if got is None:
                continue
            dec, sharp, accepted = got
            if best is None or _best_rank(dec) > _best_rank(best[0]):
                best = (dec, band, sharp)
            if accepted:
                return self._result(dec, band, sharp, seen)
        if best is None:
            return MrzRead(
                reason=ReadReason.NO_MRZ if seen == 0 else ReadReason.MRZ_UNREADABLE,
                candidates=seen,
            )
        dec, band, sharp = best
        if _acceptable(dec):
            return self._result(dec, band, sharp, seen)
        return MrzRead(
            reason=ReadReason.MRZ_UNREADABLE,
            candidates=seen,
            quad=band.quad,
            char_height_px=self._char_height(band),
            sharpness=sharp,
            confidence=float(dec.char_prob.min()),
            probs=dec.probs,
        )

    def _cuts(self, grey: NDArray[np.uint8]) -> Iterator[tuple[Band, Cut, int]]:
        """(band, its cells, bands seen so far) in reading order: the bands whose lines
        could be counted blob by blob, coarse, fine and small-print pass (``_bands``);
        then the best few cut on a column-profile grid (blur merged their characters), a
        2-line one also as a TD1 whose third line the locator did not chain."""
        seen = 0
        segmented = [0]  # bands cut into cells: the passes ask as they go
        later: list[tuple[Band, Cut]] = []
        for band, evened in self._bands(grey, lambda: segmented[0]):
            seen += 1
            cut = _segment(band.image, band.lines)
            if cut[0] is None or cut[0].profile_grid:
                if not evened:  # found uncountable already, in the light as it is
                    later.append((band, cut))
                continue
            segmented[0] += 1
            yield band, cut, seen
        later.sort(key=lambda item: -item[0].score)
        for band, cut in later[:FALLBACK_BANDS]:
            yield band, cut, seen
            if band.lines == 2:
                three = replace(band, lines=3)
                yield three, _segment(three.image, 3), seen

    def _bands(
        self, grey: NDArray[np.uint8], segmented: Callable[[], int]
    ) -> Iterator[tuple[Band, bool]]:
        """The candidate bands of the coarse, fine, evened-light and small-print passes,
        each with whether it was found in the light evened out, lazily: a pass runs only
        while nothing was read (the caller stops asking) and fewer than two bands of the
        previous ones could be cut into cells (a page of text: bands are warped from the
        full-resolution frame, so a finer pass would mostly find the same ones again); the
        evened-light pass only for a still with a band under a shadow (``SHADED_RATIO``)."""
        heights: list[float] = []
        found: list[Band] = []
        page = False  # a paragraph of larger print seen: a page of text
        for size in WORK_SIZES:
            if segmented() >= 2:
                return
            heights = []
            for band in find_bands(grey, self._max_bands, work_size=size, frame_threshold=True):
                heights.append(self._char_height(band))
                page = page or (band.paragraph and heights[-1] >= SMALL_PRINT_PX)
                found.append(band)
                yield band, False
        if self._still and segmented() < 2 and any(band_shading(b) >= SHADED_RATIO for b in found):
            for band in find_bands(
                flatten_light(grey), self._max_bands, work_size=WORK_SIZES[-1], frame_threshold=True
            ):
                yield band, True
        if (
            not self._still
            or max(grey.shape) < SMALL_PRINT_MIN_SIDE
            or segmented() >= 2
            or (heights and min(heights) >= SMALL_PRINT_PX)
            or page
        ):
            return
        for band in find_bands(
            grey,
            self._max_bands,
            work_size=SMALL_PRINT_SIZE,
            frame_threshold=True,
            max_line_px=SMALL_PRINT_PX,
            max_skews=SMALL_PRINT_SKEWS,
        ):
            yield band, False

    def _decode_cut(self, cut: Cut) -> tuple[Decoded, float, bool] | None:
        """The better reading of a band's cells as found and turned 180 degrees, its
        sharpness, and whether it passes every check digit and is acceptable. The turned
        reading is skipped only when the first one is: a zone read upside down can pass
        its check digits too (the check-digit search finds cheap fixes among glyphs that
        are all doubtful), and is then far less likely. A line a pitch off its siblings
        is tried moved into line (``_realigned``) when neither reading is acceptable."""
        best: tuple[Decoded, float, bool] | None = None
        best_seg: Segmented | None = None
        for seg, seg_probs in self._readings(cut):
            dec = decode(seg_probs)
            if dec is None:
                continue
            accepted = not dec.failed and _acceptable(dec)
            if best is None or _rank(dec) > _rank(best[0]):
                best, best_seg = (dec, seg.sharpness, accepted), seg
            if accepted:
                return best
        if best is None or best_seg is None or best[0].failed or not self._still:
            return best  # recut only a reading that passes its checks but was doubtful
        probs = best[0].probs
        assert probs is not None
        total = probs.astype(np.float64)
        for dx, dy, scale in RECUTS:
            total += self._classifier.probabilities(best_seg.recut(dx, dy, scale))
        dec = decode((total / (len(RECUTS) + 1)).astype(np.float32))
        if dec is not None and not dec.failed and _acceptable(dec):
            return dec, best_seg.sharpness, True
        return best

    def _readings(self, cut: Cut) -> Iterator[tuple[Segmented, NDArray[np.float32]]]:
        """The band's cells as found and turned with their probabilities; then each of them
        with one line realigned (``_realigned``), only that line classified again."""
        read: list[tuple[Segmented, NDArray[np.float32]]] = []
        for seg in cut:  # lazily: the turned cells are classified only if still needed
            if seg is not None:
                read.append((seg, self._classifier.probabilities(seg.cells)))
                yield read[-1]
        for seg, probs in read:
            for line, moved in _realigned(seg):
                again = probs.copy()
                again[line] = self._classifier.probabilities(moved.cells[line])
                yield moved, again

    @staticmethod
    def _char_height(band: Band) -> float:
        height = float(np.linalg.norm(band.quad[3] - band.quad[0]))
        rows = band.image.shape[0]
        return BAND_CHAR_HEIGHT * height / max(rows, 1)

    def _result(self, dec: Decoded, band: Band, sharp: float, seen: int) -> MrzRead:
        return replace(
            judged(dec),
            quad=band.quad,
            char_height_px=self._char_height(band),
            sharpness=sharp,
            candidates=seen,
        )


def judged(dec: Decoded) -> MrzRead:
    """A decoded zone as a reading, or refused (MRZ_UNREADABLE) when the acceptance rules
    say it is unsure; without the frame's geometry."""
    if not _acceptable(dec):
        return MrzRead(
            reason=ReadReason.MRZ_UNREADABLE, confidence=float(dec.char_prob.min()), probs=dec.probs
        )
    lines = dec.lines if not dec.failed else dec.raw_lines  # as printed
    return MrzRead(
        tuple(lines), not dec.failed, tuple(dec.failed), float(dec.char_prob.min()), probs=dec.probs
    )

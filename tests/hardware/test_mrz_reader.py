"""The real OpenCV pipeline on real and synthetic documents: what it reads, the
locator's options, the passes over small print, doubtful readings and orientations."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray
from PIL import Image

from hardware.camera import array_to_frame
from hardware.generators import synthetic
from hardware.mrz import locate as locate_module
from hardware.mrz import reader as reader_module
from hardware.mrz.images import (
    decode_image,
    load_image,
)
from hardware.mrz.layout import ALPHABET
from hardware.mrz.live import LiveMrzReader
from hardware.mrz.locate import Band, flatten_light
from hardware.mrz.reader import MRZ_UNREADABLE, NO_MRZ, SMALL_PRINT_SIZE, MrzReader
from hardware.mrz.segment import CELL_H, CELL_W, Segmented
from tests.hardware.mrz_support import (
    REAL,
    TODAY,
    needs_real,
    read_document_command,
)
from tests.mrz_handling import fit, rot, shade, tilt, turn


@pytest.fixture(scope="module")
def reader() -> MrzReader:
    return MrzReader()


def _truth() -> dict[str, tuple[list[str], str]]:
    rows = (REAL / "truth.tsv").read_text(encoding="utf-8").splitlines()[1:]
    out = {}
    for row in rows:
        name, kind, mrz, notes = ([*row.split("\t"), "", "", "", ""])[:4]
        out[name] = ([] if kind == "NONE" else mrz.split("|"), notes)
    return out


@needs_real
@pytest.mark.parametrize(
    "name",
    [
        "fastmrz-td3.jpg",
        "fastmrz-td1.jpg",
        "yushulx-2.png",
        "passporteye-100_pass-bdr.jpg",
        "passporteye-33_id-usa.jpg",
        "imagejs-id_fail.png",
        "passporteye-98_pass-nld.jpg",
        "passporteye-100_id-rou.jpg",
    ],
)
def test_real_documents_read_exactly(name: str) -> None:
    lines, notes = _truth()[name]
    code, text = read_document_command([str(REAL / name)], as_json=True, today=TODAY)
    out = json.loads(text)
    assert out["mrz_lines"] == lines
    assert out["reason"] is None and out["ms"] > 0
    if "expected-fail" in notes:  # printed with wrong (or without) check digits: as printed
        assert out["valid"] is False and out["failed_checks"]
    elif name in PRINTS_AN_UNLISTED_CODE:  # read exactly; the parse refuses the code
        assert out["valid"] is False and out["failed_checks"] == []
        assert set(out["errors"]) <= {"UNKNOWN_ISSUER", "UNKNOWN_NATIONALITY"} and code == 1
        assert out["errors"]
    else:
        assert out["valid"] is True and code == 0


# samples printing a state code outside ICAO 9303 part 3: the old German "BDR" (as issuer)
# and a Romanian sample's "132" (the reader reads them as printed; the parse refuses them)
PRINTS_AN_UNLISTED_CODE = {"passporteye-100_pass-bdr.jpg", "passporteye-100_id-rou.jpg"}


@needs_real
def test_a_zone_chained_with_the_print_beside_it_is_still_read(reader: MrzReader) -> None:
    # the US visa upside down: the zone's two lines and the line of small print beside
    # them ("UPON ENDORSEMENT...") chain into one 3-line band, first the zone; its first
    # two lines are a band of their own
    lines, _ = _truth()["passporteye-100_visa-usa.jpg"]
    image = load_image(REAL / "passporteye-100_visa-usa.jpg")
    assert reader.read_array(rot(image, 2)).lines == tuple(lines)


# real documents that a locator option (on by default) makes readable, as they are handled
_LOCATOR_CASES = [
    # the UK passport scan (an open booklet) in perspective, upside down: its page of
    # print gives dozens of 3-line chains longer than the zone's two lines; they lie in
    # runs of four or more lines, which a zone does not, and are cut after it
    ("fastmrz-passport_uk.jpg", lambda i: tilt(rot(i, 2)), "paragraphs_last"),
    # the German service passport shrunk to 500 px: between its zone lines runs a line of
    # microprint, which the locator chains with the first line in the second one's place
    ("regula-dienstpass-white.jpg", lambda i: fit(i, 500), "same_lengths"),
]


@needs_real
@pytest.mark.parametrize(("name", "handle", "option"), _LOCATOR_CASES)
def test_the_locator_finds_zones_that_page_text_and_microprint_hid(
    name: str,
    handle: Callable[[NDArray[Any]], NDArray[Any]],
    option: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines, _ = _truth()[name]
    image = handle(load_image(REAL / name))
    assert MrzReader().read_array(image).lines == tuple(lines)
    real = locate_module.find_bands

    def without_option(grey: NDArray[np.uint8], *args: Any, **kw: Any) -> list[Band]:
        return real(grey, *args, **{**kw, option: False})

    monkeypatch.setattr(reader_module, "find_bands", without_option)
    assert MrzReader().read_array(image).lines == ()


@needs_real
def test_a_zone_a_line_below_a_chain_of_three_is_a_band_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the US visa shrunk to 500 px: its zone (2 lines) and the chain of the line of print
    # above it with the zone (3 lines) lie one line height - under 10 px - apart; both
    # are candidates, not one a duplicate of the other
    lines, _ = _truth()["passporteye-100_visa-usa.jpg"]
    image = load_image(REAL / "passporteye-100_visa-usa.jpg")
    small = np.asarray(
        cv2.resize(
            image,
            None,
            fx=500 / max(image.shape[:2]),
            fy=500 / max(image.shape[:2]),
            interpolation=cv2.INTER_AREA,
        ),
        np.uint8,
    )
    assert MrzReader().read_array(small).lines == tuple(lines)
    monkeypatch.setattr(locate_module, "DISTINCT_LINES", float("inf"))
    assert MrzReader().read_array(small).lines == ()


@needs_real
def test_a_scan_is_searched_upscaled_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # the German service passport (1069 px wide once turned) turned 18 degrees: at the
    # 640 px working size its zone is found only chained with the print beside it, as
    # one 3-line band that cannot be cut; at 1280 px its two lines are a band of their own
    lines, _ = _truth()["regula-dienstpass-white.jpg"]
    image = turn(load_image(REAL / "regula-dienstpass-white.jpg"), -18)
    assert MrzReader().read_array(image).lines == tuple(lines)
    monkeypatch.setattr(reader_module, "WORK_SIZES", (640,))
    assert MrzReader().read_array(image).lines == ()


@needs_real
def test_a_zone_half_in_shadow_is_read_in_the_light_evened_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the Czech passport under a shadow to 30 %: the frame's text threshold loses the
    # zone's dark end, so the band is found cut short and cannot be counted; its paper
    # darkens along it, so the frame is searched again with the light evened out
    lines, _ = _truth()["passporteye-100_pass-cze.jpg"]
    image = shade(load_image(REAL / "passporteye-100_pass-cze.jpg"), 0.3)
    assert MrzReader().read_array(image).lines == tuple(lines)
    monkeypatch.setattr(reader_module, "SHADED_RATIO", float("inf"))
    assert MrzReader().read_array(image).lines == ()


def test_evening_out_the_light_keeps_the_text_against_its_own_paper() -> None:
    page = np.full((360, 640), 220, np.uint8)
    for x in range(40, 600, 40):
        cv2.putText(page, "M", (x, 200), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 40, 2)
    shaded = shade(page, 0.25)
    flat = flatten_light(shaded)
    left, right = flat[:, 20:200], flat[:, 440:620]
    # paper and ink end up at the same levels on both sides, the ink still dark
    assert abs(int(np.percentile(left, 90)) - int(np.percentile(right, 90))) <= 12
    assert int(right.min()) < 0.5 * int(np.percentile(right, 90))
    assert flatten_light(page).std() == pytest.approx(page.std(), rel=0.1)  # even light stays


@needs_real
def test_a_specimen_read_as_printed_is_not_hidden_by_a_band_of_noise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the US residence card in perspective: read as printed (its check digits are wrong
    # on the card) in the coarse pass; the fine pass then finds a band of noise that
    # fails fewer checks - it must not win and turn the reading into a refusal
    lines, _ = _truth()["passporteye-33_id-usa.jpg"]
    image = load_image(REAL / "passporteye-33_id-usa.jpg")
    h, w = image.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    moved = np.array([[w * 0.08, h * 0.05], [w * 0.95, 0], [w, h], [0, h * 0.93]], np.float32)
    warped = np.asarray(
        cv2.warpPerspective(
            image, cv2.getPerspectiveTransform(corners, moved), (w, h), borderValue=(128, 128, 128)
        ),
        np.uint8,
    )
    read = MrzReader().read_array(warped)
    assert read.lines == tuple(lines) and not read.verified and read.failed_checks
    monkeypatch.setattr(reader_module, "_best_rank", reader_module._rank)
    assert MrzReader().read_array(warped).lines == ()


@needs_real
def test_a_doubtful_country_code_is_one_doubt_not_three(monkeypatch: pytest.MonkeyPatch) -> None:
    # the German specimen under sensor noise: its unlisted issuer BDR is read at 0.88 -
    # one doubt about one field, which its three characters used to count three times
    lines, _ = _truth()["passporteye-100_pass-bdr.jpg"]
    noisy = load_image(REAL / "passporteye-100_pass-bdr.jpg").astype(np.float32)
    noisy += np.random.default_rng(1).normal(0, 12, noisy.shape).astype(np.float32)
    image = np.clip(noisy, 0, 255).astype(np.uint8)
    assert MrzReader().read_array(image).lines == tuple(lines)
    monkeypatch.setattr(reader_module, "_country_tails", lambda dec: set())
    assert MrzReader().read_array(image).lines == ()


@needs_real
def test_real_negative_gives_a_reason() -> None:
    code, text = read_document_command([str(REAL / "fastmrz-nomrz.jpg")], as_json=True, today=TODAY)
    out = json.loads(text)
    assert code == 1 and out["mrz_lines"] == [] and out["reason"] in (NO_MRZ, MRZ_UNREADABLE)
    assert out["valid"] is False and "surname" in out


@needs_real
def test_several_images_give_a_list_and_exif_is_honoured(tmp_path: Path) -> None:
    # rotate the pixels and say so in EXIF: decoding must turn the image back upright
    src = Image.open(REAL / "fastmrz-td3.jpg")
    rotated = src.transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 CW to view"
    path = tmp_path / "exif.jpg"
    rotated.save(path, exif=exif, quality=95)
    upright = decode_image(path.read_bytes())
    assert upright.shape[:2] == (src.height, src.width)
    code, text = read_document_command(
        [str(REAL / "fastmrz-td3.jpg"), str(path)], as_json=True, today=TODAY
    )
    out = json.loads(text)
    assert isinstance(out, list) and len(out) == 2
    assert out[0]["mrz_lines"] == out[1]["mrz_lines"] == _truth()["fastmrz-td3.jpg"][0]
    assert code == 0


def test_synthetic_frames_read_correctly(reader: MrzReader) -> None:
    good = wrong = 0
    for i in range(8):
        s = synthetic.sample(424242, i)
        got = list(reader.read_array(s.image).lines)
        good += got == s.lines
        wrong += bool(got) and got != s.lines
    assert good >= 7 and wrong == 0


def _work_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The locator's working sizes, in the order the reader asks for them."""
    sizes: list[int] = []
    real = locate_module.find_bands  # what the reader calls

    def spy(grey: NDArray[np.uint8], max_bands: int, work_size: int, **kw: bool) -> list[Band]:
        sizes.append(work_size)
        return real(grey, max_bands, work_size=work_size, **kw)

    monkeypatch.setattr(reader_module, "find_bands", spy)
    return sizes


def test_print_too_small_for_the_fine_pass_is_found_at_1920(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a passport page at about 8.7 px per character: at 640 and 1280 px the locator sees
    # no band at all
    s = synthetic.sample(777, 653)
    sizes = _work_sizes(monkeypatch)
    assert MrzReader().read_array(s.image).lines == tuple(s.lines)
    assert sizes == [640, 1280, SMALL_PRINT_SIZE]
    monkeypatch.setattr(reader_module, "SMALL_PRINT_PX", 0.0)  # no band is small enough
    assert MrzReader().read_array(s.image).lines == ()


def test_a_page_of_large_text_skips_the_small_print_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    page = synthetic.sample(777, 1, negative=True)  # a page of 15-16 px text, no MRZ
    sizes = _work_sizes(monkeypatch)
    assert MrzReader().read_array(page.image).lines == ()
    assert sizes == [640, 1280]


def test_live_mode_leaves_small_print_and_doubts_to_fusion(monkeypatch: pytest.MonkeyPatch) -> None:
    # every frame of a camera stream would pay for the small-print pass and the recuts;
    # live mode fuses frames instead (and asks for the document closer)
    sizes = _work_sizes(monkeypatch)
    recuts: list[float] = []
    real_recut = Segmented.recut

    def recut(
        self: Segmented, dx: float = 0.0, dy: float = 0.0, scale: float = 1.0
    ) -> NDArray[np.float32]:
        recuts.append(dx)
        return real_recut(self, dx, dy, scale)

    monkeypatch.setattr(Segmented, "recut", recut)
    small, doubtful = synthetic.sample(777, 653), synthetic.sample(777, 535)
    for s in (small, doubtful):
        LiveMrzReader().feed(array_to_frame(s.image, 0.0))
    assert sizes and SMALL_PRINT_SIZE not in sizes and not recuts
    MrzReader().read_array(doubtful.image)  # a still: the doubtful reading is cut again
    assert len(recuts) == len(reader_module.RECUTS)


def test_a_doubtful_reading_is_cut_again_and_the_cuts_decide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # an ID card at 7 px per character: an expiry digit read at p=0.45 leaves the reading
    # refused; averaged over the band cut again a little shifted, it is sure enough
    s = synthetic.sample(777, 535)
    assert MrzReader().read_array(s.image).lines == tuple(s.lines)
    monkeypatch.setattr(reader_module, "RECUTS", ())
    refused = MrzReader().read_array(s.image)
    assert refused.lines == () and refused.reason == MRZ_UNREADABLE


def test_a_line_counted_from_a_stray_blob_is_moved_back_into_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # an ID card upside down at 9 px per character: a speck left of the name line is
    # counted as its first character, so the line's grid lies a pitch left of its
    # siblings' and reads <DIAZ<<GIULI...; moved one cell into line it reads DIAZ<<GIULIA
    s = synthetic.sample(779, 371)
    assert MrzReader().read_array(s.image).lines == tuple(s.lines)
    monkeypatch.setattr(reader_module, "ALIGN_MIN_OFFSET", 99.0)
    refused = MrzReader().read_array(s.image)
    assert refused.lines == () and refused.reason == MRZ_UNREADABLE


def test_a_passing_but_doubtful_reading_does_not_hide_the_band_turned_over() -> None:
    # a band's cells as found read as a zone that passes every check digit, but on
    # doubtful name letters (what a zone read upside down can give: the check-digit search
    # finds cheap fixes among glyphs that are all in doubt); the same band turned 180
    # degrees reads clean - that reading must be looked at, and win
    def probs(lines: list[str], doubtful: int) -> NDArray[np.float32]:
        p = np.full((len(lines), len(lines[0]), len(ALPHABET)), 0.03 / 36, np.float32)
        for r, line in enumerate(lines):
            for c, ch in enumerate(line):
                p[r, c, ALPHABET.index(ch)] = 0.97
        p[0, 5 : 5 + doubtful] = 0.5 / 37 + np.where(  # the first name letters: 50/50
            np.arange(len(ALPHABET)) == ALPHABET.index("A"), 0.5, 0.0
        )
        return p

    rng = np.random.default_rng(11)
    upside = synthetic.build_lines(synthetic.random_identity(rng, "TD3"))
    upright = synthetic.build_lines(synthetic.random_identity(rng, "TD3"))

    class Scripted:
        def probabilities(self, cells: NDArray[np.float32]) -> NDArray[np.float32]:
            return probs(upside, 3) if cells.flat[0] == 0 else probs(upright, 0)

    reader = MrzReader(classifier=Scripted())  # type: ignore[arg-type]
    blank = np.zeros((2, 44, CELL_H, CELL_W), np.float32)
    found = Segmented(blank, 44, 100.0, 1.0)
    turned = Segmented(blank + 1.0, 44, 100.0, 1.0)
    got = reader._decode_cut((found, turned))
    assert got is not None and got[0].lines == upright and not got[0].failed


def test_a_passport_zone_cut_short_is_not_reported_as_printed() -> None:
    # glare washes out the right end of a passport's zone: what is left counts 36 per
    # line, the length of a TD2, read crisply; the composite fails and the characters are
    # clean, but where a TD2 has its composite digit the passport has a filler - no real
    # zone is printed like that, so it is refused instead of reported as printed
    from hardware.mrz import reader as reader_module

    rng = np.random.default_rng(5)
    full = synthetic.build_lines(synthetic.random_identity(rng, "TD3"))
    while full[1][35] != "<":  # a passport without a personal number
        full = synthetic.build_lines(synthetic.random_identity(rng, "TD3"))
    short = [line[:36] for line in full]

    def crisp(lines: list[str]) -> NDArray[np.float32]:
        p = np.full((len(lines), len(lines[0]), len(ALPHABET)), 0.01 / 36, np.float32)
        for r, line in enumerate(lines):
            for c, ch in enumerate(line):
                p[r, c, ALPHABET.index(ch)] = 0.99
        return p

    class Scripted:
        def __init__(self, lines: list[str]) -> None:
            self.lines = lines

        def probabilities(self, cells: NDArray[np.float32]) -> NDArray[np.float32]:
            return crisp(self.lines)

    def judged(lines: list[str]) -> tuple[list[str], list[str], bool]:
        reader = MrzReader(classifier=Scripted(lines))  # type: ignore[arg-type]
        cells = np.zeros((len(lines), len(lines[0]), CELL_H, CELL_W), np.float32)
        got = reader._decode_cut((Segmented(cells, len(lines[0]), 100.0, 1.0), None))
        assert got is not None
        dec = got[0]
        return list(dec.raw_lines), list(dec.failed), reader_module._acceptable(dec)

    lines, failed, accepted = judged(short)
    assert lines == short and "composite" in failed and not accepted
    # the same crisp zone with a wrong composite digit as printed is reported as printed
    wrong = [short[0], short[1][:35] + str((int(full[1][43]) + 1) % 10)]
    assert judged(wrong)[1:] == (["composite"], True)
    assert judged(full)[1:] == ([], True)


def test_every_orientation(reader: MrzReader) -> None:
    s = synthetic.sample(99, 1)
    for turning in (None, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE):
        image = s.image if turning is None else np.asarray(cv2.rotate(s.image, turning), np.uint8)
        assert list(reader.read_array(image).lines) == s.lines


def test_blank_and_text_pages_are_refused_with_a_reason(reader: MrzReader) -> None:
    blank = np.full((720, 1280, 3), 200, np.uint8)
    assert reader.read_array(blank).reason == NO_MRZ
    rng = np.random.default_rng(3)
    for mrz_like in (False, True):
        page = synthetic.text_page(rng, mrz_like=mrz_like)
        read = reader.read_array(page)
        assert read.lines == () and read.reason in (NO_MRZ, MRZ_UNREADABLE)

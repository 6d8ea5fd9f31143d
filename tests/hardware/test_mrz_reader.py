"""The real OpenCV pipeline on real and synthetic images, bad input, live mode, CLI."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray
from PIL import Image

from admission.devices import DeviceStatus
from hardware.camera import array_to_frame
from hardware.camera.fake import FakeCamera, ImageFolderCamera, VideoFileCamera
from hardware.camera.opencv import OpenCvCamera
from hardware.generators import synthetic
from hardware.mrz import locate as locate_module
from hardware.mrz import reader as reader_module
from hardware.mrz.images import (
    IMAGE_READ_FAILED,
    IMAGE_TOO_LARGE,
    IMAGE_TOO_SMALL,
    NOT_AN_IMAGE,
    TRUNCATED_IMAGE,
    ImageError,
    decode_image,
    load_image,
)
from hardware.mrz.layout import ALPHABET
from hardware.mrz.live import MIN_CHAR_HEIGHT_PX, LiveMrzReader, Quality, quality_of
from hardware.mrz.locate import Band, flatten_light
from hardware.mrz.reader import MRZ_UNREADABLE, NO_MRZ, SMALL_PRINT_SIZE, MrzRead, MrzReader
from hardware.mrz.segment import CELL_H, CELL_W, Segmented
from hardware.mrz.watch import NO_READING, read_one
from tests.mrz_handling import fit, rot, shade, tilt, turn

REAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "testdata" / "mrz-real"
TODAY = date(2026, 11, 29)


def _tools(camera: Any = None) -> Any:
    """The command line's tools on a clock at noon of TODAY; ``camera`` replaces the
    camera the composition root would open."""
    import dataclasses
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from admission.clock import FixedClock
    from main import build_tools

    at = datetime(TODAY.year, TODAY.month, TODAY.day, 12, tzinfo=ZoneInfo("Europe/Madrid"))
    tools = build_tools(Path("/nonexistent-data-dir"), clock=FixedClock(at))
    if camera is not None:
        tools = dataclasses.replace(
            tools, devices=dataclasses.replace(tools.devices, camera=lambda _source: camera)
        )
    return tools


def read_document_command(paths: list[str], *, as_json: bool, today: date) -> tuple[int, str]:
    """``read-document --json PATHS`` run in this process: (exit code, printed JSON)."""
    import argparse

    from ui.cli.read_document import read_document

    assert as_json and today == TODAY
    code, payload = read_document(argparse.Namespace(images=paths, json=True), _tools())
    return int(code), json.dumps(payload)


def watch_document_command(
    source: str, *, max_frames: int, today: date, camera: Any = None
) -> tuple[int, str]:
    """``watch-document SOURCE --max-frames N`` run in this process."""
    import argparse

    from ui.cli.read_document import watch_document

    assert today == TODAY
    args = argparse.Namespace(source=source, max_frames=max_frames)
    code, payload = watch_document(args, _tools(camera))
    return int(code), json.dumps(payload)


def camera_for(source: str) -> Any:
    from hardware.devices import camera

    return camera(source)


needs_real = pytest.mark.skipif(not (REAL / "truth.tsv").exists(), reason="mrz-real absent")


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


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(ImageError) as err:
        decode_image(b"this is not an image at all")
    assert err.value.code == NOT_AN_IMAGE
    _ok, jpg = cv2.imencode(".jpg", synthetic.sample(1, 0).image)
    with pytest.raises(ImageError) as err:
        decode_image(jpg.tobytes()[: len(jpg) // 2])
    assert err.value.code == TRUNCATED_IMAGE
    # a PNG header claiming 100000 x 100000 pixels: refused before any allocation
    buf = io.BytesIO()
    Image.new("L", (1, 1)).save(buf, format="PNG")
    data = bytearray(buf.getvalue())
    data[16:24] = (100000).to_bytes(4, "big") * 2
    with pytest.raises(ImageError) as err:
        decode_image(bytes(data))
    assert err.value.code in (IMAGE_TOO_LARGE, NOT_AN_IMAGE)
    paths = [tmp_path / "a.txt", tmp_path / "missing.jpg"]
    paths[0].write_text("hello")
    code, text = read_document_command([str(p) for p in paths], as_json=True, today=TODAY)
    out = json.loads(text)
    assert code == 1 and [o["reason"] for o in out] == [NOT_AN_IMAGE, "FILE_NOT_FOUND"]
    assert read_document_command([], as_json=True, today=TODAY)[0] == 2


def test_fifty_megapixel_photo_is_bounded(tmp_path: Path) -> None:
    big = np.full((5800, 8700, 3), 180, np.uint8)  # 50.5 MP
    cv2.putText(big, "NOT AN MRZ", (500, 3000), cv2.FONT_HERSHEY_SIMPLEX, 20, (0, 0, 0), 40)
    path = tmp_path / "big.jpg"
    _ok, jpg = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 60])
    path.write_bytes(jpg.tobytes())
    del big
    start = time.perf_counter()
    _code, text = read_document_command([str(path)], as_json=True, today=TODAY)
    assert time.perf_counter() - start < 15
    out = json.loads(text)
    assert out["mrz_lines"] == [] and out["reason"] in (NO_MRZ, MRZ_UNREADABLE)


def test_live_reader_agrees_on_consecutive_frames_and_hints() -> None:
    live = LiveMrzReader(agree=2)
    blank = array_to_frame(np.full((720, 1280, 3), 128, np.uint8), 0.0)
    assert live.feed(blank).quality is Quality.NO_DOCUMENT
    s = synthetic.sample(99, 1)
    first = live.feed(array_to_frame(s.image, 0.1))
    assert first.quality is Quality.READING and first.read is None
    second = live.feed(array_to_frame(s.image, 0.2))
    assert second.quality is Quality.OK and second.read is not None
    assert list(second.read.lines) == s.lines
    # an interruption resets the agreement
    live.feed(array_to_frame(s.image, 0.3))
    live.feed(blank)
    assert live.feed(array_to_frame(s.image, 0.4)).quality is Quality.READING


def test_live_fusion_reads_small_print_that_no_single_frame_reads(reader: MrzReader) -> None:
    # an ID card held far from the camera (8 px per character), two frames: each alone
    # is refused; their fused probabilities pass every check digit, and read right
    frames = synthetic.sequence(20261201, 258, 2, pitch_px=8.0)
    assert [reader.read_array(f.image).reason for f in frames] == [MRZ_UNREADABLE] * 2
    live = LiveMrzReader(reader)
    assert live.feed(array_to_frame(frames[0].image, 0.0)).quality is not Quality.OK
    got = live.feed(array_to_frame(frames[1].image, 0.1))
    assert got.quality is Quality.OK and got.read is not None and got.read.verified
    assert list(got.read.lines) == frames[0].lines
    # the rule before fusion (two frames that each read the same) answers nothing here
    plain = LiveMrzReader(reader, fuse=False)
    assert [
        plain.feed(array_to_frame(f.image, k)).quality is Quality.OK for k, f in enumerate(frames)
    ] == [False, False]


def test_live_fusion_never_mixes_two_documents(reader: MrzReader) -> None:
    first, second = synthetic.sample(99, 4), synthetic.sample(99, 5)  # two passports
    assert first.identity and second.identity
    assert first.identity.doc_format == second.identity.doc_format == "TD3"
    live = LiveMrzReader(reader)
    assert live.feed(array_to_frame(first.image, 0.0)).quality is Quality.READING
    # the next passport: its first frame starts a new history instead of being fused
    assert live.feed(array_to_frame(second.image, 0.1)).quality is Quality.READING
    got = live.feed(array_to_frame(second.image, 0.2))
    assert got.quality is Quality.OK and got.read is not None
    assert list(got.read.lines) == second.lines


def test_live_fusion_does_not_take_a_misread_that_another_frame_contradicts() -> None:
    # two frames of one zone, each sure of a different character in the same place: the
    # fused character is doubtful, so nothing is answered (one frame's misread is not
    # taken), and the zone is read once a third frame agrees with one of them
    s = synthetic.sample(99, 1)

    class Scripted(MrzReader):
        def __init__(self) -> None:
            super().__init__()
            self.script: list[NDArray[np.float32]] = []

        def read_array(self, image: NDArray[Any]) -> MrzRead:
            read = super().read_array(image)
            assert read.probs is not None
            probs = read.probs.copy()
            if self.script:
                probs = self.script.pop(0)
            return MrzRead(
                read.lines,
                read.verified,
                confidence=read.confidence,
                quad=read.quad,
                char_height_px=read.char_height_px,
                candidates=read.candidates,
                probs=probs,
            )

    scripted = Scripted()
    clean = scripted.read_array(s.image).probs
    assert clean is not None
    letter = 5 + s.lines[0][5:].index(next(c for c in s.lines[0][5:] if c.isalpha()))
    wrong = clean.copy()
    k = int(wrong[0, letter].argmax())
    wrong[0, letter] = 0.0
    wrong[0, letter, (k + 1) % 26 + 10] = 1.0  # another letter, with full confidence
    scripted.script = [clean.copy(), wrong, clean.copy()]
    live = LiveMrzReader(scripted)
    frame = array_to_frame(s.image, 0.0)
    assert live.feed(frame).quality is Quality.READING
    assert live.feed(frame).quality is not Quality.OK  # clean and wrong disagree
    got = live.feed(frame)
    assert got.quality is Quality.OK and got.read is not None
    assert list(got.read.lines) == s.lines


def test_watch_document_reads_a_folder_of_frames_in_live_mode(tmp_path: Path) -> None:
    # an empty desk, then an ID card held far away for two frames (each refused alone)
    frames = synthetic.sequence(20261201, 258, 2, pitch_px=8.0)
    cv2.imwrite(str(tmp_path / "00.png"), np.full((720, 1280, 3), 128, np.uint8))
    for k, f in enumerate(frames, 1):
        cv2.imwrite(str(tmp_path / f"{k:02d}.png"), f.image)
    code, text = watch_document_command(str(tmp_path), max_frames=50, today=TODAY)
    out = json.loads(text)
    assert code == 0 and out["reason"] is None and out["valid"] is True
    assert out["mrz_lines"] == frames[0].lines and out["frames"] == 3
    assert out["hints"][0] == [1, "NO_DOCUMENT"] and out["hints"][-1] == [3, "OK"]
    assert out["document_number"] and out["birth_date"] and out["ms"] > 0


def test_watch_document_says_why_nothing_was_read() -> None:
    blank = array_to_frame(np.full((720, 1280, 3), 128, np.uint8), 0.0)
    camera = FakeCamera([blank, blank])
    code, text = watch_document_command("fake", max_frames=10, today=TODAY, camera=camera)
    out = json.loads(text)
    assert code == 1 and out["reason"] == NO_READING and out["mrz_lines"] == []
    assert out["frames"] == 2 and out["hints"] == [[1, "NO_DOCUMENT"]] and camera.closed
    # the frame budget ends the watch too
    code, text = watch_document_command(
        "fake", max_frames=3, today=TODAY, camera=FakeCamera([blank], loop=True)
    )
    assert code == 1 and json.loads(text)["frames"] == 3
    # a camera that is not there is named, and never read
    absent = FakeCamera([blank], status=DeviceStatus.NOT_FOUND)
    code, text = watch_document_command("1", max_frames=3, today=TODAY, camera=absent)
    out = json.loads(text)
    assert code == 1 and out["reason"] == "CAMERA_NOT_FOUND" and out["frames"] == 0
    assert absent.reads == 0 and absent.closed


def test_watch_document_sources(tmp_path: Path) -> None:
    video = tmp_path / "desk.avi"
    video.write_bytes(b"")
    assert isinstance(camera_for("0"), OpenCvCamera)
    assert isinstance(camera_for(str(tmp_path)), ImageFolderCamera)
    assert isinstance(camera_for(str(video)), VideoFileCamera)


def test_live_hints_for_a_far_or_blurred_document() -> None:
    live = LiveMrzReader()
    s = synthetic.sample(99, 1)
    small = cv2.resize(s.image, (320, 180), interpolation=cv2.INTER_AREA)
    far = np.full((720, 1280, 3), 90, np.uint8)
    far[270:450, 480:800] = small
    assert live.feed(array_to_frame(far, 0.0)).quality in (Quality.TOO_FAR, Quality.NO_DOCUMENT)
    blurred = cv2.GaussianBlur(s.image, (0, 0), 4)
    assert live.feed(array_to_frame(blurred, 0.1)).quality in (
        Quality.BLURRED,
        Quality.NO_DOCUMENT,
        Quality.TOO_FAR,
    )


def test_an_unread_small_mrz_asks_for_the_document_closer() -> None:
    # measured: MRZ characters under ~11 px high read at 80-92 %, above at 98-99 %
    grey = np.full((720, 1280), 120, np.uint8)
    quad = np.array([[100, 100], [500, 100], [500, 160], [100, 160]], np.float32)

    def unread(height: float) -> MrzRead:
        return MrzRead(reason=MRZ_UNREADABLE, quad=quad, char_height_px=height, candidates=1)

    assert quality_of(unread(MIN_CHAR_HEIGHT_PX - 1.5), grey) is Quality.TOO_FAR
    assert quality_of(unread(MIN_CHAR_HEIGHT_PX + 3.0), grey) is Quality.BLURRED
    grey[100:160, 100:500] = 255  # the same MRZ under glare: glare is what to fix first
    assert quality_of(unread(MIN_CHAR_HEIGHT_PX - 1.5), grey) is Quality.GLARE


# --- untrusted image files: slivers, giants, devices and one bad image in a batch -----------


def flat_jpeg(width: int, height: int, orientation: int | None = None) -> bytes:
    """A baseline greyscale JPEG of one flat grey, written directly: every 8x8 block is
    coded as "DC difference 0, end of block" with one-code Huffman tables (ITU-T T.81
    F.1.2), 2 bits a block, so a 144-megapixel file is 0.56 MB and costs nothing to make.
    ``orientation`` adds an EXIF APP1 segment with tag 0x0112 (CIPA DC-008)."""
    import struct

    def segment(marker: int, body: bytes) -> bytes:
        return struct.pack(">HH", marker, len(body) + 2) + body

    out = [b"\xff\xd8"]
    if orientation is not None:
        ifd = b"\x00\x01" + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + bytes(4)
        out.append(segment(0xFFE1, b"Exif\0\0MM\0*\0\0\0\x08" + ifd))
    out.append(segment(0xFFDB, b"\x00" + b"\x01" * 64))  # quantisation table 0
    out.append(segment(0xFFC0, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00"))
    one_code = b"\x01" + bytes(15)  # one code of length 1 ...
    out.append(segment(0xFFC4, b"\x00" + one_code + b"\x00"))  # ... DC: category 0
    out.append(segment(0xFFC4, b"\x10" + one_code + b"\x00"))  # ... AC: end of block
    out.append(segment(0xFFDA, b"\x01\x01\x00\x00\x3f\x00"))
    bits = 2 * (-(-width // 8)) * (-(-height // 8))
    data = bytearray(bits // 8)
    if bits % 8:
        data.append((1 << (8 - bits % 8)) - 1)  # pad with 1-bits
    return b"".join([*out, bytes(data), b"\xff\xd9"])


def flat_png(width: int, height: int, colour_type: int = 6) -> bytes:
    """A black PNG (RGBA by default) compressed row by row: small file, large image."""
    import struct
    import zlib

    channels = {0: 1, 2: 3, 6: 4}[colour_type]

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    z = zlib.compressobj(9)
    row = bytes(1 + width * channels)
    idat = b"".join([*(z.compress(row) for _ in range(height)), z.flush()])
    ihdr = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"".join(
        [b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", ihdr), chunk(b"IDAT", idat), chunk(b"IEND", b"")]
    )


@pytest.mark.parametrize(("width", "height"), [(1, 6000), (6000, 1), (31, 400), (1, 1)])
def test_a_sliver_is_too_small_not_a_crash(width: int, height: int) -> None:
    _ok, png = cv2.imencode(".png", np.full((height, width, 3), 200, np.uint8))
    with pytest.raises(ImageError) as err:
        decode_image(png.tobytes())
    assert err.value.code == IMAGE_TOO_SMALL
    _ok, png = cv2.imencode(".png", np.full((32, 400, 3), 200, np.uint8))
    assert decode_image(png.tobytes()).shape == (32, 400, 3)


def test_one_bad_image_never_loses_the_batch(tmp_path: Path) -> None:
    sliver = tmp_path / "sliver.png"
    cv2.imwrite(str(sliver), np.full((1, 6000, 3), 200, np.uint8))
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((400, 600, 3), 200, np.uint8))
    code, text = read_document_command(
        [str(sliver), str(blank), str(tmp_path)], as_json=True, today=TODAY
    )
    out = json.loads(text)
    assert code == 1 and [o["reason"] for o in out] == [IMAGE_TOO_SMALL, NO_MRZ, NOT_AN_IMAGE]

    class FailingOnce:
        """A reader that fails (as a bug or MemoryError would) on its first image."""

        calls = 0

        def read_array(self, image: NDArray[np.uint8]) -> MrzRead:
            FailingOnce.calls += 1
            if FailingOnce.calls == 1:
                raise MemoryError
            return MrzRead(reason=NO_MRZ)

    reader: Any = FailingOnce()
    first, second = (read_one(reader, str(blank), TODAY) for _ in range(2))
    assert (first["reason"], second["reason"]) == (IMAGE_READ_FAILED, NO_MRZ)
    assert first["mrz_lines"] == [] and first["valid"] is False


def test_a_device_or_a_pipe_is_not_an_image(tmp_path: Path) -> None:
    with pytest.raises(ImageError) as err:
        load_image("/dev/zero")
    assert err.value.code == NOT_AN_IMAGE
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "frames.fifo"
        os.mkfifo(fifo)
        with pytest.raises(ImageError) as err:
            load_image(fifo)  # opened non-blocking: refused, never waits for a writer
        assert err.value.code == NOT_AN_IMAGE


def test_exif_orientation_of_a_large_jpeg_is_read_from_its_header(tmp_path: Path) -> None:
    path = tmp_path / "turned.jpg"
    path.write_bytes(flat_jpeg(10000, 8000, orientation=6))  # 80 MP, decoded at 1/4
    assert load_image(path).shape == (2500, 2000, 3)  # 2000 x 2500, then turned upright


_PEAK = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from hardware.mrz.images import ImageError, load_image

def hwm():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) // 1024

before = hwm()
start = time.perf_counter()
try:
    answer = "x".join(str(n) for n in load_image(sys.argv[2]).shape)
except ImageError as err:
    answer = str(err.code)
print(answer, before, hwm(), round(time.perf_counter() - start, 3))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
@pytest.mark.parametrize(
    ("name", "make", "answer", "growth_mib"),
    [
        ("144mp.jpg", lambda: flat_jpeg(12000, 12000, orientation=6), "IMAGE_TOO_LARGE", 30),
        ("80mp.jpg", lambda: flat_jpeg(10000, 8000), "2000x2500x3", 80),
        ("49mp-rgba.png", lambda: flat_png(7000, 7000), "IMAGE_TOO_LARGE", 30),
        ("19mp-rgba.png", lambda: flat_png(4400, 4400), "2600x2600x3", 250),
    ],
)
def test_a_huge_image_is_refused_or_read_in_bounded_memory(
    tmp_path: Path, name: str, make: Callable[[], bytes], answer: str, growth_mib: int
) -> None:
    """Measured in a fresh process (VmHWM): before the header was trusted, the 49 MP PNG
    went through Pillow's EXIF lookup, which decodes the whole image (2.3 GB peak)."""
    path = tmp_path / name
    path.write_bytes(make())
    root = str(Path(__file__).resolve().parents[2])
    run = subprocess.run(
        [sys.executable, "-c", _PEAK, root, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    got, before, after, seconds = run.stdout.split()
    assert got == answer
    assert int(after) - int(before) < growth_mib and int(after) < 300
    assert float(seconds) < 5


def test_a_progressive_jpeg_too_big_to_buffer_is_refused_before_decoding() -> None:
    data = bytearray(flat_jpeg(8000, 6000))
    sof = data.index(b"\xff\xc0")
    data[sof + 1] = 0xC2  # progressive: every coefficient is kept (48 MP x 2 bytes)
    with pytest.raises(ImageError) as err:
        decode_image(bytes(data))
    assert err.value.code == IMAGE_TOO_LARGE

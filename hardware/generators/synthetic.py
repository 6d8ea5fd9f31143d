"""Seeded synthetic identity documents in OCR-B, degraded as a camera would see them.

For training the glyph classifier and for tests and the benchmark - never the only
evaluation (the real images of ``../shared/testdata/mrz-real`` are). Every sample is a
pure function of ``(seed, index)``, so a failing case can be regenerated exactly.

Degradations: perspective, rotation (four orientations plus skew), blur, noise, glare,
JPEG, low light, partial occlusion of the card, busy backgrounds.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any, TypedDict, cast

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

from admission.generators.mrz_build import build_td1, build_td2, build_td3
from admission.mrz.layout import LAYOUTS, MrzFormat

FONT_PATH = Path(__file__).resolve().parents[2] / "resources" / "fonts" / "OCRB.otf"
_PITCH_MM = 2.54
_SIZES_MM = {"TD1": (85.6, 54.0), "TD2": (105.0, 74.0), "TD3": (125.0, 88.0)}
# (lines, characters per line) of each format the generator renders
GEOMETRY = {
    fmt: (LAYOUTS[MrzFormat(fmt)].line_count, LAYOUTS[MrzFormat(fmt)].line_length)
    for fmt in ("TD1", "TD2", "TD3")
}
_SURNAMES = (
    "GARCIA",
    "FERNANDEZ",
    "LOPEZ",
    "MARTIN",
    "SANCHEZ",
    "PEREZ",
    "GOMEZ",
    "RUIZ",
    "HERNANDEZ",
    "JIMENEZ",
    "DIAZ",
    "MORENO",
    "ALVAREZ",
    "MUNOZ",
    "ROMERO",
    "NAVARRO",
    "SMITH",
    "JOHNSON",
    "MUELLER",
    "SCHMIDT",
    "ROSSI",
    "BIANCHI",
    "DUBOIS",
    "LEROY",
    "KOWALSKI",
    "NOVAK",
    "OBRIEN",
    "VAN<DER<BERG",
    "DE<LA<CRUZ",
    "IVANOVA",
    "POPESCU",
    "SILVA",
    "SANTOS",
    "OLIVEIRA",
    "NGUYEN",
    "WANG",
    "KIM",
    "OKAFOR",
    "XU",
    "QUINTERO",
)
_GIVEN = (
    "MARIA",
    "JOSE",
    "ANTONIO",
    "CARMEN",
    "JUAN",
    "ANA",
    "LUIS",
    "LAURA",
    "JAVIER",
    "ELENA",
    "PABLO",
    "LUCIA",
    "JOHN",
    "EMMA",
    "OLIVER",
    "SOPHIE",
    "LUKAS",
    "GIULIA",
    "PIERRE",
    "ZOE",
    "YVES",
    "KAZIMIERZ",
    "QUENTIN",
    "WOJCIECH",
    "XAVIER",
    "BEATRIZ",
)
_COUNTRIES = (
    "ESP",
    "FRA",
    "D<<",
    "ITA",
    "PRT",
    "GBR",
    "USA",
    "NLD",
    "POL",
    "ROU",
    "UTO",
    "CHN",
    "MAR",
    "COL",
    "VEN",
    "UKR",
    "BEL",
    "CHE",
    "SWE",
    "AUT",
)


# the frames without an MRZ that ``sample(negative=True)`` cycles through (index order)
NEGATIVE_KINDS = ("backgrounds", "text pages", "MRZ-like text pages", "cards without MRZ")


# OCR-B is monospaced: every glyph advances 723 units of its 1000-unit em (the font's
# ``hmtx`` and ``head`` tables). Text is laid out here, not by Pillow: Pillow's layout
# engine is raqm (fractional advances) where the system has libfribidi and its basic
# engine (advances hinted to whole pixels) where it does not, so the same string would
# land on different pixels on different machines - and so would the benchmark and the
# classifier's training data made from these frames.
_ADVANCE_UNITS, _UNITS_PER_EM = 723, 1000


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    # One glyph at a time (see :func:`_draw_text`) renders the same with either engine;
    # the basic one is asked for so that nothing depends on the system's libraries.
    return ImageFont.truetype(str(FONT_PATH), size, layout_engine=ImageFont.Layout.BASIC)


def _advance(size: int) -> float:
    """OCR-B's unhinted advance at ``size`` px, rounded as raqm gets it from FreeType:
    the size's 16.16 scale (``FT_DivFix``), the advance in 16.16 pixels
    (``FT_Get_Advance``, ``FT_MulFix``), then rounded to 26.6 pixels (HarfBuzz)."""
    scale = (size * 64 * 65536 + _UNITS_PER_EM // 2) // _UNITS_PER_EM
    fixed = (_ADVANCE_UNITS * 1024 * scale + 0x8000) >> 16
    return ((fixed + 512) >> 10) / 64


def _draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    font: ImageFont.FreeTypeFont,
    fill: tuple[int, ...],
) -> None:
    """Draw ``text`` glyph by glyph at unhinted pen positions: the same pixels on every
    machine, and the pixels raqm gives the whole string."""
    step = _advance(int(font.size))
    for i, ch in enumerate(text):
        if not ch.isspace():
            draw.text((xy[0] + i * step, xy[1]), ch, font=font, fill=fill)


@dataclass(frozen=True)
class Identity:
    doc_format: str  # TD1, TD2, TD3
    document_code: str
    issuer: str
    document_number: str
    surname: str
    given_names: str
    nationality: str
    birth_date: date
    sex: str
    expiry_date: date
    optional: str = ""


@dataclass
class Sample:
    image: NDArray[np.uint8]  # BGR
    lines: list[str] = field(default_factory=list)  # empty for negatives
    identity: Identity | None = None
    mrz_quad: NDArray[np.float32] | None = None  # the MRZ's corners in the frame (tl, tr, br, bl)
    mrz_covered: float = 0.0  # share of the MRZ under the simulated finger/object
    mrz_glare: float = 0.0  # strongest glare over the MRZ, grey levels added


@dataclass(frozen=True)
class Damage:
    """What ``degrade`` drew over the frame, for telling what a reader could not see."""

    occluder: tuple[tuple[int, int], tuple[int, int], float] | None = None  # cv2.ellipse
    glare: tuple[float, float, float, float] | None = None  # centre x, y, radius, gain


def random_identity(rng: np.random.Generator, doc_format: str | None = None) -> Identity:
    fmt = doc_format or str(rng.choice(["TD1", "TD2", "TD3"], p=[0.4, 0.2, 0.4]))
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    alnum = "0123456789" + letters

    def pick(seq: tuple[str, ...]) -> str:
        return seq[int(rng.integers(len(seq)))]

    num_len = int(rng.integers(6, 10))
    number = "".join(
        alnum[int(rng.integers(len(alnum)))] if rng.random() < 0.3 else str(int(rng.integers(10)))
        for _ in range(num_len)
    )
    birth = date(1935, 1, 1) + timedelta(days=int(rng.integers(0, 365 * 70)))
    expiry = date(2020, 1, 1) + timedelta(days=int(rng.integers(0, 365 * 15)))
    given = " ".join(pick(_GIVEN) for _ in range(int(rng.integers(1, 3))))
    code = pick(("P<", "P<", "P<", "PA", "PO")) if fmt == "TD3" else pick(("ID", "I<", "IR", "AC"))
    optional = ""
    if rng.random() < 0.5:
        size = int(rng.integers(3, 12))
        optional = "".join(alnum[int(rng.integers(len(alnum)))] for _ in range(size))
    return Identity(
        fmt,
        code,
        pick(_COUNTRIES),
        number,
        pick(_SURNAMES),
        given,
        pick(_COUNTRIES),
        birth,
        str(rng.choice(["M", "F", "<"], p=[0.48, 0.48, 0.04])),
        expiry,
        optional,
    )


class _MrzFields(TypedDict):
    """The keyword arguments every ``build_td*`` takes."""

    document_code: str
    issuer: str
    document_number: str
    surname: str
    given_names: str
    nationality: str
    birth_date: date
    sex: str
    expiry_date: date


def build_lines(identity: Identity) -> list[str]:
    """Valid MRZ lines for an identity, built by the domain's ``admission.generators.mrz_build``."""
    fields: _MrzFields = {
        "document_code": identity.document_code.replace("<", ""),
        "issuer": identity.issuer,
        "document_number": identity.document_number,
        "surname": identity.surname.replace("<", " "),
        "given_names": identity.given_names,
        "nationality": identity.nationality,
        "birth_date": identity.birth_date,
        "sex": identity.sex,
        "expiry_date": identity.expiry_date,
    }
    if identity.doc_format == "TD1":
        return build_td1(optional_data_1=identity.optional, **fields)
    if identity.doc_format == "TD2":  # 7 characters of optional data fit after the dates
        return build_td2(optional_data=identity.optional[:7], **fields)
    return build_td3(personal_number=identity.optional, **fields)


def render_document(
    lines: list[str] | None, doc_format: str, rng: np.random.Generator, px_per_mm: float = 8.0
) -> tuple[NDArray[np.uint8], NDArray[np.float32] | None]:
    """A flat card/page (BGR) and the quad of its MRZ (4x2, px) or None without an MRZ."""
    w_mm, h_mm = _SIZES_MM[doc_format]
    w, h = round(w_mm * px_per_mm), round(h_mm * px_per_mm)
    base = rng.integers(175, 250, size=3)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = base
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(int(rng.integers(1, 4))):  # guilloche-like security print
        fx, fy, ph = rng.uniform(0.01, 0.08), rng.uniform(0.01, 0.08), rng.uniform(0, 6.3)
        wave = (np.sin(xx * fx + np.sin(yy * fy) * 3 + ph) > 0.97).astype(np.float32)
        img -= (wave[..., None] * rng.integers(8, 30, size=3)).astype(np.uint8)
    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    ph_w = int(w * 0.28)
    x0: float  # the photo's left edge here, the MRZ's (sub-pixel) below
    x0, y0 = int(w * 0.05), int(h * 0.12)
    draw.rectangle(
        [x0, y0, x0 + ph_w, int(y0 + ph_w * 1.25)],
        fill=tuple(int(v) for v in rng.integers(60, 200, size=3)),
    )
    viz = _font(max(8, round(px_per_mm * 2.6)))
    y: float  # a whole pixel row here, an MRZ line's (sub-pixel) top below
    for i in range(int(rng.integers(3, 7))):  # visual inspection zone: labels and data
        y = int(h * 0.12 + i * px_per_mm * 4.5)
        if lines is not None and y > h - px_per_mm * 16:
            break
        word = "".join(chr(65 + int(rng.integers(26))) for _ in range(int(rng.integers(3, 14))))
        _draw_text(draw, (int(w * 0.38), y), word, viz, (20, 20, 40))
    quad = None
    if lines is not None:
        count, length = len(lines), len(lines[0])
        pitch = _PITCH_MM * px_per_mm * rng.uniform(0.96, 1.04)
        size = max(6, round(pitch / 0.723))
        font = _font(size)
        spacing = pitch * rng.uniform(1.55, 1.8)
        x0 = (w - length * pitch) / 2 + rng.uniform(-1, 1) * px_per_mm
        bottom = h - px_per_mm * rng.uniform(3.5, 6.0)
        top = bottom - (count - 1) * spacing - size
        ink = tuple(int(v) for v in rng.integers(0, 60, size=3))
        for r, line in enumerate(lines):
            y = top + r * spacing
            for i, ch in enumerate(line):
                draw.text((x0 + i * pitch, y), ch, font=font, fill=ink)
        quad = np.array(
            [
                [x0, top],
                [x0 + length * pitch, top],
                [x0 + length * pitch, bottom + size * 0.3],
                [x0, bottom + size * 0.3],
            ],
            np.float32,
        )
    return cast(NDArray[np.uint8], cv2.cvtColor(np.asarray(pil), cv2.COLOR_RGB2BGR)), quad


def busy_background(rng: np.random.Generator, width: int, height: int) -> NDArray[np.uint8]:
    bg = np.empty((height, width, 3), np.uint8)
    bg[:] = rng.integers(20, 230, size=3)
    for _ in range(int(rng.integers(3, 25))):
        color = tuple(int(v) for v in rng.integers(0, 256, size=3))
        p1 = (int(rng.integers(-100, width)), int(rng.integers(-100, height)))
        p2 = (p1[0] + int(rng.integers(20, 600)), p1[1] + int(rng.integers(20, 400)))
        if rng.random() < 0.5:
            cv2.rectangle(bg, p1, p2, color, -1)
        else:
            cv2.line(bg, p1, p2, color, int(rng.integers(1, 12)))
    noise: NDArray[np.floating[Any]]  # float64 draws, resized in float32
    noise = rng.normal(0, rng.uniform(2, 18), size=(height // 8 + 1, width // 8 + 1, 1))
    noise = cast(
        NDArray[np.float32], cv2.resize(noise.astype(np.float32), (width, height))[..., None]
    )
    return np.clip(bg + noise, 0, 255).astype(np.uint8)


def text_page(
    rng: np.random.Generator, width: int = 1280, height: int = 720, mrz_like: bool = False
) -> NDArray[np.uint8]:
    """A frame full of text that is not an MRZ (hard negative). With ``mrz_like``, lines of
    OCR-B capitals, digits and fillers of MRZ length - but with no valid check digits."""
    img = np.full((height, width, 3), int(rng.integers(180, 255)), np.uint8)
    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    size = int(rng.integers(14, 30))
    font = _font(size)
    alphabet = (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
        if mrz_like
        else "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789.,"
    )
    y = int(rng.integers(5, 40))
    length = int(rng.choice([30, 36, 44])) if mrz_like else 0
    while y < height - size:
        n = length or int(rng.integers(20, 90))
        text = "".join(alphabet[int(rng.integers(len(alphabet)))] for _ in range(n))
        _draw_text(draw, (int(rng.integers(5, 60)), y), text, font, (0, 0, 0))
        y += int(size * rng.uniform(1.3, 1.9))
    return np.asarray(pil)[..., ::-1].copy()


def placement(
    doc_shape: tuple[int, ...],
    rng: np.random.Generator,
    width: int = 1280,
    height: int = 720,
    pitch_px: float | None = None,
    max_skew: float = 20.0,
) -> NDArray[np.float64]:
    """A homography putting a flat document into a frame: scale, any of four orientations
    plus skew, hand-held perspective."""
    dh, dw = doc_shape[:2]
    target_pitch = pitch_px if pitch_px is not None else rng.uniform(7.5, 15.0)
    scale = target_pitch / (_PITCH_MM * 8.0)
    angle = 90.0 * int(rng.integers(4)) + rng.uniform(-max_skew, max_skew)
    src = np.array([[0, 0], [dw, 0], [dw, dh], [0, dh]], np.float32)
    jitter = rng.uniform(-0.06, 0.06, size=(4, 2)) * np.array([dw, dh])
    pts = (src + jitter - [dw / 2, dh / 2]) * scale
    rad = np.deg2rad(angle)
    rot = np.array([[np.cos(rad), -np.sin(rad)], [np.sin(rad), np.cos(rad)]])
    pts = pts @ rot.T
    span = pts.max(0) - pts.min(0)
    shrink = min(1.0, (width - 10) / span[0], (height - 10) / span[1])
    pts *= shrink
    lo, hi = pts.min(0), pts.max(0)
    offset = [
        rng.uniform(-lo[0] + 4, max(-lo[0] + 4, width - hi[0] - 4)),
        rng.uniform(-lo[1] + 4, max(-lo[1] + 4, height - hi[1] - 4)),
    ]
    dst = (pts + offset).astype(np.float32)
    return cast(NDArray[np.float64], cv2.getPerspectiveTransform(src, dst))  # 3x3, CV_64F


def place_on_frame(
    doc: NDArray[np.uint8],
    rng: np.random.Generator,
    width: int = 1280,
    height: int = 720,
    pitch_px: float | None = None,
    max_skew: float = 20.0,
    matrix: NDArray[np.float64] | None = None,
) -> NDArray[np.uint8]:
    """Project a flat document into a camera frame over a busy background."""
    if matrix is None:
        matrix = placement(doc.shape, rng, width, height, pitch_px, max_skew)
    return _lay(doc, matrix, busy_background(rng, width, height))


def _lay(
    doc: NDArray[np.uint8], matrix: NDArray[np.float64], desk: NDArray[np.uint8]
) -> NDArray[np.uint8]:
    """``desk`` with ``doc`` projected onto it by ``matrix`` (in place; returned)."""
    height, width = desk.shape[:2]
    warped = cv2.warpPerspective(doc, matrix, (width, height), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full(doc.shape[:2], 255, np.uint8), matrix, (width, height))
    desk[mask > 128] = warped[mask > 128]
    return desk


def degrade(
    frame: NDArray[np.uint8], rng: np.random.Generator, strength: float = 1.0
) -> NDArray[np.uint8]:
    """Camera-like degradations: blur, glare, low light, noise, occlusion, JPEG."""
    return _degrade(frame, rng, strength)[0]


def _degrade(
    frame: NDArray[np.uint8],
    rng: np.random.Generator,
    strength: float,
    steady: np.random.Generator | None = None,
) -> tuple[NDArray[np.uint8], Damage]:
    """``steady`` (default ``rng``) draws what stays put while a document is held under
    the camera - glare, a finger, the light; ``rng`` draws what changes from frame to
    frame - focus, motion, sensor noise, JPEG."""
    img = frame.astype(np.float32)
    h, w = img.shape[:2]
    scene = rng if steady is None else steady
    glare = occluder = None
    if scene.random() < 0.3 * strength:  # glare: a soft specular blob
        cx, cy, r = scene.uniform(0, w), scene.uniform(0, h), scene.uniform(40, 250)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        gain = scene.uniform(60, 160) * strength
        img += blob[..., None] * gain
        glare = (float(cx), float(cy), float(r), float(gain))
    if scene.random() < 0.2 * strength:  # a finger or another object over part of the frame
        color = tuple(float(v) for v in scene.integers(90, 220, size=3))
        cx = int(scene.uniform(0, w))  # draw order kept: samples stay reproducible
        centre = (cx, int(scene.choice([scene.uniform(0, 60), scene.uniform(h - 60, h)])))
        axes = (int(scene.uniform(30, 70)), int(scene.uniform(60, 140)))
        angle = float(scene.uniform(0, 180))
        cv2.ellipse(img, centre, axes, angle, 0, 360, color, -1)
        occluder = (centre, axes, angle)
    if scene.random() < 0.5 * strength:  # uneven light: a shading ramp across the frame
        angle = scene.uniform(0, 2 * np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ramp = np.cos(angle) * xx / w + np.sin(angle) * yy / h
        ramp = (ramp - ramp.min()) / max(float(ramp.max() - ramp.min()), 1e-6)
        img *= (1.0 - scene.uniform(0.2, 0.5) * ramp)[..., None]
    if scene.random() < 0.4 * strength:  # low light
        img = img * scene.uniform(0.35, 0.8) + scene.uniform(0, 20)
    sigma = rng.uniform(0, 1.1 * strength)
    if sigma > 0.3:
        img = cast(NDArray[np.float32], cv2.GaussianBlur(img, (0, 0), sigma))
    if rng.random() < 0.15 * strength:  # motion blur, a few pixels
        k = int(rng.integers(3, 5))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        img = cast(NDArray[np.float32], cv2.filter2D(img, -1, kernel))  # ddepth -1: float32
    img += rng.normal(0, rng.uniform(0, 7 * strength), size=img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    quality = int(rng.integers(max(30, int(95 - 60 * strength)), 96))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    jpeg = cast(NDArray[np.uint8], cv2.imdecode(buf, cv2.IMREAD_COLOR)) if ok else out
    return jpeg, Damage(occluder, glare)


def _damage_over(
    quad: NDArray[np.float32], damage: Damage, width: int, height: int
) -> tuple[float, float]:
    """(share of the quad under the occluder, strongest glare over it in grey levels)."""
    mask = np.zeros((height, width), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 255)
    area = max(int(np.count_nonzero(mask)), 1)
    covered = 0.0
    if damage.occluder is not None:
        over = np.zeros_like(mask)
        centre, axes, angle = damage.occluder
        cv2.ellipse(over, centre, axes, angle, 0, 360, 255, -1)
        covered = np.count_nonzero(mask & over) / area
    glare = 0.0
    if damage.glare is not None:
        cx, cy, r, gain = damage.glare
        # distance from the blob's centre to the quad (0 inside it)
        signed = cv2.pointPolygonTest(quad.astype(np.float32), (cx, cy), True)
        nearest = max(0.0, -float(signed))
        glare = gain * float(np.exp(-(nearest**2) / (2 * r * r)))
    return covered, glare


def sample(
    seed: int, index: int, *, width: int = 1280, height: int = 720, negative: bool = False
) -> Sample:
    """Sample ``index`` of the seeded synthetic set (a camera-like frame)."""
    rng = np.random.default_rng([seed, index])
    if negative:
        kind = index % len(NEGATIVE_KINDS)
        if kind == 0:
            return Sample(degrade(busy_background(rng, width, height), rng))
        if kind in (1, 2):
            return Sample(degrade(text_page(rng, width, height, mrz_like=kind == 2), rng, 0.5))
        doc, _ = render_document(None, str(rng.choice(["TD1", "TD3"])), rng)
        return Sample(degrade(place_on_frame(doc, rng, width, height), rng))
    identity = random_identity(rng)
    lines = build_lines(identity)
    doc, quad = render_document(lines, identity.doc_format, rng)
    matrix = placement(doc.shape, rng, width, height)  # the draw place_on_frame would make
    frame = place_on_frame(doc, rng, width, height, matrix=matrix)
    image, damage = _degrade(frame, rng, 1.0)
    assert quad is not None
    mrz = cv2.perspectiveTransform(quad[None], matrix)[0]
    covered, glare = _damage_over(mrz, damage, width, height)
    return Sample(image, lines, identity, mrz, covered, glare)


def sequence(
    seed: int,
    index: int,
    frames: int = 8,
    *,
    pitch_px: float | None = None,
    doc_format: str | None = None,
    lines: list[str] | None = None,
    width: int = 1280,
    height: int = 720,
) -> list[Sample]:
    """A document held under the camera for ``frames`` consecutive frames, for live mode.

    One document on one desk; the hand drifts a little from frame to frame (each frame
    moves it by up to 1.5 px, turns it by up to 0.3 degrees and scales it by up to 0.4 %
    about the frame's centre, accumulating); glare, a finger and the light stay as
    they are (drawn once per sequence), while focus, motion blur, sensor noise and JPEG
    are drawn afresh for every frame. ``pitch_px`` fixes the character pitch (the
    distance to the camera), ``doc_format`` the format (TD1, TD2, TD3; random by default);
    ``lines`` renders those MRZ lines instead of a random identity (the demo's visitors).
    A pure function of its arguments, separate from
    :func:`sample` (the same pair gives a different document).
    """
    rng = np.random.default_rng([seed, index, 1])
    identity: Identity | None = None
    if lines is None:
        identity = random_identity(rng, doc_format)
        lines, doc_format = build_lines(identity), identity.doc_format
    else:
        shapes = {shape: f for f, shape in GEOMETRY.items()}
        doc_format = shapes.get((len(lines), len(lines[0]) if lines else 0))
        if doc_format is None:
            raise ValueError("lines of no TD1/TD2/TD3 shape")
    doc, quad = render_document(lines, doc_format, rng)
    assert quad is not None
    matrix = placement(doc.shape, rng, width, height, pitch_px)
    desk = busy_background(rng, width, height)
    scene_seed = [seed, index, 2]
    centre = (width / 2, height / 2)
    out = []
    for _ in range(frames):
        move = cast(
            NDArray[np.float64],  # 2x3, CV_64F
            cv2.getRotationMatrix2D(
                centre, float(rng.uniform(-0.3, 0.3)), float(rng.uniform(0.996, 1.004))
            ),
        )
        move[:, 2] += rng.uniform(-1.5, 1.5, size=2)
        matrix = np.vstack([move, [0.0, 0.0, 1.0]]) @ matrix
        frame = _lay(doc, matrix, desk.copy())
        image, damage = _degrade(frame, rng, 1.0, np.random.default_rng(scene_seed))
        mrz = cv2.perspectiveTransform(quad[None], matrix)[0]
        covered, glare = _damage_over(mrz, damage, width, height)
        out.append(Sample(image, lines, identity, mrz, covered, glare))
    return out

"""What a camera or a clerk does to a document image: the transforms of the MRZ
benchmark's "real, handled" sets (``HANDLED``), shared with the reader's tests. Every
image is made in memory from its source; nothing is written to disk."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np


def fit(image: np.ndarray, side: int) -> np.ndarray:
    """Shrunk (never enlarged) to ``side`` px on its long side."""
    f = side / max(image.shape[:2])
    return cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else image


def rot(image: np.ndarray, k: int) -> np.ndarray:
    """Turned by ``k`` quarter turns (counter-clockwise)."""
    return np.ascontiguousarray(np.rot90(image, k))


def turn(image: np.ndarray, degrees: float) -> np.ndarray:
    """Turned counter-clockwise by ``degrees``, grown to keep its corners, on grey."""
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    size = (int(h * abs(m[0, 1]) + w * abs(m[0, 0])), int(h * abs(m[0, 0]) + w * abs(m[0, 1])))
    m[0, 2] += size[0] / 2 - w / 2
    m[1, 2] += size[1] / 2 - h / 2
    return cv2.warpAffine(image, m, size, borderValue=(128, 128, 128))


def tilt(image: np.ndarray) -> np.ndarray:
    """In the perspective of a hand-held shot: the top edge farther than the bottom."""
    h, w = image.shape[:2]
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    moved = np.float32([[w * 0.08, h * 0.05], [w * 0.95, 0], [w, h], [0, h * 0.93]])
    return cv2.warpPerspective(
        image, cv2.getPerspectiveTransform(corners, moved), (w, h), borderValue=(128, 128, 128)
    )


def shade(image: np.ndarray, far: float = 1.0, gain: float = 1.0) -> np.ndarray:
    """Lit at ``gain`` of full light, darkening from its left edge to ``far`` of that at
    its right edge (a shadow across the document); grey or colour."""
    ramp = gain * np.linspace(1.0, far, image.shape[1], dtype=np.float32)
    ramp = ramp[None, :, None] if image.ndim == 3 else ramp[None, :]
    return np.clip(image.astype(np.float32) * ramp, 0, 255).astype(np.uint8)


def noisy(image: np.ndarray, sigma: float = 12.0) -> np.ndarray:
    """With sensor noise (Gaussian, seeded)."""
    img = image.astype(np.float32)
    img += np.random.default_rng(1).normal(0, sigma, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """Compressed to JPEG at ``quality`` and decoded again, in memory."""
    _ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def smeared(image: np.ndarray, px: int) -> np.ndarray:
    """Moved sideways by ``px`` pixels while the shutter was open (horizontal motion blur)."""
    kernel = np.zeros((px, px), np.float32)
    kernel[px // 2, :] = 1.0 / px
    return cv2.filter2D(image, -1, kernel)


def on_desk(image: np.ndarray, side: int) -> np.ndarray:
    """The image shrunk to ``side`` px (long side) in the middle of a 1280x720 frame of
    busy desk: a real document held far from the camera, its print 7-10 px a character."""
    from hardware.generators import synthetic

    rng = np.random.default_rng([side, *image.shape])
    desk = synthetic.busy_background(rng, 1280, 720)
    small = fit(image, side)
    h, w = small.shape[:2]
    y, x = (720 - h) // 2, (1280 - w) // 2
    desk[y : y + h, x : x + w] = small
    return desk


# (group, name, transform)
HANDLED: tuple[tuple[str, str, Callable[[np.ndarray], np.ndarray]], ...] = (
    ("turned", "90", lambda i: rot(i, 1)),
    ("turned", "180", lambda i: rot(i, 2)),
    ("turned", "270", lambda i: rot(i, 3)),
    ("turned", "+12 deg", lambda i: turn(i, 12)),
    ("turned", "-18 deg", lambda i: turn(i, -18)),
    ("turned", "90 and +10 deg", lambda i: turn(rot(i, 1), 10)),
    ("camera", "perspective", tilt),
    ("camera", "perspective upside down", lambda i: tilt(rot(i, 2))),
    ("camera", "shadow to 30 %", lambda i: shade(fit(i, 1280), 0.3)),
    ("camera", "dark (35 %)", lambda i: shade(fit(i, 1280), 1.0, 0.35)),
    ("camera", "sensor noise 12", lambda i: noisy(fit(i, 1280))),
    ("camera", "JPEG 35", lambda i: jpeg(fit(i, 1280), 35)),
    ("camera", "blur 1.2 px", lambda i: cv2.GaussianBlur(fit(i, 1280), (0, 0), 1.2)),
    ("camera", "motion blur 3 px", lambda i: smeared(fit(i, 1280), 3)),
    # a webcam's frame: the document at 700 px on a desk, sensor noise, its JPEG stream
    (
        "camera",
        "webcam: 700 px on a desk, noise 4, JPEG 70",
        lambda i: jpeg(noisy(on_desk(i, 700), 4.0), 70),
    ),
    ("size", "500 px", lambda i: fit(i, 500)),
    ("size", "800 px", lambda i: fit(i, 800)),
    (
        "size",
        "twice as large",
        lambda i: cv2.resize(i, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
        if max(i.shape[:2]) < 1500
        else i,
    ),
    ("size", "far: 480 px on a desk", lambda i: on_desk(i, 480)),
    ("size", "far: 400 px on a desk", lambda i: on_desk(i, 400)),
    (
        "size",
        "grey",
        lambda i: cv2.cvtColor(cv2.cvtColor(i, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR),
    ),
)

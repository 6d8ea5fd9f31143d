"""The vendored jsQR is the published file, byte for byte: its SHA-256 matches the one
resources/floor/vendor/README.md records (an edit, or an update without the README, is
noticed)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[2] / "resources" / "floor" / "vendor"


def test_the_vendored_jsqr_is_the_recorded_file() -> None:
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    recorded = re.search(r"^SHA256 jsQR\.js: ([0-9a-f]{64})$", readme, re.MULTILINE)
    assert recorded, "the README records the file's SHA-256"
    assert hashlib.sha256((VENDOR / "jsQR.js").read_bytes()).hexdigest() == recorded.group(1)
    assert (VENDOR / "jsQR.LICENSE").is_file()

"""Scanner tests: recordings live in ``bursts/``; real devices only with ``--hardware``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

BURSTS = Path(__file__).parent / "bursts"
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the wedge filter test needs no display


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``hardware`` need a physical reader: run them with ADMISSION_HARDWARE=1."""
    if os.environ.get("ADMISSION_HARDWARE") == "1":
        return
    skip = pytest.mark.skip(reason="needs a physical reader (set ADMISSION_HARDWARE=1)")
    for item in items:
        if "hardware" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def burst() -> object:
    def load(name: str) -> list[tuple[str, float]]:
        raw = json.loads((BURSTS / f"{name}.json").read_text())
        return [(str(c), float(t)) for c, t in raw]

    return load

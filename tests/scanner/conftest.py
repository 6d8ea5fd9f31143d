"""Scanner tests: recordings live in ``bursts/``; real devices only with ``--hardware``."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest

BURSTS = Path(__file__).parent / "bursts"
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the wedge filter test needs no display


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests here marked ``hardware`` need a physical reader: they run only with
    ADMISSION_HARDWARE=1 (or ``--hardware`` where a root conftest defines that option)."""
    wanted = os.environ.get("ADMISSION_HARDWARE") == "1"
    with contextlib.suppress(ValueError):  # unless a root conftest defines --hardware
        wanted = wanted or bool(config.getoption("--hardware"))
    if wanted:
        return
    skip = pytest.mark.skip(reason="needs a physical reader (set ADMISSION_HARDWARE=1)")
    here = Path(__file__).parent
    for item in items:
        if "hardware" in item.keywords and here in Path(str(item.fspath)).parents:
            item.add_marker(skip)


@pytest.fixture
def burst() -> object:
    def load(name: str) -> list[tuple[str, float]]:
        raw = json.loads((BURSTS / f"{name}.json").read_text())
        return [(str(c), float(t)) for c, t in raw]

    return load

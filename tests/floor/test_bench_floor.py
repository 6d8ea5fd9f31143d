"""The floor service's benchmark (tests/bench/bench_floor.py) runs end to end, small: a
few cards, the in-process peer and HTTPS with a few concurrent clients, and prints its
table (so it does not rot)."""

from __future__ import annotations

import pytest


def test_the_floor_bench_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.bench import bench_floor

    assert bench_floor.main(["--cards", "30", "--checks", "40", "--clients", "4"]) == 0
    table = capsys.readouterr().out
    assert "| in-process check (peer: no HTTP), 1 caller | 40 |" in table
    assert "| HTTPS GET /api/cards, 4 concurrent clients, keep-alive | 40 |" in table
    assert "HTTP + TLS + hand-off per check" in table

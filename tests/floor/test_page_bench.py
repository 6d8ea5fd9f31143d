"""The phone page's benchmark (tests/bench/bench_floor_page.py) runs end to end, small:
two cold loads and a few offline verifications, and prints its table."""

from __future__ import annotations

import pytest

from tests.floor.browser import have_browser

pytestmark = pytest.mark.skipif(not have_browser(), reason="Debian's chromium and chromedriver")


def test_the_page_bench_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.bench import bench_floor_page

    assert bench_floor_page.main(["--loads", "2", "--codes", "14"]) == 0
    table = capsys.readouterr().out
    assert "| cold load: start -> sign-in form interactive (Navigation Timing) | 2 |" in table
    assert "| offline verification, per code (14 codes) | 14 |" in table

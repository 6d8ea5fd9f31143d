"""The WAN benchmark (tests/bench/bench_wan.py) runs end to end on a few admissions, so
that it does not rot between the runs quoted in the notes."""

from __future__ import annotations

import pytest

from tests.pg.cluster_fixture import load_tool


def test_the_wan_benchmark_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    if load_tool().find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    from tests.bench import bench_wan

    assert bench_wan.main(["--admissions", "3", "--rtt-ms", "0,30"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| added round trip | evaluation p50 / p95")
    assert [row.split(" | ")[0] for row in rows[1:]] == ["| 0 ms", "| 30 ms"]
    assert rows[2].split(" | ")[4].replace(".", "").isdigit()  # round trips measured

"""The failover benchmark (tests/bench/bench_failover.py) runs end to end with two kills,
so that it does not rot between its runs of ten or more: its own primary and standby,
four desk processes, the table, and no admission lost."""

from __future__ import annotations

import pytest

from tests.pg.cluster_fixture import load_tool


def test_the_failover_benchmark_prints_its_table_after_two_kills(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if load_tool().find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    from tests.bench import bench_failover

    assert bench_failover.main(["--kills", "2", "--settle", "0.5"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| measure | n | p50 | max")
    body = {row.split(" | ")[0][2:]: row for row in rows[1:]}
    failover = body["failover: kill → first admission on the new primary"].split(" | ")
    assert failover[1] == "2" and failover[2].endswith("ms") and failover[3].endswith("ms")
    assert int(body["admissions reported done"].split(" | ")[1]) > 0
    assert body["admissions lost (reported done, not in the file)"].split(" | ")[1] == "0"
    assert "chain verified end to end): pass |" in body["cards"]
    assert body["timeline at the end"].split(" | ")[1] == "3"  # two promotions

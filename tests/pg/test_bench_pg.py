"""The PostgreSQL benchmark (tests/bench/bench_pg.py) runs end to end on a tiny data set,
so that it does not rot between the runs on a full visitor file: its own cluster, both
loads, desk processes, the SQLCipher side, the purges, and one table."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pg.cluster_fixture import load_tool


def test_the_benchmark_prints_its_table_on_a_tiny_data_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if load_tool().find_bin_dir() is None:
        pytest.skip("PostgreSQL is not installed (Debian package postgresql)")
    from tests.bench import bench_pg

    argv = ["--visitors", "300", "--admissions", "20", "--lookups", "40", "--searches", "20"]
    assert bench_pg.main([*argv, "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| operation | n | sealed p50")
    body = {row.split(" | ")[0][2:]: row.split(" | ") for row in rows[1:]}
    assert any(name.startswith("load 300 visitors") for name in body)
    for desks in (1, 2, 4):
        samples = body[bench_pg.admission_name(desks)]
        assert int(samples[1]) == 20 * desks  # every admission of every desk timed
        assert samples[2].endswith("ms") and samples[4].endswith("ms")
        assert body[bench_pg.rate_name(desks)][2].endswith("/s")
    assert body[bench_pg.admission_name(1)][7].endswith("ms")  # the SQLCipher desk too
    assert body["lookup by identity (find_visitor)"][1] == "40"
    purge = next(row for name, row in body.items() if name.startswith("purge"))
    assert int(purge[1]) == 5 and "sealed" in purge[-1]
    assert not list(tmp_path.glob("work-pg-*"))  # the working copies are removed

"""An annex room's desk over a WAN (Decreto 58/2006, arts. 154-155): one admission - the
RIAJ replica's check, the desk's reads, the record with its card - through the loopback
proxy (tools/tcp_proxy.py) with a round trip added, on a throwaway TLS cluster.

    python tests/bench/bench_wan.py [--admissions 40] [--rtt-ms 0,10,30]

Prints, per added round trip, the evaluation's and the record's p50/p95 and the round
trips each waits for, measured as (time at the delay - time at 0) / the round trip.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from psycopg.conninfo import conninfo_to_dict, make_conninfo  # noqa: E402
from tcp_proxy import TcpProxy  # noqa: E402

from admission.clock import FixedClock  # noqa: E402
from db.audit_key import AuditKey  # noqa: E402
from db.pg.crypto import InstallationKey  # noqa: E402
from db.pg.store import PgStore  # noqa: E402
from db.registry_replica import ReplicaRegistry  # noqa: E402
from tests.factories import SATURDAY_NIGHT, dni_document, make_desk  # noqa: E402
from tests.pg.cluster_fixture import fresh_schema, load_tool, schema_conninfo  # noqa: E402

TARGET_RTT_MS, TARGET_P95_MS = 30, 150  # an annex room across town


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admissions", type=int, default=40, help="per round trip")
    parser.add_argument("--rtt-ms", default="0,10,30", help="added round trips, ms")
    args = parser.parse_args(argv)
    delays = [float(x) / 1000 for x in args.rtt_ms.split(",")]
    tool = load_tool()
    cluster = tool.PgCluster(Path(tempfile.mkdtemp(prefix="bench-wan-")), desks=("desk1",))
    cluster.start()
    rows = []
    try:
        with TcpProxy(cluster.hostaddr, cluster.port) as proxy:
            info = conninfo_to_dict(schema_conninfo(cluster, fresh_schema(cluster)))
            info["port"] = proxy.port
            clock = FixedClock(SATURDAY_NIGHT)
            with PgStore.open(
                make_conninfo(**info),
                InstallationKey.generate("bench"),
                audit_key=AuditKey.generate("bench"),
                create=True,
                clock=clock,
                min_connections=2,  # as a desk opens it (db/pg/desk.py)
            ) as store:
                registry = ReplicaRegistry(store, clock)
                registry.import_lines([b"00000007\n"])
                desk, _, _ = make_desk(store, registry=registry, clock=clock)
                base: tuple[float, float] | None = None
                for n, rtt in enumerate(delays):
                    proxy.delay_s = rtt / 2  # one way
                    evals, records, totals = [], [], []
                    for k in range(args.admissions):
                        document = dni_document(20_000_000 + n * 10_000 + k)
                        started = time.perf_counter()
                        evaluation = desk.evaluate(document)
                        evaluated = time.perf_counter()
                        result = desk.record(evaluation, operator="op-1")
                        done = time.perf_counter()
                        assert result.card is not None, result.verdict
                        evals.append(evaluated - started)
                        records.append(done - evaluated)
                        totals.append(done - started)
                        clock.advance(timedelta(seconds=7))
                    medians = (statistics.median(evals), statistics.median(records))
                    if base is None:
                        base = medians
                    trips = (
                        ["", ""]
                        if rtt == 0
                        else [f"{(m - b) / rtt:.1f}" for m, b in zip(medians, base, strict=True)]
                    )
                    rows.append((rtt, evals, records, totals, trips))
    finally:
        cluster.stop()
    print(
        "| added round trip | evaluation p50 / p95 | record p50 / p95 | admission p50 / p95 "
        "| round trips: evaluation | record |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for rtt, evals, records, totals, trips in rows:
        cells = [
            f"{statistics.median(v) * 1000:.0f} / {percentile(v, 0.95) * 1000:.0f} ms"
            for v in (evals, records, totals)
        ]
        print(f"| {rtt * 1000:.0f} ms | {' | '.join(cells)} | {trips[0]} | {trips[1]} |")
    at_30 = [row for row in rows if round(row[0] * 1000) == TARGET_RTT_MS]
    if at_30:
        p95 = percentile(at_30[0][3], 0.95) * 1000
        verdict = "met" if p95 < TARGET_P95_MS else "NOT met"
        print(
            f"\nadmission p95 at {TARGET_RTT_MS} ms: {p95:.0f} ms"
            f" (target < {TARGET_P95_MS}): {verdict}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

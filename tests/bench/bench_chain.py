"""The cost of the audit chain: admission latency and ``audit verify`` on a file built
through the store itself (every visit, card and entry written by the real code, so the
chain verifies), for one or several revisions of the code in the same run.

    .venv/bin/python tests/bench/bench_chain.py --visits 2000            # this tree
    .venv/bin/python tests/bench/bench_chain.py --visits 100000 \\
        --tree before=/tmp/before --tree after=/work/main            # two revisions
    .venv/bin/python tests/bench/bench_chain.py --store pg ...       # on PostgreSQL

Each ``--tree`` runs in its own process with that tree first on ``sys.path`` (the same
virtualenv), on a fresh SQLCipher file in a scratch folder (``--store pg``: a fresh
schema of one throwaway cluster, tests/pg/cluster_fixture.py, started here): N visits
of N/5 visitors (five visits each, on five days, a one-day card with each), then
``--sample`` more admissions timed one by one, then ``audit verify`` timed. The data is
synthetic and the keys constants: never point this script at a real visitor file.
Prints ONE table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

BENCH_DB_KEY = "42" * 32
BENCH_AUDIT_KEY = "17" * 32
START = datetime(2026, 6, 1, 19, 0, tzinfo=UTC)
ROUNDS = 5  # visits per visitor, one per day


def _entry(n: int, at: datetime) -> object:
    from admission.identity import IdentityKey, IdKind
    from admission.ports import madrid_date
    from admission.records import AdmissionEntry, NewCard, RegistryCheck

    letters = "TRWAGMYFPDXBNJZSQVHLCKE"
    day = madrid_date(at)
    return AdmissionEntry(
        identity=IdentityKey(IdKind.DNI, "ESP", f"{n:08d}{letters[n % 23]}"),
        surname="Peña Núñez",
        given_names="José María",
        birth_date=date(1980, 5, 17),
        nationality="ESP",
        document_type="DNI",
        document_number=f"SUP{n:06d}",
        at=at,
        desk_id="desk-1",
        operator="bench",
        verdict="ADMIT",
        reasons=(),
        registry=RegistryCheck("NOT_LISTED", "REPLICA", "bench.1", 60),
        card=NewCard("STANDARD", 500, day, day),
    )


def measure(visits: int, sample: int) -> dict[str, float]:
    """In this process: build, time ``sample`` admissions, time verify."""
    from admission.clock import FixedClock
    from db.keys import DbKey
    from db.store import SqlCipherStore

    os.environ["ADMISSION_AUDIT_KEY"] = BENCH_AUDIT_KEY
    visitors = max(1, visits // ROUNDS)
    folder = Path(tempfile.mkdtemp(prefix="bench-chain-"))
    clock = FixedClock(START)
    try:
        key = DbKey.from_raw(bytes.fromhex(BENCH_DB_KEY), source="bench")
        with SqlCipherStore.open(folder / "visitors.db", key, clock=clock) as store:
            return _run(
                store,
                visits,
                visitors,
                sample,
                lambda: (folder / "visitors.db").stat().st_size / 1e6,
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def measure_pg(conninfo: str, visits: int, sample: int) -> dict[str, float]:
    """The same on a PostgreSQL schema (one desk; the server's file, arts. 154-155)."""
    from admission.clock import FixedClock
    from db.audit_key import AuditKey
    from db.pg.crypto import InstallationKey
    from db.pg.store import PgStore

    visitors = max(1, visits // ROUNDS)
    clock = FixedClock(START)
    with PgStore.open(
        conninfo,
        InstallationKey.generate("bench"),
        audit_key=AuditKey.from_hex(BENCH_AUDIT_KEY, source="bench"),
        create=True,
        clock=clock,
    ) as store:
        return _run(store, visits, visitors, sample, lambda: 0.0)


def _run(
    store: Any, visits: int, visitors: int, sample: int, size: Callable[[], float]
) -> dict[str, float]:
    t = time.perf_counter()
    for k in range(visits):
        at = START + timedelta(days=k // visitors, seconds=k % visitors)
        store.record_admission(_entry(k % visitors + 1, at))
    built = time.perf_counter() - t
    samples = []
    late = START + timedelta(days=ROUNDS + 1)
    for k in range(sample):
        e = _entry(k % visitors + 1, late + timedelta(seconds=k))
        t = time.perf_counter()
        store.record_admission(e)
        samples.append(time.perf_counter() - t)
    t = time.perf_counter()
    check = store.verify()
    verified = time.perf_counter() - t
    if not check.ok:
        raise SystemExit(f"the bench file does not verify: {check}")
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {
        "build_s": built,
        "p50_ms": q[49] * 1000,
        "p95_ms": q[94] * 1000,
        "verify_s": verified,
        "entries": float(check.entries),
        "rows": float(check.rows),
        "size_mb": size(),
    }


def _child(tree: Path, visits: int, sample: int, conninfo: str = "") -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    call = (
        f"bench_chain.measure_pg({conninfo!r}, int(sys.argv[3]), int(sys.argv[4]))"
        if conninfo
        else "bench_chain.measure(int(sys.argv[3]), int(sys.argv[4]))"
    )
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]); "
        f"import bench_chain; print(json.dumps({call}))"
    )
    here = str(Path(__file__).resolve().parent)
    done = subprocess.run(
        [sys.executable, "-c", code, str(tree), here, str(visits), str(sample)],
        env=env,
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--visits", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=500, help="admissions timed")
    parser.add_argument("--store", choices=("sqlcipher", "pg"), default="sqlcipher")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="a checkout of the code to measure (repeatable); default: this tree",
    )
    args = parser.parse_args()
    trees = [t.split("=", 1) for t in args.tree] or [
        ["this", str(Path(__file__).resolve().parents[2])]
    ]
    rows = []
    cluster = _start_cluster() if args.store == "pg" else None
    try:
        for label, tree in trees:
            rows.append(_measure_tree(label, tree, args, cluster))
    finally:
        if cluster is not None:
            cluster.stop()
    where = "SQLCipher file" if cluster is None else "PostgreSQL schema (one desk)"
    print(
        f"Audit chain cost: {where} of {args.visits:,} visits "
        f"({args.visits // ROUNDS:,} visitors, a card each visit); "
        f"{args.sample} admissions timed; {os.cpu_count()} CPUs\n"
    )
    print(
        "| code | commit | admission p50 | admission p95 | audit verify | entries | rows "
        "| file | build |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, head, r in rows:
        print(
            f"| {label} | {head} | {r['p50_ms']:.2f} ms | {r['p95_ms']:.2f} ms "
            f"| {r['verify_s']:.2f} s | {int(r['entries']):,} | {int(r['rows']):,} "
            f"| {r['size_mb']:.0f} MB | {r['build_s']:.0f} s |"
        )
    return 0


def _start_cluster() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.pg.cluster_fixture import DESKS, load_tool

    tool = load_tool()
    if tool.find_bin_dir() is None:
        raise SystemExit("PostgreSQL is not installed (Debian package postgresql)")
    cluster = tool.PgCluster(Path(tempfile.mkdtemp(prefix="bench-chain-pg-")), desks=DESKS)
    cluster.start()
    return cluster


def _measure_tree(
    label: str, tree: str, args: argparse.Namespace, cluster: Any
) -> tuple[str, str, dict[str, float]]:
    conninfo = ""
    if cluster is not None:
        from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

        conninfo = schema_conninfo(cluster, fresh_schema(cluster))
    head = subprocess.run(
        ["git", "-C", tree, "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    print(f"[{label}] {tree} ({head}): building {args.visits:,} visits...", file=sys.stderr)
    return label, head, _child(Path(tree), args.visits, args.sample, conninfo)


if __name__ == "__main__":
    raise SystemExit(main())

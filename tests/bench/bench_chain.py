"""The cost of the audit chain: admission latency and ``audit verify`` on a file built
through the store itself (every visit, card and entry written by the real code, so the
chain verifies), for one or several revisions of the code in the same run.

    .venv/bin/python tests/bench/bench_chain.py --visits 2000            # this tree
    .venv/bin/python tests/bench/bench_chain.py --visits 100000 \\
        --tree before=/tmp/before --tree after=/work/main            # two revisions

Each ``--tree`` runs in its own process with that tree first on ``sys.path`` (the same
virtualenv), on a fresh SQLCipher file in a scratch folder: N visits of N/5 visitors
(five visits each, on five days, a one-day card with each), then ``--sample`` more
admissions timed one by one, then ``audit verify`` timed. The data is synthetic and the
key a constant: never point this script at a real visitor file. Prints ONE table.
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
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

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
            t = time.perf_counter()
            for k in range(visits):
                at = START + timedelta(days=k // visitors, seconds=k % visitors)
                store.record_admission(_entry(k % visitors + 1, at))  # type: ignore[arg-type]
            built = time.perf_counter() - t
            samples = []
            late = START + timedelta(days=ROUNDS + 1)
            for k in range(sample):
                e = _entry(k % visitors + 1, late + timedelta(seconds=k))
                t = time.perf_counter()
                store.record_admission(e)  # type: ignore[arg-type]
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
                "size_mb": (folder / "visitors.db").stat().st_size / 1e6,
            }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _child(tree: Path, visits: int, sample: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]); "
        "import bench_chain; "
        "print(json.dumps(bench_chain.measure(int(sys.argv[3]), int(sys.argv[4]))))"
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
    for label, tree in trees:
        head = subprocess.run(
            ["git", "-C", tree, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        print(f"[{label}] {tree} ({head}): building {args.visits:,} visits...", file=sys.stderr)
        rows.append((label, head, _child(Path(tree), args.visits, args.sample)))
    print(
        f"Audit chain cost: SQLCipher file of {args.visits:,} visits "
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


if __name__ == "__main__":
    raise SystemExit(main())

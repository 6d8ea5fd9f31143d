"""The cost of the audit chain: admission latency and ``audit verify`` on a file built
through the store itself (every visit, card and entry written by the real code, so the
chain verifies), for one or several revisions of the code in the same run.

    .venv/bin/python tests/bench/bench_chain.py --visits 2000            # this tree
    .venv/bin/python tests/bench/bench_chain.py --visits 100000 \\
        --tree before=/tmp/before --tree after=/work/main            # two revisions
    .venv/bin/python tests/bench/bench_chain.py --store pg ...       # on PostgreSQL

Each ``--tree`` runs in its own process with that tree first on ``sys.path`` (the same
virtualenv), on a fresh SQLCipher file in a scratch folder (``--store pg``: a fresh
schema of one throwaway cluster, tests/pg/cluster_fixture.py, started here). The
processes build their files side by side - N visits of N/5 visitors, five visits each
on five days, a one-day card with each - then are measured in turns, ``--rounds``
times: ``--sample``/rounds admissions timed one by one, then one ``audit verify``. On a
machine shared with other work, the revisions compared thus meet the same load. The
data is synthetic and the keys constants: never point this script at a real visitor
file. Prints ONE table.
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


def _open_store(kind: str, folder: Path, conninfo: str) -> Any:
    from admission.clock import FixedClock

    clock = FixedClock(START)
    if kind == "pg":
        from db.audit_key import AuditKey
        from db.pg.crypto import InstallationKey
        from db.pg.store import PgStore

        return PgStore.open(
            conninfo,
            InstallationKey.generate("bench"),
            audit_key=AuditKey.from_hex(BENCH_AUDIT_KEY, source="bench"),
            create=True,
            clock=clock,
        )
    from db.keys import DbKey
    from db.store import SqlCipherStore

    os.environ["ADMISSION_AUDIT_KEY"] = BENCH_AUDIT_KEY
    key = DbKey.from_raw(bytes.fromhex(BENCH_DB_KEY), source="bench")
    return SqlCipherStore.open(folder / "visitors.db", key, clock=clock)


def serve(kind: str, visits: int, conninfo: str = "") -> None:
    """In the child: build the file, then answer the parent's commands, one JSON line
    each: ``admit K`` (K admissions timed one by one), ``verify``; end of input ends."""
    visitors = max(1, visits // ROUNDS)
    folder = Path(tempfile.mkdtemp(prefix="bench-chain-"))
    try:
        store = _open_store(kind, folder, conninfo)
        t = time.perf_counter()
        for k in range(visits):
            at = START + timedelta(days=k // visitors, seconds=k % visitors)
            store.record_admission(_entry(k % visitors + 1, at))
        size = (folder / "visitors.db").stat().st_size / 1e6 if kind != "pg" else 0.0
        print(json.dumps({"build_s": time.perf_counter() - t, "size_mb": size}), flush=True)
        late, done = START + timedelta(days=ROUNDS + 1), 0
        for line in sys.stdin:
            command = line.split()
            if command and command[0] == "admit":
                samples = []
                for _ in range(int(command[1])):
                    e = _entry(done % visitors + 1, late + timedelta(seconds=done))
                    done += 1
                    t = time.perf_counter()
                    store.record_admission(e)
                    samples.append(time.perf_counter() - t)
                print(json.dumps(samples), flush=True)
            elif command:
                t = time.perf_counter()
                check = store.verify()
                took = time.perf_counter() - t
                if not check.ok:
                    raise SystemExit(f"the bench file does not verify: {check}")
                print(json.dumps([took, check.entries, check.rows]), flush=True)
        store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class _Child:
    """One revision's measuring process."""

    def __init__(self, label: str, tree: str, kind: str, visits: int, conninfo: str) -> None:
        self.label = label
        self.head = subprocess.run(
            ["git", "-C", tree, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        here = str(Path(__file__).resolve().parent)
        code = (
            "import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]); "
            "import bench_chain; bench_chain.serve(sys.argv[3], int(sys.argv[4]), sys.argv[5])"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, tree, here, kind, str(visits), conninfo],
            env={**os.environ, "PYTHONPATH": tree},
            cwd=tree,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.samples: list[float] = []
        self.verifies: list[float] = []
        self.built: dict[str, float] = {}
        self.counts = (0, 0)

    def ask(self, command: str = "") -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if command:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"[{self.label}] the measuring process ended")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=300)


def _start_cluster() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.pg.cluster_fixture import DESKS, load_tool

    tool = load_tool()
    if tool.find_bin_dir() is None:
        raise SystemExit("PostgreSQL is not installed (Debian package postgresql)")
    cluster = tool.PgCluster(Path(tempfile.mkdtemp(prefix="bench-chain-pg-")), desks=DESKS)
    cluster.start()
    return cluster


def _measure(args: argparse.Namespace, trees: list[list[str]], cluster: Any) -> list[_Child]:
    children: list[_Child] = []
    try:
        for label, tree in trees:
            conninfo = ""
            if cluster is not None:
                from tests.pg.cluster_fixture import fresh_schema, schema_conninfo

                conninfo = schema_conninfo(cluster, fresh_schema(cluster))
            children.append(_Child(label, tree, args.store, args.visits, conninfo))
        print(f"building {args.visits:,} visits in each of {len(children)}", file=sys.stderr)
        for child in children:  # built side by side
            child.built = child.ask()
        for round_no in range(args.rounds):  # then measured in turns, under the same load
            for child in children:
                child.samples += child.ask(f"admit {args.sample // args.rounds}")
            for child in children:
                took, entries, rows = child.ask("verify")
                child.verifies.append(took)
                child.counts = (entries, rows)
            print(f"round {round_no + 1}/{args.rounds}", file=sys.stderr)
    finally:
        for child in children:
            child.close()
    return children


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--visits", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=600, help="admissions timed")
    parser.add_argument("--rounds", type=int, default=3, help="turns of admissions + verify")
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
    cluster = _start_cluster() if args.store == "pg" else None
    try:
        children = _measure(args, trees, cluster)
    finally:
        if cluster is not None:
            cluster.stop()
    where = "SQLCipher file" if cluster is None else "PostgreSQL schema (one desk)"
    print(
        f"Audit chain cost: {where} of {args.visits:,} visits "
        f"({args.visits // ROUNDS:,} visitors, a card each visit); the revisions built side "
        f"by side, then measured in turns ({args.rounds} rounds of "
        f"{args.sample // args.rounds} admissions and one audit verify); "
        f"{os.cpu_count()} CPUs, shared\n"
    )
    print(
        "| code | commit | admission p50 | admission p95 | audit verify (median) "
        "| audit verify (min) | entries | rows | file | build |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in children:
        q = statistics.quantiles(c.samples, n=100, method="inclusive")
        size = f"{c.built['size_mb']:.0f} MB" if c.built["size_mb"] else "-"
        print(
            f"| {c.label} | {c.head} | {q[49] * 1000:.2f} ms | {q[94] * 1000:.2f} ms "
            f"| {statistics.median(c.verifies):.2f} s | {min(c.verifies):.2f} s "
            f"| {c.counts[0]:,} | {c.counts[1]:,} | {size} | {c.built['build_s']:.0f} s |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Before and after, in one run: bench_store and bench_pg of an earlier commit beside
the same benchmarks of this tree, on the same machine, data set and moment.

    .venv/bin/python tests/bench/bench_compare.py --before 136b1cb --visitors 200000

The earlier commit is checked out in a throwaway git worktree (its own benchmarks, its
own code; this tree's virtual environment). The runs alternate (before pg, after pg,
before store, after store) so that a machine slowing down in the middle penalises both
sides alike. Prints ONE markdown table: every operation measured by both, its p95 (and
p50) before and after, and the ratio after/before (below 1.00: faster now); the rows the
store's design is judged on (admission at 1 and 4 desks, name search) come first.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
Table = dict[str, dict[str, str]]  # operation -> column -> cell
# the rows the issue of one store over two dialects is judged on, matched by name
KEY_ROWS = ("admission", "search")


def parse(markdown: str) -> Table:
    """The rows of the one markdown table a benchmark prints."""
    header: list[str] = []
    rows: Table = {}
    for line in markdown.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not header:
            header = cells
            continue
        rows[cells[0]] = dict(zip(header, cells, strict=False))
    return rows


def seconds(cell: str) -> float | None:
    """'12.34 ms' or '1.20 s' in seconds; None for an empty or non-time cell."""
    found = re.fullmatch(r"([\d.,]+) (ms|s)", cell.strip())
    if not found:
        return None
    value = float(found.group(1).replace(",", ""))
    return value / 1000 if found.group(2) == "ms" else value


def run(tree: Path, script: str, args: Sequence[str]) -> str:
    command = [sys.executable, str(tree / "tests" / "bench" / script), *args]
    print(f"[{tree.name}] {script} {' '.join(args)}", file=sys.stderr, flush=True)
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.stderr.write(done.stderr[-4000:])
        raise SystemExit(f"{script} failed in {tree} (exit {done.returncode})")
    return done.stdout


def compare(name: str, before: Table, after: Table, columns: Sequence[str]) -> list[str]:
    lines = []
    ordered = sorted(
        (op for op in after if op in before),
        key=lambda op: (not any(k in op.lower() for k in KEY_ROWS), list(after).index(op)),
    )
    for op in ordered:
        for column in columns:
            b, a = seconds(before[op].get(column, "")), seconds(after[op].get(column, ""))
            if b is None or a is None or b == 0:
                continue
            lines.append(
                f"| {name} | {op} | {column} | {before[op][column]} | {after[op][column]} "
                f"| {a / b:.2f} |"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--before", required=True, help="the earlier commit")
    parser.add_argument("--visitors", type=int, default=200_000)
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/admission-bench"))
    parser.add_argument(
        "--only", choices=("bench_pg.py", "bench_store.py"), help="run this one benchmark"
    )
    args = parser.parse_args(argv)
    common = ["--visitors", str(args.visitors), "--cache-dir", str(args.cache_dir)]
    base = Path(tempfile.mkdtemp(prefix="admission-bench-before-"))
    before_tree = base / "before"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before_tree), args.before],
        check=True,
        capture_output=True,
    )
    (before_tree / ".venv").symlink_to(ROOT / ".venv")
    try:
        tables: dict[str, tuple[Table, Table]] = {}
        for script in [args.only] if args.only else ["bench_pg.py", "bench_store.py"]:
            earlier = parse(run(before_tree, script, common))
            now = parse(run(ROOT, script, common))
            tables[script] = (earlier, now)
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(base, ignore_errors=True)
    print(
        f"Before ({args.before}) and after (this tree) in one run: {args.visitors:,} "
        f"visitors; {os.cpu_count()} CPUs; ratio = after / before (below 1.00: faster now)\n"
    )
    print("| benchmark | operation | column | before | after | ratio |")
    print("|---|---|---|---:|---:|---:|")
    columns = {"bench_pg.py": ("sealed p95", "SQLCipher p95"), "bench_store.py": ("SQLCipher p95",)}
    for script, (earlier, now) in tables.items():
        for line in compare(script.removesuffix(".py"), earlier, now, columns[script]):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

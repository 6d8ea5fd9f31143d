"""Benchmark of a failover (Decreto 58/2006, art. 22.1: no card number acknowledged to a
desk is lost or given twice when the server dies): a primary and a synchronous streaming
standby (tools/pg_replication.py), four desk processes admitting without pause
(tests/pg/failover_child.py: each desk follows the primary, db/pg/primary.py, and presses
again with the same admission when a press fails), and the primary killed again and again.

    .venv/bin/python tests/bench/bench_failover.py              # 10 kills
    .venv/bin/python tests/bench/bench_failover.py --kills 20

Each round: the desks admit for ``--settle`` seconds on a primary with a synchronous
standby; the primary is killed (``pg_ctl stop -m immediate``) and the bench promotes the
standby at once (``pg_ctl promote -w``): no failure detector, so the failover time is the
promotion plus the desks' reconnect, from the kill to the first admission committed on
the new primary (the bench polls the new primary's visits every 2 ms); then a new standby
is made from the new primary (``pg_basebackup -R``) and named synchronous again.

At the end every admission a desk reported done is looked up in the file by its admission
id on the last primary: the admissions lost must be 0; then the file's own checks (card
numbers 1..N, none twice, one valid card a person, the chain verified end to end,
tests/pg/test_failover.py's ``check_file``). The cluster is throwaway (``fsync`` off: a
process kill loses nothing the OS holds); the data and keys are test values.

Prints ONE markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

from tests.pg.cluster_fixture import load_replication  # noqa: E402
from tests.pg.test_failover import (  # noqa: E402
    DESKS,
    Desks,
    FailoverFile,
    check_file,
    new_file,
    wait_for,
)

POLL_S = 0.002  # the bench's look at the new primary for the first admission
FIRST_WITHIN_S = 60.0  # a failover slower than this fails the run


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def progress(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def visits_on(pair: Any, node: Any, schema: str) -> int:
    """The visits in the file on one server (a standby answers too: hot standby)."""
    with psycopg.connect(pair.superuser_conninfo(node), autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(schema)))
        row = conn.execute("SELECT count(*) FROM visits").fetchone()
        return int(row[0]) if row else 0


def first_admission(pair: Any, file: FailoverFile, before: int) -> float:
    """``time.monotonic()`` when the new primary holds a visit beyond ``before``."""
    deadline = time.monotonic() + FIRST_WITHIN_S
    with psycopg.connect(pair.superuser_conninfo(pair.primary), autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path = {}").format(sql.Identifier(file.schema)))
        while True:
            row = conn.execute("SELECT count(*) FROM visits").fetchone()
            now = time.monotonic()
            if row is not None and int(row[0]) > before:
                return now
            if now > deadline:
                raise TimeoutError(f"no admission on the new primary in {FIRST_WITHIN_S} s")
            time.sleep(POLL_S)


class Round:
    """One kill: seconds from the kill to the promotion's end and to the first admission
    on the new primary, and to a synchronous standby again."""

    def __init__(self, promoted: float, first: float, standby: float) -> None:
        self.promoted, self.first, self.standby = promoted, first, standby


def one_kill(pair: Any, file: FailoverFile) -> Round:
    standby = pair.standby
    killed = time.monotonic()
    pair.kill_primary()
    # nothing is written anywhere now: the standby holds every acknowledged admission
    before = visits_on(pair, standby, file.schema)
    pair.promote()
    promoted = time.monotonic()
    first = first_admission(pair, file, before)
    pair.new_standby()
    return Round(promoted - killed, first - killed, time.monotonic() - first)


def lost_admissions(file: FailoverFile, reports: list[dict[str, Any]]) -> int:
    """Admissions a desk reported done that the file does not hold as reported."""
    lost = 0
    with file.open() as store:
        for line in reports:
            found = store.recorded_admission(line["admission_id"])
            if found is None or found.card_number != line.get("card"):
                lost += 1
    return lost


def run(args: argparse.Namespace, pair: Any, folder: Path) -> tuple[list[Round], dict[str, Any]]:
    file = new_file(pair)
    rounds: list[Round] = []
    with Desks(file, folder, None) as desks:
        for kill in range(1, args.kills + 1):
            since = time.time()
            time.sleep(args.settle)
            wait_for(lambda: desks.each_reported(since, 2), "every desk admitting")  # noqa: B023
            rounds.append(one_kill(pair, file))
            progress(f"kill {kill}: first admission after {ms(rounds[-1].first)}")
        desks.stop()
    reports = desks.reports()
    outcome: dict[str, Any] = {
        "reported": len(reports),
        "gave_up": sum(1 for line in reports if line.get("gave_up")),
        "lost": lost_admissions(file, [line for line in reports if not line.get("gave_up")]),
        "pressed_again": sum(1 for line in reports if line.get("failed_presses")),
        "longest_press": max(line["done"] - line["started"] for line in reports),
        "timeline": pair.timeline(pair.primary),
    }
    try:
        check_file(file, reports)
        outcome["checks"] = "pass"
    except AssertionError as exc:
        outcome["checks"] = f"FAILED: {str(exc).splitlines()[0][:120]}"
    cards = file.sql("SELECT count(*), coalesce(max(number), 0) FROM cards")[0]
    outcome["cards"] = (int(cards[0]), int(cards[1]))
    return rounds, outcome


def table(args: argparse.Namespace, rounds: list[Round], outcome: dict[str, Any]) -> str:
    def row(name: str, values: list[float], note: str) -> str:
        return (
            f"| {name} | {len(values)} | {ms(statistics.median(values))} "
            f"| {ms(max(values))} | {note} |"
        )

    cards, top = outcome["cards"]
    lines = [
        f"Failover on PostgreSQL 15, loopback, TLS 1.3: a primary and a synchronous standby "
        f"(synchronous_commit on), {len(DESKS)} desk processes admitting without pause, "
        f"{args.kills} kills (pg_ctl stop -m immediate), the standby promoted by the bench "
        "at once (detection: immediate; no failure detector)",
        "",
        "| measure | n | p50 | max | note |",
        "|---|---:|---:|---:|---|",
        row(
            "failover: kill → first admission on the new primary",
            [r.first for r in rounds],
            "promotion + the desks' reconnect (db/pg/primary.py) + their next press",
        ),
        row(
            "kill → promoted",
            [r.promoted for r in rounds],
            "pg_ctl stop -m immediate -w, then pg_ctl promote -w",
        ),
        row(
            "first admission → synchronous standby again",
            [r.standby for r in rounds],
            "pg_basebackup -R, until the primary reports it sync",
        ),
        f"| admissions reported done | {outcome['reported']} | | | "
        f"{outcome['pressed_again']} pressed again after a failure; longest press "
        f"{ms(outcome['longest_press'])}; given up: {outcome['gave_up']} |",
        f"| admissions lost (reported done, not in the file) | {outcome['lost']} | | | must be 0 |",
        f"| cards | {cards} | | | numbers 1..{top}; file checks (gapless, one valid card a "
        f"person, chain verified end to end): {outcome['checks']} |",
        f"| timeline at the end | {outcome['timeline']} | | | one per promotion |",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--settle", type=float, default=1.0, help="seconds of admissions a round")
    args = parser.parse_args(argv)
    tool = load_replication()
    base = Path(tempfile.mkdtemp(prefix="admission-bench-failover-"))
    pair = tool.PgReplication(base, desks=DESKS)
    with tempfile.TemporaryDirectory(prefix="admission-bench-failover-desks-") as folder:
        try:
            pair.start()
            rounds, outcome = run(args, pair, Path(folder))
        finally:
            pair.stop()
    print(table(args, rounds, outcome))
    return 0 if outcome["lost"] == 0 and outcome["checks"] == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())

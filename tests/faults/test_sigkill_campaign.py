"""Fault campaign: 1,000 admissions with SIGKILL at random points.

A child process admits visitors on the real encrypted file and acknowledges each
admission once it has committed; the parent kills it at a random moment, checks the
file, and starts it again, until at least 1,000 admissions were acknowledged. Every
acknowledged card is in the file (0 lost), numbers run 1..N (0 gaps, 0 duplicates),
every card has its visit and the audit trail verifies (art. 20.3, 22.1).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from db.keys import ENV_VAR, DbKey
from db.store import SqlCipherStore
from tests.db.test_crash import check_invariants

ROOT = Path(__file__).resolve().parents[2]
ADMISSIONS = 1_000
KILLS = 40  # at least: the campaign kills the writer this many times, at random moments


def _run_round(path: Path, env: dict[str, str], round_no: int, wait: float) -> list[int]:
    """Start the child, let it admit for ``wait`` seconds, SIGKILL it; the card numbers
    it acknowledged."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.db.crash_child", str(path), str(round_no)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stderr is not None
    first = child.stdout.readline().strip()
    assert first == "ready", child.stderr.read()
    acknowledged: list[int] = []

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith("card "):
                acknowledged.append(int(line.split()[1]))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(wait)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    reader.join(timeout=10)
    assert child.returncode == -signal.SIGKILL
    return acknowledged


@pytest.mark.slow
def test_a_thousand_admissions_under_sigkill_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "visitors.db"
    key_hex = os.urandom(32).hex()
    env = {**os.environ, ENV_VAR: key_hex, "PYTHONPATH": str(ROOT)}
    rng = random.Random(20261203)
    acknowledged: list[int] = []
    kills = 0
    while (len(acknowledged) < ADMISSIONS or kills < KILLS) and kills < 400:
        acknowledged += _run_round(path, env, kills, rng.uniform(0.0, 0.12))
        kills += 1
        with SqlCipherStore.open(path, DbKey.from_text(key_hex), create=False) as store:
            stored = check_invariants(store)  # gapless 1..N, visits and cards paired
            numbers = {int(r[0]) for r in store.connection.execute("SELECT number FROM cards")}
        lost = [n for n in acknowledged if n not in numbers]
        assert lost == []
        assert len(acknowledged) == len(set(acknowledged))  # no number given twice
        # committed but killed before it could say so: at most one per kill
        assert len(acknowledged) <= stored <= len(acknowledged) + kills
    assert len(acknowledged) >= ADMISSIONS and kills >= KILLS, (len(acknowledged), kills)
    print(
        f"\nSIGKILL campaign: {len(acknowledged)} admissions acknowledged, {kills} kills, "
        f"{stored} cards in the file, 0 lost, 0 gaps, 0 duplicates"
    )

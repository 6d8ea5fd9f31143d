"""Kill the process in the middle of admissions, again and again: every card has its
visit and vice versa, card numbers stay gapless 1..N, nothing is duplicated."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from db.keys import ENV_VAR, DbKey
from db.store import SqlCipherStore

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 12


def check_invariants(store: SqlCipherStore) -> int:
    conn = store.connection
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    numbers = [r[0] for r in conn.execute("SELECT number FROM cards ORDER BY number")]
    assert numbers == list(range(1, len(numbers) + 1))  # gapless, no duplicate
    assert store.last_card_number() == len(numbers)  # counter never ran ahead
    orphans = conn.execute(
        "SELECT count(*) FROM visits v WHERE NOT EXISTS "
        "(SELECT 1 FROM cards c WHERE c.visit_id = v.visit_id)"
    ).fetchone()[0]
    assert orphans == 0  # every visit has its card
    mismatched = conn.execute(
        "SELECT count(*) FROM cards c LEFT JOIN visits v ON v.visit_id = c.visit_id "
        "WHERE v.visit_id IS NULL OR v.file_number <> c.file_number"
    ).fetchone()[0]
    assert mismatched == 0  # every card has its visit
    voided_without_event = conn.execute(
        "SELECT count(*) FROM cards c WHERE status = 'VOIDED' AND NOT EXISTS (SELECT 1 FROM "
        "card_events e WHERE e.card_number = c.number AND e.kind = 'VOIDED')"
    ).fetchone()[0]
    assert voided_without_event == 0
    assert store.verify().ok
    return len(numbers)


@pytest.mark.slow
def test_sigkill_during_admissions_leaves_a_consistent_file(tmp_path: Path) -> None:
    path = tmp_path / "visitors.db"
    key_hex = os.urandom(32).hex()
    env = {**os.environ, ENV_VAR: key_hex, "PYTHONPATH": str(ROOT)}
    rng = random.Random(20261129)
    counts = []
    for round_no in range(ROUNDS):
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.db.crash_child", str(path), str(round_no)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert child.stdout is not None and child.stderr is not None
        assert child.stdout.readline().strip() == b"ready", child.stderr.read()
        time.sleep(rng.uniform(0.02, 0.35))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL
        with SqlCipherStore.open(path, DbKey.from_text(key_hex), create=False) as store:
            counts.append(check_invariants(store))
    assert counts == sorted(counts) and counts[-1] > counts[0] > 0  # admissions did happen

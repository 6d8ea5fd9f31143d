"""Fault campaign: SIGKILL a restore at each of its steps and at random moments.

A child process restores a backup (a few hundred visitors, on the real encrypted file)
into an empty data folder; the parent kills it at a named step (the copy made, the copy
checked with SQLite's side files open, the copy adopted, the marker written, the record
written, the copy renamed) or after a random delay. Then the next command runs, as an
operator would run it - ``audit verify``, a real process - and the folder must hold no
temporary copy (nor its ``-wal``/``-shm``), and its visitor file must be the old one (none:
the next command answers NO_FILE) or the whole new one (it verifies, FILE_RESTORED last),
never half (art. 20.4).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from db.audit_key import ENV_VAR as AUDIT_ENV
from db.audit_key import AuditKey
from db.backup import backup
from db.keys import ENV_VAR, DbKey
from db.restore import restore
from db.store import SqlCipherStore
from tests.db.factories import dni, entry

ROOT = Path(__file__).resolve().parents[2]
VISITORS = 300
STAGES = ("copied", "checked", "adopted", "marker", "record", "renamed")
NEW_AFTER = {"marker", "record", "renamed"}  # the marker written: the sweep finishes it
RANDOM_KILLS = 8
KEY_HEX = os.urandom(32).hex()
T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)  # within retention
AUDIT_HEX = AuditKey.generate(source="test").hex()


@pytest.fixture(scope="module")
def the_backup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("desk")
    saved = os.environ.get(AUDIT_ENV)
    os.environ[AUDIT_ENV] = AUDIT_HEX
    try:
        with SqlCipherStore.open(folder / "visitors.db", DbKey.from_text(KEY_HEX)) as store:
            for n in range(1, VISITORS + 1):
                store.record_admission(entry(n, T0 + timedelta(seconds=n)))
            out = folder.parent / "backup.db"
            backup(store, out, now=T0 + timedelta(hours=1))
    finally:
        if saved is None:
            os.environ.pop(AUDIT_ENV, None)
        else:
            os.environ[AUDIT_ENV] = saved
    return out


def _env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ADMISSION_")}
    return {**clean, ENV_VAR: KEY_HEX, AUDIT_ENV: AUDIT_HEX, "PYTHONPATH": str(ROOT)}


def _child(source: Path, folder: Path, stage: str = "") -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.db.restore_child", str(source), str(folder), stage],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline().strip() == "ready", child.stderr.read()
    return child


def _kill(child: subprocess.Popen[str]) -> None:
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)


def _next_command(folder: Path) -> tuple[int, dict[str, object]]:
    """``audit verify`` in a process of its own, as the operator's next command."""
    done = subprocess.run(
        [sys.executable, "main.py", "audit", "verify", "--data-dir", str(folder)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, json.loads(done.stdout)


def _temporaries(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if ".restore." in n or n.endswith(".tmp"))


def _old_or_new(folder: Path) -> str:
    """After the next command: no temporary left; the folder holds no file, or the
    whole restored one."""
    code, answer = _next_command(folder)
    assert _temporaries(folder) == [], answer
    if not (folder / "visitors.db").exists():
        assert not (folder / "visitors.db.marker").exists()
        assert (code, answer["error"]) == (3, "NO_FILE"), answer
        return "old"
    assert code == 0, answer
    with SqlCipherStore.open(
        folder / "visitors.db", DbKey.from_text(KEY_HEX), create=False
    ) as store:
        assert store.integrity_check(structure=True).ok
        assert store.verify().ok
        actions = [e.action for e in store.audit_entries(0, 100_000)]
        assert "FILE_RESTORED" in actions[-3:]  # then the next command's own entries
        assert store.find_visitor(dni(VISITORS)) is not None
    return "new"


@pytest.fixture(autouse=True)
def audit_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AUDIT_ENV, AUDIT_HEX)


@pytest.mark.slow
@pytest.mark.parametrize("stage", STAGES)
def test_a_restore_killed_at_each_step_leaves_the_old_or_the_new_file(
    stage: str, the_backup: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "data"
    child = _child(the_backup, folder, stage)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == f"at {stage}"
    _kill(child)
    # the kill left its temporary copy (with its side files once checked) until renamed
    assert bool(_temporaries(folder)) == (stage != "renamed")
    assert _old_or_new(folder) == ("new" if stage in NEW_AFTER else "old")
    if not (folder / "visitors.db").exists():  # the operator runs the restore again
        restore(the_backup, folder, DbKey.from_text(KEY_HEX))
        assert _old_or_new(folder) == "new"


@pytest.mark.slow
def test_restores_killed_at_random_moments_leave_no_copy_and_no_half_file(
    the_backup: Path, tmp_path: Path
) -> None:
    started = time.monotonic()
    whole = _child(the_backup, tmp_path / "timed")
    assert whole.stdout is not None
    assert whole.stdout.readline().strip() == "done"
    whole.wait(timeout=60)
    span = time.monotonic() - started
    rng = random.Random(20261205)
    outcomes = []
    for n in range(RANDOM_KILLS):
        folder = tmp_path / f"data{n}"
        child = _child(the_backup, folder)
        time.sleep(rng.uniform(0.0, span))
        _kill(child)
        outcomes.append(_old_or_new(folder) if folder.exists() else "old")
    assert set(outcomes) <= {"old", "new"}

"""The desk's rotating log (``ui.log_file``): written in the data folder by the command
line and by the window, owner-only, and free of personal data - the demo's invented
people (``ui.cli.demo``'s seed) and the smoke run's visitor never appear in it."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from admission.clock import SystemClock
from admission.generators.demo_people import demo_people
from admission.ports import madrid_date
from ui.cli.demo import SEED
from ui.desk.demo_start import DEMO_ACCOUNTS
from ui.log_file import LOG_BACKUPS, LOG_DIR, LOG_FILE, install_desk_log, log_files

ROOT = Path(__file__).resolve().parents[1]
MAIN = str(ROOT / "main.py")


def _env(**extra: str) -> dict[str, str]:
    drop = {"ADMISSION_DB_KEY", "ADMISSION_SMOKE", "ADMISSION_USER", "ADMISSION_PASSWORD"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def _main(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, MAIN, *argv],
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )


def demo_secrets() -> set[str]:
    """What the demo command admits (ui.cli.demo.run): names, DNI and document numbers."""
    today = madrid_date(SystemClock().now())
    people = demo_people(12, seed=SEED, today=today, minors=0.0)
    people += demo_people(1, seed=SEED + 1, today=today, minors=1.0)
    found: set[str] = set()
    for person in people:
        found |= {person.surname, person.given_names, person.passport, person.dni}
        found |= set(person.surname.split()) | set(person.given_names.split())
    return {s for s in found if len(s) >= 4}


def log_text(data: Path) -> str:
    files = log_files(data)
    assert files, f"no log in {data / LOG_DIR}"
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def test_the_demo_and_the_smoke_run_log_no_personal_data(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    done = _main("--demo", "demo", "--data-dir", str(data))
    assert done.returncode == 0, done.stderr[-2000:]
    admitted = {row["visitor"] for row in json.loads(done.stdout)["admissions"]}
    secrets = demo_secrets()
    assert {n.split()[0] for n in admitted} <= secrets  # the seed is the demo's own
    text = log_text(data)
    assert "INFO" in text  # the cards printed are there, by number
    assert [s for s in secrets if s in text.upper()] == []

    smoke = tmp_path / "smoke"
    done = _main("--demo", "--smoke", "--data-dir", str(smoke), QT_QPA_PLATFORM="offscreen")
    assert done.returncode == 0, done.stderr[-2000:]
    user, password = DEMO_ACCOUNTS[0][0], DEMO_ACCOUNTS[0][2]
    shown = _main("--demo", "visitor", "show", "1", "--data-dir", str(smoke),
                  ADMISSION_USER=user, ADMISSION_PASSWORD=password)  # fmt: skip
    assert shown.returncode == 0, shown.stdout[-2000:]
    visitor = json.loads(shown.stdout)
    words = {visitor["surname"], visitor["given_names"], visitor["identity"]}
    words |= set(visitor["surname"].split()) | {v["document_number"] for v in visitor["visits"]}
    text = log_text(smoke)
    assert [w for w in words if len(w) >= 4 and w in text.upper()] == []


@pytest.fixture
def root_logger() -> Iterator[logging.Logger]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield root
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_the_log_is_the_desk_user_s_only_and_rotates(
    tmp_path: Path, root_logger: logging.Logger
) -> None:
    path = install_desk_log(tmp_path)
    assert path == tmp_path / LOG_DIR / LOG_FILE
    assert install_desk_log(tmp_path) == path  # once: no second handler
    desk = [h for h in root_logger.handlers if getattr(h, "baseFilename", None) == str(path)]
    assert len(desk) == 1
    log = logging.getLogger("test.desk_log")
    log.debug("not kept")
    line = "x" * 1000
    for n in range(1500):  # about 1.5 MiB: one rollover
        log.info("%s %d", line, n)
    files = log_files(tmp_path)
    assert [f.name for f in files] == [LOG_FILE, f"{LOG_FILE}.1"]
    assert len(files) <= LOG_BACKUPS + 1
    assert stat.S_IMODE((tmp_path / LOG_DIR).stat().st_mode) == 0o700
    assert {stat.S_IMODE(f.stat().st_mode) for f in files} == {0o600}
    first = files[0].read_text(encoding="utf-8").splitlines()[0]
    assert " INFO test.desk_log: " in first and "not kept" not in log_text(tmp_path)


def test_a_folder_that_cannot_hold_the_log_does_not_stop_the_desk(
    tmp_path: Path, root_logger: logging.Logger, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / LOG_DIR).write_text("a file where the folder goes", encoding="utf-8")
    install_desk_log(tmp_path)
    logging.getLogger("test.desk_log").info("one")
    logging.getLogger("test.desk_log").info("two")
    assert capsys.readouterr().err.count("desk log: not written") == 1


def test_the_log_never_makes_the_data_folder(tmp_path: Path, root_logger: logging.Logger) -> None:
    missing = tmp_path / "not-yet"
    install_desk_log(missing)
    logging.getLogger("test.desk_log").info("before init")
    assert not missing.exists()
    missing.mkdir()
    logging.getLogger("test.desk_log").info("after init")
    assert "after init" in log_text(missing) and "before init" not in log_text(missing)

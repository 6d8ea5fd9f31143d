"""Child process for tests/faults/test_restore_kills.py: restores a backup into a data
folder and, when a stage is named, stops there (prints ``at STAGE`` and waits to be
killed); without one it runs to the end and prints ``done``.
Usage: python -m tests.db.restore_child BACKUP DATA_DIR [STAGE]
(keys in ADMISSION_DB_KEY and ADMISSION_AUDIT_KEY)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import db.restore as restore_module
from db.keys import key_from_env

# stage -> (the db.restore name wrapped, stop before (True) or after (False) it runs)
STAGES: dict[str, tuple[str, bool]] = {
    "copied": ("fsync_file", False),  # the backup copied to the temporary file
    "checked": ("assess", False),  # the copy open and checked, its -wal/-shm beside it
    "adopted": ("_put_in_place", True),  # counters and FILE_RESTORED inside the copy
    "marker": ("write_marker", False),  # the folder's marker written, nothing renamed
    "record": ("write_issued", False),  # issued.json written, nothing renamed
    "renamed": ("fsync_folder", True),  # the copy renamed into place
}


def _stop_at(stage: str) -> None:
    name, before = STAGES[stage]
    real: Callable[..., Any] = getattr(restore_module, name)

    def halt() -> None:
        print(f"at {stage}", flush=True)
        while True:
            time.sleep(60)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if before:
            halt()
        result = real(*args, **kwargs)
        halt()
        return result

    setattr(restore_module, name, wrapped)


def main(source: str, data_dir: str, stage: str = "") -> None:
    key = key_from_env()
    assert key is not None
    if stage:
        _stop_at(stage)
    print("ready", flush=True)
    restore_module.restore(Path(source), Path(data_dir), key)
    print("done", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])

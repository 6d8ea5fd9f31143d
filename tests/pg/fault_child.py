"""One desk's process for the fault tests (tests/pg/test_faults.py): it admits its own
visitors one after another while the server is killed and restarted under it, and
writes one JSON line per admission to its log as soon as the admission's outcome is
known (the parent reads the log to time the kill, and checks it against the server).

An admission's id is made before its first attempt (Decreto 58/2006, art. 22.1: the
card number an admission took is never taken twice). A call that fails is resolved the
way a desk must resolve it:

* the link broke (``PgLinkError``): if the outcome is unknown the desk first asks the
  server what became of that id (``recorded_admission``, once the server answers);
  either way it then asks again with the SAME id, which returns the recorded admission
  or records it once;
* no connection at all (``PG_UNREACHABLE``, the server is down): nothing was sent, the
  desk waits and asks again with the same id.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from admission.clock import FixedClock
from admission.errors import StoreError
from admission.records import RecordedAdmission
from db.audit_key import AuditKey
from db.pg.crypto import InstallationKey
from db.pg.store import PgLinkError, PgStore, PgTimeouts
from tests.db.factories import T0, entry, new_admission_id

PAUSE_S = 0.05  # between two tries while the server is away
GIVE_UP_S = 45.0  # a desk that cannot finish by then reports what it has


def person(desk: int, index: int) -> int:
    """The visitor number of a desk's ``index``-th admission (one card each, art. 22)."""
    return desk * 100_000 + index


def _resolve(
    store: PgStore, admission_id: str, deadline: float
) -> tuple[RecordedAdmission | None, str]:
    """What became of an admission whose commit outcome is unknown, once the server
    answers: the recorded admission, or None when it was not recorded."""
    while time.monotonic() < deadline:
        try:
            found = store.recorded_admission(admission_id)
        except StoreError:
            time.sleep(PAUSE_S)
            continue
        return found, "committed" if found is not None else "not committed"
    return None, "unresolved"


def run_desk(
    conninfo: str,
    raw_key: bytes,
    audit_hex: str,
    database_id: str,
    desk: int,
    count: int,
    log_path: str,
    timeouts: dict[str, Any],
    start_at: float,
) -> None:
    """``count`` admissions of this desk's own visitors from ``start_at`` (a
    ``time.time()``: every desk starts together), each logged as a JSON line: index,
    admission id, file, visit, card, the failures met and how they resolved."""
    deadline = time.monotonic() + GIVE_UP_S
    log = Path(log_path)
    with (
        PgStore.open(
            conninfo,
            InstallationKey(raw_key, "test"),
            audit_key=AuditKey.from_hex(audit_hex, "test"),
            database_id=database_id,
            clock=FixedClock(T0),
            max_connections=1,
            timeouts=PgTimeouts(**timeouts),
        ) as store,
        log.open("a", encoding="utf-8") as out,
    ):
        time.sleep(max(0.0, start_at - time.time()))
        for index in range(count):
            admission = replace(entry(person(desk, index)), desk_id=f"desk-{desk}")
            admission_id = new_admission_id()
            failures: list[list[Any]] = []
            resolutions: list[str] = []
            recorded: RecordedAdmission | None = None
            while recorded is None and time.monotonic() < deadline:
                try:
                    recorded = store.record_admission(admission, admission_id=admission_id)
                except PgLinkError as exc:
                    failures.append([exc.code.value, exc.outcome_unknown])
                    if exc.outcome_unknown:
                        found, how = _resolve(store, admission_id, deadline)
                        resolutions.append(how)
                        recorded = found
                except StoreError as exc:
                    failures.append([exc.code.value, False])
                    time.sleep(PAUSE_S)
            if recorded is None:
                break
            line = {
                "index": index,
                "admission_id": admission_id,
                "file": recorded.file_number,
                "visit": recorded.visit_id,
                "card": recorded.card_number,
                "failures": failures,
                "resolutions": resolutions,
            }
            out.write(json.dumps(line) + "\n")
            out.flush()

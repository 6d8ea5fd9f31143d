"""One desk's process for the failover test and its benchmark (tests/pg/test_failover.py,
tests/bench/bench_failover.py): an ``AdmissionDesk`` on a ``PgStore`` opened on both
servers of a primary and its standby (one multi-host conninfo, ``target_session_attrs=
read-write``), admitting new and returning visitors as a clerk does while the primary is
killed and the standby promoted under it.

A clerk's press that fails (the server gone, a lost answer, ``ADMISSION_OUTCOME_UNKNOWN``)
is pressed again with the SAME evaluation, so the same admission id, until it is recorded
(bounded): the store records it once (Decreto 58/2006, art. 22.1: one number, never two).
Each admission the desk saw done is written at once as a JSON line (admission id, card,
file, visit, the person's test number): the parent checks every line against the file.

One desk may be told to stop at a chosen point of one admission (``Pause``), by patching
this process only: it writes ``signal`` and waits for the parent's ``release`` file,
while the parent kills the primary and promotes the standby.

* ``before``: before the admission's transaction;
* ``head_locked``: inside it, the chain's head locked, nothing inserted;
* ``inserted``: every row inserted, COMMIT not sent;
* ``committing``: every row inserted, then (the parent holding the commit hold of
  tests/pg/test_failover.py: a deferred trigger waiting on an advisory lock) COMMIT is
  on the server, unfinished, its answer never to come: the desk cannot know whether it
  committed (the hold is the server's, so it does not depend on how psycopg pipelines);
* ``answered``: committed, answered and reported done.

The store follows the primary as a desk's does (db/pg/primary.py ``PrimaryFollower``:
the first writable host, never one on a timeline older than the newest it has seen).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from admission.clock import FixedClock
from admission.desk import AdmissionDesk, AdmissionResult, Evaluation
from admission.errors import StoreError
from admission.records import AdmissionEntry, RecordedAdmission
from db import visitors
from db.audit_key import AuditKey
from db.pg.crypto import InstallationKey
from db.pg.primary import PrimaryFollower
from db.pg.store import PgStore, PgTimeouts
from db.tx import Tx
from tests.factories import SATURDAY_NIGHT, dni_document, make_desk

POINTS = ("before", "head_locked", "inserted", "committing", "answered")
PAUSE_S = 0.02  # between two presses while no server answers
PRESS_FOR_S = 40.0  # a press not recorded by then is reported as given up
RELEASE_WAIT_S = 60.0  # the parent releases a stopped desk within this
REGULARS = 8  # people who come back, to any desk (one card each, art. 22)
CLERK = "clerk"


def person(desk: int, index: int) -> int:
    """The test number (a DNI's digits) of a desk's ``index``-th visitor: every third one
    is a regular, whom every desk sees; the others come once."""
    if index % 3 == 2:
        return 20_000_001 + (index * 7 + desk) % REGULARS
    return 10_000_000 + desk * 100_000 + index


@dataclass
class Pause:
    """Stop this desk once, at ``point`` of its ``at_index``-th admission."""

    point: str
    at_index: int
    signal: Path
    release: Path
    armed: bool = False

    def hold(self) -> None:
        self.armed = False
        self.signal.write_text(str(os.getpid()), encoding="utf-8")
        deadline = time.monotonic() + RELEASE_WAIT_S
        while not self.release.exists():
            if time.monotonic() > deadline:
                raise TimeoutError("the parent never released the desk")
            time.sleep(0.005)


def install(pause: Pause) -> None:
    """Patch this process's store or its admission statement (db/visitors.py)."""
    if pause.point == "before":
        record = PgStore.record_admission

        def before(
            self: PgStore, entry: AdmissionEntry, *, admission_id: str | None = None
        ) -> RecordedAdmission:
            if pause.armed:
                pause.hold()
            return record(self, entry, admission_id=admission_id)

        PgStore.record_admission = before  # type: ignore[method-assign]
    elif pause.point in ("head_locked", "inserted", "committing"):
        statement = visitors.record_admission

        def inside(tx: Tx, entry: AdmissionEntry, admission_id: str = "") -> RecordedAdmission:
            if pause.armed and pause.point == "head_locked":
                pause.hold()
            result = statement(tx, entry, admission_id)
            if pause.armed:  # inserted; committing: the parent holds the commits now
                pause.hold()
            return result

        visitors.record_admission = inside


def _evaluate(desk: AdmissionDesk, number: int, stop: Callable[[], bool]) -> Evaluation | None:
    """The document read until its evaluation is on screen (reads fail while no server
    answers: the clerk reads again); None when told to stop."""
    document = dni_document(number)
    while not stop():
        try:
            return desk.evaluate(document)
        except StoreError:
            time.sleep(PAUSE_S)
    return None


def _press(desk: AdmissionDesk, evaluation: Evaluation) -> tuple[AdmissionResult | None, list[str]]:
    """The clerk's key, pressed again with the same evaluation until it is recorded."""
    codes: list[str] = []
    deadline = time.monotonic() + PRESS_FOR_S
    while time.monotonic() < deadline:
        try:
            return desk.record(evaluation, operator=CLERK), codes
        except StoreError as exc:
            codes.append(str(exc.code.value if exc.code else type(exc).__name__))
            time.sleep(PAUSE_S)
    return None, codes


def run_desk(
    conninfo: str,
    raw_key: bytes,
    audit_hex: str,
    database_id: str,
    desk_number: int,
    log_path: str,
    stop_path: str,
    timeouts: dict[str, Any],
    pause: Pause | None = None,
    most: int = 100_000,
) -> None:
    """Once the store is open, write ``<log>.ready`` and wait for ``go`` beside
    ``stop_path`` (every desk starts on a live primary); then admit until ``stop_path``
    exists (or ``most`` admissions), one JSON line each."""
    if pause is not None:
        install(pause)
    stop_file = Path(stop_path)
    with (
        PgStore.open(
            conninfo,
            InstallationKey(raw_key, "test"),
            audit_key=AuditKey.from_hex(audit_hex, "test"),
            database_id=database_id,
            clock=FixedClock(SATURDAY_NIGHT),
            max_connections=2,
            timeouts=PgTimeouts(**timeouts),
            primary=PrimaryFollower(),
        ) as store,
        Path(log_path).open("a", encoding="utf-8") as out,
    ):
        Path(log_path + ".ready").touch()
        go, deadline = stop_file.with_name("go"), time.monotonic() + RELEASE_WAIT_S
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        desk, _clock, _registry = make_desk(store)
        desk.config = replace(desk.config, desk_id=f"DESK{desk_number}")
        for index in range(most):
            if stop_file.exists():
                break
            number = person(desk_number, index)
            evaluation = _evaluate(desk, number, stop_file.exists)
            if evaluation is None:
                break
            if pause is not None and index == pause.at_index and pause.point != "answered":
                pause.armed = True
            started = time.time()
            result, codes = _press(desk, evaluation)
            line: dict[str, Any] = {
                "desk": desk_number,
                "index": index,
                "person": number,
                "admission_id": evaluation.admission_id,
                "started": started,
                "done": time.time(),
                "failed_presses": codes,
            }
            if result is None:
                out.write(json.dumps({**line, "gave_up": True}) + "\n")
                out.flush()
                break
            recorded, held = result.recorded, result.existing_card
            line |= {
                "card": recorded.card_number,
                "existing_card": None if held is None else held.number,
                "file": recorded.file_number,
                "visit": recorded.visit_id,
                "verdict": result.verdict.outcome.value,
            }
            out.write(json.dumps(line) + "\n")
            out.flush()
            if pause is not None and index == pause.at_index and pause.point == "answered":
                pause.hold()

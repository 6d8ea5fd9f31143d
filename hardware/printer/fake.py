"""Scripted fake printer (STYLE.md rule 9, like python-escpos ``Dummy``).

Records every job and replays a script of outcomes, one per submitted job:

* ``OK``                the job completes
* ``NOT_FOUND``         preflight says the queue does not exist
* ``PAUSED``            preflight says the queue is disabled
* ``REJECTING``         preflight says the queue rejects jobs
* ``NO_MEDIA``          preflight says out of cards
* ``SUBMIT_ERROR``      ``submit`` raises DeviceError (spooler refused the file)
* ``VANISHED_MID_JOB``  the job is accepted, then the queue disappears
* ``FAILED``            the job is aborted by the system
* ``TIMEOUT``           the job never completes

When the script runs out, outcomes default to ``OK``.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from admission.devices import (
    DeviceErrorCode,
    DeviceStatus,
    JobResult,
    JobState,
    PageSize,
    PrinterState,
)
from admission.errors import DeviceError
from hardware.printer import refusal_code

__all__ = ["OUTCOMES", "FakeJob", "FakePrinter"]

OUTCOMES = frozenset(
    {
        "OK",
        "NOT_FOUND",
        "PAUSED",
        "REJECTING",
        "NO_MEDIA",
        "SUBMIT_ERROR",
        "VANISHED_MID_JOB",
        "FAILED",
        "TIMEOUT",
    }
)
_PREFLIGHT = {
    "NOT_FOUND": DeviceStatus.NOT_FOUND,
    "PAUSED": DeviceStatus.PAUSED,
    "REJECTING": DeviceStatus.REJECTING,
    "NO_MEDIA": DeviceStatus.NO_MEDIA,
}
_JOB = {
    "VANISHED_MID_JOB": JobState.VANISHED,
    "FAILED": JobState.FAILED,
    "TIMEOUT": JobState.TIMEOUT,
}


@dataclass(frozen=True, slots=True)
class FakeJob:
    job_id: str
    title: str
    page: PageSize
    pdf: bytes
    outcome: str


class FakePrinter:
    """A printer that does what its script says and remembers what it was asked."""

    def __init__(self, name: str = "FakeCards", script: Iterable[str] = ()) -> None:
        self._name = name
        self._script: deque[str] = deque()
        self.queue(script)
        self._ids = itertools.count(1)
        self.jobs: list[FakeJob] = []  # every submitted job, completed or not
        self.preflights = 0
        self._pending: dict[str, str] = {}

    @property
    def name(self) -> str:
        return self._name

    def queue(self, outcomes: Iterable[str]) -> None:
        for outcome in outcomes:
            if outcome not in OUTCOMES:
                raise ValueError(f"unknown fake printer outcome {outcome!r}")
            self._script.append(outcome)

    @property
    def completed(self) -> list[FakeJob]:
        return [job for job in self.jobs if job.outcome == "OK"]

    def _peek(self) -> str:
        return self._script[0] if self._script else "OK"

    def preflight(self) -> PrinterState:
        self.preflights += 1
        outcome = self._peek()
        if outcome in _PREFLIGHT:
            self._script.popleft()  # a failed preflight consumes its outcome
            return PrinterState(_PREFLIGHT[outcome], f"scripted {outcome}")
        return PrinterState(DeviceStatus.READY)

    def submit(self, pdf: bytes, *, title: str, page: PageSize) -> str:
        outcome = self._script.popleft() if self._script else "OK"
        if outcome == "SUBMIT_ERROR":
            raise DeviceError("scripted spooler refusal", code=DeviceErrorCode.PRINT_SUBMIT_FAILED)
        if outcome in _PREFLIGHT:  # preflight was skipped: the spooler refuses
            raise DeviceError(f"scripted {outcome}", code=refusal_code(_PREFLIGHT[outcome]))
        job_id = f"{self._name}-{next(self._ids)}"
        self.jobs.append(FakeJob(job_id, title, page, pdf, outcome))
        self._pending[job_id] = outcome
        return job_id

    def follow(self, job_id: str, *, timeout: float = 60.0) -> JobResult:
        outcome = self._pending.pop(job_id, None)
        if outcome is None:
            raise DeviceError("unknown job", code=DeviceErrorCode.PRINT_UNKNOWN_JOB)
        state = _JOB.get(outcome, JobState.COMPLETED)
        detail = "" if state is JobState.COMPLETED else f"scripted {outcome}"
        return JobResult(job_id, state, detail)

"""The desk's operation runner and its one change broadcast (as Anki's
``operation_did_execute``).

A write to the visitor file - an admission recorded, a provisional voucher queued, the
queue sent to the server, a visitor's data rectified - runs through
:meth:`DeskOperations.write` on the store worker; once it has succeeded,
``operation_did_execute`` says what it changed (:class:`OpChanges`) and who asked
(``origin``). Settings saved to their file are announced the same way
(:meth:`DeskOperations.announce`). The screens that show what changed subscribe and read
again, instead of calling each other's refresh methods: the counters and the rules in
force (the controller), the provisional vouchers waiting (the window), the figures and
the inspector's screen.

A dialog whose every job is such a write is given :meth:`DeskOperations.runner_for`, a
plain :class:`ui.desk.jobs.JobRunner` that broadcasts after each job it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from PySide6.QtCore import QObject, Signal

from admission.errors import AdmissionError
from ui.desk.jobs import JobRunner

__all__ = ["DeskOperations", "OpChanges"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class OpChanges:
    """What one store operation changed."""

    admissions: bool = False  # a visit recorded: the day's counters (arts. 20, 22)
    cards: bool = False  # a card issued, printed, voided or reprinted
    queue: bool = False  # the desk's provisional vouchers without a server number
    people: bool = False  # a visitor's name or an observation rectified (GDPR art. 16)
    settings: tuple[str, ...] = ()  # the keys saved to the settings file (never a value)


class DeskOperations(QObject):
    """Runs the window's store writes on ``runner`` and broadcasts each one done."""

    # OpChanges, and the object that asked for the operation (None: the desk itself)
    operation_did_execute = Signal(object, object)

    def __init__(self, runner: JobRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner = runner

    def write(
        self,
        changes: OpChanges,
        job: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[AdmissionError], None] | None = None,
        *,
        origin: object | None = None,
    ) -> None:
        """Run the write ``job`` on the store worker; ``done`` with its answer, then the
        broadcast. A job that answers None wrote nothing (a stale verdict, an empty
        queue), nor does a failed one (``failed`` only): no broadcast."""

        def wrote(answer: T) -> None:
            done(answer)
            if answer is not None:
                self.operation_did_execute.emit(changes, origin)

        self._runner.submit(job, wrote, failed)

    def announce(self, changes: OpChanges, *, origin: object | None = None) -> None:
        """Broadcast a change already made off the store worker (the settings file)."""
        self.operation_did_execute.emit(changes, origin)

    def runner_for(self, changes: OpChanges, *, origin: object | None = None) -> JobRunner:
        """A job runner whose every job is a write of ``changes`` (for a dialog)."""
        return _Writes(self, changes, origin)


class _Writes:
    def __init__(self, operations: DeskOperations, changes: OpChanges, origin: object) -> None:
        self._operations = operations
        self._changes = changes
        self._origin = origin

    def submit(
        self,
        job: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[AdmissionError], None] | None = None,
    ) -> None:
        self._operations.write(self._changes, job, done, failed, origin=self._origin)

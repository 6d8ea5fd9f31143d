"""How the window's pieces run work on the visitor file: a job runner port.

The real runner is :class:`ui.desk.workers.StoreWorker` (one thread owns every file call, so
a slow disk never freezes the window); :class:`ImmediateRunner` runs the job at once on
the caller's thread, for tests of a dialog alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from admission.errors import AdmissionError

__all__ = ["ImmediateRunner", "JobRunner"]

T = TypeVar("T")


class JobRunner(Protocol):
    def submit(
        self,
        job: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[AdmissionError], None] | None = None,
    ) -> None:
        """Run ``job`` off the GUI thread; call ``done`` with its answer, or ``failed``
        with the domain's error, back on the GUI thread."""
        ...


class ImmediateRunner:
    """Runs each job at once, on the calling thread."""

    def submit(
        self,
        job: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[AdmissionError], None] | None = None,
    ) -> None:
        try:
            answer = job()
        except AdmissionError as exc:
            if failed is None:
                raise
            failed(exc)
            return
        done(answer)

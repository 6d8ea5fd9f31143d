"""``FakeStore``: the in-memory store (db/memory.py: the real rules on an in-memory
SQLite database) with what a test of the desk scripts around it: every admission and
audit append asked is recorded in ``calls``; ``fail_next(method, error)`` makes the
next ``record_admission`` or ``append`` raise; ``lose_next_answer(error)`` records the
next admission and raises ``error`` instead of its answer (a server's link cut while it
committed). An admission id is recorded once, as on the server (db/pg/store.py).
"""

from __future__ import annotations

from datetime import datetime

from admission.errors import AdmissionError
from admission.ports import Clock
from admission.records import AdmissionEntry, RecordedAdmission
from db.audit_key import AuditKey
from db.memory import MemoryStore


class FakeStore(MemoryStore):
    def __init__(self, clock: Clock | None = None, audit_key: AuditKey | None = None) -> None:
        super().__init__(clock, audit_key)
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        self._failures: dict[str, list[AdmissionError]] = {}
        self._lost_answers: list[AdmissionError] = []
        self._admissions: dict[str, RecordedAdmission] = {}

    def fail_next(self, method: str, error: AdmissionError) -> None:
        """The next ``method`` (``record_admission`` or ``append``) raises ``error``."""
        self._failures.setdefault(method, []).append(error)

    def lose_next_answer(self, error: AdmissionError) -> None:
        """The next admission is recorded, then ``error`` is raised instead of its answer
        (a server's link cut while it committed: ``error.outcome_unknown``)."""
        self._lost_answers.append(error)

    def _scripted(self, method: str, *args: object) -> None:
        self.calls.append((method, args))
        queue = self._failures.get(method)
        if queue:
            raise queue.pop(0)

    def record_admission(self, entry: AdmissionEntry) -> RecordedAdmission:
        self._scripted("record_admission", entry)
        if entry.admission_id and entry.admission_id in self._admissions:
            return self._admissions[entry.admission_id]
        recorded = super().record_admission(entry)
        if entry.admission_id:
            self._admissions[entry.admission_id] = recorded
        if self._lost_answers:
            raise self._lost_answers.pop(0)
        return recorded

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int:
        self._scripted("append", actor, action, subject, at, details)
        return super().append(actor, action, subject, at, details)

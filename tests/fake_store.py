"""``FakeStore``: the in-memory visitor file (db/memory.py) with its ports scripted, so a
test of the desk exercises the real rules and can still make a call fail."""

from __future__ import annotations

from typing import Any

from admission.errors import AdmissionError
from admission.ports import Clock
from admission.records import AdmissionEntry, RecordedAdmission
from db.audit_key import AuditKey
from db.memory import MemoryStore


class FakeStore(MemoryStore):
    """Each admission and audit append recorded in ``calls``; an admission id recorded
    once, as on the server (db/pg/store.py)."""

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

    def append(self, *args: Any, **kwargs: Any) -> int:
        self._scripted("append", *args, *kwargs.values())
        return super().append(*args, **kwargs)

"""``MemoryStore``: the visitor file's rules on an in-memory SQLite database - the same code,
schema, migrations and keyed audit chain as the SQLCipher file. The fake of the store's
ports (``FakeStore`` scripts it): a test of the desk exercises the real rules (gapless card
numbers, art. 22.1; one valid card per person, art. 22; the purge, art. 20.4)."""

from __future__ import annotations

import sqlite3
from typing import Any

from admission.errors import AdmissionError
from admission.ports import Clock
from admission.records import AdmissionEntry, RecordedAdmission
from db.audit_key import AuditKey
from db.connection import configure
from db.store import SqlCipherStore


class MemoryStore(SqlCipherStore):
    """A visitor file in memory, gone when closed. Not encrypted: never for real data."""

    def __init__(self, clock: Clock | None = None, audit_key: AuditKey | None = None) -> None:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        configure(conn)  # nothing on a disk to leave open if it fails
        super().__init__(conn, None, encrypted=False, clock=clock)
        self.use_audit_key(audit_key or AuditKey.generate("memory"))


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

"""Officials on duty (art. 24, R13): their identity and capacity recorded as a visit,
with no card, no payment and no play."""

from __future__ import annotations

from dataclasses import dataclass

from admission.desk import AdmissionDesk, DeskDocument
from admission.records import RecordedAdmission
from ui.context import AppContext

__all__ = ["OfficialOps", "of"]


@dataclass(frozen=True, slots=True)
class OfficialOps:
    desk: AdmissionDesk

    def record(self, document: DeskDocument, capacity: str, operator: str) -> RecordedAdmission:
        return self.desk.register_official(document, capacity=capacity, operator=operator)


def of(ctx: AppContext) -> OfficialOps:
    return OfficialOps(ctx.desk)

"""The visitor file's data protection: a person's file read for a stated purpose (the
access report's reading, audited: GDPR art. 15), their name or an observation rectified
(art. 16), the report written as a PDF, and what the file holds against the six months
of art. 20.4 (counts only)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from admission.accounts import Operator
from admission.data_protection import DataProtectionService
from admission.desk_ports import ExportTargets
from admission.records import Observation, Visitor
from admission.reports import ReportService
from ui.context import AppContext

__all__ = ["DataProtectionOps", "of"]


@dataclass(frozen=True, slots=True)
class DataProtectionOps:
    service: DataProtectionService  # rectifications and the retention overview
    reports: ReportService  # the access report (the director only)
    export_target: ExportTargets  # where the report's PDF is written

    def subject(
        self, operator: Operator, purpose: str, number: int
    ) -> tuple[Visitor, Sequence[Observation]]:
        """The person and their observations, read as the access report reads them."""
        report = self.reports.access_report(operator, purpose, file_number=number)
        return report.visitor, report.observations


def of(ctx: AppContext) -> DataProtectionOps:
    return DataProtectionOps(
        DataProtectionService(ctx.reads, ctx.clock), ctx.reports, ctx.export_target
    )

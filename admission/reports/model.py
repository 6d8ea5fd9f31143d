"""The reports' values and the ports they go through: the codes, the casino's header,
the figures, the daily visitor book, the access report, and the protocols of the
renderer, the export target, the audit and the store behind the reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum, unique
from typing import Protocol

from admission.codes import Code
from admission.errors import AdmissionError
from admission.inspection import (
    InspectionAudit,
    InspectionReader,
    Timeline,
    TimelineEntry,
)
from admission.records import (
    AuditHead,
    Ban,
    Observation,
    StaffMember,
    Visitor,
)

MAX_RANGE_DAYS = 366  # the director's figures: at most a year at a time


@unique
class ReportCode(Code):
    """Why a report or an export is refused or not written."""

    REPORT_ROLE_REQUIRED = "REPORT_ROLE_REQUIRED"  # the role the report needs
    EXPORT_DISK_FULL = "EXPORT_DISK_FULL"  # ENOSPC: nothing written
    EXPORT_READ_ONLY = "EXPORT_READ_ONLY"  # EROFS/EACCES/EPERM: nothing written
    EXPORT_FAILED = "EXPORT_FAILED"  # any other write error: nothing left behind
    EXPORT_FORMAT_INVALID = "EXPORT_FORMAT_INVALID"  # not PDF/CSV, or not for this report
    ACCESS_SUBJECT_UNKNOWN = "ACCESS_SUBJECT_UNKNOWN"  # no file of that person
    ACCESS_SUBJECT_REQUIRED = "ACCESS_SUBJECT_REQUIRED"  # a file number or an id number
    ACCESS_SUBJECT_AMBIGUOUS = "ACCESS_SUBJECT_AMBIGUOUS"  # an id number of several files
    REPORT_DATE_INVALID = "REPORT_DATE_INVALID"  # from after to, or over a year


class ReportError(AdmissionError):
    code: Code = ReportCode.EXPORT_FAILED


class ExportFormat(StrEnum):
    PDF = "pdf"
    CSV = "csv"


@dataclass(frozen=True, slots=True)
class CasinoInfo:
    """The casino's header on every page (settings casino.name, casino.id, casino.address)."""

    name: str
    casino_id: str
    address: str


@dataclass(frozen=True, slots=True)
class ReportMeta:
    """What heads a report: the casino, the title, who exported it and when, the query
    (label, value) as asked."""

    title: str
    casino_name: str
    casino_id: str
    casino_address: str
    exported_by: str  # user name
    exported_by_name: str  # display name
    exported_at: datetime
    query: tuple[tuple[str, str], ...]
    # the language of the CSV's headers and of the labels beside its codes ("es", "en")
    language: str = "es"


@dataclass(frozen=True, slots=True)
class FigureCounts:
    """The store's aggregates over a UTC range (:meth:`ReportStore.figure_counts`),
    turned into Madrid hours and days by :func:`figures_from_counts`."""

    by_hour: tuple[tuple[datetime, int, int], ...]  # UTC hour start, admissions, refusals
    card_types: tuple[tuple[str, int, int], ...]  # type, cards not voided, their cents
    voided: int  # cards issued in the range and voided since
    reasons: tuple[tuple[str, int], ...]  # reason code, refused visits giving it
    visitors: int  # distinct people with a visit in the range (re-entries aside)
    # art. 22: re-entries on a card held - neither refusals nor visits
    reentries: int = 0
    # not admitted, not refused: the RIAJ unavailable (art. 20.1-2), dismissed
    not_admitted: int = 0
    not_admitted_reasons: tuple[tuple[str, int], ...] = ()  # reason code, count


@dataclass(frozen=True, slots=True)
class Figures:
    """The director's figures over Madrid days ``date_from``..``date_to`` (inclusive).
    Revenue counts the price of the cards issued, voided cards excluded."""

    date_from: date
    date_to: date
    per_hour: tuple[int, ...]  # 24 Madrid hours, admissions
    per_day: tuple[tuple[date, int], ...]  # every day of the range, admissions
    card_types: tuple[tuple[str, int], ...]  # type, cards (not voided)
    revenue_cents: int
    revenue_by_type: tuple[tuple[str, int], ...]
    refusals: tuple[tuple[str, int], ...]  # reason code, count
    admissions: int
    refused: int
    visitors: int
    voided: int = 0
    refused_per_hour: tuple[int, ...] = (0,) * 24
    reentries: int = 0  # re-entries on a card held (art. 22): not refusals, not visits
    not_admitted: int = 0  # neither admitted nor refused: the RIAJ unavailable, dismissed
    not_admitted_reasons: tuple[tuple[str, int], ...] = ()  # reason code, count


@dataclass(frozen=True, slots=True)
class DayBookLine:
    """One visit of the day: who, with which document, the verdict and its reasons,
    and the card it gave."""

    at: datetime
    file_number: int
    surname: str
    given_names: str
    identity: str  # the identity's text, KIND:COUNTRY:NUMBER
    document_type: str
    verdict: str
    reasons: tuple[str, ...]
    card_number: int | None
    card_type: str
    price_cents: int
    desk_id: str
    operator: str
    card_voided: bool = False


@dataclass(frozen=True, slots=True)
class DayBook:
    """The daily visitor book; ``audit_head`` is printed to be kept outside the file."""

    day: date
    lines: tuple[DayBookLine, ...]
    figures: Figures
    audit_head: AuditHead


@dataclass(frozen=True, slots=True)
class AccessReport:
    """Everything the file holds about one person (GDPR art. 15)."""

    visitor: Visitor
    timeline: tuple[TimelineEntry, ...]
    observations: tuple[Observation, ...]
    bans: tuple[Ban, ...]
    staff: StaffMember | None
    consultations: int  # audit entries whose subject is this file


@dataclass(frozen=True, slots=True)
class RenderedExport:
    format: ExportFormat
    rows: int
    digest: str  # SHA-256 hex of the canonical content (csv_text)
    size: int  # bytes written


class ExportTarget(Protocol):
    """Where an export goes (``hardware/printer/export_file.py`` FileExportTarget)."""

    def write(self, data: bytes) -> None:
        """Atomic: the whole file or nothing; ReportError EXPORT_* when it fails."""
        ...

    def discard(self) -> None:
        """Remove what :meth:`write` put there (the audit append failed)."""
        ...

    @property
    def name(self) -> str:
        """The file name only, for the audit entry."""
        ...


class ExportAudit(Protocol):
    """Where an export is recorded: the visitor file's audit trail."""

    def append(
        self, actor: str, action: str, subject: str, at: datetime, details: dict[str, str]
    ) -> object: ...


class ReportRenderer(Protocol):
    """PDF and CSV of the reports (``hardware/printer/reports.py`` ReportlabRenderer)."""

    def visitors(
        self, meta: ReportMeta, visitors: Sequence[Visitor], fmt: ExportFormat
    ) -> bytes: ...

    def timeline(self, meta: ReportMeta, timeline: Timeline, fmt: ExportFormat) -> bytes: ...

    def day_book(self, meta: ReportMeta, book: DayBook) -> bytes: ...

    def access_report(self, meta: ReportMeta, report: AccessReport) -> bytes: ...


class ReportStore(InspectionReader, InspectionAudit, Protocol):
    """The reads behind the reports (``db/reports.py``, one for every dialect) plus
    the inspectors' reads and the audit trail."""

    def day_book_lines(self, start: datetime, until: datetime) -> Sequence[DayBookLine]:
        """Visits with ``start <= at < until`` (UTC), by time, with visitor and card."""
        ...

    def figure_counts(self, start: datetime, until: datetime) -> FigureCounts: ...

    def access_report_data(self, file_number: int) -> AccessReport | None: ...

    def head(self) -> AuditHead: ...


# -- canonical content ----------------------------------------------------------------

"""The director's and the inspectors' reports and exports of the visitor file.

Art. 20.4 of Decreto 58/2006 keeps the visitor file confidential and open to the gaming
inspectors of the Comunidad; art. 14.1.b makes the game director answer for it; GDPR
art. 15 gives every person access to what is held about them. :class:`ReportService`
is the one door for the paper (and CSV) that leaves the file:

* ``export_search`` / ``export_timeline`` - an inspector's search or one person's
  visits, as PDF or CSV (INSPECTOR or DIRECTOR, with a stated purpose);
* ``day_book`` / ``export_day_book`` - the daily visitor book: every visit of a Madrid
  day with its verdict, reasons and card, the day's figures and the audit chain's head
  to keep outside the file (DIRECTOR or INSPECTOR);
* ``figures`` - admissions per hour and per day, card types, revenue, refusals by
  reason (DIRECTOR or INSPECTOR; no personal data);
* ``access_report`` / ``export_access_report`` - everything held about one person
  (GDPR art. 15; the DIRECTOR only, who answers for the file).

The roles are checked here, in the service, so every front end gets them. Every report
and export appends one audit entry (INSPECT_EXPORT, REPORT_DAY, REPORT_FIGURES,
ACCESS_REPORT) with the user name, the role used, the purpose, the format, the number
of rows, the content's digest and the file name; names, identity numbers and free text
only as the store's keyed hash, as :mod:`admission.inspection` records its queries.

An export goes render -> ``target.write`` (atomic) -> audit append; when the append
fails the written file is discarded and the error raised: no export leaves the file
without its entry in the trail.

The content's digest is the SHA-256 of its canonical text: the CSV the same rows make
(:func:`csv_text`, without the byte-order mark). The PDF prints it on every page, so an
inspector checks a printout against the trail (and a CSV file by hashing it without its
first three bytes).
"""

from admission.reports.exports import ReportService, deliver_export
from admission.reports.model import (
    MAX_RANGE_DAYS,
    AccessReport,
    CasinoInfo,
    DayBook,
    DayBookLine,
    ExportAudit,
    ExportFormat,
    ExportTarget,
    FigureCounts,
    Figures,
    RenderedExport,
    ReportCode,
    ReportError,
    ReportMeta,
    ReportRenderer,
    ReportStore,
)
from admission.reports.rows import (
    access_rows,
    content_digest,
    csv_bytes,
    csv_text,
    day_book_rows,
    figures_from_counts,
    local,
    money,
    timeline_rows,
    visitor_rows,
)

__all__ = [
    "MAX_RANGE_DAYS",
    "AccessReport",
    "CasinoInfo",
    "DayBook",
    "DayBookLine",
    "ExportAudit",
    "ExportFormat",
    "ExportTarget",
    "FigureCounts",
    "Figures",
    "RenderedExport",
    "ReportCode",
    "ReportError",
    "ReportMeta",
    "ReportRenderer",
    "ReportService",
    "ReportStore",
    "access_rows",
    "content_digest",
    "csv_bytes",
    "csv_text",
    "day_book_rows",
    "deliver_export",
    "figures_from_counts",
    "local",
    "money",
    "timeline_rows",
    "visitor_rows",
]

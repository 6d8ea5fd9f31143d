"""``report day DATE --out FILE.pdf --as NAME``: the daily visitor book of a Madrid day
as a PDF - every visit with its verdict, reasons and card, the day's figures with
charts, and the audit chain's head to keep outside the file (arts. 14.1.b, 20.4). And
``report figures FROM TO --as NAME``: the director's figures as JSON (no personal data).

The game director or a gaming inspector signs in with ``--as`` (the password from
``ADMISSION_PASSWORD``, else asked on the terminal). The rules - roles, dates, the
audit entry - are :class:`admission.reports.ReportService`'s; the file is written whole
or not at all (``ctx.export_target``). The answer names the file, its size, its row
count and the SHA-256 printed on every page (the same as in the audit entry).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from admission.accounts import Operator
from admission.errors import AdmissionError
from admission.inspection import InspectionCode, InspectionError
from admission.reports import Figures, RenderedExport, ReportCode, ReportError
from ui.cli.args import add_output_arguments, date_argument
from ui.cli.result import Command, CommandResult, ExitCode, error
from ui.cli.sign_in import Refusal, SignInCode, operator
from ui.context import AppContext

__all__ = ["COMMAND", "export_json", "refusal", "signed_in", "who_arguments"]

_WRITE_ERRORS = (
    ReportCode.EXPORT_DISK_FULL,
    ReportCode.EXPORT_READ_ONLY,
    ReportCode.EXPORT_FAILED,
)
_USAGE = (
    InspectionCode.INSPECT_NO_CRITERIA,
    ReportCode.ACCESS_SUBJECT_REQUIRED,
    ReportCode.EXPORT_FORMAT_INVALID,
)


def who_arguments(parser: argparse.ArgumentParser, *, purpose: bool) -> None:
    """``--as NAME`` (and ``--purpose TEXT`` where the report states one)."""
    parser.add_argument(
        "--as",
        dest="user",
        metavar="NAME",
        required=True,
        help="who signs in; the password from $ADMISSION_PASSWORD, else asked on the terminal",
    )
    if purpose:
        parser.add_argument("--purpose", required=True, help="what the report is for (3-200)")


def signed_in(args: argparse.Namespace, ctx: AppContext) -> Operator:
    """The account of ``--as``, signed in before anything is read."""
    signed = operator(args, ctx)
    if signed is None:  # a file without accounts has no director nor inspector
        raise Refusal(ExitCode.USAGE, SignInCode.NO_ACCOUNTS, "the file has no account")
    return signed


def refusal(refused: AdmissionError) -> CommandResult:
    """A refused report as JSON: the command line's fault (2), a write that failed (3)
    - nothing was left at ``--out`` - or a refusal (1)."""
    if refused.code in _USAGE:
        code = ExitCode.USAGE
    elif refused.code in _WRITE_ERRORS:
        code = ExitCode.UNAVAILABLE
    else:
        code = ExitCode.REFUSED
    return error(code, refused.code, str(refused))


def export_json(done: RenderedExport, path: Path) -> dict[str, Any]:
    return {
        "path": str(path),
        "format": done.format.value,
        "rows": done.rows,
        "size": done.size,
        "digest": done.digest,
    }


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="report_command", required=True)
    day = sub.add_parser(
        "day",
        parents=[common],
        help="the daily visitor book of a Madrid day as a PDF (audited)",
        description="Every visit of the day with its verdict, reasons and card, the "
        "figures with charts and the audit head to keep outside the file. The game "
        "director or a gaming inspector.",
    )
    day.add_argument("date", type=date_argument, help="the Madrid day, YYYY-MM-DD")
    add_output_arguments(day, required=True, what="the PDF file to write")
    who_arguments(day, purpose=True)  # every name and document of the day (art. 20.4)
    figures = sub.add_parser(
        "figures",
        parents=[common],
        help="admissions per hour and day, cards, revenue, refusals (JSON, audited)",
    )
    figures.add_argument("date_from", type=date_argument, help="first Madrid day")
    figures.add_argument("date_to", type=date_argument, help="last Madrid day (a year at most)")
    who_arguments(figures, purpose=False)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    who = signed_in(args, ctx)
    try:
        if args.report_command == "figures":
            return ExitCode.OK, _figures_json(
                ctx.reports.figures(who, args.date_from, args.date_to)
            )
        done = ctx.reports.export_day_book(
            who, args.date, ctx.export_target(args.out, force=args.force), purpose=args.purpose
        )
    except (ReportError, InspectionError) as refused:
        return refusal(refused)
    return ExitCode.OK, export_json(done, args.out)


def _figures_json(figures: Figures) -> dict[str, Any]:
    return {
        "from": figures.date_from.isoformat(),
        "to": figures.date_to.isoformat(),
        "admissions": figures.admissions,
        "refused": figures.refused,
        "visitors": figures.visitors,
        "per_hour": list(figures.per_hour),
        "refused_per_hour": list(figures.refused_per_hour),
        "per_day": {day.isoformat(): n for day, n in figures.per_day},
        "card_types": dict(figures.card_types),
        "voided": figures.voided,
        "revenue_cents": figures.revenue_cents,
        "revenue_by_type": dict(figures.revenue_by_type),
        "refusals": dict(figures.refusals),
        # art. 22: re-entries on a card held are neither refusals nor visits; the not
        # admitted (the RIAJ unavailable, an admission dismissed) are no refusals either
        "reentries": figures.reentries,
        "not_admitted": figures.not_admitted,
        "not_admitted_reasons": dict(figures.not_admitted_reasons),
    }


COMMAND = Command[AppContext](
    "report", "the daily visitor book and the director's figures (art. 14.1.b)", _arguments, run
)

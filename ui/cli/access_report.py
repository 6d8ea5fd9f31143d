"""``access-report ID --out FILE.pdf --as NAME --purpose TEXT``: everything the visitor
file holds about one person, as a PDF, to answer an access request (GDPR art. 15).

``ID`` is the identity number (as on the document; spaces, dashes and dots ignored);
``--file N`` names the file number instead. The game director only (art. 14.1.b: the
director answers for the file); audited ACCESS_REPORT with the identity as a keyed
hash, never in clear. The file is written whole or not at all.
"""

from __future__ import annotations

import argparse

from admission.inspection import InspectionError
from admission.reports import ReportError
from ui.cli.args import add_output_arguments, bounded_int
from ui.cli.report import export_json, refusal, signed_in, who_arguments
from ui.cli.result import Command, CommandResult, ExitCode
from ui.context import AppContext

__all__ = ["COMMAND"]


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.description = (
        "Everything held about one person (GDPR art. 15) as a PDF: the file, the visits "
        "with their cards, observations, bans, staff entry and how many audit entries "
        "name the file. The game director only."
    )
    parser.add_argument("id_number", nargs="?", default=None, metavar="ID",
                        help="the person's identity number")  # fmt: skip
    parser.add_argument("--file", dest="file_number", type=bounded_int(1, 999_999_999),
                        default=None, help="the file number instead of ID")  # fmt: skip
    add_output_arguments(parser, required=True, what="the PDF file to write")
    who_arguments(parser, purpose=True)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    who = signed_in(args, ctx)
    try:
        done = ctx.reports.export_access_report(
            who,
            args.purpose,
            ctx.export_target(args.out, force=args.force),
            file_number=args.file_number,
            id_number=args.id_number,
        )
    except (ReportError, InspectionError) as refused:
        return refusal(refused)
    return ExitCode.OK, export_json(done, args.out)


COMMAND = Command[AppContext](
    "access-report", "what the file holds about a person (GDPR art. 15)", _arguments, run
)

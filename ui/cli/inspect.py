"""``inspect search``, ``inspect timeline FILE`` and ``inspect export``: the gaming
inspectors' read-only queries of the visitor file (art. 20.4: confidential, open to the
gaming inspectors), and their export to a PDF or CSV file (``--out``), written whole or
not at all and audited INSPECT_EXPORT with the content's digest.

``--as NAME`` signs the inspector in (the password from ``ADMISSION_PASSWORD``, else
asked on the terminal); ``--purpose TEXT`` says what the query is for. The rules - who
may ask, the purpose, the criteria, the audit entry of every query - are
:class:`admission.inspection.InspectionService`'s; this module only parses and answers
JSON.
"""

from __future__ import annotations

import argparse
from typing import Any

from admission.accounts import Operator
from admission.inspection import (
    MAX_LIMIT,
    InspectionCode,
    InspectionError,
    InspectionService,
    Timeline,
)
from admission.records import Visitor
from admission.reports import ExportFormat, ReportError
from ui.cli.args import (
    CARD_NUMBER,
    add_output_arguments,
    bounded_int,
    date_argument,
    record_json,
)
from ui.cli.report import export_json, refusal
from ui.cli.result import Command, CommandResult, ExitCode, error
from ui.cli.sign_in import Refusal, SignInCode, operator
from ui.context import AppContext

FILE_NUMBER = bounded_int(1, 999_999_999)


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="inspect_command", required=True)
    search = sub.add_parser(
        "search", parents=[common], help="search the visitor file (audited, art. 20.4)"
    )
    _who(search)
    _criteria(search)
    timeline = sub.add_parser(
        "timeline", parents=[common], help="one person's visits in order (audited)"
    )
    timeline.add_argument("file", type=FILE_NUMBER, help="file number")
    _who(timeline)
    export = sub.add_parser(
        "export",
        parents=[common],
        help="a search, or one person's visits, as a PDF or CSV file (audited)",
        description="Exports what 'inspect search' finds, with the same criteria, to "
        "--out. '--file N' alone exports that person's visits (the timeline) instead; "
        "with other criteria it narrows the search. The PDF prints the SHA-256 of its "
        "content on every page, the same digest the audit entry records; the CSV is "
        "UTF-8 with a byte-order mark and its digest is that of the file without it.",
    )
    _who(export)
    _criteria(export)
    export.add_argument(
        "--format",
        dest="export_format",
        choices=[f.value for f in ExportFormat],
        default=None,
        help="pdf or csv (default: from --out's extension, else pdf)",
    )
    add_output_arguments(export, required=True, what="the file to write")


def _criteria(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=None, help="name words, accents and case ignored")
    parser.add_argument("--id", dest="id_number", default=None, help="identity number")
    parser.add_argument("--card", type=CARD_NUMBER, default=None)
    parser.add_argument("--file", dest="file_number", type=FILE_NUMBER, default=None)
    parser.add_argument("--from", dest="date_from", type=date_argument, default=None)
    parser.add_argument("--to", dest="date_to", type=date_argument, default=None)
    parser.add_argument("--observation", default=None, help="text of an observation")
    parser.add_argument("--limit", type=bounded_int(1, MAX_LIMIT), default=200)


def _who(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as",
        dest="user",
        metavar="NAME",
        required=True,
        help="the inspector signing in; the password from $ADMISSION_PASSWORD, "
        "else asked on the terminal",
    )
    parser.add_argument("--purpose", required=True, help="what the query is for (3-200)")


def _signed_in(args: argparse.Namespace, ctx: AppContext) -> Operator:
    signed = operator(args, ctx)
    if signed is None:  # a file without accounts has no inspector
        raise Refusal(ExitCode.USAGE, SignInCode.NO_ACCOUNTS, "the file has no account")
    return signed


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    who = _signed_in(args, ctx)  # signed in before anything is read
    service = InspectionService(ctx.reads, ctx.reads, ctx.clock)
    try:
        if args.inspect_command == "search":
            return search(args, service, who)
        if args.inspect_command == "export":
            return export(args, ctx, who)
        return ExitCode.OK, _timeline_json(service.timeline(who, args.purpose, args.file))
    except ReportError as failed:
        return refusal(failed)
    except InspectionError as refused:
        code = (
            ExitCode.USAGE
            if refused.code in (InspectionCode.INSPECT_NO_CRITERIA,)
            else ExitCode.REFUSED
        )
        return error(code, refused.code, str(refused))


def search(args: argparse.Namespace, service: InspectionService, who: Operator) -> CommandResult:
    found = service.search(
        who,
        args.purpose,
        name=args.name,
        id_number=args.id_number,
        card=args.card,
        file_number=args.file_number,
        date_from=args.date_from,
        date_to=args.date_to,
        observation=args.observation,
        limit=args.limit,
    )
    return ExitCode.OK, {"visitors": [_visitor_json(v) for v in found]}


_SEARCH_ONLY = ("name", "id_number", "card", "date_from", "date_to", "observation")


def export(args: argparse.Namespace, ctx: AppContext, who: Operator) -> CommandResult:
    """A search (or, with ``--file`` alone, one person's visits) written to ``--out``."""
    fmt = ExportFormat(
        args.export_format
        or ("csv" if args.out.suffix.lower() == ".csv" else ExportFormat.PDF.value)
    )
    target = ctx.export_target(args.out, force=args.force)
    alone = args.file_number is not None and all(
        getattr(args, name) is None for name in _SEARCH_ONLY
    )
    if alone:
        done = ctx.reports.export_timeline(who, args.purpose, args.file_number, fmt, target)
    else:
        done = ctx.reports.export_search(
            who,
            args.purpose,
            fmt,
            target,
            name=args.name,
            id_number=args.id_number,
            card=args.card,
            file_number=args.file_number,
            date_from=args.date_from,
            date_to=args.date_to,
            observation=args.observation,
            limit=args.limit,
        )
    return ExitCode.OK, {**export_json(done, args.out), "kind": "timeline" if alone else "search"}


def _visitor_json(visitor: Visitor) -> dict[str, Any]:
    return {
        "file_number": visitor.file_number,
        "identity": visitor.identity.text,
        "surname": visitor.surname,
        "given_names": visitor.given_names,
        "birth_date": visitor.birth_date.isoformat() if visitor.birth_date else None,
        "nationality": visitor.nationality,
        "first_seen": visitor.first_seen.isoformat(),
        "last_seen": visitor.last_seen.isoformat(),
    }


def _timeline_json(timeline: Timeline) -> dict[str, Any]:
    visits = []
    for entry in timeline.entries:
        visit = entry.visit
        visits.append(
            {
                "at": visit.at.isoformat(),
                "desk_id": visit.desk_id,
                "operator": visit.operator,
                "verdict": visit.verdict,
                "reasons": list(visit.reasons),
                "document_type": visit.document_type,
                "card_number": visit.card_number,
                "card": None if entry.card is None else record_json(entry.card),
            }
        )
    return {"visitor": _visitor_json(timeline.visitor), "visits": visits}


COMMAND = Command[AppContext]("inspect", "gaming inspectors' queries (art. 20.4)", _arguments, run)

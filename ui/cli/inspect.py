"""``inspect search`` and ``inspect timeline FILE``: the gaming inspectors' read-only
queries of the visitor file (art. 20.4: confidential, open to the gaming inspectors).

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
from ui.cli.args import CARD_NUMBER, bounded_int, date_argument, record_json
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
    search.add_argument("--name", default=None, help="name words, accents and case ignored")
    search.add_argument("--id", dest="id_number", default=None, help="identity number")
    search.add_argument("--card", type=CARD_NUMBER, default=None)
    search.add_argument("--file", dest="file_number", type=FILE_NUMBER, default=None)
    search.add_argument("--from", dest="date_from", type=date_argument, default=None)
    search.add_argument("--to", dest="date_to", type=date_argument, default=None)
    search.add_argument("--observation", default=None, help="text of an observation")
    search.add_argument("--limit", type=bounded_int(1, MAX_LIMIT), default=200)
    timeline = sub.add_parser(
        "timeline", parents=[common], help="one person's visits in order (audited)"
    )
    timeline.add_argument("file", type=FILE_NUMBER, help="file number")
    _who(timeline)


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
    service = InspectionService(ctx.store, ctx.store, ctx.clock)
    try:
        if args.inspect_command == "search":
            return search(args, service, who)
        return ExitCode.OK, _timeline_json(service.timeline(who, args.purpose, args.file))
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

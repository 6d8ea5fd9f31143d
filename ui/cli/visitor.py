"""``visitor show ID``, ``visitor search TEXT`` and ``visitor note FILE TEXT``: the visitor
file (art. 20.3); every query is recorded in the audit trail under the account signed in
(``--user``; art. 20.4: the file is confidential): a clerk's, the director's or an
inspector's, who states what the query is for (``--purpose``, recorded with it).
``note`` adds a free-text observation (art. 20.3) under the signed-in clerk's or
director's name: the rules are :class:`admission.observations.ObservationService`'s."""

from __future__ import annotations

import argparse
from typing import Any

from admission.errors import AdmissionError
from admission.inspection import InspectionError, checked_purpose
from admission.observations import ObservationError, ObservationService
from admission.records import VisitRecord
from ui.cli.access import AccessCode, needs_purpose, signed_for
from ui.cli.args import bounded_int, identity_from_text, record_json
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.cli.sign_in import NO_ACCOUNTS_ACTOR, Refusal, SignInCode, add_user_argument, operator
from ui.context import AppContext


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="visitor_command", required=True)
    show = sub.add_parser("show", parents=[common])
    show.add_argument("id", help="file number, identity number or KIND:COUNTRY:NUMBER")
    add_user_argument(show)
    _purpose_argument(show)
    search = sub.add_parser(
        "search", parents=[common], help="accent-insensitive name search (audited)"
    )
    search.add_argument("text")
    search.add_argument("--limit", type=int, default=50)
    add_user_argument(search)
    _purpose_argument(search)
    note = sub.add_parser(
        "note", parents=[common], help="add an observation to a visitor's file (art. 20.3)"
    )
    note.add_argument("file", type=bounded_int(1, 999_999_999), help="file number")
    note.add_argument("text", help="the observation: 1-500 characters of plain text")
    add_user_argument(note)


def _purpose_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--purpose",
        default=None,
        help="what the query is for (3-200): an inspector states it (art. 20.4), as with "
        "'inspect'; recorded with the query",
    )


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    if args.visitor_command == "note":
        return add_note(args, ctx)
    who, why = reader(args, ctx, f"visitor {args.visitor_command}")  # before any read
    if args.visitor_command == "search":
        return search(args, ctx, who, why)
    return show(args, ctx, who, why)


def reader(args: argparse.Namespace, ctx: AppContext, act: str) -> tuple[str, dict[str, str]]:
    """Who reads (a clerk, the director or an inspector: :mod:`ui.cli.access`) and the
    purpose recorded with the read: an inspector's is required (``PURPOSE_REQUIRED``)
    and checked as ``inspect`` checks it (``INSPECT_PURPOSE_INVALID``)."""
    signed = signed_for(args, ctx, act)
    if signed is None:
        return NO_ACCOUNTS_ACTOR, {}
    if args.purpose is None:
        if needs_purpose(signed, act):
            raise Refusal(ExitCode.USAGE, AccessCode.PURPOSE_REQUIRED, "give --purpose TEXT")
        return signed.username, {}
    try:
        return signed.username, {"purpose": checked_purpose(args.purpose)}
    except InspectionError as bad:
        raise Refusal(ExitCode.REFUSED, bad.code, "purpose: 3-200 characters") from None


def add_note(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    """The observation under the signed-in account (a clerk or the director); a file
    without accounts has nobody to name as its author."""
    signed = operator(args, ctx)
    if signed is None:
        raise Refusal(ExitCode.USAGE, SignInCode.NO_ACCOUNTS, "the file has no account")
    try:
        made = ObservationService(ctx.store, ctx.clock).add(signed, args.file, args.text)
    except ObservationError as refused:
        return error(ExitCode.REFUSED, refused.code, str(refused))
    return ExitCode.OK, {"added": True, "observation": record_json(made)}


def show(args: argparse.Namespace, ctx: AppContext, who: str, why: dict[str, str]) -> CommandResult:
    try:
        target = identity_from_text(args.id)
    except (AdmissionError, ValueError):
        return error(ExitCode.REFUSED, CliError.BAD_VISITOR_ID, "malformed identity")
    store = ctx.store
    visitor = store.visitor(target) if isinstance(target, int) else store.find_visitor(target)
    now = ctx.clock.now()
    subject = f"file:{visitor.file_number}" if visitor else "file:none"
    store.append(who, "VISITOR_QUERY", subject, now, why)  # every read is recorded
    if visitor is None:
        return error(ExitCode.REFUSED, CliError.NOT_FOUND, "no such visitor")
    visits = store.visits(visitor.file_number)
    cards = [store.card(v.card_number) for v in visits if v.card_number is not None]
    return ExitCode.OK, {
        "file_number": visitor.file_number,
        "identity": visitor.identity.text,
        "surname": visitor.surname,
        "given_names": visitor.given_names,
        "birth_date": visitor.birth_date.isoformat() if visitor.birth_date else None,
        "nationality": visitor.nationality,
        "first_seen": visitor.first_seen.isoformat(),
        "last_seen": visitor.last_seen.isoformat(),
        "visits": [_visit_json(v) for v in visits],
        "cards": [record_json(c) for c in cards if c is not None],
        "observations": [record_json(o) for o in store.observations(visitor.file_number)],
        "bans": [record_json(b) for b in store.active_bans(visitor.identity, now)],
    }


def search(
    args: argparse.Namespace, ctx: AppContext, who: str, why: dict[str, str]
) -> CommandResult:
    text = " ".join(args.text.split())
    if not 2 <= len(text) <= 100 or not 1 <= args.limit <= 500:
        return error(ExitCode.USAGE, CliError.BAD_QUERY, "2-100 characters, limit 1-500")
    found = ctx.store.search_visitors(text, args.limit)
    # The query itself may be a name: the trail keeps a keyed hash of it, not the text.
    ctx.store.append(
        who,
        "VISITOR_SEARCH",
        f"results:{len(found)}",
        ctx.clock.now(),
        {"query": ctx.store.keyed_hash(text.lower()), **why},
    )
    return ExitCode.OK, {
        "visitors": [
            {
                "file_number": v.file_number,
                "identity": v.identity.text,
                "surname": v.surname,
                "given_names": v.given_names,
                "last_seen": v.last_seen.isoformat(),
            }
            for v in found
        ]
    }


def _visit_json(visit: VisitRecord) -> dict[str, Any]:
    data: dict[str, Any] = record_json(visit)
    data["reasons"] = list(visit.reasons)
    return data


COMMAND = Command[AppContext]("visitor", "visitor file", _arguments, run)

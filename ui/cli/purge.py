"""``purge [--at INSTANT] [--confirm-clock]``: erase what is past six months (art. 20.4,
R3). A purge far ahead of the newest event in the file is refused as a suspect clock
(SUSPECT_CLOCK, exit 1, audited); after a real closure that long, the game director
confirms the date with ``--confirm-clock --director NAME`` and the director's own
password (audited under the director's user name; :mod:`ui.cli.sign_in`)."""

from __future__ import annotations

import argparse

from ui.cli.result import Command, CommandResult, ExitCode
from ui.cli.sign_in import actor, add_director_argument, add_user_argument, director
from ui.context import AppContext


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("--at", help="ISO-8601 instant (default: now)")
    parser.add_argument(
        "--confirm-clock",
        action="store_true",
        help="the date is right: the casino was closed longer than the clock check allows",
    )
    add_user_argument(parser)
    add_director_argument(parser, "confirms the date (with --confirm-clock)")


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    by = actor(args, ctx)
    if args.confirm_clock:  # the game director answers for the date (art. 20.3, 20.4)
        by = director(args, ctx, "Confirmar la fecha de la purga (art. 20.4)").username
    report = ctx.retention.purge(confirm_clock=args.confirm_clock, actor=by)
    return ExitCode.OK, {
        "cutoff": report.cutoff.isoformat(),
        "visits": report.visits,
        "visitors": report.visitors,
        "observations": report.observations,
        "cards": report.cards,
    }


COMMAND = Command[AppContext]("purge", "erase what is past retention (R3)", _arguments, run)

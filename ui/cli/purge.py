"""``purge [--at INSTANT] [--confirm-clock]``: erase what is past six months (art. 20.4,
R3). A purge far ahead of the newest event in the file is refused as a suspect clock
(SUSPECT_CLOCK, exit 1, audited); after a real closure that long, the game director
confirms the date with ``--confirm-clock --director NAME`` and the director's own
password (audited under the director's user name; :mod:`ui.cli.sign_in`)."""

from __future__ import annotations

import argparse

from admission.clock import ClockCode
from admission.retention import retention_cutoff
from admission.retention_sweep import SUSPECT_GAP
from ui.cli.access import actor_for
from ui.cli.result import Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_director_argument, add_user_argument, director
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
    # The clock is compared with the file before anybody signs in: a sign-in is itself an
    # entry at this clock, and a clock that jumped ahead would vouch for itself.
    ahead = _ahead_of_file(ctx)
    by = actor_for(args, ctx, "purge")  # an inspector never writes (art. 20.4)
    if args.confirm_clock:  # the game director answers for the date (art. 20.3, 20.4)
        by = director(args, ctx, "Confirmar la fecha de la purga (art. 20.4)").username
    elif ahead is not None:
        ctx.store.append(by, "PURGE_REFUSED", ClockCode.SUSPECT_CLOCK, ctx.clock.now(), ahead)
        return error(ExitCode.REFUSED, ClockCode.SUSPECT_CLOCK, "the clock runs ahead of the file")
    report = ctx.retention.purge(confirm_clock=args.confirm_clock, actor=by)
    # copies past retention hold personal data too (art. 20.4; docs/backup.md)
    stale = ctx.stale_backups(ctx.clock.now())
    return ExitCode.OK, {
        "warnings": [
            {"code": "STALE_BACKUP", "path": str(b.path), "taken_at": b.taken_at.isoformat()}
            for b in stale
        ],
        "cutoff": report.cutoff.isoformat(),
        "visits": report.visits,
        "visitors": report.visitors,
        "observations": report.observations,
        "cards": report.cards,
    }


COMMAND = Command[AppContext]("purge", "erase what is past retention (R3)", _arguments, run)


def _ahead_of_file(ctx: AppContext) -> dict[str, str] | None:
    """The details of a suspect clock (as the retention sweep records them), or None:
    the cutoff runs more than ``SUSPECT_GAP`` ahead of the one of the newest event."""
    months = ctx.desk.config.retention_months
    now, newest = ctx.clock.now(), ctx.store.newest_event()
    cutoff = retention_cutoff(now, months)
    if newest is None or cutoff - retention_cutoff(newest, months) <= SUSPECT_GAP:
        return None
    return {"cutoff": cutoff.isoformat(), "newest_event": newest.isoformat()}

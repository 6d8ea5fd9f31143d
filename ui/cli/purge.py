"""``purge [--at INSTANT]``: erase what is past six months (art. 20.4, R3)."""

from __future__ import annotations

import argparse

from ui.cli.result import Command, CommandResult, ExitCode
from ui.context import AppContext


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("--at", help="ISO-8601 instant (default: now)")


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    report = ctx.retention.purge()
    return ExitCode.OK, {
        "cutoff": report.cutoff.isoformat(),
        "visits": report.visits,
        "visitors": report.visitors,
        "observations": report.observations,
        "cards": report.cards,
    }


COMMAND = Command[AppContext]("purge", "erase what is past retention (R3)", _arguments, run)

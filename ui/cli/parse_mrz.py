"""``parse-mrz LINE [LINE...] [--today DATE]``: parse MRZ lines; 0 valid, 1 invalid."""

from __future__ import annotations

import argparse

from admission.mrz.parse import parse_mrz
from ui.cli.args import YEARS, parse_date
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.context import Tools


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("lines", nargs="+")
    parser.add_argument("--today", help="reference date for two-digit years (YYYY-MM-DD)")


def run(args: argparse.Namespace, tools: Tools) -> CommandResult:
    try:
        today = parse_date(args.today) if args.today else tools.today()
    except ValueError:
        return error(
            ExitCode.USAGE,
            CliError.BAD_DATE,
            f"--today must be YYYY-MM-DD from {YEARS.start} to {YEARS.stop - 1}",
        )
    result = parse_mrz(list(args.lines), today=today)
    return (ExitCode.OK if result.valid else ExitCode.REFUSED), result.to_json()


COMMAND = Command[Tools]("parse-mrz", "parse MRZ lines, print JSON", _arguments, run)

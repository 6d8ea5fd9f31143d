"""``retention --as NAME``: what the visitor file holds and when its oldest record passes
the six months (Decreto 58/2006 art. 20.4; GDPR art. 5.1.e), as JSON. Counts only: no
name, number or text of any visitor.

The game director, an administrator or a gaming inspector may see it
(:class:`admission.data_protection.DataProtectionService` checks the role).
"""

from __future__ import annotations

import argparse

from admission.data_protection import DataProtectionError, DataProtectionService
from ui.cli.args import record_json
from ui.cli.rectify import add_as_argument, signed_in
from ui.cli.result import Command, CommandResult, ExitCode, error
from ui.context import AppContext

__all__ = ["COMMAND"]


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    add_as_argument(parser, "the director, an administrator or an inspector")


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    who = signed_in(args, ctx)
    try:
        overview = DataProtectionService(ctx.reads, ctx.clock).retention(who)
    except DataProtectionError as refused:
        return error(ExitCode.REFUSED, refused.code, str(refused))
    return ExitCode.OK, record_json(overview)


COMMAND = Command[AppContext](
    "retention", "what the file holds, month by month (art. 20.4: six months)", _arguments, run
)

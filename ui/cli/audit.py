"""``audit verify``: check the hash-chained audit trail; 0 intact, 1 broken."""

from __future__ import annotations

import argparse

from ui.cli.result import Command, CommandResult, ExitCode
from ui.context import AppContext


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="audit_command", required=True)
    sub.add_parser("verify", parents=[common])


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    check = ctx.store.verify()
    return (ExitCode.OK if check.ok else ExitCode.REFUSED), {
        "ok": check.ok,
        "entries": check.entries,
        "first_bad_seq": check.first_bad_seq,
        "problem": check.problem,
    }


COMMAND = Command[AppContext]("audit", "audit trail", _arguments, run)

"""``admit --mrz LINE... | --manual ...``: check and record one admission (arts. 20-23).

0 admitted (a numbered card is issued, its PDF rendered unless ``--no-pdf``; a PDF that
cannot be written is reported in ``card_error``, the card staying issued and in the
reprint queue; or, for a
pass that admits its holder again, on the card already held: ``existing_card``); 1
refused or invalid document; 2 usage error. A visitor who already holds a valid card
gets no second one (art. 22: nominative and personal): ``ALREADY_ADMITTED`` with
``existing_card`` and a hint to reprint that card if it was lost.
"""

from __future__ import annotations

import argparse
from enum import unique
from typing import Any

from admission.catalogue import text
from admission.codes import Code
from admission.verdict import Reason
from ui.cli.args import add_document_arguments, document_from_args
from ui.cli.card_file import file_card
from ui.cli.result import CliError, Command, CommandResult, ExitCode
from ui.context import AppContext


@unique
class AdmitHint(Code):
    """What the clerk can do next, given with a refusal."""

    REPRINT_POSSIBLE = "REPRINT_POSSIBLE"  # the card held can be reprinted with a reason


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    add_document_arguments(parser)
    parser.add_argument("--card-type")
    parser.add_argument("--at", help="ISO-8601 instant (default: now)")
    parser.add_argument("--operator", default="cli")
    parser.add_argument("--authorised-by", default="", help="director taking responsibility")
    parser.add_argument("--no-pdf", action="store_true", help="do not render the card PDF")


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    document, problem = document_from_args(args, ctx.tools.today())
    if problem is not None or document is None:
        usage = isinstance(problem, dict) and problem.get("error") == CliError.USAGE
        return (ExitCode.USAGE if usage else ExitCode.REFUSED), problem
    result = ctx.desk.admit(
        document,
        operator=args.operator,
        card_type=args.card_type,
        authorised_by=args.authorised_by,
    )
    filed: dict[str, Any] = {"card_pdf": None}
    if result.card is not None and not args.no_pdf:
        filed = file_card(ctx, result.card.number)  # never loses the card issued
    registry = result.evaluation.registry
    payload = {
        "verdict": result.verdict.outcome.value,
        "reasons": list(result.verdict.codes),
        "file_number": result.recorded.file_number,
        "card_number": result.recorded.card_number,
        **filed,
        "registry": {
            "status": registry.status.value,
            "source": registry.source.value,
            "version": registry.version,
            "age_seconds": registry.age_seconds,
            "error": registry.error,
        },
    }
    if result.existing_card is not None:
        payload["existing_card"] = result.existing_card.number
        if Reason.ALREADY_ADMITTED in result.verdict.reasons:
            payload["hint"] = reprint_hint(result.existing_card.number)
    return (ExitCode.OK if result.admitted else ExitCode.REFUSED), payload


def reprint_hint(number: int) -> dict[str, Any]:
    """The reprint command for a card held and lost (art. 22: the number is kept)."""
    code = AdmitHint.REPRINT_POSSIBLE
    return {
        "code": code.value,
        "message": text(code, "es"),
        "message_en": text(code, "en"),
        "command": f'print-card {number} --reason "..."',
    }


COMMAND = Command[AppContext]("admit", "admit a visitor", _arguments, run)

"""``admit --mrz LINE... | --manual ...``: check and record one admission (arts. 20-23).

0 admitted (a numbered card is issued, its PDF rendered unless ``--no-pdf``; a PDF that
cannot be written is reported in ``card_error``, the card staying issued and in the
reprint queue; or, for a
pass that admits its holder again, on the card already held: ``existing_card``), or
already admitted; 1 refused, not admitted (``NOT_ADMITTED``: the RIAJ could not be
checked, art. 20.1-2) or invalid document; 2 usage error. A visitor who already holds a
valid card gets no second one (art. 22: nominative and personal) and takes no number:
``"verdict": "ALREADY_ADMITTED"`` (a re-entry, neither a refusal nor a visit) with
``existing_card``, ``valid_until`` and a hint to reprint that card if it was lost.

The admission records the account signed in (``--user``, :mod:`ui.cli.sign_in`). A
verdict the game director may take responsibility for (SUPERVISOR: staff with leave, a
birth date unknown, a registry that cannot answer) issues a card only with ``--director
NAME`` and the director's own password, asked once the verdict is known; an exceptional
card (``--exceptional``, art. 23.5) always needs it. The card records the director's
user name.
"""

from __future__ import annotations

import argparse
from enum import unique
from typing import Any

from admission.catalogue import text
from admission.codes import Code
from admission.verdict import Outcome, Reason
from ui.cli.access import actor_for
from ui.cli.args import add_document_arguments, document_from_args
from ui.cli.card_file import file_card
from ui.cli.result import CliError, Command, CommandResult, ExitCode
from ui.cli.sign_in import (
    Refusal,
    SignInCode,
    add_director_argument,
    add_user_argument,
    director,
    require_director_account,
)
from ui.context import AppContext


@unique
class AdmitHint(Code):
    """What the clerk can do next, given with a refusal."""

    REPRINT_POSSIBLE = "REPRINT_POSSIBLE"  # the card held can be reprinted with a reason


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    add_document_arguments(parser)
    parser.add_argument("--card-type")
    parser.add_argument("--at", help="ISO-8601 instant (default: now)")
    add_user_argument(parser)
    add_director_argument(parser, "takes responsibility for an override or exceptional card")
    parser.add_argument(
        "--exceptional",
        action="store_true",
        help="exceptional card under the game director's responsibility (art. 23.5)",
    )
    parser.add_argument("--no-pdf", action="store_true", help="do not render the card PDF")


EXCEPTIONAL_PURPOSE = "Tarjeta excepcional (art. 23.5)"


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    operator = actor_for(args, ctx, "admit")  # a clerk or the director (art. 20.3)
    document, problem = document_from_args(args, ctx.tools.today())
    if problem is not None or document is None:
        usage = isinstance(problem, dict) and problem.get("error") == CliError.USAGE
        return (ExitCode.USAGE if usage else ExitCode.REFUSED), problem
    if args.director or args.exceptional:  # said before the visitor is evaluated and waits
        require_director_account(ctx)
        if not args.director:
            raise Refusal(ExitCode.USAGE, SignInCode.DIRECTOR_NAME_REQUIRED, "give --director")
    evaluation = ctx.desk.evaluate(document, exceptional=args.exceptional)
    authorised_by = ""
    if args.exceptional:
        authorised_by = director(args, ctx, EXCEPTIONAL_PURPOSE).username
    elif args.director and evaluation.verdict.outcome is Outcome.SUPERVISOR:
        # the director answers for these reasons (the audit entry names them)
        authorised_by = director(args, ctx, ",".join(evaluation.verdict.codes)).username
    result = ctx.desk.record(
        evaluation, operator=operator, card_type=args.card_type, authorised_by=authorised_by
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
        payload["valid_until"] = result.existing_card.valid_until.isoformat()
        if Reason.ALREADY_ADMITTED in result.verdict.reasons:
            payload["hint"] = reprint_hint(result.existing_card.number)
    ok = result.admitted or result.reentry
    return (ExitCode.OK if ok else ExitCode.REFUSED), payload


def reprint_hint(number: int) -> dict[str, Any]:
    """The reprint command for a card held and lost (art. 22: the number is kept)."""
    code = AdmitHint.REPRINT_POSSIBLE
    return {
        "code": code.value,
        "message": text(code, "es"),
        "message_en": text(code, "en"),
        "command": f'print-card {number} --reason "..." --director NAME',
    }


COMMAND = Command[AppContext]("admit", "admit a visitor", _arguments, run)

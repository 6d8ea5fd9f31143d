"""``voucher issue | exchange | cancel | open``: provisional vouchers at a crowded desk
(volantes provisionales, art. 23.4, R11). Each subcommand signs in a clerk or the game
director (``--user``, :mod:`ui.cli.access`): the vouchers name their holders and their
document numbers, and the deposit is money. Issuing and exchanging one record the
account; an exchange (``VOUCHER_EXCHANGED``, with the card), a cancellation
(``VOUCHER_CANCELLED``) and a listing of the open ones
(``VOUCHERS_LISTED``) are recorded in the audit trail under it."""

from __future__ import annotations

import argparse
from typing import Any

from admission.vouchers.desk import (
    cancel_voucher,
    exchange_voucher,
    issue_voucher,
    list_open_vouchers,
)
from admission.vouchers.model import Voucher, voucher_view
from ui.cli.access import actor_for
from ui.cli.args import (
    VOUCHER_NUMBER,
    add_document_arguments,
    add_output_arguments,
    document_from_args,
)
from ui.cli.card_file import file_card
from ui.cli.desk_papers import write_output
from ui.cli.result import CliError, Command, CommandResult, ExitCode
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="voucher_command", required=True)
    p = sub.add_parser("issue", parents=[common])
    add_document_arguments(p)
    p.add_argument("--card-type")
    add_user_argument(p)
    add_output_arguments(p, required=False, what="write the voucher PDF here instead of printing")
    p = sub.add_parser("exchange", parents=[common])
    add_document_arguments(p)
    # its own dest: the document's --number is args.number, and they used to share it (a
    # manual entry's document number became the voucher's, or the other way round)
    p.add_argument("voucher_number", type=VOUCHER_NUMBER, metavar="number")
    add_user_argument(p)
    p.add_argument("--no-pdf", action="store_true")
    p = sub.add_parser("cancel", parents=[common])
    p.add_argument("voucher_number", type=VOUCHER_NUMBER, metavar="number")
    p.add_argument("--reason", required=True)
    add_user_argument(p)
    p = sub.add_parser("open", parents=[common])
    p.add_argument(
        "--closing",
        action="store_true",
        help="only those issued before the closing of the current session",
    )
    add_user_argument(p)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    book = ctx.vouchers
    command = args.voucher_command
    operator = actor_for(args, ctx, f"voucher {command}")  # signed in before anything
    if command == "open":
        closing = ctx.desk.config.hours.closing_at(ctx.clock.now()) if args.closing else None
        vouchers = list_open_vouchers(
            book, ctx.store, ctx.clock, operator=operator, issued_before=closing
        )
        return ExitCode.OK, {
            "closing": closing.isoformat() if closing else None,
            "vouchers": [_json(v) for v in vouchers],
        }
    if command == "cancel":
        cancelled = cancel_voucher(
            book, ctx.store, ctx.clock, args.voucher_number, args.reason, operator=operator
        )
        return ExitCode.OK, _json(cancelled)
    document, problem = document_from_args(args, ctx.tools.today())
    if problem is not None or document is None:
        usage = isinstance(problem, dict) and problem.get("error") == CliError.USAGE
        return (ExitCode.USAGE if usage else ExitCode.REFUSED), problem
    if command == "issue":
        return _issue(args, ctx, document, operator)
    result = exchange_voucher(
        ctx.desk, book, ctx.clock, args.voucher_number, document, operator=operator
    )
    card = "" if result.card is None else str(result.card.number)
    ctx.store.append(operator, "VOUCHER_EXCHANGED", f"voucher:{args.voucher_number}",
                     ctx.clock.now(), {"card": card})  # fmt: skip
    payload = {
        "verdict": result.verdict.outcome.value,
        "reasons": list(result.verdict.codes),
        "file_number": result.recorded.file_number,
        "card_number": result.recorded.card_number,
        "card_pdf": None,
    }
    if result.card is not None and not args.no_pdf:
        payload.update(file_card(ctx, result.card.number))  # never loses the card issued
    return (ExitCode.OK if result.card is not None else ExitCode.REFUSED), payload


def _issue(
    args: argparse.Namespace, ctx: AppContext, document: Any, operator: str
) -> CommandResult:
    if args.out is not None:  # a refused --out is told before the voucher is issued
        ctx.outputs.target(args.out, force=args.force)
    issued = issue_voucher(
        ctx.desk,
        ctx.vouchers,
        ctx.clock,
        document,
        operator=operator,
        card_type=args.card_type,
    )
    verdict = issued.evaluation.verdict
    if issued.voucher is None:
        return ExitCode.REFUSED, {
            "verdict": verdict.outcome.value,
            "reasons": list(verdict.codes),
            "voucher": None,
        }
    voucher = issued.voucher
    card_type = ctx.desk.config.catalogue.types.get(voucher.card_type)
    view = voucher_view(
        voucher,
        casino_name=ctx.settings["casino.name"],
        card_type_label=card_type.label_es if card_type else voucher.card_type,
    )
    payload: dict[str, Any] = {
        "verdict": verdict.outcome.value,
        "reasons": [],
        "voucher": _json(voucher),
    }
    if args.out is not None:
        failed = write_output(args, ctx, ctx.documents.voucher_pdf(view))
        if failed is not None:
            return failed
        payload["voucher_pdf"] = str(args.out)
    else:
        code, job = ctx.documents.print_voucher(view)
        payload.update({"printed": not code, "print_error": code or None, "job_id": job})
    return ExitCode.OK, payload


def _json(v: Voucher) -> dict[str, Any]:
    return {
        "number": v.number,
        "status": v.status.value,
        "issued_at": v.issued_at.isoformat(),
        "holder": v.holder_name,
        "document_type": v.document_type,
        "document_number": v.document_number,
        "card_type": v.card_type,
        "price_cents": v.price_cents,
        "card_number": v.card_number,
        "closed_at": v.closed_at.isoformat() if v.closed_at else None,
        "close_reason": v.close_reason,
    }


COMMAND = Command[AppContext](
    "voucher", "provisional vouchers at a crowded desk (art. 23.4)", _arguments, run
)

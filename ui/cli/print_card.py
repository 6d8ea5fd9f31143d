"""``print-card N [--reason R]``: print a card on the card printer, or reprint a printed
one with a reason (art. 22); ``void-card N --reason R``: void it, its number kept;
``reprint-queue``: the cards issued and not printed. A card number outside 1-999,999,999
is a usage error (exit 2, ``BAD_NUMBER``).

Printing a card issued and not printed is the operator's act (``--user``). Reprinting
one already printed and voiding one are the game director's decisions (art. 20.3, 22):
``--director NAME`` with the director's own password, recorded under the director's
user name (:mod:`ui.cli.sign_in`). All three are a clerk's or the director's
(:mod:`ui.cli.access`); the reprint queue's reading is recorded too."""

from __future__ import annotations

import argparse

from ui.cli.access import actor_for
from ui.cli.args import CARD_NUMBER
from ui.cli.result import Command, CommandResult, ExitCode
from ui.cli.sign_in import add_director_argument, add_user_argument, director
from ui.context import AppContext


def _print_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("number", type=CARD_NUMBER)
    parser.add_argument("--reason", default="", help="required to reprint a printed card")
    add_user_argument(parser)
    add_director_argument(parser, "decides a reprint (with --reason)")


def print_card(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    service = ctx.card_printing
    by = actor_for(args, ctx, "print-card")
    if args.reason.strip():  # a reprint: the director's decision, recorded under that name
        by = director(args, ctx, f"Reimprimir la tarjeta {args.number}").username
    outcome = service.print_card(
        service.view_for(args.number), actor=by, reprint_reason=args.reason
    )
    return (ExitCode.OK if outcome.printed else ExitCode.UNAVAILABLE), {
        "card_number": outcome.number,
        "printed": outcome.printed,
        "error": outcome.code or None,
        "job_id": outcome.job_id,
        "warnings": list(outcome.warnings),
        "printer": service.printer.name,
    }


def _void_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("number", type=CARD_NUMBER)
    parser.add_argument("--reason", required=True)
    add_user_argument(parser)
    add_director_argument(parser, "decides the void")


def void_card(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    actor_for(args, ctx, "void-card")  # whoever works the desk signs in first
    decided = director(args, ctx, f"Anular la tarjeta {args.number}")
    card = ctx.desk.void_card(args.number, args.reason, decided.username)
    return ExitCode.OK, {"card_number": card.number, "status": card.status.value}


def _queue_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    add_user_argument(parser)


def reprint_queue(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    who = actor_for(args, ctx, "reprint-queue")  # the desk's list, signed in and recorded
    cards = ctx.reprints.unprinted_cards()
    ctx.store.append(who, "REPRINT_QUEUE_READ", "cards:unprinted", ctx.clock.now(),
                     {"cards": str(len(cards))})  # fmt: skip
    return ExitCode.OK, {
        "cards": [
            {
                "card_number": c.number,
                "file_number": c.file_number,
                "issued_at": c.issued_at.isoformat(),
                "card_type": c.card_type,
            }
            for c in cards
        ]
    }


PRINT_CARD = Command[AppContext](
    "print-card",
    "print (or reprint, with --reason) a card on the card printer",
    _print_arguments,
    print_card,
)
VOID_CARD = Command[AppContext](
    "void-card", "void a card (number kept)", _void_arguments, void_card
)
REPRINT_QUEUE = Command[AppContext](
    "reprint-queue", "cards issued but not printed", _queue_arguments, reprint_queue
)

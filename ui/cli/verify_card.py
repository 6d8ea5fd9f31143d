"""``verify-card CODE``: verify an entry card's code (R8, art. 22.4), the HMAC code (ADM1)
or the signed one in the card's QR (ADM2).

0 the card is VALID; 1 it is not (expired, voided, unknown number, tampered, malformed,
other casino, not yet valid) - the payload says which; 3 the check could not be made or
recorded (the visitor file): ``{"error": CODE, "message": ...}``. The check is recorded
under the account signed in (``--user``, :mod:`ui.cli.sign_in`).
"""

from __future__ import annotations

import argparse
from typing import Protocol

from admission.cards.signed import CardPublicKeys
from admission.cards.verification import VerificationStore, verify_card
from admission.errors import AdmissionError
from admission.ports import Clock
from ui.cli.access import actor_for
from ui.cli.result import Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext

CARD_CODE_SECRET = "card_code"


class CardCheckStore(VerificationStore, Protocol):
    def secret(self, name: str) -> bytes: ...

    def card_public_keys(self) -> CardPublicKeys: ...


def check(
    store: CardCheckStore, clock: Clock, casino_id: str, code: str, *, actor: str = "cli"
) -> CommandResult:
    """Verify ``code`` against ``store`` and record the check."""
    try:
        result = verify_card(
            code,
            key=store.secret(CARD_CODE_SECRET),
            casino_id=casino_id,
            store=store,
            clock=clock,
            actor=actor,
            channel="cli",
            public_keys=store.card_public_keys(),  # ADM2: the signed codes (art. 22.4)
        )
    except AdmissionError as err:
        return error(ExitCode.UNAVAILABLE, err.code, "the card check could not be made")
    return (ExitCode.OK if result.ok else ExitCode.REFUSED), result.to_json()


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("code")
    add_user_argument(parser)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    who = actor_for(args, ctx, "verify-card")  # staff and inspectors (art. 22.4)
    return check(ctx.store, ctx.clock, ctx.settings["casino.id"], args.code, actor=who)


COMMAND = Command[AppContext]("verify-card", "verify an entry-card code (R8)", _arguments, run)

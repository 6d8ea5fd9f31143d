"""``card-key show | rotate``: the casino's card-signing keys (art. 22.4: an entry card is
checked anywhere on the floor, offline too, with the casino's public key).

* ``card-key show``: every key, newest first: its id (8 hex, the one printed in the
  signed codes), when it was made, whether it is the current one, and its public key
  (base64url, 32 bytes). The first use makes the first key. No private key is ever shown.
* ``card-key rotate``: the director or an administrator makes a new current key; the
  cards already printed keep verifying with the old one. Audited (``CARD_KEY_ROTATED``:
  the old and the new key id) in the same transaction.

Exit 0 done; 1 refused (``ROLE_REQUIRED``); 3 the visitor file could not be used.
"""

from __future__ import annotations

import argparse
import base64

from admission.cards.signed import CardKey
from admission.errors import AdmissionError
from ui.cli.access import actor_for
from ui.cli.result import Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext

__all__ = ["COMMAND"]


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="card_key_command", required=True)
    show = sub.add_parser("show", parents=[common], help="the card-signing keys (public)")
    add_user_argument(show)
    rotate = sub.add_parser("rotate", parents=[common], help="make a new current key")
    add_user_argument(rotate)


def _shown(key: CardKey) -> dict[str, object]:
    return {
        "key_id": key.key_id,
        "created_at": key.created_at.isoformat(),
        "current": key.current,
        "public_key": base64.urlsafe_b64encode(key.public_key).rstrip(b"=").decode("ascii"),
    }


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    act = f"card-key {args.card_key_command}"
    actor = actor_for(args, ctx, act)
    try:
        if args.card_key_command == "rotate":
            old = next(k for k in ctx.store.card_signing_keys() if k.current)
            new = ctx.store.rotate_card_key(actor, ctx.clock.now())
            return ExitCode.OK, {"rotated": True, "old_key": old.key_id, "key": _shown(new)}
        keys = ctx.store.card_signing_keys()
    except AdmissionError as err:
        return error(ExitCode.UNAVAILABLE, err.code, "the card-signing keys could not be used")
    return ExitCode.OK, {"keys": [_shown(k) for k in keys]}


COMMAND = Command[AppContext]("card-key", "the casino's card-signing keys", _arguments, run)

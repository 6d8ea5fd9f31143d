"""``user add NAME --role inspector|clerk|director|admin [--display-name TEXT]``: an
account made by the holder of the visitor file's key.

The key opens every record of the encrypted file (art. 20.4: it is the file's custody),
so opening the file with it is the administrator's proof: no sign-in is asked. This is
how a gaming inspector's account is made for a visit of the inspection, or an
administrator's again when every administrator is locked out. The account is audited in
the file like any other (``ACCOUNT_CREATED``) with the actor ``file-key``; the rules
(user name, display name, password length, the first account administers) are
:meth:`admission.accounts.AccountService.create_account`'s.

The password comes from ``ADMISSION_PASSWORD``, else it is typed twice on the terminal
(``ADMISSION_NEW_PASSWORD`` is read too, as ``account add`` does); never on the command
line.
"""

from __future__ import annotations

import argparse
import os

from admission.accounts import Role
from ui.cli.account import account_json
from ui.cli.result import Command, CommandResult, ExitCode
from ui.cli.sign_in import PASSWORD_ENV, new_password
from ui.context import AppContext

__all__ = ["COMMAND"]

ROLES = [r.value.lower() for r in Role]


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="user_command", required=True)
    add = sub.add_parser(
        "add", parents=[common], help="create an account with the file's key (no sign-in)"
    )
    add.add_argument("name", help="user name: 1-32 of a-z 0-9 . _ -")
    add.add_argument(
        "--role",
        action="append",
        required=True,
        type=str.lower,
        choices=ROLES,
        help="inspector, clerk, director or admin (repeatable)",
    )
    add.add_argument("--display-name", default=None, help="the name shown (default: NAME)")


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    password = os.environ.get(PASSWORD_ENV) or new_password()
    created = ctx.accounts.create_account(
        args.name,
        args.name if args.display_name is None else args.display_name,
        password,
        [Role(r.upper()) for r in args.role],
        actor=None,
        file_key=True,
    )
    return ExitCode.OK, {"created": True, "account": account_json(created)}


COMMAND = Command[AppContext](
    "user", "accounts made with the file's key (no sign-in)", _arguments, run
)

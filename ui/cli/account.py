"""``account add | list | passwd | disable``: the desk's accounts, for administrators
(art. 20.3: every admission names the operator, and the director decides with the
director's own credentials).

* ``account add NAME --display-name TEXT --role CLERK [--role ...]``: the first account
  of a file needs no sign-in and must include ADMIN; later ones need an ADMIN ``--user``.
* ``account list``: user names, display names, roles, state (never a password hash).
* ``account passwd NAME``: an administrator, or the operator for their own account.
* ``account disable NAME``: the last active administrator stays one.
* ``account pin [--remove]``: the signed-in operator's own PIN of 4-8 digits, the quick
  unlock of a desk they locked (a sign-in always takes the password); the password
  signs in and confirms the change.

A new password comes from ``ADMISSION_NEW_PASSWORD``, a new PIN from
``ADMISSION_NEW_PIN``, else each is typed twice on the terminal; never on the command
line. Every change is audited in the visitor file, never the secret.
"""

from __future__ import annotations

import argparse
import getpass
import os
from enum import unique
from typing import Any

from admission.accounts import Account, AccountError, AccountErrorCode, Role
from admission.codes import Code
from ui.cli.result import Command, CommandResult, ExitCode
from ui.cli.sign_in import (
    PASSWORD_ENV,
    USER_ENV,
    Refusal,
    SignInCode,
    add_user_argument,
    new_password,
    operator,
    secret,
)
from ui.context import AppContext

ROLES = [r.value for r in Role]
NEW_PIN_ENV = "ADMISSION_NEW_PIN"


@unique
class AccountCliCode(Code):
    """What ``account pin`` refuses before the accounts are asked."""

    PINS_DIFFER = "PINS_DIFFER"  # the new PIN typed twice differently


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="account_command", required=True)
    add = sub.add_parser("add", parents=[common], help="create an account (ADMIN)")
    add.add_argument("name", help="user name: 1-32 of a-z 0-9 . _ -")
    add.add_argument("--display-name", required=True)
    add.add_argument("--role", action="append", required=True, choices=ROLES, help="repeatable")
    add_user_argument(add)
    listing = sub.add_parser("list", parents=[common], help="the accounts (ADMIN)")
    add_user_argument(listing)
    passwd = sub.add_parser("passwd", parents=[common], help="set a password")
    passwd.add_argument("name")
    add_user_argument(passwd)
    disable = sub.add_parser("disable", parents=[common], help="disable an account (ADMIN)")
    disable.add_argument("name")
    add_user_argument(disable)
    pin = sub.add_parser(
        "pin", parents=[common], help="set your own PIN for unlocking a desk you locked"
    )
    pin.add_argument("--remove", action="store_true", help="remove your PIN")
    add_user_argument(pin)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    accounts = ctx.accounts
    command = args.account_command
    if command == "add" and not accounts.has_accounts():  # the first account: no sign-in
        password = new_password()
        created = accounts.create_account(
            args.name, args.display_name, password, [Role(r) for r in args.role], actor=None
        )
        return ExitCode.OK, {"created": True, "account": account_json(created)}
    if command == "pin":
        return set_pin(args, ctx)
    signed = operator(args, ctx)
    if signed is None:  # no account yet: nothing to list, nobody to change
        if command == "list":
            return ExitCode.OK, {"accounts": []}
        raise Refusal(ExitCode.REFUSED, SignInCode.NO_ACCOUNTS, "create the first account")
    if command == "add":
        password = new_password()
        created = accounts.create_account(
            args.name, args.display_name, password, [Role(r) for r in args.role], actor=signed
        )
        return ExitCode.OK, {"created": True, "account": account_json(created)}
    if command == "list":
        if not signed.has(Role.ADMIN):
            raise AccountError("an administrator is needed", code=AccountErrorCode.ROLE_REQUIRED)
        return ExitCode.OK, {"accounts": [account_json(a) for a in accounts.accounts()]}
    if command == "passwd":
        target = accounts.account(args.name)
        if target is None or (target.username != signed.username and not signed.has(Role.ADMIN)):
            # to a non-administrator, another account is refused alike, existing or not
            if not signed.has(Role.ADMIN):
                raise AccountError(
                    "an administrator is needed", code=AccountErrorCode.ROLE_REQUIRED
                )
            raise AccountError("no such account", code=AccountErrorCode.ACCOUNT_UNKNOWN)
        accounts.set_password(target.username, new_password(), actor=signed)
        return ExitCode.OK, {"changed": True, "account": target.username}
    changed = accounts.set_active(args.name, False, actor=signed)
    return ExitCode.OK, {"changed": True, "account": account_json(changed)}


def set_pin(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    """The operator signs in with the password, which also confirms the new PIN (read
    once: on a terminal it is asked once)."""
    accounts = ctx.accounts
    if not accounts.has_accounts():
        raise Refusal(ExitCode.REFUSED, SignInCode.NO_ACCOUNTS, "create the first account")
    name = (args.user if args.user is not None else os.environ.get(USER_ENV, "")).strip()
    if not name:
        raise Refusal(ExitCode.USAGE, SignInCode.USER_REQUIRED, f"give --user NAME or {USER_ENV}")
    password = secret(PASSWORD_ENV, "Contraseña / password: ")
    signed = accounts.sign_in(name, password)
    pin = None if args.remove else _new_pin()
    accounts.set_pin(signed, password, pin)
    return ExitCode.OK, {"changed": True, "account": signed.username, "pin": pin is not None}


def _new_pin() -> str:
    """A new PIN from ``ADMISSION_NEW_PIN``, else typed twice on the terminal."""
    value = os.environ.get(NEW_PIN_ENV)
    if value:
        return value
    first = secret(NEW_PIN_ENV, "Nuevo PIN / new PIN (4-8 cifras/digits): ")
    if getpass.getpass("Repita el PIN / repeat the PIN: ") != first:
        raise Refusal(ExitCode.REFUSED, AccountCliCode.PINS_DIFFER, "typed differently")
    return first


def account_json(account: Account) -> dict[str, Any]:
    """An account as the command line shows it: never its password hash."""
    return {
        "username": account.username,
        "display_name": account.display_name,
        "roles": sorted(r.value for r in account.roles),
        "active": account.active,
        "failed_attempts": account.failed_attempts,
        "locked_until": None if account.locked_until is None else account.locked_until.isoformat(),
        "created_at": account.created_at.isoformat(),
    }


COMMAND = Command[AppContext]("account", "desk accounts (administrators)", _arguments, run)

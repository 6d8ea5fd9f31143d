"""Who runs a command over the visitor file, and who takes a director's decision.

Art. 20.3 makes the game director answer for the admission service, and arts. 23.5
and 24 give the director decisions a clerk may not take. So a command that records an
act signs in an account of the file (``--user NAME``, else ``ADMISSION_USER``; the
password from ``ADMISSION_PASSWORD``, else asked on the terminal, never on the command
line) and records its user name. A director's decision (an override or an exceptional
card at ``admit``, voiding or reprinting a card, confirming the clock for a purge)
takes the director's own credentials at that moment (``--director NAME``, the password
from ``ADMISSION_DIRECTOR_PASSWORD`` or asked) through
:meth:`admission.accounts.AccountService.authorise`, audited with what it is for.

A file without accounts yet (just made by ``init``) keeps working for the operator's
acts, recorded under ``cli`` so scripted set-ups still run; a director's decision is
refused there (``DIRECTOR_ACCOUNT_REQUIRED``): create the accounts first (``account
add``).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Callable
from enum import unique
from typing import Any, TypeVar

from admission.accounts import AccountError, AccountService, Operator, Role
from admission.codes import Code
from ui.cli.result import CommandResult, ExitCode, error
from ui.context import AppContext

__all__ = [
    "DIRECTOR_PASSWORD_ENV",
    "NEW_PASSWORD_ENV",
    "NO_ACCOUNTS_ACTOR",
    "PASSWORD_ENV",
    "USER_ENV",
    "Refusal",
    "SignInCode",
    "actor",
    "add_director_argument",
    "add_user_argument",
    "director",
    "director_on",
    "guarded",
    "new_password",
    "operator",
    "secret",
]

USER_ENV = "ADMISSION_USER"
PASSWORD_ENV = "ADMISSION_PASSWORD"
DIRECTOR_PASSWORD_ENV = "ADMISSION_DIRECTOR_PASSWORD"
NEW_PASSWORD_ENV = "ADMISSION_NEW_PASSWORD"
NO_ACCOUNTS_ACTOR = "cli"  # the actor recorded while the file has no account yet
MAX_PURPOSE = 80  # admission.accounts refuses a longer purpose


@unique
class SignInCode(Code):
    """Why a command is refused before it signs anybody in."""

    USER_REQUIRED = "USER_REQUIRED"  # the file has accounts: --user NAME or ADMISSION_USER
    PASSWORD_REQUIRED = "PASSWORD_REQUIRED"  # no password variable and no terminal to ask
    NO_ACCOUNTS = "NO_ACCOUNTS"  # a user named, but the file has no account yet
    DIRECTOR_NAME_REQUIRED = "DIRECTOR_NAME_REQUIRED"  # a director's decision: --director
    DIRECTOR_ACCOUNT_REQUIRED = "DIRECTOR_ACCOUNT_REQUIRED"  # no accounts: create them first
    PASSWORDS_DIFFER = "PASSWORDS_DIFFER"  # the new password typed twice differently


class Refusal(Exception):
    """A command refused before it acts, answered as ``{"error", "message"...}``."""

    def __init__(self, exit_code: ExitCode, code: Code, detail: str = "") -> None:
        super().__init__(detail)
        self.exit_code = exit_code
        self.code = code
        self.detail = detail

    def result(self) -> CommandResult:
        return error(self.exit_code, self.code, self.detail)


def add_user_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--user",
        metavar="NAME",
        default=None,
        help=f"the account signing in (default: ${USER_ENV}); its password from "
        f"${PASSWORD_ENV}, else asked on the terminal",
    )


def add_director_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--director",
        metavar="NAME",
        default=None,
        help=f"the game director who {what} (art. 20.3); the director's password from "
        f"${DIRECTOR_PASSWORD_ENV}, else asked on the terminal",
    )


def _user_name(args: argparse.Namespace) -> str:
    named = getattr(args, "user", None)
    if named is None:
        named = os.environ.get(USER_ENV, "")
    return named.strip()


def secret(variable: str, prompt: str) -> str:
    """A password from ``variable``, else typed on the terminal (not echoed); never an
    argument (the process list and the shell history would show it)."""
    value = os.environ.get(variable)
    if value:
        return value
    if sys.stdin is not None and sys.stdin.isatty():
        return getpass.getpass(prompt)
    raise Refusal(
        ExitCode.USAGE, SignInCode.PASSWORD_REQUIRED, f"set {variable} or run on a terminal"
    )


def operator(args: argparse.Namespace, ctx: AppContext) -> Operator | None:
    """The account signed in with ``--user`` and its password (audited, LOGIN or
    LOGIN_FAILED), or None while the file has no account yet."""
    name = _user_name(args)
    if not ctx.accounts.has_accounts():
        if name:
            raise Refusal(
                ExitCode.USAGE, SignInCode.NO_ACCOUNTS, "the file has no account: 'account add'"
            )
        return None
    if not name:
        raise Refusal(ExitCode.USAGE, SignInCode.USER_REQUIRED, f"give --user NAME or {USER_ENV}")
    password = secret(PASSWORD_ENV, "Contraseña / password: ")
    return ctx.accounts.sign_in(name, password)


def actor(args: argparse.Namespace, ctx: AppContext) -> str:
    """The user name an operator's act records: the account signed in, or ``cli``
    while the file has no account yet."""
    signed = operator(args, ctx)
    return NO_ACCOUNTS_ACTOR if signed is None else signed.username


def require_director_account(ctx: AppContext) -> None:
    """A director's decision needs a director's account: refused in a file without
    accounts (art. 20.3: a name typed by anybody proves nobody)."""
    if not ctx.accounts.has_accounts():
        raise Refusal(
            ExitCode.REFUSED,
            SignInCode.DIRECTOR_ACCOUNT_REQUIRED,
            "create the accounts first: 'account add'",
        )


def director(args: argparse.Namespace, ctx: AppContext, purpose: str) -> Operator:
    """The game director who takes this decision now, with the director's own
    credentials (AUTHORISED or AUTHORISATION_FAILED in the audit trail, with
    ``purpose``); an account without the DIRECTOR role is refused (ROLE_REQUIRED)."""
    require_director_account(ctx)
    name = (getattr(args, "director", None) or "").strip()
    if not name:
        raise Refusal(ExitCode.USAGE, SignInCode.DIRECTOR_NAME_REQUIRED, "give --director NAME")
    password = secret(DIRECTOR_PASSWORD_ENV, "Contraseña del director / director's password: ")
    return ctx.accounts.authorise(name, password, Role.DIRECTOR, purpose[:MAX_PURPOSE])


def director_on(args: argparse.Namespace, accounts: AccountService, purpose: str) -> Operator:
    """:func:`director` on ``accounts`` that are not the open file's: a restore signs
    the director in on the backup's own accounts (the file that held the live ones is
    gone)."""
    if not accounts.has_accounts():
        raise Refusal(
            ExitCode.REFUSED,
            SignInCode.DIRECTOR_ACCOUNT_REQUIRED,
            "the backup has no accounts: its loss cannot be accepted by a director",
        )
    name = (getattr(args, "director", None) or "").strip()
    if not name:
        raise Refusal(ExitCode.USAGE, SignInCode.DIRECTOR_NAME_REQUIRED, "give --director NAME")
    password = secret(DIRECTOR_PASSWORD_ENV, "Contraseña del director / director's password: ")
    return accounts.authorise(name, password, Role.DIRECTOR, purpose[:MAX_PURPOSE])


def new_password() -> str:
    """A new password from ``ADMISSION_NEW_PASSWORD``, else typed twice on the terminal."""
    value = os.environ.get(NEW_PASSWORD_ENV)
    if value:
        return value
    first = secret(NEW_PASSWORD_ENV, "Nueva contraseña / new password: ")
    again = getpass.getpass("Repita la contraseña / repeat the password: ")
    if first != again:
        raise Refusal(ExitCode.REFUSED, SignInCode.PASSWORDS_DIFFER, "typed differently")
    return first


C = TypeVar("C")


def guarded(
    run: Callable[[argparse.Namespace, C], CommandResult],
) -> Callable[[argparse.Namespace, C], CommandResult]:
    """``run`` answering a refused sign-in or authorisation as a JSON error: exit 1
    (``BAD_CREDENTIALS``, ``ACCOUNT_LOCKED`` with ``locked_until``, ``ROLE_REQUIRED``...)
    or the :class:`Refusal`'s own exit code."""

    def answer(args: argparse.Namespace, ctx: C) -> CommandResult:
        try:
            return run(args, ctx)
        except Refusal as refusal:
            return refusal.result()
        except AccountError as refused:
            extra: dict[str, Any] = {}
            if refused.locked_until is not None:
                extra["locked_until"] = refused.locked_until.isoformat()
            return error(ExitCode.REFUSED, refused.code, str(refused), **extra)

    return answer

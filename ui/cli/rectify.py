"""``rectify name FILE`` and ``rectify observation FILE OBS_ID``: the game director
corrects inaccurate data of the visitor file (GDPR art. 16; Decreto 58/2006 arts. 14.1.b,
20.3 and 20.4: the director keeps the files in custody and answers for them).

``--as NAME`` signs the director in (the password from ``ADMISSION_PASSWORD``, else
asked on the terminal); ``--reason TEXT`` says why (3-200 characters, kept in the audit
trail). The rules - only the director, the checks of the new value, the audit entry
written with the change - are :class:`admission.data_protection.DataProtectionService`'s;
this module only parses and answers JSON.
"""

from __future__ import annotations

import argparse

from admission.accounts import Operator
from admission.data_protection import DataProtectionError, DataProtectionService
from ui.cli.args import bounded_int, record_json
from ui.cli.result import Command, CommandResult, ExitCode, error
from ui.cli.sign_in import Refusal, SignInCode, operator
from ui.context import AppContext

__all__ = ["COMMAND", "add_as_argument", "signed_in"]

FILE_NUMBER = bounded_int(1, 999_999_999)
OBSERVATION_ID = bounded_int(1, 999_999_999_999)


def add_as_argument(parser: argparse.ArgumentParser, who: str) -> None:
    """``--as NAME``: the account signing in (``operator`` reads it as ``--user``)."""
    parser.add_argument(
        "--as",
        dest="user",
        metavar="NAME",
        required=True,
        help=f"{who} signing in; the password from $ADMISSION_PASSWORD, else asked on the terminal",
    )


def signed_in(args: argparse.Namespace, ctx: AppContext) -> Operator:
    """The account named by ``--as``, signed in (audited LOGIN / LOGIN_FAILED)."""
    signed = operator(args, ctx)
    if signed is None:  # a file without accounts has no director
        raise Refusal(ExitCode.USAGE, SignInCode.NO_ACCOUNTS, "the file has no account")
    return signed


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="rectify_command", required=True)
    name = sub.add_parser(
        "name", parents=[common], help="correct a visitor's surname and given names"
    )
    name.add_argument("file", type=FILE_NUMBER, help="file number")
    name.add_argument("--surname", required=True, help="1-60 letters, spaces, ' - .")
    name.add_argument("--given-names", required=True, help="0-60 letters ('' for none)")
    _common(name)
    note = sub.add_parser("observation", parents=[common], help="correct an observation's text")
    note.add_argument("file", type=FILE_NUMBER, help="file number")
    note.add_argument("observation", type=OBSERVATION_ID, help="the observation's id")
    note.add_argument("--text", required=True, help="the corrected text (1-500 characters)")
    _common(note)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reason", required=True, help="why (3-200 characters, audited)")
    add_as_argument(parser, "the game director")


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    who = signed_in(args, ctx)  # signed in before anything is read
    service = DataProtectionService(ctx.reads, ctx.clock)
    try:
        if args.rectify_command == "name":
            visitor = service.rectify_name(
                who, args.file, args.surname, args.given_names, args.reason
            )
            return ExitCode.OK, {"rectified": True, "visitor": record_json(visitor)}
        note = service.rectify_observation(who, args.file, args.observation, args.text, args.reason)
        return ExitCode.OK, {"rectified": True, "observation": record_json(note)}
    except DataProtectionError as refused:
        return error(ExitCode.REFUSED, refused.code, str(refused))


COMMAND = Command[AppContext](
    "rectify", "correct a name or an observation (game director; GDPR art. 16)", _arguments, run
)

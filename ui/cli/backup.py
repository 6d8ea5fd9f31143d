"""``backup --out FILE`` and ``restore FILE``: the visitor file must outlive its disk.

Art. 20.4 keeps the file six months; a dead disk must not lose it. ``backup`` writes an
encrypted copy (same key) while the desk keeps working, audited BACKUP under the
signed-in account - an administrator or the game director, who answers for the file's
custody (art. 14.1.b) - and remembers it so that ``purge`` can warn about copies past
retention. ``restore`` makes a backup the visitor file of an empty data folder, after
checking the key, the casino, the integrity and the audit chain; it never replaces a
file that is there. A backup older than what the folder recorded (a newer backup, card
PDFs of later cards, the highest numbers issued and the audit head kept beside the file)
is refused with what it would lose (RESTORE_LOSES_DATA, exit 1) unless ``--accept-loss``
is given and the game director signs it (``--director NAME``, the password from
``ADMISSION_DIRECTOR_PASSWORD``), on the backup's own accounts; the card and voucher
numbers then resume past the highest ever issued. See docs/backup.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from enum import unique
from pathlib import Path

from admission.accounts import AccountService, Role
from admission.codes import Code
from admission.restore_loss import RestoreLoss, RestoreLossError
from ui.cli.args import add_output_arguments
from ui.cli.result import Command, CommandResult, ExitCode, error
from ui.cli.sign_in import (
    NO_ACCOUNTS_ACTOR,
    Refusal,
    SignInCode,
    add_director_argument,
    add_user_argument,
    director_on,
    guarded,
    operator,
)
from ui.context import AppContext, Tools

__all__ = ["BACKUP", "RESTORE", "BackupCliCode"]


@unique
class BackupCliCode(Code):
    BACKUP_ROLE_REQUIRED = "BACKUP_ROLE_REQUIRED"  # only an administrator or the director


def _backup_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    add_output_arguments(parser, required=True, what="the backup file to write")
    add_user_argument(parser)


def run_backup(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    signed = operator(args, ctx)
    if signed is not None and not (signed.has(Role.ADMIN) or signed.has(Role.DIRECTOR)):
        return error(
            ExitCode.REFUSED,
            BackupCliCode.BACKUP_ROLE_REQUIRED,
            "a backup is taken by an administrator or the game director",
        )
    who = NO_ACCOUNTS_ACTOR if signed is None else signed.username
    info = ctx.backup_file(args.out, who, force=args.force)
    return ExitCode.OK, {
        "backup": str(info.path),
        "bytes": info.size,
        "seconds": round(info.seconds, 3),
        "file_id": info.file_id,
        "taken_at": info.taken_at.isoformat(),
    }


LOSS_PURPOSE = "Restaurar una copia anterior con pérdida de registros (art. 20.4)"


def _restore_arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument("source", type=Path, help="a backup written by 'backup'")
    parser.add_argument(
        "--accept-loss",
        action="store_true",
        help="restore a backup older than what this folder recorded (with --director)",
    )
    add_director_argument(parser, "accepts what an older backup loses")


def _accepted(args: argparse.Namespace) -> Callable[[RestoreLoss, AccountService], str] | None:
    """The director's signature on the loss, asked only when there is one."""
    if not args.accept_loss:
        return None
    if not (args.director or "").strip():  # said before the backup is even read
        raise Refusal(ExitCode.USAGE, SignInCode.DIRECTOR_NAME_REQUIRED, "give --director NAME")

    def sign(loss: RestoreLoss, accounts: AccountService) -> str:
        return director_on(args, accounts, LOSS_PURPOSE).username

    return sign


@guarded
def run_restore(args: argparse.Namespace, tools: Tools) -> CommandResult:
    try:
        info = tools.restore_file(args.source, accept_loss=_accepted(args))
    except RestoreLossError as refused:
        return error(ExitCode.REFUSED, refused.code, str(refused), **refused.loss.answer())
    return ExitCode.OK, {
        "restored": str(info.path),
        "bytes": info.size,
        "seconds": round(info.seconds, 3),
        "file_id": info.file_id,
        "taken_at": None if info.taken_at is None else info.taken_at.isoformat(),
        "audit_entries": info.audit_entries,
        "live_source": info.live_source,
        "loss": None if info.loss is None else info.loss.answer(),
        "accepted_by": info.accepted_by or None,
    }


BACKUP = Command[AppContext](
    "backup", "encrypted copy of the visitor file (art. 20.4)", _backup_arguments, run_backup
)
RESTORE = Command[Tools](
    "restore", "a backup becomes this folder's visitor file", _restore_arguments, run_restore
)

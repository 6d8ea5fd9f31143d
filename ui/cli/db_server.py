"""``db copy-to-server --url URL [--batch N] [--user NAME]``: copy this desk's visitor file
onto the casino's PostgreSQL server (several desks and annex rooms share one file, Decreto
58/2006 arts. 154-155) and verify it (art. 20.4: the file is kept whole; art. 22: card
numbers continue, never reused). ``db.desk_file.ServerCopier`` (made by the composition root)
does the work with :func:`db.pg.copy_file.copy_to_server`.

The server's database must be empty (or hold this file's unfinished copy: the command
run again continues it). The server store is keyed from this desk's file key
(``ADMISSION_DB_KEY`` or the OS keyring, as the desks on the server will be) and uses
this file's audit key, so the audit trail is carried entry by entry and the heads printed
before the move still anchor it. The file itself is not changed (the sign-in of the
account running the command is recorded in it, as every command's).

Answers JSON: the copy's report (counts per table, card numbers, the chain's check,
``differences``). Exit 0 copied and verified; 1 refused (``PG_COPY_TARGET_NOT_EMPTY``,
``PG_COPY_SOURCE_CHANGED``, ``PG_COPY_AUDIT_KEY_DIFFERS``, ``PG_COPY_RUNNING``,
``PG_COPY_SOURCE_UNVERIFIED``, ``ROLE_REQUIRED``) or copied but not verified
(``PG_COPY_MISMATCH``); 2 a bad URL or argument; 3 the file or the server could not be
used (a refused certificate, an unreachable server...). Progress, one line per batch,
goes to stderr.

``db rotate-key (--rewrap | --reencrypt [--retire] | --retire) [--batch N] [--user NAME]``:
change the keys of the visitor file on the server (art. 20.4; GDPR art. 32), through
``ctx.key_rotation`` (``db.pg.rotation.KeyRotation``, made by the composition root):

* ``--rewrap``: a new desk key, the same data keys. The new key is read from
  ``ADMISSION_NEW_DB_KEY`` (as ``ADMISSION_DB_KEY``: 64 hex characters, or a passphrase;
  never an argument, which the process list and the shell history would show). Every
  data key is wrapped again under it in one transaction; afterwards the file opens only
  with it: put it where every desk keeps its key (the keyring entry or
  ``ADMISSION_DB_KEY``) and restart them.
* ``--reencrypt``: a new data key version; every sealed value and blind index of every
  table resealed under it, in batches of ``--batch`` rows (one transaction each). Run
  again after an interruption, it finishes. Close the other desks first, or restart
  them as it starts (they hold only the old version).
* ``--retire`` (with ``--reencrypt``, or alone later): delete the old versions' records
  once no row uses them.

Only an administrator or the director runs it; each rotation is an entry of the audit
trail (kind, versions, row counts). Answers JSON: the rotation's report. Exit 0 done; 1
refused (``ROLE_REQUIRED``, ``PG_DESK_NO_SERVER`` on a desk of its own SQLCipher
file, ``PG_ROTATION_RUNNING``, ``PG_ROTATION_NEW_KEY_MISSING``,
``PG_ROTATION_OLD_VERSION_IN_USE``...) or a re-encryption that left rows behind
(``complete`` false: desks kept writing under the old version; run it again); 2 a bad
argument; 3 the server could not be used.
"""

from __future__ import annotations

import argparse
import sys

from admission.errors import ConfigError, InvalidStateError
from ui.cli.access import actor_for
from ui.cli.args import bounded_int, jsonable
from ui.cli.result import CliError, Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext

__all__ = ["COMMAND"]

BATCH = bounded_int(1, 100_000)
DEFAULT_BATCH = 2000  # rows per server transaction (db.pg.copy_file.DEFAULT_BATCH)
ROTATION_BATCH = 500  # rows per re-encryption transaction (db.pg.rotation.DEFAULT_BATCH)
# a batch is one transaction holding the chain's head: kept well inside the store's
# 20-second watchdog (about 3,000 rows a second)
ROTATION_BATCHES = bounded_int(1, 5000)


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="db_command", required=True)
    copy = sub.add_parser(
        "copy-to-server",
        parents=[common],
        help="copy this desk's visitor file onto the PostgreSQL server and verify it",
    )
    copy.add_argument(
        "--url",
        required=True,
        metavar="URL",
        help="the server's database, as database.url (postgresql://desk@host/db); the "
        "certificates from the data folder's postgresql/ unless the URL names them",
    )
    copy.add_argument(
        "--batch", type=BATCH, default=DEFAULT_BATCH, help="rows per server transaction"
    )
    add_user_argument(copy)
    rotate = sub.add_parser(
        "rotate-key",
        parents=[common],
        help="change the keys of the visitor file on the PostgreSQL server",
    )
    kind = rotate.add_mutually_exclusive_group()
    kind.add_argument(
        "--rewrap",
        action="store_true",
        help="wrap the data keys under a new desk key, read from ADMISSION_NEW_DB_KEY",
    )
    kind.add_argument(
        "--reencrypt",
        action="store_true",
        help="reseal every value under a new data key version (run again if interrupted)",
    )
    rotate.add_argument(
        "--retire",
        action="store_true",
        help="delete the old data key versions once no row uses them",
    )
    rotate.add_argument(
        "--batch", type=ROTATION_BATCHES, default=ROTATION_BATCH, help="rows per transaction"
    )
    add_user_argument(rotate)


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    if args.db_command == "rotate-key":
        return _rotate(args, ctx)
    return _copy(args, ctx)


def _mode(args: argparse.Namespace) -> str | None:
    if args.rewrap:
        return None if args.retire else "rewrap"
    if args.reencrypt:
        return "reencrypt-retire" if args.retire else "reencrypt"
    return "retire" if args.retire else None


def _rotate(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    mode = _mode(args)
    if mode is None:
        return error(
            ExitCode.USAGE, CliError.USAGE, "give --rewrap, or --reencrypt and/or --retire"
        )
    actor = actor_for(args, ctx, "db rotate-key")  # an administrator or the director
    try:
        rotation = ctx.key_rotation  # refused on a desk of its own SQLCipher file
        answer = rotation.rotate(mode=mode, batch=args.batch, progress=_progress, actor=actor)
    except InvalidStateError as refused:
        return error(ExitCode.REFUSED, refused.code, str(refused))
    return (ExitCode.OK if answer.get("complete", True) else ExitCode.REFUSED), answer


def _copy(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    actor = actor_for(args, ctx, "db copy-to-server")  # an administrator or the director
    try:
        ctx.server_copy.check(args.url)
    except ConfigError as bad:
        return error(ExitCode.USAGE, bad.code, str(bad))
    try:
        verified, answer = ctx.server_copy.copy(args.url, args.batch, _progress, actor)
    except InvalidStateError as refused:
        return error(ExitCode.REFUSED, refused.code, str(refused))
    return (ExitCode.OK if verified else ExitCode.REFUSED), jsonable(answer)


COMMAND = Command[AppContext]("db", "the visitor file on a PostgreSQL server", _arguments, run)

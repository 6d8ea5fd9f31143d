"""``server confirm-restore [--user NAME]``: an operator confirms that the casino's server
was restored to an earlier minute (a base backup and its archived WAL). Until then a desk
that saw a later entry of the audit trail refuses to write (``PG_FILE_WENT_BACK``): the
cards issued after that minute exist on paper, and writing on would give their numbers
again (Decreto 58/2006, art. 22.1).

The confirmation is an entry of the audit trail (``FILE_RESTORED``: the entry this desk
saw and the server's newest, with the entries and minutes missing); this desk writes
again, and so does every other desk whose last entry the restore lost (it finds the
entry at its start). Only an administrator or the director runs it.

Answers JSON: ``{"confirmed": true, "seq", "remembered_seq", "restored_seq",
"entries_missing", "minutes_missing"...}``. Exit 0 confirmed; 1 refused
(``PG_FILE_NOT_WENT_BACK``: nothing to confirm; ``PG_DESK_NO_SERVER`` on a desk of its
own file; ``ROLE_REQUIRED``); 3 the server could not be used.
"""

from __future__ import annotations

import argparse
from typing import Protocol, runtime_checkable

from admission.errors import InvalidStateError
from ui.cli.access import actor_for
from ui.cli.result import Command, CommandResult, ExitCode, error
from ui.cli.sign_in import add_user_argument
from ui.context import AppContext

__all__ = ["COMMAND"]

NO_SERVER = "PG_DESK_NO_SERVER"  # db.pg.codes.PgDeskCode.NO_SERVER (ui names no adapter)


@runtime_checkable
class RestoreConfirmation(Protocol):
    """The server's store of a desk (db/pg/rewound.py)."""

    def confirm_restore(self, actor: str) -> dict[str, object]: ...


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="server_command", required=True)
    confirm = sub.add_parser(
        "confirm-restore",
        parents=[common],
        help="confirm that the server was restored to an earlier minute; the desk writes again",
    )
    add_user_argument(confirm)


def run(args: argparse.Namespace, ctx: AppContext) -> CommandResult:
    actor = actor_for(args, ctx, "server confirm-restore")  # an administrator or the director
    store = ctx.store
    if not isinstance(store, RestoreConfirmation):
        return error(ExitCode.REFUSED, NO_SERVER, "this desk works on its own file")
    try:
        answer = store.confirm_restore(actor)
    except InvalidStateError as refused:
        return error(ExitCode.REFUSED, refused.code, str(refused))
    return ExitCode.OK, answer


COMMAND = Command[AppContext]("server", "the casino's PostgreSQL server", _arguments, run)

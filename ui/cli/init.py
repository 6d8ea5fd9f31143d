"""``init [--adopt]``: create the visitor file - an explicit, audited act (art. 20.4).

The visitor file is a legal record kept six months: it never starts over on its own.
Every other command refuses a folder without one (NO_FILE), and a folder whose file
went missing, was emptied or replaced (FILE_MISSING, FILE_EMPTIED, FILE_REPLACED).
``init`` creates the file and the marker beside it, and writes FILE_CREATED in the
audit trail; it refuses (FILE_EXISTS) where a file or a marker already is.

``init --adopt`` writes a new marker for the file already in the folder, after a full
check of its pages: the way back when the marker was lost (MARKER_MISSING), or to
accept on purpose a file put there by hand. Audited as FILE_ADOPTED.
"""

from __future__ import annotations

import argparse

from ui.cli.result import Command, CommandResult, ExitCode
from ui.context import Tools


def _arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--adopt",
        action="store_true",
        help="write the marker of the visitor file already in the folder, after a full check",
    )


def run(args: argparse.Namespace, tools: Tools) -> CommandResult:
    adopt = bool(getattr(args, "adopt", False))
    file_id = tools.init_file(adopt=adopt)
    return ExitCode.OK, {
        "adopted" if adopt else "created": True,
        "file_id": file_id,
        "data_dir": str(tools.data_dir),
    }


COMMAND = Command[Tools]("init", "create the visitor file (art. 20.4)", _arguments, run)

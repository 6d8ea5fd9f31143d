"""The desk's own log: ``<data folder>/logs/desk.log``, rotated at about 1 MiB, five
files kept, UTF-8, INFO and above with the time, the level, the logger and the message.

It is what a technician reads when something went wrong at the counter (and what the
support bundle carries, ``ui.cli.support``). The program logs codes, counts and file
numbers, never a visitor's name or document number (art. 20.4; a test runs the demo
and the smoke run and reads every log file for the invented people). The folder and
the files are the desk user's only where the OS has POSIX modes (on Windows the data
folder under the user's profile is already private to that user).

Installed once per process by ``main.run``; stderr keeps its WARNING lines as before.
The file is opened at the first record, and only in a data folder that exists. A log
that cannot be written (a read-only folder, a full disk) never stops the desk: it says
so once on stderr and the desk runs without it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

__all__ = ["LOG_BACKUPS", "LOG_BYTES", "LOG_DIR", "LOG_FILE", "install_desk_log", "log_files"]

LOG_DIR = "logs"  # in the data folder (main.DESK_OWN_NAMES keeps --out away from it)
LOG_FILE = "desk.log"
LOG_BYTES = 1024 * 1024  # about 1 MiB a file
LOG_BACKUPS = 4  # desk.log and desk.log.1 ... desk.log.4: five files at most
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_OWNER_ONLY_DIR = 0o700
_OWNER_ONLY_FILE = 0o600


class _OwnerOnlyHandler(RotatingFileHandler):
    """A rotating handler opened at its first record, never before: it makes its
    ``logs`` folder inside the data folder, never the data folder itself (that is made
    by ``init``, the wizard, a restore or the demo; a refused command leaves no folder).
    Every file (the first and each one after a rollover) is the desk user's alone. A
    log that cannot be written says so once on stderr, then the desk runs without it."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            path, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8", delay=True
        )
        self._folder = path.parent
        self._broken = False

    def _open(self):  # type: ignore[no-untyped-def]  # logging's own signature
        self._folder.mkdir(exist_ok=True, mode=_OWNER_ONLY_DIR)
        _owner_only(self._folder, _OWNER_ONLY_DIR)
        stream = super()._open()
        _owner_only(Path(self.baseFilename), _OWNER_ONLY_FILE)
        return stream

    def emit(self, record: logging.LogRecord) -> None:
        if self._broken or (self.stream is None and not self._folder.parent.is_dir()):
            return  # no data folder (yet): nothing of the desk's to keep a log beside
        super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:  # logging names it so
        if not self._broken:
            self._broken = True
            kind = type(sys.exc_info()[1]).__name__
            print(f"WARNING desk log: not written ({kind})", file=sys.stderr)


def _owner_only(path: Path, mode: int) -> None:
    if os.name == "posix" and hasattr(os, "chmod"):
        # a file system without modes (a FAT stick): nothing more to do
        with contextlib.suppress(OSError):
            os.chmod(path, mode)


def install_desk_log(data_dir: Path) -> Path:
    """Add the rotating file handler to the root logger (once: a second call for the
    same file adds nothing; another folder's replaces it) and return the log file."""
    path = data_dir / LOG_DIR / LOG_FILE
    root = logging.getLogger()
    for handler in list(root.handlers):  # one desk log per process: the newest folder's
        if isinstance(handler, _OwnerOnlyHandler):
            if handler.baseFilename == os.path.abspath(path):
                return path
            root.removeHandler(handler)
            handler.close()
    handler = _OwnerOnlyHandler(path)
    handler.setLevel(logging.INFO)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)  # the stderr handler keeps its own WARNING level
    return path


def log_files(data_dir: Path) -> list[Path]:
    """The log's files, newest first (desk.log, desk.log.1, ...)."""
    folder = data_dir / LOG_DIR
    found = [folder / LOG_FILE] + [folder / f"{LOG_FILE}.{n}" for n in range(1, LOG_BACKUPS + 1)]
    return [p for p in found if p.is_file()]

"""What killed restores leave in the data folder, and sweeping it (art. 20.4: the folder
holds the visitor file, never half of one or stray copies of it).

A restore (db/restore.py) copies the backup to ``.visitors.db.restore.<random>.tmp`` and
holds an exclusive ``flock`` on it until it ends; SQLite may add ``-wal``/``-shm`` beside
it while the copy is checked. A SIGKILL leaves those files (tens of MB each) behind.
:func:`sweep_leftovers`, run by every command before it opens the folder (main.py),
removes the copies nobody holds - a restore still running holds its lock, a killed one
no longer does - and their side files, and the temporary files of killed writes of the
marker, the record of numbers issued and the backup list (named with a pid no longer
alive). A copy whose marker was already written is the whole, checked restore (the
marker is written only after the copy was adopted and made durable): it is renamed
into place instead. So the folder's file is the old one or the whole new one.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path

from admission.errors import StoreError
from db.backup import DB_FILE
from db.file_guard import (
    SIDE_FILES,
    fsync_folder,
    read_marker,
    remove_with_sides,
    salt_of,
    unlink,
)

__all__ = [
    "SIDE_FILES",
    "TEMP_PREFIX",
    "folder_lock",
    "fsync_folder",
    "remove_with_sides",
    "sweep_leftovers",
    "unlink",
]

log = logging.getLogger(__name__)

TEMP_PREFIX = f".{DB_FILE}.restore."
_PID_TEMP = re.compile(r"^\.(?:visitors\.db\.marker|issued\.json|backups\.json)\.(\d+)\.tmp$")


def sweep_leftovers(data_dir: Path) -> list[str]:
    """Remove what killed restores (and killed writes of the marker, the record or the
    backup list) left in ``data_dir``; return the names removed (no personal data in
    them). A temporary copy whose marker was written is the whole, checked restore: it
    is put in place instead. Temporary files a live process holds are left alone."""
    done: list[str] = []
    try:
        names = os.listdir(data_dir)
    except OSError:
        return done
    path = Path(data_dir) / DB_FILE
    for name in names:
        item = Path(data_dir) / name
        if name.startswith(TEMP_PREFIX) and name.endswith(".tmp"):
            done.extend(_sweep_copy(item, path))
        elif name.startswith(TEMP_PREFIX) and name.endswith(SIDE_FILES):
            base = name[: name.rindex("-")]
            if not (Path(data_dir) / base).exists() and unlink(item):
                done.append(name)
        else:
            match = _PID_TEMP.match(name)
            if match and not _alive(int(match.group(1))) and unlink(item):
                done.append(name)
    if done:
        log.warning("removed %d file(s) left by an interrupted restore or write", len(done))
    return done


def _sweep_copy(temp: Path, path: Path) -> list[str]:
    try:
        fd = os.open(temp, os.O_RDONLY)
    except OSError:
        return []
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return []  # a restore is running
        try:
            with folder_lock(path.parent):
                if _finished(temp, path):
                    os.replace(temp, path)
                    fsync_folder(path.parent)
                    log.warning("an interrupted restore was completed (its copy was checked)")
                    return [temp.name]
                return remove_with_sides(temp)
        except OSError:
            return []  # left for a command that can write the folder
    finally:
        os.close(fd)


def _finished(temp: Path, path: Path) -> bool:
    """The marker of this very copy is written and no file is in place."""
    if path.exists():
        return False
    try:
        marker = read_marker(path)
        return marker is not None and marker.salt == salt_of(temp)
    except (StoreError, OSError):
        return False


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive flock on the data folder itself while a restore's marker and copy
    are put in place (or a killed one's are finished): one restore wins, whole."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)

"""Files the desk writes: whole or not at all, and only where they belong (art. 20.4).

The visitor file is the legal record: a report, an export, a voucher, a leaflet or a
backup must never be written over it, over its companions (its WAL, its marker, its
audit key...) or over whatever else the desk keeps in its data folder; and a path typed
by hand must not replace a file that is there by surprise, nor a device, a folder or a
system file. One helper serves every such file, so the rules are the same everywhere:

* :meth:`OutputGuard.target` checks a path before anything is written: the file must be
  a new name in a folder that exists, or - only when the operator said so (``--force``,
  or a save dialog that asked before replacing) - a regular file. The visitor file's own
  entries in the data folder are refused even then (OUTPUT_PROTECTED), folders, devices,
  pipes and sockets always (OUTPUT_NOT_A_FILE). The path is resolved first, so a symlink
  or a ``..`` chain is judged by where it lands.
* :func:`write_atomically` puts the bytes in a temporary file in the same folder (owner
  only, 0600), flushes it to the disk and renames it over the target in one step: a
  full disk or a killed process leaves the target as it was and no temporary file.

Codes, never tracebacks: a path refused is an :class:`OutputError`; a write that fails
is the ``OSError`` the caller maps to its own code (a card file, an export, a backup).
Standard library only: every layer (db/, hardware/, ui/) reaches it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from dataclasses import dataclass
from enum import unique
from pathlib import Path

from admission.codes import Code
from admission.errors import AdmissionError

__all__ = [
    "ANYWHERE",
    "NAME_MAX",
    "OutputCode",
    "OutputError",
    "OutputGuard",
    "appeared",
    "publish",
    "sync_folder",
    "temp_beside",
    "write_atomically",
]

NAME_MAX = 255  # bytes in one file name (POSIX NAME_MAX on the desks' file systems)
PATH_MAX = 4096  # bytes in a whole path (Linux PATH_MAX)
_TEMP_PREFIX = ".desk-"  # short: a target name of 255 bytes still has a temporary name


@unique
class OutputCode(Code):
    """Why a file the desk was asked to write was refused before a byte was written."""

    OUTPUT_EXISTS = "OUTPUT_EXISTS"  # a file is there: replaced only with --force
    OUTPUT_PROTECTED = "OUTPUT_PROTECTED"  # the visitor file or what belongs to it: never
    OUTPUT_NOT_A_FILE = "OUTPUT_NOT_A_FILE"  # a folder, a device, a pipe, a socket
    OUTPUT_NO_FOLDER = "OUTPUT_NO_FOLDER"  # the folder named is not there (or not reached)
    OUTPUT_NAME_TOO_LONG = "OUTPUT_NAME_TOO_LONG"  # a name over 255 bytes, a path over 4096


class OutputError(AdmissionError):
    """A path refused as an output; ``code`` is an :class:`OutputCode`."""

    code: Code = OutputCode.OUTPUT_NOT_A_FILE


@dataclass(frozen=True, slots=True)
class OutputGuard:
    """Where the desk may write a file the operator names. ``folder`` is the data
    folder: whatever is already there, at its top, belongs to the desk (the visitor
    file, its companions, the settings, the high-water marks...) and is never written
    over. ``own`` are the beginnings of the names the desk keeps or may yet create there
    (the visitor file's, so its WAL, SHM, journal, marker and audit key; temporary
    files; the settings; the backup list; the card PDFs' and the certificates'
    folders): such a name, and anything below it, is never written either. A folder
    of the operator's own inside the data folder is an ordinary folder."""

    folder: Path | None  # None: no data folder to keep (ANYWHERE)
    own: tuple[str, ...] = ()
    # other data folders kept the same way: the desk's usual one when this desk works
    # in another (the demo's folder lies inside the real one; a --data-dir elsewhere)
    others: tuple[Path, ...] = ()

    def target(self, path: Path, *, force: bool = False) -> Path:
        """The resolved path ``path`` names, once checked (see the module's docstring).
        Raises OutputError."""
        if len(os.fsencode(path)) > PATH_MAX or len(os.fsencode(Path(path).name)) > NAME_MAX:
            raise OutputError("the name is too long", code=OutputCode.OUTPUT_NAME_TOO_LONG)
        try:
            resolved = Path(os.path.realpath(path))
        except (OSError, ValueError) as exc:  # a symlink loop (strict resolvers), a NUL
            raise OutputError(f"the path cannot be resolved ({_why(exc)})") from exc
        if len(os.fsencode(resolved)) > PATH_MAX or len(os.fsencode(resolved.name)) > NAME_MAX:
            raise OutputError("the name is too long", code=OutputCode.OUTPUT_NAME_TOO_LONG)
        if self.protects(resolved):
            raise OutputError(
                "that is the visitor file's or belongs to it; it is never written over",
                code=OutputCode.OUTPUT_PROTECTED,
            )
        _check_folder(resolved.parent)
        try:
            info = os.lstat(resolved)
        except FileNotFoundError:
            return resolved  # a new name in a folder that exists
        except OSError as exc:
            raise _refusal(exc) from exc
        if not stat.S_ISREG(info.st_mode):
            raise OutputError(
                "not a regular file (a folder, a device, a pipe or a socket)",
                code=OutputCode.OUTPUT_NOT_A_FILE,
            )
        if not force:
            raise OutputError(
                "a file is already there: give --force to replace it",
                code=OutputCode.OUTPUT_EXISTS,
            )
        return resolved

    def protects(self, resolved: Path) -> bool:
        """Whether ``resolved`` (a resolved path) is the data folder, an entry at its
        top that is there, or is or lies under one of its own names. Names are compared
        case-folded: on a file system that ignores case, ``VISITORS.DB`` is the file.
        The ``others`` folders are kept the same way."""
        folders = ([] if self.folder is None else [self.folder]) + list(self.others)
        return any(self._keeps(folder, resolved) for folder in folders)

    def _keeps(self, folder: Path, resolved: Path) -> bool:
        try:
            folder = Path(os.path.realpath(folder))
        except (OSError, ValueError):
            folder = Path(folder)
        try:
            inside = resolved.relative_to(folder)
        except ValueError:
            return False
        if not inside.parts:
            return True  # the data folder itself
        first = inside.parts[0]
        if len(inside.parts) == 1 and os.path.lexists(resolved):
            return True
        return any(first.casefold().startswith(own.casefold()) for own in self.own)

    def write(self, path: Path, data: bytes, *, force: bool = False) -> Path:
        """``data`` at ``path`` once :meth:`target` accepts it, written atomically and
        durably (0600); the resolved path written. Raises OutputError, or the OSError of
        a write that failed (nothing is left then)."""
        resolved = self.target(path, force=force)
        try:
            write_atomically(resolved, data, replace=force)
        except FileExistsError as exc:
            raise appeared() from exc
        sync_folder(resolved.parent)
        return resolved


# the checks every output gets, with no data folder to keep (a test's, a tool's)
ANYWHERE = OutputGuard(None)


def write_atomically(
    path: Path,
    data: bytes,
    *,
    prefix: str = _TEMP_PREFIX,
    suffix: str = ".tmp",
    replace: bool = True,
) -> None:
    """``data`` at ``path`` (mode 0600), or nothing there and no temporary file left;
    the temporary file is ``<prefix><pid>.<random><suffix>`` in the same folder. With
    ``replace`` false a file that appeared at ``path`` meanwhile is kept
    (FileExistsError)."""
    temp = temp_beside(path, prefix=prefix, suffix=suffix)
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
        try:
            if hasattr(os, "fchmod"):  # Windows: the file's ACL comes from its folder's
                os.fchmod(fd, 0o600)  # whatever the umask
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        publish(temp, path, replace=replace)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise


def temp_beside(path: Path, *, prefix: str = _TEMP_PREFIX, suffix: str = ".tmp") -> Path:
    """A name for a temporary file in ``path``'s folder (not created)."""
    return path.parent / f"{prefix}{os.getpid()}.{secrets.token_hex(4)}{suffix}"


def publish(temp: Path, path: Path, *, replace: bool) -> None:
    """Rename the finished ``temp`` over ``path`` in one step. Without ``replace`` a
    file (or anything else) that appeared at ``path`` since it was checked is kept:
    FileExistsError. The caller removes ``temp`` when this raises."""
    if not replace and os.path.lexists(path):
        raise FileExistsError(errno.EEXIST, "a file appeared there", str(path))
    os.replace(temp, path)


def appeared() -> OutputError:
    """The refusal of :func:`publish` without ``replace`` (its FileExistsError)."""
    return OutputError(
        "a file appeared there meanwhile; it was kept", code=OutputCode.OUTPUT_EXISTS
    )


def sync_folder(folder: Path) -> None:
    """Make a rename (or a removal) in ``folder`` durable; a folder that cannot be
    opened for it (some network shares) keeps the file as written."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # the temporary name is never a link planted there
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _check_folder(folder: Path) -> None:
    try:
        info = os.stat(folder)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise OutputError("the folder is not there", code=OutputCode.OUTPUT_NO_FOLDER) from exc
    except OSError as exc:
        raise _refusal(exc) from exc
    if not stat.S_ISDIR(info.st_mode):
        raise OutputError("the folder is not a folder", code=OutputCode.OUTPUT_NO_FOLDER)


def _refusal(exc: OSError) -> OutputError:
    if exc.errno == errno.ENAMETOOLONG:
        return OutputError("the name is too long", code=OutputCode.OUTPUT_NAME_TOO_LONG)
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return OutputError("the folder is not there", code=OutputCode.OUTPUT_NO_FOLDER)
    if exc.errno == errno.ELOOP:
        return OutputError("a loop of symbolic links", code=OutputCode.OUTPUT_NOT_A_FILE)
    return OutputError(
        f"the folder cannot be reached ({_why(exc)})", code=OutputCode.OUTPUT_NO_FOLDER
    )


def _why(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or type(exc).__name__

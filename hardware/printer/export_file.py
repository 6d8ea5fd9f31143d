"""Where a report or an export goes: a file the operator named (``--out``, or the
window's save dialog). Implements :class:`admission.reports.ExportTarget`.

The visitor file's data leave it only whole (art. 20.4): the bytes go to a temporary
file in the same folder, are flushed to the disk, then renamed over the target in one
step. A full disk, a read-only folder or any other error leaves neither the target nor
the temporary file behind, and answers with a code (EXPORT_DISK_FULL, EXPORT_READ_ONLY,
EXPORT_FAILED). The file is readable by its owner only: it holds personal data.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from admission.reports import ReportCode, ReportError
from hardware.atomic_file import write_atomically

__all__ = ["FileExportTarget"]

_READ_ONLY = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


def _code(exc: OSError) -> ReportCode:
    if exc.errno in _FULL:
        return ReportCode.EXPORT_DISK_FULL
    if exc.errno in _READ_ONLY:
        return ReportCode.EXPORT_READ_ONLY
    return ReportCode.EXPORT_FAILED


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


class FileExportTarget:
    """An export written atomically to ``path``; :meth:`discard` removes it again."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._written = False

    @property
    def name(self) -> str:
        """The file name only (the audit entry names no folder)."""
        return self.path.name

    def write(self, data: bytes) -> None:
        """The whole of ``data`` at ``path``, or nothing (ReportError EXPORT_*)."""
        folder = self.path.parent
        try:
            write_atomically(self.path, data, prefix=f".{self.path.name}.")
        except OSError as exc:
            raise ReportError(
                f"the export could not be written ({_why(exc)}); no file was left",
                code=_code(exc),
            ) from exc
        self._written = True
        self._sync(folder)

    def discard(self) -> None:
        """Remove the file :meth:`write` put there (its audit entry failed)."""
        if not self._written:
            return
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._written = False
        self._sync(self.path.parent)

    @staticmethod
    def _sync(folder: Path) -> None:
        """Make the rename (or the removal) durable; a folder that cannot be opened
        for it (some network shares) keeps the file as written."""
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            return
        try:
            with contextlib.suppress(OSError):
                os.fsync(fd)
        finally:
            os.close(fd)

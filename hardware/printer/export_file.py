"""Where a report or an export goes: a file the operator named (``--out``, or the
window's save dialog). Implements :class:`admission.reports.ExportTarget`.

The visitor file's data leave it only whole (art. 20.4): the bytes go to a temporary
file in the same folder, are flushed to the disk, then renamed over the target in one
step. A full disk, a read-only folder or any other error leaves neither the target nor
the temporary file behind, and answers with a code (EXPORT_DISK_FULL, EXPORT_READ_ONLY,
EXPORT_FAILED). The file is readable by its owner only: it holds personal data.

The path is checked when the target is made, before anything is read or audited
(:class:`admission.atomic_file.OutputGuard`): never the visitor file or what belongs to
it, never a folder or a device, and a file already there only with ``force`` (``--force``,
or the window's save dialog, which asked before replacing it).
"""

from __future__ import annotations

import contextlib
import errno
from pathlib import Path

from admission.atomic_file import ANYWHERE, OutputGuard, appeared, sync_folder, write_atomically
from admission.reports import ReportCode, ReportError

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
    """An export written atomically to ``path``; :meth:`discard` removes it again.
    Raises OutputError when ``guard`` refuses the path (without a guard only the checks
    of every output apply: no folder, device or file already there unless ``force``)."""

    def __init__(
        self, path: Path, *, guard: OutputGuard | None = None, force: bool = False
    ) -> None:
        self.path = Path(path)
        self._force = force
        self._resolved = (guard or ANYWHERE).target(self.path, force=force)
        self._written = False

    @property
    def name(self) -> str:
        """The file name only (the audit entry names no folder)."""
        return self.path.name

    def write(self, data: bytes) -> None:
        """The whole of ``data`` at ``path``, or nothing (ReportError EXPORT_*)."""
        try:
            write_atomically(self._resolved, data, replace=self._force)
        except FileExistsError as exc:
            raise appeared() from exc
        except OSError as exc:
            raise ReportError(
                f"the export could not be written ({_why(exc)}); no file was left",
                code=_code(exc),
            ) from exc
        self._written = True
        sync_folder(self._resolved.parent)

    def discard(self) -> None:
        """Remove the file :meth:`write` put there (its audit entry failed)."""
        if not self._written:
            return
        with contextlib.suppress(FileNotFoundError):
            self._resolved.unlink()
        self._written = False
        sync_folder(self._resolved.parent)

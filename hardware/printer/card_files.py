"""Card PDFs kept in a folder: ``card-NNNNNNNN.pdf`` for the command line and the demo.

They hold a name and a document number, so the retention sweep (art. 20.4, R3) deletes
the files of the cards a purge erased (:meth:`CardFiles.sweep`, the ``CardArchive`` port
of :mod:`admission.retention_sweep`): exactly those, as the purge's report names them,
whatever the visitor file holds now - an emptied or replaced file must not take every
PDF with it. The PDF-folder printer writes into the same folder as ``card-<n>.pdf`` or
``card-<n>-<tag>.pdf``; both forms are a card's file.
"""

from __future__ import annotations

import errno
import re
import time
from collections.abc import Callable, Collection
from pathlib import Path

from admission.atomic_file import write_atomically
from admission.codes import Code
from admission.devices import DeviceErrorCode
from admission.errors import DeviceError

__all__ = ["CardFileCode", "CardFiles"]


class CardFileCode(Code):
    CARD_FILE_DISK_FULL = "CARD_FILE_DISK_FULL"  # no room left for the card's PDF
    CARD_FILE_UNWRITABLE = "CARD_FILE_UNWRITABLE"  # the folder refuses it (read-only...)


_CARD_FILE = re.compile(r"^card-(\d+)(?:-[A-Za-z0-9._-]*)?\.pdf$")
# Temporary files of an interrupted write: CardFiles' own and the PDF-folder printer's.
_TEMPORARY = ("card-*.tmp", ".tmp-*.pdf")
# A temporary file this old is no write in progress (a card PDF is written in ms).
STRAY_AGE_SECONDS = 60.0


class CardFiles:
    """A folder of card PDFs; ``render`` gives the PDF bytes of a card number."""

    def __init__(
        self,
        folder: Path,
        render: Callable[[int], bytes],
        *,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.folder = folder
        self._render = render
        self._wall_clock = wall_clock  # compared with the files' modification times

    def path_of(self, number: int) -> Path:
        return self.folder / f"card-{number:08d}.pdf"

    def write(self, number: int) -> Path:
        """Render card ``number`` into its file, written atomically: the whole file or
        none, never a temporary file left behind. The file is readable by its owner only
        (0600) in a folder only its owner can open (0700): it holds a name and a
        document number. Raises DeviceError: RENDER_FAILED, CARD_FILE_DISK_FULL or
        CARD_FILE_UNWRITABLE (the card itself stays issued, and unprinted)."""
        try:
            pdf = self._render(number)
        except DeviceError:
            raise
        except Exception as exc:  # reportlab and Pillow raise their own types
            raise DeviceError(
                f"card {number}: rendering failed ({type(exc).__name__})",
                code=DeviceErrorCode.RENDER_FAILED,
            ) from exc
        try:
            return self._store(number, pdf)
        except OSError as exc:
            full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
            raise DeviceError(
                f"card {number}: the card file cannot be written ({exc.strerror})",
                code=CardFileCode.CARD_FILE_DISK_FULL
                if full
                else CardFileCode.CARD_FILE_UNWRITABLE,
            ) from exc

    def _store(self, number: int, pdf: bytes) -> Path:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = self.path_of(number)
        write_atomically(path, pdf, prefix="card-")  # 0600; a stray card-*.tmp is swept
        return path

    def sweep(self, purged: Collection[int]) -> int:
        """Delete the files of the cards ``purged``, and temporary files older than
        :data:`STRAY_AGE_SECONDS` before this sweep; return how many were deleted."""
        if not self.folder.is_dir():
            return 0
        numbers = set(purged)
        deleted = 0
        for pdf in self.folder.glob("card-*.pdf"):
            match = _CARD_FILE.match(pdf.name)
            if match is not None and int(match.group(1)) in numbers:
                pdf.unlink(missing_ok=True)
                deleted += 1
        before = self._wall_clock() - STRAY_AGE_SECONDS
        for pattern in _TEMPORARY:
            for tmp in self.folder.glob(pattern):
                try:
                    stale = tmp.stat().st_mtime < before
                except FileNotFoundError:
                    continue  # its write just finished
                if stale:
                    tmp.unlink(missing_ok=True)
                    deleted += 1
        return deleted

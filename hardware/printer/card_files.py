"""Card PDFs kept in a folder: ``card-NNNNNNNN.pdf`` for the command line and the demo.

They hold a name and a document number, so the retention sweep (art. 20.4, R3) deletes
the file of every card the visitor file has erased (:meth:`CardFiles.sweep`, the
``CardArchive`` port of :mod:`admission.retention_sweep`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

__all__ = ["CardFiles"]

_NUMBER = re.compile(r"card-(\d+)")


class CardFiles:
    """A folder of card PDFs; ``render`` gives the PDF bytes of a card number."""

    def __init__(self, folder: Path, render: Callable[[int], bytes]) -> None:
        self.folder = folder
        self._render = render

    def path_of(self, number: int) -> Path:
        return self.folder / f"card-{number:08d}.pdf"

    def write(self, number: int) -> Path:
        """Render card ``number`` into its file, written atomically."""
        pdf = self._render(number)
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path_of(number)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(pdf)
        tmp.replace(path)
        return path

    def sweep(self, keep: Callable[[int], bool]) -> int:
        """Delete the files of cards ``keep`` refuses, and those whose name carries no
        number; return how many were deleted."""
        if not self.folder.is_dir():
            return 0
        deleted = 0
        for pdf in self.folder.glob("card-*.pdf"):
            match = _NUMBER.match(pdf.name)
            if match is None or not keep(int(match.group(1))):
                pdf.unlink(missing_ok=True)
                deleted += 1
        return deleted

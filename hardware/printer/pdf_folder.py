"""The demo mode's "PDF folder" printer: every job becomes a PDF file in one folder.

Privacy: unlike a real queue, these files PERSIST (they hold names and document
numbers). The demo uses invented people; the folder is shown on the DEMO banner and
is never the default in production (``printer.backend`` = ``pdf-folder`` is refused
outside demo mode by the composition root).
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

from admission.atomic_file import write_atomically
from admission.devices import (
    DeviceErrorCode,
    DeviceStatus,
    JobResult,
    JobState,
    PageSize,
    PrinterState,
)
from admission.errors import DeviceError

__all__ = ["PdfFolderPrinter"]

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


class PdfFolderPrinter:
    def __init__(self, folder: Path | str, name: str = "PDF folder") -> None:
        self.folder = Path(folder)
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def preflight(self) -> PrinterState:
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            return PrinterState(DeviceStatus.NOT_FOUND, "folder cannot be created")
        if not os.access(self.folder, os.W_OK):
            return PrinterState(DeviceStatus.ERROR, "folder is not writable")
        return PrinterState(DeviceStatus.READY)

    def submit(self, pdf: bytes, *, title: str, page: PageSize) -> str:
        """Write ``<title>.pdf`` atomically (never a half-written file, 0600; a name
        already taken gets ``-2``, ``-3``...: a job never replaces another's file); the
        page size is already the PDF's own."""
        stem = _SAFE.sub("_", title)[:80] or "document"
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            names = itertools.chain(
                [f"{stem}.pdf"], (f"{stem}-{n}.pdf" for n in itertools.count(2))
            )
            while True:
                target = self.folder / next(names)
                if os.path.lexists(target):
                    continue
                try:  # a full disk leaves no half-written file behind
                    write_atomically(target, pdf, prefix=".tmp-", suffix=".pdf", replace=False)
                    break
                except FileExistsError:  # taken meanwhile by another job: the next name
                    continue
        except OSError as exc:
            raise DeviceError(
                f"cannot write to the PDF folder: {exc.strerror}",
                code=DeviceErrorCode.PRINT_SUBMIT_FAILED,
            ) from None
        return target.name

    def follow(self, job_id: str, *, timeout: float = 60.0) -> JobResult:
        if (self.folder / job_id).is_file():
            return JobResult(job_id, JobState.COMPLETED)
        return JobResult(job_id, JobState.VANISHED, "file disappeared")

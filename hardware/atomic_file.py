"""A file written whole or not at all: the bytes go to a temporary file in the target's
folder, readable by its owner only, are flushed to the disk, then renamed over the
target in one step. On any error the temporary file is removed and the error goes to
the caller, which maps it to its own code (a card file, an export)."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(path: Path, data: bytes, *, prefix: str, suffix: str = ".tmp") -> None:
    """``data`` at ``path`` (mode 0600), or nothing there and no temporary file left;
    the temporary file is ``<prefix><pid>.<random><suffix>`` in the same folder."""
    temp = path.parent / f"{prefix}{os.getpid()}.{secrets.token_hex(4)}{suffix}"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise

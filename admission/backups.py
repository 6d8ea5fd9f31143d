"""Backups of the visitor file and restoring one (art. 20.4: the file is a legal record,
kept six months, as unreadable in a copy as in the file itself): what the ports answer.

The copies are taken and restored by the SQLCipher store (db/backup.py, db/restore.py);
the desk and the commands see only these records. No personal data: paths, sizes,
instants and ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from admission.restore_loss import RestoreLoss

__all__ = ["BackupInfo", "KnownBackup", "RestoreInfo"]


@dataclass(frozen=True, slots=True)
class BackupInfo:
    """A backup just taken: an encrypted copy of the open file at ``path``."""

    path: Path
    size: int  # bytes
    seconds: float
    file_id: str
    casino_id: str
    taken_at: datetime


@dataclass(frozen=True, slots=True)
class KnownBackup:
    """A backup the desk wrote, as its data folder lists it (``backups.json``)."""

    path: Path
    taken_at: datetime
    head_seq: int = 0  # the copy's audit head (0: not recorded)
    entry_seq: int = 0  # the desk's BACKUP entry that followed it (0: not recorded)


@dataclass(frozen=True, slots=True)
class RestoreInfo:
    """A backup made the visitor file of a folder that held none."""

    path: Path  # the new visitor file
    size: int
    seconds: float
    file_id: str
    casino_id: str  # "" when the backup recorded none
    taken_at: datetime | None  # when the backup was taken, if recorded
    audit_entries: int  # the entries of the verified chain
    loss: RestoreLoss | None = None  # what the folder held that the backup did not
    accepted_by: str = ""  # the director who accepted it
    live_source: bool = False  # copied through SQLite's backup API (a file in use)

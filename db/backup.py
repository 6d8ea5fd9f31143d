"""Backups of the visitor file, and restoring one onto a new machine (art. 20.4).

The visitor file is confidential and kept six months: a dead disk must not lose it, and
a copy must be as unreadable as the file itself. :func:`backup` takes a copy while the
desk keeps working: SQLCipher's ``sqlcipher_export`` into a database ATTACHed to the
desk's own connection without a KEY clause (SQLCipher then uses the main file's key, so
the copy is encrypted with the same key and a fresh salt), inside one read transaction
(one snapshot: the audit chain and the rows it covers agree; other desks keep writing
in WAL meanwhile). The copy is written to a temporary file in the target folder, made
durable and renamed into place: a failed backup (full or read-only disk) leaves no
partial file and answers BACKUP_WRITE_FAILED.

Inside the copy (settings table, never personal data) the backup records when it was
taken and the casino id, beside the file id the file always holds, so that a restore
refuses another casino's backup. The desk's audit trail records BACKUP with the target's
name only (a path may hold a person's name).

:func:`db.restore.restore` makes a backup the visitor file of a folder that holds
none, and refuses one older than what the folder knows.

The backups a desk wrote are listed in ``backups.json`` in the data folder (path, time
and the audit seqs around the copy, no personal data): :func:`stale_backups` names
those older than six months still present, which hold erased visitors and must be
destroyed; a restore compares the backup it is given with the newest listed.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from datetime import UTC, datetime
from enum import unique
from pathlib import Path

from admission.atomic_file import (
    ANYWHERE,
    OutputGuard,
    appeared,
    publish,
    temp_beside,
    write_atomically,
)
from admission.backups import BackupInfo, KnownBackup
from admission.codes import Code
from admission.errors import StoreError, StoreErrorCode
from admission.retention import RETENTION_MONTHS, retention_cutoff
from db import codec
from db.connection import DB_ERRORS
from db.file_guard import fsync_file, fsync_folder, remove_with_sides, why
from db.store import SqlCipherStore

__all__ = [
    "BACKUP_LIST",
    "DB_FILE",
    "BackupCode",
    "backup",
    "known_backups",
    "stale_backups",
]

DB_FILE = "visitors.db"  # the visitor file's name in its data folder (as main.py names it)
BACKUP_LIST = "backups.json"  # the backups this folder's desk wrote: path and time only
TAKEN_AT_SETTING = "backup.taken_at"
CASINO_SETTING = "backup.casino_id"
_ALIAS = "backup_copy"
_LIST_KIND = "admission-desk backup list"
_WRITE_ERRORS: tuple[type[Exception], ...] = (OSError, *DB_ERRORS)


@unique
class BackupCode(Code):
    """Why a backup or a restore of the visitor file was refused (art. 20.4)."""

    BACKUP_WRITE_FAILED = "BACKUP_WRITE_FAILED"  # disk full or read-only: no file was left
    BACKUP_NOT_FOUND = "BACKUP_NOT_FOUND"  # the backup to restore is not there
    BACKUP_DAMAGED = "BACKUP_DAMAGED"  # pages or structure of the copy fail the check
    BACKUP_AUDIT_BROKEN = "BACKUP_AUDIT_BROKEN"  # the copy's audit chain does not verify
    BACKUP_OTHER_CASINO = "BACKUP_OTHER_CASINO"  # the copy belongs to another casino
    RESTORE_FILE_EXISTS = "RESTORE_FILE_EXISTS"  # the folder already holds a visitor file
    RESTORE_WRITE_FAILED = "RESTORE_WRITE_FAILED"  # the copy could not be put in the folder
    RESTORE_SOURCE_LIVE = "RESTORE_SOURCE_LIVE"  # a file in use that could not be read whole
    STALE_BACKUP = "STALE_BACKUP"  # a known backup older than six months is still there


def backup(
    store: SqlCipherStore,
    out: Path,
    *,
    casino_id: str = "",
    actor: str = "system",
    now: datetime | None = None,
    guard: OutputGuard | None = None,
    force: bool = False,
) -> BackupInfo:
    """Write an encrypted copy of the open visitor file to ``out`` (a new file; with
    ``force`` a file already there is replaced), audit BACKUP and remember it in the
    data folder's backup list. ``guard`` says where a copy may go (by default anywhere
    but over the visitor file and its companions).

    Raises OutputError (admission.atomic_file: OUTPUT_EXISTS, OUTPUT_PROTECTED,
    OUTPUT_NOT_A_FILE, OUTPUT_NO_FOLDER, OUTPUT_NAME_TOO_LONG - nothing was read),
    StoreError: BACKUP_WRITE_FAILED (nothing left at ``out``), DAMAGED_FILE (a damaged
    file is restored, not copied).
    """
    out = Path(out)
    taken_at = now or datetime.now(UTC)
    started = time.monotonic()
    if guard is None:
        beside = store.path
        guard = OutputGuard(beside.parent, (beside.name, ".")) if beside else ANYWHERE
    out = guard.target(out, force=force)
    if store.damaged:
        raise StoreError(
            "the visitor file is damaged: restore it, do not copy it",
            code=StoreErrorCode.DAMAGED_FILE,
        )
    temp = temp_beside(out)  # a short name: a target's name of 255 bytes still has one
    try:
        head_seq = _export(store, temp, casino_id, taken_at)
        fsync_file(temp)
        publish(temp, out, replace=force)
        fsync_folder(out.parent)
    except FileExistsError as exc:  # a file appeared there meanwhile: it is kept
        remove_with_sides(temp)
        raise appeared() from exc
    except _WRITE_ERRORS as exc:
        remove_with_sides(temp)
        raise StoreError(
            f"the backup could not be written ({why(exc)}); no file was left",
            code=BackupCode.BACKUP_WRITE_FAILED,
        ) from exc
    except BaseException:
        remove_with_sides(temp)
        raise
    size = out.stat().st_size
    entry_seq = store.append(
        actor,
        "BACKUP",
        "visitor-file",
        taken_at,
        {"target": out.name, "file_id": store.file_id, "bytes": str(size)},
    )
    if store.path is not None:
        _remember(store.path.parent, KnownBackup(out.resolve(), taken_at, head_seq, entry_seq))
    return BackupInfo(out, size, time.monotonic() - started, store.file_id, casino_id, taken_at)


def _export(store: SqlCipherStore, temp: Path, casino_id: str, taken_at: datetime) -> int:
    """``sqlcipher_export`` under the store's lock, in one read transaction of the main
    file; the attached copy takes the main file's key (no KEY clause). Returns the
    copy's audit head (its last seq)."""
    with store.lock:
        conn = store.connection
        fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)  # owner-only
        os.close(fd)
        conn.execute(f"ATTACH DATABASE ? AS {_ALIAS}", (str(temp),))
        try:
            conn.execute("BEGIN")
            try:
                conn.execute(f"SELECT sqlcipher_export('{_ALIAS}')")
                head = conn.execute(
                    f"SELECT next - 1 FROM {_ALIAS}.counters WHERE name = 'audit'"
                ).fetchone()
                version = int(conn.execute("PRAGMA main.user_version").fetchone()[0])
                conn.execute(f"PRAGMA {_ALIAS}.user_version = {version}")
                conn.executemany(
                    f"INSERT OR REPLACE INTO {_ALIAS}.settings (key, value) VALUES (?, ?)",
                    ((TAKEN_AT_SETTING, codec.ts(taken_at)), (CASINO_SETTING, casino_id)),
                )
                conn.execute("COMMIT")
                return 0 if head is None else int(head[0])
            except BaseException:
                with contextlib.suppress(*DB_ERRORS):
                    conn.execute("ROLLBACK")
                raise
        finally:
            with contextlib.suppress(*DB_ERRORS):
                conn.execute(f"DETACH DATABASE {_ALIAS}")


# -- the backups this desk wrote (art. 20.4: they too are kept six months only) --------


def known_backups(data_dir: Path) -> list[KnownBackup]:
    """The backups listed in ``data_dir``'s backup list (present or not); [] when none or
    unreadable."""
    try:
        data = json.loads((Path(data_dir) / BACKUP_LIST).read_text("utf-8"))
        if data.get("kind") != _LIST_KIND:
            return []
        return [
            KnownBackup(
                Path(str(item["path"])),
                codec.parse_ts(str(item["taken_at"])),
                int(item.get("head_seq", 0)),
                int(item.get("entry_seq", 0)),
            )
            for item in data.get("backups", [])
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


def stale_backups(
    data_dir: Path, now: datetime, months: int = RETENTION_MONTHS
) -> list[KnownBackup]:
    """Known backups taken before the retention cutoff and still present: they hold
    visitors the file has erased and must be destroyed (docs/backup.md)."""
    cutoff = retention_cutoff(now, months)
    return [b for b in known_backups(data_dir) if b.taken_at < cutoff and b.path.exists()]


def _remember(data_dir: Path, new: KnownBackup) -> None:
    """Add ``new`` to the backup list; entries whose file is gone are dropped. A list
    that cannot be written does not undo the backup. The audit seqs let a restore of
    this copy tell its own BACKUP entry from entries it would lose (db/restore.py)."""
    entries = [b for b in known_backups(data_dir) if b.path.exists() and b.path != new.path]
    entries.append(new)
    text = json.dumps(
        {
            "kind": _LIST_KIND,
            "backups": [
                {
                    "path": str(b.path),
                    "taken_at": codec.ts(b.taken_at),
                    "head_seq": b.head_seq,
                    "entry_seq": b.entry_seq,
                }
                for b in entries
            ],
        },
        indent=2,
    )
    with contextlib.suppress(OSError):  # the list is a reminder: the backup stands
        write_atomically(Path(data_dir) / BACKUP_LIST, text.encode("utf-8"))  # 0600

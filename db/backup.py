"""Backups of the visitor file (art. 20.4: kept six months, as unreadable as the file).

:func:`backup` copies the open file while the desk works: ``sqlcipher_export`` into an
ATTACHed database without a KEY clause (same key, fresh salt) in one read transaction,
through a temporary file renamed into place. ``backups.json`` lists the copies (path,
time, audit seqs; no personal data) for :func:`stale_backups` and db/restore.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import asdict
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

DB_FILE = "visitors.db"  # the visitor file's name in its data folder (as main.py names it)
BACKUP_LIST = "backups.json"  # the backups this folder's desk wrote: path and time only
TAKEN_AT_SETTING = "backup.taken_at"
CASINO_SETTING = "backup.casino_id"  # a restore refuses another casino's copy
_ALIAS = "backup_copy"
_LIST_KIND = "admission-desk backup list"


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
    """Write an encrypted copy of the open file to ``out`` (``force``: over a file there),
    audit BACKUP (the target's name only: a path may hold a person's name) and list it.
    ``guard``: where a copy may go (by default not over the visitor file's companions).

    Raises OutputError (admission.atomic_file; nothing was read), StoreError:
    BACKUP_WRITE_FAILED (nothing left at ``out``), DAMAGED_FILE (restore, not copy)."""
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
    except BaseException as exc:
        remove_with_sides(temp)
        if isinstance(exc, FileExistsError):  # a file appeared there meanwhile: it is kept
            raise appeared() from exc
        if isinstance(exc, (OSError, *DB_ERRORS)):
            raise StoreError(
                f"the backup could not be written ({why(exc)}); no file was left",
                code=BackupCode.BACKUP_WRITE_FAILED,
            ) from exc
        raise
    size = out.stat().st_size
    details = {"target": out.name, "file_id": store.file_id, "bytes": str(size)}
    entry_seq = store.append(actor, "BACKUP", "visitor-file", taken_at, details)
    if store.path is not None:
        _remember(store.path.parent, KnownBackup(out.resolve(), taken_at, head_seq, entry_seq))
    return BackupInfo(out, size, time.monotonic() - started, store.file_id, casino_id, taken_at)


def _export(store: SqlCipherStore, temp: Path, casino_id: str, taken_at: datetime) -> int:
    """``sqlcipher_export`` under the store's lock, in one read transaction; the copy's
    audit head (its last seq)."""
    with store.lock:
        conn = store.connection
        os.close(os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))  # owner-only
        conn.execute(f"ATTACH DATABASE ? AS {_ALIAS}", (str(temp),))
        try:
            conn.execute("BEGIN")
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
            with contextlib.suppress(*DB_ERRORS):  # none open when BEGIN itself failed
                conn.execute("ROLLBACK")
            raise
        finally:
            with contextlib.suppress(*DB_ERRORS):
                conn.execute(f"DETACH DATABASE {_ALIAS}")


# -- the backups this desk wrote (art. 20.4: they too are kept six months only) --------


def known_backups(data_dir: Path) -> list[KnownBackup]:
    """The backups listed in ``data_dir`` (present or not); [] when none or unreadable."""
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
    """Add ``new`` to the backup list, dropping entries whose file is gone. The audit
    seqs let a restore tell the copy's own BACKUP entry from entries it would lose."""
    kept = [b for b in known_backups(data_dir) if b.path.exists() and b.path != new.path]
    rows = [
        {**asdict(b), "path": str(b.path), "taken_at": codec.ts(b.taken_at)} for b in [*kept, new]
    ]
    text = json.dumps({"kind": _LIST_KIND, "backups": rows}, indent=2)
    with contextlib.suppress(OSError):  # the list is a reminder: the backup stands
        write_atomically(Path(data_dir) / BACKUP_LIST, text.encode("utf-8"))  # 0600

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

:func:`restore` makes a backup the visitor file of a folder that holds none: it never
overwrites a file (RESTORE_FILE_EXISTS), refuses a wrong key (WRONG_KEY) and another
casino's backup (BACKUP_OTHER_CASINO), checks every page and the structure
(BACKUP_DAMAGED) and the keyed audit chain (BACKUP_AUDIT_BROKEN) before the copy
becomes the file, then writes the folder's marker and audits FILE_RESTORED. The audit
key does not travel with the backup: the restore needs the same audit key source as
the desk (ADMISSION_AUDIT_KEY, the OS keyring, or the key file copied by hand beside
the new file) - see docs/backup.md.

The backups a desk wrote are listed in ``backups.json`` in the data folder (path and
time, no personal data): :func:`stale_backups` names those older than six months
still present, which hold erased visitors and must be destroyed.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import unique
from pathlib import Path

from admission.codes import Code
from admission.errors import StoreError, StoreErrorCode, WrongKeyError
from admission.retention import RETENTION_MONTHS, retention_cutoff
from db import codec
from db.connection import DB_ERRORS, configure, connect_encrypted
from db.file_guard import (
    FILE_ID_SETTING,
    Marker,
    file_present,
    marker_path,
    salt_of,
    write_marker,
)
from db.integrity import check
from db.keys import DbKey, KeyringBackend
from db.store import SqlCipherStore

__all__ = [
    "BACKUP_LIST",
    "DB_FILE",
    "BackupCode",
    "BackupInfo",
    "KnownBackup",
    "RestoreInfo",
    "backup",
    "known_backups",
    "restore",
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
    BACKUP_TARGET_EXISTS = "BACKUP_TARGET_EXISTS"  # a backup never overwrites a file
    BACKUP_NOT_FOUND = "BACKUP_NOT_FOUND"  # the backup to restore is not there
    BACKUP_DAMAGED = "BACKUP_DAMAGED"  # pages or structure of the copy fail the check
    BACKUP_AUDIT_BROKEN = "BACKUP_AUDIT_BROKEN"  # the copy's audit chain does not verify
    BACKUP_OTHER_CASINO = "BACKUP_OTHER_CASINO"  # the copy belongs to another casino
    RESTORE_FILE_EXISTS = "RESTORE_FILE_EXISTS"  # the folder already holds a visitor file
    RESTORE_WRITE_FAILED = "RESTORE_WRITE_FAILED"  # the copy could not be put in the folder
    STALE_BACKUP = "STALE_BACKUP"  # a known backup older than six months is still there


@dataclass(frozen=True, slots=True)
class BackupInfo:
    path: Path
    size: int  # bytes
    seconds: float
    file_id: str
    casino_id: str
    taken_at: datetime


@dataclass(frozen=True, slots=True)
class RestoreInfo:
    path: Path  # the new visitor file
    size: int
    seconds: float
    file_id: str
    casino_id: str  # "" when the backup recorded none
    taken_at: datetime | None  # when the backup was taken, if recorded
    audit_entries: int  # the entries of the verified chain


@dataclass(frozen=True, slots=True)
class KnownBackup:
    path: Path
    taken_at: datetime


def backup(
    store: SqlCipherStore,
    out: Path,
    *,
    casino_id: str = "",
    actor: str = "system",
    now: datetime | None = None,
) -> BackupInfo:
    """Write an encrypted copy of the open visitor file to ``out`` (a new file), audit
    BACKUP and remember it in the data folder's backup list.

    Raises StoreError: BACKUP_TARGET_EXISTS, BACKUP_WRITE_FAILED (nothing left at
    ``out``), DAMAGED_FILE (a damaged file is restored, not copied).
    """
    out = Path(out)
    taken_at = now or datetime.now(UTC)
    started = time.monotonic()
    if out.exists() or out.is_symlink():
        raise StoreError("the backup target already exists", code=BackupCode.BACKUP_TARGET_EXISTS)
    if store.damaged:
        raise StoreError(
            "the visitor file is damaged: restore it, do not copy it",
            code=StoreErrorCode.DAMAGED_FILE,
        )
    temp = out.with_name(f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        _export(store, temp, casino_id, taken_at)
        _fsync_file(temp)
        if out.exists():
            raise FileExistsError(out.name)
        os.replace(temp, out)
        _fsync_folder(out.parent)
    except FileExistsError as exc:
        _remove(temp)
        raise StoreError(
            "the backup target already exists", code=BackupCode.BACKUP_TARGET_EXISTS
        ) from exc
    except _WRITE_ERRORS as exc:
        _remove(temp)
        raise StoreError(
            f"the backup could not be written ({_why(exc)}); no file was left",
            code=BackupCode.BACKUP_WRITE_FAILED,
        ) from exc
    except BaseException:
        _remove(temp)
        raise
    size = out.stat().st_size
    store.append(
        actor,
        "BACKUP",
        "visitor-file",
        taken_at,
        {"target": out.name, "file_id": store.file_id, "bytes": str(size)},
    )
    if store.path is not None:
        _remember(store.path.parent, out, taken_at)
    return BackupInfo(out, size, time.monotonic() - started, store.file_id, casino_id, taken_at)


def _export(store: SqlCipherStore, temp: Path, casino_id: str, taken_at: datetime) -> None:
    """``sqlcipher_export`` under the store's lock, in one read transaction of the main
    file; the attached copy takes the main file's key (no KEY clause)."""
    with store.lock:
        conn = store.connection
        fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)  # owner-only
        os.close(fd)
        conn.execute(f"ATTACH DATABASE ? AS {_ALIAS}", (str(temp),))
        try:
            conn.execute("BEGIN")
            try:
                conn.execute(f"SELECT sqlcipher_export('{_ALIAS}')")
                version = int(conn.execute("PRAGMA main.user_version").fetchone()[0])
                conn.execute(f"PRAGMA {_ALIAS}.user_version = {version}")
                for name, value in (
                    (TAKEN_AT_SETTING, codec.ts(taken_at)),
                    (CASINO_SETTING, casino_id),
                ):
                    conn.execute(
                        f"INSERT OR REPLACE INTO {_ALIAS}.settings (key, value) VALUES (?, ?)",
                        (name, value),
                    )
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(*DB_ERRORS):
                    conn.execute("ROLLBACK")
                raise
        finally:
            with contextlib.suppress(*DB_ERRORS):
                conn.execute(f"DETACH DATABASE {_ALIAS}")


def restore(
    source: Path,
    data_dir: Path,
    key: DbKey,
    *,
    casino_id: str = "",
    audit_keyring: KeyringBackend | None = None,
    actor: str = "restore",
    now: datetime | None = None,
) -> RestoreInfo:
    """Make the backup ``source`` the visitor file of ``data_dir``, which holds none.

    Raises StoreError: RESTORE_FILE_EXISTS (nothing touched), BACKUP_NOT_FOUND,
    WrongKeyError (WRONG_KEY), CORRUPT_FILE, BACKUP_DAMAGED, BACKUP_AUDIT_BROKEN,
    BACKUP_OTHER_CASINO, AUDIT_KEY_MISSING / AUDIT_KEY_WRONG (the audit key source is
    not the desk's), RESTORE_WRITE_FAILED. On a refusal the folder is left as it was.
    """
    source, data_dir = Path(source), Path(data_dir)
    started = time.monotonic()
    at = now or datetime.now(UTC)
    path = data_dir / DB_FILE
    if path.exists() or path.is_symlink() or marker_path(path).exists():
        raise StoreError(
            "this folder already holds a visitor file or its marker; nothing was restored",
            code=BackupCode.RESTORE_FILE_EXISTS,
        )
    if not file_present(source):
        raise StoreError("the backup file is not there", code=BackupCode.BACKUP_NOT_FOUND)
    created_dir = not data_dir.exists()
    temp = data_dir / f".{DB_FILE}.restore.{secrets.token_hex(4)}.tmp"
    try:
        try:
            data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            shutil.copyfile(source, temp)
            os.chmod(temp, 0o600)
            _fsync_file(temp)
        except OSError as exc:
            raise StoreError(
                f"the backup could not be copied into the folder ({_why(exc)})",
                code=BackupCode.RESTORE_WRITE_FAILED,
            ) from exc
        file_id, found_casino, taken_at, entries = _check_copy(
            temp, path, key, casino_id, audit_keyring
        )
        if path.exists() or marker_path(path).exists():
            raise StoreError(
                "a visitor file appeared in the folder meanwhile; nothing was restored",
                code=BackupCode.RESTORE_FILE_EXISTS,
            )
        try:
            os.replace(temp, path)
            _fsync_folder(data_dir)
        except OSError as exc:
            raise StoreError(
                f"the backup could not be put in place ({_why(exc)})",
                code=BackupCode.RESTORE_WRITE_FAILED,
            ) from exc
    except BaseException:
        _remove(temp)
        if created_dir:
            with contextlib.suppress(OSError):
                data_dir.rmdir()  # only when still empty
        raise
    try:
        write_marker(path, Marker(file_id, salt_of(path), key.check_value(file_id), codec.ts(at)))
        with SqlCipherStore.open(path, key, create=False, audit_keyring=audit_keyring) as store:
            store.append(
                actor,
                "FILE_RESTORED",
                "visitor-file",
                at,
                {"file_id": file_id, "backup": source.name, "taken_at": taken_at or ""},
            )
    except BaseException:
        # the copy was checked: leaving it half-adopted would refuse every start; undo
        _remove(marker_path(path))
        _remove(path)
        raise
    return RestoreInfo(
        path,
        path.stat().st_size,
        time.monotonic() - started,
        file_id,
        found_casino,
        codec.parse_ts(taken_at) if taken_at else None,
        entries,
    )


def _check_copy(
    temp: Path,
    final: Path,
    key: DbKey,
    casino_id: str,
    audit_keyring: KeyringBackend | None,
) -> tuple[str, str, str, int]:
    """Open the copy with ``key``, check its pages, structure, casino and audit chain;
    return (file id, casino id, taken at, audit entries)."""
    conn = connect_encrypted(temp, key, create=False)  # WrongKeyError on a wrong key
    store: SqlCipherStore | None = None
    try:
        report = check(conn, temp, structure=True)
        if not report.ok:
            raise StoreError(
                f"the backup is damaged ({len(report.bad_pages)} page(s))",
                code=BackupCode.BACKUP_DAMAGED,
            )
        settings = dict(
            conn.execute(
                "SELECT key, value FROM settings WHERE key IN (?, ?, ?)",
                (FILE_ID_SETTING, CASINO_SETTING, TAKEN_AT_SETTING),
            ).fetchall()
        )
        file_id = str(settings.get(FILE_ID_SETTING) or "")
        found_casino = str(settings.get(CASINO_SETTING) or "")
        taken_at = str(settings.get(TAKEN_AT_SETTING) or "")
        if not file_id:
            raise StoreError(
                "the backup is not a copy of a visitor file", code=StoreErrorCode.CORRUPT_FILE
            )
        if casino_id and found_casino and found_casino != casino_id:
            raise StoreError(
                "the backup belongs to another casino", code=BackupCode.BACKUP_OTHER_CASINO
            )
        configure(conn)  # pending migrations, as any open would apply them
        # The store reads the copy but names the final path: the audit key file, when
        # that is the desk's source, is looked for beside the file being restored.
        store = SqlCipherStore(conn, final, encrypted=True, audit_keyring=audit_keyring)
        verdict = store.verify()
        if not verdict.ok:
            raise StoreError(
                f"the backup's audit chain does not verify ({verdict.problem} at "
                f"{verdict.first_bad_seq})",
                code=BackupCode.BACKUP_AUDIT_BROKEN,
            )
        return file_id, found_casino, taken_at, verdict.entries
    except WrongKeyError:
        raise
    except DB_ERRORS as exc:
        raise StoreError(
            f"the backup cannot be read ({type(exc).__name__})", code=BackupCode.BACKUP_DAMAGED
        ) from exc
    finally:
        if store is not None:
            store.close()
        else:
            conn.close()


# -- the backups this desk wrote (art. 20.4: they too are kept six months only) --------


def known_backups(data_dir: Path) -> list[KnownBackup]:
    """The backups listed in ``data_dir``'s backup list (present or not); [] when none or
    unreadable."""
    try:
        data = json.loads((Path(data_dir) / BACKUP_LIST).read_text("utf-8"))
        if data.get("kind") != _LIST_KIND:
            return []
        return [
            KnownBackup(Path(str(item["path"])), codec.parse_ts(str(item["taken_at"])))
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


def _remember(data_dir: Path, out: Path, taken_at: datetime) -> None:
    """Add ``out`` to the backup list; entries whose file is gone are dropped. A list
    that cannot be written does not undo the backup."""
    entries = [b for b in known_backups(data_dir) if b.path.exists() and b.path != out]
    entries.append(KnownBackup(out.resolve(), taken_at))
    text = json.dumps(
        {
            "kind": _LIST_KIND,
            "backups": [{"path": str(b.path), "taken_at": codec.ts(b.taken_at)} for b in entries],
        },
        indent=2,
    )
    target = Path(data_dir) / BACKUP_LIST
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temp.write_text(text, "utf-8")
        os.replace(temp, target)
    except OSError:
        _remove(temp)


# -- files ---------------------------------------------------------------------------


def _why(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or type(exc).__name__


def _remove(path: Path) -> None:
    for leftover in (path, *(path.with_name(path.name + s) for s in ("-journal", "-wal", "-shm"))):
        with contextlib.suppress(OSError):
            leftover.unlink()


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

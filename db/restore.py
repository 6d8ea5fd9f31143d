"""Restoring a backup as the visitor file of a folder (art. 20.4), never going back
silently.

:func:`restore` makes a backup the visitor file of a folder that holds none: it never
overwrites a file (RESTORE_FILE_EXISTS), refuses a wrong key (WRONG_KEY) and another
casino's backup (BACKUP_OTHER_CASINO), checks every page and the structure
(BACKUP_DAMAGED) and the keyed audit chain (BACKUP_AUDIT_BROKEN). The audit key does not
travel with the backup: see docs/backup.md.

Going back. The folder remembers what its file held: its backup list (``backups.json``),
the card PDFs of the PDF-folder printer and the record of the highest numbers issued
and of the audit head (``issued.json``, db/issued.py). A backup older than any of them
is refused (RESTORE_LOSES_DATA, :mod:`admission.restore_loss`) with the cards, visits,
vouchers and audit entries it would lose, unless ``accept_loss`` is given: the caller's
callback signs the game director in on the accounts of the backup itself (the file that
held the live accounts is gone) and returns the director's name. The restored file's
card and voucher counters then resume past the highest numbers ever issued, and
FILE_RESTORED records the counts and who accepted them.

A source in use (a visitor file with its ``-wal``, ``-shm`` or ``-journal`` beside it)
is copied through SQLite's online backup API from a read-only connection, so the copy
holds what is still in its WAL; a plain backup file is copied byte for byte.

Killed restores. The copy is made under ``.visitors.db.restore.<random>.tmp``, held by
an exclusive ``flock`` for the whole restore, and everything is written into it -
counters and FILE_RESTORED included - before it is renamed into place. The order is:
copy, check, adopt (all inside the temporary copy), fsync, marker, ``issued.json``,
rename. :func:`sweep_leftovers`, run by every command before it opens the folder,
removes the temporary copies nobody holds; one whose marker was already written is the
complete, checked restore and is renamed into place instead. So the folder's file is
either the old one (none) or the whole new one, never half.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import sqlite3
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from admission.backups import RestoreInfo
from admission.errors import StoreError, StoreErrorCode, WrongKeyError
from admission.restore_loss import RestoreLoss, RestoreLossError
from db import codec
from db.backup import (
    CASINO_SETTING,
    DB_FILE,
    TAKEN_AT_SETTING,
    BackupCode,
)
from db.connection import DB_ERRORS, configure, connect_encrypted
from db.file_guard import (
    FILE_ID_SETTING,
    Marker,
    marker_path,
    salt_of,
    write_marker,
)
from db.integrity import check
from db.issued import Highs, IssuedRecord, highs_of, write_issued
from db.keys import DbKey, KeyringBackend
from db.restore_history import assess
from db.restore_sweep import (
    SIDE_FILES,
    TEMP_PREFIX,
    folder_lock,
    fsync_folder,
    remove_with_sides,
    sweep_leftovers,
    unlink,
)
from db.store import SqlCipherStore

try:
    import sqlcipher3
except ImportError:  # pragma: no cover - connect_encrypted says NO_SQLCIPHER first
    sqlcipher3 = None

__all__ = [
    "TEMP_PREFIX",
    "AcceptLoss",
    "restore",
    "sweep_leftovers",
]


_SIDE = SIDE_FILES

# The caller's sign-in of the game director who accepts the loss, on the accounts of
# the checked copy; returns the director's user name (raises AccountError or a refusal).
AcceptLoss = Callable[[RestoreLoss, SqlCipherStore], str]


@dataclass(frozen=True, slots=True)
class _Copy:
    file_id: str
    casino_id: str
    taken_at: str
    entries: int
    loss: RestoreLoss | None
    accepted_by: str
    highs: Highs  # the restored file's marks, counters raised


def restore(
    source: Path,
    data_dir: Path,
    key: DbKey,
    *,
    casino_id: str = "",
    audit_keyring: KeyringBackend | None = None,
    actor: str = "restore",
    now: datetime | None = None,
    accept_loss: AcceptLoss | None = None,
    card_folders: Sequence[Path] = (),
) -> RestoreInfo:
    """Make the backup ``source`` the visitor file of ``data_dir``, which holds none.

    Raises StoreError: RESTORE_FILE_EXISTS (nothing touched), BACKUP_NOT_FOUND,
    WrongKeyError (WRONG_KEY), CORRUPT_FILE, BACKUP_DAMAGED, BACKUP_AUDIT_BROKEN,
    BACKUP_OTHER_CASINO, AUDIT_KEY_MISSING / AUDIT_KEY_WRONG, RESTORE_SOURCE_LIVE,
    RESTORE_WRITE_FAILED; RestoreLossError (RESTORE_LOSES_DATA) when the folder held
    more and ``accept_loss`` is None; whatever ``accept_loss`` raises. On a refusal
    the folder is left as it was.
    """
    source, data_dir = Path(source), Path(data_dir)
    started = time.monotonic()
    at = now or datetime.now(UTC)
    path = data_dir / DB_FILE
    created_dir = _check_folder(data_dir, path)
    live = _check_source(source)
    fd, temp = -1, None
    try:
        try:
            data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, temp = _held_temp(data_dir)
            if live:
                _copy_live(source, temp, key)
            else:
                shutil.copyfile(source, temp)
            _fsync_file(temp)
        except OSError as exc:
            raise StoreError(
                f"the backup could not be copied into the folder ({_why(exc)})",
                code=BackupCode.RESTORE_WRITE_FAILED,
            ) from exc
        copy = _adopt_copy(
            temp,
            path,
            key,
            audit_keyring,
            _Wanted(casino_id, actor, at, source.name, accept_loss, tuple(card_folders)),
        )
        _put_in_place(temp, path, key, copy, at)
    except BaseException:
        if temp is not None:
            remove_with_sides(temp)
        if created_dir:
            with contextlib.suppress(OSError):
                data_dir.rmdir()  # only when still empty
        raise
    finally:
        if fd >= 0:
            os.close(fd)
    return RestoreInfo(
        path,
        path.stat().st_size,
        time.monotonic() - started,
        copy.file_id,
        copy.casino_id,
        codec.parse_ts(copy.taken_at) if copy.taken_at else None,
        copy.entries,
        copy.loss,
        copy.accepted_by,
        live,
    )


def _check_folder(data_dir: Path, path: Path) -> bool:
    """RESTORE_FILE_EXISTS when the folder holds a file or a marker; True when the
    folder is still to be made."""
    try:
        if path.exists() or path.is_symlink() or marker_path(path).exists():
            raise StoreError(
                "this folder already holds a visitor file or its marker; nothing was restored",
                code=BackupCode.RESTORE_FILE_EXISTS,
            )
        return not data_dir.exists()
    except OSError as exc:  # a name too long, a file where a folder should be...
        raise StoreError(
            f"the data folder cannot be used ({_why(exc)}); nothing was restored",
            code=BackupCode.RESTORE_WRITE_FAILED,
        ) from exc


def _no_file_meanwhile(path: Path) -> None:
    """RESTORE_FILE_EXISTS when another restore put its file in this folder since
    :func:`_check_folder`: the loss the folder's record then shows is that restore's own
    FILE_RESTORED and raised counters (it writes the marker, then ``issued.json``, then
    renames, under the folder lock), not data this backup would lose. Taking the lock
    waits for such a restore to finish, so the answer is the same however the two
    interleave."""
    try:
        with folder_lock(path.parent):
            _check_folder(path.parent, path)
    except OSError as exc:  # the folder cannot be locked
        raise StoreError(
            f"the data folder cannot be used ({_why(exc)}); nothing was restored",
            code=BackupCode.RESTORE_WRITE_FAILED,
        ) from exc


def _check_source(source: Path) -> bool:
    """BACKUP_NOT_FOUND unless ``source`` is a regular file with data; True when it is a
    file in use (its WAL, shared memory or journal beside it)."""
    try:
        found = os.stat(source)
    except OSError as exc:
        raise StoreError(
            f"the backup file is not there ({_why(exc)})", code=BackupCode.BACKUP_NOT_FOUND
        ) from exc
    if not stat.S_ISREG(found.st_mode) or found.st_size == 0:
        raise StoreError(
            "the backup is not a file with data (a folder, a device or empty)",
            code=BackupCode.BACKUP_NOT_FOUND,
        )
    live = False
    for side in _SIDE:
        with contextlib.suppress(OSError):
            live = live or os.path.lexists(source.with_name(source.name + side))
    return live


@dataclass(frozen=True, slots=True)
class _Wanted:
    casino_id: str
    actor: str
    at: datetime
    source_name: str
    accept_loss: AcceptLoss | None
    card_folders: tuple[Path, ...]


def _held_temp(data_dir: Path) -> tuple[int, Path]:
    """A new temporary file in the folder, held by an exclusive flock until the restore
    ends: :func:`sweep_leftovers` removes only those nobody holds."""
    while True:
        temp = data_dir / f"{TEMP_PREFIX}{secrets.token_hex(4)}.tmp"
        fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):
            if os.stat(temp).st_ino == os.fstat(fd).st_ino:
                return fd, temp
        os.close(fd)  # a sweep took it between its creation and the lock: again


def _copy_live(source: Path, temp: Path, key: DbKey) -> None:
    """A file in use, through SQLite's backup API from a read-only connection: the
    pages of its WAL are in the copy, and the source is not written."""
    assert sqlcipher3 is not None
    src = sqlcipher3.connect(source.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
    dst: sqlite3.Connection | None = None
    try:
        try:
            src.execute("PRAGMA cipher_log_level = NONE")
            src.execute(f"PRAGMA key = {key.pragma_value()}")
            src.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except DB_ERRORS as exc:
            raise WrongKeyError(
                "the source cannot be decrypted with this key (or it is not a visitor "
                "file); nothing was restored"
            ) from exc
        dst = sqlcipher3.connect(str(temp), isolation_level=None)
        dst.execute(f"PRAGMA key = {key.pragma_value()}")
        try:
            src.backup(dst)
        except DB_ERRORS as exc:
            raise StoreError(
                f"the source is in use and could not be copied whole ({type(exc).__name__})",
                code=BackupCode.RESTORE_SOURCE_LIVE,
            ) from exc
    finally:
        if dst is not None:
            dst.close()
        src.close()


def _adopt_copy(
    temp: Path, final: Path, key: DbKey, audit_keyring: KeyringBackend | None, wanted: _Wanted
) -> _Copy:
    """Check the copy (pages, structure, casino, audit chain), weigh it against what the
    folder knows, and - inside the copy - move its counters past every number issued
    and record FILE_RESTORED. The store reads the copy but names the final path: the
    audit key file, when that is the desk's source, is looked for beside it."""
    conn = connect_encrypted(temp, key, create=False)  # WrongKeyError on a wrong key
    store: SqlCipherStore | None = None
    try:
        file_id, found_casino, taken_at = _identify(conn, temp, wanted.casino_id)
        configure(conn)  # pending migrations, as any open would apply them
        store = SqlCipherStore(conn, final, encrypted=True, audit_keyring=audit_keyring)
        verdict = store.verify()
        if not verdict.ok:
            raise StoreError(
                f"the backup's audit chain does not verify ({verdict.problem} at "
                f"{verdict.first_bad_seq})",
                code=BackupCode.BACKUP_AUDIT_BROKEN,
            )
        with store.reading() as read:
            before = highs_of(read)
        loss = assess(before, file_id, taken_at, final.parent, wanted.card_folders)
        accepted_by = ""
        if loss.any:
            _no_file_meanwhile(final)
            if wanted.accept_loss is None:
                raise RestoreLossError(loss)
            accepted_by = wanted.accept_loss(loss, store)
        details = {
            "file_id": file_id,
            "backup": wanted.source_name,
            "taken_at": taken_at,
            **(loss.details() if loss.any else {}),
            **({"accepted_by": accepted_by} if accepted_by else {}),
        }
        with store.transaction() as tx:
            _resume_counters(tx, loss)
        store.append(
            accepted_by or wanted.actor, "FILE_RESTORED", "visitor-file", wanted.at, details
        )
        with store.reading() as read:
            after = highs_of(read)
        store.checkpoint()
        return _Copy(
            file_id,
            found_casino,
            taken_at,
            verdict.entries,
            loss if loss.any else None,
            accepted_by,
            after,
        )
    except (WrongKeyError, RestoreLossError):
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


def _identify(conn: sqlite3.Connection, temp: Path, casino_id: str) -> tuple[str, str, str]:
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
    if not file_id:
        raise StoreError(
            "the backup is not a copy of a visitor file", code=StoreErrorCode.CORRUPT_FILE
        )
    if casino_id and found_casino and found_casino != casino_id:
        raise StoreError(
            "the backup belongs to another casino", code=BackupCode.BACKUP_OTHER_CASINO
        )
    return file_id, found_casino, str(settings.get(TAKEN_AT_SETTING) or "")


def _resume_counters(conn: sqlite3.Connection, loss: RestoreLoss) -> None:
    """Card and voucher numbers issued since the backup are never issued again (art. 23):
    the counters resume past them."""
    if not loss.any:
        return
    conn.execute(
        "UPDATE counters SET next = max(next, ?) WHERE name = 'card'", (loss.card_resumes_at,)
    )
    conn.execute(
        "INSERT INTO counters (name, next) VALUES ('voucher', ?) "
        "ON CONFLICT (name) DO UPDATE SET next = max(next, excluded.next)",
        (loss.voucher_resumes_at,),
    )


def _put_in_place(temp: Path, path: Path, key: DbKey, copy: _Copy, at: datetime) -> None:
    """fsync, marker, record, rename: once the marker is written, a killed restore is
    finished by the next command's sweep (the copy is whole and checked)."""
    try:
        with folder_lock(path.parent):  # two restores into one folder: one wins, whole
            _mark_and_rename(temp, path, key, copy, at)
    except OSError as exc:  # the folder cannot be locked
        raise StoreError(
            f"the backup could not be put in place ({_why(exc)})",
            code=BackupCode.RESTORE_WRITE_FAILED,
        ) from exc


def _mark_and_rename(temp: Path, path: Path, key: DbKey, copy: _Copy, at: datetime) -> None:
    try:
        _fsync_file(temp)
        for side in _SIDE:
            unlink(temp.with_name(temp.name + side))
        if path.exists() or marker_path(path).exists():
            raise StoreError(
                "a visitor file appeared in the folder meanwhile; nothing was restored",
                code=BackupCode.RESTORE_FILE_EXISTS,
            )
        marker = Marker(copy.file_id, salt_of(temp), key.check_value(copy.file_id), codec.ts(at))
        write_marker(path, marker)
    except OSError as exc:
        raise StoreError(
            f"the backup could not be put in place ({_why(exc)})",
            code=BackupCode.RESTORE_WRITE_FAILED,
        ) from exc
    try:
        with contextlib.suppress(OSError):  # the record is caught up at the next open
            write_issued(path.parent, IssuedRecord(copy.file_id, copy.highs, codec.ts(at)))
        os.replace(temp, path)
        fsync_folder(path.parent)
    except OSError as exc:
        unlink(marker_path(path))
        raise StoreError(
            f"the backup could not be put in place ({_why(exc)})",
            code=BackupCode.RESTORE_WRITE_FAILED,
        ) from exc


# -- files ------------------------------------------------------------------------------


def _why(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or type(exc).__name__


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

"""Restoring a backup as the visitor file of a folder that holds none (art. 20.4). A backup
older than what the folder knows its file held (``issued.json``, card PDFs, ``backups.json``)
is refused (RESTORE_LOSES_DATA) unless the game director, signed in on its accounts, accepts
the loss; counters then resume past every number issued (art. 23). Checked under a locked
temporary name, renamed last: a killed restore leaves the old folder or the whole file
(:func:`sweep_leftovers`). The audit key does not travel with the backup (docs/backup.md)."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import shutil
import stat
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from admission.backups import KnownBackup, RestoreInfo
from admission.errors import StoreError, StoreErrorCode, WrongKeyError
from admission.restore_loss import LossReason, RestoreLoss, RestoreLossError
from db import codec
from db.backup import CASINO_SETTING, DB_FILE, TAKEN_AT_SETTING, BackupCode, known_backups
from db.connection import DB_ERRORS, configure, connect_encrypted
from db.file_guard import (
    FILE_ID_SETTING,
    SIDE_FILES,
    Marker,
    fsync_file,
    fsync_folder,
    lock_exclusively,
    marker_path,
    read_marker,
    remove_with_sides,
    salt_of,
    unlink,
    why,
    write_marker,
)
from db.integrity import check
from db.issued import Highs, IssuedRecord, highs_of, read_issued, write_issued
from db.keys import DbKey, KeyringBackend
from db.store import SqlCipherStore
from db.tx import Tx

log = logging.getLogger(__name__)
TEMP_PREFIX = f".{DB_FILE}.restore."
WINDOWS_FOLDER_LOCK = f".{DB_FILE}.restore-lock"  # see folder_lock
_PID_TEMP = re.compile(r"^\.(?:visitors\.db\.marker|issued\.json|backups\.json)\.(\d+)\.tmp$")
_CARD_PDF = re.compile(r"^card-(\d{1,12})(?:-[^/]*)?\.pdf$")

# The game director's sign-in on the checked copy's accounts; their user name, or raises.
AcceptLoss = Callable[[RestoreLoss, SqlCipherStore], str]


@dataclass(frozen=True, slots=True)
class _Wanted:
    casino_id: str
    actor: str
    at: datetime
    source_name: str
    accept_loss: AcceptLoss | None
    card_folders: tuple[Path, ...]


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
    Raises StoreError: RESTORE_FILE_EXISTS, BACKUP_NOT_FOUND, WRONG_KEY, CORRUPT_FILE,
    BACKUP_DAMAGED, BACKUP_AUDIT_BROKEN, BACKUP_OTHER_CASINO, AUDIT_KEY_MISSING/_WRONG,
    RESTORE_SOURCE_LIVE, RESTORE_WRITE_FAILED, RESTORE_LOSES_DATA (no ``accept_loss``),
    or what ``accept_loss`` raises; the folder is then left as it was."""
    source, data_dir = Path(source), Path(data_dir)
    started = time.monotonic()
    wanted = _Wanted(
        casino_id, actor, now or datetime.now(UTC), source.name, accept_loss, tuple(card_folders)
    )
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
            fsync_file(temp)
        except OSError as exc:
            raise _write_failed(exc, "the backup could not be copied into the folder ({})") from exc
        info, highs = _adopt_copy(temp, path, key, audit_keyring, wanted)
        _put_in_place(temp, path, key, info.file_id, highs, wanted.at)
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
    seconds = time.monotonic() - started
    return replace(info, size=path.stat().st_size, seconds=seconds, live_source=live)


def _check_folder(data_dir: Path, path: Path, *, locked: bool = False) -> bool:
    """RESTORE_FILE_EXISTS when the folder holds a file or a marker; True when the
    folder is still to be made. ``locked`` (once the copy shows a loss): waits for a
    restore putting its file in place, whose own FILE_RESTORED is no loss of this one."""
    try:
        with folder_lock(data_dir) if locked else contextlib.nullcontext():
            if path.exists() or path.is_symlink() or marker_path(path).exists():
                raise StoreError(
                    "this folder already holds a visitor file or its marker; nothing was restored",
                    code=BackupCode.RESTORE_FILE_EXISTS,
                )
            return not data_dir.exists()
    except OSError as exc:  # a name too long, a file where a folder should be, no lock...
        raise _write_failed(
            exc, "the data folder cannot be used ({}); nothing was restored"
        ) from exc


def _check_source(source: Path) -> bool:
    """BACKUP_NOT_FOUND unless ``source`` is a regular file with data; True when it is a
    file in use (its WAL, shared memory or journal beside it)."""
    try:
        found = os.stat(source)
    except OSError as exc:
        raise StoreError(
            f"the backup file is not there ({why(exc)})", code=BackupCode.BACKUP_NOT_FOUND
        ) from exc
    if not stat.S_ISREG(found.st_mode) or found.st_size == 0:
        raise StoreError(
            "the backup is not a file with data (a folder, a device or empty)",
            code=BackupCode.BACKUP_NOT_FOUND,
        )
    return any(os.path.lexists(source.with_name(source.name + side)) for side in SIDE_FILES)


def _held_temp(data_dir: Path) -> tuple[int, Path]:
    """A new temporary file in the folder, locked until the restore ends (the sweep spares it)."""
    while True:
        temp = data_dir / f"{TEMP_PREFIX}{secrets.token_hex(4)}.tmp"
        fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        lock_exclusively(fd)
        with contextlib.suppress(FileNotFoundError):
            if os.stat(temp).st_ino == os.fstat(fd).st_ino:
                return fd, temp
        os.close(fd)  # a sweep took it between its creation and the lock: again


def _copy_live(source: Path, temp: Path, key: DbKey) -> None:
    """A file in use, through SQLite's backup API, read-only: the pages of its WAL come too."""
    import sqlcipher3  # a hard requirement of the desk's file (db/connection.py)

    uri = source.resolve().as_uri() + "?mode=ro"
    with contextlib.closing(sqlcipher3.connect(uri, uri=True, isolation_level=None)) as src:
        try:
            src.execute("PRAGMA cipher_log_level = NONE")
            src.execute(f"PRAGMA key = {key.pragma_value()}")
            src.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except DB_ERRORS as exc:
            raise WrongKeyError(
                "the source cannot be decrypted with this key (or it is not a visitor "
                "file); nothing was restored"
            ) from exc
        with contextlib.closing(sqlcipher3.connect(str(temp), isolation_level=None)) as dst:
            dst.execute(f"PRAGMA key = {key.pragma_value()}")
            try:
                src.backup(dst)
            except DB_ERRORS as exc:
                raise StoreError(
                    f"the source is in use and could not be copied whole ({type(exc).__name__})",
                    code=BackupCode.RESTORE_SOURCE_LIVE,
                ) from exc


def _adopt_copy(
    temp: Path, final: Path, key: DbKey, audit_keyring: KeyringBackend | None, wanted: _Wanted
) -> tuple[RestoreInfo, Highs]:
    """Check the copy, weigh it against what the folder knows, move its counters past every
    number issued and record FILE_RESTORED in it; its marks. The store names the final path
    (the audit key file is looked for beside it)."""
    conn = connect_encrypted(temp, key, create=False)  # WrongKeyError on a wrong key
    store: SqlCipherStore | None = None
    try:
        report = check(conn, temp, structure=True)
        if not report.ok:
            raise StoreError(
                f"the backup is damaged ({len(report.bad_pages)} page(s))",
                code=BackupCode.BACKUP_DAMAGED,
            )
        keys = (FILE_ID_SETTING, CASINO_SETTING, TAKEN_AT_SETTING)
        found = dict(conn.execute("SELECT key, value FROM settings WHERE key IN (?, ?, ?)", keys))
        file_id, found_casino, taken_at = (str(found.get(key) or "") for key in keys)
        if not file_id:
            raise StoreError(
                "the backup is not a copy of a visitor file", code=StoreErrorCode.CORRUPT_FILE
            )
        if wanted.casino_id and found_casino and found_casino != wanted.casino_id:
            raise StoreError(
                "the backup belongs to another casino", code=BackupCode.BACKUP_OTHER_CASINO
            )
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
            _check_folder(final.parent, final, locked=True)
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
        actor = accepted_by or wanted.actor

        def restored(tx: Tx) -> int:
            if loss.any:  # numbers issued since the backup are never issued again (art. 23)
                tx.execute(
                    "UPDATE counters SET next = max(next, ?) WHERE name = 'card'",
                    (loss.card_resumes_at,),
                )
                tx.execute(
                    "INSERT INTO counters (name, next) VALUES ('voucher', ?) "
                    "ON CONFLICT (name) DO UPDATE SET next = max(next, excluded.next)",
                    (loss.voucher_resumes_at,),
                )
            return tx.audit(actor, "FILE_RESTORED", "visitor-file", wanted.at, details)

        store.write(restored)
        with store.reading() as read:
            after = highs_of(read)
        store.checkpoint()
        when = codec.parse_ts(taken_at) if taken_at else None
        info = RestoreInfo(final, 0, 0.0, file_id, found_casino, when, verdict.entries)
        return replace(info, loss=loss if loss.any else None, accepted_by=accepted_by), after
    except DB_ERRORS as exc:
        raise StoreError(
            f"the backup cannot be read ({type(exc).__name__})", code=BackupCode.BACKUP_DAMAGED
        ) from exc
    finally:
        (conn if store is None else store).close()


def _put_in_place(
    temp: Path, path: Path, key: DbKey, file_id: str, highs: Highs, at: datetime
) -> None:
    """fsync, marker, record, rename: once the marker is written, a sweep finishes a kill."""
    try:
        with folder_lock(path.parent):  # two restores into one folder: one wins, whole
            fsync_file(temp)
            for side in SIDE_FILES:
                unlink(temp.with_name(temp.name + side))
            if path.exists() or marker_path(path).exists():
                raise StoreError(
                    "a visitor file appeared in the folder meanwhile; nothing was restored",
                    code=BackupCode.RESTORE_FILE_EXISTS,
                )
            check = key.check_value(file_id)
            write_marker(path, Marker(file_id, salt_of(temp), check, codec.ts(at)))
            try:
                with contextlib.suppress(OSError):  # caught up at the next open
                    write_issued(path.parent, IssuedRecord(file_id, highs, codec.ts(at)))
                os.replace(temp, path)
                fsync_folder(path.parent)
            except OSError:
                unlink(marker_path(path))
                raise
    except OSError as exc:  # the folder cannot be locked, written or renamed in
        raise _write_failed(exc, "the backup could not be put in place ({})") from exc


def _write_failed(exc: OSError, message: str) -> StoreError:
    """RESTORE_WRITE_FAILED, ``message`` naming the reason (never a path)."""
    return StoreError(message.format(why(exc)), code=BackupCode.RESTORE_WRITE_FAILED)


def assess(
    backup: Highs, file_id: str, taken_at: str, data_dir: Path, card_folders: Iterable[Path] = ()
) -> RestoreLoss:
    """What ``data_dir`` held that a backup with marks ``backup`` does not (art. 20.4;
    art. 23: a card serves one visitor)."""
    reasons: list[LossReason] = []
    record = read_issued(data_dir)
    marks = Highs() if record is None else record.highs
    same = record is not None and record.file_id == file_id
    base = backup if record is None or same else Highs()  # another file: all of it is lost
    if base is not backup:
        reasons.append(LossReason.OTHER_FILE)
    elif same and (
        marks.card > base.card or marks.voucher > base.voucher or marks.visit > base.visit
    ):
        reasons.append(LossReason.ISSUED_RECORD)
    pdf = newest_card_pdf(card_folders)
    if pdf > backup.card:
        reasons.append(LossReason.NEWER_CARD_PDF)
    known = known_backups(data_dir)
    audit_lost = max(0, marks.audit_seq - _allowed_head(backup, taken_at, known))
    if same and audit_lost:
        reasons.append(LossReason.AUDIT_HEAD)
    newest = max((b.taken_at for b in known), default=None)
    if taken_at and newest is not None and newest > codec.parse_ts(taken_at):
        reasons.append(LossReason.NEWER_BACKUP)
    highest_card = max(marks.card, pdf, backup.card)
    return RestoreLoss(
        cards=max(0, highest_card - base.card),
        visits=max(0, marks.visit - base.visit),
        vouchers=max(0, marks.voucher - base.voucher),
        audit_entries=marks.audit_seq if base is not backup else audit_lost,
        reasons=tuple(dict.fromkeys(reasons)),
        newest_backup="" if newest is None else newest.isoformat(),
        card_resumes_at=highest_card + 1,
        voucher_resumes_at=max(marks.voucher, backup.voucher) + 1,
    )


def _allowed_head(backup: Highs, taken_at: str, known: list[KnownBackup]) -> int:
    """The backup's own BACKUP entry, written right after the copy, is not a loss: the
    folder may be at that entry's seq when nothing came between, else at the copy's."""
    seq = backup.audit_seq
    written = (b.taken_at for b in known if b.head_seq == seq and b.entry_seq == seq + 1)
    return seq + 1 if taken_at and taken_at in map(codec.ts, written) else seq


def newest_card_pdf(folders: Iterable[Path]) -> int:
    """The highest ``card-<n>[-...].pdf`` number in the PDF-folder printer's folders, or 0."""
    found = [0]
    for folder in folders:
        with contextlib.suppress(OSError):
            found += [int(m[1]) for m in map(_CARD_PDF.match, os.listdir(folder)) if m]
    return max(found)


def sweep_leftovers(data_dir: Path) -> list[str]:
    """Remove what killed restores (and killed writes of the marker, the record or the
    backup list, named with a dead pid) left in ``data_dir``; the names removed. A copy whose
    marker was written is whole and checked: it is put in place. A running restore's is not."""
    done: list[str] = []
    data_dir = Path(data_dir)
    try:
        names = os.listdir(data_dir)
    except OSError:
        return done
    path = data_dir / DB_FILE
    for name in names:
        item = data_dir / name
        match = _PID_TEMP.match(name)
        if name.startswith(TEMP_PREFIX) and name.endswith(".tmp"):
            done.extend(_sweep_copy(item, path))
        elif name.startswith(TEMP_PREFIX) and name.endswith(SIDE_FILES):
            if not (data_dir / name[: name.rindex("-")]).exists() and unlink(item):
                done.append(name)
        elif match and not _alive(int(match.group(1))) and unlink(item):
            done.append(name)
    if done:
        log.warning("removed %d file(s) left by an interrupted restore or write", len(done))
    return done


def _sweep_copy(temp: Path, path: Path) -> list[str]:
    try:
        fd = os.open(temp, os.O_RDONLY)
    except OSError:
        return []
    try:
        lock_exclusively(fd, wait=False)
        with folder_lock(path.parent):
            if _finished(temp, path):
                os.replace(temp, path)
                fsync_folder(path.parent)
                log.warning("an interrupted restore was completed (its copy was checked)")
                return [temp.name]
            return remove_with_sides(temp)
    except OSError:
        return []  # a restore is running, or left for a command that can write the folder
    finally:
        os.close(fd)


def _finished(temp: Path, path: Path) -> bool:
    """The marker of this very copy is written and no file is in place."""
    try:
        marker = None if path.exists() else read_marker(path)
        return marker is not None and marker.salt == salt_of(temp)
    except (StoreError, OSError):
        return False


def _alive(pid: int) -> bool:
    if sys.platform == "win32":
        return True  # os.kill(pid, 0) would end the process there: its files are kept
    else:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            pass  # someone else's process
        return True


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on the data folder while a copy is put in place: one restore
    wins. POSIX locks the folder itself; Windows cannot open a folder, so it locks a
    lock file in it."""
    if sys.platform == "win32":
        fd = os.open(folder / WINDOWS_FOLDER_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    else:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        lock_exclusively(fd)
        yield
    finally:
        os.close(fd)

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

Going back is weighed (:func:`assess`) against three sources, each enough on its own,
merged by ``max`` because each only grows:

* ``issued.json`` (db/issued.py): the highest card, voucher and visit numbers and the
  audit head of the file, kept up to date by the store after every write;
* the card PDFs of the PDF-folder printer (``card-<n>[-...].pdf``): a card printed is a
  card issued, even when the record is gone;
* ``backups.json`` (db/backup.py): a backup taken after this one.

The backup's own BACKUP entry, which the desk appends right after the copy, is not a
loss (``_allowed_head``). A record of another file id means the folder held another
visitor file: all of it would be lost.

Killed restores (art. 20.4: the folder holds the visitor file, never half of one or
stray copies of it). The copy is made under ``.visitors.db.restore.<random>.tmp``, held
by an exclusive ``flock`` for the whole restore, and everything is written into it -
counters and FILE_RESTORED included - before it is renamed into place; SQLite may add
``-wal``/``-shm`` beside it while the copy is checked. The order is: copy, check, adopt
(all inside the temporary copy), fsync, marker, ``issued.json``, rename. A SIGKILL
leaves those files (tens of MB each) behind: :func:`sweep_leftovers`, run by every
command before it opens the folder (main.py), removes the copies nobody holds - a
restore still running holds its lock, a killed one no longer does - and their side
files, and the temporary files of killed writes of the marker, the record of numbers
issued and the backup list (named with a pid no longer alive). A copy whose marker was
already written is the complete, checked restore (the marker is written only after the
copy was adopted and made durable): it is renamed into place instead. So the folder's
file is either the old one (none) or the whole new one, never half.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import secrets
import shutil
import sqlite3
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from admission.backups import KnownBackup, RestoreInfo
from admission.errors import StoreError, StoreErrorCode, WrongKeyError
from admission.restore_loss import LossReason, RestoreLoss, RestoreLossError
from db import codec
from db.backup import (
    CASINO_SETTING,
    DB_FILE,
    TAKEN_AT_SETTING,
    BackupCode,
    known_backups,
)
from db.connection import DB_ERRORS, configure, connect_encrypted
from db.file_guard import (
    FILE_ID_SETTING,
    SIDE_FILES,
    Marker,
    fsync_file,
    fsync_folder,
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

try:
    import sqlcipher3
except ImportError:  # pragma: no cover - connect_encrypted says NO_SQLCIPHER first
    sqlcipher3 = None

__all__ = [
    "TEMP_PREFIX",
    "AcceptLoss",
    "assess",
    "newest_card_pdf",
    "restore",
    "sweep_leftovers",
]

log = logging.getLogger(__name__)
TEMP_PREFIX = f".{DB_FILE}.restore."
_PID_TEMP = re.compile(r"^\.(?:visitors\.db\.marker|issued\.json|backups\.json)\.(\d+)\.tmp$")
_CARD_PDF = re.compile(r"^card-(\d{1,12})(?:-[^/]*)?\.pdf$")

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
            fsync_file(temp)
        except OSError as exc:
            raise _write_failed(exc, "the backup could not be copied into the folder ({})") from exc
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


def _check_folder(data_dir: Path, path: Path, *, locked: bool = False) -> bool:
    """RESTORE_FILE_EXISTS when the folder holds a file or a marker; True when the
    folder is still to be made.

    ``locked``: checked again under the folder lock, once the copy shows a loss. When
    another restore put its file in this folder since the first check, the loss the
    folder's record shows is that restore's own FILE_RESTORED and raised counters (it
    writes the marker, then ``issued.json``, then renames, under the folder lock), not
    data this backup would lose. Taking the lock waits for such a restore to finish, so
    the answer is the same however the two interleave."""
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
    live = False
    for side in SIDE_FILES:
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
            _resume_counters(tx, loss)
            return tx.audit(actor, "FILE_RESTORED", "visitor-file", wanted.at, details)

        store.write(restored)
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


def _resume_counters(tx: Tx, loss: RestoreLoss) -> None:
    """Card and voucher numbers issued since the backup are never issued again (art. 23):
    the counters resume past them (in FILE_RESTORED's transaction)."""
    if not loss.any:
        return
    tx.execute(
        "UPDATE counters SET next = max(next, ?) WHERE name = 'card'", (loss.card_resumes_at,)
    )
    tx.execute(
        "INSERT INTO counters (name, next) VALUES ('voucher', ?) "
        "ON CONFLICT (name) DO UPDATE SET next = max(next, excluded.next)",
        (loss.voucher_resumes_at,),
    )


def _put_in_place(temp: Path, path: Path, key: DbKey, copy: _Copy, at: datetime) -> None:
    """fsync, marker, record, rename: once the marker is written, a killed restore is
    finished by the next command's sweep (the copy is whole and checked)."""
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
            check = key.check_value(copy.file_id)
            write_marker(path, Marker(copy.file_id, salt_of(temp), check, codec.ts(at)))
            try:
                with contextlib.suppress(OSError):  # caught up at the next open
                    write_issued(path.parent, IssuedRecord(copy.file_id, copy.highs, codec.ts(at)))
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


# -- what the folder knows its file held (art. 20.4; art. 23: a card serves one visitor)


def assess(
    backup: Highs,
    file_id: str,
    taken_at: str,
    data_dir: Path,
    card_folders: Iterable[Path] = (),
) -> RestoreLoss:
    """What ``data_dir`` held that a backup with marks ``backup`` does not."""
    reasons: list[LossReason] = []
    record = read_issued(data_dir)
    marks = Highs() if record is None else record.highs
    base = backup
    if record is not None and record.file_id != file_id:
        reasons.append(LossReason.OTHER_FILE)  # all of the other file is lost
        base = Highs()
    elif record is not None and (
        marks.card > base.card or marks.voucher > base.voucher or marks.visit > base.visit
    ):
        reasons.append(LossReason.ISSUED_RECORD)
    pdf = newest_card_pdf(card_folders)
    if pdf > backup.card:
        reasons.append(LossReason.NEWER_CARD_PDF)
    known = known_backups(data_dir)
    audit_lost = max(0, marks.audit_seq - _allowed_head(backup, taken_at, known))
    if record is not None and record.file_id == file_id and audit_lost:
        reasons.append(LossReason.AUDIT_HEAD)
    newest = max((b.taken_at for b in known), default=None)
    if taken_at and newest is not None and newest > codec.parse_ts(taken_at):
        reasons.append(LossReason.NEWER_BACKUP)
    highest_card = max(marks.card, pdf, backup.card)
    highest_voucher = max(marks.voucher, backup.voucher)
    return RestoreLoss(
        cards=max(0, highest_card - base.card),
        visits=max(0, marks.visit - base.visit),
        vouchers=max(0, marks.voucher - base.voucher),
        audit_entries=marks.audit_seq if base is not backup else audit_lost,
        reasons=tuple(dict.fromkeys(reasons)),
        newest_backup="" if newest is None else newest.isoformat(),
        card_resumes_at=highest_card + 1,
        voucher_resumes_at=highest_voucher + 1,
    )


def _allowed_head(backup: Highs, taken_at: str, known: list[KnownBackup]) -> int:
    """The backup's own BACKUP entry, written by the desk right after the copy, is not
    a loss: the head the folder may be at is that entry's seq when it followed the copy
    at once (nothing else was recorded between), else the copy's own head."""
    for item in known:
        if (
            taken_at
            and codec.ts(item.taken_at) == taken_at
            and item.head_seq == backup.audit_seq
            and item.entry_seq == backup.audit_seq + 1
        ):
            return item.entry_seq
    return backup.audit_seq


def newest_card_pdf(folders: Iterable[Path]) -> int:
    """The highest card number among ``card-<n>[-...].pdf`` in the PDF folders (the
    PDF-folder printer's names, hardware/printer/service.py); 0 when none."""
    found = 0
    for folder in folders:
        with contextlib.suppress(OSError):
            for name in os.listdir(folder):
                match = _CARD_PDF.match(name)
                if match:
                    found = max(found, int(match.group(1)))
    return found


# -- what killed restores leave in the folder ----------------------------------------


def sweep_leftovers(data_dir: Path) -> list[str]:
    """Remove what killed restores (and killed writes of the marker, the record or the
    backup list) left in ``data_dir``; return the names removed (no personal data in
    them). A temporary copy whose marker was written is the whole, checked restore: it
    is put in place instead. Temporary files a live process holds are left alone."""
    done: list[str] = []
    try:
        names = os.listdir(data_dir)
    except OSError:
        return done
    path = Path(data_dir) / DB_FILE
    for name in names:
        item = Path(data_dir) / name
        if name.startswith(TEMP_PREFIX) and name.endswith(".tmp"):
            done.extend(_sweep_copy(item, path))
        elif name.startswith(TEMP_PREFIX) and name.endswith(SIDE_FILES):
            base = name[: name.rindex("-")]
            if not (Path(data_dir) / base).exists() and unlink(item):
                done.append(name)
        else:
            match = _PID_TEMP.match(name)
            if match and not _alive(int(match.group(1))) and unlink(item):
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
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return []  # a restore is running
        try:
            with folder_lock(path.parent):
                if _finished(temp, path):
                    os.replace(temp, path)
                    fsync_folder(path.parent)
                    log.warning("an interrupted restore was completed (its copy was checked)")
                    return [temp.name]
                return remove_with_sides(temp)
        except OSError:
            return []  # left for a command that can write the folder
    finally:
        os.close(fd)


def _finished(temp: Path, path: Path) -> bool:
    """The marker of this very copy is written and no file is in place."""
    if path.exists():
        return False
    try:
        marker = read_marker(path)
        return marker is not None and marker.salt == salt_of(temp)
    except (StoreError, OSError):
        return False


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive flock on the data folder itself while a restore's marker and copy
    are put in place (or a killed one's are finished): one restore wins, whole."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)

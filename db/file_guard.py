"""The folder knows its visitor file, so the file never silently starts over (art. 20.4).

``visitors.db.marker`` beside the file (written at ``init``, backed up with it) holds its
identity, no personal data (:class:`Marker`). A missing, emptied or replaced file is
refused; a folder that never held one gets a file only from ``init``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from admission.atomic_file import write_atomically
from admission.codes import Code
from admission.errors import ConfigError, StoreError, StoreErrorCode

MARKER_SUFFIX = ".marker"
FILE_ID_SETTING = "file.id"  # the settings row that holds the file id inside the file
SALT_BYTES = 16  # SQLCipher 4: a random KDF salt in clear at the start of page 1
SIDE_FILES = ("-wal", "-shm", "-journal")  # what SQLite may keep beside a database
_KIND = "admission-desk visitor file marker"
_NOTE = (
    "Marca del fichero de visitantes (art. 20.4): no la borre; cópiela junto con el "
    "fichero en cada copia de seguridad. / Visitor-file marker: do not delete; back it "
    "up together with the file."
)
_BACKUP = "restore it (and its marker) from the backup"


@dataclass(frozen=True, slots=True)
class Marker:
    """The identity of the file a folder holds."""

    file_id: str  # also stored inside the file
    salt: str  # hex of the file's first 16 bytes (SQLCipher 4 keeps its salt in clear)
    key_check: str  # keyed: tells a wrong key from a damaged first page (SQLCipher alike)
    created_at: str
    damaged_pages: tuple[int, ...] = ()  # no writes until restored
    damage_found_at: str = ""
    # "" until the chain's first keyed entry (new file); a file with a marker is never re-keyed
    audit_key_id: str = ""

    @property
    def damaged(self) -> bool:
        return bool(self.damaged_pages)

    def with_damage(self, pages: tuple[int, ...], at: str) -> Marker:
        return replace(self, damaged_pages=tuple(sorted(set(pages))) or (0,), damage_found_at=at)

    def without_damage(self) -> Marker:
        return replace(self, damaged_pages=(), damage_found_at="")

    def to_json(self) -> str:
        data = {"kind": _KIND, "version": 1, **asdict(self), "note": _NOTE}
        return json.dumps(data, ensure_ascii=False, indent=2)

    @classmethod
    def from_json(cls, text: str) -> Marker:
        """Raises ValueError (or KeyError/TypeError) for anything but a marker."""
        data = json.loads(text)
        if data.get("kind") != _KIND or data.get("version") != 1:
            raise ValueError("not a visitor-file marker")
        pages = tuple(int(p) for p in data.get("damaged_pages", []))
        fields = (data["file_id"], data["salt"], data["key_check"], data["created_at"])
        if not all(isinstance(f, str) and f for f in fields):
            raise ValueError("a marker field is empty")
        key_id = str(data.get("audit_key_id", ""))
        return cls(*fields, pages, str(data.get("damage_found_at", "")), key_id)


def marker_path(path: Path) -> Path:
    return path.with_name(path.name + MARKER_SUFFIX)


def new_file_id() -> str:
    return secrets.token_hex(16)


def file_present(path: Path) -> bool:
    """True when ``path`` exists and holds at least one byte."""
    try:
        return path.stat().st_size > 0
    except FileNotFoundError:
        return False


def salt_of(path: Path) -> str:
    with path.open("rb") as handle:
        return handle.read(SALT_BYTES).hex()


def lock_exclusively(fd: int, *, wait: bool = True) -> None:
    """An exclusive lock on the open lock file ``fd``, held until it is closed: one of the
    desk's processes at a time. ``wait`` False: ``OSError`` at once when another holds
    it. POSIX ``flock``; on Windows ``msvcrt.locking`` of its first byte (which, waiting,
    tries for about ten seconds before ``OSError``)."""
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)


def read_optional(
    path: Path, unreadable: Callable[[str], Exception], encoding: str = "utf-8"
) -> str | None:
    """The text at ``path``, None when there is no such file; ``unreadable(the failure's
    name)`` raised when it cannot be read (db/pg/desk.py reads its database id so)."""
    try:
        return path.read_text(encoding)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise unreadable(type(exc).__name__) from exc


def read_kept(path: Path, code: Code, what: str, valid: Callable[[str], bool]) -> str | None:
    """A one-line value a desk keeps in its folder (its database's id, the newest
    timeline): None before it was written; ``ConfigError`` with ``code`` when it cannot
    be read or is not ``what``."""
    text = read_optional(
        path, lambda why: ConfigError(f"cannot read {path.name}: {why}", code=code), "ascii"
    )
    if text is None:
        return None
    text = text.strip()
    if not valid(text):
        raise ConfigError(f"{path.name} holds no {what}", code=code)
    return text


def keep(path: Path, text: str) -> None:
    """Write a kept value whole (a temporary file renamed over it), its folder 0700."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_atomically(path, (text + "\n").encode("ascii"))


def read_marker(path: Path) -> Marker | None:
    """The marker of the file at ``path``; None when there is none. An unreadable marker
    is MARKER_MISSING: the folder can no longer vouch for its file."""
    text = read_optional(
        marker_path(path),
        lambda why: StoreError(
            f"the visitor file's marker cannot be read ({why}): {_BACKUP}",
            code=StoreErrorCode.MARKER_MISSING,
        ),
    )
    if text is None:
        return None
    try:
        return Marker.from_json(text)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise StoreError(
            f"the visitor file's marker is not valid: {_BACKUP}",
            code=StoreErrorCode.MARKER_MISSING,
        ) from exc


def write_marker(path: Path, marker: Marker) -> None:
    """Write the marker atomically and durably: temp file, fsync, rename, fsync folder."""
    try:
        replace_file(marker_path(path), marker.to_json().encode("utf-8"), durable=True)
    except OSError as exc:
        raise os_error(exc, path, "cannot write the visitor file's marker") from exc


def replace_file(target: Path, data: bytes, *, durable: bool) -> None:
    """``data`` at ``target`` (0600) through ``.<name>.<pid>.tmp`` and a rename (the
    restore's sweep removes such a file a dead process left); ``durable``: the file and
    the folder fsync'd. Raises OSError, leaving no temporary file."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
        try:
            os.write(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        if durable:
            fsync_folder(target.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def fsync_file(path: Path) -> None:
    """Make ``path``'s bytes (or a folder's names: a rename in it) durable. Raises OSError."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_folder(folder: Path) -> None:
    """Make a rename (or a removal) in ``folder`` durable. Raises OSError. Windows
    cannot open a folder (``os.open`` fails) and NTFS journals its names: nothing to do
    there."""
    if sys.platform != "win32":
        fsync_file(folder)


def why(exc: BaseException) -> str:
    """An OSError's reason (never a path: it may hold a person's name), or its type."""
    return getattr(exc, "strerror", None) or type(exc).__name__


def unlink(path: Path) -> bool:
    """Remove ``path``; whether there was one to remove."""
    try:
        path.unlink()
    except OSError:
        return False
    return True


def remove_with_sides(path: Path) -> list[str]:
    """Remove ``path`` and its SQLite side files; the names removed."""
    every = (path, *(path.with_name(path.name + side) for side in SIDE_FILES))
    return [p.name for p in every if unlink(p)]


def preflight(path: Path, *, create: bool) -> Marker | None:
    """Before any key is asked, is there a file to open (or may one be created)? Raises
    FILE_MISSING / FILE_EMPTIED (the marker's file is gone or empty), NO_FILE (none ever
    and not ``create``), READ_ONLY_DISK. Reads only."""
    marker = read_marker(path)
    if marker is not None:
        missing = not path.exists()
        if missing or not file_present(path):
            what = "is missing from its folder" if missing else "has been emptied (0 bytes)"
            code = StoreErrorCode.FILE_MISSING if missing else StoreErrorCode.FILE_EMPTIED
            raise StoreError(f"the visitor file {what}: {_BACKUP}", code=code)
    elif not file_present(path) and not create:
        raise StoreError(
            "this folder holds no visitor file: create one with the init command",
            code=StoreErrorCode.NO_FILE,
        )
    if disk_is_read_only(path):
        raise StoreError(
            "the visitor file's folder or the file itself is read-only",
            code=StoreErrorCode.READ_ONLY_DISK,
        )
    return marker


def refuse_existing(path: Path) -> None:
    """``init`` never overwrites: a file with data, or a marker, is FILE_EXISTS. (A
    0-byte file without a marker is a creation killed before its first commit.)"""
    if file_present(path) or marker_path(path).exists():
        raise StoreError(
            "this folder already holds a visitor file or its marker; nothing was created",
            code=StoreErrorCode.FILE_EXISTS,
        )
    if disk_is_read_only(path):
        raise StoreError(
            "the visitor file's folder is read-only", code=StoreErrorCode.READ_ONLY_DISK
        )


def disk_is_read_only(path: Path) -> bool:
    """The folder is on a read-only mount or not writable, or the file is not writable
    (``os.access`` sees a read-only mount even for root; file modes it does not). On
    Windows, where ``os.access`` reads only the read-only attribute, not a folder's ACL,
    creating a temporary file in the folder tells."""
    folder = path.parent
    if sys.platform != "win32":
        try:
            if os.statvfs(folder).f_flag & os.ST_RDONLY:
                return True
        except OSError:
            return False  # the folder does not exist yet: creating it will say why not
    elif not folder.is_dir():
        return False
    elif refuses_new_files(folder):
        return True
    if not os.access(folder, os.W_OK | os.X_OK):
        return True
    return path.exists() and not os.access(path, os.W_OK)


def refuses_new_files(folder: Path) -> bool:
    """A file cannot be created in ``folder`` for want of permission or a writable disk
    (the probe is removed when it closes; a full disk is not read-only)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return False
    except PermissionError:
        return True
    except OSError as exc:
        return exc.errno == errno.EROFS


def os_error(exc: OSError, path: Path, what: str) -> StoreError:
    """An OSError on the visitor file's folder as a store error with the right code."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        code = StoreErrorCode.DISK_FULL
    elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) or disk_is_read_only(path):
        code = StoreErrorCode.READ_ONLY_DISK
    else:
        code = StoreErrorCode.WRITE_FAILED
    return StoreError(f"{what}: {exc.strerror or type(exc).__name__}", code=code)

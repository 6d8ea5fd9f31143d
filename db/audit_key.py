"""The audit key: the HMAC-SHA256 key of the audit chain (art. 20.4, art. 14.1.b).

A random 256-bit secret apart from the file key and never stored in the file, so the file
key alone cannot rewrite the record consistently; it survives a re-key and may have its
own custodian (art. 14.1.b). The key file beside the visitor file (owner-only) protects a
copy of the file, not of the folder. A keyed chain whose key is missing stops audited writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from admission.errors import StoreError
from db.audit_chain import AuditChainCode
from db.keys import HEX_KEY, KeyringBackend, keyring_secret

ENV_VAR = "ADMISSION_AUDIT_KEY"
KEYRING_USERNAME = "audit-chain-key"
KEY_FILE_SUFFIX = ".audit-key"
_KEY_ID_LABEL = b"admission-desk/audit-key-id/v1"
_KEY_FILE_MAX = 256  # 64 hex characters and some white space; more is not a key
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # POSIX: a FIFO there; Windows has none at a path


class AuditKey:
    """A 32-byte HMAC key. Opaque: no repr of the key, no pickling."""

    __slots__ = ("_raw", "source")

    def __init__(self, raw: bytes, source: str = "") -> None:
        if len(raw) != 32:
            raise ValueError("an audit key is 32 bytes")
        self._raw = raw
        self.source = source  # "env", "keyring", "file", "given"... (never the key)

    @classmethod
    def generate(cls, source: str = "generated") -> AuditKey:
        return cls(secrets.token_bytes(32), source)

    @classmethod
    def from_hex(cls, text: str, source: str = "text") -> AuditKey:
        if not HEX_KEY.match(text.strip()):
            raise _bad("an audit key is 64 hex characters")
        return cls(bytes.fromhex(text.strip()), source)

    def mac(self, data: bytes) -> str:
        return hmac.new(self._raw, data, hashlib.sha256).hexdigest()

    @property
    def key_id(self) -> str:
        """16 hex characters naming the key without revealing it (recorded in the chain)."""
        return self.mac(_KEY_ID_LABEL)[:16]

    def hex(self) -> str:
        return self._raw.hex()

    def __repr__(self) -> str:
        return f"AuditKey(<hidden>, source={self.source!r})"

    def __reduce__(self) -> Any:
        raise TypeError("AuditKey cannot be pickled")


def audit_key_from_keyring(backend: KeyringBackend, *, create: bool) -> AuditKey | None:
    stored = keyring_secret(backend, KEYRING_USERNAME, create=create)
    return None if stored is None else AuditKey.from_hex(stored, source="keyring")


def key_file_path(database: Path) -> Path:
    return database.with_name(database.name + KEY_FILE_SUFFIX)


def audit_key_from_file(path: Path, *, create: bool) -> AuditKey | None:
    """Read the key file; with ``create``, publish a new one atomically if absent (two
    desks starting on the same new file end up with the same key)."""
    if path.exists() or path.is_symlink():
        return _read_key_file(path)
    if not create:
        return None
    key = AuditKey.generate(source="file")
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(key.hex())
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temp, path)  # fails if another desk published first: use theirs
        except FileExistsError:
            return _read_key_file(path)
    except OSError as exc:
        raise StoreError(
            f"cannot write the audit key file: {type(exc).__name__}",
            code=AuditChainCode.AUDIT_KEY_MISSING,
        ) from exc
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()
    return key


def _read_key_file(path: Path) -> AuditKey:
    """The key in the key file: 64 hex characters. Anything else there - raw bytes, text
    that is not ASCII, a folder, a device or a pipe - is AUDIT_KEY_BAD, never a traceback
    nor a read that does not end (at most ``_KEY_FILE_MAX`` bytes are read)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK)  # a pipe must not block the open
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
            raw = os.read(fd, _KEY_FILE_MAX) if regular else b""
        finally:
            os.close(fd)
    except OSError as exc:
        raise _bad(f"the audit key file cannot be read ({type(exc).__name__})") from exc
    if not regular:
        raise _bad("the audit key file is not a regular file")
    try:
        return AuditKey.from_hex(raw.decode("ascii"), source="file")
    except UnicodeDecodeError as exc:
        raise _bad("the audit key file holds no text key") from exc


def _bad(message: str) -> StoreError:
    return StoreError(message, code=AuditChainCode.AUDIT_KEY_BAD)


def resolve_audit_key(
    database: Path | None,
    *,
    create: bool,
    environ: Mapping[str, str] | None = None,
    keyring_backend: KeyringBackend | None = None,
    allow_file: bool = True,
) -> AuditKey | None:
    """The audit key of the visitor file at ``database``: environment, keyring, key file.
    With ``create`` (a chain without keyed entries) a missing key is made in the keyring
    when one is given, else in the key file (when ``allow_file``)."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    if value:
        return AuditKey.from_hex(value, source="env")
    path = key_file_path(database) if allow_file and database is not None else None
    key = None if keyring_backend is None else audit_key_from_keyring(keyring_backend, create=False)
    if key is None and path is not None:
        key = audit_key_from_file(path, create=False)
    if key is not None or not create:
        return key
    if keyring_backend is not None:
        return audit_key_from_keyring(keyring_backend, create=True)
    return None if path is None else audit_key_from_file(path, create=True)

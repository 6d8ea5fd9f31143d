"""The audit key: the HMAC-SHA256 key of the audit chain (art. 20.4, art. 14.1.b).

The chain is keyed so that whoever holds the visitor-file key alone cannot rewrite the
record consistently. The audit key is therefore a separate random 256-bit secret, never
stored inside the visitor file and not derived from its key:

* a passphrase-derived file key would tie the chain to the passphrase, and a new
  passphrase would break every past link; an independent secret survives a re-key;
* it can be held by another custodian than the file key (the game director answers
  for the files, art. 14.1.b): a service's environment, the desk's OS keyring;
* HKDF(file key, installation secret) would add nothing against the threat: whoever
  holds the file key still needs the installation secret, exactly as here.

Sources, in the order :func:`resolve_audit_key` tries them:

1. ``ADMISSION_AUDIT_KEY`` (services): 64 hex characters.
2. The OS keyring (service ``admission-desk``, user ``audit-chain-key``), when the
   composition root passes a backend.
3. A key file beside the visitor file (``visitors.db.audit-key``, owner-only): the
   fallback of a desk without keyring. It protects a copy of the visitor file and its
   key, not a copy of the whole folder; :attr:`AuditKey.source` says which was used.

A key is created only for a chain that has no keyed entry yet (a new file, or the
upgrade of an old one); a keyed chain whose key is missing stops audited writes
rather than fork the chain (the file never starts over on its own).
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
            raise StoreError("an audit key is 64 hex characters", code=AuditChainCode.AUDIT_KEY_BAD)
        return cls(bytes.fromhex(text.strip()), source)

    def mac(self, data: bytes) -> str:
        """HMAC-SHA256 of ``data``, hex."""
        return hmac.new(self._raw, data, hashlib.sha256).hexdigest()

    @property
    def key_id(self) -> str:
        """16 hex characters naming the key without revealing it (recorded in the chain)."""
        return self.mac(_KEY_ID_LABEL)[:16]

    def hex(self) -> str:
        """For storing the key in the keyring or the key file."""
        return self._raw.hex()

    def __repr__(self) -> str:
        return f"AuditKey(<hidden>, source={self.source!r})"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("AuditKey cannot be pickled")


def audit_key_from_keyring(backend: KeyringBackend, *, create: bool) -> AuditKey | None:
    stored = keyring_secret(
        backend, KEYRING_USERNAME, create=create, generate=lambda: AuditKey.generate().hex()
    )
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
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe must not block the open
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise StoreError(
                    "the audit key file is not a regular file", code=AuditChainCode.AUDIT_KEY_BAD
                )
            raw = os.read(fd, _KEY_FILE_MAX)
        finally:
            os.close(fd)
    except OSError as exc:
        raise StoreError(
            f"the audit key file cannot be read ({type(exc).__name__})",
            code=AuditChainCode.AUDIT_KEY_BAD,
        ) from exc
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as exc:
        raise StoreError(
            "the audit key file holds no text key", code=AuditChainCode.AUDIT_KEY_BAD
        ) from exc
    return AuditKey.from_hex(text, source="file")


def resolve_audit_key(
    database: Path | None,
    *,
    create: bool,
    environ: Mapping[str, str] | None = None,
    keyring_backend: KeyringBackend | None = None,
    allow_file: bool = True,
) -> AuditKey | None:
    """The audit key of the visitor file at ``database``: environment, keyring, key file.

    With ``create`` (only for a chain without keyed entries) a missing key is made: in
    the keyring when one is given, else in the key file (when ``allow_file``).
    """
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    if value:
        return AuditKey.from_hex(value, source="env")
    if keyring_backend is not None:
        key = audit_key_from_keyring(keyring_backend, create=False)
        if key is not None:
            return key
    path = key_file_path(database) if allow_file and database is not None else None
    if path is not None:
        key = audit_key_from_file(path, create=False)
        if key is not None:
            return key
    if not create:
        return None
    if keyring_backend is not None:
        return audit_key_from_keyring(keyring_backend, create=True)
    return None if path is None else audit_key_from_file(path, create=True)


__all__ = [
    "ENV_VAR",
    "KEYRING_USERNAME",
    "AuditKey",
    "audit_key_from_file",
    "audit_key_from_keyring",
    "key_file_path",
    "resolve_audit_key",
]

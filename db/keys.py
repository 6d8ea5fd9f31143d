"""Keys of the visitor file: never written to disk in clear, never shown by ``repr``.

Sources, in the order :func:`resolve_key` tries them: ``ADMISSION_DB_KEY`` (64 hex
characters = a raw 256-bit key, else a passphrase stretched by SQLCipher's KDF); the OS
keyring (a random raw key made for a new file, never on a plaintext-file backend); an
operator passphrase asked through the UI's callback.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from admission.errors import ConfigError, StoreErrorCode

ENV_VAR = "ADMISSION_DB_KEY"
KEYRING_SERVICE = "admission-desk"
KEYRING_USERNAME = "visitor-file-key"
HEX_KEY = re.compile(r"^[0-9a-fA-F]{64}$")  # a raw 256-bit key as text
# The key-check value of the visitor file's marker (db/file_guard.py). A passphrase is
# stretched as SQLCipher 4 stretches it (PBKDF2-HMAC-SHA512, 256,000 iterations: the
# SQLCipher 4 defaults), so the marker makes guessing it no cheaper than the file does.
_CHECK_LABEL = b"admission-desk/key-check/v1|"
_CHECK_KDF_ITERATIONS = 256_000


class DbKey:
    """A raw 32-byte key or a passphrase for SQLCipher. Opaque: no repr, no equality leak."""

    __slots__ = ("_passphrase", "_raw", "source")

    def __init__(
        self, *, raw: bytes | None = None, passphrase: str | None = None, source: str = ""
    ) -> None:
        if (raw is None) == (passphrase is None):
            raise ValueError("give exactly one of raw or passphrase")
        if raw is not None and len(raw) != 32:
            raise ValueError("a raw key is 32 bytes")
        if passphrase is not None and (not passphrase or "\x00" in passphrase):
            raise ValueError("empty passphrase or NUL character")
        self._raw = raw
        self._passphrase = passphrase
        self.source = source  # "env", "keyring", "passphrase"... (never the key)

    @classmethod
    def from_raw(cls, raw: bytes, source: str = "raw") -> DbKey:
        return cls(raw=raw, source=source)

    @classmethod
    def from_passphrase(cls, passphrase: str, source: str = "passphrase") -> DbKey:
        return cls(passphrase=passphrase, source=source)

    @classmethod
    def from_text(cls, text: str, source: str = "text") -> DbKey:
        """64 hex characters → raw key; anything else → passphrase."""
        if HEX_KEY.match(text.strip()):
            return cls(raw=bytes.fromhex(text.strip()), source=source)
        return cls(passphrase=text, source=source)

    @classmethod
    def generate(cls, source: str = "generated") -> DbKey:
        return cls(raw=secrets.token_bytes(32), source=source)

    @property
    def is_raw(self) -> bool:
        return self._raw is not None

    def pragma_value(self) -> str:
        """The right-hand side of ``PRAGMA key = ...`` (pragmas take no bound parameters)."""
        if self._raw is not None:
            return "\"x'" + self._raw.hex() + "'\""
        assert self._passphrase is not None
        return "'" + self._passphrase.replace("'", "''") + "'"

    def check_value(self, file_id: str) -> str:
        """A keyed digest that tells this key from another without revealing it (the
        marker's key check, db/file_guard.py). Hex, 64 characters."""
        label = _CHECK_LABEL + file_id.encode("ascii")
        if self._raw is not None:
            material = self._raw  # a random 256-bit key: nothing to stretch
        else:
            assert self._passphrase is not None
            material = hashlib.pbkdf2_hmac(
                "sha512", self._passphrase.encode("utf-8"), label, _CHECK_KDF_ITERATIONS, 32
            )
        return hmac.new(material, label, hashlib.sha256).hexdigest()

    def hex(self) -> str:
        """The raw key as hex, for storing it in the keyring. Passphrases have none."""
        if self._raw is None:
            raise ValueError("a passphrase key has no raw form")
        return self._raw.hex()

    def __repr__(self) -> str:
        kind = "raw" if self._raw is not None else "passphrase"
        return f"DbKey(<{kind} hidden>, source={self.source!r})"

    def __reduce__(self) -> Any:
        raise TypeError("DbKey cannot be pickled")


def key_from_env(environ: Mapping[str, str] | None = None) -> DbKey | None:
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    return DbKey.from_text(value, source="env") if value else None


class KeyringBackend(Protocol):
    def get_password(self, service: str, username: str) -> str | None: ...

    def set_password(self, service: str, username: str, password: str) -> None: ...


def system_keyring() -> KeyringBackend | None:
    """The OS keyring, or None when only the fail or a plaintext-file backend exists."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    backend = keyring.get_keyring()
    # keyrings.alt plaintext/"encrypted"-file backends would put the key on disk.
    if isinstance(backend, fail.Keyring) or type(backend).__module__.startswith("keyrings.alt"):
        return None
    return backend  # type: ignore[no-any-return,unused-ignore]


def keyring_secret(backend: KeyringBackend, username: str, *, create: bool) -> str | None:
    """The secret under ``username`` of this app's keyring service; with ``create``, a new
    random 256-bit one (64 hex characters) when there is none, read back before it is
    trusted (a backend that silently drops it would lose what it protects). Raises
    KEYRING_FAILED."""
    try:
        stored = backend.get_password(KEYRING_SERVICE, username)
        if stored or not create:
            return stored or None
        value = secrets.token_hex(32)
        backend.set_password(KEYRING_SERVICE, username, value)
        kept = backend.get_password(KEYRING_SERVICE, username) == value
    except Exception as exc:  # keyring backends raise their own error types
        raise ConfigError(
            f"keyring error: {type(exc).__name__}", code=StoreErrorCode.KEYRING_FAILED
        ) from exc
    if not kept:
        raise ConfigError("the keyring did not keep the secret", code=StoreErrorCode.KEYRING_FAILED)
    return value


def resolve_key(
    *,
    database_exists: bool,
    environ: Mapping[str, str] | None = None,
    keyring_backend: KeyringBackend | None = None,
    use_system_keyring: bool = True,
    ask_passphrase: Callable[[], str] | None = None,
) -> DbKey:
    """Find the key: environment, keyring (created only for a new file), operator.
    Raises ``ConfigError(code=StoreErrorCode.NO_KEY)`` when no source gives one."""
    key = key_from_env(environ)
    if key is not None:
        return key
    backend = keyring_backend
    if backend is None and use_system_keyring:
        backend = system_keyring()
    if backend is not None:  # a key is made only for a new file
        stored = keyring_secret(backend, KEYRING_USERNAME, create=not database_exists)
        if stored is not None:
            return DbKey.from_text(stored, source="keyring")
    passphrase = "" if ask_passphrase is None else ask_passphrase()
    if passphrase:
        return DbKey.from_passphrase(passphrase, source="passphrase")
    raise ConfigError(
        f"no database key: set {ENV_VAR}, configure an OS keyring or give a passphrase",
        code=StoreErrorCode.NO_KEY,
    )


class WindowPassphrase:
    """The passphrase typed in the desk window when no variable or keyring gives a key.
    In this process's memory only: never written, logged or put in the environment (a
    print spooler started by the desk would inherit it)."""

    __slots__ = ("_value",)

    def __init__(self) -> None:
        self._value = ""

    def needed(self, environ: Mapping[str, str] | None = None) -> bool:
        """True when the key can only come from a passphrase (no variable, no keyring)."""
        return key_from_env(environ) is None and system_keyring() is None

    def give(self, passphrase: str) -> None:
        self._value = passphrase

    def forget(self) -> None:
        self._value = ""

    def __call__(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"WindowPassphrase(given={bool(self._value)})"

"""Personal data encrypted by the desk before it reaches a database server.

The visitor file is confidential (Decreto 58/2006, art. 20.4) and its processing must
be secure (GDPR art. 32): on a shared PostgreSQL server, a database administrator, a
backup or a stolen disk must reveal no visitor. So every personal value is sealed here,
in the desk, and the server stores and compares opaque bytes only.

* **Values**: AES-256-GCM. The associated data binds each value to its table, column
  and row key (and to its own header), so a value copied to another row or column, or
  a header edited, fails to open (``PG_VALUE_TAMPERED``). The envelope is compact::

      format (1 byte) | key version (2) | key tag (2) | nonce (12) | ciphertext | tag (16)

  33 bytes over the plaintext. The key tag (16 bits of a keyed digest of the data key)
  tells a value sealed under another key of the same version - another casino's
  database - from a changed one (``PG_VALUE_WRONG_KEY``). Nonces are random: one data
  key seals far fewer than the 2**32 values NIST SP 800-38D allows with random nonces.
* **Data keys**: random 256-bit keys, one per version, each stored on the server only
  wrapped (AES-256-GCM under a key derived from the installation key, with a fixed label,
  the database's id and the version as associated data). A wrapped key from another
  database or under another installation key is refused with its own code.
* **Blind indexes**: keyed HMAC-SHA256 (truncated to 128 bits), keys derived from the
  data key of each version: exact lookups by the document identity
  (:attr:`IdentityKey.text`), and name search by the prefixes of the normalised name
  words (:mod:`db.names`), lengths :data:`MIN_PREFIX` to :data:`MAX_PREFIX`.
* **Rotation**: re-wrap (a new installation key, the same data keys: one record per
  version) and re-encrypt (a new data key version: every value and blind index), the
  latter over batches of rows selected by their old key version, so a run stopped
  halfway is finished by the next one. See :func:`run_reencrypt`.

What the server still sees (row counts, timings, equal blind indexes, name-prefix
frequencies) is listed in docs/postgresql.md.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import unique
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from admission.codes import Code
from admission.errors import StoreError
from admission.identity import IdentityKey
from db import names
from db.keys import DbKey

__all__ = [
    "FORMAT_V1",
    "INDEX_SIZE",
    "MAX_PREFIX",
    "MIN_PREFIX",
    "OVERHEAD",
    "InstallationKey",
    "KeyRing",
    "NameQuery",
    "PgCryptoCode",
    "PgCryptoError",
    "RotationReport",
    "SealedRow",
    "WrappedKey",
    "envelope_version",
    "reencrypt_batches",
    "reseal_row",
    "run_reencrypt",
]

FORMAT_V1 = 1
_HEADER = struct.Struct(">BHH")  # format, key version, key tag
NONCE_SIZE = 12
TAG_SIZE = 16
OVERHEAD = _HEADER.size + NONCE_SIZE + TAG_SIZE  # 33 bytes over the plaintext
MAX_KEY_VERSION = 0xFFFF
INDEX_SIZE = 16  # bytes of a blind index (HMAC-SHA256 truncated to 128 bits)
# Name words are indexed by their prefixes of 2 to 6 letters (5 lengths; a word of L
# letters gives min(L, 6) - 1 tokens). One-letter prefixes are not indexed: they would be
# the densest, most recognisable tokens for frequency analysis; a one-letter query word is
# checked on the decrypted names instead. A query word longer than 6 letters narrows by
# its 6-letter prefix and is checked on the decrypted names.
MIN_PREFIX = 2
MAX_PREFIX = 6

_VALUE_LABEL = b"admission-desk/pg/value/v1"
_WRAP_LABEL = b"admission-desk/pg/data-key/v1"
_KEK_INFO = b"admission-desk/pg/key-wrap-key/v1"
_INSTALLATION_ID_LABEL = b"admission-desk/pg/installation-key-id/v1"
_ENC_INFO = b"admission-desk/pg/value-key/v1"
_IDENTITY_INFO = b"admission-desk/pg/blind-index/identity/v1"
_NAME_INFO = b"admission-desk/pg/blind-index/name/v1"
_NUMBER_INFO = b"admission-desk/pg/blind-index/document-number/v1"
_TAG_LABEL = b"admission-desk/pg/key-tag/v1"
_PASSPHRASE_LABEL = "pg-installation-key/"


@unique
class PgCryptoCode(Code):
    """Why an encrypted value or a data key of the server's visitor file cannot be used."""

    VALUE_TRUNCATED = "PG_VALUE_TRUNCATED"  # shorter than any sealed value
    VALUE_FORMAT_UNKNOWN = "PG_VALUE_FORMAT_UNKNOWN"  # sealed by a newer program
    DATA_KEY_UNKNOWN = "PG_DATA_KEY_UNKNOWN"  # its key version is not held (retired?)
    VALUE_WRONG_KEY = "PG_VALUE_WRONG_KEY"  # sealed under another key of that version
    VALUE_TAMPERED = "PG_VALUE_TAMPERED"  # changed, or moved to another row or column
    INSTALLATION_KEY_WRONG = "PG_INSTALLATION_KEY_WRONG"  # data key wrapped by another key
    WRAPPED_KEY_TAMPERED = "PG_WRAPPED_KEY_TAMPERED"  # changed, or from another database
    NO_DATA_KEY = "PG_NO_DATA_KEY"  # the database holds no data key
    ROTATION_STUCK = "PG_ROTATION_STUCK"  # the store keeps returning rows already rotated


class PgCryptoError(StoreError):
    """An encrypted value or key cannot be used; ``code`` is a :class:`PgCryptoCode`."""


def _hkdf(secret: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(secret)


def _field(text: str) -> bytes:
    data = text.encode("utf-8")
    if len(data) > 0xFFFF:
        raise ValueError("associated-data field too long")
    return struct.pack(">H", len(data)) + data


def _associated_data(header: bytes, table: str, column: str, row: str | int) -> bytes:
    """The label, the value's own header and where it lives: table, column, row key."""
    return b"".join((_VALUE_LABEL, header, _field(table), _field(column), _field(str(row))))


class InstallationKey:
    """The installation's 256-bit key (the OS keyring, as for the SQLCipher file): it
    wraps the data keys and never reaches the server. Opaque: no repr, no pickling."""

    __slots__ = ("_raw", "source")

    def __init__(self, raw: bytes, source: str = "") -> None:
        if len(raw) != 32:
            raise ValueError("an installation key is 32 bytes")
        self._raw = raw
        self.source = source

    @classmethod
    def generate(cls, source: str = "generated") -> InstallationKey:
        return cls(secrets.token_bytes(32), source)

    @classmethod
    def from_db_key(cls, key: DbKey, *, database_id: str) -> InstallationKey:
        """The installation key from the desk's key (:func:`db.keys.resolve_key`). A raw
        key is used through HKDF; a passphrase is stretched as SQLCipher stretches it
        (PBKDF2-HMAC-SHA512, 256,000 iterations) and labelled with the database's id, a
        label no marker file ever stores."""
        if key.is_raw:
            return cls(_hkdf(bytes.fromhex(key.hex()), _KEK_INFO + b"/raw"), key.source)
        return cls(bytes.fromhex(key.check_value(_PASSPHRASE_LABEL + database_id)), key.source)

    @property
    def key_id(self) -> str:
        """16 hex characters naming the key without revealing it (kept with each wrapped
        data key, so a wrong installation key is told from a changed record)."""
        return hmac.new(self._raw, _INSTALLATION_ID_LABEL, hashlib.sha256).hexdigest()[:16]

    def _aead(self) -> AESGCM:
        return AESGCM(_hkdf(self._raw, _KEK_INFO))

    def __repr__(self) -> str:
        return f"InstallationKey(<hidden>, source={self.source!r})"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("InstallationKey cannot be pickled")


@dataclass(frozen=True, slots=True)
class WrappedKey:
    """One data key as the server stores it (table ``data_keys``): never in clear."""

    version: int  # 1, 2, ...: the newest is the current one
    key_tag: int  # 16 bits carried by every value sealed under this key
    wrapping_key_id: str  # InstallationKey.key_id of the key that wraps it
    blob: bytes  # nonce (12) | AES-256-GCM(data key) | tag (16)


def _wrap_ad(database_id: str, version: int, key_tag: int) -> bytes:
    return _WRAP_LABEL + _field(database_id) + struct.pack(">HH", version, key_tag)


def _wrap(raw: bytes, version: int, installation: InstallationKey, database_id: str) -> WrappedKey:
    tag = _key_tag(raw)
    nonce = secrets.token_bytes(NONCE_SIZE)
    sealed = installation._aead().encrypt(nonce, raw, _wrap_ad(database_id, version, tag))
    return WrappedKey(version, tag, installation.key_id, nonce + sealed)


def _unwrap(record: WrappedKey, installation: InstallationKey, database_id: str) -> bytes:
    if record.wrapping_key_id != installation.key_id:
        raise PgCryptoError(
            f"data key version {record.version} is wrapped by another installation key",
            code=PgCryptoCode.INSTALLATION_KEY_WRONG,
        )
    nonce, sealed = record.blob[:NONCE_SIZE], record.blob[NONCE_SIZE:]
    try:
        raw = installation._aead().decrypt(
            nonce, sealed, _wrap_ad(database_id, record.version, record.key_tag)
        )
    except (InvalidTag, ValueError) as exc:
        raise PgCryptoError(
            f"data key version {record.version} fails its check",
            code=PgCryptoCode.WRAPPED_KEY_TAMPERED,
        ) from exc
    if len(raw) != 32 or _key_tag(raw) != record.key_tag:
        raise PgCryptoError(
            f"data key version {record.version} fails its check",
            code=PgCryptoCode.WRAPPED_KEY_TAMPERED,
        )
    return raw


def _key_tag(raw: bytes) -> int:
    return int.from_bytes(hmac.new(raw, _TAG_LABEL, hashlib.sha256).digest()[:2], "big")


class _DataKey:
    """One version's keys, derived once: the value key and the two blind-index keys."""

    __slots__ = ("_identity_mac", "_name_mac", "_number_mac", "_raw", "aead", "tag", "version")

    def __init__(self, version: int, raw: bytes) -> None:
        self.version = version
        self._raw = raw  # kept to wrap it again under a new installation key (re-wrap)
        self.tag = _key_tag(raw)
        self.aead = AESGCM(_hkdf(raw, _ENC_INFO))
        self._identity_mac = hmac.new(_hkdf(raw, _IDENTITY_INFO), digestmod=hashlib.sha256)
        self._name_mac = hmac.new(_hkdf(raw, _NAME_INFO), digestmod=hashlib.sha256)
        self._number_mac = hmac.new(_hkdf(raw, _NUMBER_INFO), digestmod=hashlib.sha256)

    def identity_index(self, identity: IdentityKey) -> bytes:
        mac = self._identity_mac.copy()
        mac.update(identity.text.encode("ascii"))
        return mac.digest()[:INDEX_SIZE]

    def number_index(self, number: str) -> bytes:
        mac = self._number_mac.copy()
        mac.update(number.encode("utf-8"))
        return mac.digest()[:INDEX_SIZE]

    def prefix_token(self, prefix: str) -> bytes:
        mac = self._name_mac.copy()
        mac.update(prefix.encode("utf-8"))
        return mac.digest()[:INDEX_SIZE]


@dataclass(frozen=True, slots=True)
class NameQuery:
    """A name search in blind-index form: the server narrows by ``tokens`` (rows holding
    every token of one key version), the desk checks the decrypted names with
    :meth:`matches` unless ``exact`` says the tokens decide alone."""

    words: tuple[str, ...]  # the folded query words (db.names.words)
    tokens: Mapping[int, tuple[bytes, ...]]  # key version -> tokens every match holds
    exact: bool  # every word is 2-6 letters: the tokens alone decide

    @property
    def narrows(self) -> bool:
        """False when no word is long enough to index: only a bounded scan (a date range)
        can answer it."""
        return any(self.tokens.values())

    def matches(self, surname: str, given_names: str) -> bool:
        """Every query word is a prefix of a word of the name (as the SQLCipher store)."""
        return names.matches(list(self.words), names.words(surname, given_names))


def envelope_version(envelope: bytes) -> int:
    """The key version a sealed value was made with (its header; not authenticated until
    the value is opened)."""
    if len(envelope) < OVERHEAD:
        raise PgCryptoError("sealed value truncated", code=PgCryptoCode.VALUE_TRUNCATED)
    return int(_HEADER.unpack_from(envelope)[1])


class KeyRing:
    """The data keys of one database, unwrapped: seals and opens values, computes blind
    indexes. New values are sealed under :attr:`current_version` (the newest)."""

    __slots__ = ("_current", "_keys", "database_id")

    def __init__(self, database_id: str, keys: Mapping[int, bytes]) -> None:
        if not keys:
            raise PgCryptoError("the database holds no data key", code=PgCryptoCode.NO_DATA_KEY)
        self.database_id = database_id
        self._keys = {version: _DataKey(version, raw) for version, raw in keys.items()}
        self._current = max(self._keys)

    # -- keys --------------------------------------------------------------------------
    @classmethod
    def create(cls, installation: InstallationKey, database_id: str) -> tuple[KeyRing, WrappedKey]:
        """A new database's first data key (version 1) and the record to store."""
        raw = secrets.token_bytes(32)
        return cls(database_id, {1: raw}), _wrap(raw, 1, installation, database_id)

    @classmethod
    def load(
        cls, installation: InstallationKey, database_id: str, records: Iterable[WrappedKey]
    ) -> KeyRing:
        """Unwrap the stored records; refuses a wrong installation key or a record that
        was changed or comes from another database, before anything is read or written."""
        keys = {record.version: _unwrap(record, installation, database_id) for record in records}
        return cls(database_id, keys)

    def with_new_version(self, installation: InstallationKey) -> tuple[KeyRing, WrappedKey]:
        """The first step of a re-encryption: a new current data key (its record is
        stored first); the old versions stay until every row is resealed."""
        version = self._current + 1
        if version > MAX_KEY_VERSION:
            raise ValueError("no key version left")
        raw = secrets.token_bytes(32)
        ring = KeyRing.__new__(KeyRing)
        ring.database_id = self.database_id
        ring._keys = {**self._keys, version: _DataKey(version, raw)}
        ring._current = version
        return ring, _wrap(raw, version, installation, self.database_id)

    def wrapped(self, version: int, installation: InstallationKey) -> WrappedKey:
        """The record of data key ``version`` wrapped under ``installation``: a re-wrap
        made from the keys this ring already holds (the old installation key is not
        needed again; the stored record is checked against the ring's key tag)."""
        return _wrap(self._key(version)._raw, version, installation, self.database_id)

    def key_tag(self, version: int) -> int:
        """The 16-bit tag of data key ``version`` (its stored record carries it too)."""
        return self._key(version).tag

    def retaining(self, versions: Iterable[int]) -> KeyRing:
        """This ring without the versions not in ``versions`` (retired once no row uses
        them); the current version is always kept."""
        keep = {v for v in versions if v in self._keys} | {self._current}
        ring = KeyRing.__new__(KeyRing)
        ring.database_id = self.database_id
        ring._keys = {v: k for v, k in self._keys.items() if v in keep}
        ring._current = self._current
        return ring

    @property
    def current_version(self) -> int:
        return self._current

    @property
    def versions(self) -> tuple[int, ...]:
        """Held versions, the current one first."""
        return tuple(sorted(self._keys, reverse=True))

    def _key(self, version: int | None) -> _DataKey:
        key = self._keys.get(self._current if version is None else version)
        if key is None:
            raise PgCryptoError(
                f"data key version {version} is not held", code=PgCryptoCode.DATA_KEY_UNKNOWN
            )
        return key

    # -- values ------------------------------------------------------------------------
    def seal(self, plaintext: bytes, *, table: str, column: str, row: str | int) -> bytes:
        """The envelope of ``plaintext`` for ``table.column`` of the row ``row``."""
        key = self._keys[self._current]
        header = _HEADER.pack(FORMAT_V1, key.version, key.tag)
        nonce = secrets.token_bytes(NONCE_SIZE)
        sealed = key.aead.encrypt(nonce, plaintext, _associated_data(header, table, column, row))
        return header + nonce + sealed

    def open(self, envelope: bytes, *, table: str, column: str, row: str | int) -> bytes:
        """The plaintext of an envelope sealed for exactly this table, column and row."""
        if len(envelope) < OVERHEAD:
            raise PgCryptoError(
                f"sealed value of {table}.{column} truncated", code=PgCryptoCode.VALUE_TRUNCATED
            )
        fmt, version, tag = _HEADER.unpack_from(envelope)
        if fmt != FORMAT_V1:
            raise PgCryptoError(
                f"sealed value of {table}.{column} has format {fmt}",
                code=PgCryptoCode.VALUE_FORMAT_UNKNOWN,
            )
        key = self._key(version)
        if tag != key.tag:
            raise PgCryptoError(
                f"sealed value of {table}.{column} was sealed under another key",
                code=PgCryptoCode.VALUE_WRONG_KEY,
            )
        header = envelope[: _HEADER.size]
        nonce = envelope[_HEADER.size : _HEADER.size + NONCE_SIZE]
        try:
            return key.aead.decrypt(
                nonce,
                envelope[_HEADER.size + NONCE_SIZE :],
                _associated_data(header, table, column, row),
            )
        except InvalidTag as exc:
            raise PgCryptoError(
                f"sealed value of {table}.{column} fails its check",
                code=PgCryptoCode.VALUE_TAMPERED,
            ) from exc

    def seal_text(self, text: str, *, table: str, column: str, row: str | int) -> bytes:
        return self.seal(text.encode("utf-8"), table=table, column=column, row=row)

    def open_text(self, envelope: bytes, *, table: str, column: str, row: str | int) -> str:
        return self.open(envelope, table=table, column=column, row=row).decode("utf-8")

    # -- blind indexes -----------------------------------------------------------------
    def identity_index(self, identity: IdentityKey, version: int | None = None) -> bytes:
        """The blind index of a document identity, to store (current version) or look up."""
        return self._key(version).identity_index(identity)

    def identity_indexes(self, identity: IdentityKey) -> tuple[bytes, ...]:
        """One blind index per held version, current first: a lookup during a
        re-encryption finds rows not yet resealed (``WHERE id_index = ANY(...)``)."""
        return tuple(self._keys[v].identity_index(identity) for v in self.versions)

    def number_index(self, number: str, version: int | None = None) -> bytes:
        """The blind index of a document number shown at a visit (as recorded), to store
        (current version) or look up: an inspector's number finds the visits it was
        shown at without opening them (art. 20.4)."""
        return self._key(version).number_index(number)

    def number_indexes(self, number: str) -> tuple[bytes, ...]:
        """One per held version, current first (as :meth:`identity_indexes`)."""
        return tuple(self._keys[v].number_index(number) for v in self.versions)

    def name_tokens(self, *parts: str, version: int | None = None) -> tuple[bytes, ...]:
        """The blind indexes to store for a name: every 2-6 letter prefix of every
        normalised word, deduplicated and sorted (their order reveals nothing)."""
        key = self._key(version)
        prefixes = {
            word[:length]
            for word in names.words(*parts)
            for length in range(MIN_PREFIX, min(len(word), MAX_PREFIX) + 1)
        }
        return tuple(sorted(key.prefix_token(p) for p in prefixes))

    def name_query(self, text: str) -> NameQuery:
        """The blind-index form of a visitor search (see :class:`NameQuery`)."""
        words = tuple(names.words(text))
        prefixes = sorted({w[:MAX_PREFIX] for w in words if len(w) >= MIN_PREFIX})
        tokens = {
            version: tuple(self._keys[version].prefix_token(p) for p in prefixes)
            for version in self.versions
        }
        exact = bool(words) and all(MIN_PREFIX <= len(w) <= MAX_PREFIX for w in words)
        return NameQuery(words, tokens, exact)

    def __repr__(self) -> str:
        return f"KeyRing(<{len(self._keys)} keys hidden>, current={self._current})"

    def __reduce__(self) -> Any:
        raise TypeError("KeyRing cannot be pickled")


# -- rotation ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SealedRow:
    """One row as the server holds it: its sealed values and blind indexes."""

    table: str
    row: str | int  # the row key bound into every value's associated data
    key_version: int  # the version every value of the row is sealed under
    values: Mapping[str, bytes | None]  # column -> envelope (None: SQL NULL)
    indexes: Mapping[str, tuple[bytes, ...]] = field(default_factory=dict)


# The blind indexes of a row from its plaintexts (column -> bytes or None), computed with
# the ring's current version; e.g. {"identity": (ring.identity_index(...),),
# "name_tokens": ring.name_tokens(surname, given_names)}.
Reindex = Callable[["KeyRing", Mapping[str, bytes | None]], Mapping[str, tuple[bytes, ...]]]


def reseal_row(row: SealedRow, ring: KeyRing, reindex: Reindex | None = None) -> SealedRow:
    """``row`` opened with whatever versions sealed it and sealed again under the current
    version (fresh nonces), its blind indexes recomputed by ``reindex``."""
    plain = {
        column: None
        if value is None
        else ring.open(value, table=row.table, column=column, row=row.row)
        for column, value in row.values.items()
    }
    values = {
        column: None
        if value is None
        else ring.seal(value, table=row.table, column=column, row=row.row)
        for column, value in plain.items()
    }
    indexes = dict(row.indexes) if reindex is None else dict(reindex(ring, plain))
    return SealedRow(row.table, row.row, ring.current_version, values, indexes)


def reencrypt_batches(
    rows: Iterable[SealedRow],
    ring: KeyRing,
    *,
    batch_size: int = 500,
    reindex: Reindex | None = None,
) -> Iterator[list[SealedRow]]:
    """The rows not yet at the current version, resealed, in batches of ``batch_size``
    (each batch is meant to be written in one transaction)."""
    if batch_size < 1:
        raise ValueError("batch_size must be positive")
    batch: list[SealedRow] = []
    for row in rows:
        if row.key_version == ring.current_version:
            continue
        batch.append(reseal_row(row, ring, reindex))
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch:
        yield batch


@dataclass(frozen=True, slots=True)
class RotationReport:
    rows: int  # rows resealed by this run
    batches: int  # transactions written by this run


def run_reencrypt(
    fetch: Callable[[int, int], Sequence[SealedRow]],
    apply: Callable[[Sequence[SealedRow]], None],
    ring: KeyRing,
    *,
    batch_size: int = 500,
    reindex: Reindex | None = None,
) -> RotationReport:
    """Reseal every row whose key version is not the current one.

    ``fetch(current_version, limit)`` returns up to ``limit`` rows whose version differs
    (``WHERE key_version <> %s ORDER BY key LIMIT %s``); ``apply(batch)`` writes one batch
    in one transaction (values, indexes and the row's ``key_version`` together). An
    interruption - an exception, the desk switched off - leaves every written batch
    resealed and the rest untouched: the next run selects what is left and finishes.
    The old data keys are retired by the caller once this returns.
    """
    rows = batches = 0
    while True:
        selected = fetch(ring.current_version, batch_size)
        if not selected:
            return RotationReport(rows, batches)
        batch = next(
            reencrypt_batches(selected, ring, batch_size=len(selected), reindex=reindex), []
        )
        if not batch:
            raise PgCryptoError(
                "the store returned only rows already at the current key version",
                code=PgCryptoCode.ROTATION_STUCK,
            )
        apply(batch)
        rows += len(batch)
        batches += 1

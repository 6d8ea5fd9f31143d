"""Personal data sealed by the desk before it reaches the PostgreSQL server (Decreto
58/2006, art. 20.4: the file is confidential; GDPR art. 32): a database administrator, a
backup or a stolen disk reveals no visitor; the server stores and compares opaque bytes.
Values are AES-256-GCM bound to table, column and row; data keys are stored wrapped under
the installation key; blind indexes are HMAC-SHA256. Formats, codes, rotation and what
the server still sees: docs/postgresql.md."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
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

# A sealed value: format (1) | key version (2) | key tag (2) | nonce (12) | ciphertext |
# tag (16). Nonces are random: one data key seals far fewer than the 2**32 values NIST SP
# 800-38D allows with random nonces.
FORMAT_V1 = 1
_HEADER = struct.Struct(">BHH")  # format, key version, key tag
NONCE_SIZE = 12
TAG_SIZE = 16
OVERHEAD = _HEADER.size + NONCE_SIZE + TAG_SIZE  # 33 bytes over the plaintext
MAX_KEY_VERSION = 0xFFFF
INDEX_SIZE = 16  # bytes of a blind index (HMAC-SHA256 truncated to 128 bits)
# Name words are indexed by their prefixes of 2 to 6 letters. One-letter prefixes would be
# the densest, most recognisable tokens for frequency analysis: a one-letter query word,
# and a longer word past its sixth letter, are checked on the decrypted names instead.
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
    return struct.pack(">H", len(data)) + data  # struct.error past 65535 bytes


def _associated_data(header: bytes, table: str, column: str, row: str | int) -> bytes:
    """The label, the value's own header and where it lives: a value copied to another
    row or column, or a header edited, fails to open."""
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
        """A raw desk key through HKDF; a passphrase stretched as SQLCipher stretches it
        (PBKDF2-HMAC-SHA512, 256,000 iterations), labelled with the database's id."""
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
        return f"InstallationKey(<hidden>, source={self.source!r})"  # str() too

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
    """A record copied from another database, or renumbered, fails to open."""
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
    tampered = PgCryptoError(
        f"data key version {record.version} fails its check",
        code=PgCryptoCode.WRAPPED_KEY_TAMPERED,
    )
    nonce, sealed = record.blob[:NONCE_SIZE], record.blob[NONCE_SIZE:]
    ad = _wrap_ad(database_id, record.version, record.key_tag)
    try:
        raw = installation._aead().decrypt(nonce, sealed, ad)
    except (InvalidTag, ValueError) as exc:
        raise tampered from exc
    if len(raw) != 32 or _key_tag(raw) != record.key_tag:
        raise tampered
    return raw


def _key_tag(raw: bytes) -> int:
    """16 bits of a keyed digest of a data key: a value sealed under another key of the
    same version (another casino's database) is told from a changed one."""
    return int.from_bytes(hmac.new(raw, _TAG_LABEL, hashlib.sha256).digest()[:2], "big")


class _DataKey:
    """One version's keys, derived once: the value key and the three blind-index keys."""

    __slots__ = ("_macs", "_raw", "aead", "tag", "version")

    def __init__(self, version: int, raw: bytes) -> None:
        self.version = version
        self._raw = raw  # kept to wrap it again under a new installation key (re-wrap)
        self.tag = _key_tag(raw)
        self.aead = AESGCM(_hkdf(raw, _ENC_INFO))
        infos = (_IDENTITY_INFO, _NAME_INFO, _NUMBER_INFO)
        self._macs = {i: hmac.new(_hkdf(raw, i), digestmod=hashlib.sha256) for i in infos}

    def index(self, info: bytes, text: str) -> bytes:
        mac = self._macs[info].copy()
        mac.update(text.encode("utf-8"))
        return mac.digest()[:INDEX_SIZE]


@dataclass(frozen=True, slots=True)
class NameQuery:
    """A name search in blind-index form: the server narrows by ``tokens`` (of one key
    version), the desk checks the names with :meth:`matches` unless ``exact``."""

    words: tuple[str, ...]  # the folded query words (db.names.words)
    tokens: Mapping[int, tuple[bytes, ...]]  # key version -> tokens every match holds
    exact: bool  # every word is 2-6 letters: the tokens alone decide

    @property
    def narrows(self) -> bool:
        """False when no word is long enough to index: only a bounded scan can answer it."""
        return any(self.tokens.values())

    def matches(self, surname: str, given_names: str) -> bool:
        """Every query word is a prefix of a word of the name (as the SQLCipher store)."""
        return names.matches(list(self.words), names.words(surname, given_names))


class KeyRing:
    """The data keys of one database, unwrapped: seals and opens values, computes blind
    indexes. New values are sealed under ``current_version`` (the newest)."""

    __slots__ = ("_keys", "current_version", "database_id")

    def __init__(self, database_id: str, keys: Mapping[int, bytes]) -> None:
        if not keys:
            raise PgCryptoError("the database holds no data key", code=PgCryptoCode.NO_DATA_KEY)
        self.database_id = database_id
        self._keys = {version: _DataKey(version, raw) for version, raw in keys.items()}
        self.current_version = max(self._keys)

    @classmethod
    def create(cls, installation: InstallationKey, database_id: str) -> tuple[KeyRing, WrappedKey]:
        """A new database's first data key (version 1) and the record to store."""
        raw = secrets.token_bytes(32)
        return cls(database_id, {1: raw}), _wrap(raw, 1, installation, database_id)

    @classmethod
    def load(
        cls, installation: InstallationKey, database_id: str, records: Iterable[WrappedKey]
    ) -> KeyRing:
        """Unwrap the stored records (a wrong installation key, a changed record or another
        database's is refused before anything is read or written)."""
        keys = {record.version: _unwrap(record, installation, database_id) for record in records}
        return cls(database_id, keys)

    def with_new_version(self, installation: InstallationKey) -> tuple[KeyRing, WrappedKey]:
        """A new current data key and its record (stored first); old versions stay till resealed."""
        version = self.current_version + 1
        if version > MAX_KEY_VERSION:
            raise ValueError("no key version left")
        raw = secrets.token_bytes(32)
        ring = KeyRing(self.database_id, {**self._raws(), version: raw})
        return ring, _wrap(raw, version, installation, self.database_id)

    def wrapped(self, version: int, installation: InstallationKey) -> WrappedKey:
        """Data key ``version`` wrapped under ``installation`` (no need of the old one)."""
        return _wrap(self._key(version)._raw, version, installation, self.database_id)

    def key_tag(self, version: int) -> int:
        return self._key(version).tag

    def retaining(self, versions: Iterable[int]) -> KeyRing:
        """This ring with only ``versions`` (once no row uses the others) and the current one."""
        keep = {v for v in versions if v in self._keys} | {self.current_version}
        return KeyRing(self.database_id, {v: k for v, k in self._raws().items() if v in keep})

    def _raws(self) -> dict[int, bytes]:
        return {v: k._raw for v, k in self._keys.items()}

    @property
    def versions(self) -> tuple[int, ...]:
        """Held versions, the current one first."""
        return tuple(sorted(self._keys, reverse=True))

    def _key(self, version: int | None) -> _DataKey:
        key = self._keys.get(self.current_version if version is None else version)
        if key is None:
            raise PgCryptoError(
                f"data key version {version} is not held", code=PgCryptoCode.DATA_KEY_UNKNOWN
            )
        return key

    def seal(self, plaintext: bytes, *, table: str, column: str, row: str | int) -> bytes:
        key = self._keys[self.current_version]
        header = _HEADER.pack(FORMAT_V1, key.version, key.tag)
        nonce = secrets.token_bytes(NONCE_SIZE)
        sealed = key.aead.encrypt(nonce, plaintext, _associated_data(header, table, column, row))
        return header + nonce + sealed

    def open(self, envelope: bytes, *, table: str, column: str, row: str | int) -> bytes:
        """The plaintext of an envelope sealed for exactly this table, column and row."""

        def refused(why: str, code: PgCryptoCode) -> PgCryptoError:
            return PgCryptoError(f"sealed value of {table}.{column} {why}", code=code)

        if len(envelope) < OVERHEAD:
            raise refused("truncated", PgCryptoCode.VALUE_TRUNCATED)
        fmt, version, tag = _HEADER.unpack_from(envelope)
        if fmt != FORMAT_V1:
            raise refused(f"has format {fmt}", PgCryptoCode.VALUE_FORMAT_UNKNOWN)
        key = self._key(version)
        if tag != key.tag:
            raise refused("was sealed under another key", PgCryptoCode.VALUE_WRONG_KEY)
        header, body = envelope[: _HEADER.size], envelope[_HEADER.size :]
        ad = _associated_data(header, table, column, row)
        try:
            return key.aead.decrypt(body[:NONCE_SIZE], body[NONCE_SIZE:], ad)
        except InvalidTag as exc:
            raise refused("fails its check", PgCryptoCode.VALUE_TAMPERED) from exc

    def seal_text(self, text: str, *, table: str, column: str, row: str | int) -> bytes:
        return self.seal(text.encode("utf-8"), table=table, column=column, row=row)

    def open_text(self, envelope: bytes, *, table: str, column: str, row: str | int) -> str:
        return self.open(envelope, table=table, column=column, row=row).decode("utf-8")

    def identity_index(self, identity: IdentityKey, version: int | None = None) -> bytes:
        """The blind index of a document identity, to store (current version) or look up."""
        return self._key(version).index(_IDENTITY_INFO, identity.text)

    def identity_indexes(self, identity: IdentityKey) -> tuple[bytes, ...]:
        """One blind index per held version, current first: a lookup during a
        re-encryption finds rows not yet resealed (``WHERE id_index = ANY(...)``)."""
        return tuple(self._keys[v].index(_IDENTITY_INFO, identity.text) for v in self.versions)

    def number_index(self, number: str, version: int | None = None) -> bytes:
        """The blind index of a document number shown at a visit: an inspector's number
        finds the visits it was shown at without opening them (art. 20.4)."""
        return self._key(version).index(_NUMBER_INFO, number)

    def number_indexes(self, number: str) -> tuple[bytes, ...]:
        return tuple(self._keys[v].index(_NUMBER_INFO, number) for v in self.versions)

    def name_tokens(self, *parts: str, version: int | None = None) -> tuple[bytes, ...]:
        """Every 2-6 letter prefix of every normalised word, deduplicated and sorted
        (their order reveals nothing)."""
        key = self._key(version)
        prefixes = {
            word[:length]
            for word in names.words(*parts)
            for length in range(MIN_PREFIX, min(len(word), MAX_PREFIX) + 1)
        }
        return tuple(sorted(key.index(_NAME_INFO, p) for p in prefixes))

    def name_query(self, text: str) -> NameQuery:
        words = tuple(names.words(text))
        prefixes = sorted({w[:MAX_PREFIX] for w in words if len(w) >= MIN_PREFIX})
        tokens = {
            version: tuple(self._keys[version].index(_NAME_INFO, p) for p in prefixes)
            for version in self.versions
        }
        exact = bool(words) and all(MIN_PREFIX <= len(w) <= MAX_PREFIX for w in words)
        return NameQuery(words, tokens, exact)

    def __repr__(self) -> str:
        return f"KeyRing(<{len(self._keys)} keys hidden>, current={self.current_version})"

    def __reduce__(self) -> Any:
        raise TypeError("KeyRing cannot be pickled")


@dataclass(frozen=True, slots=True)
class SealedRow:
    """One row as the server holds it: its sealed values and blind indexes."""

    table: str
    row: str | int  # the row key bound into every value's associated data
    key_version: int  # the version every value of the row is sealed under
    values: Mapping[str, bytes | None]  # column -> envelope (None: SQL NULL)
    indexes: Mapping[str, tuple[bytes, ...]] = field(default_factory=dict)

    @classmethod
    def selected(cls, table: str, sealed: Sequence[str], row: Sequence[Any]) -> SealedRow:
        """A row selected as (row key, key_version, *the ``sealed`` columns)."""
        values = {c: None if v is None else bytes(v) for c, v in zip(sealed, row[2:], strict=True)}
        return cls(table, row[0], int(row[1]), values)


# A row's blind indexes from its plaintexts, under the ring's current version
Reindex = Callable[["KeyRing", Mapping[str, bytes | None]], Mapping[str, tuple[bytes, ...]]]


def reseal_selected(
    rows: Sequence[SealedRow], ring: KeyRing, reindex: Reindex | None = None
) -> list[SealedRow]:
    """The rows selected as behind, resealed under the current version (fresh nonces) and
    reindexed; ``PG_ROTATION_STUCK`` when all are current (the store would return them forever)."""
    batch = []
    for row in rows:
        if row.key_version == ring.current_version:
            continue
        opened = functools.partial(ring.open, table=row.table, row=row.row)
        sealed = functools.partial(ring.seal, table=row.table, row=row.row)
        plain = {c: None if v is None else opened(v, column=c) for c, v in row.values.items()}
        values = {c: None if v is None else sealed(v, column=c) for c, v in plain.items()}
        indexes = dict(row.indexes) if reindex is None else dict(reindex(ring, plain))
        batch.append(SealedRow(row.table, row.row, ring.current_version, values, indexes))
    if not batch:
        raise PgCryptoError(
            "the store returned only rows already at the current key version",
            code=PgCryptoCode.ROTATION_STUCK,
        )
    return batch


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
    """Reseal every row ``fetch(current, limit)`` selects as behind, each batch written by
    ``apply(batch)`` in one transaction: after an interruption the next run finishes."""
    rows = batches = 0
    while selected := fetch(ring.current_version, batch_size):
        batch = reseal_selected(selected, ring, reindex)
        apply(batch)
        rows += len(batch)
        batches += 1
    return RotationReport(rows, batches)

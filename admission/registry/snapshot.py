"""Parsing and validation of RIAJ snapshot files and change-feed entries (pure, stdlib only).

Nothing here touches the store: a file is read completely and validated before
anything is swapped in, so a bad file never replaces the register the desk checks
against (art. 20.2, R1). Every problem raises :class:`SnapshotError` with a
:class:`SnapshotErrorCode` (and the line, when one line is at fault); no partial
result escapes.

The file is untrusted input (STYLE.md rule 14) and read as a stream: lines of at most
``MAX_LINE_BYTES`` (:func:`read_lines` never reads more than that at once, so a file
without newlines costs nothing), at most ``MAX_ENTRIES`` identifiers and
``MAX_FILE_BYTES``; identifiers are kept as 20-byte records, not objects
(:mod:`admission.registry.digests`). An identifier repeated on several lines is kept
once: the snapshot counts the repeats and gives the first few line numbers.

Two snapshot formats are accepted.

*Plain list* (the simplest form): UTF-8 text, one identity number per line,
``#`` starts a comment. Numbers are normalised with
:func:`admission.identity.normalise_number`. A plain list carries no date, no
checksum and no signature: its version is derived from its content and its
``as_of`` is the moment of import. It cannot detect its own truncation, which
is why the regulator's files use the structured form::

    #RIAJ-SNAPSHOT 1
    #scheme: sha256-salted-v1      (or: clear)
    #salt: <hex, 16-64 bytes>      (required for hashed schemes)
    #version: 2026-11-29.1
    #as-of: 2026-11-29T06:00:00Z
    #scope: CASINOS
    #count: 1000000
    <one identifier per line>
    #end sha256:<hex>              sha256 of every byte before this line
    #signature ed25519:<base64>    optional; see :func:`signed_message`

In ``sha256-salted-v1`` each identifier line is
``hex(sha256(salt || utf8(normalised number)))``. Comment lines (``# text``,
with a space) may appear anywhere before ``#end``.

Identifiers are kept as 16-byte digests (``sha256(salt || number)[:16]``), also
for clear lists (with a random local salt), so the store never holds the
register in clear. Matching is on the normalised number alone, whatever the
document kind or country: the register is keyed by document number, and
a conservative match only ever errs towards DENY (art. 21.1).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum, unique
from typing import Protocol

from admission.codes import Code
from admission.errors import AdmissionError
from admission.identity import normalise_number
from admission.registry.digests import DIGEST_BYTES, DigestCollector
from admission.registry.port import CASINO_SCOPE

MAGIC = b"#RIAJ-SNAPSHOT 1"
SCHEME_CLEAR = "clear"
SCHEME_SHA256_SALTED = "sha256-salted-v1"
KNOWN_SCHEMES = frozenset({SCHEME_CLEAR, SCHEME_SHA256_SALTED})
SIGNATURE_DOMAIN = b"RIAJ-SNAPSHOT-SIG-1\x00"
MAX_LINE_BYTES = 256  # a line without its line end; the signature line is about 110
# Identifiers per snapshot. The register lists people by the tens of thousands; the
# bench imports 1,000,000. At about 20 bytes each while reading, 5,000,000 is 100 MB.
MAX_ENTRIES = 5_000_000
MAX_FILE_BYTES = 512 * 1024 * 1024  # 5,000,000 sha256 lines are 325 MB
YEARS = range(1900, 2101)  # a snapshot's or a feed's date outside these is not a date
_RAW_LINE_BYTES = MAX_LINE_BYTES + 2  # with "\r\n"
_HEADER_KEYS = frozenset({"scheme", "salt", "version", "as-of", "scope", "count"})

_NUMBER = re.compile(r"^[A-Z0-9]{1,20}$")
_HEX64 = re.compile(rb"^[0-9a-fA-F]{64}$")
_HEADER = re.compile(rb"^#([a-z][a-z0-9-]*):[ \t]*(.*?)[ \t]*$")
_END = re.compile(rb"^#end sha256:([0-9a-f]{64})$")
_SIGNATURE = re.compile(rb"^#signature ed25519:([A-Za-z0-9+/=]{1,200})$")
_VERSION = re.compile(r"^[A-Za-z0-9._:+-]{1,64}$")


@unique
class SnapshotErrorCode(Code):
    """Why a snapshot or a change-feed page was rejected; the replica keeps what it had."""

    SNAPSHOT_INVALID = "SNAPSHOT_INVALID"
    # the file (parse_snapshot)
    SNAPSHOT_UNREADABLE = "SNAPSHOT_UNREADABLE"  # the file cannot be opened or read
    SNAPSHOT_EMPTY = "SNAPSHOT_EMPTY"  # no line, or no identifier
    SNAPSHOT_ENCODING = "SNAPSHOT_ENCODING"  # not UTF-8
    SNAPSHOT_UNKNOWN_FORMAT = "SNAPSHOT_UNKNOWN_FORMAT"  # a #RIAJ-SNAPSHOT version we do not read
    SNAPSHOT_MALFORMED_LINE = "SNAPSHOT_MALFORMED_LINE"  # control character, bad entry
    SNAPSHOT_LINE_TOO_LONG = "SNAPSHOT_LINE_TOO_LONG"  # over MAX_LINE_BYTES (line given)
    SNAPSHOT_TOO_LARGE = "SNAPSHOT_TOO_LARGE"  # over MAX_ENTRIES identifiers or MAX_FILE_BYTES
    SNAPSHOT_HEADER_MISSING = "SNAPSHOT_HEADER_MISSING"  # scheme, version, as-of or count
    SNAPSHOT_BAD_HEADER = "SNAPSHOT_BAD_HEADER"  # unknown, repeated or ill-formed header
    SNAPSHOT_UNKNOWN_SCHEME = "SNAPSHOT_UNKNOWN_SCHEME"
    SNAPSHOT_BAD_SALT = "SNAPSHOT_BAD_SALT"
    SNAPSHOT_WRONG_SCOPE = "SNAPSHOT_WRONG_SCOPE"  # a register for another game type
    SNAPSHOT_TRUNCATED = "SNAPSHOT_TRUNCATED"  # no #end line, or an incomplete last line
    SNAPSHOT_TRAILING_DATA = "SNAPSHOT_TRAILING_DATA"  # lines after #end or the signature
    SNAPSHOT_CHECKSUM_MISMATCH = "SNAPSHOT_CHECKSUM_MISMATCH"  # sha256 differs from #end
    SNAPSHOT_COUNT_MISMATCH = "SNAPSHOT_COUNT_MISMATCH"  # entries differ from #count
    # No longer a refusal: a repeated identifier is kept once and counted
    # (Snapshot.duplicates); the member stays for the records that hold it.
    SNAPSHOT_DUPLICATE = "SNAPSHOT_DUPLICATE"
    # the import (db/registry_replica.py)
    SNAPSHOT_NOT_A_FILE = "SNAPSHOT_NOT_A_FILE"  # a folder, device or pipe: never read
    SNAPSHOT_UNSIGNED = "SNAPSHOT_UNSIGNED"  # a public key is configured, the file is unsigned
    SNAPSHOT_BAD_SIGNATURE = "SNAPSHOT_BAD_SIGNATURE"  # malformed, or does not verify
    SNAPSHOT_FROM_THE_FUTURE = "SNAPSHOT_FROM_THE_FUTURE"  # as-of later than now
    SNAPSHOT_OLDER_THAN_ACTIVE = "SNAPSHOT_OLDER_THAN_ACTIVE"
    SNAPSHOT_VERSION_CONFLICT = "SNAPSHOT_VERSION_CONFLICT"  # same version, other content
    REPLICA_BUSY = "REPLICA_BUSY"  # another import or feed holds the replica
    REPLICA_WRITE_FAILED = "REPLICA_WRITE_FAILED"  # rolled back: the replica is unchanged
    # the change feed (verificarCambiosRGIAJ)
    FEED_MALFORMED_LINE = "FEED_MALFORMED_LINE"
    FEED_BAD_ACTION = "FEED_BAD_ACTION"  # neither A (alta) nor B (baja)
    FEED_BAD_IDENTITY = "FEED_BAD_IDENTITY"  # not an identity number
    FEED_BAD_DATE = "FEED_BAD_DATE"  # not a date, or without a UTC offset
    FEED_OUT_OF_ORDER = "FEED_OUT_OF_ORDER"  # dates go backwards, or older than the replica
    FEED_WITHOUT_SNAPSHOT = "FEED_WITHOUT_SNAPSHOT"  # a feed applies to an imported snapshot
    FEED_GAP = "FEED_GAP"  # the page starts after the replica's position: changes missed


class SnapshotError(AdmissionError):
    """A snapshot or feed was rejected; ``line`` is 1-based (0 when not line-specific)."""

    code: Code = SnapshotErrorCode.SNAPSHOT_INVALID

    def __init__(self, code: SnapshotErrorCode, detail: str = "", line: int = 0) -> None:
        super().__init__(f"{detail} (line {line})" if line else detail, code=code)
        self.line = line


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A fully validated snapshot, ready to be swapped in."""

    version: str
    scheme: str
    salt: bytes
    scope: str
    as_of: datetime | None  # None for a plain list: the importer uses its clock
    digests: Sequence[bytes]  # sorted, unique, DIGEST_BYTES each
    content_sha256: bytes  # of every byte before ``#end`` (whole file for plain lists)
    signature: bytes | None
    structured: bool
    duplicates: int = 0  # identifier lines that repeat an earlier one (kept once)
    duplicate_lines: tuple[int, ...] = ()  # the first few of those lines, ascending

    @property
    def count(self) -> int:
        return len(self.digests)


def identity_digest(salt: bytes, number: str) -> bytes:
    """The stored form of a normalised identity number."""
    return hashlib.sha256(salt + number.encode("ascii")).digest()[:DIGEST_BYTES]


def signed_message(content_sha256: bytes) -> bytes:
    """What the Ed25519 signature covers: a domain tag and the ``#end`` checksum."""
    return SIGNATURE_DOMAIN + content_sha256


def clean_number(raw: str) -> str | None:
    """Normalise an untrusted identity number; ``None`` when it is not one."""
    if not raw.isascii() or not raw.isalnum() or not raw.isupper():
        raw = normalise_number(raw)
    return raw if _NUMBER.match(raw) else None


def _decode(raw: bytes, lineno: int) -> str:
    if len(raw) > MAX_LINE_BYTES:
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_LINE_TOO_LONG, f"over {MAX_LINE_BYTES} bytes", lineno
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_ENCODING, "not UTF-8", lineno) from None
    if any(ord(c) < 32 and c != "\t" for c in text):
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_MALFORMED_LINE, "control character", lineno)
    return text


def _strip_eol(line: bytes) -> bytes:
    return line.rstrip(b"\r\n")


def _check_length(raw: bytes, lineno: int) -> None:
    if len(raw) > _RAW_LINE_BYTES:
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_LINE_TOO_LONG, f"over {MAX_LINE_BYTES} bytes", lineno
        )


class LineSource(Protocol):
    """A binary stream read line by line (a file opened ``"rb"``)."""

    def readline(self, size: int = -1, /) -> bytes: ...


def read_lines(stream: LineSource, max_bytes: int = MAX_FILE_BYTES) -> Iterator[bytes]:
    """The lines of ``stream`` (each with its ``b"\\n"``), read in bounded pieces.

    A file's own iterator reads a whole line whatever its length, so a file without a
    newline (or a device such as ``/dev/zero``) would be held in memory entirely. Each
    read here stops after ``MAX_LINE_BYTES`` + 3 bytes: a longer line comes out as a
    piece that :func:`parse_snapshot` refuses with its line number. More than
    ``max_bytes`` in all raises ``SNAPSHOT_TOO_LARGE``.
    """
    total = 0
    while line := stream.readline(_RAW_LINE_BYTES + 1):
        total += len(line)
        if total > max_bytes:
            raise SnapshotError(SnapshotErrorCode.SNAPSHOT_TOO_LARGE, f"over {max_bytes} bytes")
        yield line


def parse_snapshot(lines: Iterable[bytes], local_salt: bytes) -> Snapshot:
    """Parse a snapshot from binary lines (:func:`read_lines` of a file, or a list).

    ``local_salt`` hashes clear identifiers (pass ``secrets.token_bytes(16)``).
    Raises :class:`SnapshotError`; returns only a complete, checked snapshot. Memory is
    bounded by ``MAX_ENTRIES`` (about 20 bytes per identifier, see
    :mod:`admission.registry.digests`); a line longer than ``MAX_LINE_BYTES`` is refused.
    """
    it = iter(lines)
    first = next(it, None)
    if first is None:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_EMPTY, "empty file")
    _check_length(first, 1)
    if first.startswith(b"\xef\xbb\xbf"):
        first = first[3:]
    if _strip_eol(first).rstrip() == MAGIC:
        return _parse_structured(first, it, local_salt)
    if first.startswith(b"#RIAJ-SNAPSHOT"):
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_UNKNOWN_FORMAT, "unsupported format version", 1
        )
    return _parse_plain(first, it, local_salt)


def _parse_plain(first: bytes, rest: Iterable[bytes], salt: bytes) -> Snapshot:
    sha = hashlib.sha256()
    collector = DigestCollector()
    buckets = collector.buckets
    entries = 0
    update, sha256 = sha.update, hashlib.sha256
    for lineno, raw in enumerate(_chain(first, rest), start=1):
        update(raw)
        number_b = raw[:-1] if raw[-1:] == b"\n" else raw
        if 0 < len(number_b) <= 20 and number_b.isalnum() and number_b.isupper():
            digest = sha256(salt + number_b).digest()  # hot path: a clean line
        else:
            number = _plain_number(raw, lineno)
            if number is None:
                continue
            digest = identity_digest(salt, number)
        entries += 1
        if entries > MAX_ENTRIES:
            raise SnapshotError(
                SnapshotErrorCode.SNAPSHOT_TOO_LARGE, f"over {MAX_ENTRIES} identifiers", lineno
            )
        buckets[digest[0]] += digest[:DIGEST_BYTES] + lineno.to_bytes(4, "big")
    if not entries:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_EMPTY, "no identifiers")
    content = sha.digest()
    digests, repeats = collector.finish()
    return Snapshot(
        version="plain-" + content.hex()[:16],
        scheme=SCHEME_CLEAR,
        salt=salt,
        scope=CASINO_SCOPE,
        as_of=None,
        digests=digests,
        content_sha256=content,
        signature=None,
        structured=False,
        duplicates=repeats.count,
        duplicate_lines=repeats.lines,
    )


def _plain_number(raw: bytes, lineno: int) -> str | None:
    """The normalised number of a plain-list line; ``None`` for a blank or comment line."""
    _check_length(raw, lineno)
    text = _decode(_strip_eol(raw), lineno).split("#", 1)[0].strip()
    if not text:
        return None
    number = clean_number(text)
    if number is None:
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_MALFORMED_LINE, "not an identity number", lineno
        )
    return number


def _chain(first: bytes, rest: Iterable[bytes]) -> Iterable[bytes]:
    yield first
    yield from rest


@dataclass(slots=True)
class _Header:
    scheme: str = ""
    salt: bytes = b""
    version: str = ""
    as_of: datetime | None = None
    scope: str = CASINO_SCOPE
    count: int = -1


class _Structured:
    """A structured snapshot being read: header lines, then entries, ``#end`` and an
    optional signature. :meth:`line` takes every line but the hot path's hex digests."""

    def __init__(self, first: bytes, local_salt: bytes) -> None:
        self.sha = hashlib.sha256(first)
        self.local_salt = local_salt
        self.fields: dict[str, str] = {}
        self.header: _Header | None = None
        self.end: bytes | None = None
        self.signature: bytes | None = None
        self.fast_hex = False  # hex digests may take the hot path (body of sha256-salted-v1)

    def line(self, raw: bytes, lineno: int) -> bytes | None:
        """Take one line; the digest when it is an entry."""
        _check_length(raw, lineno)
        if not raw.endswith(b"\n"):  # every structured line ends with a newline
            raise SnapshotError(
                SnapshotErrorCode.SNAPSHOT_TRUNCATED, "last line incomplete", lineno
            )
        line = _strip_eol(raw)
        if self.signature is not None:
            raise SnapshotError(
                SnapshotErrorCode.SNAPSHOT_TRAILING_DATA, "data after the signature", lineno
            )
        if self.end is not None:
            self.signature = _signature_line(line, lineno)
            return None
        if line.startswith(b"#end"):
            m = _END.match(line)
            if m is None:
                raise SnapshotError(
                    SnapshotErrorCode.SNAPSHOT_MALFORMED_LINE, "bad #end line", lineno
                )
            self.end = bytes.fromhex(m.group(1).decode("ascii"))
            self.fast_hex = False  # a hex line after #end is trailing data, not an entry
            return None
        self.sha.update(raw)
        if line.startswith(b"#"):
            self._comment_or_header(line, lineno)
            return None
        if self.header is None:
            self.header = self.finish_header()
            self.fast_hex = self.header.scheme == SCHEME_SHA256_SALTED
        return _entry(line, self.header, lineno)

    def _comment_or_header(self, line: bytes, lineno: int) -> None:
        if self.header is None and (m := _HEADER.match(line)) is not None:
            key = m.group(1).decode("ascii")
            if key in self.fields:
                raise SnapshotError(
                    SnapshotErrorCode.SNAPSHOT_BAD_HEADER, f"duplicate {key}", lineno
                )
            if key not in _HEADER_KEYS:  # refused at once: the header stays small
                raise SnapshotError(
                    SnapshotErrorCode.SNAPSHOT_BAD_HEADER, "unknown header " + key[:40], lineno
                )
            self.fields[key] = _decode(m.group(2), lineno)
        elif not line.startswith(b"# ") and line != b"#":
            raise SnapshotError(SnapshotErrorCode.SNAPSHOT_MALFORMED_LINE, "bad comment", lineno)

    def finish_header(self) -> _Header:
        if self.header is None:
            self.header = _check_header(self.fields, self.local_salt)
        return self.header


def _parse_structured(first: bytes, rest: Iterable[bytes], local_salt: bytes) -> Snapshot:
    state = _Structured(first, local_salt)
    collector = DigestCollector()
    buckets = collector.buckets
    update, unhex = state.sha.update, binascii.unhexlify
    fast_hex = False
    entries = 0
    count = MAX_ENTRIES  # the header's #count once it is read
    lineno = 1
    for lineno, raw in enumerate(rest, start=2):
        if fast_hex and len(raw) == 65 and raw[64] == 10 and raw[0] != 35:  # "\n", "#"
            try:  # the hot path of a 1,000,000-line file: hex digest + newline
                digest = unhex(raw[:64])
            except binascii.Error:
                raise SnapshotError(
                    SnapshotErrorCode.SNAPSHOT_MALFORMED_LINE, "not a sha256 hex digest", lineno
                ) from None
            update(raw)
        else:
            entry = state.line(raw, lineno)
            fast_hex = state.fast_hex
            if entry is None:
                continue
            digest = entry
            count = state.finish_header().count
        entries += 1
        if entries > count:  # refused at once: memory stays within the declared count
            raise SnapshotError(
                SnapshotErrorCode.SNAPSHOT_COUNT_MISMATCH, f"more than {count} entries", lineno
            )
        buckets[digest[0]] += digest[:DIGEST_BYTES] + lineno.to_bytes(4, "big")
    header = state.finish_header()
    if state.end is None:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_TRUNCATED, "no #end line", lineno)
    content = state.sha.digest()
    if content != state.end:
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_CHECKSUM_MISMATCH, "sha256 does not match #end"
        )
    if entries != header.count:
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_COUNT_MISMATCH, f"{entries} != {header.count}"
        )
    if not entries:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_EMPTY, "no identifiers")
    assert header.as_of is not None
    digests, repeats = collector.finish()
    return Snapshot(
        version=header.version,
        scheme=header.scheme,
        salt=header.salt,
        scope=header.scope,
        as_of=header.as_of,
        digests=digests,
        content_sha256=content,
        signature=state.signature,
        structured=True,
        duplicates=repeats.count,
        duplicate_lines=repeats.lines,
    )


def _signature_line(line: bytes, lineno: int) -> bytes:
    m = _SIGNATURE.match(line)
    if m is None:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_TRAILING_DATA, "data after #end", lineno)
    try:
        sig = base64.b64decode(m.group(1), validate=True)
    except ValueError:
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_BAD_SIGNATURE, "signature not base64", lineno
        ) from None
    if len(sig) != 64:
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_BAD_SIGNATURE, "ed25519 signature is 64 bytes", lineno
        )
    return sig


def _entry(line: bytes, header: _Header, lineno: int) -> bytes:
    if header.scheme == SCHEME_CLEAR:
        number = clean_number(_decode(line, lineno).strip())
        if number is None:
            raise SnapshotError(
                SnapshotErrorCode.SNAPSHOT_MALFORMED_LINE, "not an identity number", lineno
            )
        return identity_digest(header.salt, number)
    if not _HEX64.match(line):
        raise SnapshotError(
            SnapshotErrorCode.SNAPSHOT_MALFORMED_LINE, "not a sha256 hex digest", lineno
        )
    return bytes.fromhex(line[: 2 * DIGEST_BYTES].decode("ascii"))


def _check_header(fields: dict[str, str], local_salt: bytes) -> _Header:
    for key in ("scheme", "version", "as-of", "count"):
        if key not in fields:
            raise SnapshotError(SnapshotErrorCode.SNAPSHOT_HEADER_MISSING, key)
    h = _Header()
    h.scheme = fields["scheme"]
    if h.scheme not in KNOWN_SCHEMES:
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_UNKNOWN_SCHEME, h.scheme[:40])
    if h.scheme == SCHEME_CLEAR:
        h.salt = local_salt  # clear lists are hashed with our own salt before storage
    else:
        try:
            h.salt = bytes.fromhex(fields.get("salt", ""))
        except ValueError:
            raise SnapshotError(SnapshotErrorCode.SNAPSHOT_BAD_SALT, "salt not hex") from None
        if not 16 <= len(h.salt) <= 64:
            raise SnapshotError(SnapshotErrorCode.SNAPSHOT_BAD_SALT, "salt must be 16-64 bytes")
    if not _VERSION.match(fields["version"]):
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_BAD_HEADER, "bad version")
    h.version = fields["version"]
    h.as_of = parse_instant(fields["as-of"], SnapshotErrorCode.SNAPSHOT_BAD_HEADER)
    h.scope = fields.get("scope", CASINO_SCOPE)
    if h.scope != CASINO_SCOPE:  # exclusions are per game type; only this one binds us
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_WRONG_SCOPE, h.scope[:40])
    if not (fields["count"].isascii() and fields["count"].isdigit()):
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_BAD_HEADER, "bad count")
    h.count = int(fields["count"])
    if h.count > MAX_ENTRIES:  # refused before a single entry is read
        raise SnapshotError(SnapshotErrorCode.SNAPSHOT_TOO_LARGE, f"#count over {MAX_ENTRIES}")
    return h


def parse_instant(text: str, code: SnapshotErrorCode = SnapshotErrorCode.FEED_BAD_DATE) -> datetime:
    """``YYYY-MM-DD`` (midnight UTC) or an ISO-8601 instant with an offset -> aware UTC."""
    text = text.strip()
    try:
        if len(text) == 10:
            at = datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC)
        else:
            at = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if at.tzinfo is None:
            raise SnapshotError(code, "date without offset")
        at = at.astimezone(UTC)  # year 1 or 9999 with an offset overflows here
    except (ValueError, OverflowError):
        raise SnapshotError(code, "bad date") from None
    if at.year not in YEARS:
        raise SnapshotError(code, f"year outside {YEARS.start}-{YEARS.stop - 1}")
    return at


# --- change feed (verificarCambiosRGIAJ) -------------------------------------------------


class FeedAction(StrEnum):
    ADDED = "A"  # alta: the person was added to the register
    REMOVED = "B"  # baja: the person was removed


@dataclass(frozen=True, slots=True)
class FeedEntry:
    action: FeedAction
    number: str  # normalised identity number
    at: datetime  # aware UTC


@dataclass(frozen=True, slots=True)
class FeedPage:
    """Changes since ``since``; the feed is complete up to ``as_of`` (server time)."""

    since: datetime | None
    as_of: datetime
    entries: tuple[FeedEntry, ...]


def feed_entry(action: str, number: str, at: str | datetime, lineno: int = 0) -> FeedEntry:
    """Build one entry from untrusted parts."""
    try:
        act = FeedAction(action.strip().upper())
    except ValueError:
        raise SnapshotError(
            SnapshotErrorCode.FEED_BAD_ACTION, "action must be A or B", lineno
        ) from None
    clean = clean_number(number)
    if clean is None:
        raise SnapshotError(SnapshotErrorCode.FEED_BAD_IDENTITY, "not an identity number", lineno)
    when = at if isinstance(at, datetime) else parse_instant(at)
    if when.tzinfo is None:
        raise SnapshotError(SnapshotErrorCode.FEED_BAD_DATE, "date without offset", lineno)
    return FeedEntry(act, clean, when.astimezone(UTC))


def validate_feed(page: FeedPage) -> FeedPage:
    """Reject out-of-order dates, entries before ``since`` or after ``as_of``."""
    prev = page.since
    for i, entry in enumerate(page.entries, start=1):
        if prev is not None and entry.at < prev:
            raise SnapshotError(SnapshotErrorCode.FEED_OUT_OF_ORDER, "date goes backwards", i)
        if entry.at > page.as_of:
            raise SnapshotError(
                SnapshotErrorCode.FEED_OUT_OF_ORDER, "date after the feed's as-of", i
            )
        prev = entry.at
    if page.since is not None and page.as_of < page.since:
        raise SnapshotError(SnapshotErrorCode.FEED_OUT_OF_ORDER, "as-of before since")
    return page


def parse_feed_lines(lines: Iterable[str], since: datetime | None, as_of: datetime) -> FeedPage:
    """A change feed as text: ``A|B <number> <date>`` per line, ``#`` comments."""
    entries: list[FeedEntry] = []
    for lineno, raw in enumerate(lines, start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.replace(";", " ").split()
        if len(parts) != 3:
            raise SnapshotError(
                SnapshotErrorCode.FEED_MALFORMED_LINE, "expected: action number date", lineno
            )
        entries.append(feed_entry(parts[0], parts[1], parts[2], lineno))
    return validate_feed(FeedPage(since, as_of, tuple(entries)))


def render_snapshot(
    numbers: Iterable[str],
    *,
    version: str,
    as_of: datetime,
    scheme: str = SCHEME_SHA256_SALTED,
    salt: bytes = b"",
    sign: Callable[[bytes], bytes] | None = None,
) -> bytes:
    """Write a structured snapshot (the regulator's side; used by tests, fakes and benches)."""
    body: list[bytes] = []
    for number in numbers:
        if scheme == SCHEME_CLEAR:
            body.append(number.encode("ascii") + b"\n")
        else:
            body.append(hashlib.sha256(salt + number.encode("ascii")).hexdigest().encode() + b"\n")
    stamp = as_of.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    head = [MAGIC + b"\n", f"#scheme: {scheme}\n".encode()]
    if scheme != SCHEME_CLEAR:
        head.append(f"#salt: {salt.hex()}\n".encode())
    head += [
        f"#version: {version}\n".encode(),
        f"#as-of: {stamp}\n".encode(),
        f"#scope: {CASINO_SCOPE}\n".encode(),
        f"#count: {len(body)}\n".encode(),
    ]
    content = b"".join(head) + b"".join(body)
    digest = hashlib.sha256(content).digest()
    out = content + b"#end sha256:" + digest.hex().encode() + b"\n"
    if sign is not None:
        sig = sign(signed_message(digest))
        out += b"#signature ed25519:" + base64.b64encode(sig) + b"\n"
    return out


class SignatureVerifier(Protocol):
    """Checks a snapshot signature over :func:`signed_message` (adapter: Ed25519)."""

    def verify(self, message: bytes, signature: bytes) -> bool: ...

"""The identifiers of a snapshot as a compact sorted set, with the lines that repeat one
(art. 20.2: the register is checked by document number; pure, stdlib only).

A 1,000,000-line register must not cost a Python object per identifier (about 70 bytes
each). While a file is read, each identifier is appended as a 20-byte record (its
16-byte digest and its 1-based line number, big-endian) to one of 256 buffers chosen by
the digest's first byte. At the end each buffer is sorted on its own (split again by
the next byte when it is large, so a crafted file whose digests share a prefix cannot
make one huge list) and the unique digests are packed into one buffer of 16 bytes each.
Peak memory is about 20 bytes per identifier plus one buffer's sort.

A repeated identifier is harmless: the set keeps it once, and the collector counts the
repeats and keeps the first few line numbers so the operator can find them.
"""

from __future__ import annotations

import heapq
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

DIGEST_BYTES = 16
_LINE_BYTES = 4
RECORD_BYTES = DIGEST_BYTES + _LINE_BYTES
REPORTED_DUPLICATES = 10  # line numbers reported with the count of repeats
_SORT_RUN = 1 << 15  # records sorted as one list at most (about 2.5 MB of objects)
_DIGEST = struct.Struct(f"{DIGEST_BYTES}s")


class SortedDigests(Sequence[bytes]):
    """Unique digests in ascending order, packed in one buffer (``DIGEST_BYTES`` each)."""

    __slots__ = ("_buffer",)

    def __init__(self, packed: bytes | bytearray = b"") -> None:
        if len(packed) % DIGEST_BYTES:
            raise ValueError("packed digests must be a multiple of DIGEST_BYTES")
        self._buffer = packed  # never changed again: no copy of a large register

    def __len__(self) -> int:
        return len(self._buffer) // DIGEST_BYTES

    @overload
    def __getitem__(self, index: int) -> bytes: ...

    @overload
    def __getitem__(self, index: slice) -> list[bytes]: ...

    def __getitem__(self, index: int | slice) -> bytes | list[bytes]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("digest index out of range")
        start = index * DIGEST_BYTES
        return bytes(self._buffer[start : start + DIGEST_BYTES])

    def __iter__(self) -> Iterator[bytes]:
        for (digest,) in _DIGEST.iter_unpack(self._buffer):
            yield digest

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SortedDigests):
            return self._buffer == other._buffer
        return NotImplemented

    def __hash__(self) -> int:
        return hash(bytes(self._buffer))

    def __repr__(self) -> str:
        return f"SortedDigests({len(self)} digests)"


@dataclass(frozen=True, slots=True)
class Duplicates:
    """How many identifier lines repeat an earlier one, and the first of those lines."""

    count: int = 0
    lines: tuple[int, ...] = ()


class DigestCollector:
    """Collects (digest, line) pairs in bounded memory; :meth:`finish` sorts them.

    ``buckets`` is exposed for the parser's hot loop, which appends
    ``digest[:16] + line.to_bytes(4, "big")`` to ``buckets[digest[0]]`` itself.
    """

    __slots__ = ("buckets",)

    def __init__(self) -> None:
        self.buckets: list[bytearray] = [bytearray() for _ in range(256)]

    def add(self, digest: bytes, line: int) -> None:
        self.buckets[digest[0]] += digest[:DIGEST_BYTES] + line.to_bytes(_LINE_BYTES, "big")

    def finish(self) -> tuple[SortedDigests, Duplicates]:
        """The sorted unique digests and the repeats; the collector is emptied."""
        out = bytearray()
        repeats = _Repeats()
        buckets, self.buckets = self.buckets, []
        for i, bucket in enumerate(buckets):
            buckets[i] = bytearray()  # free each buffer once it is sorted
            _sort_into(bucket, 1, out, repeats)
        return SortedDigests(out), repeats.result()


class _Repeats:
    """Counts repeated lines and keeps the smallest line numbers (a bounded max-heap)."""

    __slots__ = ("_heap", "count")

    def __init__(self) -> None:
        self.count = 0
        self._heap: list[int] = []  # negated line numbers

    def add(self, line: int) -> None:
        self.count += 1
        if len(self._heap) < REPORTED_DUPLICATES:
            heapq.heappush(self._heap, -line)
        elif -self._heap[0] > line:
            heapq.heapreplace(self._heap, -line)

    def result(self) -> Duplicates:
        return Duplicates(self.count, tuple(sorted(-n for n in self._heap)))


def _sort_into(records: bytearray, depth: int, out: bytearray, repeats: _Repeats) -> None:
    """Append the unique digests of ``records`` (which share their first ``depth`` bytes)
    to ``out`` in order; every later line of a repeated digest goes to ``repeats``."""
    size = len(records)
    if size == 0:
        return
    if depth >= DIGEST_BYTES:  # one digest, possibly on many lines, in line order
        out += records[:DIGEST_BYTES]
        for start in range(RECORD_BYTES, size, RECORD_BYTES):
            repeats.add(int.from_bytes(records[start + DIGEST_BYTES : start + RECORD_BYTES]))
        return
    if size // RECORD_BYTES > _SORT_RUN:
        parts = [bytearray() for _ in range(256)]
        for start in range(0, size, RECORD_BYTES):  # stable: line order is kept
            parts[records[start + depth]] += records[start : start + RECORD_BYTES]
        del records[:]
        for i, part in enumerate(parts):
            parts[i] = bytearray()
            _sort_into(part, depth + 1, out, repeats)
        return
    run = sorted(bytes(records[i : i + RECORD_BYTES]) for i in range(0, size, RECORD_BYTES))
    del records[:]
    previous = b""
    for record in run:
        digest = record[:DIGEST_BYTES]
        if digest == previous:
            repeats.add(int.from_bytes(record[DIGEST_BYTES:]))
        else:
            out += digest
            previous = digest

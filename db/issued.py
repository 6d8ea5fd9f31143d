"""The highest numbers the folder's visitor file has issued, kept beside it (arts. 20.4,
22-23: a card number, a provisional voucher's number, serves one visitor only).

A backup restored after the file was lost gives back the file as it was when the copy
was taken: the cards, visits, vouchers and audit entries recorded since are not in it,
and the file's own counters would hand out those card and voucher numbers again (and
the PDF folder's files of those cards would be printed over). So the folder keeps, next
to the file and its marker, ``issued.json``: the file id and the high-water marks of
the file - the last card number, the last voucher number, the last visit id and the
audit head (seq and digest) - and no personal data.

Design (why this and not a count):

* High-water marks only ever grow, so merging several sources is a ``max``: a record
  that lags (a process killed between its commit and the record's update) is caught up
  by the next open of the file, and :mod:`db.backup` also takes the card PDFs in the
  folder and the backup list into account. Numbers issued after a backup are the ones a
  restore of it loses: ``record - backup`` for each mark, even when retention purged
  old rows in between (a count would be wrong then).
* The store updates the record after every committed write and when it opens
  (:meth:`db.store.SqlCipherStore`), so it follows the live file without the admission
  code knowing about it; a record that cannot be written never fails the write (the
  file is the record; this is its shadow).
* A restore replaces the record by the restored file's marks, after it has moved the
  file's card and voucher counters past the highest numbers ever issued: the counters
  inside the file now carry the floor, and the record starts over from the new file.
* The record is named apart from ``visitors.db*`` so that moving a damaged file and its
  marker aside (docs/backup.md) leaves it where the restore looks for it.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from db.file_guard import replace_file

__all__ = [
    "ISSUED_FILE",
    "RECORD_BYTES",
    "Highs",
    "IssuedRecord",
    "highs_of",
    "read_issued",
    "write_issued",
]

ISSUED_FILE = "issued.json"
RECORD_BYTES = 1024  # the record's fixed size: overwritten in place (write_issued)
_KIND = "admission-desk issued numbers"
_NOTE = (
    "Números más altos emitidos por el fichero de visitantes (arts. 20.4, 23): no lo "
    "borre. / Highest numbers the visitor file issued: do not delete."
)


@dataclass(frozen=True, slots=True)
class Highs:
    """The high-water marks of a visitor file (0: none yet)."""

    card: int = 0  # the last card number the file's counter handed out
    voucher: int = 0  # the last voucher number
    visit: int = 0  # the last visit id
    audit_seq: int = 0  # the audit head's seq
    audit_digest: str = ""  # and its digest

    def merged(self, other: Highs) -> Highs:
        """The higher of each mark; the digest goes with the higher audit seq."""
        head = self if self.audit_seq >= other.audit_seq else other
        return Highs(
            max(self.card, other.card),
            max(self.voucher, other.voucher),
            max(self.visit, other.visit),
            head.audit_seq,
            head.audit_digest,
        )


@dataclass(frozen=True, slots=True)
class IssuedRecord:
    file_id: str
    highs: Highs
    updated_at: str

    def to_json(self) -> str:
        marks = {f.name: getattr(self.highs, f.name) for f in fields(Highs)}
        return json.dumps(
            {
                "kind": _KIND,
                "version": 1,
                "file_id": self.file_id,
                **marks,
                "updated_at": self.updated_at,
                "note": _NOTE,
            },
            indent=2,
            ensure_ascii=False,
        )


def highs_of(conn: Any) -> Highs:
    """The marks of the file behind ``conn`` (inside the caller's lock or transaction)."""
    counters = dict(conn.execute("SELECT name, next FROM counters").fetchall())
    visit = conn.execute("SELECT COALESCE(MAX(visit_id), 0) FROM visits").fetchone()[0]
    voucher = conn.execute("SELECT COALESCE(MAX(number), 0) FROM vouchers").fetchone()[0]
    audit_seq = int(counters.get("audit", 1)) - 1
    row = conn.execute("SELECT digest FROM audit WHERE seq = ?", (audit_seq,)).fetchone()
    return Highs(
        card=int(counters.get("card", 1)) - 1,
        voucher=max(int(voucher), int(counters.get("voucher", 1)) - 1),
        visit=int(visit),
        audit_seq=audit_seq,
        audit_digest="" if row is None else str(row[0]),
    )


def read_issued(data_dir: Path) -> IssuedRecord | None:
    """The folder's record; None when there is none or it cannot be read (the other
    sources - card PDFs, the backup list - still count then)."""
    try:
        data = json.loads((Path(data_dir) / ISSUED_FILE).read_text("utf-8"))
        if not isinstance(data, dict) or data.get("kind") != _KIND:
            return None
        highs = Highs(
            card=max(0, int(data["card"])),
            voucher=max(0, int(data["voucher"])),
            visit=max(0, int(data["visit"])),
            audit_seq=max(0, int(data["audit_seq"])),
            audit_digest=str(data["audit_digest"]),
        )
        return IssuedRecord(str(data["file_id"]), highs, str(data.get("updated_at", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_issued(data_dir: Path, record: IssuedRecord) -> None:
    """Write the record. Raises OSError.

    The record has a fixed size (:data:`RECORD_BYTES`, the JSON padded with spaces), so
    once the file exists it is overwritten in place with one ``pwrite`` of one block: no
    rename, no new inode, no folder change for the next commit of the visitor file to
    flush (a rename per admission cost ~2 ms of its ~6). The first record is created by
    a temporary file and a rename. No fsync either: a record a power cut leaves behind
    the file, or torn, is read as missing and caught up from the file at its next open;
    the card PDFs and the backup list still count meanwhile (module docstring)."""
    target = Path(data_dir) / ISSUED_FILE
    data = record.to_json().encode("utf-8")
    if len(data) > RECORD_BYTES:  # pragma: no cover - ids and counters are short
        raise OSError(errno.EFBIG, "the record is too long")
    data = data.ljust(RECORD_BYTES, b" ")
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ELOOP, errno.ENXIO):
            raise
        # none yet, or a link or a pipe put there: replaced
        replace_file(target, data, durable=False)
        return
    try:
        found = os.fstat(fd)
        in_place = stat.S_ISREG(found.st_mode) and found.st_size == RECORD_BYTES
        if in_place:
            os.pwrite(fd, data, 0)
    finally:
        os.close(fd)
    if not in_place:
        replace_file(target, data, durable=False)  # over anything else found there

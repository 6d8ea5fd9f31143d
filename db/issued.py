"""The highest numbers the visitor file issued, kept beside it in ``issued.json`` (arts.
20.4, 22-23: a card or voucher number serves one visitor only): a restored backup's
counters would hand out again the numbers issued since it was taken. No personal data.
Marks only grow, so sources merge by ``max`` and a lagging record is caught up at the next
open; ``record - backup`` is what a restore loses, even after a purge. Failing to write it
never fails a write."""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from db.file_guard import replace_file

ISSUED_FILE = "issued.json"
RECORD_BYTES = 1024  # the record's fixed size: overwritten in place (write_issued)
_KIND = "admission-desk issued numbers"
_MARKS = ("card", "voucher", "visit", "audit_seq")
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
        return replace(
            head,
            card=max(self.card, other.card),
            voucher=max(self.voucher, other.voucher),
            visit=max(self.visit, other.visit),
        )


@dataclass(frozen=True, slots=True)
class IssuedRecord:
    file_id: str
    highs: Highs
    updated_at: str

    def to_json(self) -> str:
        data = {"kind": _KIND, "version": 1, "file_id": self.file_id, **asdict(self.highs)}
        data.update(updated_at=self.updated_at, note=_NOTE)
        return json.dumps(data, indent=2, ensure_ascii=False)


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
        card, voucher, visit, seq = (max(0, int(data[name])) for name in _MARKS)
        highs = Highs(card, voucher, visit, seq, str(data["audit_digest"]))
        return IssuedRecord(str(data["file_id"]), highs, str(data.get("updated_at", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_issued(data_dir: Path, record: IssuedRecord) -> None:
    """Write the record (raises OSError): padded to :data:`RECORD_BYTES`, overwritten in
    place by one ``pwrite`` (a rename per admission cost ~2 ms of its ~6), no fsync (a
    stale or torn record reads as missing and is caught up at the next open)."""
    target = Path(data_dir) / ISSUED_FILE
    data = record.to_json().encode("utf-8")
    if len(data) > RECORD_BYTES:  # pragma: no cover - ids and counters are short
        raise OSError(errno.EFBIG, "the record is too long")
    data = data.ljust(RECORD_BYTES, b" ")
    if sys.platform != "win32":  # Windows has no pwrite: it writes a new file each time
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ELOOP, errno.ENXIO):
                raise
        else:
            try:
                found = os.fstat(fd)
                if stat.S_ISREG(found.st_mode) and found.st_size == RECORD_BYTES:
                    os.pwrite(fd, data, 0)
                    return
            finally:
                os.close(fd)
    replace_file(target, data, durable=False)  # none yet, or a link, a pipe, anything else

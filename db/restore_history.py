"""What the data folder knows its visitor file held, against a backup about to be
restored (art. 20.4; art. 23: a card number serves one visitor).

Three sources, each enough on its own, merged by ``max`` because each only grows:

* ``issued.json`` (db/issued.py): the highest card, voucher and visit numbers and the
  audit head of the file, kept up to date by the store after every write;
* the card PDFs of the PDF-folder printer (``card-<n>[-...].pdf``): a card printed is a
  card issued, even when the record is gone;
* ``backups.json`` (db/backup.py): a backup taken after this one.

The backup's own BACKUP entry, which the desk appends right after the copy, is not a
loss (``_allowed_head``). A record of another file id means the folder held another
visitor file: all of it would be lost.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

from admission.backups import KnownBackup
from admission.restore_loss import LossReason, RestoreLoss
from db import codec
from db.backup import known_backups
from db.issued import Highs, read_issued

__all__ = ["assess", "newest_card_pdf"]

_CARD_PDF = re.compile(r"^card-(\d{1,12})(?:-[^/]*)?\.pdf$")


def assess(
    backup: Highs,
    file_id: str,
    taken_at: str,
    data_dir: Path,
    card_folders: Iterable[Path] = (),
) -> RestoreLoss:
    """What ``data_dir`` held that a backup with marks ``backup`` does not."""
    reasons: list[LossReason] = []
    record = read_issued(data_dir)
    marks = Highs() if record is None else record.highs
    base = backup
    if record is not None and record.file_id != file_id:
        reasons.append(LossReason.OTHER_FILE)  # all of the other file is lost
        base = Highs()
    elif record is not None and (
        marks.card > base.card or marks.voucher > base.voucher or marks.visit > base.visit
    ):
        reasons.append(LossReason.ISSUED_RECORD)
    pdf = newest_card_pdf(card_folders)
    if pdf > backup.card:
        reasons.append(LossReason.NEWER_CARD_PDF)
    known = known_backups(data_dir)
    audit_lost = max(0, marks.audit_seq - _allowed_head(backup, taken_at, known))
    if record is not None and record.file_id == file_id and audit_lost:
        reasons.append(LossReason.AUDIT_HEAD)
    newest = max((b.taken_at for b in known), default=None)
    if taken_at and newest is not None and newest > codec.parse_ts(taken_at):
        reasons.append(LossReason.NEWER_BACKUP)
    highest_card = max(marks.card, pdf, backup.card)
    highest_voucher = max(marks.voucher, backup.voucher)
    return RestoreLoss(
        cards=max(0, highest_card - base.card),
        visits=max(0, marks.visit - base.visit),
        vouchers=max(0, marks.voucher - base.voucher),
        audit_entries=marks.audit_seq if base is not backup else audit_lost,
        reasons=tuple(dict.fromkeys(reasons)),
        newest_backup="" if newest is None else newest.isoformat(),
        card_resumes_at=highest_card + 1,
        voucher_resumes_at=highest_voucher + 1,
    )


def _allowed_head(backup: Highs, taken_at: str, known: list[KnownBackup]) -> int:
    """The backup's own BACKUP entry, written by the desk right after the copy, is not
    a loss: the head the folder may be at is that entry's seq when it followed the copy
    at once (nothing else was recorded between), else the copy's own head."""
    for item in known:
        if (
            taken_at
            and codec.ts(item.taken_at) == taken_at
            and item.head_seq == backup.audit_seq
            and item.entry_seq == backup.audit_seq + 1
        ):
            return item.entry_seq
    return backup.audit_seq


def newest_card_pdf(folders: Iterable[Path]) -> int:
    """The highest card number among ``card-<n>[-...].pdf`` in the PDF folders (the
    PDF-folder printer's names, hardware/printer/service.py); 0 when none."""
    found = 0
    for folder in folders:
        with contextlib.suppress(OSError):
            for name in os.listdir(folder):
                match = _CARD_PDF.match(name)
                if match:
                    found = max(found, int(match.group(1)))
    return found

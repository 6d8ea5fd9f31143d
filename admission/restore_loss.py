"""What restoring a backup would lose (art. 20.4: the visitor file is the legal record).

A backup gives the file back as it was when it was taken. When the folder knows that
more was recorded since - a newer backup in its list, card PDFs of later cards, or its
record of the highest numbers issued and of the audit head - the restore is refused
(RESTORE_LOSES_DATA) with the counts below, unless the game director accepts the loss
(art. 20.3: the director answers for the admission service); the numbers issued since
are never issued again (art. 23: one card number, one visitor).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import unique

from admission.codes import Code
from admission.errors import StoreError

__all__ = ["LossReason", "RestoreLoss", "RestoreLossCode", "RestoreLossError"]


@unique
class RestoreLossCode(Code):
    RESTORE_LOSES_DATA = "RESTORE_LOSES_DATA"  # older than the folder's record: --accept-loss


@unique
class LossReason(Code):
    """Why the folder says the backup is older than what it held."""

    NEWER_BACKUP = "NEWER_BACKUP"  # the backup list holds a copy taken later
    NEWER_CARD_PDF = "NEWER_CARD_PDF"  # the card PDF folder holds a later card
    ISSUED_RECORD = "ISSUED_RECORD"  # the record beside the file has later numbers
    AUDIT_HEAD = "AUDIT_HEAD"  # the record's audit head is past the backup's
    OTHER_FILE = "OTHER_FILE"  # the record is of another visitor file: all of it is lost


@dataclass(frozen=True, slots=True)
class RestoreLoss:
    """What the folder held that the backup does not (0 when unknown), and where the
    counters resume once the backup is restored."""

    cards: int
    visits: int
    vouchers: int
    audit_entries: int
    reasons: tuple[LossReason, ...]
    newest_backup: str  # ISO time of the newest backup the folder knows, "" if none
    card_resumes_at: int  # the next card number after the restore
    voucher_resumes_at: int  # the next voucher number after the restore

    @property
    def any(self) -> bool:
        return bool(self.reasons)

    def details(self) -> dict[str, str]:
        """For the FILE_RESTORED audit entry (plain counts, no personal data)."""
        return {
            "lost_cards": str(self.cards),
            "lost_visits": str(self.visits),
            "lost_vouchers": str(self.vouchers),
            "lost_audit_entries": str(self.audit_entries),
            "loss_reasons": ",".join(str(r) for r in self.reasons),
            "card_resumes_at": str(self.card_resumes_at),
            "voucher_resumes_at": str(self.voucher_resumes_at),
        }

    def answer(self) -> dict[str, object]:
        """For the command line's answer."""
        return {
            "lost_cards": self.cards,
            "lost_visits": self.visits,
            "lost_vouchers": self.vouchers,
            "lost_audit_entries": self.audit_entries,
            "reasons": [str(r) for r in self.reasons],
            "newest_backup": self.newest_backup or None,
            "card_resumes_at": self.card_resumes_at,
            "voucher_resumes_at": self.voucher_resumes_at,
        }


class RestoreLossError(StoreError):
    """The backup is older than what the folder knows; nothing was restored."""

    def __init__(self, loss: RestoreLoss) -> None:
        super().__init__(
            f"the backup is older than what this folder held ({loss.cards} card(s), "
            f"{loss.visits} visit(s), {loss.vouchers} voucher(s), {loss.audit_entries} "
            "audit entr(ies) would be lost): restore it only with --accept-loss and the "
            "game director's credentials",
            code=RestoreLossCode.RESTORE_LOSES_DATA,
        )
        self.loss = loss

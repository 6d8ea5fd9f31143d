"""Card verification (R8, art. 22.4): a scanned or typed card code -> holder and status.

Staff and inspectors may ask any visitor for the entry card at any time. The code printed
on it (:mod:`admission.cards.code`) is read by a handheld reader, the camera or typed, and
:func:`verify_card` answers with the holder, card type, validity and one status:

  VALID           the card is ours, not voided, and today (Madrid) is within its validity
  NOT_YET_VALID   valid from a later date (multi-day or pre-sold cards)
  EXPIRED         its last valid day has passed
  VOIDED          voided (reason kept in the card book, not shown here)
  UNKNOWN_NUMBER  the code is genuine but no such card is in the file (erased after six
                  months, art. 20.4)
  CODE_TAMPERED   the MAC does not match: forged or mistyped
  CODE_MALFORMED  not one of our codes at all
  OTHER_CASINO    one of our codes, issued under another casino id

Every check, whatever its outcome, is recorded in the audit trail (action ``CARD_CHECK``,
subject ``card:<number>``, no name or document number). If the check cannot be
recorded the store's error propagates: an unrecorded verification is not answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import unique
from typing import Protocol

from admission.cards.code import CardCodeError, CardCodeErrorCode, parse_card_code
from admission.codes import Code
from admission.ports import AuditTrail, Clock, madrid_date
from admission.records import CardRecord, CardStatus, Visitor

__all__ = [
    "AUDIT_ACTION",
    "CardCheckStatus",
    "CardVerification",
    "VerificationStore",
    "mask_number",
    "verify_card",
]

AUDIT_ACTION = "CARD_CHECK"


@unique
class CardCheckStatus(Code):
    """The one status a card check answers (the module docstring says what each means)."""

    VALID = "VALID"
    NOT_YET_VALID = "NOT_YET_VALID"
    EXPIRED = "EXPIRED"
    VOIDED = "VOIDED"
    UNKNOWN_NUMBER = "UNKNOWN_NUMBER"
    CODE_TAMPERED = "CODE_TAMPERED"
    CODE_MALFORMED = "CODE_MALFORMED"
    OTHER_CASINO = "OTHER_CASINO"


_FROM_CODE_ERROR: dict[str, CardCheckStatus] = {
    CardCodeErrorCode.CODE_MALFORMED: CardCheckStatus.CODE_MALFORMED,
    CardCodeErrorCode.CODE_TAMPERED: CardCheckStatus.CODE_TAMPERED,
    CardCodeErrorCode.CODE_OTHER_CASINO: CardCheckStatus.OTHER_CASINO,
}


class VerificationStore(Protocol):
    """What verification reads and writes (``SqlCipherStore`` and ``FakeStore`` fit)."""

    def card(self, number: int) -> CardRecord | None: ...

    def visitor(self, file_number: int) -> Visitor | None: ...

    def append(
        self,
        actor: str,
        action: str,
        subject: str,
        at: datetime,
        details: dict[str, str] | None = None,
    ) -> int: ...


@dataclass(frozen=True, slots=True)
class CardVerification:
    """The answer shown to staff; holder fields are empty unless the card was found."""

    status: CardCheckStatus
    checked_at: datetime
    audit_seq: int
    card_number: int | None = None
    code: str = ""  # canonical code text, only when the code verified
    card_type: str = ""
    card_status: CardStatus | None = None
    valid_from: date | None = None
    valid_until: date | None = None
    exceptional: bool = False
    private_rooms: bool = False
    file_number: int | None = None
    surname: str = ""
    given_names: str = ""
    identity_hint: str = ""  # the holder's document number, masked but for the last 4

    @property
    def ok(self) -> bool:
        return self.status is CardCheckStatus.VALID

    def to_json(self) -> dict[str, object]:
        """Stable JSON field names (the CLI prints them; operators script them)."""
        holder = None
        if self.file_number is not None:
            holder = {
                "file_number": self.file_number,
                "surname": self.surname,
                "given_names": self.given_names,
                "identity": self.identity_hint,
            }
        return {
            "status": self.status.value,
            "valid": self.ok,
            "checked_at": self.checked_at.isoformat(),
            "audit_seq": self.audit_seq,
            "card_number": self.card_number,
            "code": self.code or None,
            "card_type": self.card_type or None,
            "card_status": self.card_status.value if self.card_status else None,
            "valid_from": self.valid_from.isoformat() if self.valid_from else None,
            "valid_until": self.valid_until.isoformat() if self.valid_until else None,
            "exceptional": self.exceptional,
            "private_rooms": self.private_rooms,
            "holder": holder,
        }


def mask_number(number: str) -> str:
    """``12345678Z`` -> ``*****678Z``: enough to compare with the card and the person."""
    return "*" * max(0, len(number) - 4) + number[-4:]


def _status_of(card: CardRecord, today: date) -> CardCheckStatus:
    if card.status is CardStatus.VOIDED:
        return CardCheckStatus.VOIDED
    if today < card.valid_from:
        return CardCheckStatus.NOT_YET_VALID
    if today > card.valid_until:
        return CardCheckStatus.EXPIRED
    return CardCheckStatus.VALID  # ISSUED or PRINTED: the code exists only on a real card


def verify_card(
    text: str,
    *,
    key: bytes,
    casino_id: str,
    store: VerificationStore,
    clock: Clock,
    actor: str,
    channel: str = "manual",
    audit: AuditTrail | None = None,
) -> CardVerification:
    """Verify ``text`` (as read or typed) and record the check.

    ``channel`` says how the code arrived (``scanner``, ``camera``, ``manual``, ``cli``);
    ``audit`` defaults to ``store``.
    """
    trail = audit if audit is not None else store
    now = clock.now()
    try:
        code = parse_card_code(text, key, casino_id=casino_id)
    except CardCodeError as err:
        status = _FROM_CODE_ERROR.get(err.code, CardCheckStatus.CODE_MALFORMED)
        seq = trail.append(
            actor, AUDIT_ACTION, "card:-", now, {"result": status.value, "channel": channel[:20]}
        )
        return CardVerification(status, now, seq)

    card = store.card(code.number)
    if card is None:
        status = CardCheckStatus.UNKNOWN_NUMBER
        seq = trail.append(
            actor,
            AUDIT_ACTION,
            f"card:{code.number}",
            now,
            {"result": status.value, "channel": channel[:20]},
        )
        return CardVerification(status, now, seq, card_number=code.number, code=code.text)

    status = _status_of(card, madrid_date(now))
    visitor = store.visitor(card.file_number)
    seq = trail.append(
        actor,
        AUDIT_ACTION,
        f"card:{code.number}",
        now,
        {"result": status.value, "channel": channel[:20], "file": str(card.file_number)},
    )
    return CardVerification(
        status,
        now,
        seq,
        card_number=card.number,
        code=code.text,
        card_type=card.card_type,
        card_status=card.status,
        valid_from=card.valid_from,
        valid_until=card.valid_until,
        exceptional=card.exceptional,
        private_rooms=card.private_rooms,
        file_number=card.file_number,
        surname=visitor.surname if visitor else "",
        given_names=visitor.given_names if visitor else "",
        identity_hint=mask_number(visitor.identity.number) if visitor else "",
    )

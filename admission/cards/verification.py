"""Card verification (R8, art. 22.4): a scanned or typed card code -> holder and status.

Staff and inspectors may ask any visitor for the entry card at any time. The code printed
on it (:mod:`admission.cards.code`) is read by a handheld reader, the camera or typed, and
:func:`verify_card` answers with the holder, card type, validity and one status:

  VALID           the card is ours, not voided, and today (Madrid) is within its validity
  NOT_YET_VALID   valid from a later date (multi-day or pre-sold cards)
  EXPIRED         its last valid day has passed
  VOIDED          voided (the reason from the card book, for the staff who check it)
  UNKNOWN_NUMBER  the code is genuine but no such card is in the file (erased after six
                  months, art. 20.4)
  CODE_TAMPERED   the MAC does not match: forged or mistyped; for a signed code, its key
                  is unknown, its signature fails, or what it signs is not the card in the
                  file (type, validity, holder)
  CODE_MALFORMED  not one of our codes at all
  OTHER_CASINO    one of our codes, issued under another casino id

Two formats are read: ADM1, the HMAC code (admission/cards/code.py) only a holder of the
file's key can check, and ADM2, the Ed25519-signed code (admission/cards/signed.py) a
phone can check offline with the casino's public key (art. 22.4: verified anywhere on
the floor). An ADM2 code is checked in this order: the casino id, its key id among the
file's keys, the signature, then the card in the file and the signed fields against it.

Every check, whatever its outcome, is recorded in the audit trail (action ``CARD_CHECK``,
subject ``card:<number>``, no name or document number). If the check cannot be
recorded the store's error propagates: an unrecorded verification is not answered.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import date, datetime
from enum import unique
from typing import Protocol

from admission.cards.code import CardCodeError, CardCodeErrorCode, parse_card_code
from admission.cards.signed import (
    PREFIX2,
    CardPublicKeys,
    SignedCode,
    decode_signed_code,
    holder_digest,
)
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
    void_reason: str = ""  # why a VOIDED card was voided (the card book's reason)
    key_id: str = ""  # the signing key of an ADM2 code; "" for ADM1
    signed: bool = False  # the code is an ADM2 code whose signature verified

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
            "void_reason": self.void_reason or None,
            "key_id": self.key_id or None,
            "signed": self.signed,
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


def _signed_check(
    text: str, keys: CardPublicKeys | None, casino_id: str
) -> tuple[SignedCode | None, CardCheckStatus | None, str]:
    """An ADM2 text's code, or the status it gets before the file is read and why."""
    try:
        code = decode_signed_code(text)
    except CardCodeError:
        return None, CardCheckStatus.CODE_MALFORMED, ""
    fields = code.fields
    # Another casino's card (its own key, which this file does not hold) is refused as
    # not this casino's before any key is looked for, as an ADM1 code is and as the
    # phone checks offline: the claim is not verified, but the answer is a refusal.
    if fields.casino_id != casino_id:
        return code, CardCheckStatus.OTHER_CASINO, ""
    public = None if keys is None else keys.by_id.get(fields.key_id)
    if keys is None or public is None:
        return None, CardCheckStatus.CODE_TAMPERED, "unknown_key"
    if not keys.check(public, code.signature, code.signed_bytes):
        return None, CardCheckStatus.CODE_TAMPERED, "bad_signature"
    return code, None, ""


def _differences(code: SignedCode, card: CardRecord, holder_key: bytes) -> list[str]:
    """The signed fields that are not the card in the file (a genuine key signed them:
    a leaked key, or a card changed after it was printed)."""
    signed = code.fields
    found = []
    if signed.card_type != card.card_type:
        found.append("card_type")
    if signed.valid_from != card.valid_from:
        found.append("valid_from")
    if signed.valid_until != card.valid_until:
        found.append("valid_until")
    expected = holder_digest(holder_key, card.file_number)
    if not hmac.compare_digest(signed.holder_digest, expected):
        found.append("holder")
    return found


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
    public_keys: CardPublicKeys | None = None,
) -> CardVerification:
    """Verify ``text`` (as read or typed) and record the check.

    ``key`` is the file's ADM1 key; ``public_keys`` what an ADM2 code is checked with
    (``db.card_keys.public_keys(store)``; without it every ADM2 code is CODE_TAMPERED,
    its key unknown). ``channel`` says how the code arrived (``scanner``, ``camera``,
    ``manual``, ``cli``, ``floor``...); ``audit`` defaults to ``store``.
    """
    trail = audit if audit is not None else store
    now = clock.now()
    base = {"channel": channel[:20]}

    def record(status: CardCheckStatus, subject: str, **details: str) -> int:
        return trail.append(
            actor, AUDIT_ACTION, subject, now, {"result": status.value, **base, **details}
        )

    signed: SignedCode | None = None
    if isinstance(text, str) and text.lstrip(" \t\r\n")[:4].upper() == PREFIX2:
        base["format"] = PREFIX2
        signed, refused, why = _signed_check(text, public_keys, casino_id)
        if refused is not None:
            reason = {"reason": why} if why else {}
            if signed is None:
                return CardVerification(refused, now, record(refused, "card:-", **reason))
            subject = f"card:{signed.fields.number}"  # OTHER_CASINO: its signature unchecked
            seq = record(refused, subject, key=signed.fields.key_id)
            return CardVerification(refused, now, seq, key_id=signed.fields.key_id)
        assert signed is not None
        number, canonical = signed.fields.number, signed.text
        base["key"] = signed.fields.key_id
    else:
        try:
            code = parse_card_code(text, key, casino_id=casino_id)
        except CardCodeError as err:
            status = _FROM_CODE_ERROR.get(err.code, CardCheckStatus.CODE_MALFORMED)
            return CardVerification(status, now, record(status, "card:-"))
        number, canonical = code.number, code.text
    key_id = signed.fields.key_id if signed else ""

    card = store.card(number)
    if card is None:
        status = CardCheckStatus.UNKNOWN_NUMBER
        seq = record(status, f"card:{number}")
        return CardVerification(
            status,
            now,
            seq,
            card_number=number,
            code=canonical,
            key_id=key_id,
            signed=signed is not None,
        )

    if signed is not None and public_keys is not None:
        differs = _differences(signed, card, public_keys.holder_key)
        if differs:  # art. 22.4: what the card says must be what the file holds
            status = CardCheckStatus.CODE_TAMPERED
            seq = record(
                status, f"card:{number}", file=str(card.file_number), differs=",".join(differs)
            )
            return CardVerification(
                status, now, seq, card_number=number, key_id=key_id, signed=True
            )

    status = _status_of(card, madrid_date(now))
    visitor = store.visitor(card.file_number)
    seq = record(status, f"card:{number}", file=str(card.file_number))
    return CardVerification(
        status,
        now,
        seq,
        card_number=card.number,
        code=canonical,
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
        void_reason=card.void_reason if card.status is CardStatus.VOIDED else "",
        key_id=key_id,
        signed=signed is not None,
    )

"""What the visitor file refuses to record of an admission, and the one valid card per
person (art. 22): pure rules the stores apply in the admission's own transaction
(db/visitors.py), where the card the visitor already holds is looked up."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from admission.errors import InvalidStateError
from admission.records import AdmissionEntry, RecordErrorCode
from admission.verdict import Outcome, Reason

_ORDER = [r.value for r in Reason]


def with_reason(reasons: Sequence[str], reason: Reason) -> tuple[str, ...]:
    """``reasons`` plus ``reason``, in the order the desk shows them (:class:`Reason`)."""
    if reason.value in reasons:
        return tuple(reasons)
    merged = [*reasons, reason.value]
    return tuple(sorted(merged, key=lambda r: _ORDER.index(r) if r in _ORDER else len(_ORDER)))


def second_card(entry: AdmissionEntry, card_type: str) -> AdmissionEntry:
    """The entry of a visitor who already holds a valid card of ``card_type`` (art. 22):
    no second card; admitted on that card when its type admits its holder again, a
    re-entry on it (ALREADY_ADMITTED: neither a refusal nor a visit) otherwise."""
    if card_type in entry.reentry_types:
        return replace(entry, card=None)
    reasons = with_reason(entry.reasons, Reason.ALREADY_ADMITTED)
    return replace(entry, card=None, verdict=Outcome.ALREADY_ADMITTED.value, reasons=reasons)


def one_card(
    entry: AdmissionEntry, held: tuple[int, str] | None
) -> tuple[AdmissionEntry, int | None]:
    """One person, one valid card (art. 22: the card is nominative and personal). ``held``
    is the (number, card type) of the valid card the visitor holds already, found in the
    admission's transaction so two desks admitting one person at once issue one card;
    None when none. The entry to record, and the card held when it takes a new one's
    place."""
    if entry.card is None or held is None:
        return entry, None
    return second_card(entry, held[1]), held[0]


def check_entry(entry: AdmissionEntry) -> None:
    """Refuse entries the domain should never produce (defence in depth)."""
    card = entry.card
    if card is None:
        return
    if entry.official_capacity:
        raise InvalidStateError(
            "officials on duty get no card (art. 24)", code=RecordErrorCode.OFFICIAL_NO_CARD
        )
    if entry.verdict in (Outcome.DENY, Outcome.ALREADY_ADMITTED, Outcome.NOT_ADMITTED):
        raise InvalidStateError("a refused visitor gets no card", code=RecordErrorCode.CARD_ON_DENY)
    if card.exceptional and not card.authorised_by:
        raise InvalidStateError(
            "an exceptional card needs the director's name (art. 23.5)",
            code=RecordErrorCode.AUTHORISATION_REQUIRED,
        )
    if card.valid_until < card.valid_from:
        raise InvalidStateError(
            "card validity ends before it starts", code=RecordErrorCode.BAD_VALIDITY
        )

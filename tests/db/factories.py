"""Factories of valid admission entries for the store tests (STYLE.md rule 20)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from admission.identity import IdentityKey, IdKind
from admission.ports import madrid_date
from admission.records import AdmissionEntry, NewCard, RegistryCheck

T0 = datetime(2026, 1, 10, 21, 30, tzinfo=UTC)
NOT_LISTED = RegistryCheck("NOT_LISTED", "REPLICA", "2026-01-10.1", 3600)


def new_admission_id() -> str:
    """A random UUID (RFC 9562 v4), made before an admission's first attempt and kept until
    its outcome is known: a lost admission is then safe to ask again."""
    return str(uuid.uuid4())


def dni(n: int) -> IdentityKey:
    letters = "TRWAGMYFPDXBNJZSQVHLCKE"
    number = f"{n:08d}"
    return IdentityKey(IdKind.DNI, "ESP", number + letters[n % 23])


def card_for(at: datetime, days: int = 1, **changes: object) -> NewCard:
    start = madrid_date(at)
    card = NewCard("STANDARD", 500, start, start + timedelta(days=days - 1))
    return replace(card, **changes)  # type: ignore[arg-type]


def entry(
    n: int = 1,
    at: datetime = T0,
    *,
    surname: str = "Peña Núñez",
    given_names: str = "José María",
    card: NewCard | None | bool = True,
    **changes: object,
) -> AdmissionEntry:
    """Visitor ``n`` admitted at ``at`` with a one-day card (``card=False`` for none)."""
    new_card = card_for(at) if card is True else (None if card is False else card)
    base = AdmissionEntry(
        identity=dni(n),
        surname=surname,
        given_names=given_names,
        birth_date=date(1980, 5, 17),
        nationality="ESP",
        document_type="DNI",
        document_number=f"SUP{n:06d}",
        at=at,
        desk_id="desk-1",
        operator="op-7",
        verdict="ADMIT",
        reasons=(),
        registry=NOT_LISTED,
        card=new_card,
    )
    return replace(base, **changes)  # type: ignore[arg-type]

"""Factories for valid cards, visitors and views (STYLE.md rule 20)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

from admission.cards.code import encode_card_code
from admission.cards.view import CardView, build_card_view
from admission.identity import IdentityKey, IdKind
from admission.ports import madrid_date
from admission.records import (
    AdmissionEntry,
    CardRecord,
    CardStatus,
    NewCard,
    RegistryCheck,
    Visitor,
)
from hardware.printer.service import CardPresentation

CASINO_ID = "MAD01"
CODE_KEY = b"k" * 32
ISSUED_AT = datetime(2026, 11, 28, 21, 30, tzinfo=UTC)


def visitor(
    file_number: int = 4711,
    *,
    surname: str = "Muñoz-Ibáñez de la Peña",
    given_names: str = "José Ángel",
) -> Visitor:
    return Visitor(
        file_number=file_number,
        identity=IdentityKey(IdKind.DNI, "ESP", "12345678Z"),
        surname=surname,
        given_names=given_names,
        birth_date=date(1980, 5, 17),
        nationality="ESP",
        first_seen=ISSUED_AT,
        last_seen=ISSUED_AT,
    )


def card(number: int = 1234, file_number: int = 4711, **changes: object) -> CardRecord:
    base = CardRecord(
        number=number,
        file_number=file_number,
        visit_id=number,
        card_type="DAY",
        price_cents=1000,
        issued_at=ISSUED_AT,
        valid_from=date(2026, 11, 28),
        valid_until=date(2026, 11, 28),
        status=CardStatus.ISSUED,
        exceptional=False,
        private_rooms=False,
        authorised_by="",
        print_count=0,
        void_reason="",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def view(
    number: int = 1234,
    *,
    card_changes: dict[str, object] | None = None,
    special: bool = False,
    type_label: str = "Entrada de un día",
    **visitor_changes: str,
) -> CardView:
    v = visitor(**visitor_changes)  # type: ignore[arg-type]
    c = card(number, v.file_number, **(card_changes or {}))
    return build_card_view(
        c,
        v,
        document_number="12345678Z",
        casino_name="Casino Gran Madrid Demo",
        card_type_label=type_label,
        code=encode_card_code(CASINO_ID, number, CODE_KEY),
        special=special,
    )


def admission_entry(
    n: int = 1,
    at: datetime = ISSUED_AT,
    *,
    card_type: str = "DAY",
    exceptional: bool = False,
    authorised_by: str = "",
    surname: str = "Muñoz-Ibáñez de la Peña",
    given_names: str = "José Ángel",
) -> AdmissionEntry:
    """Visitor ``n`` admitted with a one-day card, for a FakeStore or SqlCipherStore."""
    day = madrid_date(at)
    letters = "TRWAGMYFPDXBNJZSQVHLCKE"
    dni = f"{n:08d}" + letters[n % 23]
    return AdmissionEntry(
        identity=IdentityKey(IdKind.DNI, "ESP", dni),
        surname=surname,
        given_names=given_names,
        birth_date=date(1980, 5, 17),
        nationality="ESP",
        document_type="DNI",
        document_number=dni,
        at=at,
        desk_id="DESK1",
        operator="op-1",
        verdict="ADMIT",
        reasons=(),
        registry=RegistryCheck("NOT_LISTED", "REPLICA", "v1", 60),
        card=NewCard(
            card_type, 1000, day, day, exceptional=exceptional, authorised_by=authorised_by
        ),
    )


def presentation() -> CardPresentation:
    return CardPresentation(
        casino_name="Casino Gran Madrid Demo",
        casino_id=CASINO_ID,
        code_key=CODE_KEY,
        type_labels={"DAY": "Entrada de un día", "GROUP": "Viaje de grupo"},
        special_types=frozenset({"GROUP"}),
    )

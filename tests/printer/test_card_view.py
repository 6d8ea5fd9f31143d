"""The card's content (R7 fields, R10/R12/R16 marks), pure and without Qt or PDF."""

from __future__ import annotations

import pytest

from admission.cards.view import (
    FLAG_EXCEPTIONAL,
    FLAG_PRIVATE_ROOMS,
    FLAG_SPECIAL,
    clean_text,
    format_euros,
)
from admission.errors import InvalidStateError
from admission.records import CardStatus
from tests.printer.factories import view


@pytest.mark.parametrize(
    "cents, text",
    [
        (1000, "10,00 €"),
        (5, "0,05 €"),
        (0, "0,00 €"),
        (123456, "1.234,56 €"),
        (100000000, "1.000.000,00 €"),
        (-250, "-2,50 €"),
    ],
)
def test_euros_spanish_style(cents: int, text: str) -> None:
    assert format_euros(cents) == text


def test_every_r7_field() -> None:
    v = view(1234)
    values = {f.label: f.value for f in v.fields}
    assert values["Nombre y apellidos"] == "José Ángel Muñoz-Ibáñez de la Peña"
    assert values["DNI / documento"] == "12345678Z"
    assert values["Ficha cliente"] == "4711"
    assert values["Emisión"] == "28/11/2026"
    assert values["Validez"] == "28/11/2026"
    assert values["Precio"] == "10,00 €"
    assert values["Tipo"] == "Entrada de un día"
    assert v.number_text == "Nº 1234"
    assert v.code.startswith("ADM1-MAD01-1234-")
    assert v.flags == () and v.marks == ()


def test_issue_date_is_madrid_calendar_date() -> None:
    from datetime import UTC, datetime

    # 23:30 UTC on 28 Nov is already 29 Nov in Madrid
    v = view(card_changes={"issued_at": datetime(2026, 11, 28, 23, 30, tzinfo=UTC)})
    assert v.issue_date == "29/11/2026"


def test_marks_exceptional_special_private_rooms() -> None:
    from datetime import date

    v = view(
        card_changes={
            "exceptional": True,
            "authorised_by": "Dña. Directora",
            "private_rooms": True,
            "valid_until": date(2026, 11, 30),
        },
        special=True,
        type_label="Viaje de grupo",
    )
    assert v.flags == (FLAG_EXCEPTIONAL, FLAG_SPECIAL, FLAG_PRIVATE_ROOMS)
    assert v.marks[0] == "EXCEPCIONAL — autorizada por Dña. Directora"
    assert v.marks[1] == "TARJETA ESPECIAL: Viaje de grupo"
    assert v.marks[2] == "INVITACIÓN A SALAS PRIVADAS"
    assert v.validity == "28/11/2026 – 30/11/2026"


def test_untrusted_text_cleaned_and_bounded() -> None:
    assert clean_text("Ana\x00\x1b[31m  María\n", 64) == "Ana[31m María"
    assert len(clean_text("x" * 500, 64)) == 64
    v = view(given_names="A" * 100, surname="B" * 100)
    assert len(v.holder_name) <= 160


def test_voided_card_has_no_view() -> None:
    with pytest.raises(InvalidStateError) as err:
        view(card_changes={"status": CardStatus.VOIDED})
    assert err.value.code == "CARD_VOIDED"


def test_repr_has_no_personal_data() -> None:
    text = repr(view())
    assert "Muñoz" not in text and "12345678Z" not in text

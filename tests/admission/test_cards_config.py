from datetime import date

import pytest

from admission.cards.catalogue import DEFAULT_CARD_TYPES, CardCatalogue, CardKind
from admission.errors import ConfigError


def test_default_catalogue_has_a_unit_price_and_cheaper_specials() -> None:
    cat = CardCatalogue.from_config(DEFAULT_CARD_TYPES, "DAY")
    unit = cat.get(None)
    assert unit.kind is CardKind.STANDARD
    specials = [
        t for t in cat.types.values() if t.kind.special and t.kind is not CardKind.MULTI_DAY
    ]
    assert specials and all(t.price_cents < unit.price_cents for t in specials)  # art. 23.3
    assert cat.get("PRIVATE").private_rooms  # R16


def test_validity_spans_calendar_days() -> None:
    cat = CardCatalogue.from_config(DEFAULT_CARD_TYPES, "DAY")
    assert cat.get("DAY").validity(date(2026, 11, 28)) == (date(2026, 11, 28),) * 2
    card = cat.get("WEEK").new_card(date(2026, 12, 28))
    assert (card.valid_from, card.valid_until) == (date(2026, 12, 28), date(2027, 1, 3))
    assert card.price_cents == 2000


@pytest.mark.parametrize(
    ("items", "code"),
    [
        ([{"code": "DAY", "label_es": "x", "price_cents": -1}], "CARD_TYPE_BAD_PRICE"),
        ([{"code": "DAY", "label_es": "x"}], "CARD_TYPE_BAD"),
        ([{"code": "D Y", "label_es": "x", "price_cents": 1}], "CARD_TYPE_BAD_CODE"),
        ([{"code": "DAY", "label_es": "x", "price_cents": 1}] * 2, "CARD_TYPE_DUPLICATE"),
        ([{"code": "X", "label_es": "x", "price_cents": 1}], "UNKNOWN_CARD_TYPE"),
        ([{"code": "DAY", "label_es": "x", "price_cents": 1, "kind": "VIP"}], "CARD_TYPE_BAD"),
    ],
)
def test_bad_card_configuration_is_refused_with_a_code(
    items: list[dict[str, object]], code: str
) -> None:
    with pytest.raises(ConfigError) as err:
        CardCatalogue.from_config(items, "DAY")
    assert err.value.code == code


def test_unknown_card_type_requested() -> None:
    cat = CardCatalogue.from_config(DEFAULT_CARD_TYPES, "DAY")
    with pytest.raises(ConfigError) as err:
        cat.get("NOPE")
    assert err.value.code == "UNKNOWN_CARD_TYPE"

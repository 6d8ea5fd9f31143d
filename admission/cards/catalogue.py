"""Card types, prices and validity (art. 22-23; R7, R10, R16).

Card types are configuration: the casino sets the unit price and the cheaper
special cards (conventions, group trips, multi-day validity, users of
complementary services — art. 23.2-3). Prices are integer euro cents.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum, unique

from admission.codes import Code
from admission.errors import ConfigError
from admission.records import NewCard


@unique
class CardTypeErrorCode(Code):
    """Why the configured card types (art. 23.2-3) are refused."""

    CARD_TYPE_BAD = "CARD_TYPE_BAD"  # a field is missing or of the wrong kind
    CARD_TYPE_BAD_CODE = "CARD_TYPE_BAD_CODE"  # letters, digits and '_' only
    CARD_TYPE_BAD_PRICE = "CARD_TYPE_BAD_PRICE"  # negative
    CARD_TYPE_BAD_VALIDITY = "CARD_TYPE_BAD_VALIDITY"  # 1-366 days
    CARD_TYPE_DUPLICATE = "CARD_TYPE_DUPLICATE"
    UNKNOWN_CARD_TYPE = "UNKNOWN_CARD_TYPE"  # asked for, or the default, but not configured


class CardKind(StrEnum):
    STANDARD = "STANDARD"  # unit price (art. 23.2)
    CONVENTION = "CONVENTION"  # special cards, art. 23.3
    GROUP_TRIP = "GROUP_TRIP"
    MULTI_DAY = "MULTI_DAY"
    COMPLEMENTARY = "COMPLEMENTARY"  # users of complementary services
    INVITATION = "INVITATION"  # free invitation cards

    @property
    def special(self) -> bool:
        return self is not CardKind.STANDARD


@dataclass(frozen=True, slots=True)
class CardType:
    code: str
    label_es: str
    label_en: str
    kind: CardKind
    price_cents: int
    validity_days: int = 1  # 1 = the session of the issue date
    private_rooms: bool = False  # invitation to the private rooms (art. 26.2, R16)
    # art. 22: one person, one valid card. True: the holder comes back through the desk
    # on the same card while it is valid (a multi-day pass; the visit is checked and
    # recorded as admitted, no card issued). False: a second admission while the card
    # is valid is a re-entry on it, ALREADY_ADMITTED (the card is reprinted if lost).
    several_entries: bool = False

    def __post_init__(self) -> None:
        if not self.code or not self.code.replace("_", "").isalnum():
            raise ConfigError(
                "card type code must be alphanumeric", code=CardTypeErrorCode.CARD_TYPE_BAD_CODE
            )
        if self.price_cents < 0:
            raise ConfigError(
                "card price cannot be negative", code=CardTypeErrorCode.CARD_TYPE_BAD_PRICE
            )
        if not 1 <= self.validity_days <= 366:
            raise ConfigError(
                "validity must be 1-366 days", code=CardTypeErrorCode.CARD_TYPE_BAD_VALIDITY
            )

    def validity(self, issued_on: date) -> tuple[date, date]:
        """Valid from the Madrid issue date for ``validity_days`` calendar days
        (a one-day card covers the session that starts that day)."""
        return issued_on, issued_on + timedelta(days=self.validity_days - 1)

    def new_card(
        self, issued_on: date, *, exceptional: bool = False, authorised_by: str = ""
    ) -> NewCard:
        start, end = self.validity(issued_on)
        return NewCard(
            card_type=self.code,
            price_cents=self.price_cents,
            valid_from=start,
            valid_until=end,
            exceptional=exceptional,
            private_rooms=self.private_rooms,
            authorised_by=authorised_by,
        )


@dataclass(frozen=True, slots=True)
class CardCatalogue:
    types: Mapping[str, CardType]
    default: str

    def get(self, code: str | None) -> CardType:
        key = code or self.default
        try:
            return self.types[key]
        except KeyError:
            raise ConfigError(
                f"unknown card type {key!r}", code=CardTypeErrorCode.UNKNOWN_CARD_TYPE
            ) from None

    @property
    def reentry_types(self) -> frozenset[str]:
        """The types whose holder is admitted again on the same card while it is valid."""
        return frozenset(code for code, t in self.types.items() if t.several_entries)

    @classmethod
    def from_config(cls, items: Iterable[Mapping[str, object]], default: str) -> CardCatalogue:
        types: dict[str, CardType] = {}
        for item in items:
            try:
                card_type = CardType(
                    code=str(item["code"]),
                    label_es=str(item["label_es"]),
                    label_en=str(item.get("label_en", item["label_es"])),
                    kind=CardKind(str(item.get("kind", "STANDARD"))),
                    price_cents=_int(item["price_cents"]),
                    validity_days=_int(item.get("validity_days", 1)),
                    private_rooms=bool(item.get("private_rooms", False)),
                    several_entries=_flag(item.get("several_entries", False)),
                )
            except (KeyError, ValueError) as exc:
                raise ConfigError(
                    f"bad card type: {exc}", code=CardTypeErrorCode.CARD_TYPE_BAD
                ) from None
            if card_type.code in types:
                raise ConfigError("duplicate card type", code=CardTypeErrorCode.CARD_TYPE_DUPLICATE)
            types[card_type.code] = card_type
        if default not in types:
            raise ConfigError(
                "default card type not configured", code=CardTypeErrorCode.UNKNOWN_CARD_TYPE
            )
        return cls(types, default)


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("expected true or false")
    return value


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError("expected an integer")
    return int(value)


DEFAULT_CARD_TYPES: tuple[Mapping[str, object], ...] = (
    {
        "code": "DAY",
        "label_es": "Entrada de un día",
        "label_en": "One-day entry",
        "kind": "STANDARD",
        "price_cents": 500,
    },
    {
        "code": "WEEK",
        "label_es": "Abono 7 días",
        "label_en": "Seven-day pass",
        "kind": "MULTI_DAY",
        "price_cents": 2000,
        "validity_days": 7,
        "several_entries": True,  # a pass: its holder comes back on the same card
    },
    {
        "code": "CONVENTION",
        "label_es": "Congresos y convenciones",
        "label_en": "Conventions",
        "kind": "CONVENTION",
        "price_cents": 300,
    },
    {
        "code": "GROUP",
        "label_es": "Viaje de grupo",
        "label_en": "Group trip",
        "kind": "GROUP_TRIP",
        "price_cents": 300,
    },
    {
        "code": "DINNER",
        "label_es": "Cliente de restaurante",
        "label_en": "Restaurant guest",
        "kind": "COMPLEMENTARY",
        "price_cents": 0,
    },
    {
        "code": "PRIVATE",
        "label_es": "Invitación salas privadas",
        "label_en": "Private-room invitation",
        "kind": "INVITATION",
        "price_cents": 0,
        "private_rooms": True,
    },
)

"""What an entry card (tarjeta de entrada, art. 22.3, R7) shows, as plain text values.

The card is a Spanish legal document, so its printed labels are Spanish here (they are
part of the document, not of the user interface). The renderer in
``hardware/printer/render.py`` only lays these strings out; nothing here knows about PDF.

Text that came from a document or a reader is untrusted (STYLE.md rule 14): control
characters are dropped and lengths are bounded before anything reaches the card.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import date

from admission.cards.signed import MAX_SIGNED_TEXT
from admission.errors import InvalidStateError
from admission.ports import madrid_date
from admission.records import CardRecord, CardStatus, RecordErrorCode, Visitor

__all__ = [
    "FLAG_EXCEPTIONAL",
    "FLAG_PRIVATE_ROOMS",
    "FLAG_SPECIAL",
    "MAX_NAME",
    "CardField",
    "CardView",
    "build_card_view",
    "clean_text",
    "format_date",
    "format_euros",
    "format_number",
]

MAX_NAME = 160  # a 120-character name must still print on the card (art. 22.3: full name)
MAX_FIELD = 64

FLAG_EXCEPTIONAL = "EXCEPTIONAL"  # art. 23.5, R12
FLAG_SPECIAL = "SPECIAL"  # art. 23.3, R10
FLAG_PRIVATE_ROOMS = "PRIVATE_ROOMS"  # art. 26.2, R16

TITLE = "TARJETA DE ENTRADA"
LABEL_NAME = "Nombre y apellidos"
LABEL_DOCUMENT = "DNI / documento"
LABEL_FILE = "Ficha cliente"
LABEL_ISSUED = "Emisión"
LABEL_PRICE = "Precio"
LABEL_VALIDITY = "Validez"
LABEL_TYPE = "Tipo"
EXCEPTIONAL_PREFIX = "EXCEPCIONAL — autorizada por "  # art. 23.5
PRIVATE_ROOMS_TEXT = "INVITACIÓN A SALAS PRIVADAS"  # art. 26.2
SPECIAL_PREFIX = "TARJETA ESPECIAL: "  # art. 23.3


@dataclass(frozen=True, slots=True)
class CardField:
    label: str
    value: str


@dataclass(frozen=True, slots=True)
class CardView:
    """Everything printed on one card; every string is ready to draw.

    ``fields`` lists the R7 data in print order; ``marks`` are the visible flags
    (exceptional, special type, private rooms) in Spanish; ``flags`` the same as codes.
    """

    number: int
    casino_name: str
    title: str
    number_text: str
    holder_name: str
    document_number: str
    file_number: str
    issue_date: str
    price: str
    validity: str
    card_type_label: str
    code: str
    fields: tuple[CardField, ...]
    marks: tuple[str, ...]
    flags: tuple[str, ...]
    # the signed code (ADM2, admission/cards/signed.py) the QR carries, checked offline
    # on the floor (art. 22.4); ``code`` (ADM1) is printed under it for typing at a desk.
    # "" prints ``code`` in the QR too (a card rendered without the file's keys)
    signed_code: str = ""

    def __repr__(self) -> str:  # never put a name or document number into a log
        return f"CardView(number={self.number}, flags={self.flags})"


def clean_text(text: str, limit: int = MAX_FIELD) -> str:
    """Printable, NFC-normalised, single-spaced text of at most ``limit`` characters."""
    text = unicodedata.normalize("NFC", str(text))
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch)[0] != "C"
    )
    collapsed = " ".join(kept.split())
    if len(collapsed) > limit:
        collapsed = collapsed[: limit - 1].rstrip() + "…"
    return collapsed


def format_euros(cents: int) -> str:
    """Spanish style: ``1050`` → ``"10,50 €"``, ``123456`` → ``"1.234,56 €"``."""
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError("price must be integer cents")
    sign = "-" if cents < 0 else ""
    euros, rest = divmod(abs(cents), 100)
    grouped = f"{euros:,}".replace(",", ".")
    return f"{sign}{grouped},{rest:02d} €"


def format_date(day: date) -> str:
    return day.strftime("%d/%m/%Y")


def format_number(number: int) -> str:
    """Plain decimal, as in the card code and the command line (no padding)."""
    return f"Nº {number}"


def format_validity(valid_from: date, valid_until: date) -> str:
    if valid_from == valid_until:
        return format_date(valid_from)
    return f"{format_date(valid_from)} – {format_date(valid_until)}"


def build_card_view(
    card: CardRecord,
    visitor: Visitor,
    *,
    document_number: str,
    casino_name: str,
    card_type_label: str,
    code: str,
    special: bool = False,
    signed_code: str = "",
) -> CardView:
    """The printed content of ``card`` for ``visitor``.

    ``document_number`` is the number of the document presented at this visit
    (VisitRecord.document_number); ``card_type_label`` and ``special`` come from the
    card-type configuration (R10); ``code`` is ``encode_card_code(...)`` of the number,
    ``signed_code`` the card's signed code for the QR (art. 22.4).
    A voided card cannot be printed.
    """
    if card.status is CardStatus.VOIDED:
        raise InvalidStateError("a voided card is never printed", code=RecordErrorCode.CARD_VOIDED)
    if card.file_number != visitor.file_number:
        raise InvalidStateError(
            "card and visitor do not match", code=RecordErrorCode.CARD_VISITOR_MISMATCH
        )
    holder = clean_text(f"{visitor.given_names} {visitor.surname}", MAX_NAME)
    document = clean_text(document_number, MAX_FIELD) or "—"
    label = clean_text(card_type_label, MAX_FIELD)
    view_fields = (
        CardField(LABEL_NAME, holder),
        CardField(LABEL_DOCUMENT, document),
        CardField(LABEL_FILE, str(card.file_number)),
        CardField(LABEL_ISSUED, format_date(madrid_date(card.issued_at))),
        CardField(LABEL_VALIDITY, format_validity(card.valid_from, card.valid_until)),
        CardField(LABEL_PRICE, format_euros(card.price_cents)),
        CardField(LABEL_TYPE, label),
    )
    marks: list[str] = []
    flags: list[str] = []
    if card.exceptional:
        who = clean_text(card.authorised_by, MAX_FIELD) or "el director de juegos"
        marks.append(EXCEPTIONAL_PREFIX + who)
        flags.append(FLAG_EXCEPTIONAL)
    if special:
        marks.append(SPECIAL_PREFIX + label)
        flags.append(FLAG_SPECIAL)
    if card.private_rooms:
        marks.append(PRIVATE_ROOMS_TEXT)
        flags.append(FLAG_PRIVATE_ROOMS)
    return CardView(
        number=card.number,
        casino_name=clean_text(casino_name, MAX_FIELD),
        title=TITLE,
        number_text=format_number(card.number),
        holder_name=holder,
        document_number=document,
        file_number=str(card.file_number),
        issue_date=view_fields[3].value,
        price=view_fields[5].value,
        validity=view_fields[4].value,
        card_type_label=label,
        code=clean_text(code, MAX_FIELD),
        fields=view_fields,
        marks=tuple(marks),
        flags=tuple(flags),
        signed_code=clean_text(signed_code, MAX_SIGNED_TEXT),
    )

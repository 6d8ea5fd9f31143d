"""The desk's text helpers, shared by the window, its widgets, menus and dialogs: the
catalogue's text of a code in the desk's language, untrusted text made safe to show
(STYLE.md rule 14: what comes from documents, readers, the register or the settings is
never rich text, and is bounded in length), and dates and instants as Madrid shows them.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from zoneinfo import ZoneInfo

from admission.cards.catalogue import CardType
from admission.catalogue import text

__all__ = [
    "MADRID",
    "MAX_SHOWN",
    "bounded",
    "card_type_label",
    "language",
    "local_date",
    "local_time",
    "message",
    "set_language",
]

MADRID = ZoneInfo("Europe/Madrid")
MAX_SHOWN = 200  # characters of one shown value
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

_language = "es"


def set_language(lang: str) -> None:
    """The language of the catalogue's texts (the app shell sets it with its translator)."""
    global _language
    _language = "en" if lang.lower().startswith("en") else "es"


def message(code: str) -> str:
    """The catalogue's text of ``code`` in the desk's language (Spanish by default)."""
    return text(code, _language)


def language() -> str:
    """The desk's language ("es" or "en"), as ``ui.desk.i18n.install_translator`` set it."""
    return _language


def bounded(value: object, limit: int = MAX_SHOWN) -> str:
    """Untrusted text made safe to show: control characters dropped, length bounded."""
    cleaned = _CONTROL.sub(" ", str(value)).strip()
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def card_type_label(kind: CardType, limit: int = 60) -> str:
    """A card type's label on screen, in the desk's language (printed papers keep the
    Spanish label)."""
    return bounded(kind.label_en if _language == "en" else kind.label_es, limit)


def local_time(at: datetime | None) -> str:
    """A UTC instant as Madrid wall-clock text."""
    if at is None:
        return ""
    return at.astimezone(MADRID).strftime("%d/%m/%Y %H:%M")


def local_date(day: date | None) -> str:
    return "" if day is None else day.strftime("%d/%m/%Y")

"""The text people read for every code: Spanish first, then English (STYLE.md rule 13).

The domain answers with codes (members of :class:`admission.codes.Code` enums); the
screens, printed reports and the command line's human output turn them into text here,
in one place, for the clerk at the counter, the game director and the gaming inspector.
Texts are short, plain and precise, and cite the regulation (Decreto 58/2006) where the
article is what the person needs to know.

The catalogue is keyed by the code's value: one value has one meaning in every feature
(``REASON_REQUIRED`` is the same refusal at the desk, in the card book and for a
voucher). A code without text shows as itself, never as an error: :func:`text` does not
raise. The texts live by topic in this package's modules (``documents``, ``desk``,
``visitor_file``, ``devices``, ``registry``, ``screens``, ``server``), each a ``TEXTS``
dict; a code given a text in two of them stops the import. ``tests/test_catalogue.py``
checks that every member of every ``Code`` enum has both texts here and that no text is
left for a code nobody declares.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from admission.catalogue import (
    chip,
    desk,
    devices,
    documents,
    registry,
    screens,
    server,
    visitor_file,
)

__all__ = ["LANGUAGES", "Entry", "entries", "missing_texts", "text", "unused_texts"]

LANGUAGES = ("es", "en")  # Spanish first: the desk's working language


def _merged(*parts: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """The topics' texts as one catalogue; a code with a text in two topics is an error."""
    merged: dict[str, tuple[str, str]] = {}
    for part in parts:
        twice = merged.keys() & part.keys()
        if twice:
            raise ValueError(f"codes with a text in two topics of the catalogue: {sorted(twice)}")
        merged.update(part)
    return merged


# code value -> (Spanish, English); grouped by feature, then by the enum that declares it.
_TEXTS = _merged(
    visitor_file.TEXTS,
    documents.TEXTS,
    desk.TEXTS,
    devices.TEXTS,
    registry.TEXTS,
    screens.TEXTS,
    server.TEXTS,
    chip.TEXTS,
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One code and its texts."""

    code: str
    es: str
    en: str

    def text(self, lang: str = "es") -> str:
        return self.en if _language(lang) == "en" else self.es


def _language(lang: str) -> str:
    """``"en"``, ``"en_GB"`` or ``"en-US"`` -> ``"en"``; anything unknown -> Spanish."""
    base = lang.replace("-", "_").split("_", 1)[0].lower() if isinstance(lang, str) else ""
    return base if base in LANGUAGES else LANGUAGES[0]


def text(code: str, lang: str = "es") -> str:
    """The text of ``code`` in ``lang`` (a language or a locale name such as ``en_GB``).

    An unknown code comes back as itself, an unknown language gets Spanish; never raises.
    """
    key = code if isinstance(code, str) else str(code)
    pair = _TEXTS.get(key)
    if pair is None:
        return key
    return pair[LANGUAGES.index(_language(lang))]


def entries() -> tuple[Entry, ...]:
    """Every code with its texts, in the catalogue's order (grouped by feature)."""
    return tuple(Entry(code, es, en) for code, (es, en) in _TEXTS.items())


def missing_texts(enums: Iterable[type[Enum]]) -> list[str]:
    """``module.Enum.MEMBER`` of every member of ``enums`` whose Spanish or English text is
    missing, empty or just the code (pass ``admission.codes.all_code_enums()``)."""
    missing: list[str] = []
    for enum_class in enums:
        for member in enum_class:
            value = str(member.value)
            texts = _TEXTS.get(value, ("", ""))
            if any(not t.strip() or t.strip() in (value, member.name) for t in texts):
                missing.append(f"{enum_class.__module__}.{enum_class.__qualname__}.{member.name}")
    return missing


def unused_texts(enums: Iterable[type[Enum]]) -> list[str]:
    """Codes with a text here that no member of ``enums`` declares (dead text)."""
    declared = {str(member.value) for enum_class in enums for member in enum_class}
    return [code for code in _TEXTS if code not in declared]

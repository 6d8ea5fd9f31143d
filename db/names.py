"""Accent- and case-insensitive name words for the visitor search (pure functions)."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W_]+")
MAX_WORDS = 12  # untrusted input: bound the number of words stored or searched


def fold(text: str) -> str:
    """Accents removed and upper case: ``"Peña Núñez"`` → ``"PENA NUNEZ"``."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).upper()


def words(*parts: str) -> list[str]:
    """Distinct folded words of the given texts, in first-seen order."""
    return list(dict.fromkeys(w for part in parts for w in _WORD.findall(fold(part))))[:MAX_WORDS]


def search_name(surname: str, given_names: str) -> str:
    """The folded sort form ``"SURNAME, GIVEN"``."""
    return f"{fold(surname).strip()}, {fold(given_names).strip()}"


def prefix_range(prefix: str) -> tuple[str, str]:
    """Half-open text range ``[low, high)`` of the words starting with ``prefix``."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def matches(query_words: list[str], visitor_words: list[str]) -> bool:
    """Every query word is a prefix of some visitor word (the fake's search)."""
    return all(any(w.startswith(q) for w in visitor_words) for q in query_words)

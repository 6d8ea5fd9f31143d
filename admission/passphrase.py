"""The visitor file's passphrase, when no OS keyring keeps a random key (DESIGN.md: the
key never touches the disk in clear). Whoever knows it opens the file (art. 20.4:
confidential), and nobody can recover it: it must be hard to guess and written down
somewhere safe.

The rule, without a dictionary library: at least :data:`MIN_LENGTH` characters, and
either :data:`MIN_WORDS` words of three letters or more (a sentence is easy to remember
and hard to guess) or three of the four kinds of character (lower case, upper case,
digits, others); at least :data:`MIN_DISTINCT` different characters (no ``aaaa...``,
no ``1212...``).
"""

from __future__ import annotations

import re
from enum import unique

from admission.codes import Code

__all__ = ["MAX_LENGTH", "MIN_LENGTH", "PassphraseCode", "passphrase_problem"]

MIN_LENGTH = 12
MAX_LENGTH = 256
MIN_WORDS = 4
MIN_DISTINCT = 8
_WORD = re.compile(r"[^\W\d_]{3,}")


@unique
class PassphraseCode(Code):
    """Why a passphrase chosen for the visitor file is refused."""

    PASSPHRASE_TOO_SHORT = "PASSPHRASE_TOO_SHORT"
    PASSPHRASE_TOO_LONG = "PASSPHRASE_TOO_LONG"
    PASSPHRASE_TOO_SIMPLE = "PASSPHRASE_TOO_SIMPLE"  # few kinds of character, few words
    PASSPHRASE_BAD_CHARACTER = "PASSPHRASE_BAD_CHARACTER"  # a control character


def _kinds(text: str) -> int:
    return sum(
        (
            any(c.islower() for c in text),
            any(c.isupper() for c in text),
            any(c.isdigit() for c in text),
            any(not c.isalnum() and not c.isspace() for c in text),
        )
    )


def passphrase_problem(text: str) -> PassphraseCode | None:
    """None when ``text`` may protect the visitor file, else why not."""
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        return PassphraseCode.PASSPHRASE_BAD_CHARACTER
    if len(text) > MAX_LENGTH:
        return PassphraseCode.PASSPHRASE_TOO_LONG
    if len(text.strip()) < MIN_LENGTH:
        return PassphraseCode.PASSPHRASE_TOO_SHORT
    if len(set(text.lower()) - {" "}) < MIN_DISTINCT:
        return PassphraseCode.PASSPHRASE_TOO_SIMPLE
    words = {w.lower() for w in _WORD.findall(text)}
    if len(words) < MIN_WORDS and _kinds(text) < 3:
        return PassphraseCode.PASSPHRASE_TOO_SIMPLE
    return None

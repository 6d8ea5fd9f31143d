"""The visitor file's passphrase without a keyring: long, and either several words or
several kinds of character; never a repetition."""

from __future__ import annotations

import pytest

from admission.passphrase import PassphraseCode, passphrase_problem


@pytest.mark.parametrize(
    "text",
    [
        "caballo correcto grapa batería",  # four words
        "la ruleta gira de noche en Madrid",
        "Gran-Via-1919!",  # 14 characters, four kinds
        "casino2026GRANVIA",  # three kinds
    ],
)
def test_passphrases_hard_to_guess_are_accepted(text: str) -> None:
    assert passphrase_problem(text) is None


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", PassphraseCode.PASSPHRASE_TOO_SHORT),
        ("Corta-1!", PassphraseCode.PASSPHRASE_TOO_SHORT),
        ("            x", PassphraseCode.PASSPHRASE_TOO_SHORT),  # spaces do not count
        ("micasinomadrid", PassphraseCode.PASSPHRASE_TOO_SIMPLE),  # one word, one kind
        ("micasino2026", PassphraseCode.PASSPHRASE_TOO_SIMPLE),  # two kinds, one word
        ("aaaaaaaaaaaaaaA1!", PassphraseCode.PASSPHRASE_TOO_SIMPLE),  # few characters
        ("121212121212121212", PassphraseCode.PASSPHRASE_TOO_SIMPLE),
        ("casa casa casa casa", PassphraseCode.PASSPHRASE_TOO_SIMPLE),  # one word, 4 times
        ("x" * 257, PassphraseCode.PASSPHRASE_TOO_LONG),
        ("buena frase de paso\x00larga", PassphraseCode.PASSPHRASE_BAD_CHARACTER),
    ],
)
def test_passphrases_easy_to_guess_are_refused_with_a_code(text: str, code: PassphraseCode) -> None:
    assert passphrase_problem(text) is code

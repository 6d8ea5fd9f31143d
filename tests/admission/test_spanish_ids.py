"""DNI / NIE check letters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from admission.spanish_ids import dni_check_letter, is_valid_dni, is_valid_nie, normalise


@pytest.mark.parametrize(
    ("number", "letter"),
    [(0, "T"), (1, "R"), (22, "E"), (23, "T"), (12345678, "Z"), (99999999, "R"), (23, "T")],
)
def test_check_letter_table(number: int, letter: str) -> None:
    assert dni_check_letter(number) == letter


def test_check_letter_range() -> None:
    with pytest.raises(ValueError):
        dni_check_letter(-1)
    with pytest.raises(ValueError):
        dni_check_letter(100_000_000)


def test_valid_dni_and_nie() -> None:
    assert is_valid_dni("12345678Z") and is_valid_dni("99999999R") and is_valid_dni("00000023T")
    assert not is_valid_dni("12345678A") and not is_valid_dni("1234567Z")
    assert not is_valid_dni("X1234567L")
    assert is_valid_nie("X1234567L") and is_valid_nie("Y1234567X") and is_valid_nie("Z1234567R")
    assert not is_valid_nie("X1234567A") and not is_valid_nie("12345678Z")


def test_normalise() -> None:
    assert normalise(" 12.345.678-z ") == "12345678Z"
    assert normalise("1234567-l") == "01234567L"
    assert normalise("x-1234567-l") == "X1234567L"
    assert normalise("X123456L") == "X0123456L"


@given(st.integers(min_value=0, max_value=99_999_999), st.sampled_from("TRWAGMYFPDXBNJZSQVHLCKE"))
def test_exactly_one_letter_is_valid(number: int, letter: str) -> None:
    text = f"{number:08d}{letter}"
    assert is_valid_dni(text) == (letter == dni_check_letter(number))
    nie = "XYZ"[number % 3] + f"{number % 10_000_000:07d}" + letter
    assert is_valid_nie(nie) == (
        letter == dni_check_letter(int(str(number % 3) + f"{number % 10_000_000:07d}"))
    )

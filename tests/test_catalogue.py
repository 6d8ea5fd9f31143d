"""Every code a person can see has Spanish and English text, and no text is dead (rule 13).

The enums are collected, not listed: every module of the product is imported, then
``admission.codes.all_code_enums()`` names every ``Code`` enum that exists, so a feature
that adds an enum is checked the day it lands. A module that fails to import fails here
too: its codes would otherwise go unchecked.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import pkgutil
import traceback
from collections.abc import Callable
from enum import Enum

import pytest

from admission import catalogue
from admission.codes import Code, all_code_enums
from admission.verdict import Reason

PACKAGES = ("admission", "db", "hardware")  # always imported: the domain and its adapters
OPTIONAL = ("ui", "main")  # the interface and the composition root, when Qt is installed
MAX_TEXT = 100  # one line of a status bar or a printed report


def _import_tree(name: str, failures: dict[str, str]) -> None:
    try:
        package = importlib.import_module(name)
    except Exception:
        failures[name] = traceback.format_exc(limit=3)
        return
    if not hasattr(package, "__path__"):
        return
    for info in pkgutil.walk_packages(package.__path__, name + ".", onerror=_record(failures)):
        try:
            importlib.import_module(info.name)
        except Exception:
            failures[info.name] = traceback.format_exc(limit=3)


def _record(failures: dict[str, str]) -> Callable[[str], None]:
    def onerror(name: str) -> None:
        failures[name] = traceback.format_exc(limit=3)

    return onerror


@pytest.fixture(scope="module")
def import_failures() -> dict[str, str]:
    failures: dict[str, str] = {}
    roots = list(PACKAGES)
    if importlib.util.find_spec("PySide6") is not None:
        roots += OPTIONAL
    for root in roots:
        _import_tree(root, failures)
    return failures


def product_enums() -> list[type[Enum]]:
    """The ``Code`` enums of the product (a test's own throwaway enums are not product)."""
    roots = set(PACKAGES) | set(OPTIONAL)
    return [e for e in all_code_enums() if e.__module__.split(".")[0] in roots]


def test_every_module_of_the_product_imports(import_failures: dict[str, str]) -> None:
    assert not import_failures, "modules that do not import (their codes go unchecked):\n" + (
        "\n".join(f"--- {name}\n{trace}" for name, trace in import_failures.items())
    )


def test_every_code_has_spanish_and_english_text(import_failures: dict[str, str]) -> None:
    enums = product_enums()
    assert Reason in enums, "the collection found no enums at all"
    missing = catalogue.missing_texts(enums)
    assert not missing, (
        f"{len(missing)} codes have no Spanish and English text in admission/catalogue/:\n  "
        + "\n  ".join(f"{name} = {_value(name)}" for name in missing)
    )
    assert not import_failures, f"not checked, they do not import: {sorted(import_failures)}"


def test_no_text_for_a_code_nobody_declares(import_failures: dict[str, str]) -> None:
    assert not import_failures, f"cannot tell, they do not import: {sorted(import_failures)}"
    dead = catalogue.unused_texts(product_enums())
    assert not dead, f"texts in admission/catalogue/ for codes no enum declares: {dead}"


def test_the_checkers_flag_a_code_without_text_and_a_dead_text() -> None:
    # Given the enums as an argument, so this throwaway never reaches the tests above.
    class Throwaway(Code):
        TEXTLESS = "CATALOGUE_TEST_TEXTLESS"
        MINOR = "MINOR"  # has text: not flagged

    try:
        assert catalogue.missing_texts([Throwaway]) == [
            f"{__name__}.{Throwaway.__qualname__}.TEXTLESS"
        ]
        assert catalogue.missing_texts([Reason]) == []
        dead = catalogue.unused_texts([Throwaway])
        assert "MINOR" not in dead and "REGISTRY_LISTED" in dead
        assert "CATALOGUE_TEST_TEXTLESS" not in dead
    finally:
        del Throwaway
        gc.collect()  # a class lives in a reference cycle: let all_code_enums() forget it


def test_texts_are_one_short_line_and_differ_between_languages() -> None:
    for entry in catalogue.entries():
        for text in (entry.es, entry.en):
            assert text == text.strip() and text.isprintable(), entry.code
            assert len(text) <= MAX_TEXT, (entry.code, len(text))
        assert entry.es != entry.en, entry.code


def test_text_falls_back_and_never_raises() -> None:
    assert catalogue.LANGUAGES == ("es", "en")
    assert catalogue.text("MINOR") == "Menor de edad: no puede entrar (art. 21.1)"
    assert catalogue.text(Reason.MINOR, "en") == "Under 18: may not enter (art. 21.1)"
    assert catalogue.text("MINOR", "en_GB") == catalogue.text("MINOR", "en-US")
    assert catalogue.text("MINOR", "fr") == catalogue.text("MINOR", "es")  # Spanish first
    assert catalogue.text("NOT_A_CODE_AT_ALL", "en") == "NOT_A_CODE_AT_ALL"
    assert catalogue.text("") == ""


def test_entries_list_every_text_once() -> None:
    codes = [entry.code for entry in catalogue.entries()]
    assert len(codes) == len(set(codes))
    first = catalogue.entries()[0]
    assert first.text("en") == catalogue.text(first.code, "en")
    assert first.text() == catalogue.text(first.code)


def _value(qualified: str) -> str:
    """``module.Enum.MEMBER`` -> the member's value, for the failure message."""
    member_name = qualified.rsplit(".", 1)[1]
    for enum_class in product_enums():
        if qualified == f"{enum_class.__module__}.{enum_class.__qualname__}.{member_name}":
            return str(enum_class[member_name].value)
    return "?"

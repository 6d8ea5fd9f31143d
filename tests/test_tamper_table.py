"""docs/tamper-table.md is the table of the tampers the tests perform on both stores and
the code ``audit verify`` answers to each (art. 20.4): generated from the same cases, so
it cannot drift from what is tested (tests/tamper_table.py)."""

from __future__ import annotations

from tests.tamper_table import DOC, _cases, render


def test_the_tamper_table_is_the_one_the_tests_perform() -> None:
    expected = render(_cases())
    assert DOC.read_text("utf-8") == expected, (
        "docs/tamper-table.md differs from the tested cases: "
        "run .venv/bin/python -m tests.tamper_table --write"
    )


def test_each_store_has_its_cases_and_every_code_is_in_the_catalogue() -> None:
    from admission.catalogue import entries

    catalogued = {entry.code for entry in entries()}
    stores = dict(_cases())
    assert set(stores) == {"SQLCipher file", "PostgreSQL"}
    for cases in stores.values():
        assert len({c.name for c in cases}) == len(cases) >= 10
        for case in cases:
            assert case.code in catalogued, case.code

"""The inspectors' reads (db/inspection.py, through the store) on a real demo visitor
file: every criterion, alone and together, and hostile text bound as a value (art. 20.4)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from admission.inspection import SearchCriteria
from admission.ports import madrid_date
from db import inspection
from tests.factories import dni, dni_document
from ui.context import AppContext


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[AppContext]:
    from main import build_context, build_tools

    tools = build_tools(tmp_path, demo=True)
    tools.init_file()
    context = build_context(tools)
    try:
        today = madrid_date(context.clock.now())
        snapshot = [b"# RIAJ snapshot (invented)\n", f"{dni(99999999)}\n".encode()]
        context.replica.import_lines(snapshot)  # a register to check against: cards issue
        people = [
            (12345678, "PEÑA NÚÑEZ", "JOSÉ"),
            (23456789, "GARCÍA LÓPEZ", "ANA"),
            (34567890, "PEÑALVER", "MARÍA"),
        ]
        for number, surname, given in people:
            doc = dni_document(number, surname=surname, given_names=given, today=today)
            context.desk.admit(doc, operator="ana")
        yield context
    finally:
        context.close()


def _find(ctx: AppContext, **criteria: object) -> list[str]:
    found = ctx.store.inspect_visitors(SearchCriteria(**criteria), 50)  # type: ignore[arg-type]
    return [v.surname for v in found]


def test_a_partial_name_is_found_accents_and_case_ignored(ctx: AppContext) -> None:
    assert _find(ctx, name="pena") == ["PENA NUNEZ", "PENALVER"]
    assert _find(ctx, name="Peña") == ["PENA NUNEZ", "PENALVER"]  # the MRZ has no accents
    assert _find(ctx, name="nunez jo") == ["PENA NUNEZ"]
    assert _find(ctx, name="garcia") == ["GARCIA LOPEZ"]


def test_the_identity_number_card_and_file_number_find_one_person(ctx: AppContext) -> None:
    assert _find(ctx, id_number=dni(23456789)) == ["GARCIA LOPEZ"]
    assert _find(ctx, id_number="2345678") == []  # a number, not a prefix
    reader = ctx.store
    ana = reader.inspect_visitors(SearchCriteria(name="ana"), 5)[0]
    visits = reader.visits(ana.file_number)
    assert len(visits) == 1 and visits[0].card_number is not None
    assert _find(ctx, card=visits[0].card_number) == ["GARCIA LOPEZ"]
    assert _find(ctx, file_number=ana.file_number) == ["GARCIA LOPEZ"]
    card = reader.card(visits[0].card_number)
    assert card is not None and card.file_number == ana.file_number


def test_a_date_range_finds_the_visits_inside_it(ctx: AppContext) -> None:
    now = ctx.clock.now()
    assert (
        len(_find(ctx, visits_from=now - timedelta(hours=1), visits_until=now + timedelta(hours=1)))
        == 3
    )
    assert _find(ctx, visits_until=now - timedelta(days=1)) == []
    assert _find(ctx, visits_from=now + timedelta(days=1)) == []
    assert _find(ctx, name="pena", visits_from=now - timedelta(hours=1)) == [
        "PENA NUNEZ",
        "PENALVER",
    ]


def test_an_observation_text_is_found_literally(ctx: AppContext) -> None:
    reader = ctx.store
    ana = reader.inspect_visitors(SearchCriteria(name="ana"), 5)[0]
    ctx.store.add_observation(
        ana.file_number, "Discusión en la mesa 3 (50% de la apuesta)", "dora", ctx.clock.now()
    )
    assert _find(ctx, observation="MESA 3") == ["GARCIA LOPEZ"]
    assert _find(ctx, observation="50%") == ["GARCIA LOPEZ"]
    assert _find(ctx, observation="5_%") == []  # % and _ are characters, not wildcards
    # every letter's case is folded, as on the server (str.lower), not ASCII only
    assert _find(ctx, observation="DISCUSIÓN") == ["GARCIA LOPEZ"]
    assert _find(ctx, observation="discusión en la MESA") == ["GARCIA LOPEZ"]


def test_the_letters_folded_to_ascii_are_all_known() -> None:
    """The observations' first pass reads with fold() only the texts holding one of them."""
    found = tuple(
        c
        for c in map(chr, range(0x80, 0x110000))
        if not 0xD800 <= ord(c) < 0xE000 and any(x.isascii() for x in c.lower())
    )
    assert found == inspection.FOLDED_TO_ASCII


@pytest.mark.parametrize(
    "hostile",
    ["%", "_", "%%", "' OR 1=1 --", "'; DROP TABLE visits; --", '"', "\\", "PEÑA%"],
)
def test_hostile_text_is_a_value_never_sql(ctx: AppContext, hostile: str) -> None:
    assert _find(ctx, observation=hostile) == []
    found = _find(ctx, name=hostile)
    assert found in ([], ["PENA NUNEZ", "PENALVER"])  # "PEÑA%" is the word PEÑA
    assert _find(ctx, name="garcia") == ["GARCIA LOPEZ"]  # nothing was dropped
    assert len(ctx.store.visits(1)) == 1


def test_no_criterion_reads_nothing(ctx: AppContext) -> None:
    assert _find(ctx) == []

"""Observations on the visitor file (art. 20.3): who may add one, what text is kept,
and the refusals - on the fake store with an injected clock."""

from __future__ import annotations

import pytest

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.clock import FixedClock
from admission.observations import ObservationCode, ObservationError, ObservationService
from tests.db.factories import T0, entry
from tests.fake_store import FakeStore

CLERK = Operator("clerk1", "Clerk One", frozenset({Role.CLERK}))
DIRECTOR = Operator("director1", "Director One", frozenset({Role.DIRECTOR}))
INSPECTOR = Operator("insp1", "Inspector", frozenset({Role.INSPECTOR}))
ADMIN = Operator("admin1", "Admin", frozenset({Role.ADMIN}))


@pytest.fixture
def store() -> FakeStore:
    made = FakeStore(FixedClock(T0))
    made.record_admission(entry(1))
    return made


def _code(service: ObservationService, who: Operator, number: object, note: object) -> str:
    with pytest.raises(ObservationError) as err:
        service.add(who, number, note)  # type: ignore[arg-type]
    return str(err.value.code)


def test_the_clerk_and_the_director_add_one_under_their_name(store: FakeStore) -> None:
    service = ObservationService(store, FixedClock(T0))
    made = service.add(CLERK, 1, "  Pidió   hoja de\treclamaciones ")
    assert (made.text, made.author, made.at) == ("Pidió hoja de reclamaciones", "clerk1", T0)
    service.add(DIRECTOR, 1, "Permiso del director para la sala privada")
    assert [o.author for o in store.observations(1)] == ["clerk1", "director1"]
    assert [a.actor for a in store.audit_entries() if a.action == "OBSERVATION"] == [
        "clerk1",
        "director1",
    ]


@pytest.mark.parametrize("who", [INSPECTOR, ADMIN])
def test_an_inspector_or_an_administrator_only_reads(store: FakeStore, who: Operator) -> None:
    service = ObservationService(store, FixedClock(T0))
    assert _code(service, who, 1, "nota") == ObservationCode.OBSERVATION_ROLE_REQUIRED
    assert store.observations(1) == []


@pytest.mark.parametrize(
    "note",
    ["", "   ", "a" * 501, "línea\x00oculta", "bip\x07", "\u202eoculto", 42, None],
)
def test_a_text_that_cannot_be_kept_is_refused(store: FakeStore, note: object) -> None:
    service = ObservationService(store, FixedClock(T0))
    assert _code(service, CLERK, 1, note) == ObservationCode.OBSERVATION_TEXT_INVALID
    assert store.observations(1) == []


def test_the_longest_text_is_kept_whole(store: FakeStore) -> None:
    service = ObservationService(store, FixedClock(T0))
    assert service.add(CLERK, 1, "ñ" * 500).text == "ñ" * 500


@pytest.mark.parametrize("number", [2, 0, -1, True, "1", 2**63])
def test_an_unknown_file_is_refused(store: FakeStore, number: object) -> None:
    service = ObservationService(store, FixedClock(T0))
    assert _code(service, CLERK, number, "nota") == ObservationCode.OBSERVATION_FILE_UNKNOWN


def test_every_refusal_has_its_words() -> None:
    for code in ObservationCode:
        assert text(code, "es") != code and text(code, "en") != code

"""The data-protection service (admission/data_protection.py) over the fake store: who
may rectify (the game director only) and see the retention view, the reason, the new
values, hostile input, the audit entry and the retention overview (art. 20.4; GDPR
arts. 5.1.e and 16)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from admission.accounts import Operator, Role
from admission.clock import FixedClock
from admission.data_protection import (
    DataProtectionCode,
    DataProtectionError,
    DataProtectionService,
    clean_name,
    passes_retention,
)
from admission.retention import retention_cutoff
from tests.db.factories import entry
from tests.fake_store import FakeStore

NOW = datetime(2026, 12, 3, 20, 0, tzinfo=UTC)
REASON = "Solicitud del interesado de 1/12/2026"
DIRECTOR = Operator("dora", "Dora", frozenset({Role.DIRECTOR}))
INSPECTOR = Operator("ines", "Inés", frozenset({Role.INSPECTOR}))
CLERK = Operator("ana", "Ana", frozenset({Role.CLERK}))
ADMIN = Operator("jefa", "Jefa", frozenset({Role.ADMIN}))
NOBODY = Operator("x", "X", frozenset())
ALL_BUT_DIRECTOR = frozenset({Role.ADMIN, Role.CLERK, Role.INSPECTOR})


@pytest.fixture
def store() -> FakeStore:
    fake = FakeStore(FixedClock(NOW))
    fake.record_admission(entry(1, NOW - timedelta(days=3), surname="GARCIA", given_names="ANA"))
    fake.record_admission(entry(2, NOW - timedelta(days=2), surname="LOPEZ", given_names="LUIS"))
    fake.add_observation(1, "Nota original", "op-7", NOW - timedelta(days=3))
    return fake


@pytest.fixture
def service(store: FakeStore) -> DataProtectionService:
    return DataProtectionService(store, FixedClock(NOW))


def _note_id(store: FakeStore) -> int:
    return store.observations(1)[0].observation_id


def _rectified(store: FakeStore) -> list[object]:
    return [e for e in store.audit_entries(0, 10_000) if e.action == "RECTIFIED"]


# -- who may ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "who", [INSPECTOR, CLERK, ADMIN, NOBODY, Operator("all", "All", ALL_BUT_DIRECTOR)]
)
def test_only_the_director_rectifies(
    service: DataProtectionService, store: FakeStore, who: Operator
) -> None:
    head = store.head()
    with pytest.raises(DataProtectionError) as err:
        service.rectify_name(who, 1, "GARCIA", "ANNA", REASON)
    assert err.value.code == DataProtectionCode.RECTIFY_ROLE_REQUIRED
    with pytest.raises(DataProtectionError) as err:
        service.rectify_observation(who, 1, _note_id(store), "Otra", REASON)
    assert err.value.code == DataProtectionCode.RECTIFY_ROLE_REQUIRED
    assert store.head() == head and store.visitor(1).given_names == "ANA"  # type: ignore[union-attr]


def test_the_role_is_checked_before_anything_else(service: DataProtectionService) -> None:
    with pytest.raises(DataProtectionError) as err:
        service.rectify_name(CLERK, 99, "", "", "")
    assert err.value.code == DataProtectionCode.RECTIFY_ROLE_REQUIRED


@pytest.mark.parametrize(
    ("who", "allowed"),
    [(DIRECTOR, True), (ADMIN, True), (INSPECTOR, True), (CLERK, False), (NOBODY, False)],
)
def test_the_retention_view_roles(
    service: DataProtectionService, who: Operator, allowed: bool
) -> None:
    if allowed:
        assert service.retention(who).visits == 2
    else:
        with pytest.raises(DataProtectionError) as err:
            service.retention(who)
        assert err.value.code == DataProtectionCode.RETENTION_ROLE_REQUIRED


# -- rectifying ------------------------------------------------------------------------


def test_a_name_is_rectified_upper_case_and_audited(
    service: DataProtectionService, store: FakeStore
) -> None:
    changed = service.rectify_name(DIRECTOR, 1, "  garcía   lópez ", "ana maría", REASON)
    assert (changed.surname, changed.given_names) == ("GARCÍA LÓPEZ", "ANA MARÍA")
    assert [v.file_number for v in store.search_visitors("garcia lopez")] == [1]
    [audit] = _rectified(store)
    assert audit.actor == "dora" and audit.at == NOW  # type: ignore[attr-defined]
    details = audit.details  # type: ignore[attr-defined]
    assert details["fields"] == "surname,given_names" and details["reason"] == REASON
    assert details["role"] == "DIRECTOR"
    assert details["old_surname"] == store.keyed_hash("GARCIA")
    assert "GARCIA" not in str(details.values()).replace(store.keyed_hash("GARCIA"), "")
    assert store.verify().ok


def test_an_observation_is_rectified(service: DataProtectionService, store: FakeStore) -> None:
    note = _note_id(store)
    changed = service.rectify_observation(DIRECTOR, 1, note, " Nota   corregida ", REASON)
    assert (changed.text, changed.observation_id, changed.author) == (
        "Nota corregida",
        note,
        "op-7",
    )
    assert store.observations(1)[0].text == "Nota corregida"
    assert store.verify().ok


@pytest.mark.parametrize(
    "reason", ["", "ab", "  a  ", "x" * 201, "x" * 10_000, "motivo\x00oculto", "motivo\x1b[2J", 7]
)
def test_a_bad_reason_is_refused(
    service: DataProtectionService, store: FakeStore, reason: object
) -> None:
    with pytest.raises(DataProtectionError) as err:
        service.rectify_name(DIRECTOR, 1, "GARCIA", "ANNA", reason)  # type: ignore[arg-type]
    assert err.value.code == DataProtectionCode.RECTIFY_REASON_INVALID
    assert not _rectified(store)


@pytest.mark.parametrize(
    ("surname", "given"),
    [
        ("", "ANA"),
        ("   ", "ANA"),
        ("X" * 61, "ANA"),
        ("X" * 10_000, "ANA"),
        ("GARCIA", "A" * 10_000),
        ("GAR\x00CIA", "ANA"),
        ("GARCIA\n", "ANA\u202e"),
        ("GARCIA1", "ANA"),
        ("'; DROP TABLE visits; --", "ANA"),
        ("GARCIA%", "ANA"),
        ("--", "ANA"),
        ("GARCIA", "'.-"),
    ],
)
def test_a_bad_name_is_refused(
    service: DataProtectionService, store: FakeStore, surname: str, given: str
) -> None:
    with pytest.raises(DataProtectionError) as err:
        service.rectify_name(DIRECTOR, 1, surname, given, REASON)
    assert err.value.code == DataProtectionCode.RECTIFY_VALUE_INVALID
    assert store.visitor(1).surname == "GARCIA"  # type: ignore[union-attr]


def test_names_with_punctuation_and_no_given_names_are_kept(
    service: DataProtectionService,
) -> None:
    changed = service.rectify_name(DIRECTOR, 1, "o'brien-smith jr.", "", REASON)
    assert (changed.surname, changed.given_names) == ("O'BRIEN-SMITH JR.", "")
    assert clean_name("Straße", required=True) == "STRASSE"


@pytest.mark.parametrize("text", ["", "   ", "x" * 501, "x" * 10_000, "nota\x00", "nota\x07"])
def test_a_bad_observation_text_is_refused(
    service: DataProtectionService, store: FakeStore, text: str
) -> None:
    with pytest.raises(DataProtectionError) as err:
        service.rectify_observation(DIRECTOR, 1, _note_id(store), text, REASON)
    assert err.value.code == DataProtectionCode.RECTIFY_VALUE_INVALID


def test_sql_text_in_an_observation_is_kept_literally(
    service: DataProtectionService, store: FakeStore
) -> None:
    hostile = "'); DELETE FROM visits; -- 100% _x_"
    assert (
        service.rectify_observation(DIRECTOR, 1, _note_id(store), hostile, REASON).text == hostile
    )


@pytest.mark.parametrize("number", [0, -1, 2**63, True, 99])
def test_unknown_files_and_observations_are_not_found(
    service: DataProtectionService, store: FakeStore, number: int
) -> None:
    with pytest.raises(DataProtectionError) as err:
        service.rectify_name(DIRECTOR, number, "GARCIA", "ANNA", REASON)
    assert err.value.code == DataProtectionCode.RECTIFY_NOT_FOUND
    with pytest.raises(DataProtectionError) as err:
        service.rectify_observation(DIRECTOR, 1, number, "Otra", REASON)
    assert err.value.code == DataProtectionCode.RECTIFY_NOT_FOUND


def test_an_unchanged_value_is_refused(service: DataProtectionService, store: FakeStore) -> None:
    with pytest.raises(DataProtectionError) as err:
        service.rectify_name(DIRECTOR, 1, "garcia", " ana ", REASON)  # the same once cleaned
    assert err.value.code == DataProtectionCode.RECTIFY_UNCHANGED
    with pytest.raises(DataProtectionError) as err:
        service.rectify_observation(DIRECTOR, 1, _note_id(store), "Nota  original", REASON)
    assert err.value.code == DataProtectionCode.RECTIFY_UNCHANGED
    assert not _rectified(store)


# -- the retention view ----------------------------------------------------------------


def test_the_overview_counts_and_dates(service: DataProtectionService) -> None:
    view = service.retention(INSPECTOR)
    assert view.now == NOW and view.cutoff == retention_cutoff(NOW)
    assert (view.visitors, view.visits, view.observations, view.cards) == (2, 2, 1, 2)
    assert view.overdue == 0
    assert view.oldest_visit == NOW - timedelta(days=3)
    assert view.oldest_observation == NOW - timedelta(days=3)
    assert view.next_purge == passes_retention(NOW - timedelta(days=3))
    assert view.next_purge is not None and view.next_purge > NOW
    november, december = view.months
    assert (november.month, november.visits, november.admissions, november.refusals) == (
        "2026-11",
        1,
        1,
        0,
    )
    assert (november.cards, november.new_visitors) == (1, 1)
    assert (december.month, december.visits, december.cards, december.new_visitors) == (
        "2026-12",
        1,
        1,
        1,
    )


def test_an_overdue_file_says_a_purge_is_due(store: FakeStore) -> None:
    old = NOW - timedelta(days=200)
    store.record_admission(entry(3, old))
    view = DataProtectionService(store, FixedClock(NOW)).retention(DIRECTOR)
    assert view.overdue == 1 and view.next_purge is not None and view.next_purge < NOW
    assert view.months[0].month == "2026-05" and view.months[-1].month == "2026-12"
    assert sum(m.visits for m in view.months) == 3


def test_an_empty_file_has_no_months() -> None:
    view = DataProtectionService(FakeStore(), FixedClock(NOW)).retention(ADMIN)
    assert (view.visits, view.months, view.next_purge, view.oldest_visit) == (0, (), None, None)


@pytest.mark.parametrize(
    ("made", "passes"),
    [
        # 31 August + six months: no 31 February, so from 1 March (Madrid midnight)
        (datetime(2026, 8, 31, 20, 0, tzinfo=UTC), datetime(2027, 2, 28, 23, 0, tzinfo=UTC)),
        (datetime(2026, 6, 10, 20, 0, tzinfo=UTC), datetime(2026, 12, 10, 21, 0, tzinfo=UTC)),
    ],
)
def test_when_a_record_passes_the_six_months(made: datetime, passes: datetime) -> None:
    assert passes_retention(made) == passes
    assert retention_cutoff(passes) >= made  # from then on, any purge erases it
    assert retention_cutoff(passes - timedelta(minutes=1)) < made

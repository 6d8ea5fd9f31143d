from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from admission.hours import SessionState
from admission.identity import IdentityKey, IdKind
from admission.records import Ban, StaffMember, StaffRole
from admission.registry.port import RegistryAnswer, RegistrySource, RegistryStatus
from admission.verdict import (
    AdmissionFacts,
    AdmissionPolicy,
    Outcome,
    Reason,
    Verdict,
    age_on,
    decide,
)

AT = datetime(2026, 11, 28, 21, 30, tzinfo=UTC)  # a Saturday night in Madrid
TODAY = date(2026, 11, 28)
WHO = IdentityKey(IdKind.DNI, "ESP", "12345678Z")
CLEAR = RegistryAnswer(RegistryStatus.NOT_LISTED, RegistrySource.REPLICA, version="v1")


@dataclass(frozen=True)
class Doc:
    doc_type: str = "ID_CARD"
    valid: bool = True
    birth_date: date | None = date(1980, 5, 17)
    expiry_date: date | None = date(2030, 1, 1)
    specimen: bool = False


def verdict(
    doc: Doc = Doc(), policy: AdmissionPolicy = AdmissionPolicy(), **facts: object
) -> Verdict:
    base: dict[str, object] = {"document": doc, "registry": CLEAR}
    base.update(facts)
    return decide(AdmissionFacts(**base), policy, AT, TODAY)  # type: ignore[arg-type]


def test_an_adult_with_a_valid_document_and_a_clear_register_is_admitted() -> None:
    v = verdict()
    assert v.outcome is Outcome.ADMIT and v.reasons == ()


@pytest.mark.parametrize(
    ("birth", "outcome"),
    [
        (date(2008, 11, 28), Outcome.ADMIT),  # 18 today, Madrid calendar date
        (date(2008, 11, 29), Outcome.DENY),  # 18 tomorrow
        (date(2010, 1, 1), Outcome.DENY),
    ],
)
def test_age_is_counted_on_the_madrid_calendar_date(birth: date, outcome: Outcome) -> None:
    v = verdict(Doc(birth_date=birth))
    assert v.outcome is outcome
    assert (Reason.MINOR in v.reasons) is (outcome is Outcome.DENY)


def test_leap_day_birthday_is_reached_on_first_of_march() -> None:
    assert age_on(date(2008, 2, 29), date(2026, 2, 28)) == 17
    assert age_on(date(2008, 2, 29), date(2026, 3, 1)) == 18


@given(
    st.dates(min_value=date(1900, 1, 1), max_value=date(2026, 1, 1)),
    st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 1, 1)),
)
def test_age_matches_a_calendar_count(birth: date, day: date) -> None:
    expected = day.year - birth.year - ((day.month, day.day) < (birth.month, birth.day))
    assert age_on(birth, day) == expected


def test_unknown_birth_date_goes_to_the_supervisor() -> None:
    v = verdict(Doc(birth_date=None))
    assert (v.outcome, v.reasons) == (Outcome.SUPERVISOR, (Reason.BIRTH_DATE_UNKNOWN,))


def test_listed_in_the_register_is_denied() -> None:
    listed = RegistryAnswer(RegistryStatus.LISTED, RegistrySource.ONLINE)
    assert verdict(registry=listed).reasons == (Reason.REGISTRY_LISTED,)
    assert verdict(registry=listed).outcome is Outcome.DENY


def test_unverifiable_register_fails_closed_by_default_or_goes_to_supervisor() -> None:
    down = RegistryAnswer(RegistryStatus.UNVERIFIABLE, RegistrySource.NONE, error="TIMEOUT")
    # fail closed (art. 20.1-2), yet not a refusal of the person: NOT_ADMITTED
    assert verdict(registry=down).outcome is Outcome.NOT_ADMITTED
    assert verdict(registry=down).reasons == (Reason.REGISTRY_UNVERIFIABLE,)
    soft = AdmissionPolicy(unverifiable_outcome=Outcome.SUPERVISOR)
    assert verdict(registry=down, policy=soft).outcome is Outcome.SUPERVISOR
    with pytest.raises(ValueError):
        AdmissionPolicy(unverifiable_outcome=Outcome.ADMIT)
    with pytest.raises(ValueError):  # only the rules' own outcomes are a policy's
        AdmissionPolicy(unverifiable_outcome=Outcome.ALREADY_ADMITTED)


def test_a_reason_of_the_person_outweighs_the_register_that_cannot_answer() -> None:
    down = RegistryAnswer(RegistryStatus.UNVERIFIABLE, RegistrySource.NONE, error="TIMEOUT")
    minor = verdict(Doc(birth_date=date(2012, 1, 1)), registry=down)
    assert minor.outcome is Outcome.DENY
    assert minor.reasons == (Reason.MINOR, Reason.REGISTRY_UNVERIFIABLE)


def test_internal_ban_applies_only_while_active() -> None:
    ban = Ban(1, WHO, "conducta", "director", AT - timedelta(days=3), AT + timedelta(days=1))
    assert verdict(bans=[ban]).reasons == (Reason.INTERNAL_BAN,)
    expired = Ban(2, WHO, "conducta", "director", AT - timedelta(days=3), AT)
    assert verdict(bans=[expired]).outcome is Outcome.ADMIT
    lifted = Ban(3, WHO, "x", "director", AT - timedelta(days=3), None, AT - timedelta(hours=1))
    assert verdict(bans=[lifted]).outcome is Outcome.ADMIT
    future = Ban(4, WHO, "x", "director", AT + timedelta(hours=1), None)
    assert verdict(bans=[future]).outcome is Outcome.ADMIT


def test_staff_need_the_director_and_directors_may_not_play() -> None:
    staff = StaffMember(WHO, "croupier", StaffRole.STAFF)
    assert verdict(staff=staff).outcome is Outcome.SUPERVISOR
    director = StaffMember(WHO, "director", StaffRole.DIRECTOR)
    assert verdict(staff=director).reasons == (Reason.GAME_DIRECTOR,)
    assert verdict(staff=director).outcome is Outcome.DENY
    former = StaffMember(WHO, "former", StaffRole.STAFF, active=False)
    assert verdict(staff=former).outcome is Outcome.ADMIT


@pytest.mark.parametrize(
    ("doc", "reason"),
    [
        (Doc(expiry_date=date(2026, 11, 27)), Reason.DOCUMENT_EXPIRED),
        (Doc(valid=False), Reason.DOCUMENT_INVALID),
        (Doc(doc_type="VISA"), Reason.DOCUMENT_NOT_ACCEPTED),
    ],
)
def test_document_problems_deny(doc: Doc, reason: Reason) -> None:
    v = verdict(doc)
    assert (v.outcome, v.reasons) == (Outcome.DENY, (reason,))


def test_a_document_expiring_today_is_still_valid() -> None:
    assert verdict(Doc(expiry_date=TODAY)).outcome is Outcome.ADMIT


def test_exceptional_card_waives_only_the_document_rules() -> None:
    bad = Doc(doc_type="OTHER", valid=False)
    assert verdict(bad, exceptional=True).outcome is Outcome.ADMIT
    minor = Doc(doc_type="OTHER", birth_date=date(2012, 1, 1))
    assert verdict(minor, exceptional=True).reasons == (Reason.MINOR,)


def test_hours_closed_and_last_hour() -> None:
    assert verdict(session=SessionState.CLOSED).reasons == (Reason.CLOSED,)
    assert verdict(session=SessionState.LAST_HOUR).outcome is Outcome.ADMIT
    stop = AdmissionPolicy(stop_last_hour=True)
    assert verdict(session=SessionState.LAST_HOUR, policy=stop).reasons == (Reason.LAST_HOUR,)


def test_every_reason_is_reported_and_the_most_severe_outcome_wins() -> None:
    staff = StaffMember(WHO, "croupier", StaffRole.STAFF)
    v = verdict(
        Doc(birth_date=date(2010, 1, 1), expiry_date=date(2020, 1, 1)),
        staff=staff,
        registry=RegistryAnswer(RegistryStatus.LISTED, RegistrySource.REPLICA),
    )
    assert v.outcome is Outcome.DENY
    assert v.reasons == (
        Reason.MINOR,
        Reason.REGISTRY_LISTED,
        Reason.CASINO_STAFF,
        Reason.DOCUMENT_EXPIRED,
    )
    assert all(code.isupper() for code in v.codes)  # codes, never sentences


EVERYTHING = AdmissionPolicy(
    accepted_types=frozenset({"ID_CARD", "PASSPORT", "VISA", "CREW_CARD", "OTHER"}),
    unverifiable_outcome=Outcome.SUPERVISOR,
    staff_outcome=Outcome.ADMIT,
    director_outcome=Outcome.ADMIT,
)


def test_a_specimen_is_denied_with_its_own_reason() -> None:
    v = verdict(Doc(specimen=True))
    assert (v.outcome, v.reasons) == (Outcome.DENY, (Reason.SPECIMEN,))


@pytest.mark.parametrize("policy", [AdmissionPolicy(), EVERYTHING])
def test_no_flag_turns_a_specimen_into_an_admission(policy: AdmissionPolicy) -> None:
    """art. 23.1: a specimen identifies nobody; the exceptional card (art. 23.5) waives the
    document rules, never this one, and no policy setting reaches it."""
    for exceptional in (False, True):
        v = verdict(Doc(specimen=True), policy, exceptional=exceptional)
        assert v.outcome is Outcome.DENY and Reason.SPECIMEN in v.reasons


@pytest.mark.parametrize(
    ("doc_type", "accepted"),
    [
        ("ID_CARD", True),
        ("PASSPORT", True),
        ("RESIDENCE_CARD", True),
        ("DRIVING_LICENCE", True),
        ("VISA", False),
        ("CREW_CARD", False),
        ("OTHER", False),
    ],
)
def test_accepted_documents_r9(doc_type: str, accepted: bool) -> None:
    v = verdict(Doc(doc_type=doc_type))
    if accepted:
        assert v.outcome is Outcome.ADMIT
    else:
        assert (v.outcome, v.reasons) == (Outcome.DENY, (Reason.DOCUMENT_NOT_ACCEPTED,))

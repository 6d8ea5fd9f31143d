from dataclasses import replace
from datetime import date, timedelta

import pytest

from admission.desk import OUTCOME_ATTEMPTS, DeskErrorCode
from admission.errors import InvalidStateError, StoreError, StoreErrorCode
from admission.records import (
    AdmissionEntry,
    CardStatus,
    RecordedAdmission,
    StaffMember,
    StaffRole,
)
from admission.verdict import Outcome
from tests.factories import dni, dni_document, make_desk, passport_document
from tests.fake_store import FakeStore


def test_admitting_records_visitor_visit_and_a_numbered_card() -> None:
    store = FakeStore()
    desk, _, registry = make_desk(store)
    result = desk.admit(dni_document(), operator="clerk1", card_type="WEEK")
    assert result.verdict.outcome is Outcome.ADMIT and result.admitted
    assert result.recorded.file_number == 1 and result.recorded.card_number == 1
    card = store.card(1)
    assert card is not None and card.card_type == "WEEK" and card.price_cents == 2000
    assert card.status is CardStatus.ISSUED
    assert (card.valid_from, card.valid_until) == (date(2026, 11, 28), date(2026, 12, 4))
    visit = store.visits(1)[0]
    assert visit.registry.source == "REPLICA" and visit.registry.version == "test-1"
    assert registry.asked == [result.evaluation.document.identity]


def test_the_file_number_is_kept_and_card_numbers_follow_on() -> None:
    store = FakeStore()
    desk, clock, _ = make_desk(store)
    first = desk.admit(dni_document(1), operator="c")
    desk.admit(passport_document(), operator="c")
    clock.advance(timedelta(days=1))
    again = desk.admit(dni_document(1), operator="c")
    assert again.recorded.file_number == first.recorded.file_number
    assert not again.recorded.new_visitor
    assert again.recorded.card_number == 3
    assert len(store.visits(first.recorded.file_number)) == 2  # successive visits (R2)


def test_a_refusal_is_recorded_without_a_card() -> None:
    store = FakeStore()
    desk, _, registry = make_desk(store)
    registry.listed.add(dni(7))
    result = desk.admit(dni_document(7), operator="c")
    assert result.verdict.outcome is Outcome.DENY and not result.admitted
    assert result.verdict.codes == ("REGISTRY_LISTED",)
    assert result.recorded.card_number is None
    assert store.visits(result.recorded.file_number)[0].verdict == "DENY"
    nxt = desk.admit(dni_document(8), operator="c")
    assert nxt.recorded.card_number == 1  # a refusal burns no number


def test_registry_down_fails_closed_as_not_admitted_never_as_a_refusal() -> None:
    # art. 20.1-2: nobody enters unchecked, but a system failure is not the person's
    # refusal: recorded NOT_ADMITTED, counted apart from the refusals
    store = FakeStore()
    desk, _, registry = make_desk(store)
    registry.down = True
    result = desk.admit(dni_document(), operator="c")
    assert result.verdict.outcome is Outcome.NOT_ADMITTED and not result.admitted
    assert result.verdict.codes == ("REGISTRY_UNVERIFIABLE",) and result.card is None
    visit = store.visits(1)[0]
    assert (visit.verdict, visit.registry.status) == ("NOT_ADMITTED", "UNVERIFIABLE")
    minor = desk.admit(dni_document(2, birth=date(2010, 1, 1)), operator="c")
    assert minor.verdict.outcome is Outcome.DENY  # a reason of the person still refuses
    assert minor.verdict.codes == ("MINOR", "REGISTRY_UNVERIFIABLE")
    assert store.last_card_number() == 0


def test_director_can_take_responsibility_for_supervisor_cases_only() -> None:
    store = FakeStore()
    desk, _, registry = make_desk(store, unverifiable_outcome=Outcome.SUPERVISOR)
    registry.down = True
    pending = desk.admit(dni_document(), operator="c")
    assert pending.verdict.outcome is Outcome.SUPERVISOR and not pending.admitted
    authorised = desk.admit(dni_document(), operator="c", authorised_by="Directora Ruiz")
    assert authorised.admitted and authorised.verdict.outcome is Outcome.ADMIT
    assert authorised.verdict.codes == ("REGISTRY_UNVERIFIABLE",)  # the reason stays on record
    assert any(e.action == "OVERRIDE" for e in store.audit_entries())
    registry.down = False
    minor = dni_document(9, birth=date(2010, 1, 1))
    refused = desk.admit(minor, operator="c", authorised_by="Directora Ruiz")
    assert refused.verdict.outcome is Outcome.DENY and not refused.admitted


def test_staff_member_goes_to_the_supervisor() -> None:
    store = FakeStore()
    desk, clock, _ = make_desk(store)
    doc = dni_document(5)
    store.add_staff(StaffMember(doc.identity, "Crupier", StaffRole.STAFF), "dir", clock.now())
    assert desk.admit(doc, operator="c").verdict.codes == ("CASINO_STAFF",)


def test_internal_ban_with_expiry() -> None:
    store = FakeStore()
    desk, clock, _ = make_desk(store)
    doc = dni_document(6)
    desk.add_ban(
        doc.identity,
        "Conducta violenta en sala",
        "Director",
        expires_at=clock.now() + timedelta(days=30),
    )
    assert desk.admit(doc, operator="c").verdict.codes == ("INTERNAL_BAN",)
    clock.advance(timedelta(days=31))
    assert desk.admit(doc, operator="c").admitted


def test_exceptional_card_needs_a_director_and_is_flagged() -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store)
    expired = dni_document(4, expiry=date(2026, 1, 1))
    assert desk.admit(expired, operator="c").verdict.codes == ("DOCUMENT_EXPIRED",)
    with pytest.raises(InvalidStateError):
        desk.admit(expired, operator="c", exceptional=True)
    result = desk.admit(expired, operator="c", exceptional=True, authorised_by="Director Gil")
    assert result.card is not None and result.card.exceptional
    assert result.card.authorised_by == "Director Gil"
    audited = [e.action for e in store.audit_entries()]
    assert audited.count("EXCEPTIONAL_CARD") == 1  # recorded once, with the card


def test_officials_on_duty_get_no_card_and_no_charge() -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store)
    recorded = desk.register_official(dni_document(3), capacity="Inspector de juego", operator="c")
    assert recorded.card_number is None
    visit = store.visits(recorded.file_number)[0]
    assert visit.verdict == "OFFICIAL" and visit.official_capacity == "Inspector de juego"
    with pytest.raises(InvalidStateError):
        desk.register_official(dni_document(3), capacity=" ", operator="c")


def test_void_and_reprint_keep_the_number_and_need_a_reason() -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store)
    number = desk.admit(dni_document(), operator="c").recorded.card_number
    assert number is not None
    reprinted = desk.reprint_card(number, "atasco de la impresora", "c")
    assert reprinted.number == number and reprinted.print_count >= 0
    voided = desk.void_card(number, "error de tipo de tarjeta", "supervisor")
    assert voided.status is CardStatus.VOIDED and voided.number == number
    with pytest.raises(InvalidStateError):
        desk.void_card(number, "   ", "supervisor")


def test_purge_uses_six_calendar_months() -> None:
    store = FakeStore()
    desk, clock, _ = make_desk(store)
    desk.admit(dni_document(1), operator="c")
    clock.advance(timedelta(days=150))
    desk.admit(dni_document(2), operator="c")
    clock.advance(timedelta(days=40))  # first visit now ~190 days old, second ~40
    report = desk.purge()
    assert report.visits == 1 and report.visitors == 1
    assert store.find_visitor(dni_document(1).identity) is None
    assert store.find_visitor(dni_document(2).identity) is not None


def test_recording_an_evaluation_reuses_its_registry_check_while_fresh() -> None:
    store = FakeStore()
    desk, clock, registry = make_desk(store)
    evaluation = desk.evaluate(dni_document(2))
    clock.advance(timedelta(seconds=30))
    result = desk.record(evaluation, operator="c")
    assert result.admitted and len(registry.asked) == 1  # asked once, not twice
    stale = desk.evaluate(dni_document(3))
    clock.advance(timedelta(minutes=3))
    with pytest.raises(InvalidStateError) as err:
        desk.record(stale, operator="c")
    assert err.value.code == "EVALUATION_STALE"
    assert store.find_visitor(dni_document(3).identity) is None  # nothing recorded


def test_the_registry_is_asked_with_the_person_details_of_the_document() -> None:
    store = FakeStore()
    desk, _, registry = make_desk(store)
    desk.evaluate(dni_document(2, surname="GARCÍA LÓPEZ", given_names="ANA"))
    person = registry.people[-1]
    assert person is not None
    assert (person.surname, person.given_names) == ("GARCIA LOPEZ", "ANA")
    assert person.birth_date == date(1980, 5, 17) and person.support_number == "BAA123456"
    desk.evaluate(passport_document())
    assert registry.people[-1] is not None and registry.people[-1].support_number == ""


# -- art. 22: the card is nominative and personal - one valid card per person -----------


def test_a_second_presentation_while_the_card_is_valid_is_a_reentry_on_that_card() -> None:
    store = FakeStore()
    desk, clock, registry = make_desk(store)
    first = desk.admit(dni_document(1), operator="c")
    clock.advance(timedelta(minutes=40))
    evaluation = desk.evaluate(dni_document(1))
    assert evaluation.verdict.outcome is Outcome.ALREADY_ADMITTED  # neutral, on screen
    assert evaluation.verdict.codes == ("ALREADY_ADMITTED",)
    assert evaluation.held_card is not None and evaluation.held_card.number == 1
    again = desk.record(evaluation, operator="c")
    assert again.verdict.outcome is Outcome.ALREADY_ADMITTED and again.reentry
    assert not again.admitted  # no new admission: the person enters on the card held
    assert again.card is None and again.existing_card is not None
    assert again.existing_card.number == first.recorded.card_number
    assert store.last_card_number() == 1  # no number taken
    visit = store.visits(first.recorded.file_number)[-1]
    assert (visit.verdict, visit.reasons, visit.card_number) == (
        "ALREADY_ADMITTED",
        ("ALREADY_ADMITTED",),
        None,
    )
    assert len(registry.asked) == 2  # the RIAJ is still checked every time (art. 20.2)
    # A lost card is reprinted under its number; once voided, a new one may be issued.
    desk.void_card(1, "perdida, anulada", "supervisor")
    assert desk.admit(dni_document(1), operator="c").recorded.card_number == 2


def test_the_other_reasons_stay_beside_already_admitted() -> None:
    store = FakeStore()
    desk, _, registry = make_desk(store)
    desk.admit(dni_document(1), operator="c")
    registry.listed.add(dni(1))  # listed since this afternoon
    again = desk.admit(dni_document(1), operator="c")
    assert again.verdict.codes == ("REGISTRY_LISTED", "ALREADY_ADMITTED")
    assert again.verdict.outcome is Outcome.DENY  # listed since: refused, card or not
    assert again.existing_card is not None and again.existing_card.number == 1
    registry.listed.clear()
    registry.down = True  # every visitor, every time (art. 20.2): the card is no waiver
    unchecked = desk.admit(dni_document(1), operator="c")
    assert unchecked.verdict.outcome is Outcome.NOT_ADMITTED
    assert unchecked.verdict.codes == ("REGISTRY_UNVERIFIABLE", "ALREADY_ADMITTED")


def test_a_pass_admits_its_holder_again_on_the_same_card() -> None:
    store = FakeStore()
    desk, clock, _ = make_desk(store)
    week = desk.admit(dni_document(1), operator="c", card_type="WEEK")
    clock.advance(timedelta(days=3))
    back = desk.admit(dni_document(1), operator="c")
    assert back.verdict.outcome is Outcome.ADMIT and back.verdict.codes == ()
    assert back.admitted and back.card is None  # nothing to print
    assert back.existing_card is not None and back.existing_card.number == 1
    assert back.recorded.card_number is None and store.last_card_number() == 1
    visits = store.visits(week.recorded.file_number)
    assert [v.verdict for v in visits] == ["ADMIT", "ADMIT"]  # R2: both visits recorded
    clock.advance(timedelta(days=5))  # the pass has ended: a new card
    assert desk.admit(dni_document(1), operator="c").recorded.card_number == 2


def test_after_midnight_the_card_of_the_same_session_is_still_held() -> None:
    from admission.hours import parse_hours

    store = FakeStore()
    desk, clock, _ = make_desk(store)
    hours = parse_hours(
        {d: "20:00-05:00" for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")}
    )
    desk.config = replace(desk.config, hours=hours)
    desk.admit(dni_document(1), operator="c")  # Saturday 23:00 in Madrid
    clock.advance(timedelta(hours=3))  # Sunday 02:00, the same session
    again = desk.admit(dni_document(1), operator="c")
    assert again.verdict.codes == ("ALREADY_ADMITTED",) and again.recorded.card_number is None
    clock.advance(timedelta(hours=16))  # Sunday 18:00: that session is over
    assert desk.admit(dni_document(1), operator="c").verdict.codes == ("CLOSED",)
    clock.advance(timedelta(hours=3))  # Sunday 21:00, the next session
    assert desk.admit(dni_document(1), operator="c").recorded.card_number == 2


def test_two_desks_evaluating_the_same_person_issue_one_card() -> None:
    """Both screens showed ADMIT; the store takes the check and the number in one
    transaction, so the second key press records a refusal with the first card."""
    store = FakeStore()
    desk, _, registry = make_desk(store, unverifiable_outcome=Outcome.SUPERVISOR)
    registry.down = True  # both screens amber: a director takes responsibility at each
    here, there = desk.evaluate(dni_document(1)), desk.evaluate(dni_document(1))
    first = desk.record(here, operator="desk-1", authorised_by="Directora Ruiz")
    second = desk.record(there, operator="desk-2", authorised_by="Directora Ruiz")
    assert first.admitted and first.card is not None
    assert second.verdict.codes == ("REGISTRY_UNVERIFIABLE", "ALREADY_ADMITTED")
    assert second.verdict.outcome is Outcome.ALREADY_ADMITTED and not second.admitted
    assert store.visits(1)[-1].verdict == "ALREADY_ADMITTED"  # the store recorded the same
    assert second.existing_card is not None and second.existing_card.number == first.card.number
    assert [e.action for e in store.audit_entries()].count("OVERRIDE") == 1  # the first only
    assert store.last_card_number() == 1 and store.verify().ok


def test_several_entries_is_an_option_of_the_card_type() -> None:
    from admission.cards.catalogue import DEFAULT_CARD_TYPES, CardCatalogue
    from admission.errors import ConfigError

    assert CardCatalogue.from_config(DEFAULT_CARD_TYPES, "DAY").reentry_types == {"WEEK"}
    plain = {"code": "X", "label_es": "X", "price_cents": 100}
    assert CardCatalogue.from_config([plain], "X").reentry_types == frozenset()  # default
    with pytest.raises(ConfigError) as err:
        CardCatalogue.from_config([{**plain, "several_entries": "yes"}], "X")
    assert err.value.code == "CARD_TYPE_BAD"


def test_a_clock_gone_back_past_the_newest_record_stops_admissions() -> None:
    # visit dates and card numbers stay in order (art. 22.1): a counter PC whose clock
    # fell back (a flat CMOS battery, a wrong manual change) admits nobody until fixed
    store = FakeStore()
    desk, clock, _ = make_desk(store)
    assert desk.admit(dni_document(number=1), operator="c").admitted
    clock.advance(timedelta(minutes=-3))  # two desks' clocks differ by seconds: tolerated
    assert desk.admit(dni_document(number=2), operator="c").admitted
    clock.advance(timedelta(hours=-2))
    with pytest.raises(InvalidStateError) as stopped:
        desk.admit(dni_document(number=3), operator="c")
    assert stopped.value.code == "CLOCK_BEHIND_FILE"
    assert store.find_visitor(dni_document(number=3).identity) is None  # nothing recorded
    clock.advance(timedelta(hours=2, minutes=4))  # corrected
    assert desk.admit(dni_document(number=3), operator="c").admitted


def _lost(detail: str = "link cut while committing") -> StoreError:
    error = StoreError(detail, code=StoreErrorCode.WRITE_FAILED)
    error.outcome_unknown = True  # as db.pg.store.PgLinkError when the commit's answer is lost
    return error


def test_an_admission_whose_answer_was_lost_is_asked_again_and_recorded_once() -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store)
    store.lose_next_answer(_lost())
    result = desk.admit(dni_document(4), operator="c", card_type="WEEK")
    assert result.admitted and result.recorded.card_number == 1
    assert len(store.visits(result.recorded.file_number)) == 1  # recorded once
    asked = [args[0] for name, args in store.calls if name == "record_admission"]
    assert len(asked) == 2 and len({e.admission_id for e in asked}) == 1  # type: ignore[attr-defined]
    assert desk.admit(dni_document(5), operator="c").recorded.card_number == 2  # no gap


class _ServerAway:
    """The fake store behind a link that commits the first admission, loses its answer,
    then cannot reach the server for ``away`` asks."""

    def __init__(self, store: FakeStore, away: int) -> None:
        self.store = store
        self.away = away
        self.asked = 0

    def record_admission(self, entry: AdmissionEntry) -> RecordedAdmission:
        self.asked += 1
        if self.asked == 1:
            self.store.record_admission(entry)
            raise _lost()
        if self.asked <= 1 + self.away:
            raise StoreError("server unreachable", code=StoreErrorCode.OPEN_FAILED)
        return self.store.record_admission(entry)

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)


def test_when_the_server_cannot_be_asked_again_the_clerk_presses_again_and_it_is_once() -> None:
    store = FakeStore()
    away = _ServerAway(store, OUTCOME_ATTEMPTS - 1)
    desk, clock, _ = make_desk(away)
    evaluation = desk.evaluate(dni_document(6))
    with pytest.raises(StoreError) as err:
        desk.record(evaluation, operator="c")
    assert err.value.code == DeskErrorCode.OUTCOME_UNKNOWN
    # the clerk presses again minutes later, with the same verdict on screen: not stale,
    # and the admission recorded by the first attempt is the answer
    clock.advance(timedelta(minutes=5))
    again = desk.record(evaluation, operator="c")
    assert again.recorded.card_number == 1 and away.asked == OUTCOME_ATTEMPTS + 1
    file_number = again.recorded.file_number
    assert len(store.visits(file_number)) == 1 and store.card(2) is None


def test_a_plain_failure_is_not_asked_again() -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store)
    store.fail_next("record_admission", StoreError("refused", code=StoreErrorCode.WRITE_FAILED))
    with pytest.raises(StoreError) as err:
        desk.admit(dni_document(7), operator="c")
    assert err.value.code == StoreErrorCode.WRITE_FAILED
    assert [n for n, _ in store.calls].count("record_admission") == 1


def test_an_admission_dismissed_by_the_clerk_is_recorded_as_not_admitted() -> None:
    store = FakeStore()
    desk, clock, _ = make_desk(store)
    evaluation = desk.evaluate(dni_document(1))
    clock.advance(timedelta(minutes=5))  # however old: a dismissal grants nothing
    result = desk.dismiss(evaluation, operator="c")
    assert result.verdict.outcome is Outcome.NOT_ADMITTED and not result.admitted
    assert result.verdict.codes == ("DISMISSED_BY_CLERK",) and result.card is None
    visit = store.visits(result.recorded.file_number)[0]
    assert (visit.verdict, visit.reasons, visit.at) == (
        "NOT_ADMITTED",
        ("DISMISSED_BY_CLERK",),
        evaluation.at,
    )
    assert store.last_card_number() == 0
    refused = desk.evaluate(dni_document(2, birth=date(2010, 1, 1)))
    with pytest.raises(InvalidStateError) as err:
        desk.dismiss(refused, operator="c")  # a refusal is recorded as it is
    assert err.value.code == "NOT_DISMISSIBLE"

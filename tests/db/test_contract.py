"""The storage ports' contract, run on every dialect alike: the SQLCipher file, the
in-memory SQLite dialect (the fake) and the PostgreSQL server."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import pytest

from admission.errors import InvalidStateError, NotFoundError
from admission.ports import madrid_date
from admission.records import AuditAnchor, CardStatus, StaffMember, StaffRole
from tests.db.factories import T0, card_for, dni, entry

DAY = timedelta(days=1)


def test_first_visit_assigns_file_number_and_card_number(any_store: Any) -> None:
    first = any_store.record_admission(entry(1))
    again = any_store.record_admission(entry(1, T0 + DAY))
    other = any_store.record_admission(entry(2, surname="Smith", given_names="John"))
    assert (first.file_number, first.card_number, first.new_visitor) == (1, 1, True)
    assert (again.file_number, again.card_number, again.new_visitor) == (1, 2, False)
    assert (other.file_number, other.card_number, other.new_visitor) == (2, 3, True)
    visitor = any_store.find_visitor(dni(1))
    assert visitor.file_number == 1 and visitor.surname == "Peña Núñez"
    assert (visitor.first_seen, visitor.last_seen) == (T0, T0 + DAY)
    assert any_store.visitor(2).identity == dni(2)
    assert any_store.find_visitor(dni(99)) is None and any_store.visitor(99) is None


def test_a_file_number_is_never_reused_after_its_file_is_erased(any_store: Any) -> None:
    any_store.record_admission(entry(1))
    any_store.record_admission(entry(2))  # the highest file number, erased below
    any_store.record_admission(entry(1, T0 + 40 * DAY))
    any_store.purge(T0 + 30 * DAY)
    assert any_store.find_visitor(dni(2)) is None and any_store.visitor(2) is None
    third = any_store.record_admission(entry(3, T0 + 41 * DAY))
    assert (third.file_number, third.new_visitor) == (3, True)


def test_the_rows_a_purge_erases_are_counted_and_the_chain_still_verifies(
    any_store: Any,
) -> None:
    any_store.record_admission(entry(1))  # visit and card erased, the visitor kept
    any_store.record_admission(entry(2))  # the whole file erased
    any_store.record_admission(entry(1, T0 + 40 * DAY))
    any_store.purge(T0 + 30 * DAY)
    erased = [a for a in any_store.audit_entries() if a.action == "ERASED"]
    assert erased and {a.actor for a in erased} == {"retention"}
    counted = {"visitor": 0, "visit": 0, "card": 0}
    for entry_ in erased:
        for kind in counted:
            counted[kind] += int(entry_.details.get(kind, 0))
    assert counted == {"visitor": 1, "visit": 2, "card": 2}
    check = any_store.verify()
    assert check.ok and check.rows == 3  # visitor 1, its visit and card of day 40


def test_visits_keep_every_field_in_date_order(any_store: Any) -> None:
    any_store.record_admission(entry(1, T0 + DAY, reasons=("LATE",)))
    any_store.record_admission(entry(1, T0, card=False, verdict="DENY", reasons=("BANNED",)))
    visits = any_store.visits(1)
    assert [v.at for v in visits] == [T0, T0 + DAY]
    denied, admitted = visits
    assert denied.verdict == "DENY" and denied.reasons == ("BANNED",)
    assert denied.card_number is None and admitted.card_number == 1
    assert admitted.registry == entry().registry and admitted.document_number == "SUP000001"
    assert admitted.desk_id == "desk-1" and admitted.operator == "op-7"


def test_official_on_duty_is_recorded_without_card(any_store: Any) -> None:
    rec = any_store.record_admission(entry(3, card=False, official_capacity="INSPECTOR"))
    assert rec.card_number is None
    assert any_store.visits(rec.file_number)[0].official_capacity == "INSPECTOR"
    with pytest.raises(InvalidStateError) as err:
        any_store.record_admission(entry(3, official_capacity="INSPECTOR"))
    assert err.value.code == "OFFICIAL_NO_CARD"


def test_refused_entries_never_take_a_number(any_store: Any) -> None:
    with pytest.raises(InvalidStateError):
        any_store.record_admission(entry(1, verdict="DENY"))
    with pytest.raises(InvalidStateError):
        any_store.record_admission(entry(1, card=card_for(T0, exceptional=True)))
    assert any_store.record_admission(entry(1)).card_number == 1


def test_exceptional_card_is_audited(any_store: Any) -> None:
    card = card_for(T0, exceptional=True, authorised_by="director-1")
    number = any_store.record_admission(entry(1, card=card)).card_number
    exceptional, visit = any_store.audit_entries()
    assert (exceptional.action, exceptional.subject, exceptional.actor) == (
        "EXCEPTIONAL_CARD",
        f"card:{number}",
        "director-1",
    )
    assert any_store.card(number).exceptional
    # art. 20.4: the visit's entry commits to the visitor, the visit and the card
    assert (visit.action, visit.subject, visit.actor) == ("VISIT", "file:1", "op-7")
    assert sorted(visit.commits) == [f"card:{number}", "visit:1", "visitor:1"]
    assert visit.details == {"visit": "1", "verdict": "ADMIT", "card": str(number)}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("pena", [1]),
        ("PEÑA", [1]),
        ("núñez jose", [1]),
        ("jos mar", [2, 1]),
        ("maria", [2, 1]),
        ("garcia", [2]),
        ("Garcia Maria", [2]),
        ("pena garcia", []),
        ("jose garcia", [2]),
        ("zzz", []),
        ("", []),
        ("  - ", []),
    ],
)
def test_search_is_accent_and_case_insensitive_prefix_per_word(  # sorted by name
    any_store: Any, query: str, expected: list[int]
) -> None:
    any_store.record_admission(entry(1))
    any_store.record_admission(entry(2, surname="García", given_names="María José"))
    any_store.record_admission(entry(3, surname="O'Brien", given_names="Seán"))
    assert [v.file_number for v in any_store.search_visitors(query)] == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("j", [5, 2, 1]),
        ("j m", [2, 1]),
        ("ma", [2, 1]),
        ("garc", [5, 2]),
        ("garcia", [2]),
        ("garces jon", [5]),
        ("zubizarreta", [4]),
        ("zubizarretaz", []),
        ("o b", [3]),  # O'Brien: the apostrophe parts the words
        ("x", []),
    ],
)
def test_search_finds_word_prefixes_down_to_one_letter(
    any_store: Any, query: str, expected: list[int]
) -> None:
    people = [
        (1, "Peña Núñez", "José María"),
        (2, "García", "María José"),
        (3, "O'Brien", "Seán"),
        (4, "Zubizarreta", "Ainhoa"),
        (5, "Garcés", "Jon"),
    ]
    for n, surname, given in people:
        any_store.record_admission(entry(n, surname=surname, given_names=given))
    assert [v.file_number for v in any_store.search_visitors(query)] == expected


def test_the_birth_date_survives_a_later_document_without_it(any_store: Any) -> None:
    any_store.record_admission(entry(1))
    any_store.record_admission(entry(1, T0 + DAY, birth_date=None, surname="Peña"))
    visitor = any_store.find_visitor(dni(1))
    assert visitor is not None
    assert (visitor.surname, visitor.birth_date) == ("Peña", date(1980, 5, 17))
    assert [v.file_number for v in any_store.search_visitors("pena")] == [1]
    assert any_store.search_visitors("nunez") == []
    assert any_store.verify().ok


def test_search_follows_a_name_change_and_honours_limit(any_store: Any) -> None:
    any_store.record_admission(entry(1))
    any_store.record_admission(entry(1, T0 + DAY, surname="Pérez"))
    assert any_store.search_visitors("pena") == []
    assert [v.surname for v in any_store.search_visitors("perez")] == ["Pérez"]
    for n in range(2, 8):
        any_store.record_admission(entry(n, surname="Pérez"))
    assert len(any_store.search_visitors("perez", limit=3)) == 3
    assert any_store.search_visitors("brien seán") == []


def test_observations(any_store: Any) -> None:
    any_store.record_admission(entry(1))
    any_store.add_observation(1, "Pidió hoja de reclamaciones", "op-7", T0 + DAY)
    any_store.add_observation(1, "Primera nota", "op-7", T0)
    assert [o.text for o in any_store.observations(1)] == [
        "Primera nota",
        "Pidió hoja de reclamaciones",
    ]
    with pytest.raises(NotFoundError):
        any_store.add_observation(42, "x", "op", T0)
    notes = [a for a in any_store.audit_entries() if a.action == "OBSERVATION"]
    assert [list(a.commits) for a in notes] == [["observation:1"], ["observation:2"]]
    assert any_store.verify().ok


def test_an_added_observation_is_answered_as_kept(any_store: Any) -> None:
    """What ``add_observation`` answers is the row as the file reads it back (the id a
    rectification names, the author, the instant), and the audit entry names the author."""
    any_store.record_admission(entry(1))
    made = any_store.add_observation(1, "Discutió con el crupier", "clerk1", T0 + DAY)
    again = any_store.add_observation(1, "Pidió hoja de reclamaciones", "director1", T0 + DAY)
    assert list(any_store.observations(1)) == [made, again]
    assert (made.file_number, made.author, made.at) == (1, "clerk1", T0 + DAY)
    assert again.observation_id > made.observation_id >= 1
    notes = [a for a in any_store.audit_entries() if a.action == "OBSERVATION"]
    assert [(a.actor, a.subject) for a in notes] == [("clerk1", "file:1"), ("director1", "file:1")]
    assert any_store.verify().ok


def test_print_reprint_void_keep_the_number(any_store: Any) -> None:
    number = any_store.record_admission(entry(1)).card_number
    assert any_store.card(number).status is CardStatus.ISSUED
    any_store.mark_printed(number, T0)
    any_store.record_reprint(number, "printer jam", "op-7", T0)
    any_store.mark_printed(number, T0)
    card = any_store.card(number)
    assert (card.status, card.print_count) == (CardStatus.PRINTED, 2)
    any_store.void_card(number, "wrong card type", "sup-1", T0)
    card = any_store.card(number)
    assert (card.status, card.void_reason, card.number) == (
        CardStatus.VOIDED,
        "wrong card type",
        number,
    )
    assert [e[1] for e in any_store.card_events(number)] == [
        "PRINTED",
        "REPRINT",
        "PRINTED",
        "VOIDED",
    ]
    assert [(a.action, a.subject, sorted(a.commits)) for a in any_store.audit_entries()] == [
        ("VISIT", "file:1", [f"card:{number}", "visit:1", "visitor:1"]),
        ("CARD_PRINTED", f"card:{number}", [f"card:{number}"]),
        ("CARD_REPRINT", f"card:{number}", [f"card:{number}"]),
        ("CARD_PRINTED", f"card:{number}", [f"card:{number}"]),
        ("CARD_VOID", f"card:{number}", [f"card:{number}"]),
    ]
    assert any_store.verify().ok
    for call in (
        lambda: any_store.mark_printed(number, T0),
        lambda: any_store.void_card(number, "again", "sup", T0),
        lambda: any_store.record_reprint(number, "again", "sup", T0),
    ):
        with pytest.raises(InvalidStateError):
            call()
    with pytest.raises(NotFoundError):
        any_store.void_card(999, "x", "sup", T0)
    with pytest.raises(InvalidStateError) as err:
        any_store.record_reprint(any_store.record_admission(entry(2)).card_number, " ", "s", T0)
    assert err.value.code == "REASON_REQUIRED"
    assert any_store.record_admission(entry(3)).card_number == number + 2  # nothing burnt


def test_bans_active_expire_and_lift(any_store: Any) -> None:
    permanent = any_store.add_ban(dni(1), "disturbance", "director-1", T0)
    timed = any_store.add_ban(dni(1), "symbols", "director-1", T0, T0 + 10 * DAY)
    assert {b.ban_id for b in any_store.active_bans(dni(1), T0 + DAY)} == {
        permanent.ban_id,
        timed.ban_id,
    }
    assert [b.ban_id for b in any_store.active_bans(dni(1), T0 + 11 * DAY)] == [permanent.ban_id]
    assert any_store.active_bans(dni(1), T0 - DAY) == []
    assert any_store.active_bans(dni(2), T0) == []
    any_store.lift_ban(permanent.ban_id, "appeal upheld", "director-2", T0 + 2 * DAY)
    assert [b.ban_id for b in any_store.active_bans(dni(1), T0 + 3 * DAY)] == [timed.ban_id]
    with pytest.raises(InvalidStateError):
        any_store.lift_ban(permanent.ban_id, "again", "director-2", T0 + 3 * DAY)
    with pytest.raises(NotFoundError):
        any_store.lift_ban(999, "x", "d", T0)
    with pytest.raises(InvalidStateError):
        any_store.add_ban(dni(1), "", "d", T0)
    actions = [(a.action, a.subject, list(a.commits)) for a in any_store.audit_entries()]
    assert actions == [
        ("BAN_ADD", f"ban:{permanent.ban_id}", [f"ban:{permanent.ban_id}"]),
        ("BAN_ADD", f"ban:{timed.ban_id}", [f"ban:{timed.ban_id}"]),
        ("BAN_LIFT", f"ban:{permanent.ban_id}", [f"ban:{permanent.ban_id}"]),
    ]
    assert any_store.verify().ok
    assert "1" not in any_store.audit_entries()[0].details["identity"][:5]  # a keyed hash


def test_the_ban_history_lists_the_lifted_and_the_expired_newest_first(any_store: Any) -> None:
    """The director's ban list shows history (art. 21.3: every ban stays dated and
    reasoned): what ended by the instant asked, never a ban in force, at most ``limit``."""
    lifted = any_store.add_ban(dni(1), "disturbance", "director-1", T0)
    expired = any_store.add_ban(dni(2), "symbols", "director-1", T0, T0 + 10 * DAY)
    in_force = any_store.add_ban(dni(3), "threats", "director-2", T0 + DAY)
    later = any_store.add_ban(dni(4), "cheating", "director-2", T0 + DAY, T0 + 40 * DAY)
    any_store.lift_ban(lifted.ban_id, "appeal upheld", "director-2", T0 + 2 * DAY)
    assert any_store.bans_ended(T0 + DAY) == []  # nothing had ended yet
    assert [b.ban_id for b in any_store.bans_ended(T0 + 3 * DAY)] == [lifted.ban_id]
    ended = any_store.bans_ended(T0 + 11 * DAY)
    assert [b.ban_id for b in ended] == [expired.ban_id, lifted.ban_id]
    assert (ended[1].lift_reason, ended[1].lifted_at) == ("appeal upheld", T0 + 2 * DAY)
    assert [b.ban_id for b in any_store.bans_ended(T0 + 11 * DAY, limit=1)] == [expired.ban_id]
    assert [b.ban_id for b in any_store.bans_in_force(T0 + 11 * DAY)] == [
        later.ban_id,
        in_force.ban_id,
    ]
    assert [b.ban_id for b in any_store.bans_ended(T0 + 50 * DAY)] == [
        later.ban_id,
        expired.ban_id,
        lifted.ban_id,
    ]


def test_staff(any_store: Any) -> None:
    member = StaffMember(dni(5), "Ana Croupier", StaffRole.STAFF)
    any_store.add_staff(member, "director-1", T0)
    assert any_store.staff_member(dni(5)) == member
    any_store.add_staff(replace(member, active=False), "director-1", T0)
    assert any_store.staff_member(dni(5)).active is False
    assert any_store.staff_member(dni(6)) is None
    for audit in any_store.audit_entries():
        assert audit.subject.startswith("hmac:") and dni(5).number not in audit.subject
        assert list(audit.commits) == [f"staff:{audit.subject}"]
    assert any_store.verify().ok and any_store.verify().rows == 1


def test_audit_append_and_verify(any_store: Any) -> None:
    assert any_store.verify().ok and any_store.verify().entries == 0
    seqs = [
        any_store.append(
            "inspector-3",
            "INSPECTOR_QUERY",
            "file:1",
            T0,
            {"query": any_store.keyed_hash("garcia")},
        )
        for _ in range(3)
    ]
    assert seqs == [1, 2, 3]
    check = any_store.verify()
    assert (check.ok, check.entries, check.problem) == (True, 3, "")
    assert any_store.keyed_hash("garcia") == any_store.keyed_hash("garcia")
    assert any_store.keyed_hash("garcia") != any_store.keyed_hash("garcib")


def test_secret_is_created_once(any_store: Any) -> None:
    first = any_store.secret("card_code")
    assert len(first) == 32 and any_store.secret("card_code") == first
    assert any_store.secret("other") != first
    any_store.set_setting("casino_id", "MAD01")
    assert any_store.get_setting("casino_id") == "MAD01"
    assert any_store.get_setting("missing") is None


def test_one_valid_card_per_person(any_store: Any) -> None:
    """art. 22: the card is nominative and personal - no second card while one is valid."""
    first = any_store.record_admission(entry(1))
    again = any_store.record_admission(entry(1, T0 + timedelta(hours=1)))
    assert (again.card_number, again.existing_card) == (None, first.card_number)
    reentry = any_store.visits(1)[-1]  # a re-entry on the card held, not a refusal
    assert (reentry.verdict, reentry.reasons, reentry.card_number) == (
        "ALREADY_ADMITTED",
        ("ALREADY_ADMITTED",),
        None,
    )
    assert any_store.open_card(dni(1), madrid_date(T0)).number == first.card_number
    # Voided, the card no longer stands in the way; the number sequence has no gap.
    any_store.void_card(first.card_number, "lost, voided", "sup", T0)
    assert any_store.open_card(dni(1), madrid_date(T0)) is None
    third = any_store.record_admission(entry(1, T0 + timedelta(minutes=20)))
    assert (third.card_number, third.existing_card) == (2, None)
    # The next day the one-day card is no longer valid.
    assert any_store.record_admission(entry(1, T0 + DAY)).card_number == 3
    assert any_store.verify().ok


def test_a_pass_admits_its_holder_again_on_the_same_card(any_store: Any) -> None:
    week = card_for(T0, days=7, card_type="WEEK")
    first = any_store.record_admission(entry(1, card=week, reentry_types=frozenset({"WEEK"})))
    back = any_store.record_admission(
        entry(1, T0 + 3 * DAY, card=card_for(T0 + 3 * DAY), reentry_types=frozenset({"WEEK"}))
    )
    assert (back.card_number, back.existing_card) == (None, first.card_number)
    visit = any_store.visits(1)[-1]
    assert (visit.verdict, visit.reasons, visit.card_number) == ("ADMIT", (), None)
    assert any_store.last_card_number() == 1


def test_audit_head_names_the_newest_entry(any_store: Any) -> None:
    empty = any_store.head()
    assert (empty.seq, empty.digest, empty.at) == (0, "0" * 64, None)
    any_store.record_admission(entry(1))
    seq = any_store.append("inspector-1", "INSPECTOR_QUERY", "file:1", T0 + DAY)
    head = any_store.head()
    assert (head.seq, head.at) == (seq, T0 + DAY)
    assert head.digest == any_store.audit_entries()[-1].digest
    assert any_store.verify([AuditAnchor(seq, head.digest)]).anchors == 1

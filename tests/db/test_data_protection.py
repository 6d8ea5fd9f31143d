"""The data-protection store operations, run against SqlCipherStore and FakeStore alike:
rectification in one audited transaction the chain still verifies (art. 20.4; GDPR
art. 16), and the retention counts per Madrid month."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

import pytest

from admission.data_protection import (
    DataProtectionError,
    MonthSpan,
    month_spans,
)
from admission.inspection import SearchCriteria
from tests.db.conftest import Behind
from tests.db.factories import T0, card_for, entry

KW: dict[str, Any] = {"actor": "dora", "role": "DIRECTOR", "reason": "Error de tecleo", "at": T0}


def _rectified(store: Any) -> Any:
    return [e for e in store.audit_entries(0, 10_000) if e.action == "RECTIFIED"]


def test_a_renamed_visitor_is_found_by_the_new_name_only(any_store: Any) -> None:
    any_store.record_admission(entry(1, surname="GARCIA", given_names="ANA"))
    any_store.record_admission(entry(2, surname="LOPEZ", given_names="LUIS"))
    changed = any_store.rectify_visitor_name(1, "GARCÍA LÓPEZ", "ANA MARÍA", **KW)
    assert (changed.file_number, changed.surname, changed.given_names) == (
        1,
        "GARCÍA LÓPEZ",
        "ANA MARÍA",
    )
    assert any_store.visitor(1).surname == "GARCÍA LÓPEZ"
    assert [v.file_number for v in any_store.search_visitors("garcia lopez ana maria")] == [1]
    assert [v.file_number for v in any_store.search_visitors("lopez")] == [1, 2]
    assert any_store.search_visitors("garcia ana luis") == []
    # the visits, cards and dates stay as they were
    assert len(any_store.visits(1)) == 1 and changed.first_seen == T0


def test_the_inspectors_search_orders_by_the_new_name(any_store: Any) -> None:
    """The name words carry the sort form: a renamed visitor moves in the search's order."""
    for n, surname in enumerate(["ABAD LÓPEZ", "GARCÍA LÓPEZ", "LÓPEZ"], 1):
        any_store.record_admission(entry(n, surname=surname, given_names="ANA"))

    def order() -> list[int]:
        found = any_store.inspect_visitors(SearchCriteria(name="lopez ana"), 10)
        return [v.file_number for v in found]

    assert order() == [1, 2, 3]
    any_store.rectify_visitor_name(1, "ZAPATA LÓPEZ", "ANA", **KW)
    assert order() == [2, 3, 1]
    any_store.record_admission(entry(3, surname="ÁLVAREZ LÓPEZ", given_names="ANA"))  # new document
    assert order() == [3, 2, 1]


def test_the_old_name_words_are_gone_from_the_index(any_store: Any) -> None:
    any_store.record_admission(entry(1, surname="SMITH", given_names="JOHN"))
    any_store.rectify_visitor_name(1, "SMYTHE", "JOHN", **KW)
    assert any_store.search_visitors("smith") == []
    assert [v.file_number for v in any_store.search_visitors("smythe john")] == [1]


def test_the_rectification_is_audited_without_the_old_value_and_verifies(any_store: Any) -> None:
    any_store.record_admission(entry(1, surname="GARCIA", given_names="ANA"))
    any_store.rectify_visitor_name(1, "GARCIA", "ANNA", **KW)
    [audit] = _rectified(any_store)
    assert (audit.actor, audit.subject) == ("dora", "file:1")
    assert audit.details["fields"] == "given_names"
    assert audit.details["reason"] == "Error de tecleo" and audit.details["role"] == "DIRECTOR"
    assert audit.details["old_given_names"] == any_store.keyed_hash("ANA")
    assert "old_surname" not in audit.details
    assert sorted(audit.commits) == ["visitor:1"]
    assert "ANA" not in repr(audit.details).replace(any_store.keyed_hash("ANA"), "")
    check = any_store.verify()
    assert check.ok, check


def test_an_observation_is_rectified_and_the_chain_verifies(any_store: Any) -> None:
    any_store.record_admission(entry(1))
    any_store.add_observation(1, "Discutió con el crupier", "op-7", T0)
    any_store.add_observation(1, "Segunda nota", "op-7", T0 + timedelta(minutes=1))
    first, second = any_store.observations(1)
    assert first.observation_id >= 1 and second.observation_id > first.observation_id
    changed = any_store.rectify_observation_text(
        1, first.observation_id, "Discutió con otro jugador", **KW
    )
    assert (changed.text, changed.author, changed.at) == ("Discutió con otro jugador", "op-7", T0)
    assert changed.observation_id == first.observation_id
    assert [o.text for o in any_store.observations(1)] == [
        "Discutió con otro jugador",
        "Segunda nota",
    ]
    [audit] = _rectified(any_store)
    assert audit.details["fields"] == "text"
    assert audit.details["observation"] == str(first.observation_id)
    assert audit.details["old_text"] == any_store.keyed_hash("Discutió con el crupier")
    assert "crupier" not in repr(audit)
    assert sorted(audit.commits) == [f"observation:{first.observation_id}"]
    assert any_store.verify().ok


def test_unknown_and_unchanged_are_refused_and_write_nothing(any_store: Any) -> None:
    any_store.record_admission(entry(1, surname="GARCIA", given_names="ANA"))
    any_store.record_admission(entry(2))
    any_store.add_observation(2, "Nota", "op-7", T0)
    [note] = any_store.observations(2)
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: any_store.rectify_visitor_name(99, "X", "Y", **KW), "RECTIFY_NOT_FOUND"),
        (lambda: any_store.rectify_visitor_name(1, "GARCIA", "ANA", **KW), "RECTIFY_UNCHANGED"),
        (
            lambda: any_store.rectify_observation_text(1, note.observation_id, "Otra", **KW),
            "RECTIFY_NOT_FOUND",  # the observation is another file's
        ),
        (lambda: any_store.rectify_observation_text(2, 999, "Otra", **KW), "RECTIFY_NOT_FOUND"),
        (
            lambda: any_store.rectify_observation_text(2, note.observation_id, "Nota", **KW),
            "RECTIFY_UNCHANGED",
        ),
    ]
    head = any_store.head()
    for call, code in cases:
        with pytest.raises(DataProtectionError) as err:
            call()
        assert err.value.code == code
    assert any_store.head() == head
    assert any_store.observations(2)[0].text == "Nota"
    assert any_store.verify().ok


def test_sql_text_is_kept_literally(any_store: Any) -> None:
    any_store.record_admission(entry(1))
    any_store.add_observation(1, "Nota", "op-7", T0)
    [note] = any_store.observations(1)
    hostile = "'; DROP TABLE visits; --"
    any_store.rectify_observation_text(1, note.observation_id, hostile, **KW)
    assert any_store.observations(1)[0].text == hostile
    assert len(any_store.visits(1)) == 1 and any_store.verify().ok


def test_a_row_changed_behind_the_chain_is_still_detected_after_a_rectification(
    any_store: Any, behind: Behind
) -> None:
    any_store.record_admission(entry(1, surname="GARCIA", given_names="ANA"))
    any_store.rectify_visitor_name(1, "GARCIA", "ANNA", **KW)
    assert any_store.verify().ok
    behind("UPDATE visitors SET given_names = 'ANA' WHERE file_number = 1")
    check = any_store.verify()
    assert (check.ok, check.problem, check.row) == (False, "ROW_CHANGED", "visitor:1")
    assert check.first_bad_seq == _rectified(any_store)[0].seq


# -- the retention counts ----------------------------------------------------------------

NOW = datetime(2026, 7, 15, 12, 0, tzinfo=UTC)


def test_totals_and_months_count_what_the_file_holds(any_store: Any) -> None:
    # 31 March 23:30 UTC is 1 April in Madrid (summer time): an April visit
    march_end = datetime(2026, 3, 31, 23, 30, tzinfo=UTC)
    any_store.record_admission(entry(1, datetime(2026, 1, 10, 21, 0, tzinfo=UTC)))
    any_store.record_admission(entry(1, march_end))
    any_store.record_admission(entry(2, march_end + timedelta(hours=1), card=False))
    any_store.record_admission(
        entry(3, datetime(2026, 7, 1, 20, 0, tzinfo=UTC), card=False, verdict="DENY")
    )
    any_store.add_observation(2, "Nota", "op-7", datetime(2026, 2, 1, 12, 0, tzinfo=UTC))
    cutoff = datetime(2026, 1, 15, tzinfo=UTC)
    totals = any_store.retention_totals(cutoff)
    assert (totals.visitors, totals.visits, totals.observations, totals.cards) == (3, 4, 1, 2)
    assert totals.overdue == 1
    assert totals.oldest_visit == datetime(2026, 1, 10, 21, 0, tzinfo=UTC)
    assert totals.oldest_observation == datetime(2026, 2, 1, 12, 0, tzinfo=UTC)
    assert totals.oldest_card == datetime(2026, 1, 10, 21, 0, tzinfo=UTC)
    months = any_store.retention_months(month_spans(totals.oldest_visit, NOW))
    assert [m.month for m in months] == [f"2026-{m:02d}" for m in range(1, 8)]
    rows = {m.month: (m.visits, m.admissions, m.refusals, m.cards, m.new_visitors) for m in months}
    assert rows["2026-01"] == (1, 1, 0, 1, 1)
    assert rows["2026-03"] == (0, 0, 0, 0, 0)
    assert rows["2026-04"] == (2, 2, 0, 1, 1)  # visitor 1 first came in January
    assert rows["2026-07"] == (1, 0, 1, 0, 1)


def test_an_empty_file_counts_nothing(any_store: Any) -> None:
    totals = any_store.retention_totals(NOW)
    assert (totals.visits, totals.overdue, totals.oldest_visit, totals.oldest_card) == (
        0,
        0,
        None,
        None,
    )
    assert any_store.retention_months([]) == ()
    span = MonthSpan("2026-07", NOW - timedelta(days=14), NOW + timedelta(days=16))
    [month] = any_store.retention_months([span])
    assert (month.visits, month.cards, month.new_visitors) == (0, 0, 0)


def test_madrid_month_spans() -> None:
    spans = month_spans(datetime(2026, 2, 28, 23, 30, tzinfo=UTC), NOW)  # 1 March in Madrid
    assert spans[0].month == "2026-03"
    assert spans[0].start == datetime(2026, 2, 28, 23, 0, tzinfo=UTC)  # winter: UTC+1
    assert spans[0].end == datetime(2026, 3, 31, 22, 0, tzinfo=UTC)  # summer: UTC+2
    assert [s.month for s in spans][-1] == "2026-07"
    assert all(a.end == b.start for a, b in pairwise(spans))


def test_a_card_whose_visit_was_purged_is_still_counted(any_store: Any) -> None:
    made = datetime(2026, 1, 10, 21, 0, tzinfo=UTC)
    any_store.record_admission(entry(1, made, card=card_for(made, days=400)))
    any_store.record_admission(entry(2, made + timedelta(days=40), card=False))
    any_store.purge(made + timedelta(days=1))  # the visit goes, the valid card stays
    totals = any_store.retention_totals(made)
    assert (totals.visits, totals.cards, totals.oldest_card) == (1, 1, made)
    months = any_store.retention_months(month_spans(made, NOW))
    assert [(m.month, m.visits, m.cards) for m in months[:2]] == [
        ("2026-01", 0, 1),
        ("2026-02", 1, 0),
    ]

"""The visitor file's rules on an admission (admission/entry_rules.py): pure, before any
store (the stores' own tests run them through record_admission: tests/db/test_contract.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from admission.entry_rules import check_entry, one_card, with_reason
from admission.errors import InvalidStateError
from admission.records import RecordErrorCode
from admission.verdict import Reason
from tests.db.factories import T0, card_for, entry


def test_no_card_held_keeps_the_entry_and_its_new_card() -> None:
    admitted = entry(1)
    assert one_card(admitted, None) == (admitted, None)
    refused = entry(1, card=False, verdict="DENY")
    assert one_card(refused, (7, "STANDARD")) == (refused, None)  # no card asked: no look


def test_a_card_held_takes_the_new_ones_place_as_a_reentry() -> None:
    recorded, existing = one_card(entry(1, reasons=("LAST_HOUR",)), (7, "STANDARD"))
    assert existing == 7 and recorded.card is None
    assert recorded.verdict == "ALREADY_ADMITTED"
    assert recorded.reasons == ("ALREADY_ADMITTED", "LAST_HOUR")


def test_a_pass_admits_its_holder_again_without_a_second_card() -> None:
    holder = entry(1, card=card_for(T0, days=3), reentry_types=frozenset({"PASS"}))
    recorded, existing = one_card(holder, (7, "PASS"))
    assert existing == 7 and recorded == replace(holder, card=None)


def test_a_reason_is_added_once_in_the_desks_order() -> None:
    merged = with_reason(("CLOSED", "MINOR"), Reason.ALREADY_ADMITTED)
    assert merged == ("MINOR", "ALREADY_ADMITTED", "CLOSED")
    assert with_reason(merged, Reason.ALREADY_ADMITTED) == merged


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"official_capacity": "INSPECTOR"}, RecordErrorCode.OFFICIAL_NO_CARD),
        ({"verdict": "DENY"}, RecordErrorCode.CARD_ON_DENY),
        ({"card": card_for(T0, exceptional=True)}, RecordErrorCode.AUTHORISATION_REQUIRED),
        ({"card": card_for(T0, days=0)}, RecordErrorCode.BAD_VALIDITY),
    ],
)
def test_entries_the_domain_never_makes_are_refused(
    changes: dict[str, object], code: RecordErrorCode
) -> None:
    with pytest.raises(InvalidStateError) as refused:
        check_entry(entry(1, **changes))
    assert refused.value.code is code
    check_entry(entry(1))  # a plain admission passes

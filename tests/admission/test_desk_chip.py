"""The desk with the document's chip: a forged chip is refused and recorded, and nobody
waives it - not the director's override, not the exceptional card; what the chip proved
is in the audit beside the visit, never a data group or the photo."""

from __future__ import annotations

from dataclasses import replace

import pytest

from admission.chip import ChipAuthentication, ChipCheck, ChipCode
from admission.desk import CHIP_AUDIT, OVERRIDABLE
from admission.verdict import Outcome, Reason
from tests.factories import dni_document, make_desk
from tests.fake_store import FakeStore

FORGED = ChipCheck(ChipCode.DG_HASH_MISMATCH, "PACE", ChipAuthentication.NONE, "ESP")
GENUINE = ChipCheck(None, "PACE", ChipAuthentication.CHIP_AUTHENTICATION, "ESP")
NO_LIST = ChipCheck(ChipCode.NO_MASTER_LIST, "BAC", ChipAuthentication.NONE, "")


def chip_audits(store: FakeStore) -> list[tuple[object, ...]]:
    return [args for name, args in store.calls if name == "append" and args[1] == CHIP_AUDIT]


def test_a_forged_chip_is_refused_and_recorded_with_the_chip_in_the_audit() -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store)
    result = desk.admit(replace(dni_document(), chip=FORGED), operator="clerk1")
    assert result.verdict.outcome is Outcome.DENY and result.card is None
    assert result.verdict.codes == ("CHIP_FORGED",)
    assert store.visits(result.recorded.file_number)[0].reasons == ("CHIP_FORGED",)
    [(actor, _action, subject, _at, details)] = chip_audits(store)
    assert (actor, subject) == ("clerk1", f"visit:{result.recorded.visit_id}")
    assert details == {
        "status": "CHIP_FORGED",
        "code": "CHIP_DG_HASH_MISMATCH",
        "access": "PACE",
        "authentication": "CHIP_AUTH_NONE",
        "issuer": "ESP",
    }


def test_nobody_waives_a_forged_chip() -> None:
    assert Reason.CHIP_FORGED not in OVERRIDABLE
    store = FakeStore()
    # a policy that leaves every other case to the director
    desk, _, registry = make_desk(
        store, unverifiable_outcome=Outcome.SUPERVISOR, chip_unverifiable_outcome=Outcome.SUPERVISOR
    )
    forged = replace(dni_document(), chip=FORGED)
    overridden = desk.admit(forged, operator="c", authorised_by="director")
    assert overridden.verdict.outcome is Outcome.DENY and overridden.card is None
    # the exceptional card (art. 23.5) on the document on screen: still refused
    exceptional = desk.admit(forged, operator="c", authorised_by="director", exceptional=True)
    assert exceptional.verdict.outcome is Outcome.DENY and exceptional.card is None
    assert exceptional.verdict.codes == ("CHIP_FORGED",)
    registry.down = True  # with other reasons the director could take: still refused
    both = desk.admit(forged, operator="c", authorised_by="director")
    assert both.verdict.outcome is Outcome.DENY and both.card is None
    assert store.last_card_number() == 0


@pytest.mark.parametrize(
    ("setting", "outcome", "card"),
    [
        (Outcome.ADMIT, Outcome.ADMIT, True),
        (Outcome.SUPERVISOR, Outcome.SUPERVISOR, False),
        (Outcome.DENY, Outcome.NOT_ADMITTED, False),
    ],
)
def test_an_unverifiable_chip_is_the_policys(
    setting: Outcome, outcome: Outcome, card: bool
) -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store, chip_unverifiable_outcome=setting)
    result = desk.admit(replace(dni_document(), chip=NO_LIST), operator="c")
    assert result.verdict.outcome is outcome
    assert result.verdict.codes == ("CHIP_NOT_VERIFIABLE",)
    assert (result.card is not None) is card
    [(_actor, _action, _subject, _at, details)] = chip_audits(store)
    assert details["status"] == "CHIP_NOT_VERIFIABLE" and details["code"] == "CHIP_NO_MASTER_LIST"


def test_the_director_may_take_an_unverifiable_chip_when_the_policy_says_so() -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store, chip_unverifiable_outcome=Outcome.SUPERVISOR)
    result = desk.admit(replace(dni_document(), chip=NO_LIST), operator="c", authorised_by="dir")
    assert result.verdict.outcome is Outcome.ADMIT and result.card is not None
    assert result.card.authorised_by == "dir"


def test_a_genuine_chip_admits_and_a_document_read_without_its_chip_leaves_no_chip_entry() -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store)
    genuine = desk.admit(replace(dni_document(1), chip=GENUINE), operator="c")
    assert genuine.verdict.outcome is Outcome.ADMIT and genuine.verdict.reasons == ()
    assert len(chip_audits(store)) == 1
    plain = desk.admit(dni_document(2), operator="c")
    assert plain.verdict.outcome is Outcome.ADMIT and len(chip_audits(store)) == 1


def test_a_card_holder_whose_chip_the_policy_will_not_admit_unproven_is_not_admitted() -> None:
    store = FakeStore()
    desk, _, _ = make_desk(store, chip_unverifiable_outcome=Outcome.DENY)
    desk.admit(dni_document(), operator="c")  # a card held (art. 22)
    again = desk.evaluate(replace(dni_document(), chip=NO_LIST))
    assert again.verdict.outcome is Outcome.NOT_ADMITTED
    assert again.verdict.reasons == (Reason.ALREADY_ADMITTED, Reason.CHIP_UNVERIFIABLE)

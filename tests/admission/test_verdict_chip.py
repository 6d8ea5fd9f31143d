"""The chip's say in the verdict (art. 23.1): a forged chip is refused and nothing waives
it; a chip that proves nothing is the policy's; no chip read says nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

import pytest

from admission.chip import ChipAuthentication, ChipCheck, ChipCode
from admission.registry.port import RegistryAnswer, RegistrySource, RegistryStatus
from admission.verdict import AdmissionFacts, AdmissionPolicy, Outcome, Reason, Verdict, decide

AT = datetime(2026, 11, 28, 21, 30, tzinfo=UTC)
TODAY = date(2026, 11, 28)
CLEAR = RegistryAnswer(RegistryStatus.NOT_LISTED, RegistrySource.REPLICA, version="v1")
GENUINE = ChipCheck(None, "PACE", ChipAuthentication.CHIP_AUTHENTICATION, "ESP")
FORGED = ChipCheck(ChipCode.DG_HASH_MISMATCH, "PACE", ChipAuthentication.NONE, "ESP")
MISMATCH = ChipCheck(ChipCode.DG1_MRZ_MISMATCH, "BAC")
NO_LIST = ChipCheck(ChipCode.NO_MASTER_LIST, "PACE")
NO_CHIP = ChipCheck(ChipCode.NO_CHIP)


@dataclass(frozen=True)
class Doc:
    doc_type: str = "ID_CARD"
    valid: bool = True
    birth_date: date | None = date(1980, 5, 17)
    expiry_date: date | None = date(2030, 1, 1)
    specimen: bool = False


def verdict(
    chip: ChipCheck | None,
    policy: AdmissionPolicy = AdmissionPolicy(),
    doc: Doc = Doc(),
    **facts: object,
) -> Verdict:
    base: dict[str, object] = {"document": doc, "registry": CLEAR, "chip": chip}
    base.update(facts)
    return decide(AdmissionFacts(**base), policy, AT, TODAY)  # type: ignore[arg-type]


def test_no_chip_read_and_a_genuine_chip_say_nothing() -> None:
    assert verdict(None) == Verdict(Outcome.ADMIT)
    assert verdict(GENUINE) == Verdict(Outcome.ADMIT)


@pytest.mark.parametrize("chip", [FORGED, MISMATCH, ChipCheck(ChipCode.CHIP_AUTH_FAILED)])
@pytest.mark.parametrize(
    "policy",
    [
        AdmissionPolicy(),
        AdmissionPolicy(chip_unverifiable_outcome=Outcome.SUPERVISOR),
        AdmissionPolicy(unverifiable_outcome=Outcome.SUPERVISOR, staff_outcome=Outcome.ADMIT),
    ],
)
def test_a_forged_chip_is_refused_whatever_the_policy_and_for_an_exceptional_card(
    chip: ChipCheck, policy: AdmissionPolicy
) -> None:
    assert verdict(chip, policy) == Verdict(Outcome.DENY, (Reason.CHIP_FORGED,))
    # art. 23.5 waives the document rules for an exceptional card, never a forgery
    exceptional = verdict(chip, policy, Doc(valid=False), exceptional=True)
    assert exceptional == Verdict(Outcome.DENY, (Reason.CHIP_FORGED,))


@pytest.mark.parametrize(
    ("setting", "outcome"),
    [
        (Outcome.ADMIT, Outcome.ADMIT),  # a note beside the admission
        (Outcome.SUPERVISOR, Outcome.SUPERVISOR),
        (Outcome.DENY, Outcome.NOT_ADMITTED),  # no proof is not a refusal of the person
    ],
)
@pytest.mark.parametrize("chip", [NO_LIST, NO_CHIP, ChipCheck(ChipCode.CAN_NEEDED)])
def test_a_chip_that_proves_nothing_is_the_policys(
    chip: ChipCheck, setting: Outcome, outcome: Outcome
) -> None:
    policy = AdmissionPolicy(chip_unverifiable_outcome=setting)
    assert verdict(chip, policy) == Verdict(outcome, (Reason.CHIP_UNVERIFIABLE,))
    # a document rule: waived for the exceptional card like the others (art. 23.5)
    assert verdict(chip, policy, exceptional=True) == Verdict(Outcome.ADMIT)


def test_the_default_policy_admits_an_unverifiable_chip_with_the_code_shown() -> None:
    assert AdmissionPolicy().chip_unverifiable_outcome is Outcome.ADMIT
    v = verdict(NO_LIST)
    assert v.outcome is Outcome.ADMIT and v.codes == ("CHIP_NOT_VERIFIABLE",)


def test_a_forged_chip_is_shown_beside_the_other_reasons() -> None:
    v = verdict(FORGED, doc=Doc(birth_date=date(2012, 1, 1)))
    assert v.outcome is Outcome.DENY
    assert v.reasons == (Reason.MINOR, Reason.CHIP_FORGED)


def test_a_policy_outcome_for_the_chip_is_one_the_rules_give() -> None:
    with pytest.raises(ValueError):
        AdmissionPolicy(chip_unverifiable_outcome=Outcome.NOT_ADMITTED)

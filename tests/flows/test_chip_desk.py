"""Whole admissions with the document's chip, on the product's own read: a virtual chip
on the fake PC/SC reader, read by the desk's station (BAC/PACE, secure messaging, passive
authentication), then the desk's verdict and record (art. 23.1). A forged chip is
refused and nobody waives it; a chip that proves nothing is the policy's."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from admission.chip import ChipCheck, ChipCode, ChipStatus
from admission.documents import IdentityDocument, document_from_mrz
from admission.mrz.parse import parse_mrz
from admission.verdict import Outcome
from hardware.chip.fake import FakeChipReader
from hardware.chip.lds import build_dg2
from hardware.chip.passive import TrustStore
from hardware.chip.reader import ReaderStation
from hardware.chip.virtual_chip import VirtualChip, make_document
from hardware.generators.demo_chips import invented_face
from tests.factories import SATURDAY_NIGHT, make_desk
from tests.fake_store import FakeStore
from ui.desk.demo_scenario import demo_cases

TODAY = SATURDAY_NIGHT.date()
LINES = demo_cases(TODAY)[0].lines  # an invented adult's DNI 4.0 (TD1)
PRINTED = "".join(LINES)


def document() -> IdentityDocument:
    return document_from_mrz(parse_mrz(list(LINES), today=TODAY))


def read(chip: VirtualChip | None, trust: TrustStore | None, can: str = "") -> ChipCheck:
    """The desk's read of ``chip`` (None: no card on the reader) with the MRZ's key."""
    station = ReaderStation(FakeChipReader.of([chip]), lambda: trust, card_timeout=0.0)
    doc = document()
    assert doc.birth_date is not None and doc.expiry_date is not None
    got = station.read(
        document_number=doc.document_number,
        birth=doc.birth_date.strftime("%y%m%d"),
        expiry=doc.expiry_date.strftime("%y%m%d"),
        can=can,
        printed_mrz=PRINTED,
        at=datetime(2026, 11, 28, 20, 0, tzinfo=UTC),
    )
    return got.check


def chip_of(**kwargs: object) -> tuple[VirtualChip, TrustStore]:
    options: dict[str, object] = {"access": "PACE+BAC", **kwargs}
    return make_document(PRINTED, invented_face(3), **options)  # type: ignore[arg-type]


def test_a_genuine_chip_admits_with_its_card() -> None:
    chip, trust = chip_of(chip_auth=True)
    check = read(chip, trust)
    assert check.genuine and check.access == "PACE" and check.issuer == "ESP"
    desk, _, _ = make_desk(FakeStore())
    result = desk.admit(replace(document(), chip=check), operator="clerk1")
    assert result.verdict.outcome is Outcome.ADMIT and result.card is not None


@pytest.mark.parametrize(
    "tampered",
    [
        {"replace": {"DG2": build_dg2(invented_face(99), "image/jpeg")}},  # a swapped face
        {"replace": {"SOD": b"\x77\x03\x01\x02\x03"}},  # a truncated SOD
    ],
    ids=["swapped-face", "truncated-sod"],
)
def test_a_forged_chip_is_refused_and_neither_the_director_nor_the_exceptional_card_waive_it(
    tampered: dict[str, object],
) -> None:
    chip, trust = chip_of(**tampered)
    check = read(chip, trust)
    assert check.status is ChipStatus.FORGED
    store = FakeStore()
    desk, _, _ = make_desk(
        store,
        unverifiable_outcome=Outcome.SUPERVISOR,
        chip_unverifiable_outcome=Outcome.SUPERVISOR,
    )
    forged = replace(document(), chip=check)
    assert desk.admit(forged, operator="c").verdict.outcome is Outcome.DENY
    overridden = desk.admit(forged, operator="c", authorised_by="director")
    exceptional = desk.admit(forged, operator="c", authorised_by="director", exceptional=True)
    for result in (overridden, exceptional):
        assert result.verdict.outcome is Outcome.DENY and result.card is None
        assert "CHIP_FORGED" in result.verdict.codes
    assert store.last_card_number() == 0


@pytest.mark.parametrize(
    ("setting", "outcome"),
    [
        (Outcome.ADMIT, Outcome.ADMIT),
        (Outcome.SUPERVISOR, Outcome.SUPERVISOR),
        (Outcome.DENY, Outcome.NOT_ADMITTED),
    ],
)
@pytest.mark.parametrize("case", ["no-master-list", "no-card", "can-needed"])
def test_a_chip_that_proves_nothing_is_the_policys(
    setting: Outcome, outcome: Outcome, case: str
) -> None:
    if case == "no-master-list":
        chip, _trust = chip_of()
        check = read(chip, None)
        assert check.code is ChipCode.NO_MASTER_LIST
    elif case == "no-card":
        check = read(None, None)
        assert check.code is ChipCode.NO_CHIP
    else:  # a DNIe 3.0/4.0: PACE with its CAN only
        chip, trust = chip_of(access="PACE", can="482913")
        check = read(chip, trust)
        assert check.code is ChipCode.CAN_NEEDED
    assert check.status is ChipStatus.NOT_VERIFIABLE
    desk, _, _ = make_desk(FakeStore(), chip_unverifiable_outcome=setting)
    result = desk.admit(replace(document(), chip=check), operator="c")
    assert result.verdict.outcome is outcome
    assert result.verdict.codes == ("CHIP_NOT_VERIFIABLE",)
    assert (result.card is not None) is (outcome is Outcome.ADMIT)


def test_the_can_opens_the_dnie_and_proves_it() -> None:
    chip, trust = chip_of(access="PACE", can="482913")
    check = read(chip, trust, can="482913")
    assert check.genuine and check.access == "PACE"

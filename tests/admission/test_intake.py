"""Scanned input reaches the same admission flow as the camera (art. 20.1: every visitor
identified the same way)."""

from __future__ import annotations

import json
from pathlib import Path

from admission.cards.code import encode_card_code
from admission.intake import IntakeKind, ScanIntake
from admission.mrz.burst import BurstConfig, MrzBurstAssembler
from tests.admission.test_aamva import US, build
from tests.factories import dni_document, make_desk
from tests.fake_store import FakeStore

BURSTS = Path(__file__).resolve().parents[1] / "scanner" / "bursts"


def intake_on_fake_store() -> tuple[ScanIntake, FakeStore]:
    store = FakeStore()
    desk, clock, _ = make_desk(store)
    intake = ScanIntake(
        desk,
        store=store,
        clock=clock,
        card_key=store.secret("card_code"),
        casino_id="CAS01",
        actor="clerk",
    )
    return intake, store


def events_of(name: str) -> list[object]:
    assembler = MrzBurstAssembler(BurstConfig())
    raw = json.loads((BURSTS / f"{name}.json").read_text())
    events = [e for c, t in raw for e in assembler.feed(c, float(t))]
    return events + list(assembler.poll(float(raw[-1][1]) + 5))


def test_a_scanned_mrz_is_evaluated_and_nothing_is_recorded_until_the_clerk_admits() -> None:
    intake, store = intake_on_fake_store()
    results = [
        intake.handle(e)
        for e in events_of("td3_crlf")  # type: ignore[arg-type]
        if type(e).__name__ != "Passthrough"
    ]
    assert [r.kind for r in results] == [IntakeKind.DOCUMENT]
    result = results[0]
    assert result.evaluation is not None and result.document is not None
    assert result.document.document_number == "L898902C3"  # the ICAO specimen, scanned
    # a Utopia specimen, and expired in 2012: refused on both counts, never admitted
    assert result.evaluation.verdict.codes == ("DOCUMENT_EXPIRED", "SPECIMEN")
    assert store.find_visitor(result.evaluation.document.identity) is None


def test_a_burst_cut_in_half_becomes_a_hint_not_a_document() -> None:
    intake, _ = intake_on_fake_store()
    results = [
        intake.handle(e)
        for e in events_of("td3_cut_in_half")  # type: ignore[arg-type]
        if type(e).__name__ != "Passthrough"
    ]
    assert results and all(r.kind is IntakeKind.HINT for r in results)
    assert all(r.code.startswith("BURST_") for r in results)


def test_our_card_code_is_verified_and_the_check_recorded() -> None:
    intake, store = intake_on_fake_store()
    desk, _, _ = make_desk(store, clock=intake._clock)  # type: ignore[attr-defined]
    number = desk.admit(dni_document(), operator="c").recorded.card_number
    assert number is not None
    code = encode_card_code("CAS01", number, store.secret("card_code"))
    result = intake.code(code)
    assert result.kind is IntakeKind.CARD and result.code == "VALID"
    assert store.audit_entries()[-1].action == "CARD_CHECK"
    forged = code[:-1] + ("A" if code[-1] != "A" else "B")
    assert intake.code(forged).code == "CODE_TAMPERED"


def test_an_aamva_licence_is_evaluated_like_any_document() -> None:
    intake, _ = intake_on_fake_store()
    result = intake.code(build(US))
    assert result.kind is IntakeKind.DOCUMENT and result.document is not None
    assert result.document.doc_type == "DRIVING_LICENCE"
    assert result.code == "ADMIT"


def test_unknown_codes_and_bad_zones_are_unreadable() -> None:
    intake, _ = intake_on_fake_store()
    assert intake.code("4006381333931").kind is IntakeKind.UNREADABLE
    bad = intake.document_lines(
        (
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L898902C36UTO7408122F1204159ZE184226B<<<<<11",
        )
    )
    assert bad.kind is IntakeKind.UNREADABLE and "CHECK_COMPOSITE" in bad.errors

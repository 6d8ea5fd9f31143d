"""MRZ burst assembler: recorded bursts in, whole MRZs (and only those) out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from admission.mrz.burst import (
    BURST_BAD_CHARS,
    BURST_CONTROL_CHARS,
    BURST_PARTIAL,
    BURST_TOO_LONG,
    BurstConfig,
    BurstDiscarded,
    BurstEvent,
    CodeScanned,
    MrzBurstAssembler,
    MrzScanned,
    Passthrough,
    split_mrz,
)

BURSTS = Path(__file__).parent.parent / "scanner" / "bursts"
TD3 = (
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
)
TD2 = ("I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6")
TD1 = (
    "I<UTOD231458907<<<<<<<<<<<<<<<",
    "7408122F1204159UTO<<<<<<<<<<<6",
    "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
)


def load(name: str) -> list[tuple[str, float]]:
    return [(str(c), float(t)) for c, t in json.loads((BURSTS / f"{name}.json").read_text())]


def run(events: list[tuple[str, float]], config: BurstConfig | None = None) -> list[BurstEvent]:
    return MrzBurstAssembler(config).feed_all(events)


def typed(text: str, gap: float, t0: float = 1.0) -> list[tuple[str, float]]:
    return [(c, t0 + i * gap) for i, c in enumerate(text)]


def only(events: list[BurstEvent]) -> BurstEvent:
    assert len(events) == 1, events
    return events[0]


@pytest.mark.parametrize(
    ("name", "fmt", "lines"),
    [
        ("td3_crlf", "TD3", TD3),
        ("td1_cr_only", "TD1", TD1),
        ("td2_lf_stx_etx", "TD2", TD2),
        ("td3_aim_and_reader_codes", "TD3", TD3),
        ("td3_split_lines", "TD3", TD3),
        ("td1_no_terminators", "TD1", TD1),
        ("serial_chunks_td3", "TD3", TD3),
    ],
)
def test_recorded_reader_bursts(name: str, fmt: str, lines: tuple[str, ...]) -> None:
    event = only(run(load(name)))
    assert isinstance(event, MrzScanned)
    assert (event.format, event.lines) == (fmt, lines)
    assert event.started_at <= event.ended_at


def test_person_typing_fast_is_passed_through_unchanged() -> None:
    events = run(load("human_typing_fast"))
    assert all(isinstance(e, Passthrough) for e in events)
    assert "".join(e.text for e in events if isinstance(e, Passthrough)) == TD3[0]


def test_mrz_typed_by_a_person_is_never_a_scan() -> None:
    text = "\r".join(TD3) + "\r"
    events = run(typed(text, 0.06))
    assert not any(isinstance(e, MrzScanned) for e in events)
    assert "".join(e.text for e in events if isinstance(e, Passthrough)) == text


def test_burst_cut_in_half_is_discarded_with_hint() -> None:
    event = only(run(load("td3_cut_in_half")))
    assert isinstance(event, BurstDiscarded)
    assert event.code == BURST_PARTIAL


def test_control_characters_reject_the_burst() -> None:
    event = only(run(load("hostile_control_chars")))
    assert isinstance(event, BurstDiscarded)
    assert event.code == BURST_CONTROL_CHARS


def test_ten_thousand_characters_bounded_and_rejected() -> None:
    asm = MrzBurstAssembler()
    events: list[BurstEvent] = []
    for c, t in load("hostile_10000"):
        events.extend(asm.feed(c, t))
        assert len(asm._buf.chars) <= asm.config.max_burst_chars  # bounded memory
    events.extend(asm.poll(1e9))
    event = only(events)
    assert isinstance(event, BurstDiscarded)
    assert (event.code, event.length) == (BURST_TOO_LONG, 10_000)


def test_card_code_from_a_wedge_reader() -> None:
    event = only(run(load("card_code_wedge")))
    assert isinstance(event, CodeScanned)
    assert event.text == "ADM1-MAD01-1234567-7QX2KD9M"


def test_markup_is_plain_data_never_an_mrz() -> None:
    event = only(run(load("markup_burst")))
    assert isinstance(event, CodeScanned)  # the UI shows it as plain text, if at all
    assert event.text.startswith("<b>")


def test_non_ascii_code_burst_is_rejected() -> None:
    event = only(run(typed("ÑANDÚ-12345\r", 0.003)))
    assert isinstance(event, BurstDiscarded)
    assert event.code == BURST_BAD_CHARS


def test_configured_prefix_and_suffix() -> None:
    config = BurstConfig(prefixes=("#MRZ#",), suffixes=("#END#",), terminators=frozenset("|"))
    events = run(typed("#MRZ#" + "|".join(TD2) + "#END#", 0.004), config)
    event = only(events)
    assert isinstance(event, MrzScanned)
    assert event.lines == TD2


def test_crlf_when_only_lf_configured_is_rejected() -> None:
    config = BurstConfig(terminators=frozenset("\n"))
    event = only(run(typed("\r\n".join(TD3), 0.004), config))
    assert isinstance(event, BurstDiscarded)
    assert event.code == BURST_CONTROL_CHARS


def test_line_boundaries_must_match_when_terminators_are_sent() -> None:
    # 88 characters but broken at the wrong place: not two TD3 lines as scanned
    wrong = TD3[0][:40] + "\r" + TD3[0][40:] + TD3[1] + "\r"
    event = only(run(typed(wrong, 0.004)))
    assert isinstance(event, BurstDiscarded)
    assert event.code == BURST_PARTIAL


def test_one_character_too_many_is_not_an_mrz() -> None:
    event = only(run(typed(TD3[0] + "\r" + TD3[1] + "<\r", 0.004)))
    assert isinstance(event, BurstDiscarded)
    assert event.code == BURST_PARTIAL


def test_two_bursts_in_a_row_and_typing_between() -> None:
    events = typed("\r".join(TD2) + "\r", 0.004, t0=1.0)
    events += typed("ab", 0.2, t0=3.0)
    events += typed("\r".join(TD1) + "\r", 0.004, t0=5.0)
    out = run(events)
    kinds = [type(e).__name__ for e in out]
    assert kinds == ["MrzScanned", "Passthrough", "Passthrough", "MrzScanned"]
    assert [e.format for e in out if isinstance(e, MrzScanned)] == ["TD2", "TD1"]


def test_pause_longer_than_end_gap_splits_the_burst() -> None:
    events = typed(TD3[0] + "\r", 0.004, t0=1.0) + typed(TD3[1] + "\r", 0.004, t0=2.0)
    out = run(events)
    assert [e.code for e in out if isinstance(e, BurstDiscarded)] == [BURST_PARTIAL] * 2


def test_deadline_and_poll() -> None:
    asm = MrzBurstAssembler()
    assert asm.deadline() is None
    assert asm.feed("a", 1.0) == []
    assert asm.undecided and asm.holding
    deadline = asm.deadline()
    assert deadline == pytest.approx(1.0 + asm.config.max_key_gap)
    assert asm.poll(1.01) == []
    assert asm.poll(deadline) == [Passthrough("a")]
    assert not asm.holding


def test_interrupt_releases_held_keys() -> None:
    asm = MrzBurstAssembler()
    asm.feed("x", 1.0)
    asm.feed("y", 1.01)
    assert asm.interrupt() == [Passthrough("xy")]
    assert asm.interrupt() == []


def test_serial_mode_takes_every_character_as_scanned() -> None:
    config = BurstConfig(assume_scanner=True)
    event = only(run(typed("\r".join(TD2) + "\r", 0.05), config))
    assert isinstance(event, MrzScanned)


def test_split_mrz_never_changes_characters() -> None:
    assert split_mrz(list(TD3)) == ("TD3", TD3)
    assert split_mrz(["".join(TD1)]) == ("TD1", TD1)
    assert split_mrz([TD3[0], TD3[1].lower()]) is None
    assert split_mrz([]) is None


def test_config_validation() -> None:
    with pytest.raises(ValueError):
        BurstConfig(max_key_gap=0.5, end_gap=0.1)
    with pytest.raises(ValueError):
        BurstConfig(min_burst_chars=1)
    with pytest.raises(ValueError):
        BurstConfig(terminators=frozenset({"\r\n"}))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.characters(), st.sampled_from(list("<ABC0123\r\n"))),
            st.floats(0.0, 0.3),
        ),
        max_size=400,
    )
)
def test_arbitrary_streams_never_crash_or_invent_an_mrz(pairs: list[tuple[str, float]]) -> None:
    t, events = 0.0, []
    for c, dt in pairs:
        t += dt
        events.append((c, t))
    sent = "".join(c for c, _ in events)
    for event in run(events):
        if isinstance(event, MrzScanned):
            # every emitted line was sent, character for character
            assert all(line in sent for line in event.lines)
        if isinstance(event, CodeScanned):
            assert all(c == "\n" or " " <= c <= "~" for c in event.text)
            assert len(event.text) <= 300


def test_passthrough_preserves_everything_a_person_types() -> None:
    text = "García López, 12345678Z <>&\"'\r"
    out = run(typed(text, 0.09))
    assert "".join(e.text for e in out if isinstance(e, Passthrough)) == text


@pytest.mark.parametrize("name", ["td3_crlf", "td1_cr_only", "td2_lf_stx_etx"])
def test_scanned_lines_take_the_camera_path(name: str) -> None:
    """A reader's MRZ goes through the same parser and document model as the camera's."""
    from datetime import date

    from admission.documents import DocumentSource, document_from_mrz
    from admission.mrz.parse import parse_mrz

    event = only(run(load(name)))
    assert isinstance(event, MrzScanned)
    result = parse_mrz(list(event.lines), today=date(2026, 11, 29))
    assert result.valid, result.errors
    document = document_from_mrz(result)
    assert document.source is DocumentSource.MRZ
    assert document.surname == "ERIKSSON" and document.issuer == "UTO"


def test_a_whole_mrz_and_its_line_end_finish_after_a_short_silence() -> None:
    # the reader's last line end closes one MRZ: no more lines can belong to it, so the
    # verdict need not wait the between-lines pause (end_gap)
    asm = MrzBurstAssembler()
    last = 0.0
    for char, at in typed("\r".join(TD1) + "\r", 0.002):
        assert asm.feed(char, at) == []
        last = at
    assert asm.deadline() == pytest.approx(last + asm.config.max_key_gap)
    event = only(asm.poll(last + asm.config.max_key_gap))
    assert isinstance(event, MrzScanned) and event.lines == TD1


def test_two_lines_of_three_still_wait_for_the_pause_between_lines() -> None:
    asm = MrzBurstAssembler()
    last = 0.0
    for char, at in typed("\r".join(TD1[:2]) + "\r", 0.002):
        asm.feed(char, at)
        last = at
    assert asm.deadline() == pytest.approx(last + asm.config.end_gap)
    assert asm.poll(last + asm.config.max_key_gap) == []
    # the third line arrives after a reader's pause between lines and completes it
    events: list[BurstEvent] = []
    for char, at in typed(TD1[2] + "\r", 0.002, t0=last + 0.1):
        events += asm.feed(char, at)
        last = at
    events += asm.poll(last + asm.config.max_key_gap)
    assert isinstance(only(events), MrzScanned)


def test_a_trailing_reader_code_keeps_the_burst_open() -> None:
    config = BurstConfig(suffixes=("#END",))
    asm = MrzBurstAssembler(config)
    last = 0.0
    for char, at in typed("\r".join(TD3) + "\r#END\r", 0.002):
        asm.feed(char, at)
        last = at
    assert asm.deadline() == pytest.approx(last + config.end_gap)
    assert isinstance(only(asm.poll(last + config.end_gap)), MrzScanned)

"""Keyboard-wedge feeder (Qt-free half): which keys are held, given back or eaten."""

from __future__ import annotations

from collections.abc import Callable

from admission.mrz.burst import BURST_CONTROL_CHARS, BurstDiscarded, CodeScanned, MrzScanned
from hardware.scanner.wedge import WedgeFeeder, WedgeResult

Loader = Callable[[str], list[tuple[str, float]]]


def drive(
    feeder: WedgeFeeder[int], events: list[tuple[str, float]]
) -> tuple[list[int], list[int], list[object]]:
    """Returns (swallowed key ids, released key ids in order, burst events)."""
    swallowed: list[int] = []
    released: list[int] = []
    out: list[object] = []

    def take(result: WedgeResult[int]) -> None:
        released.extend(result.release)
        out.extend(result.events)

    for i, (char, t) in enumerate(events):
        deadline = feeder.deadline()
        if deadline is not None and deadline <= t:
            take(feeder.poll(deadline))  # the single-shot timer fires first
        result = feeder.key(char, i, t)
        take(result)
        if result.swallow:
            swallowed.append(i)
    deadline = feeder.deadline()
    if deadline is not None:
        take(feeder.poll(deadline))
    return swallowed, released, out


def test_reader_burst_is_eaten_entirely(burst: Loader) -> None:
    events = burst("td3_crlf")
    swallowed, released, out = drive(WedgeFeeder(), events)
    assert swallowed == list(range(len(events)))
    assert released == []
    assert len(out) == 1 and isinstance(out[0], MrzScanned)


def test_person_gets_every_key_back_in_order(burst: Loader) -> None:
    events = burst("human_typing_fast")
    _, released, out = drive(WedgeFeeder(), events)
    assert released == list(range(len(events)))
    assert out == []


def test_card_code_burst(burst: Loader) -> None:
    _, released, out = drive(WedgeFeeder(), burst("card_code_wedge"))
    assert released == []
    assert isinstance(out[0], CodeScanned)


def test_chord_while_person_types_passes_and_releases_first() -> None:
    feeder: WedgeFeeder[str] = WedgeFeeder()
    assert feeder.key("a", "a", 1.0).swallow
    result = feeder.other_key("ctrl+s")
    assert result == WedgeResult(False, ("a",), ())


def test_chord_inside_a_burst_is_eaten_and_spoils_it() -> None:
    feeder: WedgeFeeder[int] = WedgeFeeder()
    text = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\r"
    for i, c in enumerate(text[:20]):
        feeder.key(c, i, 1.0 + i * 0.004)
    assert feeder.in_burst
    assert feeder.other_key(99).swallow  # e.g. Ctrl+P sent by a hostile reader
    for i, c in enumerate(text[20:], start=20):
        feeder.key(c, i, 1.0 + i * 0.004)
    result = feeder.poll(10.0)
    assert len(result.events) == 1
    event = result.events[0]
    assert isinstance(event, BurstDiscarded) and event.code == BURST_CONTROL_CHARS


def test_multi_character_text_is_treated_as_a_chord() -> None:
    feeder: WedgeFeeder[int] = WedgeFeeder()
    assert not feeder.key("ab", 1, 1.0).swallow
    assert not feeder.key("", 2, 1.0).swallow


def test_held_keys_are_bounded(burst: Loader) -> None:
    feeder: WedgeFeeder[int] = WedgeFeeder()
    for i, (c, t) in enumerate(burst("hostile_10000")):
        feeder.key(c, i, t)
        assert len(feeder._held) <= feeder.config.min_burst_chars

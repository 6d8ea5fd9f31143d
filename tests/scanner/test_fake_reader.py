"""The fake reader replays recorded bursts with timing, and scripted device loss."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from admission.devices import DeviceStatus, ReaderStatusChanged
from admission.mrz.burst import BURST_PARTIAL, BurstDiscarded, MrzScanned, Passthrough
from hardware.scanner.fake import FakeDocumentReader, Pause, load_recording

BURSTS = Path(__file__).parent / "bursts"


def rec(name: str):  # type: ignore[no-untyped-def]
    return load_recording(BURSTS / f"{name}.json")


def test_replay_script_with_loss_and_reconnect() -> None:
    slept: list[float] = []
    reader = FakeDocumentReader(
        [
            rec("td3_crlf"),
            ReaderStatusChanged(DeviceStatus.LOST, "unplugged"),
            Pause(3.0),
            ReaderStatusChanged(DeviceStatus.READY, reconnected=True),
            rec("td3_cut_in_half"),
            rec("human_typing_fast"),
            rec("td1_cr_only"),
        ],
        sleep=slept.append,
    )
    events = list(reader.listen(threading.Event()))
    kinds = [type(e).__name__ for e in events]
    assert kinds[:4] == [
        "MrzScanned",
        "ReaderStatusChanged",
        "ReaderStatusChanged",
        "BurstDiscarded",
    ]
    assert isinstance(events[3], BurstDiscarded) and events[3].code == BURST_PARTIAL
    typed = "".join(e.text for e in events if isinstance(e, Passthrough))
    assert typed == "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
    assert isinstance(events[-1], MrzScanned) and events[-1].format == "TD1"
    assert reader.status is DeviceStatus.READY and reader.listens == 1
    assert 3.0 in slept and sum(slept) > 3.5  # timing replayed, not just dumped


def test_stop_ends_replay() -> None:
    stop = threading.Event()
    calls: list[float] = []

    def sleep(seconds: float) -> None:
        calls.append(seconds)
        if len(calls) > 5:
            stop.set()

    reader = FakeDocumentReader([rec("td3_crlf")] * 3, sleep=sleep)
    events = list(reader.listen(stop))
    assert not any(isinstance(e, MrzScanned) for e in events)


def test_preflight_reports_scripted_status() -> None:
    reader = FakeDocumentReader([], status=DeviceStatus.NOT_FOUND)
    assert reader.preflight() is DeviceStatus.NOT_FOUND
    assert reader.preflights == 1


@pytest.mark.parametrize(
    "text", ['{"a": 1}', '[["ab", 1.0]]', '[["a"]]', "[[1, 2]]", '[["a", "x"]]']
)
def test_bad_recordings_are_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError):
        load_recording(path)


def test_every_recording_loads(burst: Callable[[str], list[tuple[str, float]]]) -> None:
    for path in BURSTS.glob("*.json"):
        assert load_recording(path).events == tuple(burst(path.stem))

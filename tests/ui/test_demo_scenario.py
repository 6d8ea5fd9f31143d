"""The window's demo: each invented document gets the verdict the demo promises, the
camera shows them one at a time (lazily, paced), the demo reader is idle until asked."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from admission.clock import FixedClock
from admission.devices import Camera, DeviceStatus
from admission.documents import document_from_mrz
from admission.frames import Frame
from admission.mrz.burst import MrzScanned
from admission.mrz.parse import parse_mrz
from ui.context import AppContext
from ui.desk.demo_scenario import (
    DemoReader,
    ScenarioCamera,
    ScenarioTiming,
    demo_cases,
    seed_demo_file,
    smoke_case,
)

T0 = datetime(2026, 12, 3, 19, 0, tzinfo=UTC)  # a Thursday evening, the casino open


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppContext]:
    from main import build_context, build_tools

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    opened = build_context(build_tools(tmp_path / "demo", clock=FixedClock(T0), demo=True))
    try:
        yield opened
    finally:
        opened.close()


def test_every_case_gets_the_verdict_the_demo_promises(ctx: AppContext) -> None:
    seed_demo_file(ctx)
    seed_demo_file(ctx)  # idempotent: a second launch on the same file
    today = ctx.tools.today()
    cases = demo_cases(today, 0, salt=7)
    assert [c.kind for c in cases] == ["admitted", "minor", "listed", "banned", "expired", "staff"]
    for case in cases:
        document = document_from_mrz(parse_mrz(list(case.lines), today=today))
        verdict = ctx.desk.evaluate(document).verdict
        assert str(verdict.outcome) == case.outcome, case.kind
        if case.reason:
            assert case.reason in verdict.codes, (case.kind, verdict.codes)
        else:
            assert verdict.codes == () or not verdict.reasons, (case.kind, verdict.codes)
    smoke = smoke_case(today, 7)
    document = document_from_mrz(parse_mrz(list(smoke.lines), today=today))
    assert str(ctx.desk.evaluate(document).verdict.outcome) == "ADMIT"


def test_each_round_and_launch_brings_a_new_admitted_person() -> None:
    today = T0.date()
    first = demo_cases(today, 0, salt=1)[0].lines
    assert demo_cases(today, 1, salt=1)[0].lines != first
    assert demo_cases(today, 0, salt=2)[0].lines != first
    assert demo_cases(today, 0, salt=1)[1:] == demo_cases(today, 5, salt=9)[1:]


class Held:
    """Records what the scenario asked the factory for (Devices.demo_camera's stand-in)."""

    def __init__(self) -> None:
        self.asked: list[tuple[tuple[str, ...], int]] = []

    def __call__(self, lines: Sequence[str], index: int) -> Camera:
        from hardware.camera.fake import FakeCamera

        self.asked.append((tuple(lines), index))
        frame = _frame(200)
        return FakeCamera([frame, frame, frame])


def _frame(value: int) -> Frame:
    return Frame(bytes([value]) * 12, 2, 2, 6, 3, 0.0)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds


def test_the_camera_lays_one_document_at_a_time_paced_in_real_time() -> None:
    clock, held = Clock(), Held()
    today = T0.date()
    timing = ScenarioTiming(lead_in=1.5, hold=2.0, pause=1.0, fps=10)
    camera = ScenarioCamera(
        lambda r: demo_cases(today, r), held, timing=timing, clock=clock, sleep=clock.sleep
    )
    assert camera.preflight() is DeviceStatus.READY
    seen: list[tuple[float, str | None]] = []
    for _ in range(300):  # 30 seconds of frames at 10 fps
        frame = camera.read()
        showing = camera.showing
        seen.append((frame.timestamp, showing.kind if showing else None))
        assert frame.data[0] == (200 if showing else 38)
    first = next(t for t, kind in seen if kind is not None)
    assert first <= timing.lead_in + 0.2  # the first document within seconds
    # documents come one after another with an empty desk between them
    kinds = [k for _, k in seen]
    shown = [k for i, k in enumerate(kinds) if k and (i == 0 or kinds[i - 1] != k)]
    assert shown[:6] == ["admitted", "minor", "listed", "banned", "expired", "staff"]
    assert shown[6] == "admitted"  # the queue starts again
    # lazily: one render per document shown, each with its own index
    assert len(held.asked) == len(camera.shown) and [i for _, i in held.asked] == list(
        range(len(held.asked))
    )
    assert clock.slept > 29  # paced: 300 frames at 10 fps took 30 s of its clock
    camera.close()


def test_a_newcomer_sees_the_first_admission_within_seconds_with_default_timing() -> None:
    timing = ScenarioTiming()
    assert timing.lead_in <= 3 and timing.lead_in + timing.hold <= 15


def test_the_demo_reader_is_idle_until_asked() -> None:
    reader = DemoReader()
    assert reader.preflight() is DeviceStatus.READY
    lines = list(smoke_case(T0.date(), 3).lines)
    stop = threading.Event()
    got: list[object] = []

    def listen() -> None:
        for event in reader.listen(stop):
            got.append(event)
            stop.set()

    thread = threading.Thread(target=listen)
    thread.start()
    thread.join(0.3)
    assert got == [] and thread.is_alive()  # idle: nothing scanned
    reader.present(lines)
    thread.join(5)
    assert not thread.is_alive()
    assert len(got) == 1 and isinstance(got[0], MrzScanned)
    assert list(got[0].lines) == lines


def test_the_demo_window_shows_its_first_verdict_within_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole path a newcomer sees: the scenario camera, the live MRZ reader, the
    controller and the window - the first invented visitor is admitted on screen."""
    import time
    from functools import partial

    from main import _demo_devices, build_context, build_tools
    from ui.desk.app import AppStart, DeskShell, make_application

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    app = make_application()
    start = AppStart(
        build_tools=partial(build_tools, tmp_path / "demo", demo=True),
        build_context=build_context,
        demo=True,
        demo_devices=_demo_devices,
    )
    shell = DeskShell(app, start)
    assert shell.open() is None
    seen: list[tuple[float, str]] = []
    try:
        assert shell.window is not None
        began = time.monotonic()
        shell.window.controller.verdict_ready.connect(
            lambda v: seen.append((time.monotonic() - began, str(v.evaluation.verdict.outcome)))
        )
        while not seen and time.monotonic() - began < 20:
            app.processEvents()
            time.sleep(0.02)
        if seen:
            from ui.desk.screens import save_screenshot

            save_screenshot(shell.window, "demo-first-verdict")
    finally:
        shell.close()
    assert seen and seen[0][1] == "ADMIT", seen
    assert seen[0][0] < 10  # within seconds of the window opening

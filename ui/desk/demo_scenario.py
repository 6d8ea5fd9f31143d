"""The window's demo: invented visitors shown to the (fake) camera one after another.

A newcomer who starts ``python main.py --demo`` sees the desk work by itself: an
invented document is laid under the camera a second or two after the window opens, the
desk reads it and shows its verdict, the clerk presses Enter; a few seconds later the
next one arrives. The queue covers every kind of verdict the regulation asks for:

* admitted - an adult with a current document (a new invented person each round, so
  "one person, one valid card", art. 22, never turns the first case into a refusal);
* minor - under 18 (art. 21.1);
* listed - in the Registro de Interdicciones de Acceso al Juego (art. 21.1): the demo
  file's RIAJ replica lists them;
* banned - the casino's own ban (art. 21.2-3), seeded in the demo file;
* expired - a document whose expiry date is past;
* staff - a member of the casino's staff (art. 18.1.a), seeded in the demo file.

The frames are the synthetic renderer's (OCR-B, degraded as a webcam sees them), made by
the composition root's ``demo_camera`` factory one document at a time, when it is due:
at most one document's frames are in memory. Nothing here is a real person and no frame
is written to disk. :class:`DemoReader` is the demo's document reader: idle until asked
to ``present`` a document, then it types that MRZ as a reader would.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import TYPE_CHECKING

from admission.devices import Camera, DeviceErrorCode, DeviceStatus, ScannerEvent
from admission.documents import document_from_mrz
from admission.errors import DeviceError
from admission.frames import Frame
from admission.generators.demo_people import DemoPerson, demo_people
from admission.generators.mrz_build import build_td1
from admission.mrz.burst import BurstConfig, MrzBurstAssembler
from admission.mrz.parse import parse_mrz
from admission.records import StaffMember, StaffRole

if TYPE_CHECKING:
    from ui.context import AppContext

__all__ = [
    "DemoCase",
    "DemoDevices",
    "DemoReader",
    "ScenarioCamera",
    "ScenarioTiming",
    "demo_cases",
    "seed_demo_file",
    "smoke_case",
]

SEED = 2026  # the same invented people as the command line's ``demo``
# indexes into demo_people(8, seed=SEED): who the demo file lists, bans and employs
LISTED, BANNED, STAFF = 3, 5, 7
HeldCamera = Callable[[Sequence[str], int], Camera]  # Devices.demo_camera


@dataclass(frozen=True, slots=True)
class DemoCase:
    """One invented document of the demo queue and the verdict it should get."""

    kind: str  # admitted, minor, listed, banned, expired, staff
    outcome: str  # admission.verdict.Outcome value the desk should answer
    reason: str  # the reason code shown with it ("" when admitted)
    lines: tuple[str, ...]  # the document's MRZ


def _people(today: date) -> list[DemoPerson]:
    return demo_people(8, seed=SEED, today=today, minors=0.0)


def _mrz(person: DemoPerson, today: date, *, expiry: date | None = None) -> tuple[str, ...]:
    if expiry is None:
        return tuple(person.mrz(today))
    return tuple(  # the same DNI 4.0 as DemoPerson.mrz, with another expiry date
        build_td1(
            document_code="ID",
            issuer="ESP",
            document_number=person.passport,
            optional_data_1=person.dni,
            birth_date=person.birth_date,
            expiry_date=expiry,
            nationality="ESP",
            sex="F",
            surname=person.surname,
            given_names=person.given_names,
        )
    )


def _spanish(people: list[DemoPerson]) -> DemoPerson:
    return next(p for p in people if p.dni)


def demo_cases(today: date, round_: int = 0, *, salt: int = 0) -> list[DemoCase]:
    """The demo queue of round ``round_``: admitted first, then each refusal."""
    people = _people(today)
    admitted = _spanish(demo_people(3, seed=SEED * 1000 + salt * 97 + round_, today=today))
    minor = demo_people(1, seed=SEED + 1, today=today, minors=1.0)[0]
    expired = _spanish(demo_people(3, seed=SEED + 2, today=today))
    return [
        DemoCase("admitted", "ADMIT", "", _mrz(admitted, today)),
        DemoCase("minor", "DENY", "MINOR", _mrz(minor, today)),
        DemoCase("listed", "DENY", "REGISTRY_LISTED", _mrz(people[LISTED], today)),
        DemoCase("banned", "DENY", "INTERNAL_BAN", _mrz(people[BANNED], today)),
        DemoCase(
            "expired",
            "DENY",
            "DOCUMENT_EXPIRED",
            _mrz(expired, today, expiry=today - timedelta(days=45)),
        ),
        DemoCase("staff", "SUPERVISOR", "CASINO_STAFF", _mrz(people[STAFF], today)),
    ]


def smoke_case(today: date, salt: int) -> DemoCase:
    """A new invented adult for one smoke admission (a new one each run: a demo file
    already used keeps its cards, and a person holds one valid card, art. 22)."""
    person = _spanish(demo_people(3, seed=SEED * 7919 + salt, today=today))
    return DemoCase("admitted", "ADMIT", "", _mrz(person, today))


def seed_demo_file(ctx: AppContext) -> None:
    """List, ban and employ the demo's invented people (idempotent), as the command
    line's ``demo`` does: the RIAJ replica (art. 21.1), a ban (art. 21.2), a croupier."""
    now = ctx.clock.now()
    today = ctx.tools.today()
    people = _people(today)
    listed = people[LISTED].dni
    ctx.replica.import_lines([b"# demo RIAJ snapshot (invented)\n", f"{listed}\n".encode()])
    banned = document_from_mrz(parse_mrz(list(_mrz(people[BANNED], today)), today=today))
    if not ctx.store.active_bans(banned.identity, now):
        ctx.desk.add_ban(
            banned.identity,
            "Demo: conducta inadecuada en sala",
            "Director (demo)",
            expires_at=now + timedelta(days=90),
        )
    staff = document_from_mrz(parse_mrz(list(_mrz(people[STAFF], today)), today=today))
    if ctx.store.staff_member(staff.identity) is None:
        ctx.store.add_staff(
            StaffMember(staff.identity, "Crupier (demo)", StaffRole.STAFF), "Director (demo)", now
        )


# -- the camera ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ScenarioTiming:
    """Seconds of the demo's rhythm: the first document within ``lead_in``."""

    lead_in: float = 1.5  # an empty desk when the window opens
    hold: float = 9.0  # each document under the camera
    pause: float = 5.0  # the empty desk between two documents
    fps: float = 10.0


class ScenarioCamera:
    """A :class:`admission.devices.Camera` replaying the demo queue, paced in real time.

    Each document's frames come from ``held(lines, index)`` (the composition root's
    ``Devices.demo_camera``), asked for when that document is due and dropped when it
    leaves: memory holds one document. Between documents the camera shows an empty,
    dark desk. After the last case the queue starts again (``cases(round)``).
    """

    def __init__(
        self,
        cases: Callable[[int], Sequence[DemoCase]],
        held: HeldCamera,
        *,
        timing: ScenarioTiming | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        size: tuple[int, int] = (1280, 720),
    ) -> None:
        self._cases = cases
        self._held = held
        self.timing = timing or ScenarioTiming()
        self._clock = clock
        self._sleep = sleep
        self._size = size
        self._round = 0
        self._queue: list[DemoCase] = []
        self._index = 0  # documents shown so far: the renderer's seed index
        self._frames: list[Frame] = []  # the document under the camera now, if any
        self._cursor = 0
        self._until: float | None = None  # when the current phase ends
        self._next_frame: float | None = None
        self._empty: Frame | None = None
        self._closed = False
        self.shown: list[DemoCase] = []  # what was laid under the camera, in order

    def preflight(self) -> DeviceStatus:
        return DeviceStatus.READY

    def read(self) -> Frame:
        if self._closed:
            raise DeviceError("demo camera closed", code=DeviceErrorCode.CAMERA_END_OF_STREAM)
        now = self._pace()
        if self._until is None:
            self._until = now + self.timing.lead_in
        elif now >= self._until:
            if self._frames:
                self._frames = []  # the document leaves the desk
                self._until = now + self.timing.pause
            else:
                self._lay_next()
                self._until = self._clock() + self.timing.hold
        if not self._frames:
            return replace(self._empty_frame(), timestamp=now)
        frame = self._frames[self._ping_pong()]
        return replace(frame, timestamp=now)

    def close(self) -> None:
        self._closed = True
        self._frames = []
        self._empty = None

    @property
    def showing(self) -> DemoCase | None:
        """The case under the camera now (None: the desk is empty)."""
        return self.shown[-1] if self._frames and self.shown else None

    def _pace(self) -> float:
        """Deliver at most ``fps`` frames a second, like a real camera does."""
        now = self._clock()
        if self._next_frame is not None and now < self._next_frame:
            self._sleep(self._next_frame - now)
            now = self._clock()
        self._next_frame = now + 1.0 / self.timing.fps
        return now

    def _lay_next(self) -> None:
        if not self._queue:
            self._queue = list(self._cases(self._round))
            self._round += 1
            if not self._queue:
                raise DeviceError("demo queue empty", code=DeviceErrorCode.CAMERA_END_OF_STREAM)
        case = self._queue.pop(0)
        camera = self._held(case.lines, self._index)
        self._index += 1
        frames: list[Frame] = []
        try:
            while len(frames) < 64:
                frames.append(camera.read())
        except DeviceError:
            pass  # the held document's frames are all read
        finally:
            camera.close()
        if not frames:
            raise DeviceError("demo document not rendered", code=DeviceErrorCode.CAMERA_ERROR)
        self._frames, self._cursor = frames, 0
        self.shown.append(case)

    def _ping_pong(self) -> int:
        """Back and forth through the held frames: the hand drifts, never jumps."""
        n = len(self._frames)
        if n == 1:
            return 0
        period = 2 * (n - 1)
        k = self._cursor % period
        self._cursor += 1
        return k if k < n else period - k

    def _empty_frame(self) -> Frame:
        if self._empty is None:
            width, height = self._size
            self._empty = Frame(bytes([38]) * (width * height * 3), width, height, width * 3, 3, 0)
        return self._empty


# -- the document reader -------------------------------------------------------------
KEY_GAP = 0.004  # seconds between two characters a reader types (a fast wedge reader)


class DemoReader:
    """A :class:`admission.devices.DocumentReader` for the demo and the smoke run: idle
    until :meth:`present` hands it a document, then it sends that MRZ through the same
    burst assembler a real reader's keys go through."""

    def __init__(self, config: BurstConfig | None = None) -> None:
        self._config = config or BurstConfig(assume_scanner=True)
        self._asked: queue.Queue[tuple[str, ...]] = queue.Queue(maxsize=16)
        self.presented = 0

    @property
    def name(self) -> str:
        return "demo"

    def preflight(self) -> DeviceStatus:
        return DeviceStatus.READY

    def present(self, lines: Sequence[str]) -> None:
        """Lay a document on the reader (from any thread)."""
        self._asked.put_nowait(tuple(lines))
        self.presented += 1

    def listen(self, stop: threading.Event) -> Iterator[ScannerEvent]:
        while not stop.is_set():
            try:
                lines = self._asked.get(timeout=0.1)
            except queue.Empty:
                continue
            assembler = MrzBurstAssembler(self._config)
            start = time.monotonic()
            text = "\r".join(lines) + "\r"
            yield from assembler.feed_all((c, start + k * KEY_GAP) for k, c in enumerate(text))


@dataclass(frozen=True, slots=True)
class DemoDevices:
    """What the composition root hands the demo window: a camera factory (the camera
    worker opens it again after a failure) and the on-demand reader."""

    open_camera: Callable[[], Camera]
    reader: DemoReader
    salt: int = 0  # this launch's choice of invented people (the smoke's visitor too)

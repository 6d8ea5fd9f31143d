"""A rehearsed night at the counter (arts. 20-23, 27): the desk as it runs
(``ui.desk.app.DeskShell`` on the demo's SQLCipher file, its store worker thread, the demo's
PDF-folder card printer, the idle lock, the settings dialog and the window rebuilt in
the language saved) takes 300 planned presentations from 20:00 to past closing (and
the ones the register and the idle lock send back to the end of the queue), the clock
driven forward, the documents read by the reader (the keyboard wedge's scans) and the
camera. On the way: re-entries of visitors who hold a valid card (a pass holder in again
on the pass, charged nothing), documents left under
the camera and read again while their verdict is on screen, a document waiting behind
a verdict, 7-day passes chosen with F2 (the next visitor charged the default again),
admissions dismissed with Esc, hours and a price saved mid-night, the RIAJ copy going
stale (not admitted, not a refusal) until a new snapshot is imported, a card the
printer fails and its reprint, the idle lock opened with the clerk's PIN and a
language switch. Afterwards the file, read through the store's public ports, holds
exactly what was played: each person's records, the visits, refusals, re-entries and
not admitted, the card numbers gapless and increasing, each card's type and price as
charged. Screenshots of the re-entry, the waiting strip and the register unavailable in
both languages go to build/screens/."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from admission.cards.catalogue import CardCatalogue
from admission.cards.view import format_euros
from admission.catalogue import text
from admission.clock import FixedClock
from admission.desk import AdmissionResult
from admission.generators.demo_people import demo_people
from admission.mrz.burst import MrzScanned
from admission.ports import madrid_date
from admission.reports import figures_from_counts
from admission.verdict import Outcome
from hardware.printer.fake import FakePrinter
from tests.ui.conftest import DESK_T0
from tests.ui.test_desk_menus import screenshot
from tests.ui.test_desk_window import win_worker_idle
from ui.desk.demo_scenario import demo_cases
from ui.desk.desk_flow import DeskVerdict, document_from_lines
from ui.desk.desk_window import DeskWindow
from ui.desk.dialogs.settings import SettingsDialog

WAIT = 10_000
PRESENTATIONS = 300
STEP = timedelta(seconds=90)  # one presentation every minute and a half
# the demo's RIAJ snapshot was imported at 01:00 the night before (Madrid): 19 hours old
# at 20:00, older than its 24-hour limit from 01:00 (the feed broke meanwhile)
T_IMPORT = DESK_T0 - timedelta(hours=19)
CLERK_PIN = "2468"
NEW_DAY_PRICE = 650  # the price the director saves mid-night, in cents
HOURS = "20:00-04:00"  # saved mid-night for Thursday and Friday (art. 27)
STALE_SEEN = 8  # presentations not admitted before the technician imports a new copy
REFUSALS = ("minor", "listed", "banned", "expired")
PRINTER_FAILS = 58  # the step whose card the printer fails
SETTINGS_SAVED = 100  # the step before which the director saves hours and a price
IDLE_LOCK = 130  # the step whose admission is left on screen when the desk locks


@dataclass
class Expected:
    """What the file must hold afterwards, kept while the night is played."""

    records: dict[tuple[str, ...], list[str]] = field(default_factory=dict)
    cards: dict[int, tuple[str, int]] = field(default_factory=dict)  # number: type, price
    outcomes: Counter[str] = field(default_factory=Counter)
    card_of: dict[tuple[str, ...], tuple[str, int]] = field(default_factory=dict)  # type, n
    on_passes: list[tuple[datetime, int]] = field(default_factory=list)  # at, card held

    def record(self, lines: tuple[str, ...], verdict: str) -> None:
        self.records.setdefault(lines, []).append(verdict)
        self.outcomes[verdict] += 1


@dataclass
class Step:
    """One presentation of the script."""

    kind: str  # new, reentry, dismiss, return, minor, listed, banned, expired, closed
    lines: tuple[str, ...]
    camera: bool = False  # read by the camera and left under it
    reread: bool = False  # the reader reads it again while its verdict is on screen
    pass_f2: bool = False  # F2: the clerk chooses the 7-day pass for this visitor


# -- the night's script -------------------------------------------------------------------
def script(today: datetime) -> list[Step]:
    """300 presentations: mostly new adults, a refusal in ten, a re-entry in ten, an
    admission dismissed now and then (the person comes back), passes, camera reads."""
    day = madrid_date(today)
    adults = [tuple(p.mrz(day)) for p in demo_people(280, seed=3535, today=day)]
    refused = {c.kind: c.lines for c in demo_cases(day) if c.kind in REFUSALS}
    steps: list[Step] = []
    admitted: list[tuple[str, ...]] = []  # in the order admitted, not yet re-entered
    passes: list[tuple[str, ...]] = []  # the 7-day passes among them
    returns: dict[int, tuple[str, ...]] = {}  # step index: a dismissed person back
    fresh = iter(adults)
    for i in range(PRESENTATIONS - 1):
        if i in returns:
            steps.append(Step("return", returns.pop(i)))
            admitted.append(steps[-1].lines)
        elif i % 10 == 3:
            steps.append(Step(REFUSALS[(i // 10) % 4], refused[REFUSALS[(i // 10) % 4]]))
        elif i % 10 == 7 and i % 40 == 37 and passes:  # a pass holder back
            held = passes.pop(0)
            admitted.remove(held)
            steps.append(Step("reentry", held))
        elif i % 10 == 7 and len(admitted) > 6:
            held = admitted.pop(0)
            if held in passes:
                passes.remove(held)
            steps.append(Step("reentry", held, camera=i % 30 == 17))
        elif i % 40 == 21:
            steps.append(Step("dismiss", next(fresh)))
            returns[i + 4] = steps[-1].lines
        else:
            step = Step("new", next(fresh))
            step.camera = i % 20 == 5
            step.reread = i % 20 == 15
            step.pass_f2 = i % 25 == 11
            admitted.append(step.lines)
            if step.pass_f2:
                passes.append(step.lines)
            steps.append(step)
    steps.append(Step("closed", next(fresh)))  # after closing: refused (art. 27)
    return steps


# -- the desk as it runs ----------------------------------------------------------------
@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    from main import build_context, build_tools
    from ui.desk.app import AppStart, DeskShell, make_application

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    clock = FixedClock(T_IMPORT)  # the demo seeds its RIAJ copy as the desk opens
    start = AppStart(
        build_tools=partial(build_tools, tmp_path / "demo", clock=clock, demo=True),
        build_context=build_context,
        demo=True,
    )
    desk_shell = DeskShell(make_application(), start)
    assert desk_shell.open() is None
    desk_shell.night_clock = clock  # type: ignore[attr-defined]
    yield desk_shell
    desk_shell.close()


class Night:
    """Plays the script on the shell's current window and keeps what is expected."""

    def __init__(self, qtbot: QtBot, shell: object) -> None:
        from ui.desk.app import DeskShell

        assert isinstance(shell, DeskShell) and shell.ctx is not None
        assert shell.session is not None
        self.qtbot = qtbot
        self.shell = shell
        self.ctx = shell.ctx
        self.session = shell.session
        self.clock: FixedClock = shell.night_clock  # type: ignore[attr-defined]
        self.expected = Expected()
        self.catalogue = self.ctx.desk.config.catalogue
        self.default = self.catalogue.default
        self.pass_type = next(c for c in self.catalogue.types if c != self.default)
        self.stale_seen = 0
        self.screens: set[str] = set()
        self.lang = "es"
        self.steps: list[Step] = []
        # every lock of the night; one the script did not ask for is opened with the PIN
        # (the night goes on) and fails the test at its end instead of hanging it
        self.locks: list[datetime] = []
        self.lock_expected = False
        self.session.locked.connect(self._on_locked)

    # -- the window of the moment (rebuilt when the language is saved) ----------------
    @property
    def win(self) -> DeskWindow:
        window = self.shell.window
        assert window is not None
        return window

    def wedge(self) -> object:
        return self.shell.filters[0]

    def activate(self) -> None:
        if not self.win.isActiveWindow():
            self.win.activateWindow()
            self.qtbot.waitUntil(self.win.isActiveWindow, timeout=3000)

    def key(self, which: Qt.Key) -> None:
        self.activate()
        self.qtbot.keyClick(self.win, which)  # type: ignore[no-untyped-call]

    def shot(self, name: str) -> None:
        """The first screen of each kind in each language (build/screens/)."""
        full = f"night-{name}-{self.lang}"
        if full not in self.screens:
            self.screens.add(full)
            self.qtbot.wait(30)  # the banner's layout settles before the grab
            screenshot(self.win, full)

    # -- reading a document --------------------------------------------------------------
    def read(self, step: Step) -> None:
        controller = self.win.controller
        if step.camera:
            controller.submit_camera_mrz(list(step.lines))
        else:
            now = time.monotonic()
            fmt = f"TD{1 if len(step.lines) == 3 else 3}"
            self.wedge().mrz_scanned.emit(MrzScanned(fmt, step.lines, now, now))  # type: ignore[attr-defined]

    def present(self, step: Step, expect: Outcome) -> DeskVerdict:
        """The document read; its verdict painted (and recorded, when it is recorded as
        shown). Returns the verdict."""
        controller = self.win.controller
        recorded_when_shown = expect in (
            Outcome.DENY,
            Outcome.ALREADY_ADMITTED,
            Outcome.NOT_ADMITTED,
        )
        signals = [controller.verdict_ready]
        if recorded_when_shown:
            signals.append(controller.admission_recorded)
        with self.qtbot.waitSignals(signals, timeout=WAIT):
            self.read(step)
        return self.shown(step, expect)

    def shown(self, step: Step, expect: Outcome) -> DeskVerdict:
        current = self.win.controller.current
        said = self.win.status.currentMessage()
        assert current is not None, (step.kind, expect, self.locks, said)
        outcome = current.evaluation.verdict.outcome
        assert outcome is expect, (step.kind, outcome, current.evaluation.verdict.codes)
        assert self.win.verdict.outcome == expect.value
        if expect is not Outcome.ADMIT:
            self.expected.record(step.lines, expect.value)
        return current

    def read_again(self, step: Step) -> None:
        """The same document read again while its verdict is on screen (or just after
        its card, still under the camera): nothing new is checked or recorded."""
        controller = self.win.controller
        with (
            self.qtbot.assertNotEmitted(controller.verdict_ready, wait=60),
            self.qtbot.assertNotEmitted(controller.admission_recorded, wait=60),
        ):
            if step.camera:
                for _ in range(3):  # left under the camera: read again and again
                    controller.submit_camera_mrz(list(step.lines))
            else:
                with self.qtbot.waitSignal(controller.presentation_repeated, timeout=WAIT):
                    self.read(step)  # the clerk scans it again: said in the status bar
                said = self.win.status.currentMessage()
                assert said.startswith(("El mismo documento", "The same document")), said

    # -- settling the verdict on screen -------------------------------------------------
    def enter_admit(self, step: Step, *, printer_fails: bool = False) -> int:
        """Enter on an ADMIT: recorded with its card of the type shown, printed."""
        controller = self.win.controller
        charged = controller.card_type
        price = self.catalogue_now().types[charged].price_cents
        shown = self.win.verdict.progress.text()
        assert self.win.card_label(charged) in shown, shown  # what Enter charges
        assert format_euros(price) in shown, shown
        recorded: list[AdmissionResult] = []
        controller.admission_recorded.connect(recorded.append)
        try:
            if printer_fails:
                with self.qtbot.waitSignal(controller.card_print_failed, timeout=WAIT) as got:
                    self.key(Qt.Key.Key_Return)
                number, code = got.args
                assert code == "PRINTER_NO_MEDIA"
            else:
                with self.qtbot.waitSignal(controller.card_printed, timeout=WAIT) as got:
                    self.key(Qt.Key.Key_Return)
                number = got.args[0]
        finally:
            controller.admission_recorded.disconnect(recorded.append)
        assert len(recorded) == 1 and recorded[0].card is not None
        card = recorded[0].card
        assert card.number == number and (card.card_type, card.price_cents) == (charged, price)
        assert controller.card_type == self.default  # the next visitor: the default again
        self.expected.record(step.lines, "ADMIT")
        self.expected.cards[number] = (charged, price)
        self.expected.card_of[step.lines] = (charged, int(number))
        return int(number)

    def on_the_pass(self, step: Step) -> None:
        """The holder of a valid pass (several entries) presents again: admitted on the
        card held - Enter records the visit, charges nothing and prints nothing."""
        _, number = self.expected.card_of[step.lines]
        verdict = self.present(step, Outcome.ADMIT)
        held = verdict.evaluation.held_card
        assert held is not None and held.number == number
        shown = self.win.verdict.progress.text()
        assert str(number) in shown, shown  # the banner names the card held
        price = self.catalogue_now().types[self.win.controller.card_type].price_cents
        assert format_euros(price) not in shown, shown  # and charges nothing
        self.shot("on-the-pass")
        controller = self.win.controller
        with (
            self.qtbot.waitSignal(controller.admission_recorded, timeout=WAIT) as got,
            self.qtbot.assertNotEmitted(controller.card_printed, wait=60),
        ):
            self.key(Qt.Key.Key_Return)
        result = got.args[0]
        assert result.card is None and result.existing_card is not None
        assert result.existing_card.number == number
        self.expected.record(step.lines, "ADMIT")
        self.expected.on_passes.append((self.clock.now(), number))

    def enter_seen(self) -> None:
        """Enter on a verdict recorded when shown: seen, nothing more recorded."""
        controller = self.win.controller
        with self.qtbot.waitSignal(controller.verdict_confirmed, timeout=WAIT):
            self.key(Qt.Key.Key_Return)

    def esc_dismiss(self, step: Step) -> None:
        controller = self.win.controller
        with self.qtbot.waitSignal(controller.dismissal_recorded, timeout=WAIT) as got:
            self.key(Qt.Key.Key_Escape)
        assert got.args[0].verdict.codes == ("DISMISSED_BY_CLERK",)
        self.expected.record(step.lines, "NOT_ADMITTED")

    def catalogue_now(self) -> CardCatalogue:
        """The card types in force now (the settings saved mid-night replace them)."""
        return self.ctx.desk.config.catalogue

    # -- the register -------------------------------------------------------------------
    def register_stale(self) -> bool:
        age = self.clock.now() - self.imported_at
        return age > timedelta(hours=int(self.ctx.settings["registry.max_replica_age_hours"]))

    imported_at = T_IMPORT

    def import_register(self) -> None:
        """The technician imports the day's RIAJ snapshot (listing the demo's listed
        person, as the one before)."""
        day = madrid_date(self.clock.now())
        listed = next(c for c in demo_cases(day) if c.kind == "listed").lines
        number = identity_of(listed, self.clock.now()).number  # type: ignore[attr-defined]
        answer = self.ctx.replica.import_lines(
            [f"# RIAJ snapshot of {day.isoformat()} (invented)\n".encode(), f"{number}\n".encode()]
        )
        assert not answer.unchanged
        self.imported_at = self.clock.now()
        register = partial(self.win.status.text_of, "register")
        self.qtbot.waitUntil(lambda: register().startswith("●"), timeout=3000)

    # -- the settings path the window uses ------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        menus = self.win.menus
        assert menus is not None
        director = self.ctx.accounts.account("director")
        assert director is not None
        menus.ask_admin = lambda purpose: director.operator()  # the director's credentials
        dialog = menus.admin.open_settings()
        assert isinstance(dialog, SettingsDialog) and dialog.allowed
        return dialog

    def save_hours_and_price(self) -> None:
        """The director saves the opening hours and a new price mid-night."""
        dialog = self.open_settings()
        dialog.hours.days["thu"].setText(HOURS)
        dialog.hours.days["fri"].setText(HOURS)
        assert not dialog.hours.last_hour.isChecked()
        table = dialog.cards.table
        codes = [table.item(r, 0) for r in range(table.rowCount())]
        row = next(r for r, item in enumerate(codes) if item and item.text() == self.default)
        price = table.item(row, 4)
        assert price is not None
        price.setText(f"{NEW_DAY_PRICE // 100},{NEW_DAY_PRICE % 100:02d}")
        with self.qtbot.waitSignal(self.win.controller.settings_applied, timeout=WAIT):
            assert dialog.save()
        assert self.catalogue_now().types[self.default].price_cents == NEW_DAY_PRICE

    def switch_language(self, lang: str) -> None:
        """ui.language saved: the shell builds the window again in that language."""
        old = self.win
        dialog = self.open_settings()
        language = dialog.display.language
        language.setCurrentIndex(language.findData(lang))
        assert dialog.save()
        self.qtbot.waitUntil(lambda: self.shell.window is not old, timeout=WAIT)
        self.lang = lang
        self.qtbot.waitExposed(self.win)
        self.activate()

    # -- the idle lock --------------------------------------------------------------------
    def _on_locked(self) -> None:
        self.locks.append(self.clock.now())
        if not self.lock_expected:
            QTimer.singleShot(20, self._unlock_with_pin)

    def _unlock_with_pin(self) -> None:
        modal = QApplication.activeModalWidget()
        if modal is None:
            QTimer.singleShot(20, self._unlock_with_pin)
            return
        secret = modal.findChild(QLineEdit, "password")
        assert isinstance(secret, QLineEdit)
        secret.setText(CLERK_PIN)
        modal.submit()  # type: ignore[attr-defined]

    def idle_lock_and_unlock(self, left_on_screen: Step) -> None:
        """The clerk walks away from an admission on screen; the desk locks itself after
        its idle minutes (the admission is recorded as dismissed); a document read while
        locked is dropped; the clerk opens the desk again with the PIN."""
        seen: list[str] = []
        verdicts: list[object] = []
        controller = self.win.controller
        controller.verdict_ready.connect(verdicts.append)
        late = demo_people(1, seed=99_001, today=madrid_date(self.clock.now()))[0]

        def answer() -> None:
            modal = QApplication.activeModalWidget()
            if modal is None:
                QTimer.singleShot(20, answer)
                return
            seen.append(type(modal).__name__)
            now = time.monotonic()  # a reader burst while locked: dropped
            lines = tuple(late.mrz(madrid_date(self.clock.now())))
            self.wedge().mrz_scanned.emit(MrzScanned("TD3", lines, now, now))  # type: ignore[attr-defined]
            self._unlock_with_pin()

        self.lock_expected = True
        idle = int(self.ctx.settings["session.idle_minutes"])
        with self.qtbot.waitSignal(controller.dismissal_recorded, timeout=WAIT) as got:
            QTimer.singleShot(20, answer)
            self.clock.advance(timedelta(minutes=idle + 1))
            deadline = time.monotonic() + 10
            while not seen and time.monotonic() < deadline:
                QApplication.processEvents()
                time.sleep(0.01)
        self.qtbot.waitUntil(lambda: not self.session.is_locked, timeout=WAIT)
        self.lock_expected = False
        assert seen == ["UnlockDialog"]
        assert got.args[0].verdict.codes == ("DISMISSED_BY_CLERK",)
        self.expected.record(left_on_screen.lines, "NOT_ADMITTED")
        self.qtbot.wait(100)
        controller.verdict_ready.disconnect(verdicts.append)
        assert verdicts == [] and self.win.verdict.outcome == ""
        self.activate()

    # -- one step ------------------------------------------------------------------------
    def play(self, index: int, step: Step, steps: list[Step]) -> bool:
        """Play ``step``; True when it also presented the next one (it waited)."""
        self.steps = steps
        self.clock.advance(STEP)
        if step.kind == "closed":
            self.clock.set(datetime(2026, 12, 4, 3, 10, tzinfo=UTC))  # 04:10 in Madrid
            # the clerk is at the desk at 04:10: seven hours jumped in one step must not
            # also idle-lock the desk while the document (and its chip) is being read
            self.session.touch()
            verdict = self.present(step, Outcome.DENY)
            assert "CLOSED" in verdict.evaluation.verdict.codes
            self.enter_seen()
            return False
        if step.kind in REFUSALS:
            self.present(step, Outcome.DENY)
            self.enter_seen()
            return False
        if step.kind not in REFUSALS and self.register_stale():
            return self.register_unavailable(step)
        if step.kind == "reentry":
            held_type = self.expected.card_of[step.lines][0]
            if held_type in self.catalogue_now().reentry_types:
                self.on_the_pass(step)  # a pass: in again on the same card
                return False
            verdict = self.present(step, Outcome.ALREADY_ADMITTED)
            held = verdict.evaluation.held_card
            assert held is not None and held.number in self.expected.cards
            assert str(held.number) in self.win.verdict.reasons.text()
            self.shot("reentry")
            if step.camera:
                self.read_again(step)
            self.enter_seen()
            if step.camera:
                self.read_again(step)
                self.win.controller.report_hint("NO_DOCUMENT")  # taken away
            return False
        # a new adult (or one dismissed earlier, back)
        self.present(step, Outcome.ADMIT)
        if step.kind == "dismiss":
            self.esc_dismiss(step)
            return False
        if step.reread or step.camera:
            self.read_again(step)
        if step.pass_f2:
            self.key(Qt.Key.Key_F2)
            assert self.win.controller.card_type == self.pass_type
            price = self.catalogue_now().types[self.pass_type].price_cents
            assert self.win.card_label(self.pass_type) in self.win.verdict.progress.text()
            assert format_euros(price) in self.win.verdict.progress.text()
        if index == PRINTER_FAILS:  # the printer runs out of cards: the card kept for a reprint
            self.print_failure_then_reprint(step)
            return False
        follow = steps[index + 1] if index + 1 < len(steps) else None
        if (
            index % 30 == 14
            and follow is not None
            and follow.kind in ("new", "return")
            and not follow.camera
            and not self.register_stale()
        ):
            return self.with_one_waiting(step, follow)
        self.enter_admit(step)
        if step.camera:
            self.read_again(step)  # still under the camera after the card
            self.win.controller.report_hint("NO_DOCUMENT")
        return False

    def register_unavailable(self, step: Step) -> bool:
        """The RIAJ copy is older than its limit and no online service answers: not
        admitted, not a refusal (art. 20.1-2: fail closed), whoever presents."""
        verdict = self.present(step, Outcome.NOT_ADMITTED)
        assert "REGISTRY_UNVERIFIABLE" in verdict.evaluation.verdict.codes
        assert text("REGISTRY_UNVERIFIABLE", self.lang) in self.win.verdict.reasons.text()
        register = partial(self.win.status.text_of, "register")
        self.qtbot.waitUntil(lambda: register().startswith("▲"), timeout=3000)  # the cause
        self.shot("not-admitted-register")
        self.enter_seen()
        self.stale_seen += 1
        if step.kind in ("new", "return"):  # never admitted: comes back before closing
            steps_left = self.steps
            steps_left.insert(len(steps_left) - 1, Step("return", step.lines))
        if self.stale_seen == STALE_SEEN // 2:
            self.switch_language("en")  # the next clerk reads English
        if self.stale_seen == STALE_SEEN:
            self.import_register()
        return False

    def with_one_waiting(self, step: Step, follow: Step) -> bool:
        """The next visitor's document read while this admission is on screen: it
        waits, said above the verdict; Enter admits this one and shows the next."""
        controller = self.win.controller
        with (
            self.qtbot.waitSignal(controller.document_waiting, timeout=WAIT) as waiting,
            self.qtbot.assertNotEmitted(controller.verdict_ready, wait=60),
        ):
            self.read(follow)
        assert waiting.args == [1] and controller.waiting == 1
        assert self.win.presentation.waiting_label.isVisible()
        assert "1" in self.win.presentation.waiting_label.text()
        self.shot("waiting")
        with self.qtbot.waitSignal(controller.verdict_ready, timeout=WAIT):
            self.enter_admit(step)
        assert not self.win.presentation.waiting_label.isVisible()
        self.shown(follow, Outcome.ADMIT)
        self.enter_admit(follow)
        return True

    def print_failure_then_reprint(self, step: Step) -> None:
        printing = self.ctx.card_printing
        working = printing.printer
        # out of cards: the device watcher's checks and the print all find no media
        printing.printer = FakePrinter(script=["NO_MEDIA"] * 100)
        try:
            number = self.enter_admit(step, printer_fails=True)
        finally:
            printing.printer = working
        assert [c.number for c in self.ctx.reprints.unprinted_cards()] == [number]
        assert self.win.status.text_of("printer").startswith("▲")  # said at 3 m
        with self.qtbot.waitSignal(self.win.controller.card_printed, timeout=WAIT) as printed:
            self.activate()
            self.qtbot.keyClick(self.win, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)  # type: ignore[no-untyped-call]
        assert printed.args == [number]  # the same card, no new number
        assert self.ctx.reprints.unprinted_cards() == []
        # the printer works again: the rest of the night is not shown a printer error
        assert self.win.status.text_of("printer").startswith("●")


def identity_of(lines: tuple[str, ...], at: datetime) -> object:
    document, _ = document_from_lines(list(lines), madrid_date(at))
    assert document is not None
    return document.identity


def test_a_rehearsed_night_leaves_exactly_what_was_played_in_the_file(
    qtbot: QtBot, shell: object
) -> None:
    night = Night(qtbot, shell)
    ctx, clock = night.ctx, night.clock
    clerk = night.session.operator
    assert clerk is not None
    from ui.desk.demo_start import DEMO_ACCOUNTS

    password = next(a[2] for a in DEMO_ACCOUNTS if a[0] == clerk.username)
    ctx.accounts.set_pin(clerk, password, CLERK_PIN)
    clock.set(DESK_T0)  # Thursday, 20:00 in Madrid: the night starts
    night.session.touch()
    night.win.showNormal()
    night.win.resize(1920, 1050)  # a maximised 1080p screen, for the screenshots
    night.activate()
    steps = script(DESK_T0)
    started = time.monotonic()

    index = 0
    skip_next = False
    while index < len(steps):
        step = steps[index]
        if skip_next:
            skip_next = False
        elif index == SETTINGS_SAVED:
            night.save_hours_and_price()
            skip_next = night.play(index, step, steps)
        elif index == IDLE_LOCK and step.kind == "new" and not night.register_stale():
            night.clock.advance(STEP)
            night.present(step, Outcome.ADMIT)
            night.idle_lock_and_unlock(step)  # the admission left on screen: dismissed
            steps.insert(len(steps) - 1, Step("return", step.lines))
        else:
            skip_next = night.play(index, step, steps)
        index += 1
        if index == PRESENTATIONS - 1 and night.stale_seen < STALE_SEEN:
            pytest.fail("the register never went stale: the clock did not reach its limit")
    played = time.monotonic() - started

    win_worker_idle(qtbot, night.win)
    expected = night.expected
    # the clerk pressed Enter, Esc or F2 at every presentation: one lock, when idle
    assert len(night.locks) == 1, f"the desk locked itself mid-queue at {night.locks}"
    assert night.stale_seen == STALE_SEEN and night.lang == "en"
    assert sum(expected.outcomes.values()) >= PRESENTATIONS
    # -- each person's file: every presentation recorded once, in order ------------------
    at = clock.now()
    for lines, verdicts in expected.records.items():
        visitor = ctx.store.find_visitor(identity_of(lines, DESK_T0))  # type: ignore[arg-type]
        assert visitor is not None
        recorded = [v.verdict for v in ctx.store.visits(visitor.file_number)]
        assert recorded == verdicts, (lines[-1], recorded, verdicts)
    # -- the night's book: visits, refusals, re-entries, not admitted ---------------------
    start, until = DESK_T0 - timedelta(hours=1), at + timedelta(hours=1)
    book = ctx.reads.day_book_lines(start, until)
    assert Counter(line.verdict for line in book) == expected.outcomes
    assert len({(line.file_number, line.at) for line in book}) == len(book)  # none twice
    counts = ctx.reads.figure_counts(start, until)
    figures = figures_from_counts(madrid_date(start), madrid_date(until), counts)
    assert figures.admissions == expected.outcomes["ADMIT"]
    assert figures.refused == expected.outcomes["DENY"]
    assert figures.reentries == expected.outcomes["ALREADY_ADMITTED"]
    assert figures.not_admitted == expected.outcomes["NOT_ADMITTED"]
    not_admitted = dict(figures.not_admitted_reasons)
    assert not_admitted["REGISTRY_UNVERIFIABLE"] == STALE_SEEN
    assert not_admitted["DISMISSED_BY_CLERK"] == expected.outcomes["NOT_ADMITTED"] - STALE_SEEN
    distinct = {
        lines
        for lines, verdicts in expected.records.items()
        if set(verdicts) - {"ALREADY_ADMITTED"}
    }
    assert figures.visitors == len(distinct)
    # -- the cards: gapless, increasing in time, each of the type and price charged ---------
    admitted = sorted((line for line in book if line.verdict == "ADMIT"), key=lambda b: b.at)
    issued = [line.card_number for line in admitted if line.card_number is not None]
    assert issued == list(range(1, len(expected.cards) + 1))  # gapless, increasing
    # an admission on a pass held issues nothing (the visit names no new card)
    on_passes = [line.at for line in admitted if line.card_number is None]
    assert on_passes == [at for at, _ in expected.on_passes] and len(on_passes) >= 3
    assert ctx.store.card(len(expected.cards) + 1) is None  # no number taken beyond
    for number, (card_type, price) in expected.cards.items():
        card = ctx.store.card(number)
        assert card is not None and card.status.value == "PRINTED", number
        assert (card.card_type, card.price_cents) == (card_type, price), number
    charged = Counter(card_type for card_type, _ in expected.cards.values())
    assert charged[night.pass_type] >= 10 and charged[night.default] > 150
    prices = {price for card_type, price in expected.cards.values() if card_type == night.default}
    assert prices == {night.catalogue.types[night.default].price_cents, NEW_DAY_PRICE}
    # the keyed chain commits to every row the night wrote (art. 20.4)
    check = ctx.store.verify()
    assert check.ok and check.rows >= len(book) + len(expected.cards), check
    assert played < 240, f"the night took {played:.0f} s"

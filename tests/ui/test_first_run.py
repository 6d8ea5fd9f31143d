"""A fresh install, following only the screens: on a computer without an OS keyring the
wizard asks for the file's passphrase (twice, checked, said to be unrecoverable), makes
the administrator and the game director, takes the casino's data with nothing invented
filled in, imports and tests a RIAJ copy, and ends with a desk where the director signs
in and admits the first visitor. Everything is driven with keys, as a person would: Enter
always moves forward (never Cancel). The next start asks for the passphrase again.

The whole run is timed (wall clock from the wizard shown to the first admission
recorded) and printed; each page is saved to build/screens/ in Spanish and English."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit, QWidget, QWizard
from pytestqt.qtbot import QtBot

from admission.clock import FixedClock
from admission.desk import AdmissionResult
from admission.ports import madrid_date
from admission.settings import Settings
from tests.ui.test_desk_menus import type_burst
from ui.desk.app import AppStart, DeskShell, make_application
from ui.desk.demo_scenario import demo_cases
from ui.desk.dialogs.passphrase import PassphraseDialog
from ui.desk.dialogs.wizard import FirstRunWizard
from ui.desk.screens import save_screenshot

NOW = datetime(2026, 12, 3, 21, 30, tzinfo=UTC)  # a Thursday, 22:30 in Madrid
PASSPHRASE = "la ruleta gira despacio en Madrid"
DIRECTOR = ("dgarcia", "Dolores García Ruiz", "mesa-de-juego-7")
ADMIN = ("admin", "Administración Casino", "clave-del-admin-1")
Step = Callable[[QWidget], bool]


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A computer whose OS keyring fails (keyring's ``fail`` backend), no key variable."""
    import keyring
    from keyring.backends import fail

    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    monkeypatch.delenv("ADMISSION_AUDIT_KEY", raising=False)
    yield
    keyring.set_keyring(before)


def start_for(folder: Path) -> AppStart:
    from db.keys import WindowPassphrase
    from main import build_context, build_tools

    passphrase = WindowPassphrase()
    return AppStart(
        build_tools=partial(build_tools, folder, clock=FixedClock(NOW), passphrase=passphrase),
        build_context=build_context,
        passphrase=passphrase,
    )


def write_register(folder: Path) -> Path:
    """The RIAJ copy the Comunidad gives (invented numbers, one per line)."""
    path = folder / "riaj-copia.txt"
    path.write_text("# RIAJ (inventado)\n12345678Z\nX1234567L\n", encoding="utf-8")
    return path


def type_text(widget: QWidget, text: str) -> None:
    """Type ``text`` into ``widget`` key by key (accented letters too, which
    ``QTest.keyClicks`` cannot send)."""
    for char in text:
        if char.isascii():
            QTest.keyClick(widget, char)
            continue
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            event = QKeyEvent(kind, Qt.Key.Key_unknown, Qt.KeyboardModifier.NoModifier, char)
            QApplication.sendEvent(widget, event)


class Person:
    """Answers each screen with keys, once per screen, as a person following it would."""

    def __init__(self, qtbot: QtBot, register: Path, shots: str = "") -> None:
        self.qtbot = qtbot
        self.register = register
        self.shots = shots  # a language suffix: save each page
        self.done: set[str] = set()
        self.seen: list[str] = []
        self.wizard_shown_at: float | None = None
        self.problems: list[str] = []
        self.stop = False
        self.current = ""

    def poll(self) -> None:
        if self.stop:
            return
        try:
            self.act(QApplication.activeModalWidget())
        except Exception as exc:  # reported by the test (person.problems), not swallowed
            self.problems.append(repr(exc))
        QTimer.singleShot(40, self.poll)

    def shot(self, widget: QWidget, name: str) -> None:
        if self.shots:
            save_screenshot(widget, f"first-run-{name}-{self.shots}")

    def act(self, modal: QWidget | None) -> None:
        if isinstance(modal, FirstRunWizard):
            if self.wizard_shown_at is None:
                self.wizard_shown_at = time.monotonic()
            self.on_wizard(modal)
        elif isinstance(modal, PassphraseDialog) and "passphrase" not in self.done:
            self.done.add("passphrase")
            self.shot(modal, "passphrase-at-start")
            type_text(modal.field, PASSPHRASE)
            QTest.keyClick(modal.field, Qt.Key.Key_Return)
        elif isinstance(modal, QDialog) and type(modal).__name__ == "SignInDialog":
            focus = QApplication.focusWidget()
            if "sign_in" in self.done or not isinstance(focus, QLineEdit):
                return  # not yet shown with its cursor in the user name
            self.done.add("sign_in")
            self.shot(modal, "sign-in")
            type_text(focus, DIRECTOR[0])
            QTest.keyClick(focus, Qt.Key.Key_Tab)
            type_text(QApplication.focusWidget(), DIRECTOR[2])
            QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)

    def type_in(self, text: str) -> None:
        focus = QApplication.focusWidget()
        assert focus is not None
        type_text(focus, text)

    def key(self, key: Qt.Key) -> None:
        QApplication.processEvents()  # an editor just opened takes the focus
        focus = QApplication.focusWidget()
        assert focus is not None
        QTest.keyClick(focus, key)

    def on_wizard(self, wiz: FirstRunWizard) -> None:
        page = wiz.currentPage()
        name = type(page).__name__
        registry = wiz.registry_page
        if name == "RegistryPage" and name in self.done and registry is not None:
            if registry.tested and "RegistryPage-tested" not in self.done:
                self.done.add("RegistryPage-tested")  # the answer read, then Enter
                self.shot(wiz, "RegistryPage-tested")
                self.key(Qt.Key.Key_Return)
            return
        if name in self.done or not page.isVisible():
            return
        if self.current != name:  # a person reads the page before typing
            self.current = name
            return
        focus = QApplication.focusWidget()
        if focus is None or not wiz.isAncestorOf(focus):
            return  # the page has not put its cursor yet
        cancel = wiz.button(QWizard.WizardButton.CancelButton)
        assert focus is not cancel, f"{name}: the focus is on Cancelar"
        self.done.add(name)
        self.seen.append(name)
        self.shot(wiz, name)
        if name == "KeyPage":
            assert focus is wiz.key_page.passphrase
            self.type_in("corta")
            self.key(Qt.Key.Key_Return)  # too short: refused, the file is not made
            assert wiz.key_page.errors.code == "PASSPHRASE_TOO_SHORT"
            wiz.key_page.passphrase.selectAll()
            self.type_in(PASSPHRASE)
            self.key(Qt.Key.Key_Tab)
            self.type_in(PASSPHRASE)
            self.key(Qt.Key.Key_Return)  # not acknowledged yet: the box gets the focus
            assert QApplication.focusWidget() is wiz.key_page.understood
            self.key(Qt.Key.Key_Space)
            self.shot(wiz, "KeyPage-filled")
            self.key(Qt.Key.Key_Return)
        elif name in ("AdminPage", "DirectorPage"):
            username, display, password = ADMIN if name == "AdminPage" else DIRECTOR
            for text in (username, display, password):
                self.type_in(text)
                self.key(Qt.Key.Key_Tab)
            self.type_in(password)
            self.key(Qt.Key.Key_Return)
        elif name == "CasinoPage":
            self.type_in("Casino Gran Vía")
            self.key(Qt.Key.Key_Tab)
            self.type_in("GV01")
            self.key(Qt.Key.Key_Return)  # no price yet: the price cell is pointed at
            cards = wiz.casino_page.cards
            assert wiz.casino_page.errors.code == "CARD_TYPE_BAD_PRICE"
            assert cards.table.currentColumn() == 4
            self.type_in("5")  # typing starts the edit of the price cell
            self.key(Qt.Key.Key_Return)  # ends the edit
            self.shot(wiz, "CasinoPage-prices")
            self.key(Qt.Key.Key_Return)  # next
        elif name == "RegistryPage":
            self.key(Qt.Key.Key_Return)  # no file chosen: said, nothing imported
            assert wiz.registry_page is not None
            assert wiz.registry_page.errors.code == "FIELD_REQUIRED"
            self.type_in(str(self.register))
            label = wiz.registry_page.test_button.text()  # "&Probar", "&Test": Alt+letter
            letter = label[label.index("&") + 1].upper()
            QTest.keyClick(wiz, Qt.Key(ord(letter)), Qt.KeyboardModifier.AltModifier)
        elif name == "PrinterPage":
            self.key(Qt.Key.Key_Return)  # the PDF folder; Enter finishes


def run_first_start(
    qtbot: QtBot, folder: Path, language: str = ""
) -> tuple[DeskShell, Person, float, AdmissionResult]:
    folder.mkdir(parents=True, exist_ok=True)
    if language == "en":
        Settings({"ui.language": "en"}).save(folder / "settings.json")
    person = Person(qtbot, write_register(folder.parent), shots=language)
    shell = DeskShell(make_application(), start_for(folder))
    QTimer.singleShot(0, person.poll)
    assert shell.open() is None, shell.failure
    window = shell.window
    assert window is not None and shell.ctx is not None
    recorded: list[AdmissionResult] = []
    window.controller.admission_recorded.connect(recorded.append)
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    today = madrid_date(NOW)
    lines = next(c for c in demo_cases(today) if c.kind == "admitted").lines
    type_burst(window, lines)  # the document reader (keyboard wedge)
    qtbot.waitUntil(lambda: window.controller.current is not None, timeout=5000)
    verdict = window.controller.current
    assert verdict is not None
    assert str(verdict.evaluation.verdict.outcome) == "ADMIT", verdict.evaluation.verdict
    if language:
        save_screenshot(window, f"first-run-first-visitor-{language}")
    QTest.keyClick(window, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(recorded), timeout=5000)
    assert person.wizard_shown_at is not None
    elapsed = time.monotonic() - person.wizard_shown_at
    person.stop = True
    assert person.problems == []
    return shell, person, elapsed, recorded[0]


def test_a_fresh_install_admits_its_first_visitor_following_only_the_screens(
    qtbot: QtBot, tmp_path: Path, no_keyring: None, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "desk"
    shell, person, elapsed, result = run_first_start(qtbot, folder, "es")
    try:
        assert person.seen == [
            "KeyPage",
            "AdminPage",
            "DirectorPage",
            "CasinoPage",
            "RegistryPage",
            "PrinterPage",
        ]
        assert result.card is not None and result.card.price_cents == 500
        assert shell.session is not None and shell.session.operator is not None
        assert shell.session.operator.username == DIRECTOR[0]  # who admitted (art. 20.3)
        assert shell.ctx is not None
        settings = shell.ctx.settings
        assert settings["casino.name"] == "Casino Gran Vía" and settings["casino.id"] == "GV01"
        state = shell.ctx.replica.state()
        assert state is not None and state.entries == 2
        director = shell.ctx.accounts.account(DIRECTOR[0])
        assert director is not None and {str(r) for r in director.roles} == {"DIRECTOR"}
    finally:
        shell.close()
    assert (folder / "visitors.db").is_file()
    assert PASSPHRASE.encode() not in (folder / "visitors.db").read_bytes()
    assert not any(PASSPHRASE in p.read_text("utf-8", "replace") for p in folder.glob("*.json"))
    with capsys.disabled():
        print(f"\nfirst run, wizard shown -> first admission recorded: {elapsed:.2f} s")

    # the next start: the passphrase is asked, then the sign-in
    person = Person(qtbot, folder.parent / "riaj-copia.txt", shots="es")
    again = DeskShell(make_application(), start_for(folder))
    QTimer.singleShot(0, person.poll)
    try:
        assert again.open() is None, again.failure
        assert {"passphrase", "sign_in"} <= person.done
    finally:
        person.stop = True
        again.close()


def test_the_english_first_run(qtbot: QtBot, tmp_path: Path, no_keyring: None) -> None:
    from ui.desk.i18n import install_translator

    try:
        shell, _person, _elapsed, result = run_first_start(qtbot, tmp_path / "desk", "en")
        assert result.card is not None
        shell.close()
    finally:
        install_translator(QApplication.instance(), "es")  # type: ignore[arg-type]


def test_a_wrong_passphrase_at_start_is_asked_again(
    qtbot: QtBot, tmp_path: Path, no_keyring: None
) -> None:
    folder = tmp_path / "desk"
    shell, _person, _elapsed, _result = run_first_start(qtbot, folder)
    shell.close()
    answers = iter(["no es la frase de paso", PASSPHRASE])
    asked: list[str] = []

    def answer() -> None:
        modal = QApplication.activeModalWidget()
        if isinstance(modal, PassphraseDialog):
            asked.append(modal.errors.code)
            type_text(modal.field, next(answers))
            QTest.keyClick(modal.field, Qt.Key.Key_Return)
        elif isinstance(modal, QDialog) and type(modal).__name__ == "SignInDialog":
            modal.reject()
            return
        QTimer.singleShot(40, answer)

    QTimer.singleShot(0, answer)
    again = DeskShell(make_application(), start_for(folder))
    code = again.open()
    again.close()
    assert asked == ["", "WRONG_KEY"]  # the second time it says the first was wrong
    assert again.failure is not None and again.failure[0] == "START_CANCELLED"
    assert code == 0


def test_the_online_service_is_tested_alone_never_hidden_by_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wizard's test of the online service asks the service (the fake adapter of
    the SOAP client), and a service that does not answer fails the test even when a
    fresh copy would have answered."""
    from dataclasses import replace

    from admission.registry.port import RegistryStatus
    from hardware.registry.fake import FakeRegistry
    from main import build_context, build_tools
    from tests.ui.conftest import seed_register
    from ui.desk.first_run import REGISTRY_PROBE_NUMBER, probe_registry

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    clock = FixedClock(NOW)
    tools = build_tools(tmp_path / "demo", clock=clock, demo=True)
    ctx = build_context(tools)
    try:
        seed_register(ctx, ["12345678Z"])  # a fresh copy
        service = FakeRegistry(clock, script=["UNVERIFIABLE:REGISTRY_TIMEOUT", "NOT_LISTED"])
        online = replace(tools, devices=replace(tools.devices, online_registry=lambda s: service))
        tools.settings.set("registry.online_url", "https://riaj.example.invalid/")
        failed = probe_registry(online, ctx)
        assert failed.status is RegistryStatus.UNVERIFIABLE
        assert failed.error == "REGISTRY_TIMEOUT"
        answered = probe_registry(online, ctx)
        assert answered.status is RegistryStatus.NOT_LISTED
        assert [a.number for a in service.asked] == [REGISTRY_PROBE_NUMBER] * 2
        tools.settings.set("registry.online_url", "")  # the copy only: it answers
        assert probe_registry(tools, ctx).status is RegistryStatus.NOT_LISTED
    finally:
        ctx.close()


def test_a_wizard_left_after_the_file_goes_on_from_that_file_next_time(
    qtbot: QtBot, tmp_path: Path, no_keyring: None
) -> None:
    """Closed after the file was made: the next start asks for its passphrase once and
    the wizard goes on from the file made (art. 20.4: it never starts over)."""
    folder = tmp_path / "desk"
    folder.mkdir()
    person = Person(qtbot, write_register(tmp_path))

    def leave_at_the_administrator() -> None:
        modal = QApplication.activeModalWidget()
        if isinstance(modal, FirstRunWizard) and modal.currentPage() is modal.admin_page:
            person.stop = True
            QTest.keyClick(modal, Qt.Key.Key_Escape)
            return
        QTimer.singleShot(40, leave_at_the_administrator)

    QTimer.singleShot(0, person.poll)
    QTimer.singleShot(0, leave_at_the_administrator)
    first = DeskShell(make_application(), start_for(folder))
    assert first.open() == 0 and first.failure is not None  # START_CANCELLED
    first.close()
    assert (folder / "visitors.db").is_file()

    seen: list[str] = []

    def second_start() -> None:
        modal = QApplication.activeModalWidget()
        if isinstance(modal, PassphraseDialog) and "passphrase" not in seen:
            seen.append("passphrase")
            type_text(modal.field, PASSPHRASE)
            QTest.keyClick(modal.field, Qt.Key.Key_Return)
        elif isinstance(modal, FirstRunWizard):
            key = modal.key_page
            seen.append(f"wizard:{bool(key.file_id)}:{key.asks_passphrase}")
            modal.reject()
            return
        QTimer.singleShot(40, second_start)

    QTimer.singleShot(0, second_start)
    again = DeskShell(make_application(), start_for(folder))
    again.open()
    again.close()
    assert seen == ["passphrase", "wizard:True:False"]


def test_the_online_service_test_goes_over_https_to_the_register(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wizard's online test through the real SOAP client, over HTTPS with client
    certificates on loopback (the reference register): answered, then a register that
    has stopped answers nothing and the test says so."""
    import keyring

    from admission.registry.port import RegistrySource, RegistryStatus
    from hardware.registry.soap_client import (
        KEYRING_KEY_PASSPHRASE,
        KEYRING_PASSWORD,
        KEYRING_SERVICE,
    )
    from main import build_context, build_tools
    from tests.registry.pki import make_pki
    from tests.registry.reference_server import ReferenceRegister
    from tests.registry.test_keyring_settings import MemoryKeyring
    from ui.desk.first_run import probe_registry

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    memory.set_password(KEYRING_SERVICE, KEYRING_PASSWORD, "s3cret")
    keyring.set_keyring(memory)
    pki = make_pki(tmp_path / "pki")
    memory.set_password(KEYRING_SERVICE, KEYRING_KEY_PASSPHRASE, pki.client_key_passphrase)
    clock = FixedClock(NOW)
    ctx = None
    try:
        with ReferenceRegister(
            clock.now, cert=str(pki.server_cert), key=str(pki.server_key), client_ca=str(pki.ca)
        ) as register:
            register.state.credentials = ("casino01", "s3cret")
            folder = tmp_path / "demo"
            Settings(
                {
                    "registry.online_url": register.url,
                    "registry.username": "casino01",
                    "registry.ca_file": str(pki.ca),
                    "registry.client_cert": str(pki.client_cert),
                    "registry.client_key": str(pki.client_key),
                    "registry.timeout_seconds": 2,
                }
            ).save(folder / "settings.json")
            tools = build_tools(folder, clock=clock, demo=True)
            ctx = build_context(tools)
            answered = probe_registry(tools, ctx)
            assert answered.status is RegistryStatus.NOT_LISTED
            assert answered.source is RegistrySource.ONLINE
            assert register.state.requests == ["verificarRGIAJ"]
        silent = probe_registry(tools, ctx)  # the register has stopped
        assert silent.status is RegistryStatus.UNVERIFIABLE and silent.error
    finally:
        keyring.set_keyring(previous)
        if ctx is not None:
            ctx.close()

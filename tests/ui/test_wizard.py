"""The first-run wizard: the file and its key, the administrator, the casino's data and
the card printer; values validated by admission.settings and saved to the settings file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget, QWizard
from pytestqt.qtbot import QtBot

from admission.catalogue import text
from admission.devices import DeviceStatus
from admission.errors import AdmissionError
from admission.settings import Settings
from tests.ui.test_dialogs_director import unnamed_controls
from ui.desk.dialogs.common import DialogCode
from ui.desk.dialogs.wizard import FirstRunWizard
from ui.desk.jobs import ImmediateRunner

WAIT = 5000


def screenshot(widget: QWidget, name: str) -> None:
    try:
        from ui.desk.screens import save_screenshot
    except ImportError:
        return
    save_screenshot(widget, name)


class Calls:
    def __init__(self) -> None:
        self.files = 0
        self.admins: list[tuple[str, str, str]] = []
        self.checks: list[tuple[str, str]] = []

    def create_file(self) -> str:
        self.files += 1
        return "file-0001"

    def create_admin(self, username: str, name: str, password: str) -> object:
        self.admins.append((username, name, password))
        return object()

    def preflight(self, backend: str, target: str) -> DeviceStatus:
        self.checks.append((backend, target))
        return DeviceStatus.READY


def wizard(qtbot: QtBot, tmp_path: Path, calls: Calls) -> tuple[FirstRunWizard, Settings, Path]:
    settings, path = Settings(), tmp_path / "settings.json"
    wiz = FirstRunWizard(
        settings,
        path,
        ImmediateRunner(),
        create_file=calls.create_file,
        create_admin=calls.create_admin,
        preflight=calls.preflight,
    )
    qtbot.addWidget(wiz)
    wiz.show()
    return wiz, settings, path


def test_the_wizard_creates_the_file_the_administrator_and_saves_the_settings(
    qtbot: QtBot, tmp_path: Path
) -> None:
    calls = Calls()
    wiz, settings, path = wizard(qtbot, tmp_path, calls)
    key = wiz.key_page
    assert wiz.currentPage() is key and not key.file_id  # Next (Enter) makes it
    for page in (key, wiz.admin_page, wiz.casino_page, wiz.printer_page):
        assert page.accessibleName() and unnamed_controls(page) == [], page.title()
    screenshot(wiz, "wizard-1-key")
    key.create_button.click()
    assert calls.files == 1 and key.isComplete() and "file-0001" in key.done_label.text()
    key.create_button.click()  # once only
    assert calls.files == 1
    wiz.next()

    admin = wiz.admin_page
    assert wiz.currentPage() is admin
    admin.username.setText("admin")
    admin.display_name.setText("Administración del casino")
    admin.password.setText("correct horse battery")
    admin.repeat.setText("correct horse batterx")
    wiz.next()
    assert wiz.currentPage() is admin and admin.errors.code == DialogCode.PASSWORDS_DIFFER
    assert calls.admins == []
    admin.repeat.setText("correct horse battery")
    screenshot(wiz, "wizard-2-admin")
    wiz.next()
    qtbot.waitUntil(lambda: wiz.currentPage() is wiz.casino_page, timeout=WAIT)
    assert calls.admins == [("admin", "Administración del casino", "correct horse battery")]
    assert admin.password.text() == ""  # no password kept in the widget

    casino = wiz.casino_page
    casino.casino.name.setText("Casino Gran Vía")
    casino.casino.casino_id.setText("gv01")  # upper-cased
    casino.casino.address.setText("Gran Vía 1, Madrid")
    casino.hours.days["thu"].setText("20:00-5:00")
    casino.hours.days["fri"].setText("20:00-06:00")
    casino.hours.days["sat"].setText("cerrado")
    casino.hours.holidays.setText("2026-12-25")
    casino.cards.table.item(0, 4).setText("6,50")  # DAY now costs 6.50 euros
    screenshot(wiz, "wizard-3-casino")
    wiz.next()
    assert wiz.currentPage() is wiz.printer_page, casino.errors.text()

    printer = wiz.printer_page.fields
    printer.backend.setCurrentIndex(printer.backend.findData("cups"))
    printer.card_queue.setCurrentText("Evolis_Primacy")
    printer.check_button.click()
    assert calls.checks == [("cups", "Evolis_Primacy")]
    assert printer.status_label.text() == "Preparada"
    screenshot(wiz, "wizard-4-printer")
    wiz.button(QWizard.WizardButton.FinishButton).click()
    assert wiz.result() == QWizard.DialogCode.Accepted

    saved = Settings.load(path)
    assert saved["casino.name"] == "Casino Gran Vía" and saved["casino.id"] == "GV01"
    assert saved["hours"] == {"thu": "20:00-05:00", "fri": "20:00-06:00", "sat": "closed"}
    assert saved["holidays"] == ["2026-12-25"]
    day = next(t for t in saved["cards.types"] if t["code"] == "DAY")
    assert day["price_cents"] == 650
    assert saved["printer.backend"] == "cups" and saved["printer.card"] == "Evolis_Primacy"
    assert settings["casino.id"] == "GV01"  # the live settings follow


def test_a_refused_value_keeps_the_page_and_shows_the_catalogue_text(
    qtbot: QtBot, tmp_path: Path
) -> None:
    calls = Calls()
    wiz, _settings, path = wizard(qtbot, tmp_path, calls)
    wiz.key_page.create_button.click()
    wiz.next()
    admin = wiz.admin_page
    admin.username.setText("admin")
    admin.display_name.setText("Admin")
    admin.password.setText("pw")
    admin.repeat.setText("pw")
    wiz.next()
    qtbot.waitUntil(lambda: wiz.currentPage() is wiz.casino_page, timeout=WAIT)
    casino = wiz.casino_page
    assert casino.casino.name.text() == "" and casino.casino.casino_id.text() == ""
    wiz.next()  # nothing invented is filled in: the casino's name is the casino's to type
    assert wiz.currentPage() is casino and casino.errors.code == DialogCode.FIELD_REQUIRED
    casino.casino.name.setText("Casino Gran Vía")
    casino.casino.casino_id.setText("CASINO-1")  # not 1-8 letters or digits
    wiz.next()  # no price invented either (art. 23.2)
    assert casino.errors.code == "CARD_TYPE_BAD_PRICE" and not path.exists()
    assert casino.tabs.currentWidget() is casino.cards
    casino.cards.table.item(0, 4).setText("5")
    wiz.next()
    assert wiz.currentPage() is casino
    assert casino.errors.code == "SETTING_BAD_FORMAT"
    assert casino.errors.text().endswith(text("SETTING_BAD_FORMAT", "es"))
    assert casino.errors.text().startswith("Identificador del casino")
    assert not path.exists()
    casino.casino.casino_id.setText("CAS02")
    casino.hours.days["mon"].setText("8 de la tarde")
    wiz.next()
    assert casino.errors.code == DialogCode.HOURS_BAD_FORMAT and wiz.currentPage() is casino
    assert casino.tabs.currentWidget() is casino.hours  # the tab with the bad value
    casino.hours.days["mon"].setText("25:00-05:00")  # the right shape, no such hour
    wiz.next()
    assert casino.errors.code == DialogCode.HOURS_BAD_FORMAT
    casino.hours.days["mon"].setText("")
    casino.cards.default.setCurrentText("NONE")
    wiz.next()
    assert casino.errors.code == "UNKNOWN_CARD_TYPE" and not path.exists()
    assert casino.tabs.currentWidget() is casino.cards  # pointed at the default type
    assert casino.errors.text().startswith("Tipo de tarjeta por defecto")


def test_a_failed_administrator_stays_on_the_page(qtbot: QtBot, tmp_path: Path) -> None:
    calls = Calls()

    def refuse(username: str, name: str, password: str) -> object:
        raise AdmissionError("weak", code=DialogCode.FIELD_REQUIRED)

    wiz = FirstRunWizard(
        Settings(),
        tmp_path / "settings.json",
        ImmediateRunner(),
        create_file=calls.create_file,
        create_admin=refuse,
    )
    qtbot.addWidget(wiz)
    wiz.show()
    wiz.key_page.create_button.click()
    wiz.next()
    admin = wiz.admin_page
    for edit, value in (
        (admin.username, "admin"),
        (admin.display_name, "Admin"),
        (admin.password, "x"),
        (admin.repeat, "x"),
    ):
        edit.setText(value)
    wiz.next()
    qtbot.wait(20)
    assert wiz.currentPage() is admin and admin.errors.code == "FIELD_REQUIRED"


def test_a_folder_whose_file_exists_goes_on_to_the_administrator(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """``init`` never overwrites (art. 20.4): a file made before (``main.py init``) with
    no account yet is used as it is."""
    from admission.errors import StoreError, StoreErrorCode

    calls = Calls()

    def exists() -> str:
        raise StoreError("there", code=StoreErrorCode.FILE_EXISTS)

    wiz = FirstRunWizard(
        Settings(),
        tmp_path / "settings.json",
        ImmediateRunner(),
        create_file=exists,
        create_admin=calls.create_admin,
    )
    qtbot.addWidget(wiz)
    wiz.show()
    wiz.key_page.create_button.click()
    assert wiz.key_page.isComplete() and "ya existe" in wiz.key_page.done_label.text()
    wiz.next()
    assert wiz.currentPage() is wiz.admin_page

    given = FirstRunWizard(
        Settings(),
        tmp_path / "settings.json",
        ImmediateRunner(),
        create_file=calls.create_file,
        create_admin=calls.create_admin,
        existing_file="file-0001",
    )
    qtbot.addWidget(given)
    assert given.key_page.isComplete() and calls.files == 0


def test_the_wizard_on_the_store_worker_thread(qtbot: QtBot, tmp_path: Path) -> None:
    """The app runs the file's creation and the account's on its store thread."""
    from ui.desk.workers import StoreWorker

    calls = Calls()
    worker = StoreWorker()
    try:
        wiz = FirstRunWizard(
            Settings(),
            tmp_path / "settings.json",
            worker,
            create_file=calls.create_file,
            create_admin=calls.create_admin,
        )
        qtbot.addWidget(wiz)
        wiz.show()
        wiz.next()  # Next on the first page creates the file, then goes on
        qtbot.waitUntil(lambda: wiz.currentPage() is wiz.admin_page, timeout=WAIT)
        assert wiz.key_page.isComplete()
        for edit, value in (
            (wiz.admin_page.username, "admin"),
            (wiz.admin_page.display_name, "Admin"),
            (wiz.admin_page.password, "secret words"),
            (wiz.admin_page.repeat, "secret words"),
        ):
            edit.setText(value)
        wiz.next()
        wiz.next()  # a second press while the account is being made does nothing more
        qtbot.waitUntil(lambda: wiz.currentPage() is wiz.casino_page, timeout=WAIT)
        assert calls.files == 1 and len(calls.admins) == 1
    finally:
        worker.stop()


# -- Enter moves forward on every page; the register's test ----------------------------
def _answer(status: str, error: str = "") -> object:
    from admission.registry.port import RegistryAnswer, RegistrySource, RegistryStatus

    return RegistryAnswer(RegistryStatus(status), RegistrySource.ONLINE, error=error)


def test_with_a_keyring_enter_alone_makes_the_file_and_never_cancels(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """With an OS keyring the first page has nothing to type: Next has the focus and
    Enter makes the file; the create button, once disabled, hands the focus to Next."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    calls = Calls()
    wiz, _settings, _path = wizard(qtbot, tmp_path, calls)
    qtbot.waitExposed(wiz)
    wiz.activateWindow()
    commit = wiz.button(QWizard.WizardButton.CommitButton)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is commit, timeout=WAIT)
    assert not wiz.key_page.passphrase.isVisible()  # a keyring keeps a random key
    QTest.keyClick(commit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: wiz.currentPage() is wiz.admin_page, timeout=WAIT)
    assert calls.files == 1
    qtbot.waitUntil(lambda: QApplication.focusWidget() is wiz.admin_page.username, timeout=WAIT)
    cancel = wiz.button(QWizard.WizardButton.CancelButton)
    cancel.setFocus()
    QTest.keyClick(cancel, Qt.Key.Key_Return)  # Enter on Cancel still moves forward
    assert wiz.isVisible() and wiz.admin_page.errors.code == DialogCode.FIELD_REQUIRED
    assert QApplication.focusWidget() is wiz.admin_page.username  # the field to fill


def test_the_register_page_needs_an_answered_test_before_going_on(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from ui.desk.dialogs.wizard import RegistryImported

    calls = Calls()
    answers = [_answer("UNVERIFIABLE", "REGISTRY_TIMEOUT"), _answer("NOT_LISTED")]
    imported: list[Path] = []

    def import_registry(path: Path) -> RegistryImported:
        imported.append(path)
        from datetime import UTC, datetime

        return RegistryImported(3, datetime(2026, 12, 3, 9, 0, tzinfo=UTC))

    settings, path = Settings(), tmp_path / "settings.json"
    wiz = FirstRunWizard(
        settings,
        path,
        ImmediateRunner(),
        create_file=calls.create_file,
        create_admin=calls.create_admin,
        create_director=calls.create_admin,
        import_registry=import_registry,
        test_registry=lambda: answers.pop(0),  # type: ignore[arg-type,return-value]
    )
    qtbot.addWidget(wiz)
    wiz.show()
    page = wiz.registry_page
    assert page is not None and [p.title()[:2] for p in map(wiz.page, wiz.pageIds())] == [
        "1.",
        "2.",
        "3.",
        "4.",
        "5.",
        "6.",
    ]
    screenshot(page, "wizard-5-registry")
    page.use_online.setChecked(True)
    page.run_test()  # no address typed
    assert page.errors.code == DialogCode.FIELD_REQUIRED and not page.tested
    page.url.setText("https://riaj.example.invalid/consulta")
    page.client_cert.setText("/etc/riaj/cliente.pem")  # the regulator's certificate
    page.run_test()  # the service does not answer: said, the page stays
    assert page.errors.code == "REGISTRY_TIMEOUT" and not page.tested
    assert settings["registry.online_url"] == "https://riaj.example.invalid/consulta"
    assert settings["registry.client_cert"] == "/etc/riaj/cliente.pem"
    page.run_test()
    assert page.tested and page.errors.code == "" and imported == []
    assert "responde" in page.result.text()
    from PySide6.QtTest import QTest

    QTest.keyClick(page.url, "x")  # the address edited: tested again
    assert not page.tested and page.result.text() == ""

"""The settings screens: an administrator's; every value validated by admission.settings
(and the card types and hours by the desk's own parsers) before the file is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from admission.accounts import Operator, Role
from admission.catalogue import text
from admission.settings import Settings
from ui.desk.dialogs.common import DialogCode
from ui.desk.dialogs.settings import SettingsDialog
from ui.desk.jobs import ImmediateRunner
from ui.desk.ops.settings import SettingsOps

ADMIN = Operator("admin", "Admin", frozenset({Role.ADMIN}))
DIRECTOR = Operator("director1", "Director", frozenset({Role.DIRECTOR}))


def screenshot(widget: QWidget, name: str) -> None:
    try:
        from ui.desk.screens import save_screenshot
    except ImportError:
        return
    save_screenshot(widget, name)


def dialog_for(
    qtbot: QtBot, tmp_path: Path, operator: Operator | None
) -> tuple[SettingsDialog, Settings, Path]:
    settings, path = Settings({"casino.name": "Casino de prueba"}), tmp_path / "settings.json"
    dialog = SettingsDialog(SettingsOps(settings, path), operator, ImmediateRunner())
    qtbot.addWidget(dialog)
    return dialog, settings, path


def test_an_invalid_value_is_refused_with_the_catalogue_text_and_nothing_saved(
    qtbot: QtBot, tmp_path: Path
) -> None:
    dialog, settings, path = dialog_for(qtbot, tmp_path, ADMIN)
    dialog.casino.casino_id.setText("CASINO 1")
    assert dialog.save() is False
    assert dialog.errors.code == "SETTING_BAD_FORMAT"
    # the catalogue's text, after the name of the refused field, which has the focus
    assert dialog.errors.text() == (
        "Identificador del casino (1-8 letras o cifras): " + text("SETTING_BAD_FORMAT", "es")
    )
    assert dialog.focusWidget() is dialog.casino.casino_id or not dialog.isVisible()
    assert not path.exists() and settings["casino.id"] == "CAS01"
    screenshot(dialog, "settings-refused")

    dialog.casino.casino_id.setText("CAS02")
    dialog.hours.days["fri"].setText("21:00-")
    assert dialog.save() is False and dialog.errors.code == DialogCode.HOURS_BAD_FORMAT
    assert dialog.tabs.currentWidget() is dialog.hours
    dialog.hours.days["fri"].setText("21:00-04:00")
    dialog.hours.holidays.setText("2026-13-01")
    assert dialog.save() is False and dialog.errors.code == DialogCode.HOLIDAY_BAD_DATE
    dialog.hours.holidays.setText("")
    dialog.cards.table.item(0, 4).setText("-3")
    assert dialog.save() is False and dialog.errors.code == "CARD_TYPE_BAD_PRICE"
    assert not path.exists()


def test_valid_values_are_saved_and_read_back(qtbot: QtBot, tmp_path: Path) -> None:
    dialog, settings, path = dialog_for(qtbot, tmp_path, ADMIN)
    assert dialog.casino.name.text() == "Casino de prueba"
    dialog.casino.casino_id.setText("cas02")
    dialog.casino.address.setText("Calle Mayor 1, Madrid")
    dialog.hours.days["fri"].setText("21:00-04:00")
    dialog.hours.days["sat"].setText("21:00-05:00")
    dialog.hours.last_hour.setChecked(True)
    dialog.devices.camera.setText("/dev/video2")
    dialog.devices.serial.setText("/dev/ttyUSB0")
    dialog.registry.url.setText("https://riaj.example.invalid/check")
    dialog.registry.timeout.setValue(7)
    dialog.registry.max_age.setValue(12)
    dialog.registry.unverifiable.setCurrentIndex(
        dialog.registry.unverifiable.findData("SUPERVISOR")
    )
    dialog.registry.username.setText("casino-gv")
    dialog.cards.add_button.click()
    row = dialog.cards.table.rowCount() - 1
    for column, value in ((0, "congreso"), (1, "Congreso"), (4, "2,5"), (5, "3")):
        item = dialog.cards.table.item(row, column)
        assert item is not None
        item.setText(value)
    dialog.tabs.setCurrentWidget(dialog.cards)
    screenshot(dialog, "settings-card-types")
    with qtbot.waitSignal(dialog.saved, timeout=1000) as saved_keys:
        assert dialog.save() is True
    assert "casino.id" in saved_keys.args[0] and "casino.name" not in saved_keys.args[0]

    saved = Settings.load(path)
    assert saved["casino.id"] == "CAS02" and saved["casino.address"] == "Calle Mayor 1, Madrid"
    assert saved["hours"] == {"fri": "21:00-04:00", "sat": "21:00-05:00"}
    assert saved["admission.stop_last_hour"] is True
    assert saved["camera.device"] == "/dev/video2"
    assert saved["scanner.serial_port"] == "/dev/ttyUSB0"
    assert saved["registry.online_url"] == "https://riaj.example.invalid/check"
    assert saved["registry.timeout_seconds"] == 7
    assert saved["registry.max_replica_age_hours"] == 12
    assert saved["admission.unverifiable"] == "SUPERVISOR"
    assert saved["registry.username"] == "casino-gv"
    congress = next(t for t in saved["cards.types"] if t["code"] == "CONGRESO")
    assert congress["price_cents"] == 250 and congress["validity_days"] == 3
    assert congress["label_en"] == "Congreso"
    assert json.loads(path.read_text())["version"] == 2
    assert settings["casino.id"] == "CAS02"  # the live settings follow

    # the dialog opened again shows what was saved
    again = SettingsDialog(SettingsOps(saved, path), ADMIN, ImmediateRunner())
    qtbot.addWidget(again)
    assert again.hours.days["fri"].text() == "21:00-04:00"
    assert again.hours.days["mon"].text() == "cerrado"  # a weekday left out is closed
    assert again.registry.timeout.value() == 7


@pytest.mark.parametrize("operator", [None, DIRECTOR])
def test_only_an_administrator_changes_the_settings(
    qtbot: QtBot, tmp_path: Path, operator: Operator | None
) -> None:
    dialog, _settings, path = dialog_for(qtbot, tmp_path, operator)
    assert not dialog.save_button.isEnabled() and not dialog.tabs.isEnabled()
    assert dialog.errors.code == DialogCode.SETTINGS_NEED_ADMIN
    assert dialog.save() is False and not path.exists()


def test_every_control_has_an_accessible_name(qtbot: QtBot, tmp_path: Path) -> None:
    from PySide6.QtWidgets import (
        QAbstractButton,
        QComboBox,
        QLineEdit,
        QSpinBox,
        QTableWidget,
    )

    dialog, _settings, _path = dialog_for(qtbot, tmp_path, ADMIN)
    unnamed = [
        type(w).__name__
        for kind in (QLineEdit, QComboBox, QSpinBox, QTableWidget, QAbstractButton)
        for w in dialog.findChildren(kind)
        if not w.accessibleName()
        and w.isVisibleTo(dialog)
        and not isinstance(w.parent(), QComboBox | QSpinBox)  # their inner line edit
        and w.objectName() not in ("qt_spinbox_lineedit",)
        and type(w).__name__ not in ("QTabBar", "QToolButton")
    ]
    assert unnamed == []

"""The floor's card-check page served with the desk (art. 22.4): with ``floor.listen``
set, the window starts the service over its own file, says where phones reach it in the
status bar, answers over HTTPS with the desk's casino CA, and stops it (audited) when
the desk closes; an address it cannot take is said in the status bar and the desk works
on."""

from __future__ import annotations

import json
import socket
import ssl
import urllib.request
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from tests.ui.conftest import open_demo_shell
from ui.desk.dialogs.common import apply_settings
from ui.desk.screens import save_screenshot


@pytest.fixture
def app() -> QApplication:
    from ui.desk.app import make_application

    return make_application()


def _set_floor(app: QApplication, data: Path, listen: str) -> None:
    """The administrator saved ``floor.listen`` (read at the next start)."""
    from main import SETTINGS_FILE

    shell = open_demo_shell(app, data)
    try:
        assert shell.ctx is not None and shell.window is not None
        assert "floor" not in shell.window.status.labels  # not set: nothing shown
        apply_settings(shell.ctx.settings, {"floor.listen": listen}, data / SETTINGS_FILE)
    finally:
        shell.close()


def test_the_desk_serves_the_floor_page_and_stops_it_when_it_closes(
    app: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    data = tmp_path / "demo"
    _set_floor(app, data, "127.0.0.1:0")
    shell = open_demo_shell(app, data)
    try:
        assert shell.floor is not None and shell.window is not None and shell.ctx is not None
        port = shell.floor.server.port
        assert port > 0
        label = shell.window.status.labels["floor"]
        assert label.text().startswith("● Sala: https://") and f":{port}/" in label.text()
        save_screenshot(shell.window.status, "desk-status-floor-served")
        trust = ssl.create_default_context(cadata=shell.floor.server.tls.ca_pem.decode())
        trust.check_hostname = False  # the URL names this machine; the CA is what is checked
        with urllib.request.urlopen(
            f"https://127.0.0.1:{port}/api/health", context=trust, timeout=10
        ) as answer:
            assert json.loads(answer.read()) == {"ok": True}
    finally:
        shell.close()
    assert shell.floor is None
    with pytest.raises(OSError):  # nobody listens any more
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    shell = open_demo_shell(app, data)  # the trail of the closed desk, read again
    try:
        assert shell.ctx is not None and shell.floor is not None
        actions = [e.action for e in shell.ctx.store.audit_entries(0, 100_000)]
        assert actions.count("FLOOR_SERVICE_STARTED") == 2
        assert actions.count("FLOOR_SERVICE_STOPPED") == 1
    finally:
        shell.close()


def test_an_address_the_desk_cannot_take_is_said_and_the_desk_works_on(
    app: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    data = tmp_path / "demo"
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        _set_floor(app, data, f"127.0.0.1:{taken.getsockname()[1]}")
        shell = open_demo_shell(app, data)
        try:
            assert shell.floor is None and shell.window is not None
            status = shell.window.status
            assert status.labels["floor"].text() == "▲ Sala: no se sirve"
            save_screenshot(status, "desk-status-floor-refused")
            assert "puerto está ocupado" in status.last_error.toolTip() + status.last_error.text()
            assert shell.window.isVisible()
        finally:
            shell.close()
    finally:
        taken.close()

"""The register's problem in the status bar lasts as long as the problem: a stale copy
is marked and named as the last error, and a fresh copy imported clears that error
(a device's or another problem shown since is left as it is)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from admission.catalogue import text
from ui.desk.widgets.status_bar import DeskStatusBar


def test_a_fresh_copy_clears_the_registers_old_problem(qtbot: QtBot) -> None:
    bar = DeskStatusBar()
    qtbot.addWidget(bar)
    bar.set_register_age(24 * 3600 + 60, "REPLICA_STALE")
    assert text("REPLICA_STALE", "es") in bar.last_error.text()
    assert bar.labels["register"].text().startswith("▲")
    bar.set_register_age(60)  # a new snapshot imported: a minute old
    assert bar.last_error.text() == ""
    assert bar.labels["register"].text().startswith("●")


def test_another_problem_shown_since_is_kept(qtbot: QtBot) -> None:
    bar = DeskStatusBar()
    qtbot.addWidget(bar)
    bar.set_register_age(24 * 3600 + 60, "REPLICA_STALE")
    bar.last_error.setText("Impresora: sin tarjetas")
    bar.set_register_age(60)
    assert bar.last_error.text() == "Impresora: sin tarjetas"

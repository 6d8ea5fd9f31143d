"""Shared fixtures of the window's tests: a demo visitor file on a temporary folder
(the real SQLCipher file, fake devices, a PDF-folder card printer), a settable clock and
a signed-in session stand-in. Qt runs offscreen."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from admission.accounts import Operator, Role
from admission.clock import FixedClock
from ui.context import AppContext

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from ui.desk.app import DeskShell

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# a Thursday evening, the casino open (20:00 in Madrid)
DESK_T0 = datetime(2026, 12, 3, 19, 0, tzinfo=UTC)

NOBODY_LISTED = "00000000T"  # an invented DNI: a register needs one line at least
CLERK = Operator("clerk1", "Clerk One", frozenset({Role.CLERK}))
DIRECTOR = Operator("director1", "Director One", frozenset({Role.DIRECTOR}))


class FakeSession:
    """The ``SessionView`` the controller reads: an operator and a lock flag."""

    def __init__(self, operator: Operator | None = CLERK) -> None:
        self.operator: Operator | None = operator
        self.is_locked = False


def seed_register(ctx: AppContext, listed: list[str]) -> None:
    """A RIAJ replica listing ``listed`` DNI/NIE numbers, as ``demo`` seeds it (without
    one every check is REGISTRY_UNVERIFIABLE, art. 20.2)."""
    ctx.replica.import_lines(
        [b"# demo RIAJ snapshot (invented)\n", *(f"{n}\n".encode() for n in listed)]
    )


def refresh_register(ctx: AppContext, listed: list[str]) -> None:
    """The day's RIAJ copy, imported at the clock's instant: its header names that instant,
    so each refresh is a new snapshot dated now (the same bytes again would be the active
    snapshot, unchanged, and keep its old date: a copy past its age, art. 20.2)."""
    now = ctx.clock.now().isoformat()
    ctx.replica.import_lines(
        [
            f"# demo RIAJ snapshot of {now} (invented)\n".encode(),
            *(f"{n}\n".encode() for n in listed),
        ]
    )


def english() -> None:
    """The window in English from here on, as the app sets it for ``--lang en``: Qt's
    translator, the catalogue's language and QLocale's default (undone after each test
    by ``_spanish_locale_after_each_test``)."""
    from PySide6.QtCore import QLocale
    from PySide6.QtWidgets import QApplication

    from ui.desk.i18n import install_translator
    from ui.desk.text import set_language

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    assert install_translator(app, "en") is not None
    set_language("en")
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedKingdom))


def open_demo_shell(app: QApplication, data: Path) -> DeskShell:
    """The application as it runs (``ui.desk.app.DeskShell``) on the demo file in ``data``,
    opened; the caller closes it."""
    from main import build_context, build_tools
    from ui.desk.app import AppStart, DeskShell

    start = AppStart(
        build_tools=partial(build_tools, data, demo=True), build_context=build_context, demo=True
    )
    shell = DeskShell(app, start)
    assert shell.open() is None
    return shell


@pytest.fixture
def desk_clock(request: pytest.FixtureRequest) -> FixedClock:
    """A clock the test sets (``desk_clock.set(instant)``). It starts at ``DESK_T0``, or at
    the instant a test gives with ``@pytest.mark.parametrize("desk_clock", [instant],
    indirect=True)``: a test that seeds history older than ``DESK_T0`` starts the file
    there, since the file's own entries (the RIAJ import, the settings) are written when
    it is built and a clock set back past them stops admissions (art. 22.1)."""
    start: datetime = getattr(request, "param", DESK_T0)
    return FixedClock(start)


@pytest.fixture
def demo_ctx(
    tmp_path: Path, desk_clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> Iterator[AppContext]:
    """A demo ``AppContext`` over a fresh visitor file in ``tmp_path/demo``."""
    from main import build_context, build_tools

    monkeypatch.delenv("ADMISSION_DB_KEY", raising=False)
    ctx = build_context(build_tools(tmp_path / "demo", clock=desk_clock, demo=True))
    seed_register(ctx, [NOBODY_LISTED])
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def session() -> FakeSession:
    """A clerk signed in, unlocked."""
    return FakeSession()


@pytest.fixture(autouse=True)
def _spanish_locale_after_each_test() -> Iterator[None]:
    """A test that shows the window in English must not leave the next one's card-type
    labels, catalogue texts or Qt translators in English (the window reads QLocale's
    default and the catalogue's language, as the app sets them)."""
    yield
    from PySide6.QtCore import QCoreApplication, QLocale

    from ui.desk.text import set_language

    app = QCoreApplication.instance()
    if app is not None:
        from ui.desk.i18n import install_translator

        install_translator(app, "es")
    set_language("es")
    QLocale.setDefault(QLocale(QLocale.Language.Spanish, QLocale.Country.Spain))

"""The smoke run (``--smoke``, ``ADMISSION_SMOKE=1``): one demo admission driven
through the window offscreen, then exit.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QWidget,
)

from admission.catalogue import text
from ui.desk.start import AppCode

if TYPE_CHECKING:
    from ui.context import AppContext
    from ui.desk.demo_scenario import DemoDevices

__all__ = ["SMOKE_TIMEOUT_S", "SmokeRun", "SmokeShell", "hard_exit"]

log = logging.getLogger("admission.ui")

SMOKE_TIMEOUT_S = 90.0  # a whole admission takes a few seconds; the CI must not hang


class SmokeShell(Protocol):
    """What the smoke run reads of the application shell (``ui.desk.app.DeskShell``)."""

    @property
    def ctx(self) -> AppContext | None: ...

    @property
    def parts(self) -> Any: ...

    @property
    def devices(self) -> DemoDevices | None: ...

    @property
    def window(self) -> QWidget | None: ...


class SmokeRun(QObject):
    """One demo admission through the window: a new invented adult's document is laid
    on the demo reader, the verdict must be ADMIT, Enter is pressed on the window, the
    card must be printed to the demo PDF folder, the admission recorded and counted by the
    desk's counters. Exit 0, or 1 with one line saying what failed; a hard limit ends a
    run that hangs."""

    def __init__(
        self, shell: SmokeShell, parent: QObject, timeout_s: float = SMOKE_TIMEOUT_S
    ) -> None:
        super().__init__(parent)
        self.shell = shell
        self.timeout_s = timeout_s
        self.exit_code = 1
        self.recorded: Any = None
        self._printed_number: int | None = None
        self._folder: Path | None = None
        self._counted = False  # the desk's counters have shown the admission (art. 22)
        self._done = False
        self._pdfs_before: set[str] = set()

    def _pdf_folder(self) -> Path:
        ctx = self.shell.ctx
        assert ctx is not None
        folder = ctx.settings["printer.pdf_folder"]
        return Path(folder) if folder else ctx.data_dir / "cards"

    def begin(self) -> None:
        import threading

        controller = getattr(self.shell.parts, "controller", None)
        devices = self.shell.devices
        if controller is None or devices is None or self.shell.ctx is None:
            QTimer.singleShot(0, lambda: self.finish(AppCode.SMOKE_FAILED, "no desk controller"))
            return
        # the window is up and the desk ready: a start-up benchmark times this line
        print("smoke: window shown", flush=True)
        controller.verdict_ready.connect(self._verdict)
        controller.admission_recorded.connect(self._recorded)
        controller.card_printed.connect(self._printed)
        controller.counters_changed.connect(self._counters)
        controller.card_print_failed.connect(
            lambda n, code: self.finish(AppCode.SMOKE_FAILED, f"card {n}: {code}")
        )
        controller.scan_rejected.connect(lambda code, _m: self.finish(AppCode.SMOKE_FAILED, code))
        controller.operation_failed.connect(
            lambda code, _m: self.finish(AppCode.SMOKE_FAILED, code)
        )
        QTimer.singleShot(int(self.timeout_s * 1000), lambda: self.finish(AppCode.SMOKE_TIMEOUT))
        # a GUI thread that never returns to its loop would not see the timer
        guard = threading.Timer(self.timeout_s + 30, hard_exit)
        guard.daemon = True
        guard.start()
        folder = self._pdf_folder()
        self._pdfs_before = {p.name for p in folder.glob("*.pdf")} if folder.is_dir() else set()
        from ui.desk.demo_scenario import smoke_case

        case = smoke_case(self.shell.ctx.tools.today(), devices.salt)
        QTimer.singleShot(300, lambda: devices.reader.present(case.lines))

    def _verdict(self, verdict: Any) -> None:
        outcome = str(verdict.evaluation.verdict.outcome)
        if outcome != "ADMIT":
            codes = ",".join(str(c) for c in verdict.evaluation.verdict.codes)
            self.finish(AppCode.SMOKE_FAILED, f"verdict {outcome} {codes}")
            return
        window = self.shell.window
        if window is None:
            self.finish(AppCode.SMOKE_FAILED, "no window")
            return
        self._screenshot("smoke-verdict")
        from PySide6.QtTest import QTest

        window.activateWindow()
        QTest.keyClick(window, Qt.Key.Key_Return)  # the clerk's Enter records it

    def _recorded(self, result: Any) -> None:
        self.recorded = result

    def _printed(self, number: int) -> None:
        if self.recorded is None or getattr(self.recorded.card, "number", None) != number:
            self.finish(AppCode.SMOKE_FAILED, f"card {number} printed, not recorded")
            return
        folder = self._pdf_folder()
        new = {p.name for p in folder.glob("*.pdf")} - self._pdfs_before
        if not new:
            self.finish(AppCode.SMOKE_FAILED, "no card PDF written")
            return
        self._printed_number = number
        self._folder = folder
        self._admitted()

    def _counters(self, counters: Any) -> None:
        self._counted = self._counted or getattr(counters, "admitted_today", 0) >= 1
        self._admitted()

    def _admitted(self) -> None:
        """Done once the card is printed and the counters show the visit, so that the
        last screenshot is the window as the clerk sees it a moment later."""
        if self._printed_number is None or not self._counted:
            return
        self._screenshot("smoke-admitted")
        print(
            f"smoke: admitted, card {self._printed_number} printed to {self._folder}",
            file=sys.stderr,
        )
        self.finish(None)

    def _screenshot(self, name: str) -> None:
        # from a checkout only: an installed desk's folder is the system's (read-only to
        # the counter's user, and removed whole by the package manager)
        if self.shell.window is None or getattr(sys, "frozen", False):
            return
        try:
            from ui.desk.screens import save_screenshot

            save_screenshot(self.shell.window, name)
        except (OSError, ValueError) as exc:
            log.warning("screenshot not saved: %s", exc)

    def finish(self, code: AppCode | None, detail: str = "") -> None:
        if self._done:
            return
        self._done = True
        if code is None:
            self.exit_code = 0
        else:
            self.exit_code = 1
            print(
                f"{code}: {text(code, 'en')}" + (f" ({detail})" if detail else ""), file=sys.stderr
            )
        QApplication.quit()


def hard_exit() -> None:
    print(f"{AppCode.SMOKE_TIMEOUT}: {text(AppCode.SMOKE_TIMEOUT, 'en')}", file=sys.stderr)
    os._exit(1)

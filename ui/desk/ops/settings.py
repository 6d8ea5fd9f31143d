"""The desk's settings: the casino's data, card types and prices (art. 23.2-3), hours
(arts. 21.4, 27), devices, the RIAJ register (art. 20.2) and the printers (art. 22).
The file they are saved to, the printers' preflight, and where the keys saved are
announced (the desk's one broadcast: the running desk applies them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from admission.devices import DeviceStatus
from admission.settings import Settings
from ui.context import AppContext

__all__ = ["PrinterCheck", "SettingsOps", "of"]

# backend, target (the card queue, or the PDF folder) -> the printer's preflight answer
PrinterCheck = Callable[[str, str], DeviceStatus]


def _unheard(_keys: list[str]) -> None:
    """A screen with no desk running (the first-run wizard, a test): nobody to tell."""


@dataclass(frozen=True, slots=True)
class SettingsOps:
    settings: Settings  # validated and saved whole (``dialogs.common.apply_settings``)
    path: Path
    preflight: PrinterCheck | None = None
    announce: Callable[[list[str]], None] = _unheard  # the keys saved (never a value)


def of(ctx: AppContext, path: Path, announce: Callable[[list[str]], None]) -> SettingsOps:
    return SettingsOps(ctx.settings, path, ctx.devices.printer_check, announce)

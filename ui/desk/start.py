"""How the desk window starts: what the composition root gives it (:class:`AppStart`),
the path it takes (:func:`start_path`: the demo, the first-run wizard or the sign-in),
why it did not open (:class:`AppCode`) and whether that is the desk being unavailable
(:func:`is_unavailable`) or a refusal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum, unique
from typing import TYPE_CHECKING, Protocol

from admission.catalogue import text
from admission.codes import Code

if TYPE_CHECKING:
    from admission.accounts import AccountService
    from ui.context import AppContext, Tools
    from ui.desk.demo_scenario import DemoDevices


@unique
class AppCode(Code):
    """Why the window did not open, or how the smoke run ended."""

    NO_DISPLAY = "NO_DISPLAY"  # no graphical session to show the window on
    WINDOW_PART_MISSING = "WINDOW_PART_MISSING"  # a module of the window is not installed
    START_CANCELLED = "START_CANCELLED"  # the sign-in or the first-run wizard was closed
    SMOKE_FAILED = "SMOKE_FAILED"  # the smoke admission did not complete
    SMOKE_TIMEOUT = "SMOKE_TIMEOUT"  # the smoke admission took longer than its limit


@dataclass(frozen=True)
class AppStart:
    """What the composition root gives the window."""

    build_tools: Callable[[], Tools]
    build_context: Callable[[Tools], AppContext]
    demo: bool = False
    smoke: bool = False
    demo_devices: Callable[[Tools], DemoDevices] | None = None
    settings_file: str = "settings.json"  # in the data folder (the wizard writes it)
    # the file's passphrase when there is no OS keyring (db.keys.WindowPassphrase, the
    # same object build_tools was given): the wizard sets it, the start asks for it
    passphrase: PassphraseSource | None = None


class PassphraseSource(Protocol):
    """Where the window puts the visitor file's passphrase (memory only)."""

    def needed(self) -> bool: ...

    def give(self, passphrase: str) -> None: ...

    def forget(self) -> None: ...


@unique
class StartPath(Enum):
    DEMO = "demo"
    WIZARD = "wizard"
    SIGN_IN = "sign_in"


def start_path(demo: bool, accounts: AccountService | None) -> StartPath:
    """Demo: signed in by itself; a real file without accounts: the first-run wizard."""
    if demo:
        return StartPath.DEMO
    if accounts is None or not accounts.has_accounts():
        return StartPath.WIZARD
    return StartPath.SIGN_IN


def no_display_line(
    env: Mapping[str, str] | None = None, platform: str | None = None
) -> str | None:
    """One line saying there is no display and the ways out, or None when the window
    can open (Windows and macOS always have one; elsewhere DISPLAY, WAYLAND_DISPLAY or
    a Qt platform chosen by hand, e.g. ``offscreen``)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if platform.startswith(("win", "darwin")):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"):
        return None
    code = AppCode.NO_DISPLAY
    return (
        f"{code}: {text(code, 'es')} / {text(code, 'en')} "
        "- QT_QPA_PLATFORM=offscreen python main.py --demo --smoke"
    )


def is_unavailable(code: str) -> bool:
    from admission.devices import DeviceErrorCode
    from admission.errors import StoreErrorCode
    from ui.desk.desk_window import SERVER_SILENT

    return (
        isinstance(code, StoreErrorCode | DeviceErrorCode)
        or str(code) in SERVER_SILENT  # the casino's server: the visitor file is there
        or code in (AppCode.NO_DISPLAY, AppCode.WINDOW_PART_MISSING)
    )

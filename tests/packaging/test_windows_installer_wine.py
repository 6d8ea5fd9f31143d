"""The Windows installer RUN, under Wine: install, upgrade, a refused downgrade, uninstall.

Wine is not Windows (no UAC, its own shell folders and registry), but it runs NSIS's
installer code for real: the registry writes, the shortcuts, the files, the exit codes.
Debian's ``wine64`` runs 64-bit programs only, and the shipped installer is a 32-bit
(x86) program, so this test compiles the same script for ``amd64-unicode``
(``makensis -XTarget``); the script's logic is the same for both.

The scenario, in one fresh Wine prefix: version 1.0.0 installed silently with the start
at sign-in; a visitor file in the counter user's data folder; 2.0.0 refused with exit
code 5 (DESK_RUNNING) while the desk is open, then installed over it once it is closed
(the old ``_internal`` is gone, the start at sign-in kept); 1.0.0 again is refused with
exit code 3 and changes nothing; the uninstaller removes the program, the shortcuts and
the registry key, and the visitor file is still there.

Slow (15-20 s, most of it starting and stopping Wine): skipped where wine64 or makensis is missing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.packaging.test_windows_installer import MAKENSIS, SCRIPT, fake_bundle

WINE = shutil.which("wine64") or (
    "/usr/lib/wine/wine64" if os.path.exists("/usr/lib/wine/wine64") else None
)
WINESERVER = shutil.which("wineserver") or (
    "/usr/lib/wine/wineserver64" if os.path.exists("/usr/lib/wine/wineserver64") else None
)
KEY = r"HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\AdmissionDesk"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(MAKENSIS is None, reason="makensis (Debian package nsis) is not installed"),
    pytest.mark.skipif(
        WINE is None or WINESERVER is None, reason="wine64 (Debian package wine64) is not installed"
    ),
]


class Wine:
    """One Wine prefix. Output goes to files, not pipes: Wine's helper processes inherit
    a pipe and hold it open for seconds after the program has ended."""

    def __init__(self, prefix: Path) -> None:
        self.prefix = prefix
        self.env = dict(
            os.environ,
            WINEPREFIX=str(prefix),
            WINEDEBUG="-all",
            WINEDLLOVERRIDES="mscoree,mshtml=",  # no Mono or Gecko installer dialogs
            DISPLAY="",
        )
        self.drive = prefix / "drive_c"
        self.output = prefix.parent / "wine-output.txt"

    def _call(self, args: list[str]) -> int:
        with self.output.open("wb") as out:
            done = subprocess.run(
                args, env=self.env, stdout=out, stderr=out, timeout=120, check=False
            )
        return done.returncode

    def start(self) -> None:
        """A new prefix, and a wine server that stays until :meth:`stop`."""
        assert WINE is not None and WINESERVER is not None
        assert self._call([WINE, "wineboot", "-i"]) == 0
        self._call([WINESERVER, "-p"])

    def stop(self) -> None:
        assert WINESERVER is not None
        self._call([WINESERVER, "-k"])

    def run(self, *args: str) -> int:
        assert WINE is not None
        return self._call([WINE, *args])

    @contextlib.contextmanager
    def running(self, program: str) -> Iterator[None]:
        """``program``, a console program (a copy of cmd.exe), running until the block
        ends: it has answered a first command when the block starts."""
        assert WINE is not None
        log = self.prefix.parent / "running.txt"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [WINE, program], env=self.env, stdin=subprocess.PIPE, stdout=out, stderr=out
            )
        assert process.stdin is not None
        try:
            process.stdin.write(b"echo desk-is-open-on-%OS%\r\n")
            process.stdin.flush()
            deadline = time.monotonic() + 60
            while b"desk-is-open-on-Windows_NT" not in log.read_bytes():  # run, not echoed
                assert time.monotonic() < deadline, "the stand-in desk did not start"
                time.sleep(0.1)
            yield
        finally:
            process.stdin.write(b"exit\r\n")
            process.stdin.close()
            process.wait(timeout=60)

    def registry(self) -> dict[str, str]:
        assert WINE is not None
        self._call([WINE, "reg", "query", KEY])
        values: dict[str, str] = {}
        for line in self.output.read_text("utf-8", "replace").splitlines():
            parts = line.strip().split(None, 2)
            if len(parts) == 3 and parts[1].startswith("REG_"):
                values[parts[0]] = parts[2]
        return values


def build(folder: Path, version: str) -> Path:
    """A 64-bit setup of ``version`` around a fake bundle whose _internal names it."""
    assert MAKENSIS is not None
    bundle, icon = fake_bundle(folder / version)
    (bundle / "_internal" / f"only-in-{version}.txt").write_text(version)
    setup = folder / f"AdmissionDesk-{version}-setup.exe"
    done = subprocess.run(
        [
            MAKENSIS,
            "-V2",
            "-XTarget amd64-unicode",
            f"-DVERSION={version}",
            f"-DPRODUCT_VERSION={version}.0",
            f"-DBUNDLE={bundle}",
            f"-DICON={icon}",
            f"-DOUTFILE={setup}",
            str(SCRIPT),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return setup


def test_install_upgrade_refused_downgrade_and_uninstall_keep_the_visitor_file(
    tmp_path: Path,
) -> None:
    old = build(tmp_path, "1.0.0")
    new = build(tmp_path, "2.0.0")
    wine = Wine(tmp_path / "prefix")
    try:
        wine.start()
        scenario(wine, old, new)
    finally:
        wine.stop()


def scenario(wine: Wine, old: Path, new: Path) -> None:
    program = wine.drive / "Program Files" / "Admission Desk"
    menu = wine.drive / "ProgramData" / "Microsoft" / "Windows" / "Start Menu" / "Programs"
    startup = menu / "StartUp" / "Admission Desk.lnk"
    users = sorted(p for p in (wine.drive / "users").iterdir() if p.name != "Public")
    data = users[0] / "AppData" / "Local" / "admission-desk"  # %LOCALAPPDATA%\admission-desk

    # a first install, with the start at sign-in
    assert wine.run(str(old), "/S", "/AUTOSTART=1") == 0
    assert (program / "admission-desk.exe").read_text().startswith("MZ")
    assert (program / "_internal" / "only-in-1.0.0.txt").exists()
    assert (program / "Uninstall.exe").exists()
    assert (menu / "Admission Desk.lnk").exists()
    assert startup.exists()
    values = wine.registry()
    assert values["DisplayVersion"] == "1.0.0"
    assert values["DisplayName"] == "Admission Desk"
    assert values["InstallLocation"] == r"C:\Program Files\Admission Desk"
    assert values["QuietUninstallString"] == r'"C:\Program Files\Admission Desk\Uninstall.exe" /S'
    assert values["NoModify"] == values["NoRepair"] == "0x1"
    assert int(values["EstimatedSize"], 16) > 0

    # the counter user's data: never the installer's business
    data.mkdir(parents=True)
    (data / "visitors.db").write_bytes(b"invented visitor file")

    # the desk is open (Wine's cmd.exe stands in for it): the upgrade stops with
    # DESK_RUNNING, exit code 5, and replaces nothing
    shutil.copy(wine.drive / "windows" / "system32" / "cmd.exe", program / "admission-desk.exe")
    with wine.running(r"C:\Program Files\Admission Desk\admission-desk.exe"):
        assert wine.run(str(new), "/S") == 5
    assert (program / "_internal" / "only-in-1.0.0.txt").exists()
    assert wine.registry()["DisplayVersion"] == "1.0.0"

    # an upgrade replaces the program files, old modules included, and keeps the rest
    assert wine.run(str(new), "/S") == 0
    assert (program / "_internal" / "only-in-2.0.0.txt").exists()
    assert not (program / "_internal" / "only-in-1.0.0.txt").exists()
    assert startup.exists()
    assert wine.registry()["DisplayVersion"] == "2.0.0"

    # a downgrade is refused with exit code 3, before anything is written
    assert wine.run(str(old), "/S") == 3
    assert wine.registry()["DisplayVersion"] == "2.0.0"
    assert (program / "_internal" / "only-in-2.0.0.txt").exists()
    assert not (program / "_internal" / "only-in-1.0.0.txt").exists()

    # a reinstall of the same version may switch the start at sign-in off
    assert wine.run(str(new), "/S", "/AUTOSTART=0") == 0
    assert not startup.exists()
    assert (menu / "Admission Desk.lnk").exists()

    # the uninstaller removes what was installed, and never the visitor file
    assert wine.run(str(program / "Uninstall.exe"), "/S") == 0
    # it copies itself to %TEMP% and goes on there; deleting the key is its last step
    deadline = time.monotonic() + 60
    while wine.registry() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert wine.registry() == {}
    assert not program.exists()
    assert not (menu / "Admission Desk.lnk").exists()
    assert not startup.exists()
    assert (data / "visitors.db").read_bytes() == b"invented visitor file"

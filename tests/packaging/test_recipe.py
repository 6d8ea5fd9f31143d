"""The installable desk's recipe without building it (the build itself is
test_deb_install.py, on request): the hashed lock pins what requirements.txt pins and
installs with --require-hashes on Windows; the .deb has its command, desktop entry, icon
and dependencies, is byte-for-byte reproducible, and its preinst refuses a downgrade;
``--version --verbose`` says what a desk was built from."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.test_windows_wheels import _not_for_windows, _resolve_for_windows

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import package_desk  # noqa: E402

import ui.build_info  # noqa: E402

LOCK_TEXT = package_desk.LOCK.read_text("utf-8")


def test_the_lock_pins_every_requirement_at_its_version_with_hashes() -> None:
    locked = package_desk.locked_pins(LOCK_TEXT)
    for source in (ROOT / "requirements.txt", package_desk.BUILD_REQUIREMENTS):
        for name, version in package_desk.locked_pins(source.read_text("utf-8")).items():
            assert locked.get(name) == version, f"{name}: {source.name} pins {version}"
    logical = LOCK_TEXT.replace("\\\n", " ").splitlines()
    entries = [line for line in logical if "==" in line and not line.startswith("#")]
    assert len(entries) == len(locked)
    assert all("--hash=sha256:" in entry for entry in entries)
    for windows_only in package_desk.locked_pins(
        package_desk.WINDOWS_REQUIREMENTS.read_text("utf-8")
    ):
        line = next(x for x in LOCK_TEXT.splitlines() if x.startswith(f"{windows_only}=="))
        assert 'sys_platform == "win32"' in line


def test_the_lock_installs_with_require_hashes_on_windows(tmp_path: Path) -> None:
    """Every Windows file's hash is in the lock (pip refuses a single missing one)."""
    report = _resolve_for_windows(
        tmp_path, "lock", ["--require-hashes", "--no-deps", "-r", str(package_desk.LOCK)]
    )
    assert _not_for_windows(report["install"]) == []
    names = {package_desk.normalise(i["metadata"]["name"]) for i in report["install"]}
    assert {"pyside6-essentials", "sqlcipher3", "pyscard", "pyinstaller"} <= names


def test_the_recipe_names_what_exists_and_is_the_same_for_both_platforms(
    tmp_path: Path,
) -> None:
    args = package_desk.recipe(ROOT, tmp_path, tmp_path / "dist", None)
    data = [args[i + 1] for i, a in enumerate(args) if a == "--add-data"]
    for folder in package_desk.DATA_FOLDERS:
        assert (ROOT / folder).is_dir()
        assert f"{ROOT / folder}:{folder}" in data  # ':' is PyInstaller 6's separator everywhere
    assert args[-1] == str(ROOT / "main.py") and "--onedir" in args
    assert (ROOT / "resources" / "icons" / "admission-desk.svg").is_file()


def _fake_bundle(where: Path) -> Path:
    bundle = where / "admission-desk"
    (bundle / "_internal").mkdir(parents=True)
    program = bundle / "admission-desk"
    program.write_text("#!/bin/sh\necho 'admission-desk 0.0.0'\n")
    program.chmod(0o755)
    (bundle / "_internal" / "base_library.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (bundle / "admission-desk.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return bundle


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb is not installed")
def test_the_deb_has_its_command_entry_icon_and_dependencies_and_is_reproducible(
    tmp_path: Path,
) -> None:
    bundle = _fake_bundle(tmp_path)
    first = package_desk.make_deb(bundle, "1.2.3", tmp_path / "a", epoch=1_700_000_000)
    again = package_desk.make_deb(bundle, "1.2.3", tmp_path / "b", epoch=1_700_000_000)
    assert first.name == "admission-desk_1.2.3_amd64.deb"
    assert first.read_bytes() == again.read_bytes()  # same input, same bytes
    control = subprocess.run(
        ["dpkg-deb", "-f", str(first)], capture_output=True, text=True, check=True
    ).stdout
    assert "Package: admission-desk" in control and "Version: 1.2.3" in control
    for needed in ("libcups2", "cups-client", "fonts-dejavu-core", "libzbar0", "libxcb-cursor0"):
        assert needed in control
    listing = subprocess.run(
        ["dpkg-deb", "-c", str(first)], capture_output=True, text=True, check=True
    ).stdout
    assert "./usr/bin/admission-desk -> /opt/admission-desk/admission-desk" in listing
    assert "rwxr-xr-x root/root" in next(
        x for x in listing.splitlines() if x.endswith("./opt/admission-desk/admission-desk")
    )
    assert "./usr/share/applications/admission-desk.desktop" in listing
    assert "./usr/share/icons/hicolor/256x256/apps/admission-desk.png" in listing
    assert all("2023-11-14" in line for line in listing.splitlines())  # dated at the epoch


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (["install"], False),
        (["upgrade", "1.2.2"], False),
        (["upgrade", "1.2.3"], False),
        (["upgrade", "1.3.0"], True),
        (["install", "2.0"], True),  # a package removed but its configuration kept
    ],
)
@pytest.mark.skipif(shutil.which("dpkg") is None, reason="dpkg is not installed")
def test_the_preinst_refuses_a_downgrade_before_dpkg_unpacks_anything(
    tmp_path: Path, args: list[str], refused: bool
) -> None:
    script = tmp_path / "preinst"
    script.write_text(package_desk.PREINST.format(version="1.2.3"))
    done = subprocess.run(["sh", str(script), *args], capture_output=True, text=True, check=False)
    assert (done.returncode != 0) is refused
    assert ("DOWNGRADE_REFUSED" in done.stderr) is refused


def test_the_desktop_entry_is_valid_where_the_validator_exists(tmp_path: Path) -> None:
    entry = tmp_path / "admission-desk.desktop"
    entry.write_text(package_desk.DESKTOP_ENTRY)
    lines = dict(
        line.split("=", 1) for line in package_desk.DESKTOP_ENTRY.splitlines() if "=" in line
    )
    assert lines["Exec"] == "admission-desk" and lines["Icon"] == "admission-desk"
    assert lines["Name[es]"] and lines["Type"] == "Application"
    validator = shutil.which("desktop-file-validate")
    if validator:
        done = subprocess.run([validator, str(entry)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_version_says_what_the_checkout_is_built_from() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    main = [sys.executable, str(ROOT / "main.py")]
    short = subprocess.run([*main, "--version"], capture_output=True, text=True, env=env)
    assert short.returncode == 0
    assert short.stdout.strip() == f"admission-desk {package_desk.project_version()}"
    verbose = subprocess.run(
        [*main, "--version", "--verbose"], capture_output=True, text=True, env=env
    )
    info = json.loads(verbose.stdout)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    assert info["source"] == "checkout" and info["commit"] == head
    assert "sqlcipher3==0.6.4" in info["requirements"]


def test_an_installed_desk_reports_its_build_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = {"name": "admission-desk", "version": "9.9.9", "commit": "abc", "python": "3.11.9"}
    (tmp_path / "build_info.json").write_text(json.dumps(record))
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    info = ui.build_info.build_info()
    assert info["version"] == "9.9.9" and info["commit"] == "abc"
    assert info["source"] == "installed"
    assert ui.build_info.version_text() == "admission-desk 9.9.9"
    (tmp_path / "build_info.json").unlink()
    assert ui.build_info.build_info()["error"] == "BUILD_INFO_MISSING"

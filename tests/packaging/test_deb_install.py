"""The .deb on a Debian 12 that has never seen the source: installed with apt (which
brings the Debian packages it declares), the ``admission-desk`` command runs the demo's
smoke run offscreen; an upgrade keeps the data folder byte for byte and migrates the
visitor file on its first start; a downgrade is refused (by the package before anything
is unpacked, and by the older program before it writes to the migrated file); removal
and purge leave the visitor file where it is.

Two real builds of different versions: N is this source without its newest schema
migration (the version before), N+1 this source. It builds two installers (PyInstaller,
about two minutes each here) and a minbase Debian root, so it runs only when asked:
``ADMISSION_PACKAGE_TESTS=1`` (and as root). Its numbers are in the README.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.throwaway_root import Root, throwaway_root, usable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import package_desk  # noqa: E402

OLD, NEW = "0.9.0", "0.9.1"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("ADMISSION_PACKAGE_TESTS") != "1",
        reason="builds two installers and a Debian root: set ADMISSION_PACKAGE_TESTS=1",
    ),
    pytest.mark.skipif(bool(usable()), reason=usable() or "-"),
    pytest.mark.timeout(3600),
]


def _source_copy(target: Path) -> Path:
    """The committed source (HEAD), as a clean checkout has it."""
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


@pytest.fixture(scope="module")
def debs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("debs")
    old_source = _source_copy(work / "source-old")
    newest = sorted((old_source / "db" / "migrations").glob("*.sql"))[-1]
    newest.unlink()  # version N: the schema before this source's newest migration
    new_source = _source_copy(work / "source-new")
    made = []
    for version, source in ((OLD, old_source), (NEW, new_source)):
        bundle, info = package_desk.freeze(source, version=version, work=work / f"w-{version}")
        epoch = int(str(info["source_date_epoch"]))
        made.append(package_desk.make_deb(bundle, version, work / "dist", epoch=epoch))
    return made[0], made[1]


def snapshot(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def installed_version(root: Root) -> str:
    done = root.run("dpkg-query -W -f='${Version}' admission-desk", check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


# the counter's user, not root: the default data folder (platformdirs) in its home
USER = "mostrador"


def as_user(command: str) -> str:
    return f"runuser -l {USER} -c 'QT_QPA_PLATFORM=offscreen {command}'"


SMOKE = as_user("admission-desk --demo --smoke")


def test_install_upgrade_downgrade_and_removal_on_a_fresh_debian(
    debs: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = debs
    with throwaway_root(tmp_path) as root:
        for deb in (old, new):
            shutil.copy(deb, root.path / "tmp" / deb.name)
        assert root.run("command -v python3", check=False).returncode != 0  # no Python here
        root.run("apt-get update -qq")
        root.run(f"apt-get install -y -qq --no-install-recommends /tmp/{old.name}")
        assert installed_version(root) == OLD
        assert root.run("admission-desk --version").stdout.strip() == f"admission-desk {OLD}"
        info = json.loads(root.run("admission-desk --version --verbose").stdout)
        assert info["source"] == "installed" and info["version"] == OLD
        assert any(r.startswith("pyside6-essentials==") for r in info["requirements"])
        assert (root.path / "usr/share/applications/admission-desk.desktop").is_file()
        assert (root.path / "usr/share/icons/hicolor/256x256/apps/admission-desk.png").is_file()

        root.run(f"useradd --create-home {USER}")
        root.run(SMOKE)  # version N makes the demo's visitor file and admits one visitor
        data = root.path / "home" / USER / ".local" / "share" / "admission-desk" / "demo"
        assert (data / "visitors.db").is_file()
        with_old = snapshot(data)

        # N+1 over N: the package's files change, the data folder does not
        root.run(f"apt-get install -y -qq --no-install-recommends /tmp/{new.name}")
        assert installed_version(root) == NEW
        assert snapshot(data) == with_old
        root.run(SMOKE)  # its first start migrates the file (SCHEMA_MIGRATED) and admits
        with_new = snapshot(data)
        assert with_new["visitors.db"] != with_old["visitors.db"]

        # N over N+1: refused by the package's preinst before anything is unpacked
        refused = root.run(f"dpkg -i /tmp/{old.name}", check=False)
        assert refused.returncode != 0
        assert "DOWNGRADE_REFUSED" in refused.stderr + refused.stdout
        assert installed_version(root) == NEW
        assert root.run("admission-desk --version").stdout.strip() == f"admission-desk {NEW}"

        # ... and by program N itself (unpacked by hand), before it writes to the file
        root.run(f"dpkg-deb -x /tmp/{old.name} /tmp/old")
        older = root.run(
            as_user("/tmp/old/opt/admission-desk/admission-desk --demo --smoke"), check=False
        )
        assert older.returncode != 0
        assert "SCHEMA_NEWER" in older.stdout + older.stderr
        assert snapshot(data) == with_new

        # removal and purge take the program, never the visitor file
        root.run("apt-get remove -y -qq admission-desk && dpkg --purge admission-desk")
        assert installed_version(root) == ""
        assert not (root.path / "opt" / "admission-desk").exists()
        assert not (root.path / "usr" / "bin" / "admission-desk").exists()
        assert snapshot(data) == with_new

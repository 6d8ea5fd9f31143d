"""The desk as a program a casino installs: one frozen-application recipe, two installers.

    python3 tools/bootstrap.py package [--version V] [--source DIR] [--out DIR]
    python3 tools/bootstrap.py package lock      # refresh packaging/requirements-lock.txt

The recipe is PyInstaller ``--onedir`` (why PyInstaller, measured against Nuitka and
Briefcase: the README's "Installing on the counter PC"). It is the same on Linux and on
Windows: the same Python modules, the same data folders, the same arguments. Only the
installer around the bundle differs:

- Linux: ``dist/admission-desk_<version>_amd64.deb`` (the bundle in /opt/admission-desk,
  the command ``admission-desk`` on the PATH, a desktop entry with its icon, the Debian
  packages it needs, a maintainer script that refuses a downgrade);
- Windows: ``dist/AdmissionDesk-<version>-setup.exe`` from ``packaging/windows/
  admission-desk.nsi`` with makensis (``packaging/windows/build.ps1`` runs this on a
  Windows machine).

Integrity (what is installed is what was reviewed): every dependency comes from
``packaging/requirements-lock.txt``, pinned with its hashes for Linux and Windows and
installed with ``pip --require-hashes`` into a build environment of its own; the bundle
carries ``build_info.json`` (version, source commit, Python, the lock's digest, every
pinned distribution), which ``admission-desk --version --verbose`` prints; the build is
made with ``SOURCE_DATE_EPOCH`` set to the commit's time and a fixed hash seed, and the
.deb's members are sorted and dated at that epoch, so two builds of one commit can be
compared file by file (:func:`compare_bundles`).

Standard library only: it runs under the system's python3 like tools/bootstrap.py.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
LOCK = PACKAGING / "requirements-lock.txt"
BUILD_REQUIREMENTS = PACKAGING / "requirements-build.txt"
WINDOWS_REQUIREMENTS = PACKAGING / "requirements-windows.txt"
BUILD_VENV = ROOT / ".venv-package"
NAME = "admission-desk"  # the command, the Debian package and the bundle's folder
WINDOWS_NAME = "AdmissionDesk"
INSTALL_DIR = f"/opt/{NAME}"
BUILD_INFO = "build_info.json"

# The source the bundle carries besides the Python modules (found by import analysis):
# the screens' resources (icons, fonts, the ONNX model, the regulation, translations,
# the demo's and the floor page's files), the schema migrations and the domain's data.
DATA_FOLDERS = ("resources", "db/migrations", "db/pg/migrations", "admission/data")
# Modules imported by name at run time (commands, devices, dialogs chosen by settings):
# import analysis alone would miss some of them.
SUBMODULES = ("admission", "db", "hardware", "ui", "reportlab.graphics.barcode")
# What the bundle does not need: test and development tools that some wheels pull in.
EXCLUDED = ("tkinter", "pytest", "mypy", "IPython", "matplotlib", "sympy", "torch")

# The Debian packages the frozen desk uses from the system: Qt's xcb platform and its
# GL, fonts and D-Bus (the keyring), CUPS's client for the print queue (lp), zbar for
# pyzbar (loaded by name) and pcsc-lite for the chip reader.
DEB_DEPENDS = (
    "libc6 (>= 2.36)",
    "libgl1",
    "libegl1",
    "libglib2.0-0",
    "libxkbcommon0",
    "libxkbcommon-x11-0",
    "libfontconfig1",
    "libdbus-1-3",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-keysyms1",
    "libxcb-shape0",
    "libxcb-xinerama0",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-image0",
    "libcups2",
    "cups-client",
    "libzbar0",
    "libpcsclite1",
    "fonts-dejavu-core",
)
DEB_RECOMMENDS = ("cups", "pcscd")

_VERSION = re.compile(r"^[0-9]+(\.[0-9]+){1,3}([~+][0-9A-Za-z.]+)?$")
_REQUIREMENT = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)")


class PackageError(Exception):
    """A build step failed; its message says which and why, in one line."""


# -- the lock: every dependency pinned with its hashes ---------------------------------
@dataclass(frozen=True, slots=True)
class Locked:
    name: str
    version: str
    hashes: tuple[str, ...]
    platforms: tuple[str, ...]  # "linux", "win32"

    def line(self) -> str:
        marker = ""
        if self.platforms == ("linux",):
            marker = ' ; sys_platform == "linux"'
        elif self.platforms == ("win32",):
            marker = ' ; sys_platform == "win32"'
        hashes = "".join(f" \\\n    --hash=sha256:{h}" for h in self.hashes)
        return f"{self.name}=={self.version}{marker}{hashes}"


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _resolve(requirement_files: Sequence[Path], windows: bool) -> dict[str, tuple[str, str]]:
    """name -> (version, sha256 of the file pip chose), from pip's installation report."""
    with tempfile.TemporaryDirectory(prefix="desk-lock-") as tmp:
        report = Path(tmp) / "report.json"
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "-q",
            "--dry-run",
            "--ignore-installed",
            "--report",
            str(report),
        ]
        if windows:
            cmd += ["--only-binary=:all:", "--platform", "win_amd64", "--python-version", "3.11"]
            cmd += ["--target", str(Path(tmp) / "target")]
        for path in requirement_files:
            cmd += ["-r", str(path)]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise PackageError(f"pip could not resolve the requirements: {done.stderr[-500:]}")
        data = json.loads(report.read_text("utf-8"))
    found: dict[str, tuple[str, str]] = {}
    for item in data["install"]:
        meta = item["metadata"]
        digest = item["download_info"].get("archive_info", {}).get("hashes", {}).get("sha256")
        if not digest:
            raise PackageError(f"pip gave no sha256 for {meta['name']}")
        found[normalise(meta["name"])] = (meta["version"], digest)
    return found


def lock(
    requirement_files: Sequence[Path] = (ROOT / "requirements.txt", BUILD_REQUIREMENTS),
) -> str:
    """The lock file's text: what pip resolves on this Linux machine and for win_amd64
    (Python 3.11), each distribution with the hash of the file each platform installs."""
    linux = _resolve(requirement_files, windows=False)
    # pip evaluates environment markers for this machine even with --platform: what only
    # Windows needs is named in a file of its own
    windows = _resolve([*requirement_files, WINDOWS_REQUIREMENTS], windows=True)
    locked: list[Locked] = []
    for name in sorted(linux.keys() | windows.keys()):
        versions = {found[name][0] for found in (linux, windows) if name in found}
        if len(versions) != 1:
            raise PackageError(f"{name} resolves to {sorted(versions)} on Linux and Windows")
        hashes = sorted({found[name][1] for found in (linux, windows) if name in found})
        platforms = tuple(p for p, found in (("linux", linux), ("win32", windows)) if name in found)
        locked.append(Locked(name, versions.pop(), tuple(hashes), platforms))
    header = (
        "# Generated by `python3 tools/bootstrap.py package lock` from requirements.txt and\n"
        "# packaging/requirements-build.txt (and requirements-windows.txt for Windows):\n"
        "# every distribution the frozen desk is built from, for Linux x86_64 and Windows\n"
        "# amd64 (Python 3.11), with the hash of each file.\n"
        "# Installed with `pip install --require-hashes --no-deps`. Do not edit by hand.\n"
    )
    return header + "".join(item.line() + "\n" for item in locked)


def locked_pins(text: str) -> dict[str, str]:
    """name -> version of every line of a lock (or requirements) file."""
    pins: dict[str, str] = {}
    for raw in text.splitlines():
        match = _REQUIREMENT.match(raw.strip())
        if match:
            pins[normalise(match[1])] = match[2]
    return pins


# -- the build environment ---------------------------------------------------------------
def _venv_python(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def build_venv(venv: Path = BUILD_VENV) -> Path:
    """The build's own environment, installed from the lock with --require-hashes;
    reinstalled only when the lock changes."""
    wanted = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    stamp = venv / ".lock.sha256"
    python = _venv_python(venv)
    if python.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return python
    if not python.exists():
        _run([sys.executable, "-m", "venv", str(venv)], "creating the build environment")
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    _run([*pip, "--require-hashes", "--no-deps", "-r", str(LOCK)], "installing the lock")
    stamp.write_text(wanted + "\n")
    return python


def _run(cmd: Sequence[str], what: str, **kwargs: object) -> None:
    done = subprocess.run(list(cmd), check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise PackageError(f"{what} failed (exit {done.returncode})")


# -- what the bundle records of its build ------------------------------------------------
def _git(source: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=source, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def source_date_epoch(source: Path) -> int:
    """The commit's time (or SOURCE_DATE_EPOCH when given): every date the build
    writes, so that two builds of one commit can be identical."""
    given = os.environ.get("SOURCE_DATE_EPOCH", "")
    if given.isdigit():
        return int(given)
    stamp = _git(source, "log", "-1", "--format=%ct")
    return int(stamp) if stamp.isdigit() else 0


def project_version(source: Path = ROOT) -> str:
    text = (source / "pyproject.toml").read_text("utf-8")
    match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if match is None:
        raise PackageError("pyproject.toml has no version")
    return match[1]


def build_info(source: Path, version: str, pyinstaller: str) -> dict[str, object]:
    lock_text = LOCK.read_text("utf-8")
    commit = _git(source, "rev-parse", "HEAD")
    dirty = bool(_git(source, "status", "--porcelain", "--untracked-files=no"))
    return {
        "name": NAME,
        "version": version,
        "commit": commit + ("-dirty" if commit and dirty else ""),
        "source_date_epoch": source_date_epoch(source),
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine().lower()}",
        "freezer": f"PyInstaller {pyinstaller}",
        "requirements_lock_sha256": hashlib.sha256(lock_text.encode("utf-8")).hexdigest(),
        "requirements": sorted(f"{n}=={v}" for n, v in locked_pins(lock_text).items()),
    }


# -- the recipe --------------------------------------------------------------------------
def recipe(source: Path, work: Path, dist: Path, icon: Path | None) -> list[str]:
    """PyInstaller's arguments: the same on Linux and Windows (``src:dest`` is accepted
    on both since PyInstaller 6)."""
    args = [
        "--noconfirm",
        "--clean",
        "--onedir",
        "--name",
        NAME,
        "--distpath",
        str(dist),
        "--workpath",
        str(work / "pyinstaller"),
        "--specpath",
        str(work),
        "--log-level",
        "WARN",
    ]
    for folder in DATA_FOLDERS:
        args += ["--add-data", f"{source / folder}:{folder}"]
    args += ["--add-data", f"{work / BUILD_INFO}:."]
    for module in SUBMODULES:
        args += ["--collect-submodules", module]
    for module in EXCLUDED:
        args += ["--exclude-module", module]
    if icon is not None:
        args += ["--icon", str(icon)]
    args.append(str(source / "main.py"))
    return args


def render_icons(python: Path, source: Path, work: Path) -> tuple[Path, Path]:
    """The application icon (resources/icons/admission-desk.svg) as a 256 px PNG for the
    desktop entry and as a Windows .ico, drawn by Qt's SVG renderer."""
    png = work / f"{NAME}.png"
    ico = work / f"{NAME}.ico"
    script = (
        "import sys\n"
        "from PySide6.QtGui import QGuiApplication, QImage, QPainter\n"
        "from PySide6.QtSvg import QSvgRenderer\n"
        "from PySide6.QtCore import Qt\n"
        "app = QGuiApplication(['icon'])\n"
        "image = QImage(256, 256, QImage.Format.Format_ARGB32)\n"
        "image.fill(Qt.GlobalColor.transparent)\n"
        "painter = QPainter(image)\n"
        "QSvgRenderer(sys.argv[1]).render(painter)\n"
        "painter.end()\n"
        "assert image.save(sys.argv[2], 'PNG')\n"
        "from PIL import Image\n"
        "Image.open(sys.argv[2]).save(sys.argv[3], sizes=[(s, s) for s in (16, 32, 48, 256)])\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    svg = source / "resources" / "icons" / f"{NAME}.svg"
    _run([str(python), "-c", script, str(svg), str(png), str(ico)], "drawing the icon", env=env)
    return png, ico


def freeze(
    source: Path = ROOT, *, version: str | None = None, work: Path | None = None
) -> tuple[Path, dict[str, object]]:
    """The onedir bundle of ``source`` (work/dist/admission-desk) and its build info."""
    version = version or project_version(source)
    if not _VERSION.match(version):
        raise PackageError(f"not a version: {version!r}")
    work = work or ROOT / "build" / "package"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    python = build_venv()
    _compile_translations(python, source)
    pyinstaller = subprocess.run(
        [str(python), "-c", "import PyInstaller; print(PyInstaller.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    info = build_info(source, version, pyinstaller)
    (work / BUILD_INFO).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", "utf-8")
    png, ico = render_icons(python, source, work)
    dist = work / "dist"
    env = dict(
        os.environ,
        SOURCE_DATE_EPOCH=str(info["source_date_epoch"]),
        PYTHONHASHSEED="0",
        QT_QPA_PLATFORM="offscreen",
    )
    args = recipe(source, work, dist, ico if os.name == "nt" else None)
    _run([str(python), "-m", "PyInstaller", *args], "PyInstaller", cwd=source, env=env)
    shutil.copy2(png, dist / NAME / f"{NAME}.png")
    return dist / NAME, info


def _compile_translations(python: Path, source: Path) -> None:
    """resources/i18n/*.ts -> .qm (the .qm files are build products, not kept in git)."""
    bindir = python.parent
    tool = bindir / ("pyside6-lrelease.exe" if os.name == "nt" else "pyside6-lrelease")
    for ts in sorted((source / "resources" / "i18n").glob("*.ts")):
        _run([str(tool), "-silent", str(ts), "-qm", str(ts.with_suffix(".qm"))], "lrelease")


# -- Debian ------------------------------------------------------------------------------
DESKTOP_ENTRY = """[Desktop Entry]
Type=Application
Version=1.5
Name=Admission Desk
Name[es]=Control de admisión
GenericName=Casino admission desk
GenericName[es]=Admisión del casino
Comment=Casino entrance: identity documents, the RIAJ and entry cards (Decreto 58/2006)
Comment[es]=Entrada del casino: documentos, RIAJ y tarjetas de entrada (Decreto 58/2006)
Exec=admission-desk
Icon=admission-desk
Terminal=false
Categories=Office;
StartupNotify=true
"""

# dpkg runs the new package's preinst as `preinst upgrade OLD-VERSION` before it unpacks
# anything (Debian Policy §6.6): a newer desk already installed stops the downgrade there,
# with nothing written. The visitor file never lives in the package's folders, so
# neither an upgrade nor a removal (nor a purge) touches it.
PREINST = """#!/bin/sh
set -e
NEW_VERSION="{version}"
if [ "$1" = "upgrade" ] || [ "$1" = "install" ]; then
    if [ -n "$2" ] && dpkg --compare-versions "$2" gt "$NEW_VERSION"; then
        echo "admission-desk: DOWNGRADE_REFUSED: $2 is installed, $NEW_VERSION is older." >&2
        echo "admission-desk: a newer desk may have changed the visitor file's schema;" >&2
        echo "admission-desk: remove it first only if you mean to (the file is kept)." >&2
        exit 1
    fi
fi
exit 0
"""


def deb_control(version: str, installed_kib: int) -> str:
    return (
        f"Package: {NAME}\n"
        f"Version: {version}\n"
        "Architecture: amd64\n"
        "Maintainer: Admission Desk <support@admission-desk.invalid>\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {', '.join(DEB_DEPENDS)}\n"
        f"Recommends: {', '.join(DEB_RECOMMENDS)}\n"
        "Section: misc\n"
        "Priority: optional\n"
        "Homepage: https://admission-desk.invalid/\n"
        "Description: casino admission desk (Comunidad de Madrid, Decreto 58/2006)\n"
        " Reads identity documents at the casino entrance, checks the Registro de\n"
        " Interdicciones de Acceso al Juego, the casino's bans and the age, prints the\n"
        " numbered entry card and keeps the encrypted visitor file (arts. 20-25).\n"
        " .\n"
        " The visitor file lives in the user's data folder, never in the package: an\n"
        " upgrade, a removal or a purge leaves it where it is.\n"
    )


def make_deb(bundle: Path, version: str, out: Path, *, epoch: int) -> Path:
    """``out/admission-desk_<version>_amd64.deb`` from the bundle: members sorted, owned
    by root and dated at ``epoch``."""
    with tempfile.TemporaryDirectory(prefix="desk-deb-") as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(bundle, root / INSTALL_DIR.lstrip("/"), symlinks=True)
        bin_dir = root / "usr" / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / NAME).symlink_to(f"{INSTALL_DIR}/{NAME}")
        apps = root / "usr" / "share" / "applications"
        apps.mkdir(parents=True)
        (apps / f"{NAME}.desktop").write_text(DESKTOP_ENTRY, "utf-8")
        icons = root / "usr" / "share" / "icons" / "hicolor" / "256x256" / "apps"
        icons.mkdir(parents=True)
        shutil.copy2(bundle / f"{NAME}.png", icons / f"{NAME}.png")
        doc = root / "usr" / "share" / "doc" / NAME
        doc.mkdir(parents=True)
        (doc / "README").write_text(
            "The admission desk. The visitor file is not part of this package: it stays in\n"
            "the data folder (~/.local/share/admission-desk) after an upgrade or a removal.\n"
            "To erase it on purpose, see the README's 'Installing on the counter PC'.\n",
            "utf-8",
        )
        installed = tree_size(root)
        control = root / "DEBIAN"
        control.mkdir()
        (control / "control").write_text(deb_control(version, installed // 1024 + 1), "utf-8")
        (control / "preinst").write_text(PREINST.format(version=version), "utf-8")
        _normalise_tree(root, epoch)
        out.mkdir(parents=True, exist_ok=True)
        target = out / f"{NAME}_{version}_amd64.deb"
        env = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch))
        _run(
            ["dpkg-deb", "--root-owner-group", "-Zxz", "-z6", "--build", str(root), str(target)],
            "dpkg-deb",
            env=env,
            stdout=subprocess.DEVNULL,
        )
    return target


def _normalise_tree(root: Path, epoch: int) -> None:
    """Modes a package wants (programs and folders 755, the rest 644) and one date."""
    for path in sorted(root.rglob("*"), reverse=True):
        if path.is_symlink():
            os.utime(path, (epoch, epoch), follow_symlinks=False)
            continue
        executable = path.is_dir() or bool(path.stat().st_mode & 0o111)
        if path.parent.name == "DEBIAN" and path.name in {"preinst", "postinst", "postrm"}:
            executable = True
        path.chmod(0o755 if executable else 0o644)
        os.utime(path, (epoch, epoch))
    root.chmod(0o755)
    os.utime(root, (epoch, epoch))


# -- Windows -----------------------------------------------------------------------------
def make_setup(bundle: Path, version: str, out: Path, *, icon: Path) -> Path:
    """``out/AdmissionDesk-<version>-setup.exe``: packaging/windows/admission-desk.nsi
    compiled by makensis around the bundle (on Windows, or on Linux to check the script)."""
    makensis = shutil.which("makensis")
    if makensis is None:
        raise PackageError("makensis is not installed (NSIS 3: https://nsis.sourceforge.io)")
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{WINDOWS_NAME}-{version}-setup.exe"
    # NSIS's "1.2.3.4" product version: the numeric part, padded to four fields
    numeric = re.match(r"[0-9.]+", version)
    fields = (numeric[0].strip(".") if numeric else "0").split(".")
    product = ".".join([*fields, "0", "0", "0"][:4])
    _run(
        [
            makensis,
            "-V2",
            f"-DVERSION={version}",
            f"-DPRODUCT_VERSION={product}",
            f"-DBUNDLE={bundle}",
            f"-DICON={icon}",
            f"-DOUTFILE={target}",
            str(PACKAGING / "windows" / "admission-desk.nsi"),
        ],
        "makensis",
    )
    return target


def _sign_program(program: Path) -> None:
    """The desk's own .exe signed before it goes into the installer, by the command in
    DESK_SIGN_COMMAND (``%1`` is the file, quoted by the command; build.ps1 sets it for
    signtool); makensis signs the installer and its uninstaller with the same command."""
    sign = os.environ.get("DESK_SIGN_COMMAND")
    if not sign:
        return
    done = subprocess.run(sign.replace("%1", str(program)), shell=True, check=False)
    if done.returncode != 0:
        raise PackageError(f"signing {program.name} failed (exit {done.returncode})")


# -- comparing two builds ----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Comparison:
    files: int
    same: int
    differing: tuple[str, ...]
    only_one: tuple[str, ...]


def _digests(folder: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[path.relative_to(folder).as_posix()] = hashlib.sha256(
                path.read_bytes()
            ).hexdigest()
    return found


def compare_bundles(a: Path, b: Path) -> Comparison:
    """File by file: how far two builds differ."""
    left, right = _digests(a), _digests(b)
    common = sorted(left.keys() & right.keys())
    differing = tuple(name for name in common if left[name] != right[name])
    only = tuple(sorted(left.keys() ^ right.keys()))
    return Comparison(
        len(left.keys() | right.keys()), len(common) - len(differing), differing, only
    )


def tree_size(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*") if not p.is_dir())


def _compare_builds(source: Path, version: str | None, work: Path | None) -> int:
    """Two builds of one source, one after the other, compared file by file (bundles)
    and byte for byte (packages): how reproducible the recipe is here."""
    base = work or ROOT / "build" / "compare"
    made = []
    for name in ("a", "b"):
        bundle, info = freeze(source, version=version, work=base / name)
        epoch = int(str(info["source_date_epoch"]))
        deb = make_deb(bundle, str(info["version"]), base / f"dist-{name}", epoch=epoch)
        made.append((bundle, deb))
    (bundle_a, deb_a), (bundle_b, deb_b) = made
    result = compare_bundles(bundle_a, bundle_b)
    same_deb = deb_a.read_bytes() == deb_b.read_bytes()
    print(
        f"compare: {result.files} files, {result.same} identical, "
        f"{len(result.differing)} differing, {len(result.only_one)} in one build only; "
        f"the two .deb files are {'identical' if same_deb else 'different'}",
        flush=True,
    )
    for name in (*result.differing, *result.only_one)[:40]:
        print(f"compare: differs: {name}", flush=True)
    return 0


# -- the command -------------------------------------------------------------------------
def build(args: Iterable[str]) -> int:
    parser = argparse.ArgumentParser(prog="bootstrap.py package")
    parser.add_argument("action", nargs="?", choices=("build", "lock", "compare"), default="build")
    parser.add_argument("--version", help="the package's version (default: pyproject.toml's)")
    parser.add_argument("--source", type=Path, default=ROOT, help="the source tree to build")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where installers go")
    parser.add_argument("--work", type=Path, default=None, help="the build's scratch folder")
    options = parser.parse_args(list(args))
    try:
        if options.action == "lock":
            LOCK.write_text(lock(), "utf-8")
            print(f"package: wrote {LOCK.relative_to(ROOT)}", flush=True)
            return 0
        source = options.source.resolve()
        if options.action == "compare":
            return _compare_builds(source, options.version, options.work)
        bundle, info = freeze(source, version=options.version, work=options.work)
        version = str(info["version"])
        epoch = int(str(info["source_date_epoch"]))
        if os.name == "nt":
            _sign_program(bundle / f"{NAME}.exe")
            target = make_setup(
                bundle, version, options.out, icon=bundle.parent.parent / f"{NAME}.ico"
            )
        else:
            target = make_deb(bundle, version, options.out, epoch=epoch)
    except PackageError as exc:
        print(f"package: {exc}", file=sys.stderr, flush=True)
        return 1
    print(
        f"package: {target} ({target.stat().st_size / 2**20:.1f} MiB; "
        f"bundle {tree_size(bundle) / 2**20:.1f} MiB)",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(build(sys.argv[1:]))

#!/usr/bin/env python3
"""One entry point that sets everything up, then starts the app or runs the tests.

    python3 tools/bootstrap.py start [ARGS...]   # set up, then `main.py ARGS` (the demo window
                                                 # by default; `start demo` for the CLI demo)
    python3 tools/bootstrap.py test  [PYTEST ARGS...]  # set up, CUPS, lint, types, pytest,
                                                       # then the window's smoke run
    python3 tools/bootstrap.py bench             # set up, run every benchmark in tests/bench/
    python3 tools/bootstrap.py package [--version V]  # the installable desk: a .deb on Linux,
                                                      # the setup.exe on Windows (package_desk.py)

Standard library only: it runs on a fresh Debian 12 with nothing but python3.
Idempotent: system packages come from scripts/system-packages.sh (skips what is
installed); the virtual environment in .venv/ is reinstalled only when the
requirements files change.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMP = VENV / ".requirements.sha256"
# Wheels only for the packages with native code: sqlcipher3 must never be
# built from source (its 0.6.x wheels bundle SQLCipher 4).
BINARY_ONLY = "sqlcipher3,PySide6-Essentials,opencv-python-headless,numpy,onnxruntime,zxing-cpp"


def venv_python() -> Path:
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def run(cmd: list[str], **kwargs: object) -> None:
    result = subprocess.run(cmd, cwd=ROOT, check=False, **kwargs)  # type: ignore[call-overload]
    if result.returncode != 0:
        sys.exit(result.returncode)


def system_packages() -> None:
    script = ROOT / "scripts" / "system-packages.sh"
    if sys.platform.startswith("linux") and shutil.which("dpkg-query"):
        run(["sh", str(script)])


def ensure_venv(requirement_files: list[str]) -> None:
    digest = hashlib.sha256()
    for name in requirement_files:
        digest.update((ROOT / name).read_bytes())
    wanted = digest.hexdigest()
    if venv_python().exists() and STAMP.exists() and STAMP.read_text().strip() == wanted:
        return
    if not venv_python().exists():
        print("bootstrap: creating .venv", flush=True)
        run([sys.executable, "-m", "venv", str(VENV)])
    print("bootstrap: installing Python packages into .venv", flush=True)
    pip = [str(venv_python()), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    run([*pip, "--upgrade", "pip"])
    args = [*pip, "--prefer-binary", "--only-binary", BINARY_ONLY]
    for name in requirement_files:
        args += ["-r", name]
    run(args)
    STAMP.write_text(wanted + "\n")


def venv_tool(name: str) -> Path:
    if os.name == "nt":
        return VENV / "Scripts" / f"{name}.exe"
    return VENV / "bin" / name


def translations() -> None:
    """Compile each resources/i18n/*.ts newer than its .qm (pyside6-lrelease); the .qm
    files are build products, not kept in git."""
    tool = venv_tool("pyside6-lrelease")
    for ts in sorted((ROOT / "resources" / "i18n").glob("*.ts")):
        qm = ts.with_suffix(".qm")
        if qm.exists() and qm.stat().st_mtime >= ts.stat().st_mtime:
            continue
        if not tool.exists():
            print(f"bootstrap: {tool.name} missing, {ts.name} not compiled", flush=True)
            return
        run([str(tool), "-silent", str(ts), "-qm", str(qm)])


def start(args: list[str]) -> None:
    system_packages()
    ensure_venv(["requirements.txt"])
    translations()
    # no arguments: the desk window on the demo file (main.py says so in one line and
    # exits 3 when there is no display; `start demo` runs the command-line demo)
    os.execv(str(venv_python()), [str(venv_python()), str(ROOT / "main.py"), *(args or ["--demo"])])


def test(args: list[str]) -> None:
    system_packages()
    ensure_venv(["requirements.txt", "requirements-dev.txt"])
    translations()
    cups = ROOT / "scripts" / "start-cups.sh"
    if cups.exists() and sys.platform.startswith("linux"):
        # The real print path is tested on a cups-pdf queue; tests skip it with a
        # reason if the scheduler could not be started (not root, no CUPS).
        subprocess.run(["sh", str(cups)], cwd=ROOT, check=False)
    py = str(venv_python())
    run([py, "-m", "ruff", "check", "."])
    run([py, "-m", "ruff", "format", "--check", "."])
    run([py, "-m", "mypy"])
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run([py, "-m", "pytest", *args], env=env)
    # the real start path, end to end: the demo window admits one visitor offscreen.
    # Quiet when it passes, so that pytest's summary stays the run's closing line.
    with tempfile.TemporaryDirectory(prefix="admission-smoke-") as smoke_dir:
        smoke = subprocess.run(
            [py, str(ROOT / "main.py"), "--demo", "--smoke", "--data-dir", smoke_dir],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    if smoke.returncode != 0:
        print(smoke.stderr[-3000:], file=sys.stderr)
        print(f"bootstrap: the window's smoke run failed (exit {smoke.returncode})", flush=True)
        sys.exit(smoke.returncode or 1)


def bench(args: list[str]) -> None:
    system_packages()
    ensure_venv(["requirements.txt", "requirements-dev.txt"])
    py = str(venv_python())
    for script in sorted((ROOT / "tests" / "bench").glob("bench_*.py")):
        print(f"\n## {script.name}", flush=True)
        subprocess.run([py, str(script), *args], cwd=ROOT, check=False)


def package(args: list[str]) -> None:
    system_packages()
    sys.path.insert(0, str(ROOT / "tools"))
    import package_desk

    sys.exit(package_desk.build(args))


def main() -> None:
    commands = {"start": start, "test": test, "bench": bench, "package": package}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__)
        sys.exit(2)
    command, rest = sys.argv[1], sys.argv[2:]
    commands[command](rest)


if __name__ == "__main__":
    main()

"""What this desk was built from: ``admission-desk --version [--verbose]``.

An installed desk (frozen by tools/package_desk.py) carries ``build_info.json`` in its
bundle: the version, the source commit, the Python it runs on, the digest of the hashed
lock and every pinned distribution. A desk run from a source checkout says the same of
itself from pyproject.toml, git and requirements.txt. A technician or an inspector reads
it to know exactly what runs at the counter.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["build_info", "version_text"]

_ROOT = Path(__file__).resolve().parent.parent
BUILD_INFO = "build_info.json"


def _bundle_dir() -> Path | None:
    """The frozen bundle's folder (PyInstaller's ``sys._MEIPASS``), None from source."""
    if not getattr(sys, "frozen", False):
        return None
    meipass = getattr(sys, "_MEIPASS", None)
    return Path(meipass) if isinstance(meipass, str) else Path(sys.executable).parent


def _source_info() -> dict[str, Any]:
    pyproject = (_ROOT / "pyproject.toml").read_text("utf-8")
    match = re.search(r'^version\s*=\s*"([^"]+)"', pyproject, re.MULTILINE)
    requirements = _ROOT / "requirements.txt"
    pins = sorted(
        line.split("#", 1)[0].strip()
        for line in requirements.read_text("utf-8").splitlines()
        if "==" in line.split("#", 1)[0]
    )
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=_ROOT,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
        commit = done.stdout.strip() if done.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {
        "name": "admission-desk",
        "version": match[1] if match else "",
        "commit": commit,
        "source": "checkout",
        "requirements_sha256": hashlib.sha256(requirements.read_bytes()).hexdigest(),
        "requirements": pins,
    }


def build_info() -> dict[str, Any]:
    """The build's record (frozen) or the checkout's, plus the Python running now."""
    bundle = _bundle_dir()
    if bundle is not None:
        try:
            info: dict[str, Any] = json.loads((bundle / BUILD_INFO).read_text("utf-8"))
        except (OSError, ValueError):
            info = {"name": "admission-desk", "version": "", "error": "BUILD_INFO_MISSING"}
        info["source"] = "installed"
    else:
        info = _source_info()
    info["running_python"] = platform.python_version()
    info["running_platform"] = f"{sys.platform}-{platform.machine().lower()}"
    return info


def version_text() -> str:
    info = build_info()
    return f"{info.get('name', 'admission-desk')} {info.get('version', '')}".strip()

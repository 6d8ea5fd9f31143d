"""Every pinned runtime requirement installs on a Windows counter PC from a binary wheel.

pip resolves ``requirements.txt`` for CPython 3.11 on ``win_amd64`` without installing
(``--dry-run --report``; where the index offers the wheels' metadata apart (PEP 658),
nothing is downloaded) and the report must name, for each requirement and each thing it
pulls in, a wheel built for ``win_amd64`` or a pure one (``none-any``).

pip evaluates environment markers for the machine it runs on (Linux), not for
``--platform``: a dependency declared only for Windows (``keyring`` needs
``pywin32-ctypes`` there) is missing from that report. The test reads every resolved
package's ``Requires-Dist`` with Windows' markers and resolves what Windows adds in a
second run. Without a reachable package index the test is skipped (CI has one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "requirements.txt"
INDEX = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple/")
WINDOWS_MARKERS: dict[str, str] = {
    "os_name": "nt",
    "sys_platform": "win32",
    "platform_system": "Windows",
    "platform_machine": "AMD64",
    "platform_release": "10",
    "platform_version": "10.0.19045",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "python_version": "3.11",
    "python_full_version": "3.11.9",
    "implementation_version": "3.11.9",
    "extra": "",
}
NETWORK_FAILURES = (
    "NewConnectionError",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "ConnectTimeoutError",
    "ReadTimeoutError",
)


def _index_reachable() -> str | None:
    """None when the package index answers, else why not."""
    try:
        with urllib.request.urlopen(INDEX + "pip/", timeout=10) as answer:
            answer.read(1)
    except (urllib.error.URLError, OSError) as exc:
        return f"no network: the package index {INDEX} does not answer ({exc})"
    return None


def _resolve_for_windows(tmp_path: Path, name: str, wanted: list[str]) -> dict[str, Any]:
    """pip's installation report for ``wanted`` (pip arguments) on CPython 3.11 win_amd64."""
    report = tmp_path / f"{name}.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--only-binary=:all:",
            "--platform",
            "win_amd64",
            "--python-version",
            "3.11",
            "--implementation",
            "cp",
            "--abi",
            "cp311",
            "--abi",
            "abi3",
            "--abi",
            "none",
            "--target",
            str(tmp_path / f"{name}-target"),
            "--report",
            str(report),
            "--quiet",
            "--timeout",
            "30",
            "--retries",
            "1",
            *wanted,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        if any(failure in done.stderr for failure in NETWORK_FAILURES):
            pytest.skip("no network: pip could not reach the package index")
        pytest.fail(
            f"pip finds no Windows wheel set for {' '.join(wanted)} "
            f"(exit {done.returncode}):\n{done.stderr[-4000:]}"
        )
    result: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return result


def _not_for_windows(install: list[dict[str, Any]]) -> list[str]:
    """Each resolved package whose file is not a win_amd64 or a pure wheel."""
    wrong: list[str] = []
    for item in install:
        meta = item["metadata"]
        file = item["download_info"]["url"].rsplit("/", 1)[-1]
        try:
            tags = parse_wheel_filename(file)[3]
        except ValueError:
            wrong.append(f"{meta['name']} {meta['version']}: {file} is not a wheel")
            continue
        if not any(
            t.platform == "win_amd64" or (t.platform, t.abi) == ("any", "none") for t in tags
        ):
            wrong.append(f"{meta['name']} {meta['version']}: {file} is not for win_amd64")
    return wrong


def _pinned() -> dict[str, Requirement]:
    found: dict[str, Requirement] = {}
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip()
        if text:
            requirement = Requirement(text)
            found[canonicalize_name(requirement.name)] = requirement
    return found


def _windows_only_needs(install: list[dict[str, Any]]) -> list[str]:
    """What the resolved packages require on Windows that the (Linux-marker) report lacks."""
    resolved = {canonicalize_name(item["metadata"]["name"]) for item in install}
    needs: set[str] = set()
    for item in install:
        for text in item["metadata"].get("requires_dist", []):
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is not None and not marker.evaluate(WINDOWS_MARKERS):
                continue
            if canonicalize_name(requirement.name) not in resolved:
                needs.add(str(requirement).split(";", 1)[0].strip())
    return sorted(needs)


def test_every_pinned_requirement_has_a_windows_wheel(tmp_path: Path) -> None:
    unreachable = _index_reachable()
    if unreachable:
        pytest.skip(unreachable)
    install = _resolve_for_windows(tmp_path, "report", ["-r", str(REQUIREMENTS)])["install"]

    versions: dict[str, str] = {
        canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"] for item in install
    }
    unresolved = [
        str(requirement)
        for name, requirement in _pinned().items()
        if name not in versions or versions[name] not in requirement.specifier
    ]
    assert not unresolved, f"pinned but not resolved for Windows: {unresolved}"
    assert not _not_for_windows(install), _not_for_windows(install)

    extra = _windows_only_needs(install)
    if extra:
        added = _resolve_for_windows(tmp_path, "windows-only", extra)["install"]
        assert not _not_for_windows(added), _not_for_windows(added)


def test_the_wheel_check_names_a_file_that_is_not_for_windows() -> None:
    def item(name: str, file: str) -> dict[str, Any]:
        url = f"https://files.example/{file}"
        return {"metadata": {"name": name, "version": "1.0"}, "download_info": {"url": url}}

    install = [
        item("pure", "pure-1.0-py3-none-any.whl"),
        item("native", "native-1.0-cp311-cp311-win_amd64.whl"),
        item("linux", "linux-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"),
        item("source", "source-1.0.tar.gz"),
    ]
    assert _not_for_windows(install) == [
        "linux 1.0: linux-1.0-cp311-cp311-manylinux_2_28_x86_64.whl is not for win_amd64",
        "source 1.0: source-1.0.tar.gz is not a wheel",
    ]


def test_windows_markers_add_what_only_windows_needs() -> None:
    install: list[dict[str, Any]] = [
        {
            "metadata": {
                "name": "keyring",
                "version": "25.6.0",
                "requires_dist": [
                    'pywin32-ctypes>=0.2.0; sys_platform == "win32"',
                    'SecretStorage>=3.2; sys_platform == "linux"',
                    'pytest; extra == "test"',
                    "jaraco.classes",
                ],
            }
        },
        {"metadata": {"name": "jaraco.classes", "version": "3.4.0"}},
    ]
    assert _windows_only_needs(install) == ["pywin32-ctypes>=0.2.0"]

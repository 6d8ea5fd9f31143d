"""The installable desk, measured: package size, installed size, start and smoke run of
the frozen desk against ``main.py`` from the venv, in one run.

    nice .venv/bin/python tests/bench/bench_package.py [--deb dist/admission-desk_V_amd64.deb]
        [--runs 5]

Uses the newest ``dist/admission-desk_*_amd64.deb`` (or builds one with
tools/package_desk.py when there is none). The package is unpacked with ``dpkg-deb -x``
(what dpkg installs under /opt/admission-desk). Each run starts a new process on a new
data folder (so the demo's visitor file is created and seeded in every run, the same
work for both), offscreen, with ``--demo --smoke``:

- start: from the process's launch to the smoke run's "window shown" line (the window is
  up and the desk ready); the first run after the page cache is dropped is "cold" (when
  /proc/sys/vm/drop_caches can be written; else it says so), the others warm;
- smoke: from the launch to the process's exit after one demo admission, card printed.

The two programs alternate, so that the machine's load falls on both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import package_desk  # noqa: E402


def drop_caches() -> bool:
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        return False
    return True


def timed_smoke(command: list[str]) -> tuple[float, float]:
    """(seconds to "window shown", seconds to exit) of one smoke run on a new folder."""
    with tempfile.TemporaryDirectory(prefix="bench-package-") as data:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        start = time.perf_counter()
        process = subprocess.Popen(
            [*command, "--demo", "--smoke", "--data-dir", data],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        shown = float("nan")
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("smoke: window shown") and shown != shown:
                shown = time.perf_counter() - start
        code = process.wait()
        total = time.perf_counter() - start
        if code != 0:
            raise SystemExit(f"bench: {command[0]} --smoke exited {code}")
        return shown, total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deb", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    deb = options.deb
    if deb is None:
        found = sorted((ROOT / "dist").glob("admission-desk_*_amd64.deb"), key=os.path.getmtime)
        if not found:
            bundle, info = package_desk.freeze(ROOT)
            epoch = int(str(info["source_date_epoch"]))
            found = [
                package_desk.make_deb(bundle, str(info["version"]), ROOT / "dist", epoch=epoch)
            ]
        deb = found[-1]
    with tempfile.TemporaryDirectory(prefix="bench-package-root-") as tmp:
        root = Path(tmp)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        installed = root / "opt" / "admission-desk"
        field = subprocess.run(
            ["dpkg-deb", "-f", str(deb), "Installed-Size"], capture_output=True, text=True
        ).stdout.strip()
        programs = {
            "installed (frozen)": [str(installed / "admission-desk")],
            "main.py from .venv": [str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "main.py")],
        }
        starts: dict[str, list[float]] = {name: [] for name in programs}
        smokes: dict[str, list[float]] = {name: [] for name in programs}
        cold: dict[str, float] = {}
        cold_note = ""
        for name, command in programs.items():
            if not drop_caches():
                cold_note = " (page cache not dropped: no permission; first run)"
            cold[name] = timed_smoke(command)[0]
        for _ in range(options.runs):
            for name, command in programs.items():
                shown, total = timed_smoke(command)
                starts[name].append(shown)
                smokes[name].append(total)
        print(f"\nPackage {deb.name}")
        print("| measure | value |")
        print("|---|---|")
        print(f"| package (.deb, xz) | {deb.stat().st_size / 2**20:.1f} MiB |")
        print(
            f"| installed (/opt/admission-desk) | {package_desk.tree_size(installed) / 2**20:.1f}"
            f" MiB (Installed-Size {int(field or 0) / 1024:.1f} MiB with the entry and icon) |"
        )
        print(f"\nStart and smoke run, offscreen, {options.runs} warm runs each, alternating")
        print("| program | cold start | warm start p50 | smoke run p50 | smoke run max |")
        print("|---|---|---|---|---|")
        for name in programs:
            print(
                f"| {name} | {cold[name]:.2f} s{cold_note if cold_note else ''} | "
                f"{statistics.median(starts[name]):.2f} s | "
                f"{statistics.median(smokes[name]):.2f} s | {max(smokes[name]):.2f} s |"
            )
        frozen, venv = programs
        print(
            f"\nratio installed / venv: cold start {cold[frozen] / cold[venv]:.2f}, warm start "
            f"{statistics.median(starts[frozen]) / statistics.median(starts[venv]):.2f}, "
            f"smoke {statistics.median(smokes[frozen]) / statistics.median(smokes[venv]):.2f}"
        )


if __name__ == "__main__":
    main()

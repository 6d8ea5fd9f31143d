"""A throwaway Debian 12 root for the installer's tests: a minimal debootstrap
(``--variant=minbase``: no Python, no Qt, no CUPS, nothing of the desk) unpacked into a
temporary folder, with /proc, /sys, /dev mounted and the host's apt sources, so that
``apt-get install ./admission-desk_*.deb`` resolves the package's dependencies from the
same Debian mirror, as on a counter PC that has never seen the source.

The minbase root is made once with debootstrap and cached as a tarball
(``ADMISSION_ROOT_CACHE``, default /tmp/desk-root-cache). Needs root.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUITE = "bookworm"
CACHE = Path(os.environ.get("ADMISSION_ROOT_CACHE", "/tmp/desk-root-cache"))
TARBALL = CACHE / f"{SUITE}-minbase.tar"


def usable() -> str:
    """Why a throwaway root cannot be made here ("" when it can)."""
    if os.name != "posix" or os.geteuid() != 0:
        return "a throwaway Debian root needs root (chroot, mount)"
    missing = [t for t in ("chroot", "mount", "umount", "dpkg-deb") if shutil.which(t) is None]
    if not TARBALL.exists() and shutil.which("debootstrap") is None:
        missing.append("debootstrap")
    return f"missing host tools: {', '.join(missing)}" if missing else ""


def mirror() -> str:
    """The host's Debian mirror for the suite (deb822 .sources or one-line lists)."""
    sources = [Path("/etc/apt/sources.list"), *Path("/etc/apt/sources.list.d").glob("*")]
    for path in sources:
        if not path.is_file() or path.suffix not in {"", ".list", ".sources"}:
            continue
        text = path.read_text("utf-8", errors="replace")
        for stanza in re.split(r"\n\s*\n", text):
            if f" {SUITE}" not in f" {stanza}" or "security" in stanza:
                continue
            found = re.search(r"(?m)^URIs:\s*(\S+)", stanza) or re.search(
                r"(?m)^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+" + SUITE + r"\s", stanza
            )
            if found:
                return found[1]
    return "http://deb.debian.org/debian"


def ensure_tarball() -> Path:
    if TARBALL.exists():
        return TARBALL
    CACHE.mkdir(parents=True, exist_ok=True)
    build = CACHE / "building"
    shutil.rmtree(build, ignore_errors=True)
    subprocess.run(
        ["debootstrap", "--variant=minbase", SUITE, str(build), mirror()],
        check=True,
        capture_output=True,
    )
    leftovers = [*build.glob("var/cache/apt/archives/*.deb"), *build.glob("var/lib/apt/lists/*")]
    for leftover in leftovers:
        if leftover.is_file():
            leftover.unlink()
    partial = TARBALL.with_suffix(".partial")
    subprocess.run(["tar", "-C", str(build), "-cf", str(partial), "."], check=True)
    partial.rename(TARBALL)
    shutil.rmtree(build, ignore_errors=True)
    return TARBALL


class Root:
    """A running throwaway root: ``run`` a shell command inside it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def run(
        self, script: str, *, check: bool = True, timeout: float = 900
    ) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": "/root",
            "LANG": "C.UTF-8",
            "DEBIAN_FRONTEND": "noninteractive",
        }
        done = subprocess.run(
            ["chroot", str(self.path), "/bin/sh", "-c", script],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            said = f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
            raise AssertionError(f"`{script}` exited {done.returncode}:\n{said}")
        return done


def _mounts_under(base: Path) -> list[str]:
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].encode().decode("unicode_escape")
        if point == str(base) or point.startswith(f"{base}/"):
            found.append(point)
    return sorted(found, key=len, reverse=True)


@contextmanager
def throwaway_root(where: Path) -> Iterator[Root]:
    """A fresh minbase Debian 12 under ``where``, removed (unmounted first) on exit."""
    tarball = ensure_tarball()
    path = where / "root"
    path.mkdir(parents=True)
    with tarfile.open(tarball) as archive:
        archive.extractall(path, filter="fully_trusted")
    try:
        subprocess.run(["mount", "-t", "proc", "proc", str(path / "proc")], check=True)
        subprocess.run(["mount", "--bind", "/sys", str(path / "sys")], check=True)
        subprocess.run(["mount", "--bind", "/dev", str(path / "dev")], check=True)
        subprocess.run(["mount", "--bind", "/dev/pts", str(path / "dev/pts")], check=True)
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "mode=1777", "shm", str(path / "dev/shm")], check=True
        )
        shutil.copy(Path("/etc/resolv.conf").resolve(), path / "etc/resolv.conf")
        apt = path / "etc" / "apt"
        (apt / "sources.list").write_text(
            f"deb {mirror()} {SUITE} main\ndeb {mirror()} {SUITE}-updates main\n", "utf-8"
        )
        for conf in Path("/etc/apt/apt.conf.d").glob("*"):
            if conf.is_file() and "Acquire" in conf.read_text("utf-8", errors="replace"):
                shutil.copy(conf, apt / "apt.conf.d" / conf.name)
        yield Root(path)
    finally:
        for point in _mounts_under(path):
            if subprocess.run(["umount", point], check=False).returncode != 0:
                subprocess.run(["umount", "-l", point], check=False)
        if not _mounts_under(path):
            shutil.rmtree(path, ignore_errors=True)

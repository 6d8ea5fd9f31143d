"""The desk's code runs on a Windows counter PC too: no product module touches a
POSIX-only API outside a platform adapter unless a Windows branch the scan can see
surrounds it.

Checked on Linux by reading the code (``ast``), since this machine cannot run Windows.
A use is flagged unless it is in one of the :data:`ADAPTERS` (each with its reason), or
inside an ``if``/ternary whose test reads ``sys.platform``, ``os.name``,
``platform.system()``, ``hasattr(os, ...)`` (or of another POSIX-only module, or tests
such a module's name), or, for an import, inside ``try:`` with ``except ImportError``.
What the scan cannot see (a folder opened with ``os.open``, path lengths, file locking
semantics) is listed in the README's Windows section.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("admission", "db", "hardware", "ui", "main.py")

# The modules that ARE platform adapters: main.py or a setting chooses them per platform.
ADAPTERS: dict[str, str] = {
    "hardware/printer/cups.py": (
        "the CUPS adapter: prints through lp, lpstat and cancel; a Windows desk sets "
        "the printer backend to 'qt' (hardware/printer/qt.py, the Windows spooler)"
    ),
}

# Modules that do not exist on Windows.
POSIX_MODULES = frozenset(
    {"fcntl", "termios", "tty", "pty", "pwd", "grp", "resource", "syslog", "posix", "crypt"}
)
# os names missing on Windows, or (os.kill) that do something else there: os.kill(pid, 0)
# probes a process on POSIX and ends it (TerminateProcess) on Windows.
POSIX_OS = frozenset(
    {
        "getuid",
        "geteuid",
        "getgid",
        "getegid",
        "getgroups",
        "fchmod",
        "fchown",
        "chown",
        "lchown",
        "statvfs",
        "fstatvfs",
        "ST_RDONLY",
        "mkfifo",
        "mknod",
        "setsid",
        "setpgrp",
        "getpgid",
        "killpg",
        "kill",
        "fork",
        "forkpty",
        "pread",
        "pwrite",
        "sync",
        "nice",
        "getloadavg",
        "uname",
        "O_DIRECTORY",
        "O_NOFOLLOW",
        "O_NONBLOCK",
        "O_CLOEXEC",
        "WNOHANG",
    }
)
# signal names missing on Windows (it has SIGINT, SIGTERM, SIGABRT, SIGBREAK, SIGFPE,
# SIGILL, SIGSEGV) and functions it lacks.
POSIX_SIGNAL = frozenset(
    {
        "SIGHUP",
        "SIGKILL",
        "SIGUSR1",
        "SIGUSR2",
        "SIGALRM",
        "SIGCHLD",
        "SIGQUIT",
        "SIGPIPE",
        "SIGSTOP",
        "SIGCONT",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGWINCH",
        "SIGIO",
        "SIGPROF",
        "SIGVTALRM",
        "SIGXCPU",
        "alarm",
        "setitimer",
        "pause",
        "siginterrupt",
        "pthread_kill",
        "sigwait",
    }
)
# CUPS command-line tools (absent on Windows), as the first word of a command list.
CUPS_TOOLS = frozenset({"lp", "lpstat", "lpadmin", "lpoptions", "cupsctl", "cancel", "lpr"})
PLATFORM_NAMES = frozenset({"os", "signal"} | POSIX_MODULES)


def product_files() -> list[Path]:
    files: list[Path] = []
    for name in PRODUCT:
        path = ROOT / name
        files.extend([path] if path.is_file() else sorted(path.rglob("*.py")))
    return files


def _reads_platform(test: ast.expr) -> bool:
    """The test of an ``if`` or a ternary tells the platforms apart."""
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            pair = (node.value.id, node.attr)
            if pair in {("sys", "platform"), ("os", "name"), ("platform", "system")}:
                return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "hasattr"
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in PLATFORM_NAMES
        ):
            return True
        if isinstance(node, ast.Name) and node.id in POSIX_MODULES:
            return True  # ``if fcntl is not None:`` after a guarded import
    return False


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type
    names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds] if kinds else []
    return any(
        isinstance(n, ast.Name) and n.id in {"ImportError", "ModuleNotFoundError"} for n in names
    )


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    child, parent = node, parents.get(node)
    while parent is not None:
        if (
            isinstance(parent, ast.If | ast.IfExp)
            and child is not parent.test
            and _reads_platform(parent.test)
        ):
            return True
        if (
            isinstance(parent, ast.Try)
            and isinstance(node, ast.Import | ast.ImportFrom)
            and child in parent.body
            and any(_catches_import_error(h) for h in parent.handlers)
        ):
            return True
        child, parent = parent, parents.get(parent)
    return False


def _uses(tree: ast.Module) -> Iterator[tuple[ast.AST, str]]:
    """Every POSIX-only use in ``tree``, with what it is."""
    docstrings = {
        id(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in POSIX_MODULES:
                    yield node, f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.split(".")[0]
            wanted = {"os": POSIX_OS, "signal": POSIX_SIGNAL}.get(top, frozenset())
            if top in POSIX_MODULES:
                yield node, f"from {node.module} import"
            for alias in node.names:
                if alias.name in wanted:
                    yield node, f"from {top} import {alias.name}"
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner, name = node.value.id, node.attr
            if (
                (owner == "os" and name in POSIX_OS)
                or (owner == "signal" and name in POSIX_SIGNAL)
                or owner in POSIX_MODULES
            ):
                yield node, f"{owner}.{name}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith("/dev/") and id(node) not in docstrings:
                yield node, f"the device path {node.value!r}"
        elif isinstance(node, ast.Call):
            for arg in node.args:
                if (
                    isinstance(arg, ast.List | ast.Tuple)
                    and arg.elts
                    and isinstance(arg.elts[0], ast.Constant)
                    and arg.elts[0].value in CUPS_TOOLS
                ):
                    yield node, f"runs the CUPS tool {arg.elts[0].value!r}"


def scan(source: str, name: str) -> list[str]:
    """``name:line: what`` for each POSIX-only use in ``source`` without a Windows branch."""
    tree = ast.parse(source, filename=name)
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    found = {
        (getattr(node, "lineno", 0), what)
        for node, what in _uses(tree)
        if not _guarded(node, parents)
    }
    return [f"{name}:{line}: {what}" for line, what in sorted(found)]


def test_no_posix_only_api_outside_an_adapter_or_a_windows_branch() -> None:
    offences: list[str] = []
    for path in product_files():
        relative = path.relative_to(ROOT).as_posix()
        if relative not in ADAPTERS:
            offences += scan(path.read_text(encoding="utf-8"), relative)
    assert not offences, (
        "POSIX-only APIs with no Windows branch (guard them with sys.platform, os.name, "
        "hasattr(os, ...) or try/except ImportError, or move them into an adapter):\n"
        + "\n".join(offences)
    )


def test_every_adapter_exists_and_still_needs_its_entry() -> None:
    for relative, reason in ADAPTERS.items():
        path = ROOT / relative
        assert path.is_file(), relative
        assert reason
        assert scan(path.read_text(encoding="utf-8"), relative), (
            f"{relative} touches no POSIX-only API any more: drop it from ADAPTERS"
        )


def test_the_scan_flags_an_unguarded_use_and_spares_a_guarded_one() -> None:
    bare = "import os\n\ndef owner() -> int:\n    return os.getuid()\n"
    assert scan(bare, "bare.py") == ["bare.py:4: os.getuid"]

    guarded = (
        "import os\nimport sys\n\n"
        "def owner() -> int:\n"
        "    if sys.platform == 'win32':\n        return 0\n    else:\n"
        "        return os.getuid()\n"
        "uid = os.getuid() if hasattr(os, 'getuid') else 0\n"
    )
    assert scan(guarded, "guarded.py") == []


def test_the_scan_knows_imports_signals_devices_and_cups() -> None:
    source = (
        "import fcntl\n"  # 1
        "import signal, subprocess\n"  # 2
        "try:\n    import termios\nexcept ImportError:\n    termios = None\n"  # 3-6
        "signal.signal(signal.SIGHUP, print)\n"  # 7
        "signal.signal(signal.SIGTERM, print)\n"  # 8
        "PORT = '/dev/ttyUSB0'\n"  # 9
        "subprocess.run(['lpstat', '-r'])\n"  # 10
        "subprocess.run(['lsusb'])\n"  # 11
        "if os.name == 'nt':\n    PORT = 'COM3'\nelse:\n    PORT = '/dev/ttyS0'\n"  # 12-15
        "if os.statvfs('.').f_flag:\n    pass\n"  # 16: the test itself is no branch
    )
    assert scan(source, "m.py") == [
        "m.py:1: import fcntl",
        "m.py:7: signal.SIGHUP",
        "m.py:9: the device path '/dev/ttyUSB0'",
        "m.py:10: runs the CUPS tool 'lpstat'",
        "m.py:16: os.statvfs",
    ]

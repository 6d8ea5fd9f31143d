"""The typing ratchet: ``mypy --strict`` covers admission, db, hardware, ui, main.py and tools
(STYLE.md rule 23), and the first-party modules allowed to relax a strict flag can
only get fewer.

A module that must relax a flag (numpy-heavy code where the stubs give ``Any``) is named
in a ``[[tool.mypy.overrides]]`` block of pyproject.toml with only the flags it needs.
When one leaves that list, lower ``MAX_RELAXED`` with it; never raise it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
CHECKED = {"admission", "db", "hardware", "ui", "main.py", "tools"}
FIRST_PARTY = {"admission", "db", "hardware", "tools", "ui", "main", "tests"}
MAX_RELAXED = 0
# what --strict turns on (mypy 1.18): none may be switched off for the whole run
STRICT_FLAGS = {
    "warn_unused_configs",
    "disallow_any_generics",
    "disallow_subclassing_any",
    "disallow_untyped_calls",
    "disallow_untyped_defs",
    "disallow_incomplete_defs",
    "check_untyped_defs",
    "disallow_untyped_decorators",
    "warn_redundant_casts",
    "warn_unused_ignores",
    "warn_return_any",
    "no_implicit_reexport",
    "strict_equality",
    "extra_checks",
}


def _mypy() -> dict[str, Any]:
    with PYPROJECT.open("rb") as handle:
        config: dict[str, Any] = tomllib.load(handle)["tool"]["mypy"]
    return config


def _overrides() -> Iterator[tuple[list[str], dict[str, Any]]]:
    """(modules, settings) of every ``[[tool.mypy.overrides]]`` block."""
    for block in _mypy().get("overrides", []):
        modules = block["module"]
        names = [modules] if isinstance(modules, str) else list(modules)
        yield names, {key: value for key, value in block.items() if key != "module"}


def _first_party(module: str) -> bool:
    return module.split(".")[0] in FIRST_PARTY


def test_strict_over_the_checked_packages() -> None:
    config = _mypy()
    assert config["strict"] is True
    assert set(config["files"]) >= CHECKED
    relaxed = {flag for flag in STRICT_FLAGS if config.get(flag) is False}
    assert not relaxed, f"strict flags switched off for the whole run: {sorted(relaxed)}"
    assert "disable_error_code" not in config and not config.get("ignore_errors", False)


def test_third_party_blocks_only_silence_missing_hints() -> None:
    for modules, settings in _overrides():
        if not any(_first_party(m) for m in modules):
            assert set(settings) == {"ignore_missing_imports"}, modules


def test_relaxed_first_party_modules_only_shrink() -> None:
    relaxed = [m for modules, _ in _overrides() for m in modules if _first_party(m)]
    assert len(relaxed) == len(set(relaxed)), "a module named twice"
    assert not [m for m in relaxed if "*" in m], "name each relaxed module, no wildcards"
    assert len(relaxed) <= MAX_RELAXED, (
        f"{len(relaxed)} first-party modules relax strict flags, at most {MAX_RELAXED}: "
        "type the new code instead"
    )

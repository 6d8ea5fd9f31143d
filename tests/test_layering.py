"""Dependency direction (DESIGN.md): ui -> admission <- db, hardware.

admission/ imports only the standard library; db/ and hardware/ never import ui/
or Qt (except the Qt printing adapter).
"""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names)


def imports_of(package: str) -> dict[Path, set[str]]:
    found: dict[Path, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[path] = names
    return found


def test_admission_imports_only_the_standard_library() -> None:
    modules = imports_of("admission")
    assert modules, "the domain package is empty"
    for path, names in modules.items():
        foreign = {n for n in names if n not in STDLIB and n != "admission"}
        assert not foreign, f"{path.relative_to(ROOT)} imports {sorted(foreign)}"


def test_db_and_hardware_never_import_ui_or_qt() -> None:
    allowed_qt = {ROOT / "hardware" / "printer" / "qt.py"}
    for package in ("db", "hardware"):
        for path, names in imports_of(package).items():
            assert "ui" not in names, path
            if path not in allowed_qt:
                assert "PySide6" not in names, path


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    # guard against a vacuous pass: the parser must notice a third-party import
    tree = ast.parse("import numpy\nfrom PySide6 import QtCore\n")
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "numpy" in names and "numpy" not in STDLIB

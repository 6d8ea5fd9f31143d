"""Dependency direction (DESIGN.md): ui -> admission <- db, hardware.

admission/ imports only the standard library; db/ and hardware/ never import ui/
or Qt (except the Qt printing adapter). No import circle, even one drawn only under
``if TYPE_CHECKING:``; ui/ names no adapter of db/ or hardware/, even for typing; no
module reaches another module's private names (``from x import _y``, ``x._y``).
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


# -- the import graph ------------------------------------------------------------------
PACKAGES = ("admission", "db", "hardware", "ui")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    found = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    found["main"] = ROOT / "main.py"
    return found


def runtime_imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The project modules ``path`` imports when it runs, function-level imports
    included, ``if TYPE_CHECKING:`` blocks excluded (they never run)."""
    return module_imports(path, name, modules, typing=False)


def module_imports(
    path: Path, name: str, modules: dict[str, Path], *, typing: bool = True
) -> set[str]:
    """The project modules ``path`` imports, function-level imports included, and the
    ``if TYPE_CHECKING:`` blocks too unless ``typing`` is False."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if not typing and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for sub in node.body for n in ast.walk(sub))
    package = _package_of(path, name)

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            # ``from pkg import mod`` depends on pkg.mod; ``from mod import name`` on mod
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names
            ]
        for target in targets:
            module = resolve(target)
            if module is not None and module != name:
                found.add(module)
    return found


def _package_of(path: Path, name: str) -> list[str]:
    return name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]


def _absolute(node: ast.ImportFrom, package: list[str]) -> str:
    base = node.module or ""
    if node.level:
        prefix = package[: len(package) - (node.level - 1)]
        base = ".".join([*prefix, base] if base else prefix)
    return base


def import_graph(*, typing: bool = False) -> dict[str, set[str]]:
    """Every project module's project imports: those that run, or (``typing``) every
    one, ``if TYPE_CHECKING:`` blocks included."""
    modules = project_modules()
    return {
        name: module_imports(path, name, modules, typing=typing) for name, path in modules.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert (len(graph) > 150 and "ui.cli.admit" in graph["main"]) or "ui.cli.commands" in graph[
        "main"
    ]
    assert cycles(graph) == []


def test_no_import_circle_even_for_typing() -> None:
    """A circle drawn only under ``if TYPE_CHECKING:`` is still a circle: the modules
    cannot be understood, tested or moved one without the other."""
    found = cycles(import_graph(typing=True))
    assert found == [], "import circles (TYPE_CHECKING included):\n" + "\n".join(
        " -> ".join([*c, c[0]]) for c in found
    )


def test_the_typing_imports_are_seen(tmp_path: Path) -> None:
    # guard against a vacuous pass: an import under TYPE_CHECKING is an edge for typing
    (tmp_path / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import b\n", encoding="utf-8"
    )
    modules = {"a": tmp_path / "a.py", "b": tmp_path / "b.py"}
    assert module_imports(tmp_path / "a.py", "a", modules) == {"b"}
    assert module_imports(tmp_path / "a.py", "a", modules, typing=False) == set()


def test_the_cycle_finder_sees_a_cycle() -> None:
    # guard against a vacuous pass: a two-module loop and a three-module loop
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}}
    assert cycles(graph) == [["a", "b"], ["c", "d", "e"]]


def test_nothing_in_ui_imports_the_composition_root() -> None:
    graph = import_graph()
    offenders = [m for m, deps in graph.items() if m.startswith("ui") and "main" in deps]
    assert offenders == []


# ui/ receives adapters from main.py (STYLE.md rule 3); at run time it may import from
# db/ and hardware/ only these helpers, which build nothing: the MRZ reading loops over
# the ports, the Qt-free half of the keyboard-wedge reader (the Qt half is ui's), and the
# CSCA master list's checks over a file's bytes and its one file in the data folder
# (``chip masterlist import | show``; it opens no device).
UI_MAY_IMPORT = {"hardware.mrz.watch", "hardware.scanner.wedge", "hardware.chip.masterlist"}


def test_ui_builds_no_adapter() -> None:
    graph = import_graph()
    for module, deps in graph.items():
        if module.startswith("ui"):
            foreign = {d for d in deps if d.split(".")[0] in {"db", "hardware"}}
            assert foreign <= UI_MAY_IMPORT, f"{module} imports {sorted(foreign - UI_MAY_IMPORT)}"


# ...nor names an adapter, even for typing: the types ui/ speaks of are admission's
# ports and values. What it still names today, module by module; this list only
# shrinks (a module cleared leaves it; nothing is added).
UI_STILL_NAMES: dict[str, set[str]] = {
    # the device factories' MRZ readers (Tools.devices): their frames are numpy arrays
    "ui.context": {"hardware.mrz.live", "hardware.mrz.portrait", "hardware.mrz.reader"},
    "ui.desk.workers": {"hardware.mrz.live"},
}


def ui_adapter_names() -> dict[str, set[str]]:
    graph = import_graph(typing=True)
    named: dict[str, set[str]] = {}
    for module, deps in graph.items():
        if module.startswith("ui"):
            foreign = {d for d in deps if d.split(".")[0] in {"db", "hardware"}} - UI_MAY_IMPORT
            if foreign:
                named[module] = foreign
    return named


def test_ui_names_no_adapter_even_for_typing() -> None:
    named = ui_adapter_names()
    new = {m: sorted(d - UI_STILL_NAMES.get(m, set())) for m, d in named.items()}
    new = {m: d for m, d in new.items() if d}
    assert new == {}, f"ui/ names adapters (type them by admission's ports): {new}"
    cleared = {m: sorted(d - named.get(m, set())) for m, d in UI_STILL_NAMES.items()}
    cleared = {m: d for m, d in cleared.items() if d}
    assert cleared == {}, f"cleared: remove from UI_STILL_NAMES {cleared}"


# -- private names ----------------------------------------------------------------------
# A module's ``_name`` is its own: no other module imports it or reaches it through the
# module (``from x import _y``, ``x._y``). What still does today; the list only shrinks.
PRIVATE_REACH_ALLOWED: set[tuple[str, str]] = set()


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_reaches(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The other modules' private names ``path`` imports or reads through a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _package_of(path, name)
    bound: dict[str, str] = {}  # a local name -> the project module it is
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            if base not in modules:
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in modules:
                    bound[alias.asname or alias.name] = full
                elif _private(alias.name) and base != name:
                    found.add(full)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    bound[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = ast.unparse(node.value)
            module = bound.get(owner, owner if owner in modules else None)
            if module is not None and module != name:
                found.add(f"{module}.{node.attr}")
    return found


def test_no_module_reaches_another_modules_private_names() -> None:
    modules = project_modules()
    reached = {
        (name, target)
        for name, path in modules.items()
        for target in private_reaches(path, name, modules)
    }
    assert reached - PRIVATE_REACH_ALLOWED == set(), sorted(reached - PRIVATE_REACH_ALLOWED)
    assert PRIVATE_REACH_ALLOWED - reached == set(), (
        f"cleared: remove from PRIVATE_REACH_ALLOWED {sorted(PRIVATE_REACH_ALLOWED - reached)}"
    )


def test_the_private_name_check_sees_a_reach(tmp_path: Path) -> None:
    # guard against a vacuous pass: both forms are found, a module's own names are not
    (tmp_path / "user.py").write_text(
        "import owner\nfrom owner import _helper, public\nowner._state\n_own = 1\n",
        encoding="utf-8",
    )
    modules = {"owner": tmp_path / "owner.py", "user": tmp_path / "user.py"}
    found = private_reaches(tmp_path / "user.py", "user", modules)
    assert found == {"owner._helper", "owner._state"}


# The generators of invented documents and people: never on the product's runtime path.
# Only the demo's wiring imports them (the tests, benchmarks and tools are outside it).
GENERATOR_USERS = {"main", "ui.cli.demo", "ui.desk.demo_scenario"}


def test_the_generators_stay_off_the_runtime_path() -> None:
    graph = import_graph()
    for module, deps in graph.items():
        if ".generators" in module or module in GENERATOR_USERS:
            continue
        generated = {d for d in deps if ".generators" in d}
        assert not generated, f"{module} imports {sorted(generated)}"

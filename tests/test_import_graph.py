"""The package's imports go one way (STYLE.md 1, ARCHITECTURE.md): rules <- table <- app, and no cycle.

Every ``import`` in every module counts, those inside functions too (a lazy import is still a dependency); only
imports under ``if TYPE_CHECKING:`` (annotations, never run) are left out. Readers stop at ZoneEvent: they import
neither the table, the rules nor the record format.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import tablepi

PACKAGE = Path(tablepi.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path) -> set[str]:
    """The tablepi modules ``path`` imports (absolute and relative), outside TYPE_CHECKING blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            skipped |= {id(inner) for inner in ast.walk(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            # ``from tablepi.table import report`` depends on the module report, not on the package's __init__ (a
            # compiled extension module, such as the analysis kernel, is a module too: no edge to the package).
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if sub not in MODULES and not _extension(sub):
                    found.add(module)
                else:
                    found.add(sub)
    return {m for m in found if m in MODULES}


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _extension(module: str) -> bool:
    """Whether ``module`` is a C extension of the package (its C source ships beside the Python files)."""
    parts = module.split(".")[1:]
    return PACKAGE.joinpath(*parts[:-1], parts[-1] + ".c").exists() if parts else False


@functools.cache
def _graph() -> dict[str, set[str]]:
    return {name: _imports(path) - {name} for name, path in MODULES.items()}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _offenders(package: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in _graph().items() if _layer(module) == package
        for target in targets if any(target == f or target.startswith(f + ".") for f in forbidden)
    )


def test_rules_import_nothing_of_the_project_but_errors() -> None:
    assert _offenders("rules", tuple(f"tablepi.{p}" for p in ("table", "app", "display", "readers", "record",
                                                               "journal", "config", "deck", "commands"))) == []


def test_table_builds_on_rules_only() -> None:
    assert _offenders("table", ("tablepi.app", "tablepi.display", "tablepi.readers", "tablepi.commands",
                                "tablepi.journal", "tablepi.config", "tablepi.deck", "tablepi.record")) == []


def test_readers_stop_at_zone_events() -> None:
    assert _offenders("readers", ("tablepi.table", "tablepi.rules", "tablepi.record", "tablepi.deck",
                                  "tablepi.app", "tablepi.display")) == []


def test_nothing_below_the_app_imports_the_app() -> None:
    below = ("rules", "table", "readers", "display", "record", "journal", "deck", "config")
    offenders = [o for layer in below for o in _offenders(layer, ("tablepi.app", "tablepi.commands"))]
    assert offenders == []


def test_the_import_graph_has_no_cycle() -> None:
    graph = _graph()
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, path: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle.extend([*path[path.index(nxt):], nxt] if nxt in path else [node, nxt])
                return True
            if state.get(nxt) is None and visit(nxt, [*path, nxt]):
                return True
        state[node] = 2
        return False

    for module in sorted(graph):
        if state.get(module) is None and visit(module, [module]):
            break
    assert cycle == []

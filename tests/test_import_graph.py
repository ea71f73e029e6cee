"""The package's imports go one way (STYLE.md 1, docs/architecture.md): an allow-list per layer, no circle.

:data:`LAYERS` lists every package and top-level module of tablepi ("unit"), bottom layer first, each with the
units it may import. The tests hold the code to it:

- every module of the package belongs to a listed unit, and every listed unit exists (a new package or top-level
  module fails until it is placed in a layer with its allow-list);
- every import of a unit names a unit of its allow-list (anything else fails, naming the module and the import);
- an allow-list names only units of the same layer or below (no arrow runs back up), and the allowed arrows have
  no circle, so neither can the imports; within each unit the modules' imports have no circle either.

Every ``import`` in every module counts, those inside functions too (a lazy import is still a dependency); only
imports under ``if TYPE_CHECKING:`` (annotations, never run) are left out. ``tablepi`` is the package's own
``__init__`` (the version).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import tablepi

PACKAGE = Path(tablepi.__file__).parent

#: Bottom layer first: each unit with the units it may import. Keep each list to what the unit needs.
LAYERS: tuple[tuple[str, dict[str, frozenset[str]]], ...] = (
    ("rules: Konter a Matt itself, pure; its own errors are the root of the error tree", {
        "rules": frozenset(),
    }),
    ("foundation: the error vocabulary and small stdlib-only helpers", {
        "tablepi": frozenset(),
        "errors": frozenset({"rules"}),
        "safeinput": frozenset({"errors"}),
        "notices": frozenset(),
        "sdnotify": frozenset({"errors"}),
        "changes": frozenset(),
        "service_socket": frozenset({"errors"}),
    }),
    ("game: the table's state machine and the best-play analysis, on the rules only", {
        "table": frozenset({"rules", "errors", "safeinput"}),
        "analysis": frozenset({"rules"}),
    }),
    ("devices and identities: readers, the reader board's emulator, buttons, decks, players, enrolment", {
        "readers": frozenset({"errors"}),
        "emulator": frozenset({"errors"}),
        "controls": frozenset({"rules", "errors"}),
        "deck": frozenset({"readers", "rules", "errors", "safeinput"}),
        "players": frozenset({"deck", "readers", "errors", "safeinput"}),
        "enroll": frozenset({"deck", "players", "readers", "rules", "errors"}),
    }),
    ("records and outputs: the journal, the screen's drawing, the MQTT feed", {
        "journal": frozenset({"table", "rules", "players", "notices", "errors", "safeinput"}),
        "display": frozenset({"table", "rules", "players", "notices", "errors", "safeinput"}),
        "feed": frozenset({"journal", "table", "rules", "players", "notices", "errors", "safeinput"}),
    }),
    ("tournament and pages: the tournament server, its web pages, the players' book", {
        "tournament": frozenset({"feed", "journal", "display", "table", "rules", "players", "changes", "errors",
                                 "safeinput"}),
        "web": frozenset({"tournament", "display", "rules", "changes", "errors", "safeinput"}),
        "book": frozenset({"web", "tournament", "feed", "journal", "display", "analysis", "table", "rules", "changes",
                           "errors", "safeinput"}),
    }),
    ("the table's program: its configuration and the app that wires everything", {
        "config": frozenset({"book", "feed", "display", "deck", "controls", "table", "rules", "errors", "safeinput"}),
        "app": frozenset({"config", "book", "feed", "journal", "display", "enroll", "players", "deck", "controls",
                          "emulator", "readers", "analysis", "table", "rules", "service_socket", "sdnotify",
                          "notices", "errors"}),
    }),
    ("entry points: the commands and the command line", {
        "commands": frozenset({"app", "config", "book", "web", "tournament", "feed", "journal", "display", "enroll",
                               "players", "analysis", "table", "rules", "service_socket", "errors"}),
        "cli": frozenset({"commands", "tablepi", "errors"}),
        "__main__": frozenset({"cli"}),
    }),
)

ALLOWED: dict[str, frozenset[str]] = {unit: allowed for _, units in LAYERS for unit, allowed in units.items()}
LEVEL: dict[str, int] = {unit: level for level, (_, units) in enumerate(LAYERS) for unit in units}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unit(module: str) -> str:
    """``tablepi.journal.record`` -> ``journal``; ``tablepi.errors`` -> ``errors``; ``tablepi`` -> ``tablepi``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


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
    return {m for m in found if m == "tablepi" or m.startswith("tablepi.")}


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _extension(module: str) -> bool:
    """Whether ``module`` is a C extension of the package (its C source ships beside the Python files)."""
    parts = module.split(".")[1:]
    return PACKAGE.joinpath(*parts[:-1], parts[-1] + ".c").exists() if parts else False


@functools.cache
def _graph() -> dict[str, set[str]]:
    return {name: _imports(path) - {name} for name, path in MODULES.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of ``graph`` (its nodes in order, the first repeated at the end), or [] when it has none."""
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, path: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle.extend([*path[path.index(nxt):], nxt])
                return True
            if state.get(nxt) is None and visit(nxt, [*path, nxt]):
                return True
        state[node] = 2
        return False

    for node in sorted(graph):
        if state.get(node) is None and visit(node, [node]):
            break
    return cycle


def test_every_module_belongs_to_a_listed_unit() -> None:
    unlisted = sorted(f"{module} (unit {_unit(module)!r})" for module in MODULES if _unit(module) not in ALLOWED)
    assert unlisted == [], "place each new package or top-level module in LAYERS with what it may import"


def test_every_listed_unit_exists() -> None:
    units = {_unit(module) for module in MODULES}
    assert sorted(set(ALLOWED) - units) == []


def test_every_package_directory_is_a_listed_unit() -> None:
    """A folder of Python files without ``__init__.py`` would be missed by the module walk: none exists."""
    folders = {p.parent for p in PACKAGE.rglob("*.py")}
    assert sorted(str(f.relative_to(PACKAGE)) for f in folders if not (f / "__init__.py").exists()) == []


def test_each_unit_imports_only_what_its_layer_allows() -> None:
    offenders = sorted(
        f"{module} imports {target} (unit {_unit(target)!r}, not in the allow-list of {_unit(module)!r})"
        for module, targets in _graph().items()
        for target in targets
        if _unit(target) != _unit(module) and _unit(target) not in ALLOWED.get(_unit(module), frozenset())
    )
    assert offenders == []


def test_no_allowed_arrow_runs_back_up() -> None:
    upward = sorted(f"{unit} ({LAYERS[LEVEL[unit]][0].split(':')[0]}) may import {target} "
                    f"({LAYERS[LEVEL[target]][0].split(':')[0] if target in LEVEL else 'unlisted'})"
                    for unit, allowed in ALLOWED.items() for target in allowed
                    if target not in LEVEL or LEVEL[target] > LEVEL[unit])
    assert upward == []


def test_the_allowed_arrows_have_no_circle() -> None:
    assert _cycle({unit: set(allowed) for unit, allowed in ALLOWED.items()}) == []


def test_the_modules_imports_have_no_circle() -> None:
    assert _cycle(_graph()) == []


def test_the_walk_sees_lazy_imports() -> None:
    """Imports inside functions count (so the allow-lists above are not vacuous)."""
    graph = _graph()
    assert "tablepi.app.build" in graph["tablepi.commands.run"]  # inside run()
    assert "tablepi.players" in graph["tablepi.journal.record"]  # inside the seat-name checks


def test_the_loop_uses_its_helpers_and_they_never_use_it() -> None:
    """``app/core.py`` is the loop only: what it keeps between inputs lives in modules of its own, which it imports,
    and which reach no further into the app than its ports (never the loop, the builder or the console)."""
    helpers = {f"tablepi.app.{name}" for name in ("resync", "review", "feedlines", "upkeep")}
    graph = _graph()
    assert helpers <= graph["tablepi.app.core"]
    reach = {helper: sorted(t for t in graph[helper] if t.startswith("tablepi.app.") and t != "tablepi.app.ports")
             for helper in sorted(helpers)}
    assert reach == {helper: [] for helper in sorted(helpers)}

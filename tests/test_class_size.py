"""No class in the package holds more than 15 attributes: a class that grows past that is split at its seams.

Counted from the source (``ast``), per class: the names annotated in the class body (dataclass fields, class
variables) plus every attribute assigned through ``self`` in its methods (``self.x = ...``, ``self.x: T = ...``,
``self.x += ...``, ``a, self.x = ...``), each name once. A nested class is counted on its own. A group of
attributes moved into a small class of its own counts once where it is held; a dict of loose values would hide
them, and is not how a split is done.

Only ``tablepi/`` is scanned. The MicroPython firmware (``firmware/``) is outside the package: its register
drivers keep flat attributes on purpose (every object costs heap on the microcontroller) and are left as they are.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tablepi"
LIMIT = 15


def _self_targets(target: ast.expr) -> list[str]:
    """The ``self.x`` names an assignment target writes (inside tuples and starred targets too)."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return [target.attr]
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _self_targets(element)]
    if isinstance(target, ast.Starred):
        return _self_targets(target.value)
    return []


def _own_nodes(node: ast.AST) -> list[ast.AST]:
    """Every node inside ``node`` that belongs to it, not to a class nested in it."""
    found: list[ast.AST] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            continue
        found.append(child)
        found.extend(_own_nodes(child))
    return found


def attributes(cls: ast.ClassDef) -> set[str]:
    """The instance attributes and dataclass fields of ``cls``, counted as the module docstring says."""
    names = {
        stmt.target.id for stmt in cls.body if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    }
    for node in _own_nodes(cls):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            names.update(_self_targets(target))
    return names


def class_sizes() -> list[tuple[str, str, int]]:
    """(class, file under tablepi/, attribute count) for every class in the package."""
    sizes = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                sizes.append((node.name, path.relative_to(PACKAGE).as_posix(), len(attributes(node))))
    return sizes


def test_no_class_holds_more_than_15_attributes() -> None:
    too_big = [
        f"{name} in tablepi/{file}: {count} attributes (at most {LIMIT})"
        for name, file, count in class_sizes()
        if count > LIMIT
    ]
    assert not too_big, "split these classes at their seams:\n" + "\n".join(too_big)


def test_the_count_sees_fields_self_assignments_and_nothing_nested() -> None:
    source = '''
class Outer:
    kind: str
    def __init__(self) -> None:
        self.a = 1
        self.b: int = 2
        self.a += 1
        first, self.c = 1, 2
        self.d.e = 3
        other.f = 4
    class Inner:
        g: int
        def set(self) -> None:
            self.h = 5
'''
    outer = ast.parse(source).body[0]
    assert isinstance(outer, ast.ClassDef)
    assert attributes(outer) == {"kind", "a", "b", "c"}

"""No class of the app or the screen holds more than :data:`MOST` attributes (issue 22: a class that holds more is
two or three things at once; group related ones into a small frozen value of their own, as the layout's button grid
or a card's font sizes are).

An attribute is a field declared in the class body (a dataclass's, a protocol's) or a ``self.name`` assigned in
one of its methods; ``ClassVar`` declarations and properties are not stored per object and do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tablepi

PACKAGE = Path(tablepi.__file__).parent
#: The most attributes a class may hold.
MOST = 15
#: The packages held to it so far (a package joins once its classes fit).
PACKAGES = ("app", "book", "display")


def attributes(node: ast.ClassDef) -> set[str]:
    """The attributes an object of the class ``node`` holds (see the module's docstring)."""
    names: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) \
                and "ClassVar" not in ast.unparse(item.annotation):
            names.add(item.target.id)
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            for sub in ast.walk(item):
                if isinstance(sub, ast.Assign):
                    targets = list(sub.targets)
                elif isinstance(sub, ast.AnnAssign | ast.AugAssign):
                    targets = [sub.target]
                else:
                    continue
                for target in targets:
                    for element in target.elts if isinstance(target, ast.Tuple) else [target]:
                        if isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) \
                                and element.value.id == "self":
                            names.add(element.attr)
    return names


def _classes(package: str) -> list[tuple[str, ast.ClassDef]]:
    out = []
    for path in sorted((PACKAGE / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out.extend((f"{path.relative_to(PACKAGE.parent)}:{node.name}", node) for node in ast.walk(tree)
                   if isinstance(node, ast.ClassDef))
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_no_class_holds_more_than_fifteen_attributes(package: str) -> None:
    crowded = {name: len(attributes(node)) for name, node in _classes(package) if len(attributes(node)) > MOST}
    assert crowded == {}


def test_the_count_sees_fields_and_assignments() -> None:
    """Fields and ``self`` assignments count, class variables do not (so the test above is not vacuous)."""
    tree = ast.parse("class A:\n    x: int\n    y: ClassVar[int] = 0\n    def f(self) -> None:\n"
                     "        self.z = 1\n        self.w, self.v = 2, 3\n        self.z += 1\n")
    node = tree.body[0]
    assert isinstance(node, ast.ClassDef)
    assert attributes(node) == {"x", "z", "w", "v"}

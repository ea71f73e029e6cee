"""The rules core imports only the standard library (STYLE.md 1): its errors are its own (tablepi.rules.errors)."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import sys
from pathlib import Path

import tablepi.analysis
import tablepi.rules

RULES_DIR = Path(tablepi.rules.__file__).parent
ANALYSIS_DIR = Path(tablepi.analysis.__file__).parent


def _non_stdlib_imports(directory: Path, allowed_prefixes: tuple[str, ...]) -> list[str]:
    offenders = []
    for path in directory.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if name.startswith(allowed_prefixes):
                    continue
                if top == "__future__" or top in sys.stdlib_module_names:
                    continue
                offenders.append(f"{path.name}: {name}")
    return offenders


def test_analysis_imports_only_stdlib_and_rules() -> None:
    """The analysis package builds on the rules core (errors included) and nothing else (its compiled kernel is
    optional)."""
    assert _non_stdlib_imports(ANALYSIS_DIR, ("tablepi.rules", "tablepi.analysis")) == []


def test_analysis_doctests_teach_correctly() -> None:
    failures = 0
    for info in pkgutil.iter_modules(tablepi.analysis.__path__):
        if info.name.startswith("_"):
            continue
        failures += doctest.testmod(importlib.import_module(f"tablepi.analysis.{info.name}")).failed
    assert failures == 0


def test_rules_import_only_stdlib() -> None:
    assert _non_stdlib_imports(RULES_DIR, ("tablepi.rules",)) == []


def test_doctests_teach_correctly() -> None:
    failures = 0
    for info in pkgutil.iter_modules(tablepi.rules.__path__):
        module = importlib.import_module(f"tablepi.rules.{info.name}")
        failures += doctest.testmod(module).failed
    failures += doctest.testmod(importlib.import_module("tablepi.errors")).failed
    assert failures == 0

"""The readers know cards only as tag UIDs: no module of tablepi.readers imports the table, the rules, the
deck registry or the app (the deck's "is this UID a card?" is passed in as ``Reader.known``).

The one exception is the ``sim`` backend's record replay, which turns card names of a game record into tags
of the virtual deck: it imports those lazily, inside the functions that read records."""

from __future__ import annotations

import ast
from pathlib import Path

import tablepi.readers

FORBIDDEN = ("tablepi.table", "tablepi.rules", "tablepi.deck", "tablepi.app", "tablepi.display")


def test_readers_import_nothing_above_them() -> None:
    found = []
    for path in sorted(Path(tablepi.readers.__file__).parent.glob("*.py")):
        if path.name == "sim.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.name}: {n}" for n in names if n.startswith(FORBIDDEN)]
    assert found == []

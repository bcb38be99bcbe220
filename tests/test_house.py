"""The house rules the tree keeps (docs/adr/0022): small functions, small modules.

ruff holds complexity, branches, statements and argument counts (pyproject's C901 / PLR09xx);
what ruff cannot count, length, is counted here from the source.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = [ROOT / "coffer", ROOT / "adapters" / "coffer_adapters"]
MAX_FUNCTION_LINES = 60
# A backstop, not a target: modules are split where a second concept starts (issue 24), and
# one concept rarely needs more than this (platformdirs' largest backend is 421 lines).
MAX_MODULE_LINES = 400


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in pkg.rglob("*.py"))


def test_functions_fit_on_a_screen() -> None:
    long = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} {length}")
    assert not long, "functions over 60 lines:\n" + "\n".join(long)


def test_modules_stay_small() -> None:
    big = [
        f"{path.relative_to(ROOT)} {n}"
        for path in _sources()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert not big, f"modules over {MAX_MODULE_LINES} lines:\n" + "\n".join(big)

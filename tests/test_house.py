"""The house rules the tree keeps (docs/adr/0022): small functions, small modules, no
module reaching for another's private names.

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


def _is_module(package: str, name: str) -> bool:
    """Whether ``package.name`` is a module of this tree (a package's own private module,
    such as ``coffer.cli._out``, is the package's to use)."""
    parts = package.split(".")
    base = ROOT / "adapters" if parts[0] == "coffer_adapters" else ROOT
    folder = base.joinpath(*parts)
    return (folder / f"{name}.py").is_file() or (folder / name / "__init__.py").is_file()


def test_no_module_imports_another_modules_private_names() -> None:
    # A private name is its module's own: a second module that needs it gets a public name,
    # so what a module offers is what its names say (issue 24).
    found = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            if node.module.split(".")[0] not in ("coffer", "coffer_adapters"):
                continue
            for alias in node.names:
                name = alias.name
                private = name.startswith("_") and not name.startswith("__")
                if private and not _is_module(node.module, name):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.module}.{name}")
    assert not found, "private names imported from another module:\n" + "\n".join(found)

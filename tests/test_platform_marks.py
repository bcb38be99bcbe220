"""The suite on native Windows (the hosted workflow's Windows jobs, issue 27): a test that
needs what only POSIX has carries ``posix_only``, one that creates symlinks itself carries
``needs_symlinks``, and tests/conftest.py skips them there with a reason. Checked here on
Linux, where every one of them still runs, so a new test cannot forget its mark."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import skip_reason

TESTS = Path(__file__).parent
# What a test (or a helper or fixture of its module that it uses) does that only POSIX can;
# and a ``#!`` file made executable is run as a program (as text, it is just a file), as
# are the fake service managers.
POSIX = ("os.mkfifo(", "preexec_fn", "getuid(", "geteuid(", "import pty", "fake.install(")
SHIM = ("#!", "chmod(")
LINKS = ("symlink_to(", "os.symlink(")
# Whole modules that Windows skips by their own ``pytestmark`` (their reason is there).
_MODULE_SKIP = re.compile(r"^pytestmark = .*(posix_only|win32|os\.name == \"nt\")", re.M)
_MODULE_LINKS = re.compile(r"^pytestmark = .*needs_symlinks", re.M)
_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def _needs(source: str) -> dict[str, tuple[bool, bool, set[str]]]:
    """Per function of a module: (does POSIX-only things, makes symlinks, what it uses)."""
    tree = ast.parse(source)
    out: dict[str, tuple[bool, bool, set[str]]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            text = ast.get_source_segment(source, node) or ""
            uses = set(_CALLED.findall(text)) | {a.arg for a in node.args.args}
            uses.discard(node.name)
            posix = any(t in text for t in POSIX) or all(t in text for t in SHIM)
            out[node.name] = (posix, any(t in text for t in LINKS), uses)
    for _ in range(3):  # helpers of helpers of fixtures
        for name, (posix, links, uses) in list(out.items()):
            used = [out[u] for u in uses if u in out]
            posix = posix or any(u[0] for u in used)
            links = links or any(u[1] for u in used)
            out[name] = (posix, links, uses)
    return out


def _unmarked(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    if _MODULE_SKIP.search(source):
        return []
    needs = _needs(source)
    missing = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
            continue
        marks = " ".join(ast.get_source_segment(source, d) or "" for d in node.decorator_list)
        marks += " needs_symlinks" if _MODULE_LINKS.search(source) else ""
        posix, links, _ = needs[node.name]
        if posix and "posix_only" not in marks:
            missing.append(f"{path.relative_to(TESTS)}::{node.name}: posix_only")
        if links and "needs_symlinks" not in marks and "posix_only" not in marks:
            missing.append(f"{path.relative_to(TESTS)}::{node.name}: needs_symlinks")
    return missing


def test_every_posix_only_or_symlink_making_test_is_marked() -> None:
    # tests/agents runs only where run.sh installed the agents: macOS and WSL, never Windows.
    # This file's own sample sources are strings, not tests.
    files = [
        p
        for p in sorted(TESTS.rglob("test_*.py"))
        if "agents" not in p.parts and p.name != Path(__file__).name
    ]
    assert len(files) > 100  # the walk found the suite
    assert [m for p in files for m in _unmarked(p)] == []


def test_the_guard_sees_a_helper_that_makes_a_fifo() -> None:
    source = (
        "def _fifo(d):\n    os.mkfifo(d / 'f')\n\n"
        "def test_text(tmp_path):\n    (tmp_path / 'x.sh').write_text('#!/bin/sh\\n')\n\n"
        "def test_a(tmp_path):\n    _fifo(tmp_path)\n\n"
        "def test_b(tmp_path):\n    (tmp_path / 'l').symlink_to(tmp_path)\n"
    )
    needs = _needs(source)
    assert needs["test_a"][:2] == (True, False) and needs["test_b"][:2] == (False, True)
    assert needs["test_text"][:2] == (False, False)  # a script's text, never run


def test_posix_only_marks_name_their_reason() -> None:
    for path in sorted(TESTS.rglob("*.py")):
        for call in re.findall(r"posix_only\(([^)]*)\)", path.read_text(encoding="utf-8")):
            assert call.strip().startswith('"'), (path, call)


def test_the_skips_apply_on_native_windows_and_without_symlinks_only(
    request: pytest.FixtureRequest,
) -> None:
    item = request.node
    assert skip_reason(item, native_windows=True, symlinks_refused=True) is None  # unmarked
    item.add_marker(pytest.mark.needs_symlinks)
    assert skip_reason(item, native_windows=True, symlinks_refused=False) is None
    refused = skip_reason(item, native_windows=False, symlinks_refused=True)
    assert refused is not None and "symlinks" in refused
    item.add_marker(pytest.mark.posix_only("os.mkfifo: Windows has no FIFOs"))
    # COFFER_SIMULATE=windows is not native Windows: POSIX-only tests still run under it.
    assert skip_reason(item, native_windows=False, symlinks_refused=False) is None
    windows = skip_reason(item, native_windows=True, symlinks_refused=False)
    assert windows == "POSIX only: os.mkfifo: Windows has no FIFOs"

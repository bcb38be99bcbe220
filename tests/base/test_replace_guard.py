"""Every rename coffer makes goes through ``platform.replace`` (issue 27 point 9).

On Windows a rename fails while another program (an editor, the search indexer, a virus
scanner) holds the file open for a moment; the seam retries briefly there. A bare
``os.replace`` or ``os.rename`` elsewhere would fail on the first such moment, so this
test reads the source of ``coffer`` and the built-in adapters and names each one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from tests.test_house import ROOT, _sources

SEAM = ROOT / "coffer" / "base" / "platform.py"
# Renames that want no retry, as "path:call text" -> the reason. None today: every rename
# coffer makes is of a file another program may hold.
ALLOWED: dict[str, str] = {}
_MODULE_CALLS = {("os", "replace"), ("os", "rename"), ("os", "renames"), ("shutil", "move")}


def bare_renames(source: str) -> list[tuple[int, str]]:
    """The line and text of each rename in ``source`` that bypasses the seam:
    ``os.replace``/``os.rename``/``os.renames``/``shutil.move``, and ``x.replace(y)`` or
    ``x.rename(y)`` with one argument (``Path.replace``; ``str.replace`` takes two)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        func = node.func
        owner = func.value.id if isinstance(func.value, ast.Name) else ""
        module_call = (owner, func.attr) in _MODULE_CALLS
        path_call = (
            func.attr in ("replace", "rename")
            and owner not in ("os", "shutil", "platform", "fsutil")
            and len(node.args) == 1
            and not node.keywords
        )
        if module_call or path_call:
            found.append((node.lineno, ast.unparse(node)))
    return found


def unexplained(
    find: Callable[[str], list[tuple[int, str]]], allowed: Mapping[str, str]
) -> list[str]:
    """``path:line text`` of each call ``find`` reports in a source outside the seam,
    unless ``allowed`` gives the reason for it (keyed ``path:text``)."""
    bare = []
    for path in _sources():
        if path == SEAM:
            continue
        rel = path.relative_to(ROOT).as_posix()
        for line, text in find(path.read_text(encoding="utf-8")):
            if f"{rel}:{text}" not in allowed:
                bare.append(f"{rel}:{line} {text}")
    return bare


def test_no_rename_bypasses_the_seam() -> None:
    bare = unexplained(bare_renames, ALLOWED)
    assert not bare, (
        "renames that bypass coffer.base.platform.replace (no retry on Windows):\n"
        + "\n".join(bare)
    )


def test_the_guard_sees_each_form() -> None:
    source = (
        "import os, shutil\n"
        "os.replace(a, b)\n"
        "os.rename(a, b)\n"
        "shutil.move(a, b)\n"
        "Path(a).replace(b)\n"
        "p.rename(q)\n"
        "platform.replace(a, b)\n"
        "fsutil.rename(a, b)\n"
        "text.replace('x', 'y')\n"
        "stamp.replace(microsecond=0)\n"
    )
    assert [line for line, _ in bare_renames(source)] == [2, 3, 4, 5, 6]


def test_the_seam_itself_renames_with_os_replace() -> None:
    # the one place a bare os.replace belongs: if it moved, SEAM above must follow it
    assert any("os.replace" in text for _, text in bare_renames(SEAM.read_text("utf-8")))

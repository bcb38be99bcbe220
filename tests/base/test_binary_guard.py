"""Every descriptor coffer reads or writes data through is opened in binary mode.

Windows opens a descriptor in text mode unless ``O_BINARY`` is given: ``os.write`` then
turns each ``\\n`` into ``\\r\\n`` (a vault's parity no longer matches its bytes) and
``os.read`` stops at the first Ctrl-Z. ``platform.open_nofollow`` adds the flag itself;
this test reads the source of ``coffer`` and the built-in adapters and names each other
``os.open`` whose flags lack ``platform.BINARY``.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from coffer.base import platform
from tests.base.test_replace_guard import unexplained
from tests.test_house import ROOT, _sources

# Opens that carry no data, as "path:call text" -> the reason.
ALLOWED: dict[str, str] = {
    "coffer/main.py:os.open(os.devnull, os.O_WRONLY)": "stdout pointed at the null device",
    "coffer/mcp/wire.py:os.open(os.devnull, os.O_WRONLY)": "stdout pointed at the null device",
    "coffer/store/locking.py:os.open(path, os.O_RDWR | os.O_CREAT, mode)": "a POSIX flock only",
    "coffer/store/watch_state.py:os.open(path, os.O_RDONLY)": "a POSIX flock probe only",
    "coffer/store/history.py:os.open(path, os.O_RDONLY)": "opened to fsync, nothing read",
    "coffer/base/tmpfiles.py:os.open(path, os.O_RDONLY)": "a directory, opened to fsync",
    "coffer/store/search_cache.py:os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, "
    "fsutil.PRIVATE_FILE_MODE)": "created empty for SQLite, which opens it itself",
}


def text_mode_opens(source: str) -> list[tuple[int, str]]:
    """The line and text of each ``os.open`` in ``source`` whose flags do not name
    ``BINARY`` (a directory opened with ``O_DIRECTORY`` holds no data)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        func = node.func
        if not (isinstance(func.value, ast.Name) and (func.value.id, func.attr) == ("os", "open")):
            continue
        flags = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
        if "BINARY" not in flags and "O_DIRECTORY" not in flags:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_data_descriptor_opens_in_text_mode() -> None:
    bare = unexplained(text_mode_opens, ALLOWED)
    assert not bare, "os.open without platform.BINARY (text mode on Windows):\n" + "\n".join(bare)


def test_the_guard_sees_each_form() -> None:
    source = (
        "import os\n"
        "os.open(p, os.O_RDONLY)\n"
        "os.open(p, flags, 0o600)\n"
        "os.open(p, os.O_RDONLY | platform.BINARY)\n"
        "os.open(d, os.O_RDONLY | os.O_DIRECTORY)\n"
        "platform.open_nofollow(p, os.O_RDONLY)\n"
    )
    assert [line for line, _ in text_mode_opens(source)] == [2, 3]


def test_every_allowed_open_still_exists() -> None:
    # a stale entry would let a new text-mode open of the same text through unseen
    seen = {
        f"{p.relative_to(ROOT).as_posix()}:{text}"
        for p in _sources()
        for _, text in text_mode_opens(p.read_text(encoding="utf-8"))
    }
    assert set(ALLOWED) <= seen


@pytest.mark.parametrize("nofollow", [getattr(os, "O_NOFOLLOW", 0), 0])
def test_open_nofollow_adds_the_flag(
    nofollow: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = 1 << 29  # stands in for Windows' O_BINARY; no flag of this host's
    monkeypatch.setattr(platform, "BINARY", marker)
    monkeypatch.setattr(platform, "NOFOLLOW", nofollow)
    real_open, seen = os.open, []

    def spy(path: str, flags: int, mode: int = 0o777) -> int:
        seen.append(flags)
        return real_open(path, flags & ~marker, mode)

    monkeypatch.setattr(os, "open", spy)
    (tmp_path / "f").write_bytes(b"a\r\nb\x1a")
    fd = platform.open_nofollow(tmp_path / "f", os.O_RDONLY)
    try:
        assert os.read(fd, 10) == b"a\r\nb\x1a"
    finally:
        os.close(fd)
    assert seen and all(flags & marker for flags in seen)

"""Detection's own PATH and pattern checks find what shutil.which and glob.glob find
(coffer.adapter.helpers.on_path, coffer.adapter.spec._matches; docs/adr/0023)."""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

import pytest

from coffer.adapter import Context
from coffer.adapter.helpers import on_path
from coffer.adapter.spec import _exists
from coffer.base.executables import which

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX rules; Windows uses shutil")


def _ctx(tmp_path: Path, path: str) -> Context:
    return Context(tmp_path, {"PATH": path}, tmp_path / "store", None)


def test_on_path_agrees_with_shutil_which(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, two, plain, dirs = (tmp_path / n for n in ("one", "two", "plain", "dirs"))
    for d in (one, two, plain, dirs):
        d.mkdir()
    (one / "agent").write_text("#!/bin/sh\n")
    (one / "agent").chmod(0o755)
    (plain / "notexec").write_text("x")  # a file without the execute bit
    (dirs / "agentdir").mkdir()  # a directory of the name: never a command
    (two / "agentdir").write_text("#!/bin/sh\n")
    (two / "agentdir").chmod(0o755)
    os.symlink(one / "agent", two / "linked")
    os.symlink(tmp_path / "nowhere", two / "dangling")
    os.symlink(one, tmp_path / "alias")  # one directory under two names (/bin, /usr/bin)
    monkeypatch.chdir(one)  # an empty PATH entry or a relative one means the cwd
    paths = [
        "",
        f"{one}",
        f"{plain}:{dirs}:{two}",
        f"{dirs}:{one}:{one}",
        f"::{plain}",
        "relative-missing:.",
        f"{tmp_path / 'missing'}",
        f"{tmp_path / 'alias'}:{two}:{one}",
        f"{tmp_path / 'missing'}:{one}:{tmp_path / 'alias'}",
    ]
    names = ["agent", "notexec", "agentdir", "linked", "dangling", "absent", str(one / "agent")]
    for path in paths:
        for name in names:
            expected = shutil.which(name, path=path)
            assert which(name, path) == expected, (path, name)
            assert on_path(_ctx(tmp_path, path), name) is (expected is not None), (path, name)
    monkeypatch.setenv("PATH", f"{plain}:{one}")  # None: the process's own PATH
    assert which("agent", None) == shutil.which("agent") == str(one / "agent")
    monkeypatch.delenv("PATH")
    assert which("sh", None) == shutil.which("sh")  # the system's default path


def test_pattern_checks_agree_with_glob(tmp_path: Path) -> None:
    ext = tmp_path / "extensions"
    ext.mkdir()
    for name in ("publisher.agent-1.2.3", ".publisher.hidden-1", "other-2", "publisher.agent-"):
        (ext / name).mkdir()
    patterns = [
        "publisher.agent-*",
        "publisher.hidden-*",
        ".publisher.hidden-*",
        "*-2",
        "*",
        "publisher.*-1.2.3",
        "publisher.agent-*.3",
        "nothing-*",
        "p*r.a*t-*",  # more than one star: the general rule
        "othe?-*",
    ]
    for pattern in patterns:
        assert _exists(ext / pattern) is bool(glob.glob(str(ext / pattern))), pattern
    assert _exists(tmp_path / "no-such-dir" / "x-*") is False


def test_a_path_folder_created_later_is_searched_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The duplicates are kept for one command's detection; a folder that was missing is
    # looked at again each time (a first install, a watcher that runs for days).
    from coffer.base import executables

    later = tmp_path / "later"
    path = f"{later}:{tmp_path}:{tmp_path}"
    monkeypatch.setattr(executables, "_KEEP_SECONDS", 3600.0)
    assert which("agent", path) is None
    assert executables._folders(path) == [str(tmp_path)]  # once, though listed twice
    later.mkdir()
    (later / "agent").write_text("#!/bin/sh\n")
    (later / "agent").chmod(0o755)
    assert which("agent", path) == str(later / "agent")

"""Detection's PATH and pattern checks find what shutil.which and glob.glob find, on the
context's PATH rather than the process's (coffer.adapter.helpers.on_path,
coffer.adapter.spec._matches)."""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

import pytest

from coffer.adapter import Context
from coffer.adapter.helpers import on_path
from coffer.adapter.spec import _exists

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX rules; Windows uses shutil")


def _ctx(tmp_path: Path, path: str) -> Context:
    return Context(tmp_path, {"PATH": path}, tmp_path / "store", None)


@pytest.mark.needs_symlinks
@pytest.mark.posix_only("a #!/bin/sh script run as a program")
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
            assert on_path(_ctx(tmp_path, path), name) is (expected is not None), (path, name)
    monkeypatch.setenv("PATH", f"{one}")  # the process's own PATH plays no part
    assert on_path(_ctx(tmp_path, str(plain)), "agent") is False


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


@pytest.mark.posix_only("a #!/bin/sh script run as a program")
def test_a_path_folder_created_later_is_searched_at_once(tmp_path: Path) -> None:
    # A watcher runs for days: a folder missing at one detection (a first install) is
    # searched at the next.
    later = tmp_path / "later"
    ctx = _ctx(tmp_path, f"{later}:{tmp_path}:{tmp_path}")
    assert on_path(ctx, "agent") is False
    later.mkdir()
    (later / "agent").write_text("#!/bin/sh\n")
    (later / "agent").chmod(0o755)
    assert on_path(ctx, "agent") is True

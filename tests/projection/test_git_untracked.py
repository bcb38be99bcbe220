"""A block coffer created and git excludes: a write's refresh asks git whether it now tracks
the file only when git's index changed since it last asked (docs/adr/0015).

Real git in temporary repositories, the real CLI, with a `git` on PATH that logs its calls.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import coffer
from tests.projection.test_git import HOOK, git, init_repo, ok
from tests.projection.test_git import home as home  # the fixture: a fake home, git isolated

pytestmark = pytest.mark.posix_only  # the logging `git` is a #! script


@pytest.fixture
def logged(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment whose `git` logs each call's arguments to the returned file."""
    real = shutil.which("git")
    assert real is not None
    bin_dir, log = tmp_path / "bin", tmp_path / "git.log"
    bin_dir.mkdir()
    shim = bin_dir / "git"
    shim.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    shim.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}, log


def calls(log: Path) -> list[str]:
    lines = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return lines


def test_a_rewrite_asks_git_only_after_its_index_changed(
    tmp_path: Path, home: Path, logged: tuple[dict[str, str], Path]
) -> None:
    env, log = logged
    r = init_repo(tmp_path / "fresh", {"README": b"x\n"})
    ok(coffer("remember", "Deploys go through CI.", "--name", "deploy", cwd=r))
    ok(coffer(*HOOK, cwd=r))
    assert "/AGENTS.md" in (r / ".git" / "info" / "exclude").read_text().splitlines()

    ok(coffer("remember", "Releases are tagged.", "--name", "tags", cwd=r, env=env))
    assert b"tagged" in (r / "AGENTS.md").read_bytes()
    assert calls(log) == []  # the index `project` read: git tracks the file no more than it did

    (r / "other.txt").write_text("y\n")
    git(r, "add", "other.txt")  # a new index: asked again, then kept
    ok(coffer("remember", "Logs go to journald.", "--name", "logs", cwd=r, env=env))
    assert [c for c in calls(log) if c.startswith("ls-files")] == ["ls-files -s -v -- AGENTS.md"]
    ok(coffer("remember", "Tests run in CI.", "--name", "tests", cwd=r, env=env))
    assert calls(log) == []
    assert b"Tests run in CI" in (r / "AGENTS.md").read_bytes()
    assert git(r, "status", "--porcelain", "--untracked-files=all") == "A  other.txt\n"


def test_a_block_file_the_user_then_tracks_is_hidden_by_the_filter(
    tmp_path: Path, home: Path
) -> None:
    r = init_repo(tmp_path / "fresh", {"README": b"x\n"})
    ok(coffer("remember", "Deploys go through CI.", "--name", "deploy", cwd=r))
    ok(coffer(*HOOK, cwd=r))
    ok(coffer("remember", "Releases are tagged.", "--name", "tags", cwd=r))  # kept: untracked
    git(r, "add", "-f", "AGENTS.md")
    ok(coffer("remember", "Logs go to journald.", "--name", "logs", cwd=r))
    attributes = (r / ".git" / "info" / "attributes").read_text().splitlines()
    assert "/AGENTS.md filter=coffer" in attributes
    assert b"journald" in (r / "AGENTS.md").read_bytes()

"""Issue 10, point 9: a repository moved or renamed is followed (same memories), and undo
there leaves no block, no record and no link behind."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from coffer.projection import managed_block
from tests.helpers import coffer, make_repo, store
from tests.projection.test_dir_backups import claude_dir
from tests.projection.test_git import git, git_files, init_repo, ok
from tests.projection.test_git import home as _git_home  # noqa: F401 (a fixture: git's own config)

pytestmark = pytest.mark.usefixtures("_git_home")


def records() -> list[dict[str, object]]:
    journal = store().root / "journal"
    return [json.loads(p.read_text()) for p in sorted(journal.glob("*.json"))]


def mentions(path: Path) -> list[dict[str, object]]:
    return [r for r in records() if str(path) in json.dumps(r)]


def test_a_moved_repository_is_followed_and_undone_in_its_new_place(
    tmp_path: Path, fake_home: Path
) -> None:
    original = b"# Agents\n\nRun make test.\n"
    old = init_repo(tmp_path / "old-name", {"AGENTS.md": original})
    before_git = git_files(old)
    ok(coffer("remember", "The build uses make release.", "--name", "build", cwd=old))
    ok(coffer("project", cwd=old))
    assert b"make release" in (old / "AGENTS.md").read_bytes()
    new = tmp_path / "elsewhere" / "new-name"
    new.parent.mkdir()
    os.rename(old, new)

    moved = ok(coffer("project", cwd=new))
    assert "moved here from" in moved.stdout + moved.stderr
    text = (new / "AGENTS.md").read_bytes()
    assert text.count(b"coffer:memory") == 2  # one block (begin and end marker), not two
    assert b"make release" in text  # the same memories, not a new empty store
    assert mentions(old) == [r for r in mentions(old) if "/.claude/" in str(r["path"])]
    listed = ok(coffer("adapter", "list", cwd=new)).stdout
    assert str(new) in listed and str(old / "AGENTS.md") not in listed
    assert git(new, "status", "--porcelain") == ""

    ok(coffer("unproject", cwd=new))
    assert (new / "AGENTS.md").read_bytes() == original
    assert managed_block.find((new / "AGENTS.md").read_bytes()) is None
    assert git_files(new) == before_git
    # Claude's memory for the old path (Claude keys it by path) is no dangling link either.
    for root in (old, new):
        memory = claude_dir(fake_home, root)
        assert not memory.is_symlink()
    assert [r for r in records() if r.get("tier") == "project"] == []
    # The memories are still in the store, under the project's new root.
    shown = ok(coffer("list", "--scope", "project", cwd=new)).stdout
    assert "build" in shown


def test_unproject_in_the_new_place_without_a_project_run_first(
    tmp_path: Path, fake_home: Path
) -> None:
    (fake_home / ".codex").mkdir(exist_ok=True)
    old = make_repo(tmp_path / "repo")  # identified by its origin remote (no commits)
    (old / "AGENTS.md").write_bytes(b"mine\n")
    ok(coffer("remember", "The build uses make.", cwd=old))  # a block to write
    ok(coffer("project", cwd=old))
    new = tmp_path / "renamed"
    os.rename(old, new)
    done = ok(coffer("unproject", cwd=new))
    assert "moved here from" in done.stdout + done.stderr
    assert (new / "AGENTS.md").read_bytes() == b"mine\n"
    assert [r for r in records() if r.get("tier") == "project"] == []


def test_a_second_clone_is_not_taken_for_a_move(tmp_path: Path, fake_home: Path) -> None:
    first = init_repo(tmp_path / "first", {"AGENTS.md": b"a\n"})
    ok(coffer("remember", "only in the first clone", "--name", "first-only", cwd=first))
    second = tmp_path / "second"
    shutil.copytree(first, second)
    ok(coffer("project", cwd=second))
    assert "moved here" not in ok(coffer("project", cwd=second)).stdout
    assert "first-only" not in ok(coffer("list", "--scope", "project", cwd=second)).stdout
    assert "first-only" in ok(coffer("list", "--scope", "project", cwd=first)).stdout

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from coffer.base.identity import root_of
from tests.helpers import make_repo, make_worktree


def project_root(start: Path) -> Path:
    """The canonical project root of ``start``, as the store and the no-op take it."""
    return Path(root_of(os.fspath(start)))


def test_subdirectory_maps_to_repo_root(tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / "a" / "b").mkdir(parents=True)
    assert project_root(repo / "a" / "b") == repo


def test_non_git_directory_is_its_own_root(tmp_path):
    d = tmp_path / "plain" / "dir"
    d.mkdir(parents=True)
    assert project_root(d) == d


@pytest.mark.needs_symlinks
def test_symlinked_cwd_resolves_to_realpath(tmp_path):
    repo = make_repo(tmp_path / "repo")
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert project_root(link) == repo


def test_linked_worktree_maps_to_main_repository(tmp_path):
    main = make_repo(tmp_path / "main")
    wt = tmp_path / "elsewhere" / "feature"
    make_worktree(main, wt)
    (wt / "src").mkdir()
    assert project_root(wt) == main
    assert project_root(wt / "src") == main


def test_worktree_without_backlink_is_its_own_root(tmp_path):
    main = make_repo(tmp_path / "main")
    wt = tmp_path / "wt"
    make_worktree(main, wt)
    (main / ".git" / "worktrees" / "wt" / "gitdir").write_text("/somewhere/else/.git\n")
    assert project_root(wt) == wt


def test_submodule_is_its_own_root(tmp_path):
    sup = make_repo(tmp_path / "super")
    mod_git = sup / ".git" / "modules" / "lib"
    mod_git.mkdir(parents=True)
    sub = sup / "lib"
    sub.mkdir()
    (sub / ".git").write_text("gitdir: ../.git/modules/lib\n")
    assert project_root(sub) == sub


@pytest.mark.skipif(
    not any(
        os.access(os.path.join(p, "git"), os.X_OK) for p in os.environ.get("PATH", "").split(":")
    ),
    reason="git not installed",
)
def test_real_git_worktree(tmp_path):
    main = tmp_path / "main"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "init", "-q", str(main)], check=True, env=env)
    subprocess.run(
        ["git", "-C", str(main), "commit", "-q", "--allow-empty", "-m", "x"], check=True, env=env
    )
    wt = tmp_path / "wt"
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(wt)], check=True, env=env)
    assert project_root(wt) == main

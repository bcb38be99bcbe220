"""Where a block file's repository is, read from git's files, is what git itself answers
(coffer.projection.git.repo.locate; git runs only for a `core.worktree` setting)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from coffer.projection.git import repo
from coffer.projection.git.repo import Repo


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _init(path: Path) -> Path:
    path.mkdir(parents=True)
    _git(path, "init", "-q")
    _git(
        path,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "0",
    )
    return path


def _by_git(path: Path) -> Repo | None:
    return repo._locate_with_git(path)


def test_a_repository_its_subdirectory_and_a_linked_worktree(tmp_path: Path) -> None:
    checkout = _init(tmp_path / "repo")
    (checkout / "sub").mkdir()
    _git(checkout, "worktree", "add", "-q", str(tmp_path / "wt"))
    for path in (
        checkout / "AGENTS.md",
        checkout / "sub" / "AGENTS.md",
        tmp_path / "wt" / "AGENTS.md",
    ):
        found = repo.locate(path)
        assert found is not None and found == _by_git(path), path
    assert repo.locate(tmp_path / "wt" / "AGENTS.md") == Repo(
        (tmp_path / "wt").resolve(), (checkout / ".git").resolve()
    )


def test_a_submodule_is_its_own_repository(tmp_path: Path) -> None:
    lib = _init(tmp_path / "lib")
    app = _init(tmp_path / "app")
    _git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    path = app / "lib" / "AGENTS.md"
    assert repo.locate(path) == _by_git(path)
    assert repo.locate(path) == Repo(
        (app / "lib").resolve(), (app / ".git" / "modules" / "lib").resolve()
    )


@pytest.mark.parametrize("make", ["nothing", "empty .git", "dangling .git file"])
def test_no_repository_where_git_sees_none(tmp_path: Path, make: str) -> None:
    here = tmp_path / "dir"
    here.mkdir()
    if make == "empty .git":
        (here / ".git").mkdir()  # no HEAD, objects or refs: git says "not a git repository"
    elif make == "dangling .git file":
        (here / ".git").write_text("gitdir: /nowhere/at/all\n")
    assert repo.locate(here / "AGENTS.md") is None
    assert _by_git(here / "AGENTS.md") is None


def test_a_core_worktree_setting_is_left_to_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = _init(tmp_path / "repo")
    _git(checkout, "config", "core.worktree", str(checkout))
    asked: list[tuple[str, ...]] = []
    real = repo.git

    def recording(cwd: Path, *args: str) -> object:
        asked.append(args)
        return real(cwd, *args)

    monkeypatch.setattr(repo, "git", recording)
    assert repo.locate(checkout / "AGENTS.md") == Repo(
        checkout.resolve(), (checkout / ".git").resolve()
    )
    assert asked == [("rev-parse", "--show-toplevel", "--git-common-dir")]

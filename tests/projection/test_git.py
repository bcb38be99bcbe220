"""coffer writes only where it was invited, and its blocks stay out of git.

Real git in temporary repositories, the real CLI run the way the agents' hooks run it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coffer.projection import managed_block as block
from tests.helpers import coffer

HOOK = ("project", "--quiet", "--for", "claude")


@pytest.fixture
def home(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (fake_home / ".claude").mkdir()
    (fake_home / ".codex").mkdir()  # Codex reads <repo>/AGENTS.md
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    # The machine's git configuration must not leak in.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return fake_home


def git(repo: Path, *args: str, check: bool = True) -> str:
    out = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, timeout=60, check=False
    )
    if check and out.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def git_files(repo: Path) -> dict[str, bytes | None]:
    """The files coffer may touch in a clone's git dir, as bytes (None: absent)."""
    names = ("config", "info/exclude", "info/attributes")
    return {
        n: (repo / ".git" / n).read_bytes() if (repo / ".git" / n).exists() else None for n in names
    }


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, result.stderr
    return result


def init_repo(r: Path, files: dict[str, bytes]) -> Path:
    """A git repository at ``r`` with ``files`` committed on main."""
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    for name, data in files.items():
        (r / name).write_bytes(data)
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "init")
    return r


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    """A repository whose AGENTS.md and CLAUDE.md are tracked, and one project memory."""
    files = {"AGENTS.md": b"# Agents\n\nRun make test.\n", "CLAUDE.md": b"# Claude\n"}
    r = init_repo(tmp_path / "repo", files | {"src.py": b"print(1)\n"})
    ok(coffer("remember", "The build uses make release.", "--name", "build", cwd=r))
    return r


def test_tracked_block_is_invisible_to_git_and_unproject_restores_git_files(repo: Path) -> None:
    before = git_files(repo)
    ok(coffer(*HOOK, cwd=repo))
    assert b"make release" in (repo / "AGENTS.md").read_bytes()
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "diff") == ""
    assert git(repo, "diff", "HEAD") == ""
    commit = subprocess.run(
        ["git", "commit", "-a", "-m", "x"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert commit.returncode == 1 and "nothing to commit" in commit.stdout
    git(repo, "add", "-A")
    assert git(repo, "diff", "--cached") == ""
    # A stash of the user's own work carries no block, and leaves the block in place.
    (repo / "src.py").write_bytes(b"print(2)\n")
    git(repo, "stash")
    stashed = git(repo, "stash", "show", "-p", "--include-untracked")
    assert "coffer:memory" not in stashed and "print(2)" in stashed
    assert block.find((repo / "AGENTS.md").read_bytes()) is not None
    git(repo, "stash", "pop")
    git(repo, "commit", "-q", "-a", "-m", "mine")
    assert git(repo, "show", "HEAD:AGENTS.md") == "# Agents\n\nRun make test.\n"

    ok(coffer("unproject", cwd=repo))
    assert git_files(repo) == before
    assert (repo / "AGENTS.md").read_bytes() == b"# Agents\n\nRun make test.\n"
    assert git(repo, "status", "--porcelain") == ""


def test_a_file_coffer_created_is_excluded_locally(tmp_path: Path, home: Path) -> None:
    r = init_repo(tmp_path / "fresh", {"README": b"x\n"})
    before = git_files(r)
    ok(coffer("remember", "Deploys go through CI.", "--name", "deploy", cwd=r))
    ok(coffer(*HOOK, cwd=r))
    assert (r / "AGENTS.md").exists()
    assert "/AGENTS.md" in (r / ".git" / "info" / "exclude").read_text().splitlines()
    assert git(r, "status", "--porcelain", "--untracked-files=all") == ""
    git(r, "add", "-A")
    assert git(r, "diff", "--cached", "--name-only") == ""
    ok(coffer("unproject", cwd=r))
    assert not (r / "AGENTS.md").exists()
    assert git_files(r) == before


def test_the_users_own_edits_stay_visible_and_staged(repo: Path) -> None:
    ok(coffer(*HOOK, cwd=repo))
    data = (repo / "AGENTS.md").read_bytes()
    (repo / "AGENTS.md").write_bytes(data.replace(b"Run make test.", b"Run make check."))
    assert git(repo, "status", "--porcelain") == " M AGENTS.md\n"
    diff = git(repo, "diff")
    assert "+Run make check." in diff and "coffer" not in diff
    git(repo, "add", "AGENTS.md")
    staged = git(repo, "ls-files", "-s", "AGENTS.md")
    # A new memory rewrites the block: the staged edit is the user's and stays as it was.
    ok(coffer("remember", "Tests run in CI only.", "--name", "ci", cwd=repo))
    ok(coffer(*HOOK, cwd=repo))
    assert b"Tests run in CI only" in (repo / "AGENTS.md").read_bytes()
    assert git(repo, "ls-files", "-s", "AGENTS.md") == staged
    assert git(repo, "status", "--porcelain") == "M  AGENTS.md\n"
    assert "coffer" not in git(repo, "diff", "--cached")


def test_checkout_and_rebase_never_conflict_on_the_block(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "AGENTS.md").write_bytes(b"# Agents on other\n")
    git(repo, "commit", "-q", "-a", "-m", "other")
    git(repo, "checkout", "-q", "main")
    ok(coffer(*HOOK, cwd=repo))
    git(repo, "checkout", "-q", "other")
    # git wrote the branch's file, and the smudge command put the block back into it.
    data = (repo / "AGENTS.md").read_bytes()
    assert data.startswith(b"# Agents on other\n") and b"make release" in data
    assert git(repo, "status", "--porcelain") == ""
    ok(coffer(*HOOK, cwd=repo))
    assert b"make release" in (repo / "AGENTS.md").read_bytes()
    assert git(repo, "status", "--porcelain") == ""
    (repo / "src.py").write_bytes(b"print(3)\n")
    git(repo, "commit", "-q", "-a", "-m", "work")
    git(repo, "rebase", "-q", "main")
    assert git(repo, "status", "--porcelain") == ""
    assert "coffer" not in git(repo, "log", "-p", "main..HEAD")


def test_a_worktree_gets_its_own_block_and_shares_the_hiding(repo: Path, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(wt))
    ok(coffer(*HOOK, cwd=wt))  # the worktree's project is the main repository
    assert b"make release" in (repo / "AGENTS.md").read_bytes()
    # What Codex and every AGENTS.md agent read in the worktree holds the block too (22.18).
    assert b"make release" in (wt / "AGENTS.md").read_bytes()
    assert git(wt, "check-attr", "filter", "AGENTS.md") == "AGENTS.md: filter: coffer\n"
    assert git(wt, "status", "--porcelain") == ""
    assert git(repo, "status", "--porcelain") == ""
    # A new memory reaches the worktree's block through the refresh after the write.
    ok(coffer("remember", "Releases are tagged vX.Y.", "--name", "tags", cwd=repo))
    assert b"tagged vX.Y" in (wt / "AGENTS.md").read_bytes()
    # The worktree's own edit is still seen.
    data = (wt / "AGENTS.md").read_bytes()
    (wt / "AGENTS.md").write_bytes(data.replace(b"Run make test.", b"Run make test.\nmore"))
    assert git(wt, "status", "--porcelain") == " M AGENTS.md\n"
    ok(coffer("unproject", cwd=wt))
    assert block.find((wt / "AGENTS.md").read_bytes()) is None
    assert block.find((repo / "AGENTS.md").read_bytes()) is None


def test_a_file_coffer_creates_in_a_worktree_is_excluded(tmp_path: Path, home: Path) -> None:
    r = init_repo(tmp_path / "fresh", {"README": b"x\n"})
    wt = tmp_path / "wt"
    git(r, "worktree", "add", "-q", "-b", "feature", str(wt))
    ok(coffer("remember", "Deploys go through CI.", "--name", "deploy", cwd=wt))
    ok(coffer(*HOOK, cwd=wt))
    assert b"Deploys go through CI" in (wt / "AGENTS.md").read_bytes()
    assert git(wt, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(r, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_project_may_choose_to_commit_its_block(repo: Path) -> None:
    before = git_files(repo)
    ok(coffer(*HOOK, cwd=repo))
    # An index clearly newer than the file: git trusts the stat data it holds for it
    # (within the same second it would compare contents anyway and hide the bug).
    agents = repo / "AGENTS.md"
    past = agents.stat().st_mtime_ns - 10_000_000_000
    os.utime(agents, ns=(past, past))
    git(repo, "add", "--refresh", "AGENTS.md")
    assert git(repo, "status", "--porcelain") == ""
    ok(coffer("project", "--git-block", "commit", cwd=repo))
    assert git_files(repo) == before
    assert git(repo, "status", "--porcelain") == " M AGENTS.md\n"
    git(repo, "commit", "-q", "-a", "-m", "share memory")
    assert "make release" in git(repo, "show", "HEAD:AGENTS.md")
    # Later session starts keep committing it, and switching back hides it again.
    ok(coffer(*HOOK, cwd=repo))
    assert git_files(repo) == before
    ok(coffer("project", "--git-block", "hide", cwd=repo))
    assert git_files(repo) != before
    err = coffer("project", "--git-block", "maybe", cwd=repo)
    assert err.returncode == 2 and "'maybe' is not one of hide, commit" in err.stderr


def test_the_filter_passes_anything_it_cannot_read_through(tmp_path: Path) -> None:
    odd = b"x\n<!-- coffer:memory:start (managed, do not edit) -->\nno end\n\xff"
    for data in (odd, b"", b"plain\r\n"):
        out = subprocess.run(
            [sys.executable, "-I", "-m", "coffer.gitfilter"],
            input=data,
            capture_output=True,
            cwd=tmp_path,
            check=True,
        )
        assert out.stdout == data
    with_block = block.upsert(b"keep\r\n", "memory")
    out = subprocess.run(
        [sys.executable, "-I", "-m", "coffer.gitfilter"],
        input=with_block,
        capture_output=True,
        cwd=tmp_path,
        check=True,
    )
    assert out.stdout == b"keep\r\n"


def test_an_agent_in_a_scratch_directory_leaves_nothing_there(tmp_path: Path, home: Path) -> None:
    scratch = tmp_path / "Downloads"
    scratch.mkdir()
    ok(coffer("remember", "Prefer tabs.", "--scope", "global", cwd=scratch))
    assert "`coffer init` there invites it" in ok(coffer("project", cwd=scratch)).stdout
    ok(coffer(*HOOK, cwd=scratch))
    ok(coffer(*HOOK, cwd=scratch))  # and again, on the no-op path
    assert list(scratch.iterdir()) == []
    registry = Path(os.environ["COFFER_HOME"]) / "projects.json"
    assert not registry.exists() or json.loads(registry.read_text())["projects"] == {}
    assert not (home / ".claude" / "projects").exists()
    assert b"Prefer tabs" in (home / ".claude" / "CLAUDE.md").read_bytes()  # global tier only
    refused = coffer("remember", "x", cwd=scratch)
    assert refused.returncode == 1 and "coffer init" in refused.stderr

    ok(coffer("init", cwd=scratch))  # the opt-in the README names
    assert not (scratch / "AGENTS.md").exists()  # its tier is empty: no block yet
    assert str(scratch) in json.loads(registry.read_text())["projects"]
    ok(coffer("remember", "Notes live here.", "--name", "notes", cwd=scratch))
    assert block.find((scratch / "AGENTS.md").read_bytes()) is not None  # the first entry
    ok(coffer(*HOOK, cwd=scratch))
    assert b"Notes live here" in (scratch / "AGENTS.md").read_bytes()
    ok(coffer("unproject", cwd=scratch))
    assert not (scratch / "AGENTS.md").exists()


def test_dry_run_shows_the_git_side_and_writes_nothing(repo: Path) -> None:
    before = git_files(repo)
    out = ok(coffer("project", "--dry-run", cwd=repo))
    assert f"would create {repo / '.git' / 'info' / 'attributes'}" in out.stdout
    assert f"would update {repo / '.git' / 'config'}" in out.stdout
    assert git_files(repo) == before
    assert block.find((repo / "AGENTS.md").read_bytes()) is None


def test_git_files_shared_by_two_blocks_lose_a_line_only_with_its_last_user(
    repo: Path, home: Path
) -> None:
    (home / ".gemini").mkdir()  # Gemini CLI reads <repo>/GEMINI.md
    (repo / "GEMINI.md").write_bytes(b"# Gemini\n")
    git(repo, "add", "GEMINI.md")
    git(repo, "commit", "-q", "-m", "gemini")
    before = git_files(repo)
    ok(coffer(*HOOK, cwd=repo))
    attributes = (repo / ".git" / "info" / "attributes").read_text().splitlines()
    assert {"/AGENTS.md filter=coffer", "/GEMINI.md filter=coffer"} <= set(attributes)
    assert git(repo, "status", "--porcelain") == ""
    ok(coffer("unproject", "--agent", "gemini", cwd=repo))
    attributes = (repo / ".git" / "info" / "attributes").read_text().splitlines()
    assert "/GEMINI.md filter=coffer" not in attributes
    assert "/AGENTS.md filter=coffer" in attributes
    assert "coffer" in git(repo, "config", "filter.coffer.clean")
    assert git(repo, "status", "--porcelain") == ""
    ok(coffer("unproject", cwd=repo))
    assert git_files(repo) == before


def test_a_file_the_user_already_ignores_gets_no_line(tmp_path: Path, home: Path) -> None:
    r = init_repo(tmp_path / "ignoring", {".gitignore": b"AGENTS.md\n"})
    before = git_files(r)
    ok(coffer("remember", "Tests run with make check.", cwd=r))  # a block to write
    ok(coffer(*HOOK, cwd=r))
    assert (r / "AGENTS.md").exists()
    assert git_files(r) == before
    assert git(r, "status", "--porcelain") == ""


def test_unproject_cleans_a_directory_an_earlier_version_projected(
    tmp_path: Path, home: Path
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    ok(coffer("init", cwd=scratch))
    ok(coffer("remember", "Notes live here.", cwd=scratch))
    assert (scratch / "AGENTS.md").exists()
    # What an earlier coffer left: a projection in a directory nobody invited.
    config = Path(os.environ["COFFER_HOME"]) / "config.json"
    settings = json.loads(config.read_text())
    config.write_text(json.dumps({k: v for k, v in settings.items() if k != "opted_in"}))
    assert json.loads(coffer("where", "--json", cwd=scratch).stdout)["project"] is None
    ok(coffer("unproject", cwd=scratch))
    assert list(scratch.iterdir()) == []

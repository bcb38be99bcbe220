"""``filter.coffer.required``: where coffer's clean command cannot run (a moved venv, or
Windows git in a repository WSL shares on /mnt/c, which cannot start a WSL program), git
refuses to stage instead of storing coffer's block (gitattributes(5), filter.<driver>.required).
Real git, a plain repository, no coffer run: the property belongs to git."""

from __future__ import annotations

import subprocess
from pathlib import Path

from coffer.projection import managed_block as block
from tests.projection.test_git import git, home, init_repo

__all__ = ["home"]  # the fixture shared with test_git: a fake home with git's identity

MISSING = "/nonexistent/wsl/venv/bin/python -I -m coffer.gitfilter"  # cannot start


def _filtered_repo(tmp_path: Path, required: bool) -> Path:
    r = init_repo(tmp_path / "repo", {"README": b"x\n"})
    (r / ".git" / "info" / "attributes").write_text("/AGENTS.md filter=coffer\n")
    git(r, "config", "filter.coffer.clean", MISSING)
    git(r, "config", "filter.coffer.required", "true" if required else "false")
    (r / "AGENTS.md").write_bytes(block.upsert(b"# Team\n", "personal memory"))
    return r


def test_a_required_filter_that_cannot_run_makes_git_add_fail(tmp_path: Path, home: Path) -> None:
    r = _filtered_repo(tmp_path, required=True)
    add = subprocess.run(["git", "add", "AGENTS.md"], cwd=r, capture_output=True, text=True)
    assert add.returncode != 0 and "filter" in add.stderr
    assert git(r, "ls-files", "--", "AGENTS.md") == ""  # nothing staged, block or not


def test_without_required_git_stages_the_block_raw(tmp_path: Path, home: Path) -> None:
    """Why coffer sets ``required``: otherwise the same missing command is a silent no-op."""
    r = _filtered_repo(tmp_path, required=False)
    git(r, "add", "AGENTS.md")
    staged = git(r, "show", ":AGENTS.md").encode()
    assert staged == (r / "AGENTS.md").read_bytes() and b"personal memory" in staged

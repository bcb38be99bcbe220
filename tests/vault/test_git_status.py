"""The vault's repo-local project scope stays out of `git status`; the team scope, meant to
be committed, stays in it (issue 23.11, docs/adr/0040). Real git, the real CLI."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import coffer
from tests.projection.test_git import git, home, init_repo, ok

__all__ = ["home"]  # the fixture, shared with test_git


def test_a_handoff_leaves_git_status_clean_and_unproject_takes_the_line_back(
    tmp_path: Path, home: Path
) -> None:
    r = init_repo(tmp_path / "repo", {"README": b"x\n"})
    exclude = r / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    body = tmp_path / "body.md"
    body.write_text("Finish the parser.\n")
    ok(
        coffer(
            "vault",
            "handoff",
            "--from",
            "claude",
            "--target",
            "codex",
            "--title",
            "Next",
            "--body-file",
            str(body),
            cwd=r,
        )
    )
    assert (r / ".ecc" / "memory" / "project" / ".gitignore").is_file()
    assert git(r, "status", "--porcelain", "--untracked-files=all") == ""
    # A team memory is meant to be reviewed and committed: git shows it.
    body.write_text("The API uses port 7070.\n")
    ok(
        coffer(
            "vault",
            "save",
            "--scope",
            "team",
            "--kind",
            "fact",
            "--title",
            "T",
            "--body-file",
            str(body),
            cwd=r,
        )
    )
    status = git(r, "status", "--porcelain", "--untracked-files=all")
    assert ".ecc/memory/team/" in status and ".ecc/memory/project" not in status
    ok(coffer("unproject", cwd=r))
    assert exclude.read_bytes() == before

"""A file coffer created becomes the user's once it holds their text; git must then see
and protect it (issue 22.1, 22.2; docs/adr/0040). Real git, the real CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from coffer.projection import managed_block as block
from tests.helpers import coffer
from tests.projection.test_git import HOOK, git, home, init_repo, ok, repo

__all__ = ["home", "repo"]  # fixtures shared with test_git

NOTES = b"\n## My notes\n\nRemember to rotate the staging keys.\n"


@pytest.fixture
def fresh(tmp_path: Path, home: Path) -> Path:
    r = init_repo(tmp_path / "fresh", {"README": b"x\n"})
    ok(coffer("remember", "Deploys go through CI.", "--name", "deploy", cwd=r))
    ok(coffer(*HOOK, cwd=r))
    assert "/AGENTS.md" in (r / ".git" / "info" / "exclude").read_text().splitlines()
    with (r / "AGENTS.md").open("ab") as fh:
        fh.write(NOTES)
    return r


def test_user_text_makes_git_see_the_file_and_the_user_is_told_once(fresh: Path) -> None:
    first = ok(coffer(*HOOK, cwd=fresh))
    assert "now holds your own text" in first.stderr
    assert "/AGENTS.md" not in (fresh / ".git" / "info" / "exclude").read_text().splitlines()
    assert git(fresh, "status", "--porcelain") == "?? AGENTS.md\n"
    again = ok(coffer(*HOOK, cwd=fresh))
    assert "own text" not in again.stderr
    # What git stores is the user's text without the personal block.
    git(fresh, "add", "AGENTS.md")
    staged = git(fresh, "show", ":AGENTS.md")
    assert "rotate the staging keys" in staged and "Deploys go through CI" not in staged


def test_git_clean_and_checkout_keep_the_users_text(fresh: Path, tmp_path: Path) -> None:
    ok(coffer(*HOOK, cwd=fresh))
    git(fresh, "clean", "-fdX")
    assert NOTES in (fresh / "AGENTS.md").read_bytes()
    # A teammate's branch that tracks AGENTS.md: git refuses to overwrite the user's file.
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(fresh), str(other))
    (other / "AGENTS.md").write_bytes(b"# The team's agents file\n")
    git(other, "add", "AGENTS.md")
    git(other, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "agents")
    git(fresh, "fetch", "-q", str(other), "main:teammate")
    out = subprocess.run(
        ["git", "checkout", "-q", "teammate"], cwd=fresh, capture_output=True, text=True
    )
    assert out.returncode != 0 and "would be overwritten" in out.stderr
    assert NOTES in (fresh / "AGENTS.md").read_bytes()


def test_unproject_leaves_the_users_text_and_takes_back_the_git_lines(fresh: Path) -> None:
    ok(coffer(*HOOK, cwd=fresh))
    ok(coffer("unproject", cwd=fresh))
    data = (fresh / "AGENTS.md").read_bytes()
    assert block.find(data) is None and b"rotate the staging keys" in data
    attributes = fresh / ".git" / "info" / "attributes"
    assert not attributes.exists() or "coffer" not in attributes.read_text()
    assert "coffer" not in git(fresh, "config", "--list", "--local")


def test_a_tracked_file_outside_a_sparse_checkout_is_never_created_over(
    tmp_path: Path, home: Path
) -> None:
    team = b"# The team's agents file\n\nRun make test.\n"
    r = init_repo(tmp_path / "sparse", {"AGENTS.md": team, "README": b"x\n"})
    (r / "src").mkdir()
    (r / "src" / "app.py").write_bytes(b"print(1)\n")
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "src")
    git(r, "sparse-checkout", "set", "--no-cone", "/src/")
    assert not (r / "AGENTS.md").exists()
    ok(coffer("remember", "Deploys go through CI.", "--name", "deploy", cwd=r))
    out = ok(coffer("project", cwd=r))
    assert not (r / "AGENTS.md").exists()
    assert "sparse" in out.stdout + out.stderr
    assert git(r, "status", "--porcelain") == ""
    git(r, "commit", "-q", "-a", "-m", "nothing", check=False)
    assert git(r, "show", "HEAD:AGENTS.md").encode() == team


def test_a_filter_command_that_no_longer_runs_makes_git_refuse(repo: Path) -> None:
    ok(coffer(*HOOK, cwd=repo))
    assert git(repo, "config", "filter.coffer.required") == "true\n"
    # The venv coffer ran from was moved away: the clean command names a missing python.
    git(repo, "config", "filter.coffer.clean", "/gone/venv/bin/python -I -m coffer.gitfilter")
    (repo / "src.py").write_bytes(b"print(2)\n")
    (repo / "AGENTS.md").write_bytes((repo / "AGENTS.md").read_bytes() + b"more\n")
    add = subprocess.run(["git", "add", "-A"], cwd=repo, capture_output=True, text=True)
    assert add.returncode != 0 and "filter" in add.stderr
    assert "make release" not in git(repo, "show", ":AGENTS.md")
    doctor = coffer("doctor", cwd=repo)
    assert doctor.returncode == 1
    assert "clean filter" in doctor.stdout and "/gone/venv/bin/python" in doctor.stdout
    # The next run that writes sets the command again; git adds the file, cleaned.
    ok(coffer("remember", "Tests run in CI.", "--name", "ci", cwd=repo))
    ok(coffer(*HOOK, cwd=repo))
    git(repo, "add", "-A")
    staged = git(repo, "show", ":AGENTS.md")
    assert "more" in staged and "make release" not in staged
    assert "clean filter" not in coffer("doctor", cwd=repo).stdout


def test_unproject_after_team_init_leaves_no_phantom_modification(repo: Path) -> None:
    ok(coffer(*HOOK, cwd=repo))
    ok(coffer("team", "init", cwd=repo))
    ok(coffer("unproject", cwd=repo))
    assert git(repo, "diff") == ""
    assert " M AGENTS.md" not in git(repo, "status", "--porcelain")


def test_a_hand_edit_inside_the_block_is_no_phantom_modification(repo: Path) -> None:
    ok(coffer(*HOOK, cwd=repo))
    agents = repo / "AGENTS.md"
    agents.write_bytes(agents.read_bytes().replace(b"make release", b"make release now"))
    coffer("project", cwd=repo)  # refuses to overwrite the hand edit, and says so
    assert b"make release now" in agents.read_bytes()
    assert git(repo, "diff") == ""
    assert git(repo, "status", "--porcelain") == ""


def test_stash_push_p_keeps_the_block_and_stash_pop_works(repo: Path) -> None:
    ok(coffer(*HOOK, cwd=repo))
    agents = repo / "AGENTS.md"
    agents.write_bytes(agents.read_bytes().replace(b"Run make test.", b"Run make check."))
    (repo / "src.py").write_bytes(b"print(2)\n")
    # Stash the AGENTS.md hunk, keep the other: git rewrites AGENTS.md itself.
    answers = "y\nn\n" if git(repo, "diff", "--name-only").startswith("AGENTS.md") else "n\ny\n"
    stash = subprocess.run(
        ["git", "stash", "push", "-p"], cwd=repo, input=answers, capture_output=True, text=True
    )
    assert stash.returncode == 0, stash.stderr
    assert b"make release" in agents.read_bytes()  # the block is still there
    assert git(repo, "status", "--porcelain") == " M src.py\n"
    pop = subprocess.run(["git", "stash", "pop"], cwd=repo, capture_output=True, text=True)
    assert pop.returncode == 0, pop.stdout + pop.stderr
    assert b"Run make check." in agents.read_bytes() and b"make release" in agents.read_bytes()
    assert "+Run make check." in git(repo, "diff")

"""Issue 22.10: a coffer block someone else committed (bad digest, tracked file) is reported
as foreign, never trusted, and never stops the user's own block. Real CLI, real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from coffer.projection import managed_block as block
from tests.helpers import coffer
from tests.projection.test_git import git, init_repo, ok

MINE = "We deploy with make release."
THEIRS = "Teammate's private note: staging is at 10.0.0.7."
FOREIGN_BLOCK = (
    f"{block.START_MARKER}\n<!-- coffer:digest:0000000000000000 -->\n{THEIRS}\n{block.END_MARKER}\n"
)


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (fake_home / ".codex").mkdir()
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return init_repo(tmp_path / "repo", {"README.md": b"# app\n"})


def _teammate_commits_a_block(repo: Path, tmp_path: Path) -> None:
    """A clone without coffer's filter commits AGENTS.md with a block in it; we pull it."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    mate = tmp_path / "mate"
    git(tmp_path, "clone", "-q", str(remote), str(mate))
    (mate / "AGENTS.md").write_text(f"# Team rules\n\nUse tabs.\n\n{FOREIGN_BLOCK}")
    git(mate, "add", "AGENTS.md")
    git(mate, "commit", "-q", "-m", "agents")
    git(mate, "push", "-q", "origin", "HEAD:main")
    git(repo, "pull", "-q", "origin", "main")


def test_a_committed_foreign_block_never_stops_the_users_block(repo: Path, tmp_path: Path) -> None:
    ok(coffer("remember", MINE, "--name", "deploy", cwd=repo))
    _teammate_commits_a_block(repo, tmp_path)
    assert THEIRS in (repo / "AGENTS.md").read_text()
    said = coffer("project", cwd=repo)
    assert said.returncode == 0, said.stdout + said.stderr
    output = said.stdout + said.stderr
    assert "edited by hand" not in output
    assert "did not write here" in output and "not trusted" in output
    text = (repo / "AGENTS.md").read_text()
    span = block.find(text.encode())
    assert span is not None and not span.edited
    assert MINE in span.body and THEIRS not in text
    assert text.startswith("# Team rules\n\nUse tabs.\n\n")  # the teammate's own text stays
    # The file as it was is kept, byte for byte, where the notice says.
    backup = Path(" ".join(output.split()).split("is saved to ")[1].split()[0])
    assert backup.read_text() == f"# Team rules\n\nUse tabs.\n\n{FOREIGN_BLOCK}"
    # And from now on it is the user's block: a second run changes nothing, says nothing.
    again = coffer("project", cwd=repo)
    assert again.returncode == 0 and "did not write here" not in again.stdout + again.stderr


def test_the_users_own_hand_edit_is_still_protected(repo: Path) -> None:
    ok(coffer("remember", MINE, "--name", "deploy", cwd=repo))
    ok(coffer("project", cwd=repo))
    path = repo / "AGENTS.md"
    path.write_text(path.read_text().replace(MINE, MINE + " (and a note of mine)"))
    said = coffer("project", cwd=repo)
    assert "edited by hand" in said.stdout + said.stderr
    assert "(and a note of mine)" in path.read_text()

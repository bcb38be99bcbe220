"""Issue 10, point 8: deleting the store by hand never strands coffer's changes; `coffer
uninstall` undoes everything and deletes nothing it could not put back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coffer import block
from tests.helpers import coffer, store
from tests.test_git import git_files, init_repo, ok
from tests.test_git import home as _git_home  # noqa: F401 (a fixture: git's own config)

pytestmark = pytest.mark.usefixtures("_git_home")

CODEX_CONFIG = b'# mine\nmodel = "o3"\n\n[features]\nmemories = true\n'


@pytest.fixture
def machine(tmp_path: Path, fake_home: Path) -> tuple[Path, dict[Path, bytes | None]]:
    """A repository and the agents' files, projected; with what every file held before."""
    (fake_home / ".gemini").mkdir()
    (fake_home / ".codex" / "config.toml").write_bytes(CODEX_CONFIG)
    repo = init_repo(tmp_path / "repo", {"AGENTS.md": b"# Agents\n\nRun make.\n"})
    files = [
        repo / "AGENTS.md",
        repo / "GEMINI.md",
        fake_home / ".codex" / "config.toml",
        fake_home / ".codex" / "AGENTS.md",
        fake_home / ".claude" / "CLAUDE.md",
        fake_home / ".gemini" / "GEMINI.md",
    ]
    before: dict[Path, bytes | None] = {f: f.read_bytes() if f.exists() else None for f in files}
    before |= {repo / ".git" / k: v for k, v in git_files(repo).items()}
    ok(coffer("remember", "The build uses make release.", "--name", "build", cwd=repo))
    ok(coffer("project", cwd=repo))
    assert b"memories = false" in (fake_home / ".codex" / "config.toml").read_bytes()
    return repo, before


def claude_links(fake_home: Path) -> list[Path]:
    base = fake_home / ".claude" / "projects"
    return [p for p in base.glob("*/memory") if p.is_symlink()] if base.is_dir() else []


def assert_all_back(fake_home: Path, before: dict[Path, bytes | None]) -> None:
    for path, data in before.items():
        now = path.read_bytes() if path.exists() else None
        assert now == data, path
        assert now is None or block.find(now) is None
    assert claude_links(fake_home) == []


def test_unproject_all_after_the_store_was_deleted_by_hand(
    machine: tuple[Path, dict[Path, bytes | None]], fake_home: Path
) -> None:
    repo, before = machine
    assert claude_links(fake_home)
    shutil.rmtree(store().root)
    r = coffer("unproject", "--all", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "nothing to undo" not in r.stdout
    assert_all_back(fake_home, before)
